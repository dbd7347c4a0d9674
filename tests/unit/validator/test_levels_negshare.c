/*
 * test_levels_negshare.c — validate's levels pass (validator/levels.h) on
 * Kepler's NEGATIVE_SHARE rows (pid reuse: a share wrapped to ~2^64 µJ,
 * docs/kepler-model.md §8 item 10): they add to no total, invariant or
 * per-workload sum, are counted per level with their workloads marked, and
 * the node's active energy of their interval counts as unattributed, so
 * node − Σ processes = idle + unattributed − over stays exact. A
 * hand-written run whose figures are known exactly.
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

/* Six 1 s ticks of a 10 W package; model "kepler-0.11" (id 1), per interval
 * active 6 J, idle 4 J. Process 1 (container c1 of pod p1) 1 J, process 2
 * (no container) 2 J; container c1 and pod p1 1 J. At tick 4 process 1, c1
 * and p1 hold Kepler's wrapped share 2^64 µJ, flagged 64. */
static void build_negshare(const char *path)
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
        "INSERT INTO model VALUES (1, 'kepler-0.11');"
        "INSERT INTO process(id, pid, starttime, comm, container_id, pod_uid, first_tick_id, pgid)"
        " VALUES (1, 100, 5, 'app', 'c1', 'p1', 1, 100), (2, 200, 6, 'kubelet', '', '', 1, 200);"
        "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj, flags)"
        " VALUES (1, 1, 'package', 0, 0, 0, 1);");
    for (int tick = 2; tick <= 6; tick++) {
        const char *e = tick == 4 ? "18446744073709551616.0" : "1000000";
        int f = tick == 4 ? 64 : 0;
        used += (size_t)snprintf(sql + used, sizeof sql - used,
            "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj, flags)"
            " VALUES (1, %d, 'package', 10000000, 6000000, 4000000, 0);"
            "INSERT INTO work_attr(model_id, tick_id, level, process_id, key, zone, energy_uj, flags)"
            " VALUES (1, %d, 1, 1, NULL, 'package', %s, %d), (1, %d, 1, 2, NULL, 'package', 2000000, 0),"
            " (1, %d, 2, NULL, 'c1', 'package', %s, %d), (1, %d, 3, NULL, 'p1', 'package', %s, %d);",
            tick, tick, e, f, tick, tick, e, f, tick, e, f);
    }
    trun_exec(path, sql);
}

Test(levels_negshare, wrapped_rows_excluded_counted_and_unattributed)
{
    char path[512];
    snprintf(path, sizeof path, "%s/levels_negshare.db", wc_test_tmpdir());
    build_negshare(path);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_levels_report r;
    cr_assert_eq(wc_levels_compute(st, 1, 5, &r, &err), 0, "%s", err.msg);
    const wc_level_zone *z = wc_levels_zone(&r, "package");
    cr_assert_not_null(z);
    NEAR(z->node_j, 50, 1e-9);
    NEAR(z->idle_j, 20, 1e-9);
    NEAR(z->process_j, 4 * 1 + 5 * 2, 1e-9);       /* tick 4's process 1 left out */
    NEAR(z->container_j, 4, 1e-9);
    NEAR(z->pod_j, 4, 1e-9);
    NEAR(z->unattr_missed_j, 4 * 3 + 4, 1e-9);     /* tick 4: 6 J − process 2's 2 J */
    NEAR(z->over_j, 0, 0);
    NEAR(z->node_j - z->process_j, z->idle_j + z->unattr_skipped_j + z->unattr_missed_j - z->over_j, 1e-9);
    NEAR(z->per_process_j[1], 4, 1e-9);
    NEAR(z->per_process_j[2], 10, 1e-9);
    for (int inv = 0; inv < WC_INV_COUNT; inv++)
        cr_assert_eq(z->inv[inv].violated, 0, "%s violated", wc_invariant_name(inv));
    cr_assert_eq(r.excluded_rows[WC_LEVEL_PROCESS], 1);
    cr_assert_eq(r.excluded_rows[WC_LEVEL_CONTAINER], 1);
    cr_assert_eq(r.excluded_rows[WC_LEVEL_POD], 1);
    cr_assert_eq(r.negative_share_rows, 1);
    cr_assert(r.excluded_process[1] && !r.excluded_process[2]);
    cr_assert_eq(r.ncontainers, 1);
    cr_assert_eq(r.npods, 1);
    cr_assert(r.excluded_container[0] && r.excluded_pod[0]);
    wc_levels_free(&r);
    wc_store_close(st);
}
