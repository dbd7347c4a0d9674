# deploy/grafana/wattcal.json: every panel's PromQL (extracted by python3,
# tests/tools/grafana_check.py) runs against a REAL Prometheus on 127.0.0.1
# (lib/prometheus.sh) holding known series backfilled with `promtool tsdb
# create-blocks-from openmetrics` into the test's own storage: two Kepler nodes
# (one measured with a BMC 10 W above it and a wattcal serve beside it, one on
# the fake meter), and each query returns exactly the expected label sets and
# values (exporter vs truth per node, the error in %, the gap by level and kind,
# Kepler's own pod gap per zone, exporter vs reference per top pod, power
# source per node, exporter version per node). A panel without expectations,
# or an expected query missing from the dashboard, fails. Skips (77) without
# prometheus/promtool or python3. Bounded: about 10 s.
. tests/integration/lib/common.sh
. tests/integration/lib/prometheus.sh
prom_require
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
trap 'prom_stop; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

END=$(( ($(date +%s) - 3600) / 30 * 30 ))
START=$((END - 1800))
python3 tests/tools/grafana_check.py data "$T/dash.om" --start $START --end $END ||
    fail "generating the series"
mkdir -p "$T/prom/data"
"$PROMTOOL" tsdb create-blocks-from openmetrics "$T/dash.om" "$T/prom/data" >"$T/promtool.log" 2>&1 ||
    { tail -n 20 "$T/promtool.log"; fail "promtool could not build the blocks"; }
prom_start "$T/prom"
python3 tests/tools/grafana_check.py check deploy/grafana/wattcal.json "$PROM_URL" --time $((END - 60)) \
    >"$T/out" 2>&1 || { cat "$T/out"; fail "a panel's query does not return the expected values"; }
cat "$T/out"
