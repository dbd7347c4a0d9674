# record never writes into a file it did not create for a run: an existing
# run, another application's SQLite DB, a non-database file, an empty name.
. tests/integration/lib/common.sh
sqlite3 "$T/other.db" 'CREATE TABLE customers(id INTEGER); INSERT INTO customers VALUES(1);'
"$BIN" record --db "$T/other.db" --meter sim --duration 1s --quiet 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "foreign DB: exit $rc"
expect_contains "$T/e" "another application"
[ "$(sql "$T/other.db" "SELECT COUNT(*) FROM sqlite_master")" = 1 ] || fail "foreign DB was modified"
echo "hello" >"$T/text.db"
"$BIN" record --db "$T/text.db" --meter sim --duration 1s --quiet 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "text file: exit $rc"
[ "$(cat "$T/text.db")" = hello ] || fail "text file was modified"
"$BIN" record --db "" --meter sim --duration 1s --quiet 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "empty --db: exit $rc"
"$BIN" record --db "$T/a.db" --db "$T/b.db" --meter sim --duration 1s --quiet 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "--db twice: exit $rc"
for bad in "--ceiling-watts nan" "--ceiling-watts inf" "--sim-seed -1" "--duration 0" "--interval 0" "--model foo" "--meter xyz"; do
    "$BIN" record --db "$T/c.db" --meter sim $bad --quiet 2>"$T/e"; rc=$?
    [ $rc -eq 2 ] || fail "$bad accepted (exit $rc)"
done
"$BIN" record --db "$T/run.db" --meter sim --duration 1s --quiet || fail "record"
"$BIN" record --db "$T/run.db" --meter sim --duration 1s --quiet 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "second run into the same file: exit $rc"
expect_contains "$T/e" "already holds a recorded run"
exit 0
