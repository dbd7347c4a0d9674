# End to end on a simulated node with a simulated BMC whose lag, window, PSU
# efficiency and platform power are set: record load steps with `wattcal run`,
# calibrate (the fit must recover 1/eff and base/eff within its reported
# interval), validate as a CI gate (exit codes, JUnit XML and JSON that parse,
# the closing "N passed, N failed" line, the estimate tagged ESTIMATED), copy
# the fit to a second run (--apply-from) and compare the two runs and two
# models with `wattcal diff`.
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to parse the JUnit XML and JSON"
cat >"$T/steps.yaml" <<'EOF'
name: gate-steps
phases:
  - {name: idle-a, duration: 8s}
  - name: load-a
    duration: 7s
    workloads: [{class: cpu, workers: 2}]
  - {name: idle-b, duration: 7s}
  - name: load-b
    duration: 8s
    workloads: [{class: cpu, workers: 1}]
EOF
BMC="sim:lag=2,window=3,period=1,eff=0.8,base=30,noise=0.2,quant=0.1"

# calibrate: wall = a * (package + dram) + b, known answer a = 1/eff = 1.25,
# b = base/eff = 37.5. The simulated BMC samples the simulated node's files
# between ticks, so over 30 s its fit is rough: here the estimates must be
# plausible and inside their own intervals; that the intervals cover the
# injected values is asserted on exact synthetic runs (tests/unit/validator/test_align.c).
# The simulated node follows this whole machine's CPU: when other work keeps
# both cores busy, the load steps vanish and calibrate rightly refuses the
# wall fit (exit 3, "not identified"). Then the run is recorded once more;
# refused twice, the test is skipped saying so (never passed).
for attempt in 1 2; do
    rm -f "$T/a.db"
    "$BIN" run "$T/steps.yaml" --db "$T/a.db" --meter sim --interval 500ms --truth "$BMC" \
        --truth-interval 500ms --quiet 2>"$T/e" || { cat "$T/e"; fail "run A"; }
    "$BIN" calibrate --db "$T/a.db" --window 2s >"$T/cal" 2>&1; rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 3 ] || { cat "$T/cal"; fail "calibrate: exit $rc"; }
    wall=$(sql "$T/a.db" "SELECT COUNT(*) FROM calibration WHERE kind='truth_meter'")
    if [ "$wall" -ge 1 ] && ! grep -q "lag 0.00 s (not identifiable" "$T/cal"; then break; fi
    grep -q "truth_meter sim:.*NOT STORED, not identified\|lag 0.00 s (not identifiable" "$T/cal" ||
        { cat "$T/cal"; fail "no wall fit stored and no refusal said"; }
    echo "attempt $attempt: the wall fit or its lag was not identified (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    wall=0
done
[ "$wall" -ge 1 ] || skip "the machine's own load hid the load steps twice: calibrate rightly said the wall fit or its lag was not identified (see above); rerun on a quieter machine"
expect_contains "$T/cal" "stored as calibration #"
python3 - "$T/a.db" <<'PY' || { cat "$T/cal"; fail "the fit does not recover the simulated BMC's efficiency and base"; }
import sqlite3, sys
c1, lo1, hi1, c0, lo0, hi0, lag = sqlite3.connect(sys.argv[1]).execute(
    "SELECT c1, c1_lo, c1_hi, c0, c0_lo, c0_hi, lag_s FROM calibration WHERE kind='truth_meter'").fetchone()
assert lo1 <= c1 <= hi1 and lo0 <= c0 <= hi0, (c1, lo1, hi1, c0, lo0, hi0)
assert 0.95 < c1 < 1.6 and 10 < c0 < 65, (c1, c0)
assert 1.0 <= lag <= 4.0, lag        # injected 2 s, plus up to one 0.5 s tick of staleness
PY
[ "$(sql "$T/a.db" "SELECT COUNT(*) FROM calibration_residual")" -ge 10 ] || fail "residuals stored"

# the gate: generous tolerances pass (exit 0) — by default the node checks read
# the raw meter (RAPL misses ~45 % of the simulated wall), never the wall fit
# made on this very run, which would pass by construction ...
"$BIN" validate --db "$T/a.db" --tolerance node=70%,gap=100%,invariants=1000000,exporter-invariants=0 \
    --junit "$T/ok.xml" --json "$T/ok.json" >"$T/v" 2>&1; rc=$?
# nothing fails; per-phase checks on a 30 s run read fewer than 5 pairs
# (INSUFFICIENT) and exporter-invariants has no exporter here (NO VERDICT):
# exit 3 then, never 1
{ [ $rc -eq 0 ] || [ $rc -eq 3 ]; } && grep -q ' 0 failed' "$T/v" ||
    { cat "$T/v"; fail "generous tolerances: exit $rc"; }
expect_contains "$T/v" "PASS all            meter:package+dram vs"
expect_contains "$T/v" "the run holds no exporter data (NO VERDICT)"
fit=$(sql "$T/a.db" "SELECT id FROM calibration WHERE kind='truth_meter'")
"$BIN" validate --db "$T/a.db" --tolerance node=10% --gate-source "estimate:wall#$fit" >"$T/vi" 2>&1
expect_contains "$T/vi" "estimate:wall#$fit IN-SAMPLE vs"
expect_contains "$T/v" "estimate:wall#"
expect_contains "$T/v" "[ESTIMATED] wall power from CPU utilisation alone"
expect_contains "$T/v" "[ESTIMATED]"
expect_contains "$T/v" "[SIMULATED]"
expect_contains "$T/v" "Bland-Altman"
last=$(tail -n 1 "$T/v")
case "$last" in *" passed, 0 failed"*) ;; *) cat "$T/v"; fail "closing line: $last" ;; esac
# ... a tight one fails (exit 1), and the reports say which
"$BIN" validate --db "$T/a.db" --tolerance node=10%,rmse=0.001W --junit "$T/bad.xml" --json "$T/bad.json" \
    >"$T/v2" 2>&1; rc=$?
[ $rc -eq 1 ] || { cat "$T/v2"; fail "a broken tolerance must exit 1, got $rc"; }
expect_contains "$T/v2" "FAIL all"
python3 - "$T/bad.xml" "$T/bad.json" <<'PY' || fail "JUnit XML or JSON summary"
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall('.//testcase')
fails = [c for c in cases if c.find('failure') is not None]
assert cases and fails, (len(cases), len(fails))
assert all('metric=' in c.get('name') and 'threshold=' in c.get('name') and 'phase=' in c.get('name') for c in cases)
assert any('metric=rmse' in c.get('name') for c in fails)
d = json.load(open(sys.argv[2]))
assert d['schema'] == 'wattcal-validate/2'
assert d['summary']['failed'] == len(fails), (d['summary'], len(fails))
assert len(d['checks']) == len(cases)
assert d['run']['meter_provenance'] == 'simulated'
t = d['truth'][0]
assert t['provenance'] == 'simulated' and t['lag']['estimated']
for c in d['accuracy']:
    for k in ('bias_w', 'mae_w', 'rmse_w', 'loa_lo_w'):
        assert set(c[k]) == {'est', 'lo', 'hi'}, c[k]
    assert c['source_provenance'] in ('simulated', 'estimated') or c['source_provenance'].startswith('exporter model')
PY
# usage errors exit 2 and name the problem
"$BIN" validate --db "$T/a.db" --tolerance node=10W 2>"$T/e"; [ $? -eq 2 ] || fail "bad tolerance unit"
expect_contains "$T/e" "percentage"
"$BIN" validate --db "$T/a.db" --json "$T/no/such/dir/x.json" >/dev/null 2>"$T/e"; [ $? -eq 2 ] || fail "unwritable --json"
expect_contains "$T/e" "x.json"
"$BIN" validate --db "$T/missing.db" 2>/dev/null; [ $? -eq 2 ] || fail "missing DB"

# an out-of-sample check: a second run gets run A's fit
"$BIN" run "$T/steps.yaml" --db "$T/b.db" --meter sim --interval 500ms --truth "$BMC" \
    --truth-interval 500ms --quiet 2>"$T/e" || { cat "$T/e"; fail "run B"; }
"$BIN" calibrate --db "$T/b.db" --apply-from "$T/a.db" >"$T/o" 2>&1 || { cat "$T/o"; fail "--apply-from"; }
[ "$(sql "$T/b.db" "SELECT COUNT(*) FROM calibration WHERE fitted_on LIKE '%a.db%'")" -ge 1 ] || fail "fitted_on"
# the run itself, a link or a copy is no other run: refused (its fits would be in-sample)
cp "$T/a.db" "$T/a-copy.db"
ln -s "$T/a.db" "$T/a-link.db"
for src in "$T/a-copy.db" "$T/a-link.db" "$T/a.db"; do
    "$BIN" calibrate --db "$T/a.db" --apply-from "$src" >"$T/o" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q "is this very run" "$T/o" || { cat "$T/o"; fail "--apply-from $src into a.db: exit $rc"; }
done
# ... nor is a run holding a.db's own fits: copied back they would be in-sample
"$BIN" calibrate --db "$T/a.db" --apply-from "$T/b.db" >"$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "was fitted on this very run and copied there" "$T/o" ||
    { cat "$T/o"; fail "--apply-from b.db (a.db's fits) back into a.db: exit $rc"; }
[ "$(sql "$T/a.db" "SELECT COUNT(*) FROM calibration WHERE fitted_on != ''")" = 0 ] || fail "fits copied back"
"$BIN" validate --db "$T/b.db" --tolerance node=50% >"$T/vb" 2>&1; rc=$?
# 1 a check failed; 3 per-phase checks on this short run read fewer than 5
# pairs (INSUFFICIENT): a verdict either way, never a crash or a usage error
[ $rc -le 1 ] || [ $rc -eq 3 ] || { cat "$T/vb"; fail "validate B: exit $rc"; }
expect_contains "$T/vb" "a.db (host"
grep -q "no calibration in this run" "$T/vb" && { cat "$T/vb"; fail "the no-calibration note beside a copied fit"; }
# out of sample, the copied fit is what the node checks read by default
grep -q "^PASS all  *estimate:wall#[0-9]* vs\|^FAIL all  *estimate:wall#[0-9]* vs" "$T/vb" ||
    { cat "$T/vb"; fail "the out-of-sample estimate is not the gated source"; }
"$BIN" calibrate --db "$T/b.db" --estimate-csv "$T/est.csv" >"$T/o" 2>&1 || { cat "$T/o"; fail "--estimate-csv"; }
head -n 3 "$T/est.csv" | grep -q ",estimated$" || { head "$T/est.csv"; fail "estimate CSV tagged estimated"; }
# a window longer than the run: no estimate at all is no data (exit 3), never a silent 0
"$BIN" calibrate --db "$T/b.db" --estimate-csv "$T/est0.csv" --window 1h >"$T/o" 2>&1; rc=$?
[ $rc -eq 3 ] || { cat "$T/o"; fail "--estimate-csv with no window: exit $rc, not 3"; }
expect_contains "$T/o" "no window of 3600 s holds an estimate"

# version comparison: two runs of the same scenario, and one run under two models
"$BIN" diff "$T/a.db" "$T/b.db" --window 5s >"$T/d" 2>&1; rc=$?
[ $rc -le 1 ] || [ $rc -eq 3 ] || { cat "$T/d"; fail "diff two runs: exit $rc"; } # 3: every comparison inconclusive on 30 s runs
expect_contains "$T/d" "wattcal-cpu"
expect_contains "$T/d" "two runs (independent"
"$BIN" diff "$T/a.db" --model kepler-0.11 --model kepler-head --window 5s >"$T/d2" 2>&1; rc=$?
[ $rc -le 1 ] || [ $rc -eq 3 ] || { cat "$T/d2"; fail "diff two models: exit $rc"; }
expect_contains "$T/d2" "paired"
grep -q "passed, [0-9]* failed" "$T/d2" || { cat "$T/d2"; fail "diff closing line"; }
"$BIN" diff "$T/a.db" 2>"$T/e"; [ $? -eq 2 ] || fail "diff of one run without two models"
simdir_cleanup() { for db in "$T"/*.db; do
    d=$(sql "$db" 'SELECT meter_description FROM run' 2>/dev/null | grep -o '/[^ ]*/class/powercap' | sed 's|/class/powercap$||')
    case "$d" in */wattcal-sim-*) rm -rf "$d" ;; esac; done; }
simdir_cleanup
exit 0
