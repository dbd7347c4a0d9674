# `wattcal fleet` against a REAL Prometheus (Debian's package, lib/prometheus.sh)
# on 127.0.0.1 serving a backfilled fleet with a known answer
# (tests/tools/fleet_data.py --plant: 12 nodes over 2 h at a 30 s step, written
# as OpenMetrics and turned into blocks by `promtool tsdb create-blocks-from
# openmetrics` in the test's own storage):
#   bad-fake (fake meter: not measured), bad-off20 (the exporter 20 % below its
#   BMC), bad-upgrade (v0.11.3 -> v0.11.4 in the range) FAIL, in that risk
#   order, with those reasons; nobmc (no BMC series) is unchecked, never
#   passed; the 8 good nodes (BMC within 1 %, gap 5 %) pass with |bias| < 1 %.
#   bad-off20's bias is -20 % with a 95 % interval around it; every node's core
#   zone (inside package) is never summed: the good nodes' exporter energy is
#   package + dram.
# JUnit: one testcase per node, 3 failures, 1 skipped. Exit codes: 1 with the
# bad nodes, 0 with --nodes 'node-.*' (good ones only), 3 for --nodes nobmc
# (nothing checked), 2 for a bad regex, a template without {{node}}, and a
# --nodes that matches nothing (the error lists the node names). The report:
# fleet.html and fleet.md with the summary by hardware profile and version.
# Skips (77) without prometheus/promtool or python3. Bounded: about 20 s.
. tests/integration/lib/common.sh
. tests/integration/lib/prometheus.sh
prom_require
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
unset PROMETHEUS_TOKEN PROMETHEUS_USER PROMETHEUS_PASSWORD
export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
trap 'prom_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

END=$(( ($(date +%s) - 3600) / 30 * 30 ))
START=$((END - 7200))
python3 tests/tools/fleet_data.py "$T/fleet.om" --start $START --end $END --nodes 12 --plant ||
    fail "generating the fleet"
mkdir -p "$T/prom/data"
"$PROMTOOL" tsdb create-blocks-from openmetrics "$T/fleet.om" "$T/prom/data" >"$T/promtool.log" 2>&1 ||
    { tail -n 20 "$T/promtool.log"; fail "promtool could not build the blocks"; }
prom_start "$T/prom"

TQ='ipmi_dcmi_power_consumption_watts{node_name="{{node}}"}'
fleet() { # out-dir extra-args...; output in $T/out, exit code in $rc
    d=$1
    shift
    rc=0
    "$BIN" fleet --prometheus "$PROM_URL" --start $START --end $END --out "$T/$d" \
        --truth-query "$TQ" --bootstrap 200 "$@" >"$T/out" 2>&1 || rc=$?
}

fleet all --junit "$T/all.xml"
[ $rc -eq 1 ] || { cat "$T/out"; fail "fleet with planted bad nodes: exit $rc, expected 1"; }
expect_contains "$T/out" "8 passed, 3 failed, 1 unchecked"
python3 - "$T/all.xml" <<'EOF' || fail "the fleet's verdicts"
import re, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall(".//testcase")
assert len(cases) == 12, len(cases)
suite = root.find("testsuite")
assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("12", "3", "1"), suite.attrib
got = {}
for c in cases:
    node = c.get("name").split("=", 1)[1]
    f, s = c.find("failure"), c.find("skipped")
    got[node] = ("fail:" + f.get("type")) if f is not None else ("skip" if s is not None else "pass")
    out = c.find("system-out").text
    m = re.match(r"bias (-?[0-9.]+)% \[95% CI (-?[0-9.]+) \.\. (-?[0-9.]+)\]", out)
    if node == "bad-off20":
        b, lo, hi = map(float, m.groups())
        assert abs(b + 20) < 0.3 and lo <= b <= hi and hi - lo < 2, out
    elif node.startswith("node-"):
        assert abs(float(m.group(1))) < 1.0, (node, out)
want = {"bad-fake": "fail:not measured", "bad-off20": "fail:node error",
        "bad-upgrade": "fail:version changed", "nobmc": "skip"}
for n, v in got.items():
    assert v == want.get(n, "pass"), (n, v)
assert set(want) <= set(got), got
# risk order: the three failures first, in risk order, then unchecked, then the good ones
order = [c.get("name").split("=", 1)[1] for c in cases]
assert order[:4] == ["bad-fake", "bad-off20", "bad-upgrade", "nobmc"], order

msg = {c.get("name").split("=", 1)[1]: c.find("failure").get("message")
       for c in cases if c.find("failure") is not None}
assert "version changed in the range (v0.11.3 -> v0.11.4)" in msg["bad-upgrade"], msg
assert msg["bad-off20"].startswith("|bias| 20.0"), msg
EOF
for f in fleet.html fleet.md; do [ -s "$T/all/$f" ] || fail "no $f"; done
expect_contains "$T/all/fleet.md" "Intel Xeon Gold 6338"
expect_contains "$T/all/fleet.md" "AMD EPYC 7763"
expect_contains "$T/all/fleet.md" "| v0.11.4 | 12 | 8 | 3 | 1 |"
expect_contains "$T/all/fleet.md" "| AMD EPYC 7763 | 6 | 4 | 1 | 1 |"
expect_contains "$T/all/fleet.md" "12 nodes: 11 measured, 1 not measured, 0 of unknown source; 11 checked"
expect_contains "$T/all/fleet.html" "Content-Security-Policy"
# fleet's gap is the pod gap (1 - sum of pods / active), named so, never validate's unattributed gap
expect_contains "$T/all/fleet.md" "pod gap % package / dram"
expect_contains "$T/all/fleet.md" "Pod gap: energy outside pods, % of active"
"$BIN" fleet --help >"$T/help" 2>&1
expect_contains "$T/help" "pod gap (energy outside pods, % of active"
! grep -q "unattributed share" "$T/help" || fail "fleet --help calls the pod gap the unattributed share"
# a good node's top pod: pod-<i>-2 of 3, 3/6 of 95 % of 60 % of its package energy
grep -q "ns-2/pod-4-2" "$T/all/fleet.md" || { cat "$T/all/fleet.md"; fail "top pod of node-0004"; }

fleet good --nodes 'node-.*' --junit "$T/good.xml"
[ $rc -eq 0 ] || { cat "$T/out"; fail "good nodes only: exit $rc, expected 0"; }
expect_contains "$T/out" "8 passed, 0 failed"
[ "$(grep -c '<testcase' "$T/good.xml")" = 8 ] || fail "good.xml: not 8 testcases"

fleet nobmc --nodes nobmc
[ $rc -eq 3 ] || { cat "$T/out"; fail "nothing checked: exit $rc, expected 3"; }
expect_contains "$T/out" "0 passed, 0 failed, 1 unchecked"

# a good node over 90 s (and 210 s) at the 30 s step: fewer than 5 ground-truth
# pairs, or too few for a 95 % interval, give no verdict (it judged one before)
rc=0
"$BIN" fleet --prometheus "$PROM_URL" --start $((END - 90)) --end $END --out "$T/short" \
    --truth-query "$TQ" --bootstrap 200 --nodes node-0004 >"$T/out" 2>&1 || rc=$?
[ $rc -eq 3 ] || { cat "$T/out"; fail "a node with too few pairs: exit $rc, expected 3"; }
expect_contains "$T/out" "0 passed, 0 failed, 1 unchecked"
grep -q "INSUFFICIENT: [0-4] ground-truth pair(s), no 95 % interval" "$T/short/fleet.md" ||
    { cat "$T/short/fleet.md"; fail "the short node's reason"; }
rc=0
"$BIN" fleet --prometheus "$PROM_URL" --start $((END - 210)) --end $END --out "$T/short7" \
    --truth-query "$TQ" --bootstrap 200 --nodes 'node-0004|bad-off20' >"$T/out" 2>&1 || rc=$?
[ $rc -eq 3 ] || { cat "$T/out"; fail "two nodes with 7 pairs: exit $rc, expected 3"; }
expect_contains "$T/out" "0 passed, 0 failed, 2 unchecked"
! grep -q "CI nan" "$T/out" || { cat "$T/out"; fail "a verdict on a NaN interval"; }

fleet none --nodes 'zzz.*'
[ $rc -eq 2 ] || { cat "$T/out"; fail "no node: exit $rc, expected 2"; }
expect_contains "$T/out" "node_name values there: "
fleet badre --nodes '('
[ $rc -eq 2 ] || { cat "$T/out"; fail "bad regex: exit $rc"; }
rc=0
"$BIN" fleet --prometheus "$PROM_URL" --start $START --end $END --out "$T/x" \
    --truth-query 'ipmi_dcmi_power_consumption_watts' >"$T/out" 2>&1 || rc=$?
[ $rc -eq 2 ] || { cat "$T/out"; fail "template without {{node}}: exit $rc"; }
expect_contains "$T/out" "no {{node}}"
echo "fleet: planted nodes found exactly, good nodes pass, JUnit per node, exit codes 1/0/3/2"
