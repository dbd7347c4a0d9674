# --procfs-root/--sysfs-root on the project's own trees (stands for
# fixture_roots.sh, which reads Kepler's testdata from the shared fixtures):
# record reads tests/fixtures/procfs/node and tests/fixtures/sysfs/node
# instead of the host.
. tests/integration/lib/common.sh
P=tests/fixtures/procfs/node
S=tests/fixtures/sysfs/node
"$BIN" record --db "$T/run.db" --procfs-root "$P" --sysfs-root "$S" --interval 100ms --duration 300ms --quiet \
    2>"$T/err" || { cat "$T/err"; fail "record on fixture roots"; }
# zones: package-0 (MSR), its core subzone, package-3; the MMIO duplicate is dropped
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM zone WHERE name='package'")" = 2 ] || fail "package zones"
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM zone WHERE path LIKE '%mmio%'")" = 0 ] || fail "mmio duplicate kept"
[ "$(sql "$T/run.db" "SELECT socket FROM zone WHERE raw_name='package-3'")" = 3 ] || fail "socket from the name"
[ "$(sql "$T/run.db" "SELECT MAX(value) FROM zone_sample")" = 123456789012 ] || fail "fixture energy_uj"
# the six fixture processes, with the docker container of pid 2101 and the podman pair
[ "$(sql "$T/run.db" "SELECT COUNT(*) FROM process")" = 6 ] || fail "fixture processes"
[ "$(sql "$T/run.db" "SELECT runtime FROM process WHERE pid=2101")" = docker ] || fail "docker container"
[ "$(sql "$T/run.db" "SELECT runtime FROM process WHERE pid=3302")" = podman ] || fail "podman container"
exit 0
