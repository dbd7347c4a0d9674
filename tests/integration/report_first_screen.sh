# The report answers its title first (issue 13): on one short demo-like run
# (simulated node, simulated BMC, no calibration) the first screen of
# report.html, at 1280x800 and on a 390x844 phone as headless Chromium lays
# it out (tests/tools/first_screen.py), holds the verdict box with the
# sentence "Node total within ±5 % of the simulated BMC: NO — the simulated
# meter reads N % [lo, hi] low", what was checked (n, time), the showback
# meaning and the by-design note of a simulated run; Provenance follows; the
# body never overflows sideways (tables scroll inside their box on a phone,
# none is cut at 1280 px); plot tick labels stay >= 8 px on the phone; the
# page's ids are unique; the screenshots are not blank. The HTML and the
# Markdown give the sentence before the provenance. Then, without plots:
# YES and NOT EVALUATED sentences, long Markdown tables in <details>, and
# --md-images inline / URL / a refused URL.
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to measure the page"
command -v gnuplot >/dev/null 2>&1 || skip "gnuplot is needed (Debian: gnuplot-nox)"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip "chromium is needed to lay out the report (Debian: chromium)"
TOOL=$(pwd)/tests/tools/first_screen.py

"$BIN" record --db "$T/r.db" --meter sim --duration 15s --interval 500ms --quiet \
    --truth sim:lag=1,window=2,period=1 --truth-interval 500ms >"$T/rec" 2>&1 || { cat "$T/rec"; fail "record"; }
TOL=node=5%,wape=5%,mae=30W,gap=10%,over=10%,invariants=0
"$BIN" report --db "$T/r.db" --out "$T/rep" --tolerance $TOL >"$T/out" 2>&1 || { cat "$T/out"; fail "report"; }
H="$T/rep/report.html"
M="$T/rep/report.md"
SENT='Node total within ±5 % of the simulated BMC: NO — the simulated meter reads '

# text order: the sentence, then what was checked, then the provenance
line_of() { grep -n -F -m1 "$2" "$1" | cut -d: -f1; }
for f in "$H" "$M"; do
    s=$(line_of "$f" "$SENT"); p=$(line_of "$f" "Provenance")
    [ -n "$s" ] || fail "$f has no verdict sentence"
    [ -n "$p" ] && [ "$s" -lt "$p" ] || fail "$f: the verdict sentence (line $s) is not before the provenance (line $p)"
done
grep -E -q 'reads [0-9]+\.[0-9] % \[[0-9]+\.[0-9], [0-9]+\.[0-9]\] low' "$H" || fail "the sentence has no signed bias with its interval"
expect_contains "$M" "**Checked:** meter:package+dram \\[SIMULATED\\] against sim:lag=1,window=2,period=1 \\[SIMULATED\\]"
expect_contains "$M" "n = "
# the showback line names pods only on a run that has some (this machine's may not)
if [ "$(sql "$T/r.db" "SELECT COUNT(*) FROM pod WHERE pod_uid != ''")" = 0 ]; then
    expect_contains "$M" "**Showback:** every workload's joules are shares of this node total"
    grep -q "every pod's" "$M" && fail "the showback line speaks of pods on a run without any"
else
    expect_contains "$M" "**Showback:** every pod's joules are shares of this node total"
fi
expect_contains "$M" "**By design:** this run is SIMULATED"
expect_contains "$M" "<details><summary>Verdict of every check: 12 rows</summary>"
! grep -q '+ -[0-9]' "$H" "$M" || fail "a '+ -' sign left in the report"
! grep -q 'Not drawn: not drawn\|not drawn (' "$H" "$M" || fail "doubled 'not drawn'"

for size in "1280 800" "390 844"; do
    set -- $size
    python3 "$TOOL" "$CHROMIUM" "$H" "$1" "$2" "$T" >"$T/m.json" 2>"$T/m.err" || { cat "$T/m.err"; fail "measure at $1x$2"; }
    python3 - "$T/m.json" "$1" "$2" "$SENT" <<'PY' || fail "first screen at $1x$2 (above)"
import json, sys
r, w, h, sent = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
shown = {k: v for k, v in r.items() if k != "verdict_text"}
print("%sx%s:" % (w, h), json.dumps(shown))
assert r["inner_width"] == w, "the page was not laid out %d px wide" % w
assert r["scroll_width"] <= r["inner_width"], "the body overflows sideways"
assert 0 <= r["verdict_top"] < r["verdict_bottom"] <= h, "the verdict box is not within the first screen"
assert r["verdict_text"].startswith(sent), r["verdict_text"][:200]
for word in ("Checked:", "n = ", "Showback:", "By design:"):
    assert word in r["verdict_text"], word
assert r["provenance_after_verdict"], "Provenance does not follow the verdict"
assert not r["duplicate_ids"], r["duplicate_ids"]
assert r["plots"] >= 4 and r["tables"] >= 5, (r["plots"], r["tables"])
if w >= 1280:
    assert r["cut_tables"] == 0, "%d table(s) cut at %d px" % (r["cut_tables"], w)
assert r["min_tick_px"] >= 8, "plot tick labels %.1f px high" % r["min_tick_px"]
assert r["screenshot_rows"] > 100, "the first screen looks blank (%d distinct rows)" % r["screenshot_rows"]
PY
done

# YES, and NOT EVALUATED (class-bias on a run without workloads is never a pass)
"$BIN" report --db "$T/r.db" --out "$T/yes" --no-plots --tolerance node=90% >"$T/o2" 2>&1 || { cat "$T/o2"; fail "report yes"; }
expect_contains "$T/yes/report.md" "Node total within ±90 % of the simulated BMC: YES — the simulated meter reads "
expect_contains "$T/yes/report.md" "agrees with the simulated BMC within 90 %"
! grep -q "By design" "$T/yes/report.md" || fail "a YES got the by-design note of a NO"
"$BIN" report --db "$T/r.db" --out "$T/ne" --no-plots --tolerance class-bias=10% >"$T/o3" 2>&1 || { cat "$T/o3"; fail "report ne"; }
expect_contains "$T/ne/report.md" "Every tolerance holds: NOT EVALUATED — 1 of 1 checks could not be evaluated"
expect_contains "$T/ne/report.md" "**NO VERDICT.**"
! grep -q '\*\*PASS\.\*\*\|: YES' "$T/ne/report.md" || fail "an unevaluated gate reads as a pass"

# --md-images
"$BIN" report --db "$T/r.db" --out "$T/inl" --md-images inline --tolerance node=5% >"$T/o4" 2>&1 || { cat "$T/o4"; fail "inline"; }
expect_contains "$T/inl/report.md" "![power](data:image/png;base64,iVBORw0KGgo"
"$BIN" report --db "$T/r.db" --out "$T/url" --md-images https://ci.example.org/run-7/ --no-plots >/dev/null 2>&1 || fail "url"
"$BIN" report --db "$T/r.db" --out "$T/url" --md-images https://ci.example.org/run-7 --tolerance node=5% >/dev/null 2>&1 || fail "url"
expect_contains "$T/url/report.md" "![power](https://ci.example.org/run-7/power.png)"
"$BIN" report --db "$T/r.db" --out "$T/bad" --md-images 'https://x/a) <b>' >"$T/o5" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "--md-images with a parenthesis: exit $rc, expected 2"
expect_contains "$T/o5" "expected files, inline or an http(s):// base URL"
exit 0
