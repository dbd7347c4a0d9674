# Task NU2: calibrate refuses fits whose coefficients are not identified and
# says why with the numbers (nothing of them stored; exit 3 only when every fit is refused; validate shows no
# estimate from them): our own fixtures tests/fixtures/calibrate/flat-util.csv
# (utilisation never moved) and noise-only.csv (power unrelated to it). And a
# short simulated recording: the progress line says the simulated BMC is
# warming up (not FAILING) until its first reading is due; validate and
# calibrate say how long to record (from the sim BMC's lag, window, period).
. tests/integration/lib/common.sh
for f in flat-util:"utilisation spans only 0.000" noise-only:"R^2 0.0"; do
    name=${f%%:*} why=${f#*:}
    "$BIN" import --csv "tests/fixtures/calibrate/$name.csv" --db "$T/$name.db" --time-col time_s \
        --time-unit s --energy-col pkg_j:package:j --truth-col wall_w:w --util-col util_pct:pct \
        >"$T/imp" 2>&1 || { cat "$T/imp"; fail "import $name"; }
    rc=0; "$BIN" calibrate --db "$T/$name.db" --window 1s --bootstrap 200 >"$T/cal" 2>&1 || rc=$?
    [ "$rc" = 0 ] || { cat "$T/cal"; fail "$name: calibrate exit $rc, expected 0 (the truth fit is usable and stored)"; }
    expect_contains "$T/cal" "zone_utilisation package: NOT STORED, not identified: $why"
    expect_contains "$T/cal" "REFUSED (not stored, no estimate): $why"
    expect_contains "$T/cal" "1 fit(s) REFUSED as not identified"
    grep -q "stored as calibration #.*zone_utilisation" "$T/cal" && fail "$name: the zone fit was stored"
    expect_contains "$T/cal" "stored as calibration #1 (truth_meter"
    [ "$(sql "$T/$name.db" "SELECT COUNT(*) FROM calibration WHERE kind='zone_utilisation'")" = 0 ] \
        || fail "$name: a zone_utilisation row was written"
    "$BIN" validate --db "$T/$name.db" >"$T/v" 2>&1 || { cat "$T/v"; fail "$name: validate"; }
    expect_contains "$T/v" "estimate:wall#1"
    grep -q "estimate:util" "$T/v" && fail "$name: validate scored estimate:util from a refused fit"
done

# a 10 s simulated recording whose BMC needs 5 s before its first reading
command -v script >/dev/null || skip "no script(1) for a terminal"
script -qec "$BIN record --db $T/short.db --meter sim --truth sim:lag=1,window=4,period=2 --duration 10s" \
    "$T/tty" >/dev/null 2>&1 || fail "record"
tr '\r' '\n' <"$T/tty" >"$T/lines"
expect_contains "$T/lines" "warming up (first reading after ~5 s)"
grep -q "FAILING" "$T/lines" && fail "the warm-up read as FAILING"
grep -q "truth sim:lag=1,window=4,perio ok [1-9]" "$T/lines" || fail "no ok count after the warm-up"
rc=0; "$BIN" validate --db "$T/short.db" --tolerance mape=10% >"$T/v" 2>&1 || rc=$?
[ "$rc" = 3 ] || { cat "$T/v"; fail "validate exit $rc, expected 3 (NO VERDICT)"; }
expect_contains "$T/v" "INSUFFICIENT: n="
expect_contains "$T/v" "the simulated BMC's first reading comes after ~5 s, then one every 2 s: record at least 15 s for 5 readings"
rc=0; "$BIN" calibrate --db "$T/short.db" --no-store >"$T/cal" 2>&1 || rc=$?
expect_contains "$T/cal" "record at least 15 s for 5 readings"
exit 0
