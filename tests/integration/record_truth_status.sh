# The record summary says when ground truth failed, even with --quiet, and the
# exit code says it too (4): a dead BMC (a Redfish URL on a closed loopback
# port, every poll refused) beside a simulated one that delivers. The run is
# complete either way. Without failures --quiet says nothing about truth;
# without --quiet each source gets its line.
. tests/integration/lib/common.sh
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])') ||
    skip "python3 is needed for a free port"
dead="redfish:http://127.0.0.1:$port"
REDFISH_USER=u REDFISH_PASSWORD=p "$BIN" record --db "$T/dead.db" --meter sim --interval 250ms \
    --duration 2s --truth "$dead" --truth sim:lag=0,window=0.5,period=0.25 --truth-interval 250ms \
    --truth-timeout 1s --quiet 2>"$T/e"; rc=$?
[ $rc -eq 4 ] || { cat "$T/e"; fail "a dead BMC: exit $rc, expected 4"; }
expect_contains "$T/e" "wattcal record: ground truth $dead FAILED: 0 of "
expect_contains "$T/e" "; last error: "
expect_contains "$T/e" "1 of 2 ground-truth sources delivered no reading"
! grep -q "ground truth sim" "$T/e" || { cat "$T/e"; fail "--quiet printed the working source"; }
polls=$(sql "$T/dead.db" "SELECT COUNT(*) FROM truth_sample s JOIN truth_source t ON t.id = s.source_id
                          WHERE t.spec = '$dead' AND s.status = 'error'")
grep -q "FAILED: 0 of $polls polls" "$T/e" || { cat "$T/e"; fail "the line does not count the $polls stored polls"; }
[ "$(sql "$T/dead.db" 'SELECT clean_stop FROM run')" = 1 ] || fail "the run is not complete"

# a source that delivers: exit 0, quiet says nothing of it, the plain run names it
"$BIN" record --db "$T/ok.db" --meter sim --interval 250ms --duration 2s \
    --truth sim:lag=0,window=0.5,period=0.25 --truth-interval 250ms --quiet 2>"$T/e"; rc=$?
[ $rc -eq 0 ] || { cat "$T/e"; fail "a working BMC: exit $rc"; }
[ ! -s "$T/e" ] || { cat "$T/e"; fail "--quiet without findings printed"; }
"$BIN" record --db "$T/ok2.db" --meter sim --interval 250ms --duration 2s \
    --truth sim:lag=0,window=0.5,period=0.25 --truth-interval 250ms 2>"$T/e" || fail "record"
ok=$(sql "$T/ok2.db" "SELECT COUNT(*) FROM truth_sample WHERE status = 'ok'")
expect_contains "$T/e" "wattcal record: ground truth sim:lag=0,window=0.5,period=0.25: $ok of "

# with --exporter, an --interval other than the exporter's draws the warning, and an equal one not
"$BIN" record --db "$T/x1.db" --meter sim --interval 1s --duration 1s --quiet \
    --exporter "kepler:http://127.0.0.1:$port/metrics" 2>"$T/e"
expect_contains "$T/e" "warning: --interval 1s differs from the exporter's 5s"
expect_contains "$T/e" "burst coverage"
"$BIN" record --db "$T/x2.db" --meter sim --interval 500ms --duration 1s --quiet \
    --exporter "kepler:http://127.0.0.1:$port/metrics" --exporter-interval 500ms 2>"$T/e"
! grep -q "differs from the exporter" "$T/e" || { cat "$T/e"; fail "warned with equal intervals"; }

# after the recording, the exporter's own interval is learnt from its scrapes:
# a replay exporter refreshing every 1.5 s (as Kepler's monitor.interval)
# scraped every 500 ms shows counters changing every 1.5-2 s (a refresh waits
# for the next scrape), which --interval 500ms is not
command -v python3 >/dev/null 2>&1 || skip "python3 absent"
python3 tests/tools/replay_exporter.py --db "$T/x3.db" --max-seconds 40 --refresh-every 1.5 \
    >"$T/rp.out" 2>"$T/rp.err" &
RP=$!
trap 'kill $RP 2>/dev/null; wait $RP 2>/dev/null; rm -rf "$T"' EXIT
i=0
while ! grep -q '^PORT=' "$T/rp.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -le 100 ] || { cat "$T/rp.err"; fail "replay exporter did not start"; }
    sleep 0.1
done
rport=$(sed -n 's/^PORT=//p' "$T/rp.out")
"$BIN" record --db "$T/x3.db" --meter sim --interval 500ms --duration 10s \
    --exporter "kepler:http://127.0.0.1:$rport/metrics" --exporter-interval 500ms 2>"$T/e" ||
    { cat "$T/e"; fail "record with the replay exporter"; }
grep -Eq "exporter kepler:http://127.0.0.1:$rport/metrics: its node counters changed every (1\.[4-9][0-9]*|2(\.[0-9]+)?)s \(median over [0-9]+ changes at scrapes 0\.[45][0-9]*s apart" "$T/e" ||
    { cat "$T/e"; fail "the learnt interval"; }
grep -Eq "warning: --interval 0\.5s differs from the (1\.[4-9][0-9]*|2(\.[0-9]+)?)s learnt from exporter #1's scrapes" "$T/e" ||
    { cat "$T/e"; fail "no warning on the learnt interval"; }
exit 0
