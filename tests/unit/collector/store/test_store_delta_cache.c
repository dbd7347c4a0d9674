/*
 * test_store_delta_cache.c — the delta cache of collector/store/store_delta.c
 * grows while a tick is selected (issue 15: the cache is sized for the live
 * processes, not for live + snapshot, and grows only when births need it).
 *
 * 3,000 processes A; then a snapshot of 3,000 other processes B with no gone
 * list (a consumer that never reports exits): A stays in the cache, B's
 * births overflow its 3/4 limit in the middle of the selection. Every B is
 * written once on its birth tick, an unchanged tick writes nothing, a tick
 * where 7 of B changed writes those 7.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_internal.h" /* white-box: reads the connection */
#include "tests/unit/support/test_support.h"

#define NP 3000

static int64_t count_rows(wc_store *st, int64_t tick)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(st->db, "SELECT COUNT(*) FROM proc_sample WHERE tick_id = ?",
                                    -1, &s, NULL), SQLITE_OK);
    sqlite3_bind_int64(s, 1, tick);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* Writes one tick of snap; returns its row id. */
static int64_t put(wc_store *st, int t, wc_proc_snapshot *snap)
{
    wc_error err = {{0}};
    wc_cpu_times cpu = {.cpu = -1};
    int64_t tick = 0;
    cr_assert_eq(wc_store_begin(st, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_tick(st, t, t, t, t, &cpu, 1, snap->count, 0, &tick, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(wc_store_put_processes(st, tick, snap, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_commit(st, &err), 0, "%s", err.msg);
    return tick;
}

Test(store_delta_cache, grows_in_the_middle_of_a_selection)
{
    char p[512];
    snprintf(p, sizeof p, "%s/delta-cache.db", wc_test_tmpdir());
    wc_error err = {{0}};
    wc_store *st = wc_store_open(p, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_run_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.model, sizeof info.model, "kepler-0.11");
    snprintf(info.meter_kind, sizeof info.meter_kind, "rapl");
    cr_assert_eq(wc_store_put_run(st, &info, &err), 0, "%s", err.msg);
    wc_proc_identity *ids = calloc(2 * NP, sizeof *ids);
    wc_proc_sample *smp = calloc(NP, sizeof *smp);
    cr_assert(ids && smp);
    for (int i = 0; i < 2 * NP; i++)
        ids[i] = (wc_proc_identity){.pid = 100 + i, .starttime = 1, .store_id = -1};
    wc_proc_snapshot snap = {.samples = smp, .count = NP, .cap = NP};
    for (int i = 0; i < NP; i++) /* A: pids 100.. */
        smp[i] = (wc_proc_sample){.id = &ids[i], .utime = 5, .num_threads = 1};
    int64_t t0 = put(st, 0, &snap);
    cr_assert_eq(count_rows(st, t0), NP, "the first tick is a keyframe");
    for (int i = 0; i < NP; i++) /* B: pids 3100.., A never reported gone */
        smp[i] = (wc_proc_sample){.id = &ids[NP + i], .utime = 9, .num_threads = 2};
    int64_t t1 = put(st, 1, &snap);
    cr_assert_eq(count_rows(st, t1), NP, "every birth is written");
    int64_t t2 = put(st, 2, &snap);
    cr_assert_eq(count_rows(st, t2), 0, "nothing changed: a delta tick without rows");
    for (int i = 0; i < 7; i++)
        smp[i * 400].stime = 1;
    int64_t t3 = put(st, 3, &snap);
    cr_assert_eq(count_rows(st, t3), 7, "only the changed processes");
    int64_t t4 = put(st, 4, &snap);
    cr_assert_eq(count_rows(st, t4), 0, "their new counters are the cache's now");
    wc_store_close(st);
    free(ids);
    free(smp);
}
