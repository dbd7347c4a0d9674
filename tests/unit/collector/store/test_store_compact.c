/*
 * test_store_compact.c — the compact workload rows of a version-6 run
 * (collector/store/store_work_energy.c, issue 15): which zones become slots
 * and which stay absent, power left NULL only when the view derives it bit
 * for bit (C and SQLite compute the same doubles), terminated rows (with and
 * without a process row), interned keys, a model with other zones, a run
 * with no attribution, and a run whose work_attr is a table (schema 5 and
 * older) still written row by row.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "collector/store/store_internal.h" /* white-box: reads the connection */
#include "collector/store/store_read.h"
#include "collector/store/store_results.h"
#include "tests/unit/support/test_support.h"

static const char *db_path(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", wc_test_tmpdir(), name);
    return p;
}

static wc_store *new_run(const char *path)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_run_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.model, sizeof info.model, "kepler-0.11");
    cr_assert_eq(wc_store_put_run(st, &info, &err), 0, "%s", err.msg);
    return st;
}

static int64_t q_i64(wc_store *st, const char *sql)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(st->db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* One column of the first row of sql as a double (NAN for NULL). */
static double q_real(wc_store *st, const char *sql)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(st->db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    double v = sqlite3_column_type(s, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A tick with two zones: process 0 busy (derived power in package, another
 * power in dram), process 1 idle (no row), container "c1" with only dram
 * flagged, pod "p1" with a NaN power. */
static void put_tick(wc_store *st, int64_t model_id, int t, const int64_t *procs,
                     const char *zone0, int *rc_out, wc_error *err)
{
    int64_t tick = 0;
    wc_cpu_times cpu = {.cpu = -1};
    cr_assert_eq(wc_store_begin(st, err), 0);
    cr_assert_eq(wc_store_put_tick(st, t, (int64_t)t * 1000000000, 0, 0, &cpu, 1, 2, 0, &tick,
                                   err), 0, "%s", err->msg);
    wc_attr_node_out node[2] = {
        {.delta_uj = 9000000, .active_uj = 6000000, .active_uw = 6000000.123},
        {.zone = "dram", .delta_uj = 1000000, .active_uj = 500000, .active_uw = 500000.7},
    };
    snprintf(node[0].zone, sizeof node[0].zone, "%s", zone0);
    double d = 0.37, c0 = 0.11;
    wc_attr_work_out w[8] = {
        {.level = WC_LEVEL_PROCESS, .proc_index = 0, .zone = 0, .cpu_delta_s = c0,
         .energy_uj = 1234, .total_uj = 5000, .power_uw = (c0 / d) * node[0].active_uw},
        {.level = WC_LEVEL_PROCESS, .proc_index = 0, .zone = 1, .cpu_delta_s = c0,
         .energy_uj = 99, .total_uj = 199, .power_uw = 42.5},
        {.level = WC_LEVEL_PROCESS, .proc_index = 1, .zone = 0, .key = ""},
        {.level = WC_LEVEL_PROCESS, .proc_index = 1, .zone = 1, .key = ""},
        {.level = WC_LEVEL_CONTAINER, .key = "c1", .zone = 0},
        {.level = WC_LEVEL_CONTAINER, .key = "c1", .zone = 1, .flags = WC_AF_SKIPPED},
        {.level = WC_LEVEL_POD, .key = "p1", .zone = 0, .energy_uj = 7, .power_uw = NAN},
        {.level = WC_LEVEL_POD, .key = "p1", .zone = 1, .energy_uj = 8, .power_uw = -0.0,
         .flags = WC_AF_SKIPPED},
    };
    wc_attr_out out = {.node = node, .nnode = 2, .work = w, .nwork = 8, .cpu_delta_sum_s = d};
    *rc_out = wc_store_put_attribution(st, model_id, tick, &out, procs, err);
    if (*rc_out)
        wc_store_rollback(st);
    else
        cr_assert_eq(wc_store_commit(st, err), 0, "%s", err->msg);
}

Test(store_compact, slots_absence_derived_power_and_interned_keys)
{
    wc_store *st = new_run(db_path("compact.db"));
    wc_error err = {{0}};
    int64_t model_id = 0, procs[2] = {1, 2};
    cr_assert_eq(wc_store_model_id(st, "kepler-0.11", &model_id, &err), 0);
    int rc = 0;
    for (int t = 0; t < 3; t++) {
        put_tick(st, model_id, t, procs, "package", &rc, &err);
        cr_assert_eq(rc, 0, "%s", err.msg);
    }
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM attr_zone"), 2);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_key"), 2, "c1 and p1 once each");
    /* per tick: process 0, the container, the pod; process 1 has no row */
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_energy"), 9);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr"), 3 * (2 + 1 + 2));
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_energy WHERE level = 2 AND f0 IS NULL"
                           " AND e0 IS NULL AND f1 IS NOT NULL"), 3, "the container's package slot absent");
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_energy WHERE level = 1 AND p0 IS NULL"
                           " AND p1 = 42.5"), 3, "derived power NULL, another stored");
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_energy WHERE level = 3 AND p0 IS NULL"
                           " AND p1 = 0"), 3, "NaN stored (as NULL, as the table did), 0 stored");
    /* the view's derived power is the writer's double, bit for bit */
    double want = (0.11 / 0.37) * 6000000.123;
    double got = q_real(st, "SELECT power_uw FROM work_attr WHERE level = 1 AND zone = 'package'"
                            " AND tick_id = 2");
    cr_assert(same_bits(got, want), "%.17g vs %.17g", got, want);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr WHERE level = 2 AND key = 'c1'"
                           " AND zone = 'dram' AND process_id IS NULL"), 3);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr WHERE level = 1 AND process_id = 1"
                           " AND key = '' AND cpu_delta_s = 0.11"), 6);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_energy WHERE level = 1"
                           " AND typeof(cpu_delta_s) = 'integer' AND cpu_delta_s = 11"), 3,
                 "0.11 s kept as 11 centiseconds");
    wc_store_close(st);
}

/* The hot reader hands out one row per present slot, as the table's scan did. */
Test(store_compact, work_rows_stream_per_present_slot)
{
    wc_store *st = new_run(db_path("stream.db"));
    wc_error err = {{0}};
    int64_t model_id = 0, procs[2] = {1, 2};
    wc_store_model_id(st, "kepler-0.11", &model_id, &err);
    int rc = 0;
    for (int t = 0; t < 2; t++)
        put_tick(st, model_id, t, procs, "package", &rc, &err);
    wc_store_iter *it = NULL;
    cr_assert_eq(wc_store_work_rows_open(st, model_id, 0, &it, &err), 0, "%s", err.msg);
    wc_work_row r;
    int n = 0, nproc = 0, ncont = 0;
    int64_t last_tick = 0;
    while ((rc = wc_store_work_row_next(it, &r, &err)) == 1) {
        cr_assert_geq(r.tick_id, last_tick, "tick order");
        last_tick = r.tick_id;
        n++;
        if (r.level == WC_LEVEL_PROCESS) {
            nproc++;
            cr_assert_eq(r.process_id, 1);
            cr_assert_eq(r.cpu_delta_s, 0.11);
            cr_assert_eq(r.energy_uj, strcmp(r.zone, "package") ? 99 : 1234);
        } else if (r.level == WC_LEVEL_CONTAINER) {
            ncont++;
            cr_assert_str_eq(r.zone, "dram");
            cr_assert_str_eq(r.key, "c1");
            cr_assert_eq(r.flags, WC_AF_SKIPPED);
        }
    }
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(n, 10);
    cr_assert_eq(nproc, 4);
    cr_assert_eq(ncont, 2);
    wc_store_iter_close(it);
    wc_store_close(st);
}

/* C and SQLite compute the same doubles for (cpu / D) × activeP, and for
 * centiseconds / 100. */
Test(store_compact, c_and_sqlite_derive_the_same_doubles)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT (?1 / ?2) * ?3", -1, &s, NULL), SQLITE_OK);
    unsigned seed = 15;
    for (int i = 0; i < 200000; i++) {
        double cpu = (double)rand_r(&seed) / RAND_MAX * (i % 7 ? 2.0 : 1e-6);
        double d = (double)rand_r(&seed) / RAND_MAX * 64.0 + 1e-9;
        double a = (double)rand_r(&seed) / RAND_MAX * 3e8;
        volatile double q = (cpu / d) * a;
        sqlite3_bind_double(s, 1, cpu);
        sqlite3_bind_double(s, 2, d);
        sqlite3_bind_double(s, 3, a);
        cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
        double got = sqlite3_column_double(s, 0);
        cr_assert(same_bits(got, q), "%.17g / %.17g * %.17g: C %.17g, SQLite %.17g", cpu, d, a,
                  q, got);
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    /* ... and a centisecond CPU delta back to seconds */
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT ?1 / 100.0", -1, &s, NULL), SQLITE_OK);
    for (int64_t c = -1000; c < 2000000; c += 7) {
        sqlite3_bind_int64(s, 1, c);
        cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
        volatile double want = (double)c / 100.0;
        cr_assert(same_bits(sqlite3_column_double(s, 0), want), "%lld", (long long)c);
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
}

/* Terminated workloads: a process found by (pid, starttime) keeps its id, one
 * not found gets a negative wid of its own (no collision, process_id NULL). */
Test(store_compact, terminated_rows_with_and_without_a_process)
{
    wc_store *st = new_run(db_path("term.db"));
    wc_error err = {{0}};
    int64_t model_id = 0, tick = 0;
    wc_store_model_id(st, "kepler-0.11", &model_id, &err);
    cr_assert_eq(sqlite3_exec(st->db, "INSERT INTO process(id, pid, starttime) VALUES(7, 70, 5)",
                              NULL, NULL, NULL), SQLITE_OK);
    wc_cpu_times cpu = {.cpu = -1};
    wc_store_begin(st, &err);
    wc_store_put_tick(st, 0, 0, 0, 0, &cpu, 1, 0, 0, &tick, &err);
    wc_attr_node_out node = {.zone = "package", .active_uw = 5};
    wc_attr_term_out term[4] = {
        {.level = WC_LEVEL_PROCESS, .pid = 70, .starttime = 5, .key = "", .total_uj = 11e6,
         .power_uw = 3},
        {.level = WC_LEVEL_PROCESS, .pid = 80, .starttime = 1, .key = "", .total_uj = 12e6},
        {.level = WC_LEVEL_PROCESS, .pid = 80, .starttime = 2, .key = "", .total_uj = 13e6},
        {.level = WC_LEVEL_POD, .key = "p9", .total_uj = 14e6, .power_uw = 1.5},
    };
    wc_attr_out out = {.node = &node, .nnode = 1, .term = term, .nterm = 4};
    cr_assert_eq(wc_store_put_attribution(st, model_id, tick, &out, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_commit(st, &err), 0);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_energy WHERE term = 1"), 4);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_energy WHERE wid < 0"), 2);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr WHERE flags = 4096 AND energy_uj = 0"
                           " AND cpu_delta_s = 0"), 4);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr WHERE level = 1 AND process_id IS NULL"
                           " AND key = ''"), 2);
    cr_assert_eq(q_i64(st, "SELECT total_uj FROM work_attr WHERE process_id = 7"), 11000000);
    cr_assert_eq(q_real(st, "SELECT power_uw FROM work_attr WHERE key = 'p9'"), 1.5);
    /* the levels never see them */
    wc_store_iter *it = NULL;
    wc_work_row r;
    cr_assert_eq(wc_store_work_rows_open(st, model_id, 0, &it, &err), 0);
    cr_assert_eq(wc_store_work_row_next(it, &r, &err), 0);
    wc_store_iter_close(it);
    wc_store_close(st);
}

/* A second model with another zone list adds slots; a zone named twice is refused. */
Test(store_compact, other_zones_add_slots_and_a_repeated_zone_is_refused)
{
    wc_store *st = new_run(db_path("zones.db"));
    wc_error err = {{0}};
    int64_t m1 = 0, m2 = 0, procs[2] = {1, 2};
    wc_store_model_id(st, "kepler-0.11", &m1, &err);
    wc_store_model_id(st, "kepler-main", &m2, &err);
    int rc = 0;
    put_tick(st, m1, 0, procs, "package", &rc, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    put_tick(st, m2, 1, procs, "ppt", &rc, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM attr_zone"), 3);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr WHERE zone = 'ppt' AND model_id = 2"), 2);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr WHERE zone = 'package'"), 2);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr WHERE zone = 'dram'"), 6);
    put_tick(st, m2, 2, procs, "dram", &rc, &err);
    cr_assert_eq(rc, -EINVAL);
    cr_assert(strstr(err.msg, "zone 'dram' given twice"), "%s", err.msg);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM tick"), 2, "the failed tick rolled back");
    wc_store_close(st);
}

/* No attribution: every reader answers empty, no "no such table". */
Test(store_compact, a_run_without_attribution_reads_empty)
{
    wc_store *st = new_run(db_path("none.db"));
    wc_error err = {{0}};
    cr_assert_eq(wc_store_finish_run(st, 1, 1, 0, 1, &err), 0, "%s", err.msg);
    int64_t n = -1;
    cr_assert_eq(wc_store_count_rows(st, WC_TABLE_WORK_ATTR, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 0);
    wc_store_iter *it = NULL;
    wc_work_row r;
    cr_assert_eq(wc_store_work_rows_open(st, 1, 0, &it, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_work_row_next(it, &r, &err), 0);
    wc_store_iter_close(it);
    wc_tenant_row t;
    cr_assert_eq(wc_store_tenant_totals_open(st, 1, WC_LEVEL_POD, "package", &it, &err), 0);
    cr_assert_eq(wc_store_tenant_next(it, &t, &err), 0);
    wc_store_iter_close(it);
    wc_vm_total v;
    cr_assert_eq(wc_store_vm_totals_open(st, 1, &it, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_vm_total_next(it, &v, &err), 0);
    wc_store_iter_close(it);
    wc_store_close(st);
}

/* A run whose work_attr is a table (schema 5 and older: no attr_zone) is
 * written row by row as before, and its model cleared from the table. */
Test(store_compact, a_table_run_is_still_written_row_by_row)
{
    char path[512];
    snprintf(path, sizeof path, "%s", db_path("table.db"));
    wc_store *st = new_run(path);
    cr_assert_eq(sqlite3_exec(st->db, "DROP TABLE attr_zone; DROP TABLE work_key;", NULL, NULL,
                              NULL), SQLITE_OK);
    wc_store_close(st);
    wc_error err = {{0}};
    st = wc_store_open(path, WC_STORE_WRITE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    int64_t model_id = 0, procs[2] = {1, 2};
    wc_store_model_id(st, "kepler-0.11", &model_id, &err);
    int rc = 0;
    put_tick(st, model_id, 0, procs, "package", &rc, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'work_attr'"
                           " AND type = 'table'"), 1);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'work_energy'"), 0);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr"), 5);
    cr_assert_eq(wc_store_clear_model(st, model_id, &err), 0, "%s", err.msg);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr"), 0);
    wc_store_close(st);
}

/* Re-attributing a compact run clears the model's rows from work_energy;
 * SQL fixtures go through the view's triggers. */
Test(store_compact, clear_and_view_triggers)
{
    wc_store *st = new_run(db_path("clear.db"));
    wc_error err = {{0}};
    int64_t model_id = 0, procs[2] = {1, 2};
    wc_store_model_id(st, "kepler-0.11", &model_id, &err);
    int rc = 0;
    put_tick(st, model_id, 0, procs, "package", &rc, &err);
    cr_assert_eq(sqlite3_exec(st->db, "INSERT INTO work_attr(model_id, tick_id, level, key, zone,"
                              " energy_uj) VALUES(1, 1, 4, 'vm-1', 'dram', 77)", NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(st->db));
    cr_assert_eq(q_i64(st, "SELECT energy_uj FROM work_attr WHERE key = 'vm-1'"), 77);
    cr_assert_neq(sqlite3_exec(st->db, "INSERT INTO work_attr(model_id, tick_id, level, key, zone,"
                               " energy_uj) VALUES(1, 1, 4, 'vm-1', 'bogus', 1)", NULL, NULL, NULL),
                  SQLITE_OK, "an unknown zone is refused");
    cr_assert_eq(sqlite3_exec(st->db, "DELETE FROM work_attr WHERE level = 2", NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(st->db));
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_energy WHERE level = 2"), 0);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr"), 5);
    cr_assert_eq(wc_store_clear_model(st, model_id, &err), 0, "%s", err.msg);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr"), 0);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM node_attr"), 0);
    wc_store_close(st);
}

/* A tick with more workloads than the writer's queue holds (QUEUE_MAX,
 * 1024: a first tick charging every process its lifetime CPU) is written
 * in runs: every row stored once, exactly, busy or not. */
Test(store_compact, a_tick_with_more_rows_than_the_queue)
{
    enum { NP = 2600, NK = 400 };
    wc_store *st = new_run(db_path("compact_big.db"));
    wc_error err = {{0}};
    int64_t model_id = 0, tick = 0;
    cr_assert_eq(wc_store_model_id(st, "kepler-0.11", &model_id, &err), 0);
    wc_cpu_times cpu = {.cpu = -1};
    cr_assert_eq(wc_store_begin(st, &err), 0);
    cr_assert_eq(wc_store_put_tick(st, 1, 1000000000, 0, 0, &cpu, 1, 2, 0, &tick, &err), 0, "%s",
                 err.msg);
    wc_attr_node_out node[1] = {{.zone = "package", .delta_uj = 9000000, .active_uj = 6000000,
                                 .active_uw = 6000000}};
    static wc_attr_work_out w[NP + NK];
    static int64_t procs[NP];
    static char keys[NK][16];
    for (int i = 0; i < NP; i++) {
        procs[i] = NP - i; /* row ids against scan order: the rows need sorting */
        double c = (i % 3) ? 0.01 * (i % 50 + 1) : 0; /* a third idle: no row */
        w[i] = (wc_attr_work_out){.level = WC_LEVEL_PROCESS, .proc_index = (size_t)i,
                                  .cpu_delta_s = c, .energy_uj = c > 0 ? 1000 + (uint64_t)i : 0,
                                  .total_uj = c > 0 ? 5000 + (uint64_t)i : 0, .power_uw = c > 0 ? 3.5 : 0};
    }
    for (int k = 0; k < NK; k++) {
        snprintf(keys[k], sizeof keys[k], "c%04d", NK - k);
        w[NP + k] = (wc_attr_work_out){.level = WC_LEVEL_CONTAINER, .key = keys[k],
                                       .energy_uj = 10 + (uint64_t)k, .power_uw = 1};
    }
    wc_attr_out out = {.node = node, .nnode = 1, .work = w, .nwork = NP + NK, .cpu_delta_sum_s = 7};
    cr_assert_eq(wc_store_put_attribution(st, model_id, tick, &out, procs, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_commit(st, &err), 0, "%s", err.msg);
    int64_t busy = 0;
    for (int i = 0; i < NP; i++)
        busy += (i % 3) != 0;
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_energy WHERE level = 1"), busy);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_energy WHERE level = 2"), NK);
    cr_assert_eq(q_i64(st, "SELECT COUNT(DISTINCT wid) FROM work_energy WHERE level = 1"), busy);
    /* each busy process i (row id NP - i) kept its own energy and total */
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr WHERE level = 1 AND energy_uj ="
                           " 1000 + (2600 - process_id) AND total_uj = 5000 + (2600 - process_id)"),
                 busy);
    cr_assert_eq(q_i64(st, "SELECT SUM(energy_uj) FROM work_attr WHERE level = 2"),
                 10 * NK + NK * (NK - 1) / 2);
    wc_store_close(st);
}

/* The workload rows a finished run keeps, as one checksum of the view. */
static int64_t view_sum(wc_store *st)
{
    return q_i64(st, "SELECT SUM(tick_id * 7 + process_id * 3 + energy_uj + total_uj"
                     " + CAST(power_uw * 1000 AS INTEGER) + flags) FROM work_attr");
}

/* A finished compact run of NT ticks of 1,500 busy processes each (about
 * 2 MB: its workload pages about 88 % full, as record leaves them). */
static wc_store *busy_finished_run(const char *name)
{
    enum { NP = 1500, NT = 12 };
    wc_store *st = new_run(db_path(name));
    wc_error err = {{0}};
    int64_t model_id = 0;
    cr_assert_eq(wc_store_model_id(st, "kepler-0.11", &model_id, &err), 0);
    wc_cpu_times cpu = {.cpu = -1};
    wc_attr_node_out node[1] = {{.zone = "package", .delta_uj = 9000000, .active_uj = 6000000,
                                 .active_uw = 6000000}};
    static wc_attr_work_out w[NP];
    static int64_t procs[NP];
    for (int t = 1; t <= NT; t++) {
        int64_t tick = 0;
        cr_assert_eq(wc_store_begin(st, &err), 0);
        cr_assert_eq(wc_store_put_tick(st, t, (int64_t)t * 1000000000, 0, 0, &cpu, 1, 2, 0, &tick,
                                       &err), 0, "%s", err.msg);
        for (int i = 0; i < NP; i++) {
            procs[i] = i + 1;
            double c = 0.01 * ((i + t) % 50 + 1);
            w[i] = (wc_attr_work_out){.level = WC_LEVEL_PROCESS, .proc_index = (size_t)i,
                                      .cpu_delta_s = c, .energy_uj = 1000 + (uint64_t)(i * t),
                                      .total_uj = 5000000000 + (uint64_t)(i * t), .power_uw = 3.5};
        }
        wc_attr_out out = {.node = node, .nnode = 1, .work = w, .nwork = NP, .cpu_delta_sum_s = 7};
        cr_assert_eq(wc_store_put_attribution(st, model_id, tick, &out, procs, &err), 0, "%s",
                     err.msg);
        cr_assert_eq(wc_store_commit(st, &err), 0, "%s", err.msg);
    }
    cr_assert_eq(wc_store_finish_run(st, 1, 1, NT, 1, &err), 0, "%s", err.msg);
    return st;
}

Test(store_compact, compacting_a_finished_run_frees_its_pages_and_keeps_its_rows)
{
    enum { NP = 1500, NT = 12 };
    wc_store *st = busy_finished_run("compact_vacuum.db");
    wc_error err = {{0}};
    int64_t pages = q_i64(st, "PRAGMA page_count"), sum = view_sum(st);
    int64_t rows = q_i64(st, "SELECT COUNT(*) FROM work_attr");
    cr_assert_eq(wc_store_compact(st, NULL, 0, &err), 0, "%s", err.msg);
    int64_t after = q_i64(st, "PRAGMA page_count");
    cr_assert_lt(after, pages, "no page freed: %lld of %lld", (long long)after, (long long)pages);
    cr_assert_eq(q_i64(st, "PRAGMA freelist_count"), 0);
    cr_assert_eq(q_i64(st, "SELECT COUNT(*) FROM work_attr"), rows);
    cr_assert_eq(rows, (int64_t)NP * NT);
    cr_assert_eq(view_sum(st), sum, "the rows changed");
    wc_store_close(st);
}

/* Raises the signal counter until told to stop (a user pressing Ctrl-C again
 * while the run is compacted). */
typedef struct presser {
    volatile sig_atomic_t counter;
    volatile int done;
} presser;

static void *press(void *arg)
{
    presser *p = arg;
    while (!p->done)
        p->counter = (sig_atomic_t)((p->counter + 1) % 100);
    return NULL;
}

Test(store_compact, a_further_signal_stops_the_compaction_and_keeps_the_run)
{
    wc_store *st = busy_finished_run("compact_stopped.db");
    int64_t pages = q_i64(st, "PRAGMA page_count"), sum = view_sum(st);
    wc_error err = {{0}};
    int stopped = 0;
    for (int attempt = 0; attempt < 5 && !stopped; attempt++) {
        presser p = {0, 0};
        pthread_t t;
        cr_assert_eq(pthread_create(&t, NULL, press, &p), 0);
        int rc = wc_store_compact(st, &p.counter, p.counter, &err);
        p.done = 1;
        pthread_join(t, NULL);
        if (rc == 0) { /* the other thread did not run in time: compacted; again */
            pages = q_i64(st, "PRAGMA page_count");
            continue;
        }
        cr_assert_eq(rc, -EINTR, "%s", err.msg);
        cr_assert(strstr(err.msg, "compacting the finished run (VACUUM) stopped by a signal. The"
                                  " run is complete and unchanged"), "%s", err.msg);
        cr_assert_eq(q_i64(st, "PRAGMA page_count"), pages, "the stopped compaction changed the file");
        cr_assert_eq(view_sum(st), sum);
        stopped = 1;
    }
    wc_store_close(st);
    cr_assert(stopped, "five compactions ran before the other thread changed the counter once");
}
