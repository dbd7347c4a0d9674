# Old defects of the run-database commands, each refused with the right
# cause and exit code: --db naming a FIFO (refused at once, never a hang) or
# a directory; a database locked by another process (said as locked, not as
# "not a wattcal run"); attribute on a run with no tick (exit 3: nothing
# measurable) and attribute/calibrate on a file whose run row is gone (exit
# 2); report --db '' names --db; an overflowing --sim-seed and an unreadable
# --truth-password-file (also with ipmi:local, which uses none) refused.
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 absent"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 absent"
LP=
trap '[ -n "$LP" ] && { kill "$LP" 2>/dev/null; wait "$LP" 2>/dev/null; }; rm -rf "$T"' EXIT
"$BIN" record --db "$T/run.db" --meter sim --interval 250ms --duration 1s --quiet 2>"$T/e" ||
    { cat "$T/e"; fail "record"; }

# a FIFO and a directory: refused up front, naming the file and what it is
mkfifo "$T/fifo"
mkdir "$T/dir"
try() { # expected-text command...: exit 2 within 10 s, text in stderr
    want=$1
    shift
    rc=0
    timeout 10 "$@" >"$T/o" 2>"$T/e" || rc=$?
    [ $rc -eq 2 ] || { cat "$T/e"; fail "$*: exit $rc, expected 2"; }
    expect_contains "$T/e" "$want"
}
for f in fifo dir; do
    want="$T/fifo: not a regular file (a FIFO)"
    [ $f = dir ] && want="$T/dir: is a directory"
    try "$want" "$BIN" validate --db "$T/$f"
    try "$want" "$BIN" diff "$T/$f" "$T/run.db"
    try "$want" "$BIN" report --db "$T/$f" --out "$T/out"
    try "$want" "$BIN" calibrate --db "$T/$f"
    grep -q "needs write access" "$T/e" && fail "calibrate blamed write access for a $f"
    try "$want" "$BIN" attribute --db "$T/$f" --model ideal
done

# locked by another process (BEGIN EXCLUSIVE held): said as locked
python3 - "$T/run.db" >"$T/lock.out" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
print("LOCKED", flush=True)
time.sleep(30)
PY
LP=$!
i=0
while ! grep -q LOCKED "$T/lock.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -le 100 ] || fail "the locking process did not start"
    sleep 0.1
done
try "locked by another process" "$BIN" validate --db "$T/run.db"
grep -q "not a wattcal run" "$T/e" && fail "a locked run read as not a wattcal run"
kill "$LP"; wait "$LP" 2>/dev/null; LP=

# no tick: attribute exits 3; no run row: attribute and calibrate exit 2
cp "$T/run.db" "$T/noticks.db"
sql "$T/noticks.db" "PRAGMA foreign_keys=OFF; DELETE FROM tick;"
rc=0
"$BIN" attribute --db "$T/noticks.db" --model ideal >"$T/o" 2>"$T/e" || rc=$?
[ $rc -eq 3 ] || { cat "$T/o" "$T/e"; fail "attribute on 0 ticks: exit $rc, expected 3"; }
expect_contains "$T/e" "nothing measurable"
cp "$T/run.db" "$T/norun.db"
sql "$T/norun.db" "PRAGMA foreign_keys=OFF; DELETE FROM run;"
try "no run row" "$BIN" attribute --db "$T/norun.db" --model ideal
try "no run row" "$BIN" calibrate --db "$T/norun.db"

# the option checks
try "--db: FILE is required (an empty name was given)" "$BIN" report --db '' --out "$T/out"
try "--sim-seed" "$BIN" record --db "$T/seed.db" --meter sim --duration 1s \
    --sim-seed 99999999999999999999999
[ ! -e "$T/seed.db" ] || fail "a run file was made for a bad seed"
try "--truth-password-file /nonexistent" "$BIN" record --db "$T/pw.db" --meter sim \
    --duration 1s --truth ipmi:local --truth-password-file /nonexistent
[ ! -e "$T/pw.db" ] || fail "a run file was made for an unreadable password file"

# readings too large to average (a hand-edited file: 1e308 W twice sums to
# inf): the delivery line says so, never "mean of ok samples inf W"
"$BIN" record --db "$T/big.db" --meter sim --interval 250ms --duration 1s --quiet \
    --truth sim:lag=0,window=0.25,period=0.25 --truth-interval 250ms 2>"$T/e" || { cat "$T/e"; fail "record big"; }
sql "$T/big.db" "UPDATE truth_sample SET watts = 1e308 WHERE status = 'ok'"
"$BIN" validate --db "$T/big.db" >"$T/vbig" 2>&1
[ $? -le 3 ] || { cat "$T/vbig"; fail "validate of huge readings"; }
! grep -q "inf W" "$T/vbig" || { grep "inf W" "$T/vbig"; fail "an infinite mean printed"; }
expect_contains "$T/vbig" "mean of ok samples out of range (readings too large to average)"

# a run from a newer wattcal (schema version above this one's) says so
cp "$T/run.db" "$T/newer.db" && sql "$T/newer.db" "PRAGMA user_version = 99"
"$BIN" validate --db "$T/newer.db" >/dev/null 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "a newer run: exit $rc"
expect_contains "$T/e" "a run of schema version 99, written by a newer wattcal"
echo "db_edges: FIFO, directory, locked, 0 ticks, no run row, --db '', seed, password file, huge readings, newer schema"
