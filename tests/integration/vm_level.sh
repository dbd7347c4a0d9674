# The VM level end to end (issue 14): tests/tools/fake_node.py --vms adds
# three QEMU processes outside any container, whose cmdline (-uuid, -name
# guest=...) makes two VMs: vm-a (pids 3000 and 3001) and vm-b (pid 3010).
# `record --procfs-root` stores their VM identity; `attribute` replays the
# stored run under kepler-main and ideal and lists each VM with its labels;
# `validate --json` shows the same VMs. Expected, from the stored process
# rows of the same model: ideal gives a VM the sum of its processes exactly;
# kepler-main gives it, every tick, its LAST process's energy (Kepler's
# informer.go updateVMCache), so vm-a gets one of its two processes' energy,
# not their sum. Σ VMs never exceeds Σ processes nor the node's active energy.
# `report` shows the VMs of the recorded model with their labels.
. tests/integration/lib/common.sh
command -v python3 >/dev/null 2>&1 || skip "python3 absent"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 absent"
FN=
trap 'for p in $FN; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"' EXIT

wait_for() { # file, pattern
    i=0
    while ! grep -q "$2" "$1" 2>/dev/null; do
        i=$((i + 1)); [ $i -le 100 ] || fail "$1 never said $2"
        sleep 0.1
    done
}
VM_A=11111111-2222-4333-8444-555555555555
VM_B=66666666-7777-4888-8999-aaaaaaaaaaaa
python3 tests/tools/fake_node.py --root "$T/proc" --pods 1 --vms --max-seconds 60 \
    >"$T/node.out" 2>&1 &
FN=$!
wait_for "$T/node.out" READY
"$BIN" record --db "$T/run.db" --meter sim --procfs-root "$T/proc" --interval 500ms \
    --duration 4s --quiet 2>"$T/err" || { cat "$T/err"; fail "record exited $?"; }
kill "$FN"; wait "$FN" 2>/dev/null; FN=

# the store: three hypervisor processes, two VMs, Kepler's labels
[ "$(sql "$T/run.db" "SELECT pid || ':' || vm_id || ':' || vm_name || ':' || hypervisor FROM process
      WHERE vm_id != '' ORDER BY pid")" = \
  "$(printf '3000:%s:vm-a:kvm\n3001:%s:vm-a:kvm\n3010:%s:vm-b:kvm' $VM_A $VM_A $VM_B)" ] ||
    fail "VM identity: $(sql "$T/run.db" 'SELECT pid, comm, vm_id, vm_name FROM process')"

"$BIN" attribute --db "$T/run.db" --model kepler-main --model ideal >"$T/a.txt" 2>&1 ||
    { cat "$T/a.txt"; fail "attribute exited $?"; }
expect_contains "$T/a.txt" "vm $VM_A name vm-a hypervisor kvm zone package:"
expect_contains "$T/a.txt" "vm $VM_B name vm-b hypervisor kvm zone package:"
[ "$(grep -c "^  vm .* attributed by model kepler-main (" "$T/a.txt")" -ge 2 ] || { cat "$T/a.txt"; fail "kepler-main VMs"; }
[ "$(grep -c "^  vm .* attributed by model ideal (" "$T/a.txt")" -ge 2 ] || { cat "$T/a.txt"; fail "ideal VMs"; }

# expected per VM from the stored process rows of each model: ideal = Σ; kepler-main = one process per tick
for m in ideal kepler-main; do
    "$BIN" validate --db "$T/run.db" --model $m --json "$T/$m.json" >"$T/$m.txt" 2>&1 || [ $? -le 1 ] ||
        { cat "$T/$m.txt"; fail "validate $m exited $?"; }
    expect_contains "$T/$m.txt" "VMs (model $m, joules"
    expect_contains "$T/$m.txt" "sum(vms) <= sum(processes)"
    sql "$T/run.db" "SELECT w.tick_id, w.zone, p.vm_id, w.energy_uj FROM work_attr w
        JOIN process p ON p.id = w.process_id JOIN model m ON m.id = w.model_id
        WHERE m.name = '$m' AND w.level = 1 AND p.vm_id != ''" >"$T/$m.procs"
    sql "$T/run.db" "SELECT w.tick_id, w.zone, w.key, w.energy_uj FROM work_attr w
        JOIN model m ON m.id = w.model_id WHERE m.name = '$m' AND w.level = 4" >"$T/$m.vms"
    python3 - "$m" "$T/$m.json" "$T/$m.procs" "$T/$m.vms" "$T/a.txt" "$VM_A" "$VM_B" <<'PY' ||
import json, sys, re
m, js, procs, vms, att, vm_a, vm_b = sys.argv[1:]
def rows(path):
    out = {}
    for line in open(path):
        t, z, k, e = line.rstrip("\n").split("|")
        out.setdefault((int(t), z, k), []).append(float(e))
    return out
p, v = rows(procs), rows(vms)
assert v and p, (len(v), len(p))
ticks_a = 0
for key, es in v.items():
    assert len(es) == 1, key
    pe = p.get(key, [])
    if m == "ideal":  # a VM is the sum of its processes, exactly
        assert abs(es[0] - sum(pe)) <= 1e-6 * max(1, len(pe)), (key, es, pe)
    else:  # Kepler: the VM's last process's energy, one of them
        assert any(abs(es[0] - x) <= 1e-6 for x in pe), (key, es, pe)
    if key[2] == vm_a and key[1] == "package" and len(pe) == 2 and min(pe) > 0:
        ticks_a += 1
        if m == "kepler-main":
            assert abs(es[0] - sum(pe)) > 1, (key, es, pe)  # not the sum
assert ticks_a >= 4, ticks_a
lv = json.load(open(js))["levels"]
got = {(x["zone"], x["vm_id"]): x for x in lv["vms"]}
tot = {}
for (t, z, k), es in v.items():
    tot[(z, k)] = tot.get((z, k), 0) + es[0] / 1e6
assert set(got) == set(tot), (sorted(got), sorted(tot))
for k, j in tot.items():
    g = got[k]
    assert abs(g["joules"] - j) < 1e-6, (k, g, j)
    assert g["vm_name"] == ("vm-a" if k[1] == vm_a else "vm-b") and g["hypervisor"] == "kvm", g
    assert g["processes"] == (2 if k[1] == vm_a else 1), g
    line = re.search(r"vm %s name \S+ hypervisor kvm zone %s: ([0-9.]+) J attributed by model %s "
                     % (k[1], k[0], m), open(att).read())
    assert line and abs(float(line.group(1)) - j) < 1e-5, (k, line and line.group(0), j)
for z in lv["vm_zones"]:  # the gap identity processes -> VMs
    zone = [x for x in lv["zones"] if x["zone"] == z["zone"]][0]
    assert abs(z["process_joules"] - z["outside_vms_joules"] - z["vm_joules"]) < 1e-9, z
    assert abs(z["vm_joules"] - sum(j for (zz, _), j in tot.items() if zz == z["zone"])) < 1e-6, z
    assert z["vm_joules"] <= z["process_joules"] + 1e-9, z
    for i in zone["invariants"]:
        if i["invariant"].startswith("sum(vms)"):
            assert i["checked"] >= 4 and i["violated"] == 0, i
print("%s ok: %d VM rows, vm-a both processes on %d ticks" % (m, len(v), ticks_a))
PY
        fail "VM energies under $m"
done

# the report renders the VM level of the recorded model, labels escaped as cells
"$BIN" report --db "$T/run.db" --out "$T/r" >"$T/r.txt" 2>&1 || [ $? -le 1 ] ||
    { cat "$T/r.txt"; fail "report exited $?"; }
expect_contains "$T/r/report.md" "### By level: processes → VMs"
expect_contains "$T/r/report.md" "| package | $VM_A | vm-a | kvm | 2 |"
expect_contains "$T/r/report.md" "| package | $VM_B | vm-b | kvm | 1 |"
exit 0
