# --procfs-root/--sysfs-root: record reads the exporter's own fixture trees
# (Kepler's procfs and powercap testdata) instead of the host.
. tests/integration/lib/common.sh
F=${WATTCAL_FIXTURES:-../shared/fixtures}
P=$F/kepler/internal/resource/testdata/procfs
S=$F/kepler/internal/device/testdata/sys
[ -d "$P" ] && [ -d "$S" ] || skip "shared fixtures absent ($F)"
"$BIN" record --db "$T/run.db" --procfs-root "$P" --sysfs-root "$S" --interval 100ms --duration 300ms --quiet \
    2>"$T/err" || { cat "$T/err"; fail "record on fixture roots"; }
# zones: package-0 (MSR), core (subzone), package-10; the MMIO duplicate is dropped
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM zone WHERE name='package'")" = 2 ] || fail "package zones"
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM zone WHERE path LIKE '%mmio%'")" = 0 ] || fail "mmio duplicate kept"
[ "$(sql "$T/run.db" "SELECT MAX(value) FROM zone_sample")" = 240422366267 ] || fail "fixture energy_uj"
# the six fixture processes, with the docker container of pid 3456208
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM process")" = 6 ] || fail "fixture processes"
[ "$(sql "$T/run.db" "SELECT runtime FROM process WHERE pid=3456208")" = docker ] || fail "docker container"
exit 0
