#!/bin/sh
# ipmi_sim.sh — the IPMI ground-truth source (collector/truth/truth_ipmi.c) against
# a real BMC emulator on loopback: OpenIPMI's ipmi_sim, configured from
# tests/integration/ipmi_sim/{lan.conf.in,sim.emu.in}, read through the real
# ipmitool over lanplus with cipher suite 3, credentials from IPMI_USER /
# IPMI_PASSWORD only. Until `wattcal probe --truth SPEC --json` exists, the
# reading is taken by tests/integration/ipmi_sim/poll_once.c, compiled here
# against the built library (build/asan/libwattcal.a, with sanitizers, when
# testing the asan CLI; build/release/libwattcal.a otherwise).
#
# Checks: the BMC has no DCMI and wattcal reports the SDR fallback path; the
# value read is the one in the sensor's file (245 W, then 310 W); a wrong
# password is an error, never a reading; the password never reaches argv;
# a stopped BMC gives status=error within the timeout; readings resume
# after a restart. Needs ipmi_sim (package openipmi) and ipmitool: installed
# here with apt-get when running as root, else the test is skipped (77).
. tests/integration/lib/common.sh
HERE=tests/integration/ipmi_sim
SIM_PID=

# ---- prerequisites -----------------------------------------------------------
missing=
command -v ipmi_sim >/dev/null 2>&1 || missing="$missing openipmi"
command -v ipmitool >/dev/null 2>&1 || missing="$missing ipmitool"
# Installs $missing quietly (the package lists may need an update first).
install_missing() {
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086 # $missing is a list of package names
    apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 && return 0
    apt-get update -qq >/dev/null 2>&1 || return 1
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1
}
if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    install_missing
fi
command -v ipmi_sim >/dev/null 2>&1 ||
    skip "ipmi_sim not installed (as root: apt-get install -y openipmi ipmitool)"
command -v ipmitool >/dev/null 2>&1 ||
    skip "ipmitool not installed (as root: apt-get install -y ipmitool)"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC) to build poll_once"
[ -r /proc/net/udp ] || skip "/proc/net/udp unreadable: cannot find a free UDP port"
REAL_IPMITOOL=$(command -v ipmitool)

# ---- helpers -----------------------------------------------------------------
# True when a UDP socket is bound to port $1 (any local address).
port_in_use() {
    hex=$(printf '%04X' "$1")
    cat /proc/net/udp /proc/net/udp6 2>/dev/null | awk -v p=":$hex" '
        NR > 1 && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }'
}

pick_port() {
    base=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 20000 + 20000 ))
    for k in $(seq 0 99); do
        p=$((base + k))
        port_in_use "$p" || { echo "$p"; return 0; }
    done
    return 1
}

start_bmc() {
    ipmi_sim -c "$T/lan.conf" -f "$T/sim.emu" -s "$T/state" -n >"$T/sim.log" 2>&1 &
    SIM_PID=$!
    for k in $(seq 1 100); do
        port_in_use "$PORT" && return 0
        kill -0 "$SIM_PID" 2>/dev/null || break
        sleep 0.05
    done
    cat "$T/sim.log"
    fail "ipmi_sim did not listen on 127.0.0.1:$PORT"
}

stop_bmc() {
    [ -n "$SIM_PID" ] || return 0
    kill "$SIM_PID" 2>/dev/null
    for k in $(seq 1 40); do
        kill -0 "$SIM_PID" 2>/dev/null || break
        sleep 0.05
    done
    kill -9 "$SIM_PID" 2>/dev/null
    wait "$SIM_PID" 2>/dev/null
    SIM_PID=
    # The port is free again once the socket is gone.
    for k in $(seq 1 40); do port_in_use "$PORT" || return 0; sleep 0.05; done
}

trap 'stop_bmc; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

# poll_once with a hard outer limit, so a bug cannot hang the suite.
poll() { timeout 20 "$T/poll_once" "$SPEC" "$@"; }

# Polls until the reading is $1 W from the SDR sensor (ipmi_sim rereads the
# file every 200 ms; the first polls may race the emulator's start-up).
poll_until() {
    want="status=ok watts=$1 path=sdr:Pwr Consumption "
    for k in $(seq 1 50); do
        poll >"$T/p.out" 2>&1 && grep -qF -- "$want" "$T/p.out" && return 0
        sleep 0.1
    done
    cat "$T/p.out" "$T/sim.log"
    fail "never read $1 W (last poll above)"
}

# ---- the BMC -----------------------------------------------------------------
PORT=$(pick_port) || skip "no free UDP port in 20000-40099"
USER_NAME=wattcal
PASS=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
mkdir -p "$T/state" "$T/bin"
sed -e "s|@PORT@|$PORT|" -e "s|@USER@|$USER_NAME|" -e "s|@PASSWORD@|$PASS|" \
    "$HERE/lan.conf.in" >"$T/lan.conf"
sed -e "s|@POWER_FILE@|$T/power|" "$HERE/sim.emu.in" >"$T/sim.emu"
echo 245 >"$T/power"

# ipmitool on PATH is a wrapper that records its argv, then execs the real one
# (same process, so timeouts still kill it).
cat >"$T/bin/ipmitool" <<EOF
#!/bin/sh
echo "\$*" >>"$T/argv.log"
exec "$REAL_IPMITOOL" "\$@"
EOF
chmod 755 "$T/bin/ipmitool"

CFLAGS="-std=c17 -O1 -g -D_GNU_SOURCE -I."
LIB=build/release/libwattcal.a
case "$BIN" in *asan*)
    CFLAGS="$CFLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    LIB=build/asan/libwattcal.a ;;
esac
[ -r "$LIB" ] || fail "$LIB not built (make wattcal build/asan/wattcal builds both libraries)"
PKGS="sqlite3 libcurl libcjson yaml-0.1 gsl"
# shellcheck disable=SC2086,SC2046
"$CC" $CFLAGS $(pkg-config --cflags $PKGS) -o "$T/poll_once" "$HERE/poll_once.c" "$LIB" \
    $(pkg-config --libs $PKGS) -lm -lpthread 2>"$T/cc.log" ||
    { cat "$T/cc.log"; fail "cannot build $HERE/poll_once.c"; }

start_bmc
export PATH="$T/bin:$PATH" IPMI_USER="$USER_NAME" IPMI_PASSWORD="$PASS"
SPEC="ipmi:lanplus://127.0.0.1:$PORT"

# ---- 1. no DCMI on this BMC: wattcal reads the SDR and says so ---------------
ipmitool -I lanplus -H 127.0.0.1 -p "$PORT" -U "$USER_NAME" -E -C 3 dcmi power reading \
    >"$T/dcmi.out" 2>&1 && fail "ipmi_sim answered DCMI: the fallback is not exercised"
expect_contains "$T/dcmi.out" "Invalid command (c1)"
poll_until 245
: >"$T/argv.log"
poll --polls 2 >"$T/two.out" || { cat "$T/two.out"; fail "polls failed"; }
expect_contains "$T/two.out" "source=IPMI lanplus 127.0.0.1:$PORT (ipmitool, cipher 3)"
[ "$(grep -c '^status=ok watts=245 path=sdr:Pwr Consumption ' "$T/two.out")" -eq 2 ] ||
    { cat "$T/two.out"; fail "expected two 245 W SDR readings"; }
if [ "$(grep -c 'dcmi power reading' "$T/argv.log")" -ne 1 ] ||
   [ "$(grep -c 'sdr elist full' "$T/argv.log")" -ne 2 ]; then
    cat "$T/argv.log"; fail "DCMI should be tried once per source, then skipped"
fi

# ---- 2. the value follows the sensor file ------------------------------------
echo 310 >"$T/power"
poll_until 310

# ---- 3. credentials: -C 3 -E, never the password in argv; a wrong one fails --
expect_contains "$T/argv.log" "-I lanplus -H 127.0.0.1 -p $PORT -U $USER_NAME -E -C 3 dcmi power reading"
expect_contains "$T/argv.log" "-E -C 3 sdr elist full"
grep -qF -- "$PASS" "$T/argv.log" && fail "the password reached ipmitool's argv"
IPMI_PASSWORD="wrong$PASS" poll >"$T/bad.out" 2>&1 && { cat "$T/bad.out"; fail "a wrong password gave a reading"; }
grep -q '^status=error watts=nan ' "$T/bad.out" || { cat "$T/bad.out"; fail "wrong password: expected status=error"; }
expect_contains "$T/bad.out" "Unable to establish IPMI v2 / RMCP+ session"

# ---- 4. BMC stopped: an error within the timeout, not a hang -----------------
stop_bmc
poll --timeout-ms 2000 >"$T/down.out" 2>&1 && { cat "$T/down.out"; fail "a stopped BMC gave a reading"; }
grep -q '^status=error watts=nan ' "$T/down.out" || { cat "$T/down.out"; fail "stopped BMC: expected status=error"; }
expect_contains "$T/down.out" "no answer within 2.0 s: killed"
ms=$(sed -n 's/.* elapsed_ms=\([0-9]*\) .*/\1/p' "$T/down.out")
if [ -z "$ms" ] || [ "$ms" -ge 3500 ]; then
    cat "$T/down.out"; fail "stopped BMC: took ${ms:-?} ms (timeout 2000 ms)"
fi
if command -v pgrep >/dev/null 2>&1 && pgrep -f "ipmitool -I lanplus -H 127.0.0.1 -p $PORT " >/dev/null; then
    fail "a killed ipmitool is still running"
fi

# ---- 5. BMC back: readings resume --------------------------------------------
start_bmc
poll_until 310

# ---- 6. the same through `wattcal record`: the BMC stopped mid-run leaves a
#         flagged gap, the run goes on, readings resume after the restart ----
"$BIN" record --db "$T/run.db" --meter sim --truth "$SPEC" --truth-interval 300ms \
    --truth-timeout 1s --interval 500ms --duration 12s --quiet 2>"$T/rec.err" &
rec=$!
sleep 3
stop_bmc
sleep 3
start_bmc
wait $rec || { cat "$T/rec.err"; fail "record exited $? while the BMC went away"; }
ticks=$(sql "$T/run.db" 'SELECT COUNT(*) FROM tick')
[ "$ticks" -ge 18 ] || fail "the sampler was held up by the BMC: $ticks ticks in 12 s (25 due)"
# ok samples, then errors (the gap), then ok samples again, in poll order
seq=$(sql "$T/run.db" "SELECT status FROM truth_sample ORDER BY poll_mono_ns" | uniq | tr '\n' ' ')
case "$seq" in
    *ok*error*ok*) ;;
    *) cat "$T/rec.err"; fail "expected ok, error, ok in the truth samples, got: $seq" ;;
esac
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM truth_sample WHERE status='error' AND watts IS NOT NULL")" = 0 ] ||
    fail "an error sample carries watts"
[ "$(sql "$T/run.db" "SELECT MAX(watts) FROM truth_sample WHERE status='ok'")" = 310.0 ] || fail "value"
[ "$(sql "$T/run.db" "SELECT DISTINCT path FROM truth_sample WHERE status='ok'")" = "sdr:Pwr Consumption" ] ||
    fail "path"
grep -qF -- "$PASS" "$T/run.db" && fail "the password reached the DB"
"$BIN" probe --truth "$SPEC" --json >"$T/probe.json" 2>&1
expect_contains "$T/probe.json" '"watts":	310'
echo "ok: ipmi_sim on 127.0.0.1:$PORT: SDR fallback, 245 W -> 310 W, errors bounded, resumed, recorded"
exit 0
