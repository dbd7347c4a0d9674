# Issue 14 ("Field reports: wrong numbers on real hardware layouts") through
# the CLI, on the project's own fixtures:
#   item 1  record and probe on per-die package zones (tests/fixtures/sysfs/rapl-dies):
#           mirrored copies counted once (1 socket), distinct dies summed per socket;
#   item 2  record --ceiling-watts is stored with the run;
#   item 3  record warns at start when an interval at the ceiling can use a zone's whole range;
#   item 4  probe on the ACPI power_meter layout (hwmonN/device/, tests/fixtures/probe):
#           a 312 W sensor is measured power (exit 0), its error marker is not (exit 1);
#   item 9  import --csv --time-clock monotonic (tests/fixtures/import/perf-interval.csv).
. tests/integration/lib/common.sh
P=tests/fixtures/procfs/node

# item 1: mirrored die zones are one package on one socket, in the run
"$BIN" record --db "$T/dies.db" --procfs-root "$P" --sysfs-root tests/fixtures/sysfs/rapl-dies/mirrored \
    --interval 100ms --duration 300ms --quiet 2>"$T/err" || { cat "$T/err"; fail "record on mirrored dies"; }
[ "$(sql "$T/dies.db" "SELECT sockets FROM run")" = 1 ] || fail "mirrored dies: sockets"
[ "$(sql "$T/dies.db" "SELECT COUNT(*) FROM zone")" = 1 ] || fail "mirrored dies: one zone"
[ "$(sql "$T/dies.db" "SELECT die_count || ' ' || die_mirrored FROM zone")" = "2 1" ] || fail "die columns"
sql "$T/dies.db" "SELECT meter_description FROM run" >"$T/desc"
expect_contains "$T/desc" "package-0: 2 die zones mirror one counter, counted once"
"$BIN" record --db "$T/distinct.db" --procfs-root "$P" --sysfs-root tests/fixtures/sysfs/rapl-dies/distinct \
    --interval 100ms --duration 300ms --quiet 2>"$T/err" || { cat "$T/err"; fail "record on distinct dies"; }
[ "$(sql "$T/distinct.db" "SELECT sockets FROM run")" = 2 ] || fail "distinct dies: sockets"
[ "$(sql "$T/distinct.db" "SELECT COUNT(*) FROM zone WHERE die_count = 2 AND die_mirrored = 0")" = 4 ] ||
    fail "distinct dies: four zones"
"$BIN" probe --procfs-root "$P" --sysfs-root tests/fixtures/sysfs/rapl-dies/mirrored >"$T/probe" ||
    fail "probe on mirrored dies exited $?"
expect_contains "$T/probe" "note: socket 0: 2 package die zones mirror one counter (same value read after read): counted once"
expect_contains "$T/probe" "AVAILABLE (rapl: 1 zone on 1 socket)"

# item 2: the ceiling is stored; item 3: the start-up warning (1 kJ range, 20 kJ per 100 ms)
"$BIN" record --db "$T/ceil.db" --meter sim --interval 100ms --duration 1s --ceiling-watts 300 --quiet \
    2>"$T/err" || { cat "$T/err"; fail "record --ceiling-watts 300"; }
[ "$(sql "$T/ceil.db" "SELECT ceiling_watts FROM run")" = 300.0 ] || fail "ceiling not stored"
"$BIN" validate --db "$T/ceil.db" >"$T/val" 2>&1 || [ $? -le 1 ] || { cat "$T/val"; fail "validate"; }
expect_contains "$T/val" "counter ceiling: 300 W per zone (stored with the run)"
"$BIN" record --db "$T/wide.db" --meter sim --interval 100ms --duration 300ms --ceiling-watts 200000 --quiet \
    2>"$T/err" || { cat "$T/err"; fail "record --ceiling-watts 200000"; }
expect_contains "$T/err" "at the 200000 W ceiling can use 5 zone(s)' whole counter range"

# item 4: the ACPI power_meter layout
A=tests/fixtures/probe/acpi-power-meter
"$BIN" probe --procfs-root "$A/proc" --sysfs-root "$A/sys" >"$T/acpi"; rc=$?
[ $rc = 0 ] || { cat "$T/acpi"; fail "probe on a valid ACPI power meter exited $rc"; }
expect_contains "$T/acpi" "312.000 W  device/power1_average"
expect_contains "$T/acpi" "measured node power   AVAILABLE (hwmon: 1 sensor)"
E=tests/fixtures/probe/acpi-error-marker
"$BIN" probe --procfs-root "$E/proc" --sysfs-root "$E/sys" >"$T/marker"; rc=$?
[ $rc = 1 ] || { cat "$T/marker"; fail "probe on an error marker exited $rc, not 1"; }
expect_contains "$T/marker" "measured node power   UNAVAILABLE (reason: no powercap zones, no hwmon sensor with a reading"

# item 9: a monotonic time column
F=tests/fixtures/import/perf-interval.csv
"$BIN" import --db "$T/wall.db" --csv "$F" --time-col time --energy-col energy_pkg_j:package:j >"$T/out" 2>&1 &&
    fail "a monotonic column imported as a wall clock"
expect_contains "$T/out" "is before 2000-01-01"
"$BIN" import --db "$T/mono.db" --csv "$F" --time-col time --energy-col energy_pkg_j:package:j \
    --time-clock monotonic >"$T/out" 2>&1 || { cat "$T/out"; fail "import --time-clock monotonic"; }
expect_contains "$T/out" "5 ticks (monotonic 1.001 s .. 5.006 s"
exit 0
