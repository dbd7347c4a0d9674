# record never writes into a file it did not create for a run: an existing
# run, another application's SQLite DB, a non-database file, an empty name.
# "Never writes" is checked byte for byte: a refused file keeps its journal
# mode too (a switch to WAL alone would rewrite its header).
# validate's --json and --junit naming one file are refused (a device for both
# is not one file).
. tests/integration/lib/common.sh
sum() { cksum <"$1"; }
sqlite3 "$T/other.db" 'CREATE TABLE customers(id INTEGER); INSERT INTO customers VALUES(1);'
before=$(sum "$T/other.db")
"$BIN" record --db "$T/other.db" --meter sim --duration 1s --quiet 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "foreign DB: exit $rc"
expect_contains "$T/e" "another application"
[ "$(sum "$T/other.db")" = "$before" ] || fail "foreign DB was modified"
[ "$(sql "$T/other.db" "PRAGMA journal_mode")" = delete ] || fail "foreign DB switched to WAL"
"$BIN" import --db "$T/other.db" --csv tests/fixtures/import/run.csv --time-col timestamp \
    --time-unit iso --counter-col pkg_uj:package:uj 2>"$T/e"; rc=$?
[ $rc -ne 0 ] || fail "import into a foreign DB: exit 0"
[ "$(sum "$T/other.db")" = "$before" ] || fail "import modified the foreign DB"
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
before=$(sum "$T/run.db")
"$BIN" record --db "$T/run.db" --meter sim --duration 1s --quiet 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "second run into the same file: exit $rc"
expect_contains "$T/e" "already holds a recorded run"
[ "$(sum "$T/run.db")" = "$before" ] || fail "the refused run was modified"
[ ! -e "$T/run.db-wal" ] || fail "the refused run was switched to WAL"

# --json and --junit naming one file (one path, or two names of one file)
# are refused; a device such as /dev/null for both is not one file
"$BIN" validate --db "$T/run.db" --json "$T/out" --junit "$T/out" >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "--json and --junit one path: exit $rc"
expect_contains "$T/e" "the same file as --json"
: >"$T/j" && ln "$T/j" "$T/k"
"$BIN" validate --db "$T/run.db" --json "$T/j" --junit "$T/k" >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "--json and --junit two links of one file: exit $rc"
# an output naming the run database itself is refused, the run intact
before=$(sum "$T/run.db")
for opt in --json --junit --pods-csv; do
    "$BIN" validate --db "$T/run.db" $opt "$T/./run.db" >/dev/null 2>"$T/e"; rc=$?
    [ $rc -eq 2 ] || fail "validate $opt naming the run: exit $rc"
    expect_contains "$T/e" "the run database itself"
done
"$BIN" calibrate --db "$T/run.db" --estimate-csv "$T/run.db" >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "calibrate --estimate-csv naming the run: exit $rc"
[ "$(sum "$T/run.db")" = "$before" ] || fail "an output overwrote the run"
"$BIN" validate --db "$T/run.db" --json "$T/o.json" --pods-csv "$T/o.json" >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "--pods-csv and --json one file: exit $rc"
mkdir -p "$T/sub"   # a file not there yet, spelt two ways; a dangling link to it
"$BIN" validate --db "$T/run.db" --json "$T/sub/../new.json" --junit "$T/new.json" >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "--json and --junit one new file spelt two ways: exit $rc"
ln -s new2.json "$T/dangling"
"$BIN" validate --db "$T/run.db" --json "$T/dangling" --junit "$T/new2.json" >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "--json a dangling link to --junit's new file: exit $rc"
"$BIN" validate --db "$T/run.db" --json /dev/null --junit /dev/null >/dev/null 2>"$T/e"; rc=$?
[ $rc -le 1 ] || [ $rc -eq 3 ] || { cat "$T/e"; fail "--json and --junit both /dev/null: exit $rc"; }
# a writer behind a reader that holds the finished run (a stopped validate:
# a read transaction that never ends) gives up after its 5 s wait, saying
# why, and writes nothing; it used to retry at every page-cache spill, for
# ever
python3 -c "import sqlite3, time, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('BEGIN'); c.execute('SELECT COUNT(*) FROM tick').fetchall()
time.sleep(30)" "$T/run.db" &
RD=$!
sleep 0.5
t0=$(date +%s)
timeout 60 "$BIN" attribute --db "$T/run.db" --model kepler-main >/dev/null 2>"$T/e"; rc=$?
t1=$(date +%s)
kill $RD 2>/dev/null; wait $RD 2>/dev/null
[ $rc -eq 2 ] || { cat "$T/e"; fail "attribute behind a held reader: exit $rc"; }
[ $((t1 - t0)) -le 20 ] || fail "attribute waited $((t1 - t0)) s behind a held reader"
expect_contains "$T/e" "held the file for 5 s"
[ "$(sum "$T/run.db")" = "$before" ] || fail "the refused attribute changed the run"
"$BIN" attribute --db "$T/run.db" --model kepler-main >/dev/null 2>"$T/e" ||
    { cat "$T/e"; fail "attribute once the reader is gone"; }
exit 0
