# Zone names longer than 31 bytes in a run's file (issue 16: validator/levels.c
# read a NULL per-zone array when node_attr held a zone name of 32 bytes or
# more — a run altered or written by another tool; import caps its own at 31).
# A 40-byte name (within the 63 a wattcal zone name may have) validates to the
# same figures as the run it was renamed from; a 70-byte one is refused with
# a reason naming the field, never read cut.
. tests/integration/lib/common.sh
"$BIN" record --db "$T/run.db" --meter sim --interval 50ms --duration 1s --sim-seed 7 --quiet ||
    fail "record"
rename() { # db, new name of the package zone
    cp "$T/run.db" "$1"
    sql "$1" "UPDATE zone SET name='$2' WHERE name='package';
              UPDATE node_attr SET zone='$2' WHERE zone='package';
              UPDATE work_attr SET zone='$2' WHERE zone='package';" || fail "rename to $2"
}
long=package_zone_name_of_forty_bytes_xxxxxxx
[ ${#long} -eq 40 ] || fail "the name is ${#long} bytes"
rename "$T/long.db" "$long"
"$BIN" validate --db "$T/run.db" >"$T/short.txt" 2>&1
src=$?
"$BIN" validate --db "$T/long.db" >"$T/long.txt" 2>"$T/long.err"
rc=$?
[ $rc -eq $src ] || { cat "$T/long.err"; fail "40-byte zone: validate exit $rc, the original $src"; }
n=$(grep -c "^$long " "$T/long.txt")
[ "$n" -ge 4 ] || { cat "$T/long.txt"; fail "40-byte zone in $n rows of the report"; }
sed "s/^$long /package /" "$T/long.txt" | tr -s ' ' >"$T/long.norm"
tr -s ' ' <"$T/short.txt" >"$T/short.norm"
grep '^package ' "$T/short.norm" >"$T/a"
grep '^package ' "$T/long.norm" >"$T/b"
cmp -s "$T/a" "$T/b" || { diff "$T/a" "$T/b"; fail "40-byte zone: other figures than the original"; }
too_long=$(printf 'z%.0s' $(seq 70))
rename "$T/vlong.db" "$too_long"
"$BIN" validate --db "$T/vlong.db" >"$T/v.txt" 2>"$T/v.err"
rc=$?
[ $rc -eq 2 ] || { cat "$T/v.err"; fail "70-byte zone: validate exit $rc"; }
expect_contains "$T/v.err" "zone name 'zzzzzzzzzz"
expect_contains "$T/v.err" "is 70 bytes long, longer than the 63 a wattcal zone name has"
exit 0
