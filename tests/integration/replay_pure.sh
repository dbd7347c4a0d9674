# Attribution is a pure function of the raw samples: re-attributing a run
# offline under the model it was recorded with reproduces every row exactly;
# other models can be added to the same run.
. tests/integration/lib/common.sh
"$BIN" stress --class cpu --duration 6s & burner=$!
"$BIN" record --db "$T/run.db" --meter sim --interval 250ms --duration 3s --model kepler-main --quiet 2>/dev/null \
    || fail "record"
kill $burner 2>/dev/null; wait $burner 2>/dev/null
q_node="SELECT tick_id, zone, delta_uj, active_uj, idle_uj, power_uw, active_uw, ratio, active_total_uj, flags FROM node_attr WHERE model_id=(SELECT id FROM model WHERE name='kepler-main') ORDER BY tick_id, zone"
q_work="SELECT tick_id, level, process_id, key, zone, cpu_delta_s, energy_uj, total_uj, power_uw, flags FROM work_attr WHERE model_id=(SELECT id FROM model WHERE name='kepler-main') ORDER BY tick_id, level, process_id, key, zone"
sql "$T/run.db" "$q_node" >"$T/node.before"; sql "$T/run.db" "$q_work" >"$T/work.before"
[ -s "$T/work.before" ] || fail "no workload rows recorded"
"$BIN" attribute --db "$T/run.db" --model kepler-main --model ideal --model kepler-0.11 >"$T/out" || fail "attribute"
expect_contains "$T/out" "model ideal"
sql "$T/run.db" "$q_node" >"$T/node.after"; sql "$T/run.db" "$q_work" >"$T/work.after"
cmp -s "$T/node.before" "$T/node.after" || { diff "$T/node.before" "$T/node.after" | head; fail "node rows differ after replay"; }
cmp -s "$T/work.before" "$T/work.after" || { diff "$T/work.before" "$T/work.after" | head; fail "workload rows differ after replay"; }
[ "$(sql "$T/run.db" 'SELECT COUNT(DISTINCT model_id) FROM node_attr')" = 3 ] || fail "three models expected"
"$BIN" validate --db "$T/run.db" --model ideal >"$T/v" || fail "validate ideal"
expect_contains "$T/v" "model ideal"
# a run of an older version stored kepler-main as kepler-head: still read,
# under either name, without recomputing (the file stays read-only)
cp "$T/run.db" "$T/old.db"
sql "$T/old.db" "UPDATE model SET name='kepler-head' WHERE name='kepler-main'" >/dev/null
chmod a-w "$T/old.db"
for m in kepler-main kepler-head; do
    "$BIN" validate --db "$T/old.db" --model $m >"$T/v" 2>&1 || { cat "$T/v"; fail "validate an old run as $m"; }
    expect_contains "$T/v" "model kepler-main"
done
[ "$(sql "$T/old.db" 'SELECT COUNT(*) FROM model')" = 3 ] || fail "an old run was rewritten"
exit 0
