# What a new user is told on the exit-3 path (the new-user acceptance run,
# runbook.md section 1 by hand on a simulated node), with our own fixture
# tests/fixtures/calibrate/all-refused.csv (every fit refused; the truth
# fit's a far from 1..3 x):
# - calibrate prints no "check the truth's unit or scale" for a REFUSED fit;
# - --apply-from such a run exits 3 saying it holds no calibration and why
#   (never calibrated, or every fit refused), not "run calibrate first";
# - validate with a gate on a run without calibration says the node checks
#   read the raw meter (terminal note, JSON summary.notes); on a run whose
#   meter and truth are simulated the gate line says so (and the JUnit suite).
# The JUnit counts against the closing line: tests/unit/validator/test_gate_msgs.c.
. tests/integration/lib/common.sh
"$BIN" import --csv tests/fixtures/calibrate/all-refused.csv --db "$T/a.db" --time-col time_s \
    --time-unit s --energy-col pkg_j:package:j --truth-col wall_w:w --util-col util_pct:pct \
    >"$T/imp" 2>&1 || { cat "$T/imp"; fail "import"; }
rc=0; "$BIN" calibrate --db "$T/a.db" --window 1s --bootstrap 200 >"$T/cal" 2>&1 || rc=$?
[ "$rc" = 3 ] || { cat "$T/cal"; fail "calibrate exit $rc, expected 3 (every fit refused)"; }
expect_contains "$T/cal" "truth_meter csv:tests/fixtures/calibrate/all-refused.csv#wall_w: NOT STORED, not identified: R^2 0.0099"
expect_contains "$T/cal" "2 fit(s) REFUSED as not identified"
grep -q "unit or scale" "$T/cal" && { cat "$T/cal"; fail "a refused fit's a sent the user to fix the truth's unit"; }

"$BIN" record --db "$T/b.db" --meter sim --interval 250ms --duration 3s --quiet \
    --truth sim:lag=0,window=0.5,period=0.25 --truth-interval 250ms 2>"$T/e" || { cat "$T/e"; fail "record"; }
rc=0; "$BIN" calibrate --db "$T/b.db" --apply-from "$T/a.db" >"$T/o" 2>&1 || rc=$?
[ "$rc" = 3 ] || { cat "$T/o"; fail "--apply-from a run with no calibration: exit $rc, expected 3"; }
expect_contains "$T/o" "$T/a.db holds no calibration (never calibrated, or every fit was refused as not identified): record a longer run under a load that varies and calibrate it"
grep -q "first" "$T/o" && { cat "$T/o"; fail "still tells the user to run calibrate first"; }

# validate b: simulated meter and truth, no calibration, a gate asked for
rc=0; "$BIN" validate --db "$T/b.db" --tolerance node=99% --json "$T/b.json" --junit "$T/b.xml" \
    >"$T/v" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$T/v"; fail "validate b: exit $rc, expected 0 (|bias| ~45 % < 99 %)"; }
note="note: no calibration in this run: the node checks read the raw meter (meter:package+dram) against the wall, which misses PSU loss and platform power; calibrate this run, or copy a fit with \`wattcal calibrate --apply-from\`, and judge the node on estimate:wall#N"
grep -qxF "gate: PASS (SIMULATED meter and truth: a rehearsal, validates nothing)" "$T/v" ||
    { cat "$T/v"; fail "the gate line does not say SIMULATED"; }
grep -qxF "$note" "$T/v" || { cat "$T/v"; fail "no note on the uncalibrated gate"; }
[ "$(tail -n 1 "$T/v")" = "1 passed, 0 failed" ] || { tail -n 3 "$T/v"; fail "closing line"; }
python3 - "$T/b.json" "$T/b.xml" "${note#note: }" <<'PY' || fail "JSON summary.notes / JUnit suite name"
import json, sys, xml.etree.ElementTree as ET
s = json.load(open(sys.argv[1]))["summary"]
assert s["outcome"] == "PASS", s
assert s["notes"] == ["SIMULATED meter and truth: a rehearsal, validates nothing", sys.argv[3]], s["notes"]
suite = ET.parse(sys.argv[2]).getroot().find("testsuite")
assert suite.get("name").endswith("gate PASS (SIMULATED meter and truth: a rehearsal, validates nothing)"), suite.attrib
PY

# validate a: measured (imported) meter and a real truth: no provenance suffix, the note still
rc=0; "$BIN" validate --db "$T/a.db" --tolerance node=1% --json "$T/a.json" >"$T/va" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$T/va"; fail "validate a: exit $rc, expected 1 (raw package vs wall)"; }
grep -q "^gate: FAIL — all " "$T/va" || { cat "$T/va"; fail "gate line of a measured run"; }
expect_contains "$T/va" "note: no calibration in this run: the node checks read the raw meter (meter:package) against the wall"
python3 - "$T/a.json" <<'PY' || fail "JSON notes of a measured run"
import json, sys
n = json.load(open(sys.argv[1]))["summary"]["notes"]
assert len(n) == 1 and n[0].startswith("no calibration in this run: "), n
PY
# no gate asked for: no gate line, no note
"$BIN" validate --db "$T/a.db" >"$T/vn" 2>&1 || { cat "$T/vn"; fail "validate without tolerances"; }
grep -q "^gate: \|no calibration in this run" "$T/vn" && fail "a note beside a gate nobody asked for"
exit 0
