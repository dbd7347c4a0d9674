# validate's documented exit codes: 0 within tolerance, 1 tolerance broken,
# 2 unreadable DB / usage error.
. tests/integration/lib/common.sh
# a CPU-bound stressor keeps the node busy, so the model attributes energy and
# the gap tolerance is evaluated (an idle VM gives no active energy: exit 3)
"$BIN" stress --class cpu --duration 4s >/dev/null 2>&1 &
spid=$!
"$BIN" record --db "$T/run.db" --meter sim --interval 250ms --duration 2s --model ideal --quiet \
    2>/dev/null || fail "record"
kill $spid 2>/dev/null; wait $spid 2>/dev/null
"$BIN" validate --db "$T/run.db" --max-unattributed-pct 100 >"$T/p"; rc=$?
[ $rc -eq 0 ] || { cat "$T/p"; fail "tolerance 100 % should pass, exit $rc"; }
expect_contains "$T/p" "PASS all            zone package"
tail -n 1 "$T/p" | grep -q "^[1-9][0-9]* passed, 0 failed$" || { tail -n 3 "$T/p"; fail "closing line"; }
# a tolerance that must break: the raw meter (package + dram) against a
# simulated BMC that adds 40 W of platform power and a 0.92 PSU efficiency
"$BIN" record --db "$T/truth.db" --meter sim --interval 250ms --duration 3s --quiet \
    --truth sim:lag=0,window=0.5,period=0.25 --truth-interval 250ms 2>/dev/null || fail "record with truth"
"$BIN" validate --db "$T/truth.db" --tolerance node=1% --gate-source meter:package+dram >"$T/o"; rc=$?
[ $rc -eq 1 ] || { cat "$T/o"; fail "node=1 % against a simulated wall meter should fail with 1, got $rc"; }
expect_contains "$T/o" "FAIL all"
tail -n 1 "$T/o" | grep -q " passed, [1-9][0-9]* failed" || { tail -n 3 "$T/o"; fail "closing line"; }
"$BIN" validate --db "$T/missing.db" 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "missing DB should exit 2, got $rc"
echo "not a database" >"$T/junk.db"
"$BIN" validate --db "$T/junk.db" 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "junk DB should exit 2, got $rc"
expect_contains "$T/e" "junk.db"
"$BIN" validate 2>/dev/null; [ $? -eq 2 ] || fail "no --db should exit 2"
exit 0
