/*
 * test_attr_vm.c — the VM level of the attribution engine on hand-worked
 * ticks (docs/kepler-model.md §3.4 and the VM level): two QEMU processes of
 * VM "vm-a", one of VM "vm-b", one plain process and one QEMU in a container
 * (a container process, never a VM). One package zone, 100 → 350 J over 5 s,
 * /proc/stat busy 450 of 1000 ticks (r = 0.45, activeE 112.5 J, activeP
 * 22.5 W); CPU Δ A 1.0 s, B 0.5 s, C 1.5 s, D 1.5 s (D = 4.5 s) ⇒ A 25 J,
 * B 12.5 J, C 37.5 J, D 37.5 J (float64-exact, checked in Python).
 * Kepler (informer.go updateVMCache) assigns a VM the Δ of its LAST process:
 * vm-a = B's 12.5 J, 2.5 W; the ideal model sums: vm-a = 37.5 J, 7.5 W.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "collector/model/attribution.h"

#define MAXR UINT64_C(262143328850)
#define CX "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

typedef struct tk {
    wc_attr_zone_in z;
    wc_attr_proc_in p[5];
    wc_attr_tick_in in;
} tk;

/* Tick k (1 or 2) of the example; since is vm-b's release (its pattern). */
static void tick(tk *t, int k, wc_vm_since since_b)
{
    static const uint64_t cpu1[8] = {1000, 0, 500, 5000, 100, 50, 50, 0};
    static const uint64_t cpu2[8] = {1300, 0, 600, 5500, 150, 75, 75, 0};
    const uint64_t *c = k == 1 ? cpu1 : cpu2;
    memset(t, 0, sizeof *t);
    t->z = (wc_attr_zone_in){.name = "package", .energy_uj = k == 1 ? 100000000 : 350000000,
                             .max_energy_range_uj = MAXR, .ok = 1};
    uint64_t a = k == 1 ? 1000 : 1100, b = k == 1 ? 500 : 550, cc = k == 1 ? 2000 : 2150;
    uint64_t d = k == 1 ? 3000 : 3150;
    t->p[0] = (wc_attr_proc_in){.pid = 100, .starttime = 10, .cpu_ticks = a, .vm_id = "vm-a",
                                .vm_since = WC_VM_SINCE_0100};
    t->p[1] = (wc_attr_proc_in){.pid = 101, .starttime = 11, .cpu_ticks = b, .vm_id = "vm-a",
                                .vm_since = WC_VM_SINCE_0100};
    t->p[2] = (wc_attr_proc_in){.pid = 102, .starttime = 12, .cpu_ticks = cc, .vm_id = "vm-b",
                                .vm_since = since_b};
    t->p[3] = (wc_attr_proc_in){.pid = 103, .starttime = 13, .cpu_ticks = d};
    t->p[4] = (wc_attr_proc_in){.pid = 104, .starttime = 14, .cpu_ticks = 0, .container_id = CX,
                                .vm_id = "kubevirt", .vm_since = WC_VM_SINCE_0100};
    t->in = (wc_attr_tick_in){.mono_ns = k * INT64_C(5000000000), .boot_ns = 0, .cpu_ok = 1,
                              .zones = &t->z, .nzones = 1, .procs = t->p, .nprocs = 5};
    t->in.cpu = (wc_cpu_times){.user = c[0], .nice = c[1], .system = c[2], .idle = c[3],
                               .iowait = c[4], .irq = c[5], .softirq = c[6], .steal = c[7]};
}

static const wc_attr_work_out *vm_row(const wc_attr_out *o, const char *id)
{
    for (size_t i = 0; i < o->nwork; i++)
        if (o->work[i].level == WC_LEVEL_VM && strcmp(o->work[i].key, id) == 0)
            return &o->work[i];
    return NULL;
}

static size_t vm_count(const wc_attr_out *o)
{
    size_t n = 0;
    for (size_t i = 0; i < o->nwork; i++)
        n += o->work[i].level == WC_LEVEL_VM;
    return n;
}

/* Runs the two ticks under model m; out is the second tick's. */
static wc_attrib *run(wc_model m, wc_vm_since since_b, wc_attr_out *out)
{
    static tk t1, t2;
    wc_error err = {{0}};
    wc_attrib *a = wc_attrib_new(m);
    cr_assert_not_null(a);
    tick(&t1, 1, since_b);
    tick(&t2, 2, since_b);
    cr_assert_eq(wc_attrib_step(a, &t1.in, out, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_attrib_step(a, &t2.in, out, &err), 0, "%s", err.msg);
    return a;
}

Test(attr_vm, kepler_main_assigns_the_last_process)
{
    wc_attr_out o;
    wc_attrib *a = run(WC_MODEL_KEPLER_MAIN, WC_VM_SINCE_MAIN, &o);
    cr_assert_eq(o.node[0].active_uj, 112500000);
    cr_expect_eq(vm_count(&o), 2); /* the containerised QEMU is no VM */
    const wc_attr_work_out *va = vm_row(&o, "vm-a"), *vb = vm_row(&o, "vm-b");
    cr_assert(va && vb);
    cr_expect(va->cpu_delta_s == 0.5);
    cr_expect_eq(va->energy_uj, 12500000); /* B only, not A + B */
    cr_expect_eq(va->total_uj, 12500000);
    cr_expect(va->power_uw == 2500000.0);
    cr_expect_eq(va->proc_index, 0); /* labelled by its first process */
    cr_expect_eq(vb->energy_uj, 37500000);
    cr_expect(vb->power_uw == 7500000.0);
    cr_expect_null(vm_row(&o, "kubevirt"));
    wc_attrib_free(a);
}

Test(attr_vm, ideal_sums_its_processes)
{
    wc_attr_out o;
    wc_attrib *a = run(WC_MODEL_IDEAL, WC_VM_SINCE_MAIN, &o);
    const wc_attr_work_out *va = vm_row(&o, "vm-a"), *vb = vm_row(&o, "vm-b");
    cr_assert(va && vb);
    uint64_t sum = 0;
    for (size_t i = 0; i < o.nwork; i++)
        if (o.work[i].level == WC_LEVEL_PROCESS && o.work[i].proc_index < 2)
            sum += o.work[i].energy_uj;
    cr_expect_eq(sum, 37500000);
    cr_expect_eq(va->energy_uj, sum); /* exactly A + B */
    cr_expect_eq(va->total_uj, 37500000);
    cr_expect(va->power_uw == 7500000.0);
    cr_expect(va->cpu_delta_s == 1.5);
    cr_expect_eq(vb->energy_uj, 37500000);
    wc_attrib_free(a);
}

Test(attr_vm, a_release_sees_only_its_patterns)
{
    wc_attr_out o;
    /* vm-b matched only main's patterns (VirtualBox, VMware): kepler-0.11
     * (v0.11.4) sees vm-a alone, vm-b's process stays a regular one */
    wc_attrib *a = run(WC_MODEL_KEPLER_011, WC_VM_SINCE_MAIN, &o);
    cr_expect_eq(vm_count(&o), 1);
    cr_expect_not_null(vm_row(&o, "vm-a"));
    cr_expect_null(vm_row(&o, "vm-b"));
    wc_attrib_free(a);
    /* bin/kvm (v0.11.4): kepler-0.11 sees it, kepler-0.10 (v0.11.3) does not */
    a = run(WC_MODEL_KEPLER_011, WC_VM_SINCE_0114, &o);
    cr_expect_not_null(vm_row(&o, "vm-b"));
    wc_attrib_free(a);
    a = run(WC_MODEL_KEPLER_010, WC_VM_SINCE_0114, &o);
    cr_expect_null(vm_row(&o, "vm-b"));
    wc_attrib_free(a);
}

Test(attr_vm, kepler_exports_a_vm_gone_as_terminated)
{
    static tk t3;
    wc_attr_out o;
    wc_error err = {{0}};
    wc_attrib *a = run(WC_MODEL_KEPLER_MAIN, WC_VM_SINCE_MAIN, &o);
    wc_attrib_set_terminated(a, WC_KEPLER_MAX_TERMINATED, UINT64_C(10000000));
    tick(&t3, 2, WC_VM_SINCE_MAIN);
    t3.in.mono_ns = INT64_C(15000000000);
    t3.z.energy_uj = 600000000;
    t3.p[2] = t3.p[3]; /* vm-b's process exited */
    t3.p[3] = t3.p[4];
    t3.in.nprocs = 4;
    cr_assert_eq(wc_attrib_step(a, &t3.in, &o, &err), 0, "%s", err.msg);
    int found = 0;
    for (size_t i = 0; i < o.nterm; i++)
        if (o.term[i].level == WC_LEVEL_VM) {
            cr_expect_str_eq(o.term[i].key, "vm-b");
            cr_expect_eq(o.term[i].total_uj, 37500000); /* >= 10 J: kept */
            found++;
        }
    cr_expect_eq(found, 1);
    wc_attrib_free(a);
}
