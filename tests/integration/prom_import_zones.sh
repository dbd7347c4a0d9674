# `import --prometheus` refuses a Kepler zone label longer than wattcal keeps
# (31 bytes): cut, two zones sharing their first 31 bytes would merge into
# one series. A real Prometheus (its blocks backfilled with promtool from an
# OpenMetrics file of our own) serves two such zones; the import fails naming
# the zone, and leaves no run file. The same node with short zones imports.
. tests/integration/lib/common.sh
. tests/integration/lib/prometheus.sh
prom_require
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
unset PROMETHEUS_TOKEN PROMETHEUS_USER PROMETHEUS_PASSWORD
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
trap 'prom_stop; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

END=$(( ($(date +%s) - 3600) / 30 * 30 ))
START=$((END - 600))
LONG=package-zone-with-a-long-name-0 # 31 bytes: the two zones differ at byte 32
{
    echo "# TYPE kepler_node_cpu_joules counter"
    t=$START
    while [ $t -le $END ]; do
        j=$(( (t - START) * 50 ))
        for z in "${LONG}A" "${LONG}B"; do
            echo "kepler_node_cpu_joules_total{node_name=\"nz\",path=\"/sys/class/powercap/intel-rapl:0\",zone=\"$z\"} $j $t"
        done
        echo "kepler_node_cpu_joules_total{node_name=\"ok\",path=\"/sys/class/powercap/intel-rapl:0\",zone=\"package\"} $j $t"
        t=$((t + 30))
    done
    echo "# EOF"
} >"$T/z.om"
mkdir -p "$T/prom/data"
"$PROMTOOL" tsdb create-blocks-from openmetrics "$T/z.om" "$T/prom/data" >"$T/promtool.log" 2>&1 ||
    { tail -n 20 "$T/promtool.log"; fail "promtool could not build the blocks"; }
prom_start "$T/prom"

rc=0
"$BIN" import --db "$T/nz.db" --prometheus "$PROM_URL" --node nz --start "$START" --end "$END" \
    --step 30s >"$T/nz.out" 2>&1 || rc=$?
cat "$T/nz.out"
[ $rc -ne 0 ] || fail "two long zones sharing 31 bytes were imported (exit 0)"
expect_contains "$T/nz.out" "zone label \"${LONG}A\" is 32 bytes"
expect_contains "$T/nz.out" "refused"
[ ! -e "$T/nz.db" ] || fail "a run file was left behind"

"$BIN" import --db "$T/ok.db" --prometheus "$PROM_URL" --node ok --start "$START" --end "$END" \
    --step 30s >"$T/ok.out" 2>&1 || { cat "$T/ok.out"; fail "the short zone's import failed"; }
[ "$(sql "$T/ok.db" "SELECT zone FROM exporter_series WHERE level = 'node'")" = package ] ||
    fail "zone of the imported node series"
echo "prom_import_zones: long zones refused, short ones imported"
