# Issue 15's compact workload rows (collector/store/store_work_energy.c,
# schema 6): one recorded run re-attributed under every model in the new
# layout and in an old-format copy (its work_attr a real table, as every run
# of schema 5 and older) gives the same work_attr rows, exactly (the view
# against the table, every column, power derived or stored), the same
# validate --json, diff and report; attr_zone holds the zones, work_key the
# interned keys, and the old copy is still written row by row. The run
# has at least 64 ticks, so validate reads the new layout's two halves of
# ticks on two connections (validator/levels.c) and the stacked figure takes
# its pod windows from that pass, while the old copy is read in one scan and
# its figure from the rows: both must give the same bytes.
. tests/integration/lib/common.sh
FN=
trap 'for p in $FN; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
# fake_node.py: three pods (the last one exits: terminated workloads), two VMs,
# a reused pid
python3 tests/tools/fake_node.py --root "$T/proc" --pods 3 --vms --end-pod-at 2 \
    --reuse-pid-at 2.5 --max-seconds 60 >"$T/node.out" 2>&1 &
FN=$!
i=0
while ! grep -q READY "$T/node.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -le 100 ] || fail "fake_node.py never said READY"
    sleep 0.1
done
"$BIN" record --db "$T/new.db" --meter sim --procfs-root "$T/proc" --interval 100ms \
    --duration 8s --quiet 2>"$T/err" &
RP=$!
FN="$FN $RP"
# validate while the recording still writes the file (WAL): one read
# transaction for the whole validation, so the gap's node energy and the
# levels' come from one moment of the file (the attack run saw them differ
# in 11 of 40 such runs)
sleep 2
n=0
while kill -0 "$RP" 2>/dev/null && [ $n -lt 25 ]; do
    n=$((n + 1))
    "$BIN" validate --db "$T/new.db" --json "$T/live.$n.json" >/dev/null 2>&1
    sleep 0.1
done
wait "$RP" || { cat "$T/err"; fail "record exited $?"; }
kill "$FN" 2>/dev/null; wait 2>/dev/null; FN=
python3 - "$T" <<'PY' || fail "a validation of the live file mixed two moments of it"
import glob, json, sys
n = 0
for f in glob.glob(sys.argv[1] + "/live.*.json"):
    j = json.load(open(f))
    n += 1
    for z, lz in zip(j["zones"], j["levels"]["zones"]):
        if z["node_joules"] != lz["node_joules"]:
            sys.exit("%s: gap node %r J, levels node %r J" % (f, z["node_joules"], lz["node_joules"]))
if n < 3:
    sys.exit("only %d validations of the live file" % n)
print("ok: %d validations of the live file, each from one moment of it" % n)
PY
[ "$(sql "$T/new.db" 'SELECT COUNT(*) FROM tick')" -ge 64 ] ||
    fail "fewer than 64 ticks: the two-connection levels pass is not exercised"
[ "$(sql "$T/new.db" 'PRAGMA user_version')" = 6 ] || fail "user_version"
[ "$(sql "$T/new.db" "SELECT type FROM sqlite_master WHERE name = 'work_attr'")" = view ] ||
    fail "work_attr of a new run is not the view"
[ "$(sql "$T/new.db" 'SELECT COUNT(*) FROM attr_zone')" -ge 1 ] || fail "no attr_zone rows"
# the old-format copy: the compact tables gone, an empty work_attr table
cp "$T/new.db" "$T/old.db"
sql "$T/old.db" "DROP VIEW work_attr; DROP TABLE work_energy; DROP TABLE attr_zone;
    DROP TABLE work_key; CREATE TABLE work_attr(model_id INTEGER, tick_id INTEGER,
    level INTEGER, process_id INTEGER, key TEXT, zone TEXT, cpu_delta_s REAL,
    energy_uj INTEGER, total_uj INTEGER, power_uw REAL, flags INTEGER);" || fail "old copy"
# every exited workload kept as terminated (no 10 J threshold): terminated rows
# whatever the machine's load did to the pods' energy
printf 'monitor:\n  minTerminatedEnergyThreshold: 0\n' >"$T/kepler.yaml"
for db in new old; do
    "$BIN" attribute --db "$T/$db.db" --model kepler-0.11 --model kepler-main --model ideal \
        --model kepler-0.10 --kepler-config "$T/kepler.yaml" >"$T/$db.attr" 2>&1 ||
        { cat "$T/$db.attr"; fail "attribute $db"; }
done
[ "$(sql "$T/old.db" "SELECT type FROM sqlite_master WHERE name = 'work_attr'")" = table ] ||
    fail "the old copy lost its table"
rows() { # every row, every column, REALs printed exactly
    sql "$1" "SELECT model_id, tick_id, level, quote(process_id), quote(key), zone,
        quote(cpu_delta_s), quote(energy_uj), quote(total_uj), quote(power_uw), quote(flags)
        FROM work_attr ORDER BY model_id, tick_id, level, process_id, key, zone, flags" >"$2"
}
rows "$T/new.db" "$T/new.rows"
rows "$T/old.db" "$T/old.rows"
n=$(wc -l <"$T/old.rows")
[ "$n" -ge 1000 ] || fail "only $n work_attr rows"
cmp -s "$T/new.rows" "$T/old.rows" || { diff "$T/old.rows" "$T/new.rows" | head; fail "rows differ"; }
derived=$(sql "$T/new.db" "SELECT COUNT(*) FROM work_energy WHERE p0 IS NULL AND f0 IS NOT NULL")
[ "$derived" -ge 1 ] || fail "no power derived from node_attr"
[ "$(sql "$T/new.db" 'SELECT COUNT(*) FROM work_key WHERE level = 3')" -ge 3 ] ||
    fail "pod uids not interned"
[ "$(sql "$T/new.db" 'SELECT COUNT(*) FROM work_key WHERE level = 4')" = 2 ] || fail "VM ids"
nterm=$(sql "$T/new.db" 'SELECT COUNT(*) FROM work_energy WHERE term = 1')
[ "$nterm" -ge 1 ] || fail "no terminated workload row"
for m in kepler-0.11 ideal; do
    for db in new old; do
        "$BIN" validate --db "$T/$db.db" --model $m --json "$T/$db.json" >"$T/$db.txt" 2>&1
        echo "exit $?" >>"$T/$db.txt"
        cat "$T/$db.txt" >>"$T/$db.json"
        sed -i "s|$T/$db.db|RUN|g" "$T/$db.json"
    done
    grep -q '"idle_joules"' "$T/new.json" || { tail -3 "$T/new.json"; fail "validate $m wrote no JSON"; }
    cmp -s "$T/new.json" "$T/old.json" || { diff "$T/old.json" "$T/new.json" | head; fail "validate $m"; }
done
for db in new old; do
    "$BIN" diff "$T/$db.db" --model ideal --model kepler-0.11 >"$T/$db.diff" 2>&1
    echo "exit $?" >>"$T/$db.diff"
    sed -i "s|$T/$db.db|RUN|g" "$T/$db.diff"
done
cmp -s "$T/new.diff" "$T/old.diff" || { diff "$T/old.diff" "$T/new.diff" | head; fail "diff"; }
for db in new old; do
    "$BIN" report --db "$T/$db.db" --out "$T/$db.rep" >"$T/$db.rout" 2>&1 ||
        { cat "$T/$db.rout"; fail "report $db"; }
    sed -i "s|$T/[a-z]*\.db|RUN|g" "$T/$db.rep/report.md"
done
[ -s "$T/new.rep/stacked.dat" ] || fail "no stacked figure data"
for f in report.md stacked.dat gap.dat power.dat; do
    cmp -s "$T/new.rep/$f" "$T/old.rep/$f" ||
        { diff "$T/old.rep/$f" "$T/new.rep/$f" | head; fail "report $f"; }
done
# Kepler's idle underflow stored as ~2^64 µJ in ticks of both halves: sums
# beyond 2^53 depend on their order, so the two-half read must add the ticks
# in the order one scan does (the attack run's first such file differed in
# idle_J's last digits)
for db in new old; do
    sql "$T/$db.db" "UPDATE node_attr SET idle_uj = 1.8446744073709e19 + tick_id * 1000003.0
        WHERE model_id = 1 AND tick_id % 12 = 5" || fail "underflow $db"
    "$BIN" validate --db "$T/$db.db" --model kepler-0.11 --json "$T/$db.uf" >"$T/$db.uft" 2>&1
    echo "exit $?" >>"$T/$db.uft"
    cat "$T/$db.uft" >>"$T/$db.uf"
    sed -i "s|$T/$db.db|RUN|g" "$T/$db.uf"
done
grep -Eq '"idle_joules":[[:space:]]+([0-9]{14,}|[0-9.]+e\+(1[4-9]|[2-9][0-9]))' "$T/new.uf" ||
    { head -5 "$T/new.uf"; fail "no underflowed idle energy to compare"; }
cmp -s "$T/new.uf" "$T/old.uf" || { diff "$T/old.uf" "$T/new.uf" | head; fail "underflowed idle sums"; }

# a hand-edited file whose slots and columns disagree is refused, naming the
# file, never read with energy under another zone (the attack run's gap in
# attr_zone showed dram's joules as psys); a rename onto a taken name is refused
refused() { # label, SQL
    cp "$T/new.db" "$T/bad.db"
    sql "$T/bad.db" "$2" || fail "$1: the edit itself"
    "$BIN" validate --db "$T/bad.db" >"$T/bad.out" 2>&1; rc=$?
    [ $rc -eq 2 ] || { cat "$T/bad.out"; fail "$1: validate exit $rc, expected 2"; }
    grep -q "bad.db: attr_zone / work_energy inconsistent" "$T/bad.out" || { cat "$T/bad.out"; fail "$1: message"; }
}
refused "a slot deleted" "DELETE FROM attr_zone WHERE slot = 1"
refused "every slot deleted" "DELETE FROM attr_zone"
refused "the last slot deleted" "DELETE FROM attr_zone WHERE slot = (SELECT MAX(slot) FROM attr_zone)"
refused "a name twice" "UPDATE attr_zone SET name = (SELECT name FROM attr_zone WHERE slot = 0) WHERE slot = 1"
cp "$T/new.db" "$T/bad.db"
sql "$T/bad.db" "DELETE FROM work_key WHERE level = 3"
"$BIN" validate --db "$T/bad.db" >"$T/bad.out" 2>&1; rc=$?
[ $rc -eq 2 ] || { grep -i "pod" "$T/bad.out" | head -3; fail "pod keys deleted: validate exit $rc, expected 2"; }
grep -q "bad.db: a workload row of tick [0-9]* names key [0-9]*, which work_key lacks" "$T/bad.out" ||
    { cat "$T/bad.out"; fail "missing work_key message"; }
"$BIN" diff "$T/bad.db" --model ideal --model kepler-0.11 --window 250ms >"$T/bad.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "bad.db: a workload row names key [0-9]*, which work_key lacks" "$T/bad.out" ||
    { cat "$T/bad.out"; fail "diff of a file missing pod keys: exit $rc"; }
cp "$T/new.db" "$T/ren.db"
z0=$(sql "$T/ren.db" "SELECT name FROM attr_zone WHERE slot = 0")
z1=$(sql "$T/ren.db" "SELECT name FROM attr_zone WHERE slot = 1")
sql "$T/ren.db" "UPDATE work_attr SET zone = '$z0' WHERE zone = '$z1'" 2>"$T/e" && fail "a rename onto a taken zone name"
grep -q "that zone name is taken" "$T/e" || { cat "$T/e"; fail "rename refusal message"; }
[ "$(sql "$T/ren.db" "SELECT COUNT(*) FROM attr_zone WHERE name = '$z1'")" = 1 ] || fail "the refused rename changed attr_zone"
# writing through the view: a filled slot, another CPU delta for one
# workload and tick, and an UPDATE of anything but the zone are refused
row=$(sql "$T/new.db" "SELECT model_id || ',' || tick_id || ',' || level || ',' || process_id || ',' || quote(zone) || ',' || cpu_delta_s FROM work_attr WHERE level = 1 AND process_id IS NOT NULL AND (flags & 4096) = 0 LIMIT 1")
sql "$T/new.db" "INSERT INTO work_attr(model_id, tick_id, level, process_id, zone, cpu_delta_s, energy_uj, total_uj, power_uw, flags)
    SELECT model_id, tick_id, level, process_id, zone, cpu_delta_s, 1, 1, 1.0, 0 FROM work_attr WHERE level = 1 AND process_id IS NOT NULL AND (flags & 4096) = 0 LIMIT 1" 2>"$T/e" &&
    fail "an INSERT onto a filled slot was taken ($row)"
grep -q "already has this zone at this tick" "$T/e" || { cat "$T/e"; fail "filled slot message"; }
# a deleted row put back with INSERT OR REPLACE: the key keeps its id, the
# workload's other zones stay (the outer conflict clause reaches no inner write)
cp "$T/new.db" "$T/rep.db"
keys=$(sql "$T/rep.db" "SELECT group_concat(id || key) FROM work_key")
rows=$(sql "$T/rep.db" "SELECT COUNT(*) FROM work_attr")
sql "$T/rep.db" "CREATE TEMP TABLE r AS SELECT * FROM work_attr WHERE level = 3 LIMIT 1;
    DELETE FROM work_attr WHERE model_id = (SELECT model_id FROM r) AND tick_id = (SELECT tick_id FROM r)
        AND level = 3 AND key = (SELECT key FROM r) AND zone = (SELECT zone FROM r);
    INSERT OR REPLACE INTO work_attr SELECT * FROM r;" || fail "delete and put back"
[ "$(sql "$T/rep.db" "SELECT group_concat(id || key) FROM work_key")" = "$keys" ] || fail "INSERT OR REPLACE re-keyed a pod"
[ "$(sql "$T/rep.db" "SELECT COUNT(*) FROM work_attr")" = "$rows" ] || fail "INSERT OR REPLACE lost rows"
sql "$T/new.db" "UPDATE work_attr SET energy_uj = 5 WHERE level = 1" 2>"$T/e" && fail "an UPDATE of energy was taken"
grep -q "only a zone can be renamed" "$T/e" || { cat "$T/e"; fail "update message"; }
echo "ok: compact work_attr rows equal the table's ($n rows, $nterm terminated), validate, diff and report identical"
