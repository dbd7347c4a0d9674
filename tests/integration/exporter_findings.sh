# What `record --exporter` says and exits with when the exporter gives
# nothing (issue 11): an exporter that is not there, or answers 200 with an
# empty body, is a finding like a dead truth source: a FAILED line per
# exporter even with --quiet, exit 4, the run kept; an empty answer is stored
# as parse_error saying so, never as ok. Specs are refused before any file is
# made: a malformed HOST[:PORT] (as the truth specs check it), a credential
# in the query (never echoed), a token file holding a NUL byte or a space
# (refused, not cut, naming the file).
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 absent"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 absent"
SP=
trap '[ -n "$SP" ] && { kill "$SP" 2>/dev/null; wait "$SP" 2>/dev/null; }; rm -rf "$T"' EXIT
start_server() { # args...: big_expo.py on a free port, into $port
    rm -f "$T/srv.out" # the background child truncates it later than this shell reads it
    python3 tests/tools/big_expo.py --max-seconds 60 "$@" >"$T/srv.out" 2>"$T/srv.err" &
    SP=$!
    i=0
    while ! grep -q '^PORT=[0-9][0-9]*$' "$T/srv.out" 2>/dev/null; do
        i=$((i + 1)); [ $i -le 100 ] || { cat "$T/srv.err"; fail "big_expo.py did not start"; }
        sleep 0.1
    done
    port=$(sed -n 's/^PORT=//p' "$T/srv.out")
}
stop_server() { kill "$SP" 2>/dev/null; wait "$SP" 2>/dev/null; SP=; }
rec() { # db spec extra...: a 2 s quiet record; exit code in $rc, stderr in $T/e
    db=$1 spec=$2
    shift 2
    rc=0
    "$BIN" record --db "$db" --meter sim --interval 500ms --duration 2s --quiet \
        --exporter "$spec" --exporter-interval 500ms "$@" 2>"$T/e" || rc=$?
}

# nothing listens: FAILED even with --quiet, exit 4, the run kept
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rec "$T/dead.db" "kepler:http://127.0.0.1:$dead/metrics"
[ $rc -eq 4 ] || { cat "$T/e"; fail "every scrape failed: exit $rc, expected 4"; }
expect_contains "$T/e" "exporter kepler:http://127.0.0.1:$dead/metrics FAILED: 0 of "
expect_contains "$T/e" "last error: "
expect_contains "$T/e" "1 of 1 exporter delivered no sample"
[ "$(sql "$T/dead.db" 'SELECT clean_stop FROM run')" = 1 ] || fail "the run is not kept"

# an empty 200 answer: parse_error saying so, and the same finding
start_server --empty
rec "$T/empty.db" "kepler:http://127.0.0.1:$port/metrics"
[ $rc -eq 4 ] || { cat "$T/e"; fail "empty answers: exit $rc, expected 4"; }
expect_contains "$T/e" "FAILED"
[ "$(sql "$T/empty.db" "SELECT COUNT(*) FROM exporter_scrape WHERE status = 'ok'")" = 0 ] ||
    fail "an empty answer stored as ok"
sql "$T/empty.db" "SELECT error FROM exporter_scrape WHERE status = 'parse_error'" | grep -q "an empty answer (0 bytes, no sample)" ||
    fail "empty answer: $(sql "$T/empty.db" 'SELECT status, error FROM exporter_scrape')"
stop_server

# a working exporter: exit 0, quiet says nothing, the plain run names it
start_server --series 20
rec "$T/ok.db" "kepler:http://127.0.0.1:$port/metrics"
[ $rc -eq 0 ] || { cat "$T/e"; fail "a working exporter: exit $rc"; }
! grep -q 'FAILED\|^wattcal record: exporter ' "$T/e" || { cat "$T/e"; fail "--quiet without exporter findings printed one"; }
"$BIN" record --db "$T/ok2.db" --meter sim --interval 500ms --duration 2s \
    --exporter "kepler:http://127.0.0.1:$port/metrics" --exporter-interval 500ms 2>"$T/e" ||
    { cat "$T/e"; fail "record"; }
n=$(sql "$T/ok2.db" "SELECT COUNT(*) FROM exporter_scrape WHERE status = 'ok'")
expect_contains "$T/e" "exporter kepler:http://127.0.0.1:$port/metrics: $n of "
expect_contains "$T/e" "($((n * 21)) samples)"
stop_server

# refused before any file: HOST[:PORT], a credential in the query, a bad token file
for spec in "kepler:http://[::1:18911/good" "kepler:http://127.0.0.1:99999/metrics"; do
    rec "$T/bad.db" "$spec"
    [ $rc -eq 2 ] || { cat "$T/e"; fail "$spec: exit $rc, expected 2"; }
    expect_contains "$T/e" "HOST[:PORT] is malformed"
    [ ! -e "$T/bad.db" ] || fail "$spec: a run file was made"
done
rec "$T/bad.db" "kepler:http://127.0.0.1:$dead/metrics?token=s3cr3t"
[ $rc -eq 2 ] || { cat "$T/e"; fail "?token=: exit $rc, expected 2"; }
grep -q s3cr3t "$T/e" && fail "the token was echoed"
expect_contains "$T/e" "credential in its query"
printf 'sec\000ret\n' >"$T/tok"
rec "$T/bad.db" "kepler:http://127.0.0.1:$dead/metrics" --exporter-token-file "$T/tok"
[ $rc -eq 2 ] || { cat "$T/e"; fail "a token with a NUL: exit $rc, expected 2"; }
expect_contains "$T/e" "$T/tok: the secret holds a NUL byte"
printf 'sec ret\n' >"$T/tok"
rec "$T/bad.db" "kepler:http://127.0.0.1:$dead/metrics" --exporter-token-file "$T/tok"
[ $rc -eq 2 ] || { cat "$T/e"; fail "a token with a space: exit $rc, expected 2"; }
expect_contains "$T/e" "whitespace"
[ ! -e "$T/bad.db" ] || fail "a run file was made for a refused token"
echo "exporter_findings: dead and empty exporters exit 4, bad specs and tokens refused"
