# record on the simulated node, then validate: the run is complete, every
# output says "simulated", the DB passes integrity_check, schema version set.
. tests/integration/lib/common.sh
"$BIN" stress --class cpu --duration 8s & burner=$!
"$BIN" record --db "$T/run.db" --meter sim --interval 500ms --duration 4s --quiet 2>"$T/rec.err" \
    || { cat "$T/rec.err"; fail "record exited $?"; }
kill $burner 2>/dev/null; wait $burner 2>/dev/null
[ "$(sql "$T/run.db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check"
[ "$(sql "$T/run.db" 'PRAGMA user_version')" = 6 ] || fail "user_version"
# the run ends compacted (VACUUM): a copy SQLite compacts again is no smaller,
# and the process summary stands in for proc_sample's process index
sql "$T/run.db" "VACUUM INTO '$T/again.db'" || fail "VACUUM INTO"
[ "$(sql "$T/run.db" 'PRAGMA page_count')" = "$(sql "$T/again.db" 'PRAGMA page_count')" ] \
    || fail "the run is not compacted: $(sql "$T/run.db" 'PRAGMA page_count') pages, $(sql "$T/again.db" 'PRAGMA page_count') once compacted"
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM sqlite_master WHERE name = 'process_cpu'")" = 1 ] || fail "no process_cpu"
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM sqlite_master WHERE name = 'proc_sample_process'")" = 0 ] \
    || fail "an ended run kept proc_sample's process index"
ticks=$(sql "$T/run.db" 'SELECT COUNT(*) FROM tick')
[ "$ticks" -ge 6 ] && [ "$ticks" -le 10 ] || fail "expected 9 ticks (6 on a loaded machine), got $ticks"
[ "$(sql "$T/run.db" 'SELECT provenance FROM run')" = simulated ] || fail "provenance"
[ "$(sql "$T/run.db" 'SELECT clean_stop FROM run')" = 1 ] || fail "clean_stop"
sql "$T/run.db" 'SELECT sim_params_json FROM run' | grep -q seed || fail "sim params not stored"
# five zones of the simulated tree: 2 packages, 2 dram, psys
[ "$(sql "$T/run.db" 'SELECT COUNT(*) FROM zone')" = 5 ] || fail "zones"
# ticks on absolute deadlines: tick k starts at start + k x 500 ms (seq skips a
# missed deadline instead of shifting the grid), within 150 ms of scheduling delay
off=$(sql "$T/run.db" 'SELECT MAX(ABS((mono_ns - (SELECT MIN(mono_ns) FROM tick)) - seq * 500000000)) FROM tick')
[ "$off" -lt 150000000 ] || fail "ticks off the 500 ms grid by $off ns"
# the burner is recorded with its CPU, identified by (pid, starttime)
n=$(sql "$T/run.db" "SELECT COUNT(*) FROM process WHERE pid=$burner")
[ "$n" = 1 ] || fail "burner pid $burner recorded $n times"
# its process group as the kernel reports it (field 5 of /proc/PID/stat)
pg=$(sed 's/.*) //' /proc/$burner/stat 2>/dev/null | cut -d' ' -f3)
[ -z "$pg" ] || [ "$(sql "$T/run.db" "SELECT pgid FROM process WHERE pid=$burner")" = "$pg" ] || fail "pgid"
"$BIN" validate --db "$T/run.db" >"$T/val.out" || { cat "$T/val.out"; fail "validate exited $?"; }
expect_contains "$T/val.out" "SIMULATED"
expect_contains "$T/val.out" "package"
expect_contains "$T/val.out" "Top"
# node energy = idle + attributed + unattributed for the package zone (to 1 mJ)
sql "$T/run.db" "SELECT ABS(SUM(delta_uj) - SUM(idle_uj) - SUM(active_uj)) FROM node_attr WHERE zone='package'" >"$T/bal"
[ "$(cat "$T/bal")" = 0 ] || fail "node energy != idle + active"
# a run that speaks no HTTP never maps libcurl or libmicrohttpd (and their TLS
# libraries): they are loaded when a source needs them (common/wc_dl.h)
"$BIN" record --db "$T/plain.db" --meter sim --interval 200ms --duration 3s --quiet 2>"$T/plain.err" &
rec=$!
i=0
while [ $i -lt 40 ] && ! [ -s "$T/plain.db" ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
maps=$(cat /proc/$rec/maps 2>/dev/null)
wait $rec || { cat "$T/plain.err"; fail "record (no HTTP) exited $?"; }
[ -n "$maps" ] || fail "could not read the recorder's maps"
echo "$maps" | grep -Eq 'libcurl|libmicrohttpd|libgnutls|libssl' \
    && fail "a run without HTTP mapped: $(echo "$maps" | grep -Eo 'lib(curl|microhttpd|gnutls|ssl)[^ ]*' | sort -u | tr '\n' ' ')"
exit 0
