# SIGHUP (a closed terminal or SSH session) ends a record cleanly like SIGTERM:
# the run is complete, validates, and needs no -wal file. Under nohup SIGHUP
# is ignored and the run goes on. A run copied without its -wal file, or cut
# short, is refused with a message saying so.
. tests/integration/lib/common.sh
wait_ticks() { # db n: until the run holds n ticks (at most ~10 s)
    i=0
    while [ $i -lt 100 ]; do
        [ "$(sqlite3 "$1" 'SELECT COUNT(*) FROM tick' 2>/dev/null || echo 0)" -ge "$2" ] && return 0
        sleep 0.1; i=$((i + 1))
    done
    fail "$1 never reached $2 ticks"
}
hup_ignored() { # pid: 1 when the process ignores SIGHUP (bit 0 of SigIgn)
    m=$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
    [ -n "$m" ] && [ $((0x$m & 1)) -eq 1 ]
}
# --duration bounds the run should SIGHUP be ignored: a suite started under
# nohup hands that on, and wattcal rightly keeps it (checked below)
"$BIN" record --db "$T/hup.db" --meter sim --interval 200ms --duration 60s --quiet 2>"$T/err" &
pid=$!
wait_ticks "$T/hup.db" 3
if hup_ignored $pid; then
    echo "SIGHUP is ignored in this environment (nohup?): the SIGHUP stop is not checked here"
    kill -TERM $pid; wait $pid
else
    kill -HUP $pid
    wait $pid; rc=$?
    [ $rc -eq 3 ] || { cat "$T/err"; fail "record --duration exited $rc on SIGHUP (3: stopped early)"; }
    [ ! -e "$T/hup.db-wal" ] || [ ! -s "$T/hup.db-wal" ] || fail "a -wal file with data is left after SIGHUP"
    [ "$(sql "$T/hup.db" 'SELECT clean_stop FROM run')" = 1 ] || fail "not clean after SIGHUP"
    [ "$(sql "$T/hup.db" 'SELECT ticks FROM run')" = "$(sql "$T/hup.db" 'SELECT COUNT(*) FROM tick')" ] ||
        fail "ticks column disagrees after SIGHUP"
    cp "$T/hup.db" "$T/alone.db"   # the file alone is the whole run
    "$BIN" validate --db "$T/alone.db" >"$T/v" 2>&1 || { cat "$T/v"; fail "the run does not validate"; }
fi

# under nohup, SIGHUP is ignored; SIGTERM still ends it cleanly
command -v nohup >/dev/null || skip "no nohup"
nohup "$BIN" record --db "$T/nohup.db" --meter sim --interval 200ms --quiet >"$T/nohup.out" 2>&1 &
pid=$!
wait_ticks "$T/nohup.db" 2
kill -HUP $pid
n=$(sql "$T/nohup.db" 'SELECT COUNT(*) FROM tick')
wait_ticks "$T/nohup.db" $((n + 3))
kill -0 $pid 2>/dev/null || fail "nohup: SIGHUP ended the run"
kill -TERM $pid
wait $pid; rc=$?
[ $rc -eq 0 ] || fail "nohup: SIGTERM exit $rc"

# a copy taken while recording, without its -wal file, says where its data is
"$BIN" record --db "$T/live.db" --meter sim --interval 500ms --quiet 2>/dev/null &
pid=$!
wait_ticks "$T/live.db" 1
cp "$T/live.db" "$T/copy.db"
kill -TERM $pid; wait $pid
if [ "$(sql "$T/copy.db" 'PRAGMA user_version')" = 0 ]; then   # nothing checkpointed yet: the usual case
    "$BIN" validate --db "$T/copy.db" >/dev/null 2>"$T/e"; rc=$?
    [ $rc -eq 2 ] || fail "a copy without its -wal: exit $rc"
    expect_contains "$T/e" "not a wattcal run"
    expect_contains "$T/e" "its -wal file $T/copy.db-wal is missing or empty"
fi
head -c 60 "$T/hup.db" >"$T/cut.db"
"$BIN" validate --db "$T/cut.db" >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "a cut file: exit $rc"
expect_contains "$T/e" "the file is 60 bytes, shorter than SQLite's 100-byte header"
exit 0
