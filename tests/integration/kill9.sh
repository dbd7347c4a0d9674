# kill -9 during record leaves a DB that opens, passes integrity_check, keeps
# the committed ticks, and can still be validated.
. tests/integration/lib/common.sh
"$BIN" record --db "$T/run.db" --meter sim --interval 200ms --quiet 2>/dev/null &
pid=$!
sleep 3
kill -9 $pid
wait $pid 2>/dev/null
# the simulated node's temp tree cannot be removed by a killed process
simdir=$(sql "$T/run.db" 'SELECT meter_description FROM run' | grep -o '/[^ ]*/class/powercap' | sed 's|/class/powercap$||')
case "$simdir" in */wattcal-sim-*) rm -rf "$simdir" ;; esac
[ "$(sql "$T/run.db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check after kill -9"
ticks=$(sql "$T/run.db" 'SELECT COUNT(*) FROM tick')
[ "$ticks" -ge 5 ] || fail "only $ticks ticks kept"
[ "$(sql "$T/run.db" 'SELECT clean_stop FROM run')" = 0 ] || fail "clean_stop should be 0"
"$BIN" validate --db "$T/run.db" >"$T/val.out" || { cat "$T/val.out"; fail "validate after kill -9"; }
expect_contains "$T/val.out" "package"
exit 0
