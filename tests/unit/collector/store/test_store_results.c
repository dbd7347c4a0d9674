/*
 * test_store_results.c — the store's typed results (store_results.h,
 * store_replay.h): a calibration and its points round-trip in one
 * transaction and the latest fit per kind and target wins; tenant and node
 * rows stream back as written through the one iterator of store.h; tables
 * are counted by enum only (a failed count names the table); a run is
 * replayed into its own tables, and a run without counter zones attributes its
 * power gauge (under each model as that Kepler release would).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "collector/store/store_read.h"
#include "collector/store/store_replay.h"
#include "collector/store/store_results.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"

#define S(k) ((int64_t)(k) * 1000000000LL)

static const char *db_path(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", wc_test_tmpdir(), name);
    return p;
}

/* n 1 s ticks of a 10 W package counter, or of a wall gauge only when gauge
 * is set. */
static void build(const char *path, int n, int gauge)
{
    trun t;
    trun_zone z[2] = {{"package", 0, WC_KIND_COUNTER_UJ}, {"wall", -1, WC_KIND_GAUGE_UW}};
    trun_create(&t, path, gauge ? z + 1 : z, 1);
    for (int k = 0; k < n; k++) {
        double w[2] = {10, 10};
        trun_tick(&t, S(k + 1), S(k + 1), S(k + 1), w, 0.5);
    }
    trun_finish(&t);
}

static wc_store *open_st(const char *path, wc_store_mode mode)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, mode, &err);
    cr_assert_not_null(st, "%s", err.msg);
    return st;
}

static void fit_row(wc_store_cal_row *r, const char *kind, const char *target, double c1)
{
    memset(r, 0, sizeof *r);
    snprintf(r->kind, sizeof r->kind, "%s", kind);
    snprintf(r->target, sizeof r->target, "%s", target);
    snprintf(r->input, sizeof r->input, "meter:package");
    r->window_s = NAN;
    r->lag_s = 2;
    r->n = 3, r->dof = 1;
    r->c0 = 40, r->c1 = c1, r->r2 = 0.99, r->rmse = 1.5;
    r->c0_se = r->c1_se = r->cov01 = r->c0_lo = r->c0_hi = r->c1_lo = r->c1_hi = NAN;
    snprintf(r->note, sizeof r->note, "note of %s", target);
}

Test(store_results, calibration_round_trip_latest_fit_wins)
{
    const char *path = db_path("cal.db");
    build(path, 3, 0);
    wc_store *st = open_st(path, WC_STORE_WRITE);
    double x[3] = {1, 2, 3}, y[3] = {41.2, 42.4, 43.6}, w[3] = {1, 1, 1};
    int64_t a[3] = {0, 1, 2}, b[3] = {1, 2, 3};
    wc_store_cal_points pts = {.n = 3, .x = x, .y = y, .w = w, .a_ns = a, .b_ns = b};
    wc_store_cal_row r;
    wc_error err = {{0}};
    fit_row(&r, "truth_meter", "ipmi:local", 1.1);
    cr_assert_eq(wc_store_put_calibration(st, &r, &pts, &err), 0, "%s", err.msg);
    cr_assert_eq(r.id, 1);
    fit_row(&r, "truth_meter", "ipmi:local", 1.2);
    cr_assert_eq(wc_store_put_calibration(st, &r, &pts, &err), 0, "%s", err.msg);
    fit_row(&r, "zone_utilisation", "package", 30);
    cr_assert_eq(wc_store_put_calibration(st, &r, &pts, &err), 0, "%s", err.msg);
    wc_store_cal_row out[4];
    size_t n = 0, ignored = 9;
    cr_assert_eq(wc_store_load_calibrations(st, out, 4, &n, &ignored, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 2);
    cr_assert_eq(ignored, 0);
    cr_assert_eq(out[0].id, 2, "the later fit of ipmi:local");
    cr_assert_str_eq(out[0].kind, "truth_meter");
    cr_assert_float_eq(out[0].c1, 1.2, 1e-12);
    cr_assert(isnan(out[0].window_s) && isnan(out[0].c0_se), "NULL reads as NAN");
    cr_assert_float_eq(out[0].lag_s, 2, 1e-12);
    cr_assert_eq(out[0].n, 3);
    cr_assert_str_eq(out[0].note, "note of ipmi:local");
    cr_assert_str_eq(out[1].target, "package");
    wc_store_close(st);
    /* the points of fit 1, with fitted = 40 + 1.1 x and the residual */
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT COUNT(*), SUM(fitted), SUM(residual), MAX(end_mono_ns)"
                                        " FROM calibration_residual WHERE calibration_id = 1",
                                    -1, &q, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int(q, 0), 3);
    cr_assert_float_eq(sqlite3_column_double(q, 1), 120 + 1.1 * 6, 1e-9);
    cr_assert_float_eq(sqlite3_column_double(q, 2), 127.2 - (120 + 1.1 * 6), 1e-9);
    cr_assert_eq(sqlite3_column_int64(q, 3), 3);
    sqlite3_finalize(q);
    sqlite3_close(db);
}

Test(store_results, a_run_without_calibration_tables_has_no_fits)
{
    const char *path = db_path("nocal.db");
    build(path, 2, 0);
    trun_exec(path, "DROP TABLE IF EXISTS calibration_residual; DROP TABLE IF EXISTS calibration;");
    wc_store *st = open_st(path, WC_STORE_READ);
    wc_store_cal_row out[2];
    size_t n = 5;
    wc_error err = {{0}};
    cr_assert_eq(wc_store_load_calibrations(st, out, 2, &n, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 0);
    wc_store_close(st);
}

Test(store_results, counts_and_tick_span)
{
    const char *path = db_path("counts.db");
    build(path, 5, 0);
    wc_store *st = open_st(path, WC_STORE_READ);
    int64_t n = -1, first = 0, last = 0, count = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_store_count_rows(st, WC_TABLE_TICK, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 5);
    cr_assert_eq(wc_store_count_rows(st, WC_TABLE_WORK_ATTR, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 0);
    cr_assert_eq(wc_store_count_rows(st, WC_TABLE_COUNT, &n, &err), -EINVAL);
    cr_assert_eq(wc_store_count_rows(st, (wc_store_table)-1, &n, &err), -EINVAL);
    cr_assert_eq(wc_store_tick_span(st, &first, &last, &count, &err), 0, "%s", err.msg);
    cr_assert_eq(first, S(1));
    cr_assert_eq(last, S(5));
    cr_assert_eq(count, 5);
    wc_store_close(st);
}

Test(store_results, a_failed_count_names_what_it_counted)
{
    const char *path = db_path("nocount.db");
    build(path, 2, 0);
    trun_exec(path, "DROP TABLE tick;");
    wc_store *st = open_st(path, WC_STORE_READ);
    int64_t n = 0, first = 0, last = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_store_count_rows(st, WC_TABLE_TICK, &n, &err), -EIO);
    cr_assert(strstr(err.msg, "nocount.db: counting ticks"), "%s", err.msg);
    cr_assert_eq(wc_store_tick_span(st, &first, &last, &n, &err), -EIO);
    cr_assert(strstr(err.msg, "nocount.db: reading ticks"), "%s", err.msg);
    wc_store_close(st);
}

/* Three processes (two named a), a container and a pod level, one row of
 * each per tick 1..2 in zone package, and a zero-energy row. */
static const char TENANTS_SQL[] =
    "INSERT INTO model(id, name) VALUES (7, 'm');"
    "INSERT INTO process(id, pid, comm) VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'a');"
    "INSERT INTO work_attr(model_id, tick_id, level, process_id, key, zone, energy_uj) VALUES"
    " (7, 1, 1, 1, '', 'package', 100), (7, 1, 1, 2, '', 'package', 50),"
    " (7, 2, 1, 3, '', 'package', 25), (7, 2, 1, 2, '', 'package', 0),"
    " (7, 1, 2, NULL, 'c1', 'package', 150), (7, 2, 2, NULL, 'c2', 'package', 25),"
    " (7, 2, 2, NULL, '', 'package', 5), (7, 1, 3, NULL, 'p1', 'package', 175),"
    " (7, 1, 2, NULL, 'c1', 'dram', 9);";

/* Drains a tenant iterator: the rows' count, their energy, and the energy
 * of key (0 when absent). */
static void drain(wc_store_iter *it, const char *key, int *rows, double *uj, double *key_uj)
{
    wc_error err = {{0}};
    wc_tenant_row r;
    int rc;
    *rows = 0, *uj = 0, *key_uj = 0;
    while ((rc = wc_store_tenant_next(it, &r, &err)) == 1) {
        (*rows)++;
        *uj += r.energy_uj;
        if (r.key && !strcmp(r.key, key))
            *key_uj += r.energy_uj;
    }
    cr_assert_eq(rc, 0, "%s", err.msg);
    wc_store_iter_close(it);
}

Test(store_results, tenants_and_process_names_stream_through_one_iterator)
{
    const char *path = db_path("tenants.db");
    build(path, 2, 0);
    trun_exec(path, TENANTS_SQL);
    wc_store *st = open_st(path, WC_STORE_READ);
    wc_error err = {{0}};
    wc_store_iter *it = NULL;
    int rows = 0;
    double uj = 0, key_uj = 0;
    cr_assert_eq(wc_store_tenant_totals_open(st, 7, WC_LEVEL_PROCESS, "package", &it, &err), 0,
                 "%s", err.msg);
    drain(it, "a", &rows, &uj, &key_uj);
    cr_assert(rows == 2 && key_uj == 125 && uj == 175, "by comm: %d rows, a %g", rows, key_uj);
    cr_assert_eq(wc_store_tenant_totals_open(st, 7, WC_LEVEL_CONTAINER, "package", &it, &err), 0);
    drain(it, "c1", &rows, &uj, &key_uj);
    cr_assert(rows == 2 && key_uj == 150, "the empty key is left out: %d rows", rows);
    cr_assert_eq(wc_store_tenant_top_open(st, 7, WC_LEVEL_CONTAINER, "package", 1, &it, &err), 0);
    drain(it, "c1", &rows, &uj, &key_uj);
    cr_assert(rows == 1 && key_uj == 150, "the largest only");
    cr_assert_eq(wc_store_tenant_rows_open(st, 7, WC_LEVEL_PROCESS, "package", WC_TENANT_ROWS_ALL,
                                           &it, &err), 0);
    drain(it, "b", &rows, &uj, &key_uj);
    cr_assert(rows == 4 && key_uj == 50, "every row");
    cr_assert_eq(wc_store_tenant_rows_open(st, 7, WC_LEVEL_PROCESS, "package",
                                           WC_TENANT_ROWS_POSITIVE, &it, &err), 0);
    drain(it, "b", &rows, &uj, &key_uj);
    cr_assert_eq(rows, 3, "rows with energy only");
    cr_assert_eq(wc_store_tenant_rows_open(st, 7, WC_LEVEL_POD, "package", WC_TENANT_ROWS_POSITIVE,
                                           &it, &err), 0);
    drain(it, "p1", &rows, &uj, &key_uj);
    cr_assert(rows == 1 && key_uj == 175);
    cr_assert_eq(wc_store_process_names_open(st, &it, &err), 0, "%s", err.msg);
    wc_tenant_row tr;
    cr_assert_eq(wc_store_tenant_next(it, &tr, &err), -EINVAL, "names are not tenant rows");
    static const int64_t ORDER[] = {1, 3, 2};
    wc_process_name_row pn;
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(wc_store_process_name_next(it, &pn, &err), 1, "%s", err.msg);
        cr_assert_eq(pn.id, ORDER[k], "by name then id");
    }
    cr_assert_str_eq(pn.comm, "b");
    cr_assert_eq(wc_store_process_name_next(it, &pn, &err), 0);
    wc_store_iter_close(it);
    wc_store_close(st);
}

Test(store_results, replay_writes_the_model_rows_and_reads_them_back)
{
    const char *path = db_path("replay.db");
    build(path, 6, 0);
    wc_store *st = open_st(path, WC_STORE_WRITE);
    wc_error err = {{0}};
    cr_assert_eq(wc_store_has_model_rows(st, WC_MODEL_IDEAL, &err), 0, "%s", err.msg);
    int64_t ticks = 0, model_id = 0;
    cr_assert_eq(wc_store_replay(st, WC_MODEL_IDEAL, &ticks, &err), 0, "%s", err.msg);
    cr_assert_eq(ticks, 6);
    cr_assert_eq(wc_store_has_model_rows(st, WC_MODEL_IDEAL, &err), 1, "%s", err.msg);
    /* the rows reach the run's last tick; a model whose rows stop short (it
     * was attributed while the run was recording) reads so */
    int64_t last_attr = -1, last = -1;
    cr_assert_eq(wc_store_model_coverage(st, WC_MODEL_IDEAL, &last_attr, &last, &err), 0, "%s",
                 err.msg);
    cr_assert(last > 0 && last_attr == last, "%lld of %lld", (long long)last_attr, (long long)last);
    cr_assert_eq(wc_store_model_coverage(st, WC_MODEL_KEPLER_010, &last_attr, &last, &err), 0);
    cr_assert_eq(last_attr, 0, "a model without rows covers nothing");
    cr_assert_eq(wc_store_find_model(st, "ideal", &model_id, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_node_has_zone(st, model_id, "package", &err), 1, "%s", err.msg);
    cr_assert_eq(wc_store_node_has_zone(st, model_id, "dram", &err), 0, "%s", err.msg);
    static const char *const PKG[] = {"package", NULL};
    wc_store_iter *rows = NULL;
    cr_assert_eq(wc_store_node_zone_rows_open(st, model_id, PKG, &rows, &err), 0, "%s", err.msg);
    wc_node_row nr;
    double joules = 0, active = 0;
    int64_t prev_tick = 0;
    int rc;
    while ((rc = wc_store_node_row_next(rows, &nr, &err)) == 1) {
        cr_assert_gt(nr.tick_id, prev_tick, "by tick");
        prev_tick = nr.tick_id;
        joules += nr.delta_uj / 1e6;
        active += nr.active_uj / 1e6;
    }
    cr_assert_eq(rc, 0, "%s", err.msg);
    wc_tenant_row tr;
    cr_assert_eq(wc_store_tenant_next(rows, &tr, &err), -EINVAL, "node rows are not tenant rows");
    wc_store_iter_close(rows);
    cr_assert_float_eq(joules, 50, 1e-6, "five 1 s intervals of 10 W");
    cr_assert(active > 0 && active <= joules + 1e-9, "the active part: %g J", active);
    cr_assert_eq(wc_store_node_zones_open(st, model_id, &rows, &err), 0, "%s", err.msg);
    const char *zone = NULL;
    cr_assert_eq(wc_store_text_next(rows, &zone, &err), 1, "%s", err.msg);
    cr_assert_str_eq(zone, "package");
    cr_assert_eq(wc_store_text_next(rows, &zone, &err), 0, "%s", err.msg);
    wc_store_iter_close(rows);
    /* replaying again replaces the rows */
    int64_t before = 0, after = 0;
    cr_assert_eq(wc_store_count_rows(st, WC_TABLE_NODE_ATTR, &before, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_replay(st, WC_MODEL_IDEAL, &ticks, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_count_rows(st, WC_TABLE_NODE_ATTR, &after, &err), 0, "%s", err.msg);
    cr_assert_eq(before, after);
    wc_store_close(st);
}

/* Sum of one column of node_attr under model name m (sqlite3 directly). */
static int64_t node_sum(const char *path, const char *m, const char *col)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT TOTAL(%s) FROM node_attr n JOIN model m ON m.id ="
                              " n.model_id WHERE m.name = '%s'", col, m);
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    int64_t v = (int64_t)sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* A run without counter zones (no RAPL) but with a power gauge (issue 14,
 * power-gauge zones): the gauge is the meter the models attribute. Two 1 s
 * intervals at 10 W: Kepler v0.11.4 and main integrate P × Δt = 10 J each,
 * ideal the trapezoid (also 10 J), and v0.10 – v0.11.3 have no such meter:
 * every refresh fails, 0 J. */
Test(store_results, replay_attributes_a_power_gauge_when_there_is_no_counter)
{
    const char *path = db_path("gauge.db");
    build(path, 3, 1);
    wc_store *st = open_st(path, WC_STORE_WRITE);
    wc_model models[] = {WC_MODEL_IDEAL, WC_MODEL_KEPLER_011, WC_MODEL_KEPLER_MAIN,
                         WC_MODEL_KEPLER_010};
    for (size_t i = 0; i < 4; i++) {
        int64_t ticks = 7;
        wc_error err = {{0}};
        cr_assert_eq(wc_store_replay(st, models[i], &ticks, &err), 0, "%s", err.msg);
        cr_assert_eq(ticks, 3);
    }
    wc_store_close(st);
    cr_assert_eq(node_sum(path, "ideal", "delta_uj"), 20000000);
    cr_assert_eq(node_sum(path, "kepler-0.11", "delta_uj"), 20000000);
    cr_assert_eq(node_sum(path, "kepler-main", "delta_uj"), 20000000);
    cr_assert_eq(node_sum(path, "kepler-0.11", "power_uw"), 30000000, "the reading, every tick");
    cr_assert_eq(node_sum(path, "kepler-0.10", "delta_uj"), 0);
    cr_assert_eq(node_sum(path, "kepler-0.10", "flags & 128"), 3 * 128, "REFRESH_FAILED");
}
