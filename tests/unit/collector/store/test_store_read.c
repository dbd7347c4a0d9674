/*
 * test_store_read.c — the typed readers of collector/store/store_read.h on
 * small synthetic runs: ticks, zone samples streamed by zone then tick,
 * ground-truth polls in poll order, the phase sets, process rows by id; an
 * iterator asked for rows of another kind; and the one error convention
 * (-EIO naming the file and what was read) when a table is missing.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_read.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"

#define S(x) ((int64_t)((x) * 1000000000LL))

static const char *db_path(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", wc_test_tmpdir(), name);
    return p;
}

/* Five 1 s ticks of a 10 W package counter and a 2 W gauge, one truth
 * source with three polls (written out of order), two phases. */
static void build(const char *path)
{
    trun t;
    trun_zone z[2] = {{"package", 0, WC_KIND_COUNTER_UJ}, {"wall", -1, WC_KIND_GAUGE_UW}};
    trun_create(&t, path, z, 2);
    for (int k = 0; k < 5; k++) {
        double w[2] = {10, 2};
        trun_tick(&t, S(k + 1), S(k + 1), S(1700000000 + k), w, 0.5);
    }
    int64_t src = trun_truth_source(&t, "sim:test", "sim", WC_PROV_SIMULATED);
    trun_truth(&t, src, S(3), 120, 0, 0, 0, "ok");
    trun_truth(&t, src, S(2), NAN, 0, 0, 0, "unavailable");
    trun_truth(&t, src, S(4), 121, 5, 1, 0, "ok");
    trun_phase(&t, "idle", "idle", S(1), S(3), 1);
    trun_phase(&t, "cpu", "cpu", S(2), S(5), 1);
    trun_finish(&t);
}

static wc_store *open_ro(const char *path)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    return st;
}

Test(store_read, ticks_and_zone_samples)
{
    const char *path = db_path("read.db");
    build(path);
    wc_store *st = open_ro(path);
    wc_error err = {{0}};
    int64_t n = 0;
    cr_assert_eq(wc_store_count_rows(st, WC_TABLE_TICK, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 5);
    int64_t id[5], mono[5], boot[5];
    size_t got = 0;
    cr_assert_eq(wc_store_get_ticks(st, id, mono, boot, 3, &got, &err), 0, "%s", err.msg);
    cr_assert_eq(got, 3, "at most cap ticks");
    cr_assert_eq(mono[2], S(3));
    int64_t first = 0, last = 0;
    cr_assert_eq(wc_store_tick_ids_between(st, S(2), S(4), &first, &last, &err), 0, "%s", err.msg);
    cr_assert_eq(last - first, 2);
    cr_assert_eq(wc_store_tick_ids_between(st, S(100), S(200), &first, &last, &err), 0);
    cr_assert(first == 0 && last == -1, "no tick there");
    static const char *const PKG[] = {"package", NULL};
    wc_store_iter *it = NULL;
    cr_assert_eq(wc_store_zone_samples_open(st, WC_KIND_COUNTER_UJ, PKG, &it, &err), 0, "%s", err.msg);
    wc_zone_sample r;
    int64_t prev_tick = 0;
    size_t rows = 0;
    int rc;
    while ((rc = wc_store_zone_sample_next(it, &r, &err)) == 1) {
        cr_assert_eq(r.type, WC_VALUE_INTEGER);
        cr_assert_gt(r.tick_id, prev_tick, "by tick");
        prev_tick = r.tick_id;
        rows++;
    }
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(rows, 5);
    wc_store_iter_close(it);
    cr_assert_eq(wc_store_zone_names_open(st, WC_KIND_GAUGE_UW, &it, &err), 0, "%s", err.msg);
    const char *name = NULL;
    cr_assert_eq(wc_store_text_next(it, &name, &err), 1);
    cr_assert_str_eq(name, "wall");
    cr_assert_eq(wc_store_text_next(it, &name, &err), 0);
    wc_store_iter_close(it);
    wc_store_close(st);
}

Test(store_read, truth_polls_phases_and_processes)
{
    const char *path = db_path("truth.db");
    build(path);
    wc_store *st = open_ro(path);
    wc_error err = {{0}};
    wc_truth_source_row src[2];
    size_t n = 0;
    cr_assert_eq(wc_store_truth_sources(st, src, 2, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(src[0].spec, "sim:test");
    wc_truth_poll_row *p = NULL;
    cr_assert_eq(wc_store_truth_polls(st, src[0].id, &p, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 3);
    cr_assert(p[0].t_ns == S(2) && isnan(p[0].watts), "by poll time; NULL watts read NAN");
    cr_assert_str_eq(p[0].status, "unavailable");
    cr_assert(p[2].window_known && p[2].window_s == 5);
    free(p);
    wc_phase_row *ph = NULL;
    cr_assert_eq(wc_store_phases(st, WC_PHASES_WITH_TICKS, 0, &ph, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(ph[0].name, "idle");
    cr_assert(ph[0].tick_lo > 0 && ph[0].tick_hi >= ph[0].tick_lo, "the ticks inside the phase");
    free(ph);
    cr_assert_eq(wc_store_phases(st, WC_PHASES_TIMED, 1, &ph, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1, "at most max");
    free(ph);
    int64_t ids[1] = {424242};
    wc_process_row pr[1];
    cr_assert_eq(wc_store_get_processes(st, ids, 1, pr, &err), 0, "%s", err.msg);
    cr_assert_not(pr[0].found);
    wc_store_close(st);
}

Test(store_read, wrong_iterator_and_missing_table)
{
    const char *path = db_path("broken.db");
    build(path);
    wc_store *st = open_ro(path);
    wc_error err = {{0}};
    wc_store_iter *it = NULL;
    cr_assert_eq(wc_store_tick_cpu_open(st, &it, &err), 0, "%s", err.msg);
    wc_zone_sample r;
    cr_assert_eq(wc_store_zone_sample_next(it, &r, &err), -EINVAL, "rows of another kind");
    wc_tick_cpu c;
    cr_assert_eq(wc_store_tick_cpu_next(it, &c, &err), 1, "%s", err.msg);
    cr_assert(c.cpu_ok && !c.has_util, "a /proc/stat line, no imported utilisation");
    wc_store_iter_close(it);
    wc_store_close(st);
    trun_exec(path, "DROP TABLE truth_sample;");
    st = open_ro(path);
    wc_truth_poll_row *p = NULL;
    size_t n = 0;
    cr_assert_eq(wc_store_truth_polls(st, 1, &p, &n, &err), -EIO);
    cr_assert(strstr(err.msg, "broken.db: reading ground-truth samples"), "%s", err.msg);
    cr_assert_null(p);
    wc_store_close(st);
}
