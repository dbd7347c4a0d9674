# SIGINT/SIGTERM finish the tick and close the run cleanly.
. tests/integration/lib/common.sh
for sig in TERM INT; do
    "$BIN" record --db "$T/$sig.db" --meter sim --interval 300ms --quiet 2>"$T/err" &
    pid=$!
    sleep 2
    kill -$sig $pid
    wait $pid; rc=$?
    [ $rc -eq 0 ] || { cat "$T/err"; fail "record exited $rc on SIG$sig"; }
    [ "$(sql "$T/$sig.db" 'SELECT clean_stop FROM run')" = 1 ] || fail "not clean after SIG$sig"
    [ "$(sql "$T/$sig.db" 'SELECT ticks FROM run')" = "$(sql "$T/$sig.db" 'SELECT COUNT(*) FROM tick')" ] \
        || fail "ticks column disagrees after SIG$sig"
done
exit 0
