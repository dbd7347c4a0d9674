# kill -9 of `record` at random points, 24 times (docs/reliability.md): each
# time the DB passes integrity_check, keeps every tick a reader saw committed
# just before the kill, holds no half tick (ticks numbered without a hole,
# each with its zone samples), and validate works on it; a kill before the
# first commit leaves no tick (validate then says why). Nothing is left in
# the private TMPDIR but the killed run's own simulated tree, which the next
# start sweeps. The delays come from WC_KILL_SEED (printed) so a failure can
# be replayed; the whole matrix stays under ~30 s.
. tests/integration/lib/common.sh
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
# (below 2^31: mawk's srand degenerates above)
seed=${WC_KILL_SEED:-$(od -An -N4 -tu4 /dev/urandom | awk '{ print $1 % 2147483647 }')}
echo "kill matrix: WC_KILL_SEED=$seed"
# 24 delays, 0..900 ms, the first ones short (before or around the first tick)
delays=$(awk -v s="$seed" 'BEGIN { srand(s); for (i = 0; i < 24; i++)
    printf "%.3f\n", (i < 4 ? rand() * 0.15 : rand() * 0.9) }')
sims() { ls "$TMPDIR" | grep -c '^wattcal-sim-'; }
i=0
for d in $delays; do
    i=$((i + 1))
    db=$T/run$i.db
    "$BIN" record --db "$db" --meter sim --interval 20ms --quiet 2>"$T/err$i" &
    pid=$!
    sleep "$d"
    # what a reader sees committed now must survive the kill
    seen=$(sqlite3 "file:$db?mode=ro" 'SELECT COUNT(*) FROM tick' 2>/dev/null || echo 0)
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    [ "$(sims)" -le 1 ] || { ls -la "$TMPDIR" "$TMPDIR"/wattcal-sim-*
        fail "kill $i (${d}s): $(sims) simulated trees in TMPDIR: the start did not sweep"; }
    if [ ! -s "$db" ]; then
        [ "${seen:-0}" = 0 ] || fail "kill $i: $seen ticks seen, then no file"
        echo "kill $i after ${d}s: before the run's file was written"
        continue
    fi
    [ "$(sql "$db" 'PRAGMA integrity_check')" = ok ] || fail "kill $i (${d}s): integrity_check"
    ticks=$(sql "$db" 'SELECT COUNT(*) FROM tick' 2>/dev/null || echo 0)
    [ "$ticks" -ge "${seen:-0}" ] || fail "kill $i (${d}s): $seen ticks committed before the kill, $ticks after"
    if [ "$ticks" -gt 0 ]; then
        [ "$(sql "$db" 'SELECT MAX(id) FROM tick')" = "$ticks" ] || fail "kill $i: a hole in the ticks"
        [ "$(sql "$db" 'SELECT COUNT(*) FROM tick WHERE id NOT IN (SELECT tick_id FROM zone_sample)')" = 0 ] ||
            fail "kill $i: a tick without its zone samples (half a tick committed)"
    fi
    "$BIN" validate --db "$db" >"$T/v$i" 2>&1
    rc=$?
    if [ "$ticks" -ge 2 ]; then
        [ $rc -eq 0 ] || [ $rc -eq 1 ] || { cat "$T/v$i"; fail "kill $i ($ticks ticks): validate exit $rc"; }
    else
        [ $rc -eq 2 ] || [ $rc -eq 3 ] || { cat "$T/v$i"; fail "kill $i ($ticks ticks): validate exit $rc"; }
    fi
    echo "kill $i after ${d}s: $seen ticks seen, $ticks kept, validate $rc"
done
# the next start sweeps the last killed run's tree; a clean run leaves nothing
"$BIN" record --db "$T/last.db" --meter sim --interval 50ms --duration 100ms --quiet 2>/dev/null ||
    fail "a run after the kills"
[ -z "$(ls "$TMPDIR")" ] || fail "left in TMPDIR: $(ls "$TMPDIR")"
exit 0
