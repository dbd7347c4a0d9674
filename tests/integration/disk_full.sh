# The disk-full cases of docs/reliability.md on small tmpfs mounts (root only;
# skipped with a message otherwise): full before the first tick (no file
# left, the step named), full in the middle of the run (every committed tick
# kept and readable), full while finishing (the step named — the end row,
# the indexes, the journal — and the file consistent with what it says it
# kept). The middle and the finish are found by sweeping the mount's size
# over one deterministic run (a fixture --procfs-root: same rows every time).
. tests/integration/lib/common.sh
[ "$(id -u)" = 0 ] || skip "disk-full cases need root to mount a small tmpfs"
mkdir -p "$T/m" "$T/tmp" "$T/copy"
mount -t tmpfs -o size=64k tmpfs "$T/m" 2>/dev/null || skip "cannot mount tmpfs here"
trap 'umount "$T/m" 2>/dev/null; rm -rf "$T"' EXIT
export TMPDIR=$T/tmp

tick_count() { sql "$1" 'SELECT COUNT(*) FROM tick'; }
# the read-side indexes, with the process_cpu summary an ended run has instead
# of proc_sample_process (built in the same transaction)
indexes() { sql "$1" "SELECT COUNT(*) FROM sqlite_master WHERE (type='index' AND name IN ('zone_sample_tick','proc_sample_process','node_attr_model','work_attr_model','truth_sample_source')) OR (type='table' AND name='process_cpu')"; }
# every one: 5, or 4 in a compact run (schema 6: work_energy is its own index)
all_indexes() { sql "$1" "SELECT 5 - COUNT(*) FROM sqlite_master WHERE name = 'work_energy'"; }
# validate works on a copy with its -wal (a reader may need room to build indexes)
validate_copy() {
    rm -f "$T/copy/"*
    cp "$T/m/run.db"* "$T/copy/"
    "$BIN" validate --db "$T/copy/run.db" >"$T/v" 2>&1
    vrc=$?
    [ $vrc -eq 0 ] || [ $vrc -eq 1 ] || [ $vrc -eq 3 ] || { cat "$T/v"; fail "$1: validate exit $vrc"; }
}

# 1. full before the first tick: nothing recorded, no file left behind
dd if=/dev/zero of="$T/m/fill" bs=4k 2>/dev/null
"$BIN" record --db "$T/m/run.db" --meter sim --interval 20ms --duration 200ms --quiet 2>"$T/err"
rc=$?
[ $rc -eq 2 ] || { cat "$T/err"; fail "start on a full disk: exit $rc"; }
expect_contains "$T/err" "starting a new run: database or disk is full"
ls "$T/m" | grep -q '^run\.db' && fail "a failed start left $(ls "$T/m")"
umount "$T/m"

# 2 and 3. the same run on mounts of growing size
seen_first=0 seen_mid=0 seen_finish=0 seen_compact=0 seen_ok=0
for kb in 200 232 264 296 328 360 392 408 424 440 456 472 488 520 552 600 700 2048; do
    mount -t tmpfs -o size=${kb}k tmpfs "$T/m" || fail "mount ${kb}k"
    "$BIN" record --db "$T/m/run.db" --meter sim --procfs-root tests/fixtures/procfs/node \
        --interval 20ms --duration 200ms --quiet 2>"$T/err"
    rc=$?
    case "$(cat "$T/err")" in
    *"no tick was committed: the file is removed"*)
        seen_first=$((seen_first + 1)) # full at the first tick (schema 5 fills more at start)
        expect_contains "$T/err" "disk full"
        ls "$T/m" | grep -q '^run\.db' && fail "${kb}k: a run with no tick left $(ls "$T/m")" ;;
    *"committing tick"*)
        seen_mid=$((seen_mid + 1))
        expect_contains "$T/err" "disk full"
        n=$(sed -n 's/.*: \([0-9]*\) ticks recorded before the error are kept in.*/\1/p' "$T/err")
        [ "$(tick_count "$T/m/run.db")" = "$n" ] || fail "${kb}k: $n ticks reported, $(tick_count "$T/m/run.db") kept"
        [ "$(sql "$T/m/run.db" 'PRAGMA integrity_check')" = ok ] || fail "${kb}k: integrity after a full disk mid-run"
        validate_copy "${kb}k mid-run"
        [ "$n" -lt 2 ] || expect_contains "$T/v" "did not end cleanly" ;;
    *"finishing the run: step"*)
        seen_finish=$((seen_finish + 1))
        n=$(sed -n 's/.*(all \([0-9]*\) ticks of the run are in the file).*/\1/p' "$T/err")
        [ -n "$n" ] && [ "$(tick_count "$T/m/run.db")" = "$n" ] || { cat "$T/err"; fail "${kb}k: ticks at finish"; }
        [ "$(sql "$T/m/run.db" 'PRAGMA integrity_check')" = ok ] || fail "${kb}k: integrity after a full disk at finish"
        case "$(cat "$T/err")" in
        *"step 1 of 3"*) [ "$(sql "$T/m/run.db" 'SELECT clean_stop FROM run')" = 0 ] || fail "${kb}k: step 1 but an end row" ;;
        *"step 2 of 3"*) [ "$(indexes "$T/m/run.db")" = 0 ] || fail "${kb}k: step 2 left $(indexes "$T/m/run.db") of 5 indexes"
                         [ "$(sql "$T/m/run.db" 'SELECT ticks FROM run')" = "$n" ] || fail "${kb}k: step 2 without the end row" ;;
        *"step 3 of 3"*) [ "$(indexes "$T/m/run.db")" = "$(all_indexes "$T/m/run.db")" ] || fail "${kb}k: step 3 with $(indexes "$T/m/run.db") of $(all_indexes "$T/m/run.db") indexes"
                         expect_contains "$T/err" "keep and copy the two files together" ;;
        esac
        validate_copy "${kb}k finish" ;;
    *"compacting the finished run (VACUUM) failed"*)
        # a warning, not an error: the run is whole, only not compacted
        [ $rc -eq 0 ] || { cat "$T/err"; fail "${kb}k: a failed compaction exited $rc"; }
        seen_compact=$((seen_compact + 1))
        expect_contains "$T/err" "(disk full). The run is complete and unchanged"
        [ "$(sql "$T/m/run.db" 'PRAGMA integrity_check')" = ok ] || fail "${kb}k: integrity after a failed compaction"
        [ "$(sql "$T/m/run.db" 'SELECT clean_stop FROM run')" = 1 ] || fail "${kb}k: a failed compaction lost the end row"
        [ "$(indexes "$T/m/run.db")" = "$(all_indexes "$T/m/run.db")" ] || fail "${kb}k: a failed compaction lost indexes"
        validate_copy "${kb}k compaction" ;;
    *)
        [ $rc -eq 0 ] || { cat "$T/err"; fail "${kb}k: exit $rc"; }
        seen_ok=$((seen_ok + 1))
        [ "$(indexes "$T/m/run.db")" = "$(all_indexes "$T/m/run.db")" ] || fail "${kb}k: a finished run without its indexes"
        [ "$(sql "$T/m/run.db" 'PRAGMA journal_mode')" = delete ] || fail "${kb}k: a finished run left in WAL" ;;
    esac
    [ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "${kb}k: exit $rc"
    umount "$T/m"
done
echo "mounts: $seen_first full at the first tick, $seen_mid full mid-run, $seen_finish full while finishing, $seen_compact full while compacting, $seen_ok with room"
[ $seen_mid -ge 1 ] || fail "no mount filled up mid-run"
[ $seen_finish -ge 1 ] || fail "no mount filled up while finishing (the sizes no longer bracket it?)"
[ $seen_ok -ge 1 ] || fail "no mount had room for the whole run"
[ -z "$(ls "$TMPDIR")" ] || fail "left in TMPDIR: $(ls "$TMPDIR")"
exit 0
