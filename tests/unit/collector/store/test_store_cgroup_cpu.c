/*
 * test_store_cgroup_cpu.c — the cgroup CPU tables (store_cgroup_cpu.h,
 * schema version 5): cgroups registered with their accounting file, per-tick
 * reads round-tripped with their tick's time (a failed read as NULL with its
 * status, a value above 2^63 kept bit for bit), the level filter, untrusted
 * paths bound as parameters, and a run made before the tables existed
 * (readers find nothing).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_cgroup_cpu.h"
#include "collector/store/store_internal.h" /* white-box: drops the tables */
#include "tests/unit/support/test_support.h"

static wc_store *new_run(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", wc_test_tmpdir(), name);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_run_info info;
    memset(&info, 0, sizeof info);
    cr_assert_eq(wc_store_put_run(st, &info, &err), 0, "%s", err.msg);
    return st;
}

static int64_t tick(wc_store *st, int64_t seq)
{
    wc_cpu_times cpu;
    memset(&cpu, 0, sizeof cpu);
    int64_t id = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_store_put_tick(st, seq, 1000000000 * (seq + 1), 0, 0, &cpu, 1, 0, 0, &id,
                                   &err), 0, "%s", err.msg);
    return id;
}

Test(store_cgroup_cpu, round_trip)
{
    wc_store *st = new_run("cg.db");
    wc_error err = {{0}};
    int64_t pod = 0, ctr = 0;
    cr_assert_eq(wc_store_put_cgroup(st, "pod", "uid-1", "/kubepods/pod'uid-1;--", &pod, &err), 0);
    cr_assert_eq(wc_store_put_cgroup(st, "container", "c1", "/kubepods/poduid-1/c1", &ctr, &err), 0);
    cr_assert_eq(wc_store_set_cgroup_accounting(st, pod, "cpu.stat usage_usec", &err), 0);
    int64_t t1 = tick(st, 0), t2 = tick(st, 1);
    wc_cgroup_cpu_in a[] = {{pod, 5000, 0}, {ctr, 4000, 0}};
    wc_cgroup_cpu_in b[] = {{pod, 0, -ENOENT}, {ctr, UINT64_MAX - 1, 0}};
    cr_assert_eq(wc_store_put_cgroup_cpu(st, t1, a, 2, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_cgroup_cpu(st, t2, b, 2, &err), 0, "%s", err.msg);

    wc_cgroup_row *rows = NULL;
    size_t n = 0;
    cr_assert_eq(wc_store_cgroups(st, &rows, &n, &err), 0);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(rows[0].path, "/kubepods/pod'uid-1;--");
    cr_assert_str_eq(rows[0].accounting, "cpu.stat usage_usec");
    cr_assert_str_eq(rows[1].level, "container");
    cr_assert_str_eq(rows[1].accounting, "");
    free(rows);

    wc_store_iter *it = NULL;
    wc_cgroup_cpu_row r;
    cr_assert_eq(wc_store_cgroup_cpu_open(st, "pod", &it, &err), 0);
    cr_assert_eq(wc_store_cgroup_cpu_next(it, &r, &err), 1);
    cr_assert(r.ok && r.usage_ns == 5000 && r.mono_ns == 1000000000 && r.tick_id == t1);
    cr_assert_eq(wc_store_cgroup_cpu_next(it, &r, &err), 1);
    cr_assert(!r.ok && r.status == -ENOENT && r.tick_id == t2);
    cr_assert_eq(wc_store_cgroup_cpu_next(it, &r, &err), 0);
    wc_store_iter_close(it);
    cr_assert_eq(wc_store_cgroup_cpu_open(st, NULL, &it, &err), 0);
    size_t all = 0;
    uint64_t last = 0;
    while (wc_store_cgroup_cpu_next(it, &r, &err) == 1) {
        all++;
        last = r.usage_ns;
    }
    wc_store_iter_close(it);
    cr_assert_eq(all, 4);
    cr_assert_eq(last, UINT64_MAX - 1);
    wc_store_close(st);
}

Test(store_cgroup_cpu, run_without_the_tables_reads_empty)
{
    wc_store *st = new_run("old.db");
    wc_error err = {{0}};
    cr_assert_eq(wc_store_exec(st, "DROP TABLE cgroup_cpu; DROP TABLE cgroup;", &err), 0);
    wc_cgroup_row *rows = NULL;
    size_t n = 7;
    cr_assert_eq(wc_store_cgroups(st, &rows, &n, &err), 0);
    cr_assert_eq(n, 0);
    wc_store_iter *it = NULL;
    wc_cgroup_cpu_row r;
    cr_assert_eq(wc_store_cgroup_cpu_open(st, "pod", &it, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_cgroup_cpu_next(it, &r, &err), 0);
    wc_store_iter_close(it);
    wc_store_close(st);
}
