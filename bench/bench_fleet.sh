#!/bin/sh
# bench_fleet.sh — `make bench`: `wattcal fleet` over 1,000 nodes x 24 h at a 30 s step from a
# local Prometheus holding backfilled data (tests/tools/fleet_data.py: per node 3 node counters,
# an active counter, 5 pods, build and cpu info, a BMC gauge: 12 series, 2,881 samples each,
# about 35 M samples for 1,000 nodes). Written and backfilled in batches of 100 nodes
# (`promtool tsdb create-blocks-from openmetrics --max-block-duration 24h`: a few 24 h blocks
# per batch instead of twelve 2 h ones, about 3x less promtool time), pipelined: the next
# batch's OpenMetrics file is generated while promtool reads the current one (each file
# removed after), then served by Debian's prometheus (tests/integration/lib/prometheus.sh)
# scraping nothing.
# Prints: the backfill time, fleet's wall seconds, peak RSS (wait4's ru_maxrss), its user+system
# CPU, the seconds it spent waiting inside HTTP requests (fleet's own count), Prometheus's CPU
# seconds during the run (/proc/PID/stat), and the verdict line; nothing asserted (targets: 10
# min, 512 MiB on 2 cores). Knobs: WATTCAL_BIN (default ./wattcal), WATTCAL_BENCH_NODES (default
# 1000), WATTCAL_BENCH_HOURS (default 24), WATTCAL_BENCH_BOOTSTRAP (default 1000),
# WATTCAL_BENCH_KEEP=1 (keep the directory), WATTCAL_BENCH_DIR=DIR (backfill into DIR, kept;
# a DIR already holding DIR/prom/data and DIR/range from an earlier run of the same nodes and
# hours is reused as is: the fleet run again without the backfill). Prints a "skipped" line and exits 0 when
# prometheus, promtool or python3 is missing.
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${WATTCAL_BIN:-./wattcal}
T=${WATTCAL_BENCH_DIR:-$(mktemp -d)}
fail() { echo "bench_fleet: FAIL: $*"; exit 1; }
skip() { echo "bench_fleet: skipped: $*"; exit 0; }
. tests/integration/lib/prometheus.sh
prom_require
cleanup() {
    prom_stop
    [ -n "${GEN_PID:-}" ] && kill "$GEN_PID" 2>/dev/null
    if [ "${WATTCAL_BENCH_KEEP:-0}" = 1 ] || [ -n "${WATTCAL_BENCH_DIR:-}" ]; then echo "kept $T"
    else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

NODES=${WATTCAL_BENCH_NODES:-1000}
HOURS=${WATTCAL_BENCH_HOURS:-24}
BOOT=${WATTCAL_BENCH_BOOTSTRAP:-1000}
BATCH=100

# Generates batch FIRST (N nodes) into $T/batch.FIRST.om in the background (sets GEN_PID).
gen() {
    python3 tests/tools/fleet_data.py "$T/batch.$1.om.part" --start $START --end $END \
        --first "$1" --nodes "$2" --pods 5 --plant && mv "$T/batch.$1.om.part" "$T/batch.$1.om" &
    GEN_PID=$!
}

backfill() {
    mkdir -p "$T/prom/data" || fail "mkdir"
    first=0
    n=$((NODES < BATCH ? NODES : BATCH))
    gen $first $n
    while [ $first -lt "$NODES" ]; do
        wait "$GEN_PID" || fail "generating nodes $first.."
        GEN_PID=""
        cur=$first
        first=$((first + n))
        n=$((NODES - first < BATCH ? NODES - first : BATCH))
        [ $n -gt 0 ] && gen $first $n
        "$PROMTOOL" tsdb create-blocks-from openmetrics --max-block-duration=24h \
            "$T/batch.$cur.om" "$T/prom/data" >"$T/promtool.log" 2>&1 ||
            { tail -n 20 "$T/promtool.log"; fail "promtool could not build the blocks"; }
        rm -f "$T/batch.$cur.om"
    done
    echo "$NODES $HOURS $START $END" >"$T/range"
}

t0=$(date +%s)
if [ -f "$T/range" ] && [ "$(cut -d' ' -f1,2 "$T/range")" = "$NODES $HOURS" ]; then
    START=$(cut -d' ' -f3 "$T/range")
    END=$(cut -d' ' -f4 "$T/range")
    echo "bench_fleet: reusing the blocks in $T/prom/data ($NODES nodes x $HOURS h)"
else
    END=$(( ($(date +%s) - 7200) / 30 * 30 ))
    START=$((END - HOURS * 3600))
    backfill
    echo "bench_fleet: backfilled $NODES nodes x $HOURS h at 30 s ($(du -sh "$T/prom/data" | cut -f1) of blocks) in $(($(date +%s) - t0)) s"
fi
prom_start "$T/prom"
python3 - "$BIN" "$PROM_URL" "$START" "$END" "$T" "$PROM_PID" "$NODES" "$BOOT" <<'PY' || fail "the fleet run"
import os, sys, time
bin_, url, start, end, tdir, ppid, nodes, boot = sys.argv[1:]
def prom_cpu():
    f = open("/proc/%s/stat" % ppid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
argv = [bin_, "fleet", "--prometheus", url, "--start", start, "--end", end, "--step", "30s",
        "--out", tdir + "/report", "--junit", tdir + "/fleet.xml", "--bootstrap", boot,
        "--prometheus-timeout", "120s",
        "--truth-query", 'ipmi_dcmi_power_consumption_watts{node_name="{{node}}"}']
c0, t0 = prom_cpu(), time.monotonic()
pid = os.fork()
if pid == 0:
    fd = os.open(tdir + "/fleet.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.execv(bin_, argv)
_, status, ru = os.wait4(pid, 0)
secs, pcpu = time.monotonic() - t0, prom_cpu() - c0
lines = open(tdir + "/fleet.log").read().splitlines()
if os.waitstatus_to_exitcode(status) not in (0, 1):
    sys.exit("\n".join(lines[-20:]))
summary = [l for l in lines if " waiting on the server" in l][0]
http_s = float(summary.rsplit(", ", 1)[1].split(" s ")[0])
print("bench_fleet: fleet of %s nodes x %g h at 30 s (bootstrap %s): %.1f s wall, peak RSS %.1f MiB; "
      "wattcal CPU %.1f s (user %.1f, system %.1f); waiting in HTTP %.1f s; Prometheus CPU %.1f s; %s"
      % (nodes, (int(end) - int(start)) / 3600, boot, secs, ru.ru_maxrss / 1024.0,
         ru.ru_utime + ru.ru_stime, ru.ru_utime, ru.ru_stime, http_s, pcpu, lines[-1]))
PY
