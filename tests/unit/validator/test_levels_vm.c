/*
 * test_levels_vm.c — the VM level of validate's levels pass (validator/levels.h):
 * Σ VMs per zone, its two invariants (Σ VMs ≤ node active, Σ VMs ≤ Σ
 * processes, checked only on intervals with VM rows) and each VM's total
 * with the labels of its hypervisor processes, on a hand-written run whose
 * figures are known exactly.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validator/levels.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"

#define S(x) ((int64_t)((x) * 1000000000LL))
#define NEAR(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%s = %.12g, expected %.12g", #a, (double)(a), (double)(b))

/* Six 1 s ticks of a 10 W package; model "kepler-main" (id 1): per interval
 * active 6 J; processes 1 and 2 are QEMU processes of VM "u-1" (guest1, kvm),
 * process 3 of VM "u-2" (guest2), process 4 a host daemon. Per tick: processes
 * 1 J, 2 J, 1 J, 1 J; VM u-1 2 J (its last process), u-2 1 J; at tick 6 the
 * hand-written u-1 row says 5 J: Σ VMs 6 J > Σ processes 5 J, = node 6 J. */
static void build_vms(const char *path)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    for (int k = 0; k < 6; k++) {
        double w = 10;
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    }
    trun_finish(&t);
    char sql[8192];
    size_t used = 0;
    used += (size_t)snprintf(sql + used, sizeof sql - used,
        "INSERT INTO model VALUES (1, 'kepler-main');"
        "INSERT INTO process(id, pid, starttime, comm, container_id, pod_uid, first_tick_id, pgid,"
        " vm_id, vm_name, hypervisor, vm_since) VALUES"
        " (1, 100, 5, 'qemu-system-x86', '', '', 1, 100, 'u-1', 'guest1', 'kvm', 1),"
        " (2, 101, 6, 'qemu-system-x86', '', '', 1, 101, 'u-1', 'guest1', 'kvm', 1),"
        " (3, 200, 7, 'qemu-system-x86', '', '', 1, 200, 'u-2', 'guest2', 'kvm', 1),"
        " (4, 300, 8, 'sshd', '', '', 1, 300, '', '', '', 0);"
        "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj, flags)"
        " VALUES (1, 1, 'package', 0, 0, 0, 1);");
    for (int tick = 2; tick <= 6; tick++) {
        used += (size_t)snprintf(sql + used, sizeof sql - used,
            "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj, flags)"
            " VALUES (1, %d, 'package', 10000000, 6000000, 4000000, 0);"
            "INSERT INTO work_attr(model_id, tick_id, level, process_id, key, zone, energy_uj) VALUES"
            " (1, %d, 1, 1, NULL, 'package', 1000000), (1, %d, 1, 2, NULL, 'package', 2000000),"
            " (1, %d, 1, 3, NULL, 'package', 1000000), (1, %d, 1, 4, NULL, 'package', 1000000),"
            " (1, %d, 4, NULL, 'u-1', 'package', %d), (1, %d, 4, NULL, 'u-2', 'package', 1000000);",
            tick, tick, tick, tick, tick, tick, tick == 6 ? 5000000 : 2000000, tick);
    }
    trun_exec(path, sql);
}

Test(levels_vm, totals_labels_and_invariants)
{
    char path[512];
    snprintf(path, sizeof path, "%s/levels_vm.db", wc_test_tmpdir());
    build_vms(path);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_levels_report r;
    cr_assert_eq(wc_levels_compute(st, 1, 5, &r, &err), 0, "%s", err.msg);
    const wc_level_zone *z = wc_levels_zone(&r, "package");
    cr_assert_not_null(z);
    NEAR(z->process_j, 25, 1e-9);
    NEAR(z->vm_j, 4 * 3 + 6, 1e-9);                /* u-1 2+2+2+2+5, u-2 5 x 1 */
    const wc_invariant *n = &z->inv[WC_INV_VMS_LE_NODE], *p = &z->inv[WC_INV_VMS_LE_PROCS];
    cr_assert_eq(n->checked, 5);
    cr_assert_eq(n->violated, 0, "tick 6: 6 J = node active 6 J");
    cr_assert_eq(p->checked, 5);
    cr_assert_eq(p->violated, 1, "tick 6: VMs 6 J > processes 5 J");
    NEAR(p->worst_excess_j, 1, 1e-9);
    cr_assert_eq(p->worst_tick_id, 6);
    cr_assert_eq(r.nvms, 2);
    const wc_level_vm *a = &r.vms[0], *b = &r.vms[1];  /* energy order */
    cr_assert_str_eq(a->vm_id, "u-1");
    cr_assert_str_eq(a->vm_name, "guest1");
    cr_assert_str_eq(a->hypervisor, "kvm");
    cr_assert_str_eq(a->zone, "package");
    cr_assert_eq(a->processes, 2);
    NEAR(a->joules, 13, 1e-9);
    cr_assert_str_eq(b->vm_id, "u-2");
    cr_assert_str_eq(b->vm_name, "guest2");
    cr_assert_eq(b->processes, 1);
    NEAR(b->joules, 5, 1e-9);
    wc_levels_free(&r);
    wc_store_close(st);
}

/* A run without VM rows: no VM checked, no VM listed (the outputs stay as they were). */
Test(levels_vm, none_without_vm_rows)
{
    char path[512];
    snprintf(path, sizeof path, "%s/levels_novm.db", wc_test_tmpdir());
    build_vms(path);
    trun_exec(path, "DELETE FROM work_attr WHERE level = 4;");
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_levels_report r;
    cr_assert_eq(wc_levels_compute(st, 1, 5, &r, &err), 0, "%s", err.msg);
    const wc_level_zone *z = wc_levels_zone(&r, "package");
    cr_assert_not_null(z);
    cr_assert_eq(r.nvms, 0);
    cr_assert_null(r.vms);
    NEAR(z->vm_j, 0, 0);
    cr_assert_eq(z->inv[WC_INV_VMS_LE_NODE].checked, 0);
    cr_assert_eq(z->inv[WC_INV_VMS_LE_PROCS].checked, 0);
    wc_levels_free(&r);
    wc_store_close(st);
}
