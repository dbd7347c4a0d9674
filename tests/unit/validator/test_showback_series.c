/*
 * test_showback_series.c — showback's per-tick pod series (validator/
 * showback.c) taken from the levels pass (levels.h pod_tick_uj) gives the
 * very table its own read of the pod rows gives, bit for bit: totals and
 * bootstrap intervals; a pod row with no energy or the NEGATIVE_SHARE flag
 * is left out of both alike, and the levels pass keeps the series per zone.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validator/levels.h"
#include "validator/showback.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"

#define S(x) ((int64_t)((x) * 1000000000LL))
#define NTICK 40

/* NTICK 1 s ticks of a package and a dram zone; model 1; three pods with
 * per-tick energies that vary with the tick, one of them with a zero row
 * and a NEGATIVE_SHARE row (flag 64), none of them in the pod table (the
 * processes carry their uids). */
static void build_pods(const char *path)
{
    trun t;
    trun_zone z[2] = {{"package", 0, WC_KIND_COUNTER_UJ}, {"dram", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 2);
    for (int k = 0; k < NTICK; k++) {
        double w[2] = {20, 4};
        trun_tick(&t, S(k), S(k), S(k), w, 0.5);
    }
    trun_finish(&t);
    trun_exec(path, "INSERT INTO model VALUES (1, 'kepler-0.11');"
                    "INSERT INTO process(id, pid, starttime, comm, container_id, pod_uid,"
                    " first_tick_id, pgid) VALUES (1, 10, 1, 'a', 'c-a', 'pod-a', 1, 10),"
                    " (2, 11, 1, 'b', 'c-b', 'pod-b', 1, 11), (3, 12, 1, 'c', 'c-c', 'pod-c', 1, 12);");
    char sql[512];
    for (int tick = 1; tick <= NTICK; tick++) {
        const char *zn[2] = {"package", "dram"};
        for (int zi = 0; zi < 2; zi++) {
            snprintf(sql, sizeof sql,
                     "INSERT INTO node_attr(model_id, tick_id, zone, delta_uj, active_uj, idle_uj,"
                     " flags) VALUES (1, %d, '%s', 20000000, 12000000, 8000000, 0);"
                     "INSERT INTO work_attr(model_id, tick_id, level, process_id, key, zone,"
                     " energy_uj, flags) VALUES (1, %d, 3, NULL, 'pod-a', '%s', %d, 0),"
                     " (1, %d, 3, NULL, 'pod-b', '%s', %d, 0), (1, %d, 3, NULL, 'pod-c', '%s', %d, %d);",
                     tick, zn[zi], tick, zn[zi], 1000000 + 37 * tick * (zi + 1), tick, zn[zi],
                     tick % 7 ? 500000 + 1013 * tick : 0, tick, zn[zi], 300000 + 11 * tick,
                     tick == 5 ? 64 : 0);
            trun_exec(path, sql);
        }
    }
}

/* showback of zone with in.levels as given. */
static void showback(wc_store *st, const wc_levels_report *lv, const char *zone, wc_showback *out)
{
    wc_showback_in in = {.model_id = 1, .model = "kepler-0.11", .zone = zone,
                         .meter_provenance = "simulated", .node_joules = 1,
                         .boot = {.replicates = 200, .seed = 7, .min_block = 1}, .levels = lv};
    wc_error err = {{0}};
    cr_assert_eq(wc_showback_compute(st, &in, out, &err), 0, "%s", err.msg);
}

static void same_ci(const wc_ci *a, const wc_ci *b, const char *what)
{
    cr_assert(!memcmp(a, b, sizeof *a), "%s: %.17g [%.17g, %.17g] vs %.17g [%.17g, %.17g]", what,
              a->est, a->lo, a->hi, b->est, b->lo, b->hi);
}

Test(showback_series, levels_series_equal_the_rows)
{
    char path[512];
    snprintf(path, sizeof path, "%s/showback_series.db", wc_test_tmpdir());
    build_pods(path);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_levels_report lv;
    cr_assert_eq(wc_levels_compute(st, 1, 10, &lv, &err), 0, "%s", err.msg);
    cr_assert_not_null(lv.pod_tick_uj, "the levels pass kept the pods' series");
    cr_assert_eq(lv.ntick, NTICK);
    for (int zi = 0; zi < 2; zi++) {
        const char *zone = zi ? "dram" : "package";
        wc_showback a, b;
        showback(st, &lv, zone, &a);
        showback(st, NULL, zone, &b);
        cr_assert_eq(a.n, 3);
        cr_assert_eq(b.n, a.n);
        cr_assert_eq(a.intervals, NTICK - 1);
        for (size_t k = 0; k < a.n; k++) {
            cr_assert_str_eq(a.pods[k].uid, b.pods[k].uid);
            same_ci(&a.pods[k].joules, &b.pods[k].joules, a.pods[k].uid);
            same_ci(&a.pods[k].share_pct, &b.pods[k].share_pct, a.pods[k].uid);
            cr_assert(isfinite(a.pods[k].joules.lo), "an interval was bootstrapped");
        }
    }
    /* pod-c's NEGATIVE_SHARE row (tick 5) is in neither series */
    size_t q = 0;
    while (q < lv.npods && strcmp(lv.pod_uids[q], "pod-c"))
        q++;
    cr_assert_lt(q, lv.npods);
    cr_assert_eq(lv.pod_tick_uj[(q * lv.nzones + 0) * lv.ntick + 4], 0, "tick 5 left out");
    cr_assert_eq(lv.pod_tick_uj[(q * lv.nzones + 0) * lv.ntick + 5], 300000 + 11 * 6);
    wc_levels_free(&lv);
    wc_store_close(st);
}
