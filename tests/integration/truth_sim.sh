# Ground truth from the simulated BMC, polled on its own thread: samples are
# recorded with their window, path and status; the value republished between
# BMC updates (same device timestamp) is stale; provenance says simulated;
# wall power sits above the node's package+dram power (base load / efficiency).
. tests/integration/lib/common.sh
"$BIN" record --db "$T/run.db" --meter sim --truth sim:lag=1,window=2,period=1,noise=0 \
    --truth-interval 200ms --interval 100ms --duration 6s --quiet 2>"$T/err" || { cat "$T/err"; fail "record"; }
[ "$(sql "$T/run.db" 'SELECT provenance FROM truth_source')" = simulated ] || fail "truth provenance"
sql "$T/run.db" 'SELECT description FROM truth_source' | grep -q "SIMULATED BMC" || fail "description"
ok=$(sql "$T/run.db" "SELECT COUNT(*) FROM truth_sample WHERE status='ok'")
stale=$(sql "$T/run.db" "SELECT COUNT(*) FROM truth_sample WHERE status='stale'")
warm=$(sql "$T/run.db" "SELECT COUNT(*) FROM truth_sample WHERE status='unavailable' AND watts IS NULL")
[ "$ok" -ge 2 ] || fail "ok samples: $ok"
[ "$stale" -ge 2 ] || fail "stale samples: $stale"
[ "$warm" -ge 1 ] || fail "warm-up should be unavailable (NULL watts), got $warm"
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM truth_sample WHERE status!='ok' AND status!='stale' AND watts IS NOT NULL")" = 0 ] \
    || fail "a non-ok sample carries watts"
[ "$(sql "$T/run.db" "SELECT MIN(window_s) FROM truth_sample WHERE status='ok'")" = 2.0 ] || fail "window"
# wall >= (package+dram idle 2x20 W + 2x3 W + 40 W base) / 0.92 = 93.5 W; the
# simulated counters advance once per 100 ms tick, so allow one step of slack
w=$(sql "$T/run.db" "SELECT CAST(MIN(watts) AS INTEGER) FROM truth_sample WHERE status='ok'")
[ "$w" -ge 85 ] || fail "simulated wall power $w W"
"$BIN" validate --db "$T/run.db" >"$T/v" || fail "validate"
expect_contains "$T/v" "Ground truth recorded"
expect_contains "$T/v" "SIMULATED"
exit 0
