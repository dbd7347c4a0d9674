# The Redfish ground-truth source over real HTTP, on loopback only: a small
# Python server (tests/integration/redfish/server.py, 127.0.0.1, free port)
# serves a mockup tree with a power value and failure modes this script
# sets through a control file the server re-reads on each request; a driver
# (tests/integration/redfish/poll_once.c) linked with the built library
# (build/asan/libwattcal.a when testing the asan CLI, else build/release/)
# polls it through libcurl. Cases: reading and a changed reading, the cached
# plan (one request per poll after discovery), fallback to PowerControl with
# its 60 s window, null reading -> unavailable, an implausible reading
# (1e308 W, 65535 W) -> unavailable, refusals at open (plain http:// to a
# host that is not loopback, an empty or directory password file), HTTP 401 (forced and wrong
# password), HTTP 500, a 10 s stall cut at the 2 s timeout, invalid JSON,
# Kepler's public-rackmount mockup when the shared fixtures are present, and
# connection refused once the server is stopped. Bounded well under 60 s.
# Skips (77) without python3, a C compiler or the libcurl/libcjson headers.
. tests/integration/lib/common.sh

command -v python3 >/dev/null 2>&1 || skip "python3 not found (needed for the loopback Redfish server)"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC) to build the Redfish test driver"
pkg-config --exists libcjson libcurl 2>/dev/null || skip "libcjson/libcurl development files missing"

HERE=tests/integration/redfish
SERVER_PID=""
stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=""
}
trap 'stop_server; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

# The driver, linked with the built library: the sanitized one when the suite
# runs the sanitized CLI.
case "$BIN" in
*asan*) SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
        LIB=build/asan/libwattcal.a ;;
*) SAN="" LIB=build/release/libwattcal.a ;;
esac
[ -r "$LIB" ] || fail "$LIB not built (make wattcal build/asan/wattcal builds both libraries)"
PKGS="sqlite3 libcurl libcjson yaml-0.1 gsl"
# shellcheck disable=SC2086,SC2046
$CC -std=c17 -Wall -Wextra -Werror -O1 -g $SAN -I. -D_GNU_SOURCE $(pkg-config --cflags $PKGS) \
    "$HERE/poll_once.c" "$LIB" $(pkg-config --libs $PKGS) -lm -lpthread -o "$T/poll_once" \
    2>"$T/cc.log" || { cat "$T/cc.log"; fail "the Redfish test driver does not compile"; }

# Loopback only: no proxy may take the traffic elsewhere.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY REDFISH_PASSWORD
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
export REDFISH_USER=wattcal
PW=it-secret-pw-4711
printf '%s\n' "$PW" >"$T/pw"
printf 'not-the-password\n' >"$T/wrong-pw"
chmod 600 "$T/pw" "$T/wrong-pw"

ctl() { # control JSON, replaced atomically
    printf '%s\n' "$1" >"$T/control.tmp" && mv "$T/control.tmp" "$T/control.json"
}

start_server() { # mockup root
    rm -f "$T/port" "$T/requests"
    python3 "$HERE/server.py" --root "$1" --control "$T/control.json" --port-file "$T/port" \
        --user wattcal --password-file "$T/pw" --request-log "$T/requests" \
        2>>"$T/server.log" &
    SERVER_PID=$!
    i=0
    while [ ! -s "$T/port" ]; do
        i=$((i + 1))
        [ $i -le 100 ] || { cat "$T/server.log"; fail "test server did not start in 10 s"; }
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$T/server.log"; fail "test server exited"; }
        sleep 0.1
    done
    PORT=$(cat "$T/port")
}

LIMIT=""
command -v timeout >/dev/null 2>&1 && LIMIT="timeout 20"
poll() { # extra driver args; output in $T/out
    # shellcheck disable=SC2086
    $LIMIT "$T/poll_once" "redfish:http://127.0.0.1:$PORT" --timeout 2 --connect-timeout 1 \
        "$@" >"$T/out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { cat "$T/out"; fail "driver exited $rc"; }
}
expect() { expect_contains "$T/out" "$1"; }
no_secret() {
    if grep -qF -- "$PW" "$T/out"; then cat "$T/out"; fail "the password appears in the output"; fi
}

ctl '{"mode": "ok", "watts": 300}'
start_server "$HERE/mockup"

# 1. a reading, then the value the test changes
poll --password-file "$T/pw"
expect "status=ok rc=0 watts=300.000"
expect "path=redfish:Node:EnvironmentMetrics.PowerWatts"
expect "window_known=0"
expect "source: Redfish http://127.0.0.1:$PORT as wattcal (basic auth; plain HTTP"
no_secret
ctl '{"mode": "ok", "watts": 412.5}'
poll --password-file "$T/pw"
expect "status=ok rc=0 watts=412.500"

# 2. discovery once, then one request per poll
: >"$T/requests"
poll --password-file "$T/pw" --polls 3
[ "$(grep -c 'status=ok' "$T/out")" -eq 3 ] || { cat "$T/out"; fail "3 polls expected ok"; }
n=$(wc -l <"$T/requests" | tr -d ' ')
[ "$n" -eq 5 ] || { cat "$T/requests"; fail "expected 3 discovery + 2 cached requests, got $n"; }

# 3. EnvironmentMetrics gone: PowerControl serves. 280 W is not the 1-minute
#    average (250 W), so it is not that window's mean: its window stays unknown
ctl '{"mode": "ok", "watts": 280, "hide": ["/redfish/v1/Chassis/Node/EnvironmentMetrics"]}'
poll --password-file "$T/pw"
expect "status=ok rc=0 watts=280.000"
expect "avg_watts=250.000 window_s=0 window_known=0"
expect "path=redfish:Node:Power.PowerControl[0].PowerConsumedWatts"

# 4. a null reading is unavailable, never 0 W
ctl '{"mode": "ok", "watts": null}'
poll --password-file "$T/pw"
expect "status=unavailable rc=0 watts=nan"
expect "PowerWatts.Reading is null"
expect "PowerConsumedWatts is null"

# 4b. above the 100 kW per node ceiling, or the 65535 W 'no reading' marker:
#     unavailable with the reason, never ok (validate once printed "inf W")
ctl '{"mode": "ok", "watts": 1e308}'
poll --password-file "$T/pw"
expect "status=unavailable rc=0 watts=nan"
expect "PowerWatts.Reading: implausible reading 1e+308 W"
expect "PowerConsumedWatts: implausible reading 1e+308"
ctl '{"mode": "ok", "watts": 65535}'
poll --password-file "$T/pw"
expect "status=unavailable rc=0 watts=nan"
expect "implausible reading 65535 W"

# 4c. refused at open, before any request: plain http:// to a host that is
#     not loopback (basic auth would carry the password in clear text), an
#     empty password file, a directory as the password file
ctl '{"mode": "ok", "watts": 300}'
: >"$T/requests"
refused() { # spec, password file, expected text
    $LIMIT "$T/poll_once" "$1" --timeout 2 --connect-timeout 1 --password-file "$2" >"$T/out" 2>&1
    rc=$?
    [ $rc -eq 2 ] || { cat "$T/out"; fail "$1 with $2: driver exited $rc, expected 2 (refused at open)"; }
    expect "$3"
    no_secret
}
refused "redfish:http://192.0.2.1:$PORT" "$T/pw" \
    "plain HTTP would send the BMC password in clear text: use https://"
: >"$T/empty-pw"
refused "redfish:http://127.0.0.1:$PORT" "$T/empty-pw" \
    "--truth-password-file $T/empty-pw: empty first line (no password)"
refused "redfish:http://127.0.0.1:$PORT" "$T" "--truth-password-file $T: is a directory"
[ ! -s "$T/requests" ] || { cat "$T/requests"; fail "a source refused at open sent requests"; }
"$BIN" probe --truth "redfish:http://192.0.2.1:$PORT" --truth-password-file "$T/pw" >"$T/out" 2>&1
expect "not opened: --truth redfish:http://192.0.2.1:$PORT: plain HTTP would send the BMC password in clear text: use https://"

# 5. authentication: forced 401, then a wrong password
ctl '{"mode": "401"}'
poll --password-file "$T/pw"
expect "status=error"
expect "HTTP 401 authentication failed"
expect "check REDFISH_USER (wattcal) and --truth-password-file $T/pw"
no_secret
ctl '{"mode": "ok", "watts": 300}'
poll --password-file "$T/wrong-pw"
expect "status=error"
expect "authentication failed"
grep -qF "not-the-password" "$T/out" && fail "the wrong password appears in the output"
REDFISH_PASSWORD=$PW poll
expect "status=ok rc=0 watts=300.000"

# 6. server error
ctl '{"mode": "500"}'
poll --password-file "$T/pw"
expect "status=error"
expect "http://127.0.0.1:$PORT/redfish/v1/Chassis: HTTP 500 server error: Injected server error"

# 7. a 10 s stall is cut at the configured 2 s
ctl '{"mode": "stall", "stall_s": 10}'
poll --password-file "$T/pw"
expect "status=error"
expect "timed out after 2 s"
ms=$(sed -n 's/.*elapsed_ms=\([0-9]*\).*/\1/p' "$T/out" | head -n 1)
if [ -z "$ms" ] || [ "$ms" -lt 1500 ] || [ "$ms" -ge 6000 ]; then
    cat "$T/out"
    fail "stall took ${ms} ms, expected about 2000"
fi

# 8. invalid JSON names the URL and the position
ctl '{"mode": "badjson"}'
poll --password-file "$T/pw"
expect "status=error"
expect "http://127.0.0.1:$PORT/redfish/v1/Chassis: invalid JSON"
expect "line 3"

# 9. an answer over the 4 MiB cap is refused
ctl '{"mode": "huge"}'
poll --password-file "$T/pw"
expect "status=error"
expect "answer larger than 4194304 bytes"
ctl '{"mode": "hugechunked"}'
poll --password-file "$T/pw"
expect "status=error"
expect "answer larger than 4194304 bytes"

# 10. Kepler's public-rackmount mockup (when the shared fixtures are there):
#    PowerControl, not the PSU output power Kepler reads (245 W)
KEPLER=${WATTCAL_FIXTURES:-../shared/fixtures}/kepler/hack/mockups/public-rackmount
if [ -d "$KEPLER" ]; then
    stop_server
    ctl '{"mode": "ok"}'
    start_server "$KEPLER"
    poll --password-file "$T/pw"
    expect "status=ok rc=0 watts=344.000 avg_watts=319.000 window_s=0 window_known=0"
    expect "path=redfish:1U:Power.PowerControl[0].PowerConsumedWatts"
    ctl '{"mode": "ok", "watts": 512}'
    poll --password-file "$T/pw"
    expect "status=ok rc=0 watts=512.000"
else
    echo "note: $KEPLER absent: Kepler mockup case skipped"
fi

# 11. through `wattcal record` and `wattcal probe`: samples recorded beside the
#     node series on their own thread; a 10 s stall does not hold up the sampler
stop_server
ctl '{"mode": "ok", "watts": 300}'
start_server "$HERE/mockup"
"$BIN" record --db "$T/run.db" --meter sim --truth "redfish:http://127.0.0.1:$PORT" \
    --truth-password-file "$T/pw" --truth-interval 250ms --truth-timeout 2s \
    --interval 250ms --duration 4s --quiet 2>"$T/rec.err" &
rec=$!
sleep 1.5
ctl '{"mode": "stall"}'
sleep 1.5
ctl '{"mode": "ok", "watts": 333}'
wait $rec || { cat "$T/rec.err"; fail "record with a Redfish source exited $?"; }
ticks=$(sqlite3 "$T/run.db" 'SELECT COUNT(*) FROM tick')
[ "$ticks" -ge 12 ] || fail "the sampler was held up by the BMC: $ticks ticks in 4 s (17 due)"
[ "$(sqlite3 "$T/run.db" "SELECT COUNT(*) FROM truth_sample WHERE status='ok' AND watts=300")" -ge 2 ] ||
    fail "no 300 W Redfish samples recorded"
[ "$(sqlite3 "$T/run.db" "SELECT COUNT(*) FROM truth_sample WHERE status='error'")" -ge 1 ] ||
    fail "the stall was not recorded as an error"
[ "$(sqlite3 "$T/run.db" "SELECT provenance FROM truth_source")" = "ground truth" ] || fail "provenance"
grep -qF -- "$PW" "$T/run.db" && fail "the password reached the DB"
"$BIN" probe --truth "redfish:http://127.0.0.1:$PORT" --truth-password-file "$T/pw" --json >"$T/out" 2>&1
expect '"watts":	333'

# 12. server stopped: connection refused
stop_server
poll --password-file "$T/pw"
expect "status=error"
expect "connection refused"
expect "http://127.0.0.1:$PORT/redfish/v1/Chassis"
exit 0
