# Issue 13: nothing unchecked reads as a pass, and showback per pod.
# 1. A dead BMC (Redfish on a closed 127.0.0.1 port: every poll refused) then
#    `validate --tolerance node=5%`: NO VERDICT, exit 3, a JUnit <error> (not
#    skipped) and the reason naming the source, its polls and last error.
# 2. Too few pairs (a 3 s run, truth every second: n < 5): INSUFFICIENT, exit 3.
# 3. The bias is signed (over/under) beside |bias| (terminal, JSON, JUnit).
# 4. Showback: fake_node.py's three pods (CPU 0.9, 0.6, 0.3) ranked with their
#    namespace/name (pod_identity), joules with a CI and shares in the CPU
#    ratio; the JSON validates against docs/validate.schema.json (jsonschema,
#    and the own checker); --pods-csv has the run's interval in RFC 3339 UTC.
# 5. diff: J = W × the full windows' length; a huge --min-change-watts floor
#    leaves nothing CHANGED, 0 W gives the plain rule. 6. run's --bakend: one
#    line with "did you mean --backend?".
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 absent"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 absent"
FN=
trap '[ -n "$FN" ] && { kill "$FN" 2>/dev/null; wait "$FN" 2>/dev/null; }; rm -rf "$T"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')

# 1. dead BMC
REDFISH_USER=u REDFISH_PASSWORD=p "$BIN" record --db "$T/dead.db" --meter sim --interval 250ms \
    --duration 2500ms --truth "redfish:http://127.0.0.1:$port" --truth-interval 1s --quiet 2>"$T/e"
rc=$?; [ $rc -eq 4 ] || { cat "$T/e"; fail "record with a dead BMC: exit $rc, expected 4"; }
"$BIN" validate --db "$T/dead.db" --tolerance node=5% --junit "$T/dead.xml" --json "$T/dead.json" >"$T/o" 2>&1
rc=$?; [ $rc -eq 3 ] || { cat "$T/o"; fail "dead BMC: exit $rc, expected 3 (NO VERDICT)"; }
grep -q "^NO VERDICT all .*truth redfish:http://127.0.0.1:$port delivered 0 of [1-9][0-9]* polls\{0,1\}: [1-9][0-9]* errors\{0,1\}.*last: " "$T/o" ||
    { cat "$T/o"; fail "the NO VERDICT line must name the source, its polls and last error"; }
expect_contains "$T/o" "gate: NO VERDICT (SIMULATED meter: validates nothing about this node's hardware) — all"
[ "$(tail -n 1 "$T/o")" = "0 passed, 0 failed, 1 no verdict" ] || { tail -n 3 "$T/o"; fail "closing line"; }
# report prints the same gate and counts as validate (never "0 skipped" beside a NO VERDICT)
"$BIN" report --db "$T/dead.db" --tolerance node=5% --no-plots --out "$T/dead-rep" >"$T/r" 2>&1 ||
    { cat "$T/r"; fail "report on the dead BMC run"; }
grep -q "verdict: NO VERDICT; 0 passed, 0 failed, 1 no verdict$" "$T/r" || { cat "$T/r"; fail "report verdict line"; }
grep -q "PASS" "$T/o" && { grep PASS "$T/o"; fail "nothing may read PASS"; }
python3 - "$T/dead.xml" "$T/dead.json" <<'PY' || fail "JUnit/JSON of the dead BMC"
import json, sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
assert suite.get("errors") == "1" and suite.get("skipped") == "0", suite.attrib
case = suite.find("testcase")
err = case.find("error")
assert err is not None and case.find("skipped") is None, ET.tostring(case)
assert err.get("type") == "no-verdict" and "delivered 0 of" in err.get("message"), err.attrib
d = json.load(open(sys.argv[2]))
s = d["summary"]
assert s["outcome"] == "NO VERDICT" and s["no_verdict"] == 1 and s["passed"] == 0, s
assert "delivered 0 of" in s["reason"] and d["checks"][0]["status"] == "no_verdict", s
PY

# record says SIMULATED from the meter's provenance (not from its name)
"$BIN" record --db "$T/simsay.db" --meter sim --interval 250ms --duration 1s 2>"$T/e" || { cat "$T/e"; fail "record simsay"; }
grep -q "ticks written to .* — node power is SIMULATED$" "$T/e" || { cat "$T/e"; fail "record: SIMULATED"; }
# 2. and 3. too few pairs; the signed bias
"$BIN" record --db "$T/few.db" --meter sim --interval 250ms --duration 3s --quiet \
    --truth sim:lag=0,window=0.5,period=1 --truth-interval 1s 2>/dev/null || fail "record few"
"$BIN" validate --db "$T/few.db" --tolerance node=99% --gate-source meter:package+dram --lag 0 \
    --json "$T/few.json" --junit "$T/few.xml" >"$T/o" 2>&1
rc=$?; [ $rc -eq 3 ] || { cat "$T/o"; fail "n < 5: exit $rc, expected 3"; }
grep -q "^INSUFFICIENT all .*INSUFFICIENT: n=[0-4] < 5 pairs" "$T/o" || { cat "$T/o"; fail "INSUFFICIENT line"; }
grep -q "signed [-+][0-9.]*% \[.*\]: the source reads \(low (under)\|high (over)\)\|signed [-+][0-9.]*%: the source reads" "$T/o" ||
    { grep -A2 Tolerances "$T/o"; fail "the signed bias and its direction"; }
expect_contains "$T/o" ", 1 insufficient"
"$BIN" report --db "$T/few.db" --tolerance node=99% --gate-source meter:package+dram --lag 0 --no-plots \
    --out "$T/few-rep" >"$T/r" 2>&1 || { cat "$T/r"; fail "report on too few pairs"; }
grep -q "verdict: NO VERDICT; 0 passed, 0 failed, 1 insufficient$" "$T/r" || { cat "$T/r"; fail "report: insufficient"; }
python3 - "$T/few.json" "$T/few.xml" <<'PY' || fail "JSON/JUnit of INSUFFICIENT"
import json, sys, xml.etree.ElementTree as ET
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["status"] == "insufficient" and 0 < c["n"] < 5, c
assert c["direction"] in ("over", "under") and c["signed"]["est"] is not None, c
assert abs(abs(c["signed"]["est"]) - c["value"]) < 1e-9, c     # |signed| is the checked value
assert (c["signed"]["est"] < 0) == (c["direction"] == "under"), c
e = ET.parse(sys.argv[2]).getroot().find(".//error")
assert e is not None and e.get("type") == "insufficient" and "reads" in e.get("message"), e
PY
# a sim BMC with 40 W of platform power: the meter reads under it
"$BIN" record --db "$T/ok.db" --meter sim --interval 250ms --duration 4s --quiet \
    --truth sim:lag=0,window=0.5,period=0.25 --truth-interval 250ms 2>/dev/null || fail "record ok"
"$BIN" validate --db "$T/ok.db" --tolerance node=1% --gate-source meter:package+dram >"$T/o" 2>&1
rc=$?; [ $rc -eq 1 ] || { cat "$T/o"; fail "node=1 %: exit $rc, expected 1"; }
grep -q "^FAIL all .*signed -[0-9.]*%.*the source reads low (under)" "$T/o" || { cat "$T/o"; fail "signed under"; }
expect_contains "$T/o" "gate: FAIL"

# 4. showback per pod
wait_for() { i=0; while ! grep -q "$2" "$1" 2>/dev/null; do
    i=$((i + 1)); [ $i -le 100 ] || fail "$1 never said $2"; sleep 0.1; done; }
python3 tests/tools/fake_node.py --root "$T/proc" --max-seconds 60 >"$T/node.out" 2>&1 &
FN=$!
wait_for "$T/node.out" READY
"$BIN" record --db "$T/pods.db" --meter sim --procfs-root "$T/proc" --interval 250ms --duration 5s \
    --quiet 2>"$T/e" || { cat "$T/e"; fail "record pods"; }
kill "$FN"; wait "$FN" 2>/dev/null; FN=
top=aaaaaaaa-0000-4000-8000-000000000000
sql "$T/pods.db" "INSERT INTO pod_identity VALUES ('$top', 'web-0', 'shop', 'exporter')"
"$BIN" validate --db "$T/pods.db" --json "$T/pods.json" --pods-csv "$T/pods.csv" >"$T/o" 2>&1 ||
    { cat "$T/o"; fail "validate pods: exit $?"; }
expect_contains "$T/o" "Top pods by package energy (showback: attributed by model"
grep -q "^  shop  *web-0  *$top  *[0-9.]* \[[0-9.]*, [0-9.]*\]" "$T/o" || { sed -n '/Top pods/,/^$/p' "$T/o"; fail "top pod row"; }
python3 tests/tools/check_schema.py docs/validate.schema.json "$T/pods.json" || fail "schema (jsonschema)"
CHECK_SCHEMA_OWN=1 python3 tests/tools/check_schema.py docs/validate.schema.json "$T/pods.json" | grep -q "own checker" ||
    fail "schema (own checker)"
python3 - "$T/pods.json" >"$T/bad.json"  <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["pods"]["top"][0]["joules"] = 5; print(json.dumps(d))
PY
CHECK_SCHEMA_OWN=1 python3 tests/tools/check_schema.py docs/validate.schema.json "$T/bad.json" 2>/dev/null &&
    fail "the own checker accepted a broken document"
started=$(sql "$T/pods.db" "SELECT started_wall_ns FROM run")
python3 - "$T/pods.json" "$T/pods.csv" "$top" "$started" <<'PY' || { sed -n '/Top pods/,/^$/p' "$T/o"; cat "$T/pods.csv"; fail "showback"; }
import csv, json, sys
from datetime import datetime, timezone
d, top, started = json.load(open(sys.argv[1]))["pods"], sys.argv[3], int(sys.argv[4]) / 1e9
rows = d["top"]
assert [r["uid"] for r in rows] == [top[:-1] + k for k in "012"], rows
assert rows[0]["namespace"] == "shop" and rows[0]["name"] == "web-0" and rows[1]["name"] is None, rows
for r in rows:
    j = r["joules"]
    assert j["lo"] is not None and j["lo"] <= j["est"] <= j["hi"], r
    assert abs(r["share_pct"]["est"] - 100 * j["est"] / d["node_joules"]) < 1e-6, r
# the reference model splits active energy by CPU time: 0.9 : 0.6 : 0.3
ratio = rows[0]["joules"]["est"] / rows[1]["joules"]["est"]
assert abs(ratio - 1.5) < 0.1, ratio
ratio = rows[1]["joules"]["est"] / rows[2]["joules"]["est"]
assert abs(ratio - 2.0) < 0.15, ratio
cs = list(csv.DictReader(open(sys.argv[2])))
assert [c["pod_uid"] for c in cs] == [r["uid"] for r in rows], cs
assert cs[0]["namespace"] == "shop" and cs[0]["name"] == "web-0", cs[0]
t0 = datetime.strptime(cs[0]["start"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()
t1 = datetime.strptime(cs[0]["end"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()
assert abs(t0 - started) < 1.0 and 4.0 < t1 - t0 < 6.0, (t0, t1, started)
assert cs[0]["start"] == d["start"] and cs[0]["end"] == d["end"], (cs[0], d)
assert abs(float(cs[0]["joules"]) - rows[0]["joules"]["est"]) < 1e-3, cs[0]
PY

# 5. diff: J and W over the same windows; the noise floor
"$BIN" diff "$T/pods.db" --model kepler-0.11 --model ideal --window 500ms --min-change-watts 0 >"$T/d0" 2>&1
[ $? -le 1 ] || { cat "$T/d0"; fail "diff floor 0"; }
expect_contains "$T/d0" "never below the 0 W noise floor"
python3 - "$T/d0" <<'PY' || { cat "$T/d0"; fail "J and W columns disagree"; }
import re, sys
txt = open(sys.argv[1]).read()
m = re.search(r"A (\d+) windows = ([0-9.]+) s, B (\d+) = ([0-9.]+) s", txt)
dur_a, dur_b = float(m.group(2)), float(m.group(4))
n = 0
for line in txt.splitlines():
    f = re.match(r"\s+(\S+)\s+([0-9.]+)\s+([0-9.]+)(?: \[[^]]*\])?\s+([0-9.]+)\s+([0-9.]+)", line)
    if f and f.group(1).startswith("aaaaaaaa-"):
        aj, aw, bj, bw = map(float, f.groups()[1:])
        assert len(f.group(1)) == 36, "pod uid cut: " + line  # shown whole
        assert abs(aj - aw * dur_a) <= 0.002 + 0.001 * aj, line
        assert abs(bj - bw * dur_b) <= 0.002 + 0.001 * bj, line
        n += 1
assert n == 3, n
PY
"$BIN" diff "$T/pods.db" --model kepler-0.11 --model ideal --window 500ms --min-change-watts 1000 >"$T/d1" 2>&1
rc=$?; [ $rc -eq 0 ] || { cat "$T/d1"; fail "a 1000 W floor: exit $rc, expected 0"; }
grep -q "never below the 1000 W noise floor): 0 CHANGED" "$T/d1" || { tail -n 4 "$T/d1"; fail "floor 1000 W"; }
"$BIN" diff "$T/pods.db" --model kepler-0.11 --model ideal --min-change-watts -1 2>"$T/e"; [ $? -eq 2 ] ||
    fail "--min-change-watts -1 must be a usage error"
"$BIN" diff "$T/pods.db" --model ideal --model ideal 2>"$T/e"; [ $? -eq 2 ] ||
    fail "diff of one model against itself must be a usage error (it compares nothing)"
expect_contains "$T/e" "the same model twice"
# nothing decided (1 s windows of a 5 s run: fewer than the bootstrap needs): NO VERDICT, exit 3
"$BIN" diff "$T/pods.db" --model kepler-0.11 --model ideal --window 1s >"$T/d3" 2>&1
rc=$?; [ $rc -eq 3 ] || { cat "$T/d3"; fail "diff, every comparison inconclusive: exit $rc, expected 3"; }
grep -q "^0 passed, 0 failed, [1-9][0-9]* inconclusive$" "$T/d3" || { tail -n 3 "$T/d3"; fail "diff counts"; }
[ "$(tail -n 1 "$T/d3")" = "NO VERDICT: every comparison is inconclusive" ] || { tail -n 3 "$T/d3"; fail "diff NO VERDICT line"; }

# 6. run's own option misspelt
"$BIN" run quick --db "$T/r.db" --bakend wattcal 2>"$T/e"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] || { cat "$T/e"; fail "run --bakend: exit $rc"; }
expect_contains "$T/e" "did you mean --backend?"
exit 0
