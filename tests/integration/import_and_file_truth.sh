# `wattcal import` and `record --truth file:` through the CLI: a run recorded
# elsewhere becomes a run DB that validate reads; a wall-meter log and a SPEC
# PTDaemon log are imported after a recording, aligned by wall clock; bad
# input names FILE:LINE and writes nothing.
. tests/integration/lib/common.sh
F=tests/fixtures/import
"$BIN" import --db "$T/csv.db" --csv "$F/run.csv" --time-col timestamp --time-unit iso \
    --counter-col pkg_uj:package:uj --truth-col wall_w:w --util-col util --phase-col phase \
    --host-col host >"$T/o" 2>&1 || { cat "$T/o"; fail "import csv"; }
[ "$(sql "$T/csv.db" 'SELECT meter_kind FROM run')" = import ] || fail "meter_kind"
[ "$(sql "$T/csv.db" 'SELECT host FROM run')" = node-a ] || fail "host"
[ "$(sql "$T/csv.db" "SELECT COUNT(*) FROM zone WHERE name='package'")" = 1 ] || fail "zone"
[ "$(sql "$T/csv.db" "SELECT COUNT(*) FROM phase")" -ge 1 ] || fail "phases"
[ "$(sql "$T/csv.db" "SELECT COUNT(*) FROM truth_sample WHERE status='ok'")" -ge 1 ] || fail "truth"
"$BIN" validate --db "$T/csv.db" >"$T/v" 2>&1 || { cat "$T/v"; fail "validate an imported run"; }
expect_contains "$T/v" "model ideal"
expect_contains "$T/v" "Ground truth recorded"

# a malformed line: named, and no DB left behind
printf 'timestamp,pkg_uj\n2026-11-29T16:00:00Z,100\n2026-11-29T16:00:01Z,abc\n' >"$T/bad.csv"
"$BIN" import --db "$T/bad.db" --csv "$T/bad.csv" --time-col timestamp --time-unit iso \
    --counter-col pkg_uj:package:uj 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "malformed CSV: exit $rc"
expect_contains "$T/e" "bad.csv:3"
[ ! -e "$T/bad.db" ] || fail "a DB was left behind"

# Green Metrics Tool folders: the own one always, the shared one when present
for G in "$F/gmt-laptop" "${WATTCAL_FIXTURES:-../shared/fixtures}/corpus/datasets/gmt-framework-laptop-2025-10"; do
    [ -d "$G" ] || continue
    rm -f "$T/gmt.db"
    "$BIN" import --db "$T/gmt.db" --gmt "$G" >"$T/o" 2>&1 || { cat "$T/o"; fail "import gmt $G"; }
    [ "$(sql "$T/gmt.db" "SELECT COUNT(*) FROM phase")" -ge 2 ] || fail "gmt phases $G"
    "$BIN" validate --db "$T/gmt.db" >"$T/v" 2>&1 || { cat "$T/v"; fail "validate gmt $G"; }
done

# wall-meter logs after a recording: csv and PTDaemon
"$BIN" record --db "$T/run.db" --meter sim --duration 1s --interval 250ms --quiet \
    --truth "file:$F/wallmeter.csv" 2>"$T/e" || { cat "$T/e"; fail "record with a csv log"; }
[ "$(sql "$T/run.db" "SELECT kind FROM truth_source")" = file ] || fail "file source"
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM truth_sample WHERE status='ok' AND watts=245.3")" -ge 1 ] ||
    fail "245.3 W sample"
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM truth_sample WHERE watts=0")" = 0 ] || fail "0 W stored as a reading"
# poll_mono_ns follows the wall clock through the run's start
d=$(sql "$T/run.db" "SELECT (t.poll_mono_ns - r.started_mono_ns) - (t.poll_wall_ns - r.started_wall_ns)
                      FROM truth_sample t, run r LIMIT 1")
[ "$d" = 0 ] || fail "wall-clock alignment off by $d ns"
"$BIN" record --db "$T/ptd.db" --meter sim --duration 1s --interval 250ms --quiet \
    --truth "file:$F/ptd.log" --truth-format ptd 2>"$T/e"; rc=$?
[ $rc -eq 2 ] || fail "ptd without an offset must be refused, exit $rc"
"$BIN" record --db "$T/ptd2.db" --meter sim --duration 1s --interval 250ms --quiet \
    --truth "file:$F/ptd.log" --truth-format ptd:+01:00 2>"$T/e" || { cat "$T/e"; fail "record with a ptd log"; }
[ "$(sql "$T/ptd2.db" "SELECT COUNT(*) FROM truth_sample WHERE status='ok' AND watts=245.3")" = 1 ] || fail "ptd 245.3 W"
[ "$(sql "$T/ptd2.db" "SELECT COUNT(*) FROM truth_sample WHERE status='unavailable' AND watts IS NULL")" -ge 1 ] ||
    fail "ptd -1 should be unavailable"
exit 0
