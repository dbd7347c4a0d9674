# No silent fallback: without a hardware meter and without --meter sim,
# record exits 2 and says what it looked for and how to proceed.
. tests/integration/lib/common.sh
mkdir -p "$T/sys/class"
"$BIN" record --db "$T/run.db" --sysfs-root "$T/sys" --duration 1s --quiet 2>"$T/err"
rc=$?
[ $rc -eq 2 ] || fail "expected exit 2, got $rc"
expect_contains "$T/err" "$T/sys/class/powercap"
expect_contains "$T/err" "--meter sim"
[ "$(grep -o 'no hardware power meter' "$T/err" | wc -l)" -eq 1 ] || { cat "$T/err"; fail "message repeated or garbled"; }
[ ! -s "$T/run.db" ] || [ "$(sql "$T/run.db" 'SELECT COUNT(*) FROM tick' 2>/dev/null || echo 0)" = 0 ] \
    || fail "ticks recorded without a meter"
exit 0
