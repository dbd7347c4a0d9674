#!/bin/sh
# bench_prom_import.sh — `make bench`: `wattcal import --prometheus` of 24 h at a 5 s step for a
# node of 50 pods, from a local Prometheus holding backfilled data. Prints the import's wall
# seconds and peak RSS (wait4's ru_maxrss), nothing asserted.
#
# The data: an OpenMetrics file (generated here, python3) of one Kepler v0.11 node
# (kepler_node_cpu_{,active_,idle_}joules_total and _watts for package and dram, the usage
# ratio, build info) and 50 pods, each with one container and one process
# (kepler_{pod,container,process}_cpu_joules_total), every 5 s over 24 h ending 2 h ago, and an
# ipmi_dcmi_power_consumption_watts gauge; `promtool tsdb create-blocks-from openmetrics` writes
# it as blocks into a fresh storage directory; Debian's prometheus (tests/integration/lib/
# prometheus.sh) serves it on 127.0.0.1 without scraping anything. About 2.8 M samples; the
# OpenMetrics file takes ~400 MB under $TMPDIR while the blocks are built. Knobs: WATTCAL_BIN
# (default ./wattcal), WATTCAL_BENCH_KEEP=1 (keep the directory), WATTCAL_BENCH_HOURS (default
# 24: a shorter range to try the script). Prints a "skipped" line and
# exits 0 when prometheus, promtool or python3 is missing.
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${WATTCAL_BIN:-./wattcal}
T=$(mktemp -d)
fail() { echo "bench_prom_import: FAIL: $*"; exit 1; }
skip() { echo "bench_prom_import: skipped: $*"; exit 0; }
. tests/integration/lib/prometheus.sh
prom_require
cleanup() { prom_stop; [ "${WATTCAL_BENCH_KEEP:-0}" = 1 ] && echo "kept $T" || rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

NODE=bench-node
END=$(( ($(date +%s) - 7200) / 5 * 5 ))
HOURS=${WATTCAL_BENCH_HOURS:-24}
START=$((END - HOURS * 3600))
python3 - "$T/data.om" "$START" "$END" "$NODE" <<'EOF' || fail "generating the OpenMetrics data"
import sys
path, start, end, node = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
STEP, PODS = 5, 50
times = range(start, end + 1, STEP)
nl = 'node_name="%s"' % node
share = [(i + 1) / sum(range(1, PODS + 1)) for i in range(PODS)]
with open(path, "w") as f:
    def family(name, typ, series):
        """series: [(labels, value_at(t - start))]; one family, series after series."""
        f.write("# TYPE %s %s\n" % (name, typ))
        sample = name + ("_total" if typ == "counter" else "")
        for labels, value in series:
            head = "%s{%s} " % (sample, labels)
            f.write("".join("%s%.3f %d\n" % (head, value(t - start), t) for t in times))
    for zone, path_, w in (("package", "/sys/class/powercap/intel-rapl:0", 60.0),
                           ("dram", "/sys/class/powercap/intel-rapl:0:0", 8.0)):
        lab = '%s,path="%s",zone="%s"' % (nl, path_, zone)
        for q, k in (("", 1.0), ("active_", 0.6), ("idle_", 0.4)):
            family("kepler_node_cpu_%sjoules" % q, "counter", [(lab, lambda s, c=w * k: c * s)])
            family("kepler_node_cpu_%swatts" % q, "gauge", [(lab, lambda s, c=w * k: c)])
    family("kepler_node_cpu_usage_ratio", "gauge", [(nl, lambda s: 0.6)])
    for level, fmt in (
            ("pod", 'pod_id="uid-%d",pod_name="pod-%d",pod_namespace="ns-%d",state="running",zone="package"'),
            ("container", 'container_id="c-%d",container_name="main-%d",pod_id="uid-%d",runtime="containerd",state="running",zone="package"'),
            ("process", 'comm="w%d",container_id="c-%d",pid="%d",state="running",type="container",zone="package"')):
        family("kepler_%s_cpu_joules" % level, "counter",
               [(fmt % (i, i, i % 5 if level == "pod" else i) + "," + nl,
                 lambda s, c=36.0 * share[i]: c * s) for i in range(PODS)])
    family("kepler_build_info", "gauge",
           [('arch="amd64",revision="bench",version="v0.11.4-bench"', lambda s: 1.0)])
    family("ipmi_dcmi_power_consumption_watts", "gauge", [(nl, lambda s: 180.0)])
    f.write("# EOF\n")
EOF
mkdir -p "$T/prom/data" || fail "mkdir"
t0=$(date +%s)
"$PROMTOOL" tsdb create-blocks-from openmetrics "$T/data.om" "$T/prom/data" >"$T/promtool.log" 2>&1 ||
    { tail -n 20 "$T/promtool.log"; fail "promtool could not build the blocks"; }
echo "bench_prom_import: backfilled $(du -sh "$T/data.om" | cut -f1) of OpenMetrics into blocks in $(($(date +%s) - t0)) s"
rm -f "$T/data.om"
prom_start "$T/prom"
python3 - "$BIN" "$PROM_URL" "$NODE" "$START" "$END" "$T/import.db" <<'EOF' || fail "the import"
import os, sys, time, sqlite3
bin_, url, node, start, end, db = sys.argv[1:]
argv = [bin_, "import", "--db", db, "--prometheus", url, "--node", node, "--start", start,
        "--end", end, "--step", "5s", "--prometheus-timeout", "120s",
        "--truth-query", 'ipmi_dcmi_power_consumption_watts{node_name="%s"}' % node]
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    fd = os.open(db + ".log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.execv(bin_, argv)
_, status, ru = os.wait4(pid, 0)
secs = time.monotonic() - t0
out = open(db + ".log").read()
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(out)
c = sqlite3.connect(db)
series, samples = c.execute("SELECT (SELECT count(*) FROM exporter_series),"
                            " (SELECT count(*) FROM exporter_sample)").fetchone()
print("bench_prom_import: import --prometheus, %g h at 5 s, 50 pods: %d series, %d samples, "
      "%s: %.1f s (%.0f samples/s), peak RSS %.1f MiB"
      % ((int(end) - int(start)) / 3600, series, samples, out.split(";")[-1].strip(), secs, samples / secs, ru.ru_maxrss / 1024.0))
EOF
