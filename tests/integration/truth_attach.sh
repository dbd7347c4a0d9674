# A bad wall-meter log (--truth file:PATH) is refused before recording starts,
# naming FILE:LINE:COLUMN (no DB is created); a log still being written passes.
# A fixed log is attached to an existing run later with
# `wattcal import --truth-into RUN --truth file:PATH`, writing only the new
# source and its samples: every other table's content is unchanged (checksums),
# and a second attach of the same spec is refused unless --replace-truth.
. tests/integration/lib/common.sh
F=tests/fixtures/wallmeter
refused() { # fixture, expected text
    rm -f "$T/bad.db"
    "$BIN" record --db "$T/bad.db" --meter sim --interval 250ms --duration 30s --quiet \
        --truth "file:$F/$1" 2>"$T/e"; rc=$?
    [ $rc -eq 2 ] || { cat "$T/e"; fail "$1: exit $rc, expected 2"; }
    expect_contains "$T/e" "$2"
    [ ! -e "$T/bad.db" ] || fail "$1: a DB was created before the log was checked"
}
refused unit-kw-header.csv "$F/unit-kw-header.csv:1:2: column 'power_kw' holds power in kW"
refused bad-third-line.csv "$F/bad-third-line.csv:3:2: "
refused kw-values.csv "$F/kw-values.csv: every reading of the first 3 is below 1 W"
grep -q "checked before recording" "$T/e" || { cat "$T/e"; fail "the message does not say when it was checked"; }
cp "$F/still-writing.csv" "$T/live.csv"   # its cut last line is the meter still writing
"$BIN" record --db "$T/live.db" --meter sim --interval 250ms --duration 1s --quiet \
    --truth "file:$T/live.csv" 2>"$T/e"; rc=$?
grep -q "checked before recording" "$T/e" && { cat "$T/e"; fail "a live log was refused at start"; }
[ "$(sql "$T/live.db" 'SELECT clean_stop FROM run')" = 1 ] || fail "the run with a live log is not complete"

# a run whose log is broken at the end (replaced during the run): record keeps the run, says so
printf 'time,watts\n' >"$T/wall.csv"
"$BIN" record --db "$T/run.db" --meter sim --interval 250ms --duration 2s --quiet \
    --truth "file:$T/wall.csv" 2>"$T/e" &
pid=$!
sleep 0.5
printf 'time,watts\nnot-a-time,1\n' >"$T/wall.csv"
wait $pid; rc=$?
[ "$(sql "$T/run.db" 'SELECT clean_stop FROM run')" = 1 ] || { cat "$T/e"; fail "run not complete"; }
[ $rc -ne 0 ] || { cat "$T/e"; fail "a log that could not be imported: exit 0"; }
expect_contains "$T/e" "was not imported"

# the fixed log, in place: one reading per 250 ms over the run, by the run's own wall clock
python3 - "$T/run.db" "$T/wall.csv" <<'PY' || fail "writing the fixed log"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
a, b = db.execute("SELECT started_wall_ns, ended_wall_ns FROM run").fetchone()
with open(sys.argv[2], "w") as f:
    f.write("time,watts\n")
    t = a
    while t <= b:
        f.write("%.3f,%.1f\n" % (t / 1e9, 200.0 + (t - a) / 1e9))
        t += 250_000_000
PY
n=$(($(wc -l <"$T/wall.csv") - 1))
sums() { # checksum of every table but the truth tables, one line per table
    for t in $(sql "$1" "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'truth%' ORDER BY name"); do
        printf '%s %s\n' "$t" "$(sqlite3 "$1" "SELECT * FROM $t ORDER BY rowid" | md5sum)"
    done
}
sums "$T/run.db" >"$T/before"
[ "$(wc -l <"$T/before")" -ge 8 ] || fail "too few tables to compare"
"$BIN" import --truth-into "$T/run.db" --truth "file:$T/wall.csv" >"$T/o" 2>&1 || { cat "$T/o"; fail "attach"; }
expect_contains "$T/o" "ground truth file:$T/wall.csv attached: $n samples (0 unavailable), replacing the source of the same spec"
sums "$T/run.db" >"$T/after"
cmp -s "$T/before" "$T/after" || { diff "$T/before" "$T/after"; fail "attaching changed a recorded table"; }
# the "NOT imported" row record left was replaced (it held no sample): one source of that spec
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM truth_sample s JOIN truth_source t ON t.id = s.source_id
                       WHERE t.spec = 'file:$T/wall.csv' AND s.status = 'ok'")" = $n ] || fail "samples"
d=$(sql "$T/run.db" "SELECT MAX(ABS((t.poll_mono_ns - r.started_mono_ns) - (t.poll_wall_ns - r.started_wall_ns)))
                      FROM truth_sample t, run r")
[ "$d" = 0 ] || fail "attached samples off the run's clock by $d ns"
"$BIN" import --truth-into "$T/run.db" --truth "file:$T/wall.csv" >"$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "a second attach of the same spec: exit $rc"
expect_contains "$T/o" "--replace-truth"
"$BIN" import --truth-into "$T/run.db" --truth "file:$T/wall.csv" --replace-truth >"$T/o" 2>&1 ||
    { cat "$T/o"; fail "--replace-truth"; }
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM truth_source WHERE spec = 'file:$T/wall.csv'")" = 1 ] || fail "two sources"
sums "$T/run.db" >"$T/after2"
cmp -s "$T/before" "$T/after2" || fail "replacing changed a recorded table"
"$BIN" validate --db "$T/run.db" >"$T/v" 2>&1 || { cat "$T/v"; fail "validate after attach"; }
expect_contains "$T/v" "wall.csv"
# a log of another time is refused, naming it
printf 'time,watts\n2001-01-01T00:00:00Z,200\n2001-01-01T00:00:01Z,201\n' >"$T/old.csv"
"$BIN" import --truth-into "$T/run.db" --truth "file:$T/old.csv" >"$T/o" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "a log outside the run: exit $rc"
expect_contains "$T/o" "do not overlap the run"
exit 0
