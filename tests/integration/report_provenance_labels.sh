# Every figure says where it came from (a new user's demo run): on a short
# simulated run (simulated meter, simulated BMC) the report's Top tenants
# text and the stacked-plot caption say the energies were attributed by
# model M from the SIMULATED meter; the accuracy table's truth column and
# validate's energy header tag the truth [SIMULATED]; the power caption
# shows the drawing window rounded for display ("0.5 s", never
# "0.499999 s").
#
# The run reads tests/tools/fake_node.py's animated --procfs-root (three pods
# with known CPU), not the machine's own /proc: on an idle CI machine a 6 s
# run of the real /proc can see no CPU in any interval, so no workload gets
# energy and the stacked figure is rightly not drawn (stop 19's CI).
. tests/integration/lib/common.sh

FN=
trap '[ -n "$FN" ] && { kill "$FN" 2>/dev/null; wait "$FN" 2>/dev/null; }; rm -rf "$T"' EXIT
python3 tests/tools/fake_node.py --root "$T/proc" --max-seconds 60 >"$T/node.out" 2>&1 &
FN=$!
i=0
while ! grep -q READY "$T/node.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -le 100 ] || fail "fake_node.py never said READY"
    sleep 0.1
done
"$BIN" record --db "$T/r.db" --meter sim --procfs-root "$T/proc" --duration 6s --interval 500ms --quiet \
    --truth sim:lag=1,window=2,period=1 --truth-interval 500ms >"$T/rec" 2>&1 || { cat "$T/rec"; fail "record"; }
"$BIN" report --db "$T/r.db" --out "$T/rep" >"$T/out" 2>&1 || { cat "$T/out"; fail "report"; }
M="$T/rep/report.md"
TRUTH='sim:lag=1,window=2,period=1'

expect_contains "$M" "## Top tenants"
grep -E -q "^By package energy attributed by model kepler-0\.11 from the SIMULATED meter \(joules" "$M" ||
    fail "Top tenants does not say the energies are attributed from the SIMULATED meter"
# the accuracy table (rows of the meter and model sources): every row names
# the truth with its tag (Markdown escapes the brackets)
rows=$(grep -E '^\| (meter|model):' "$M" | grep -c -F "| $TRUTH \[SIMULATED\] |")
all=$(grep -E -c '^\| (meter|model):' "$M")
[ "$rows" -ge 3 ] && [ "$rows" -eq "$all" ] || fail "$rows of $all accuracy rows tag the truth [SIMULATED]"

if command -v gnuplot >/dev/null 2>&1; then
    expect_contains "$M" "Energy attributed by model kepler-0.11 from the SIMULATED meter to the top"
    # every caption naming the truth tags it (error, Bland-Altman, scatter;
    # Markdown escapes the brackets)
    for cap in "against truth $TRUTH \\[SIMULATED\\]" "and truth $TRUTH \\[SIMULATED\\]" "Ground truth $TRUTH \\[SIMULATED\\] against"; do
        grep -q -F "$cap" "$M" || fail "no caption says '$cap'"
    done
    # 0.5 s on a quiet machine; a loaded one can stretch the ticks' median
    # spacing and with it the window: any window, shown without spurious digits
    grep -E -q "averaged over [0-9]+(\.[0-9]{1,3})? s windows" "$M" ||
        { grep -o "averaged over [^;]*" "$M"; fail "the power window"; }
    ! grep -E -q "over [0-9]+\.[0-9]{4,} s windows" "$M" || fail "a window shown with spurious digits"
fi

# the gate's line in the report says a simulated run validates nothing, as validate's does
"$BIN" report --db "$T/r.db" --out "$T/rep2" --tolerance node=10% >"$T/out" 2>&1 ||
    [ $? -le 3 ] || { cat "$T/out"; fail "report --tolerance"; }
grep -q "not evaluated ([A-Z ]*; SIMULATED meter and truth: a rehearsal, validates nothing)" \
    "$T/rep2/report.md" || fail "the report's gate line does not say the run is SIMULATED"

"$BIN" validate --db "$T/r.db" >"$T/v" 2>&1
rc=$?
[ $rc -le 3 ] || { cat "$T/v"; fail "validate exit $rc"; }
expect_contains "$T/v" "against the truth $TRUTH [SIMULATED] over the"
echo "ok"
