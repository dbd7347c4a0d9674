# The run file on hostile media: a full disk ends record with a clear error
# and keeps every committed tick readable; a finished run is validated from
# read-only media. Needs tmpfs mounts (root); skipped where mounting is denied.
. tests/integration/lib/common.sh
mkdir -p "$T/full" "$T/ro"
mount -t tmpfs -o size=400k tmpfs "$T/full" 2>/dev/null || skip "cannot mount tmpfs here"
trap 'umount "$T/full" 2>/dev/null; umount "$T/ro" 2>/dev/null; rm -rf "$T"' EXIT
"$BIN" record --db "$T/full/run.db" --meter sim --interval 50ms --duration 120s --quiet 2>"$T/err"
rc=$?
[ $rc -eq 2 ] || { cat "$T/err"; fail "record on a full disk should exit 2, got $rc"; }
grep -qi "full" "$T/err" || { cat "$T/err"; fail "error does not say the disk is full"; }
expect_contains "$T/err" "$T/full/run.db"
[ "$(sql "$T/full/run.db" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check after disk full"
n=$(sql "$T/full/run.db" 'SELECT COUNT(*) FROM tick'); [ "$n" -ge 2 ] || fail "committed ticks lost ($n)"
cp "$T/full/run.db"* "$T/" && "$BIN" validate --db "$T/run.db" >"$T/v" || { cat "$T/v"; fail "validate of a disk-full run"; }
expect_contains "$T/v" "did not end cleanly"

mount -t tmpfs -o size=8m tmpfs "$T/ro" || fail "second tmpfs"
"$BIN" record --db "$T/ro/run.db" --meter sim --interval 200ms --duration 1s --quiet || fail "record"
mount -o remount,ro "$T/ro" || skip "cannot remount read-only"
"$BIN" validate --db "$T/ro/run.db" >"$T/v2" 2>&1 || { cat "$T/v2"; fail "validate on read-only media"; }
expect_contains "$T/v2" "package"
"$BIN" validate --db "$T/ro/run.db" --model ideal >"$T/v3" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "another model on read-only media should exit 2, got $rc"
expect_contains "$T/v3" "write access"
exit 0
