/*
 * test_proc_scan_cases.c — the process sampler (collector/procfs/proc_scan.c)
 * on the project's own procfs tree, tests/fixtures/procfs/node: six
 * processes (init, a docker container with its exe link, a podman container
 * and its conmon monitor, a VM, a pid whose stat names another pid), scanned
 * twice with stable identities; the same root serves /proc/stat.
 * test_proc_scan.c proves the same on Kepler's procfs testdata.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/procfs/proc_scan.h"
#include "collector/procfs/procstat.h"
#include "tests/unit/support/test_support.h"

#define PROM_ID "3feb00294c5cb577d5679b958fcea898e0e7383fd7565096826c8d1ba55f11f8"
#define PODMAN_ID "2f259bab93aaaaa2542ba43ef33eb990d0999ee1b9924b557b7be53c0b7a1bb9"

static const wc_proc_sample *find_sample(const wc_proc_snapshot *snap, int pid)
{
    for (size_t i = 0; i < snap->count; i++)
        if (snap->samples[i].id->pid == pid)
            return &snap->samples[i];
    return NULL;
}

static void scan_ok(wc_proc_scanner *s, wc_proc_snapshot *snap)
{
    wc_error err = {{0}};
    cr_assert_eq(wc_proc_scan(s, snap, &err), 0, "%s", err.msg);
}

/* What the first scan of the node tree must give, process by process. */
static void check_first_scan(const wc_proc_snapshot *snap)
{
    cr_assert_eq(snap->count, 6);
    cr_assert_eq(snap->vanished, 0);
    cr_assert_eq(snap->errors, 0, "%s", snap->first_error.msg);
    cr_assert_eq(snap->gone_count, 0);
    for (size_t i = 0; i < snap->count; i++) {
        cr_assert_eq(snap->samples[i].is_new, 1);
        cr_assert_eq(snap->samples[i].id->store_id, -1);
    }
    const wc_proc_sample *p = find_sample(snap, 2101);
    cr_assert_not_null(p);
    cr_assert_str_eq(p->id->comm, "prometheus");
    cr_assert_eq(p->id->ppid, 2050);
    cr_assert_eq(p->id->starttime, 5213377);
    cr_assert_eq(p->utime, 481230);
    cr_assert_eq(p->stime, 22017);
    cr_assert_eq(p->num_threads, 19);
    cr_assert_str_eq(p->id->cgroup.runtime, "docker");
    cr_assert_str_eq(p->id->cgroup.container_id, PROM_ID);
    cr_assert_str_eq(p->id->exe, "/bin/prometheus", "the exe link's target");
    const wc_proc_sample *vm = find_sample(snap, 4400);
    cr_assert_not_null(vm);
    cr_assert_str_eq(vm->id->comm, "qemu-system-x86");
    cr_assert_eq(vm->num_threads, 8);
    cr_assert_eq(vm->id->starttime, 280000);
    cr_assert_str_eq(vm->id->cgroup.container_id, "");
    /* the pid is the directory name (this stat file says 5999 inside) */
    const wc_proc_sample *wc = find_sample(snap, 5005);
    cr_assert_not_null(wc);
    cr_assert_str_eq(wc->id->comm, "Web Content");
    cr_assert_eq(wc->id->starttime, 701000000);
    cr_assert_eq(wc->utime, 47);
    cr_assert_null(find_sample(snap, 5999));
    const wc_proc_sample *ng = find_sample(snap, 3302);
    cr_assert_not_null(ng);
    cr_assert_str_eq(ng->id->cgroup.runtime, "podman");
    cr_assert_eq(ng->id->ppid, 3301);
    const wc_proc_sample *mon = find_sample(snap, 3301);
    cr_assert_eq(mon->id->cgroup.is_runtime_monitor, 1);
    cr_assert_str_eq(mon->id->cgroup.container_id, PODMAN_ID);
    cr_assert_str_eq(mon->id->exe, "", "no exe link");
}

Test(proc_scan_cases, node_tree)
{
    const char *root = wc_own_fixture("procfs/node");
    wc_error err = {{0}};
    wc_proc_scanner *s = wc_proc_scanner_new(root, &err);
    cr_assert_not_null(s, "%s", err.msg);
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    check_first_scan(&snap);
    /* a second scan: same identities, nothing new, nothing gone */
    const wc_proc_identity *before = find_sample(&snap, 2101)->id;
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, 6);
    cr_assert_eq(snap.gone_count, 0);
    for (size_t i = 0; i < snap.count; i++)
        cr_assert_eq(snap.samples[i].is_new, 0);
    cr_assert_eq(find_sample(&snap, 2101)->id, before);
    /* the same root also serves /proc/stat */
    wc_procstat ps;
    cr_assert_eq(wc_procstat_read(root, &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.total.user, 4200000);
    wc_procstat_free(&ps);
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}
