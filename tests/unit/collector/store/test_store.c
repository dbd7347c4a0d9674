/*
 * test_store.c — the SQLite store: schema, refusing to overwrite a run,
 * foreign files, untrusted strings bound as parameters, huge uint64 values,
 * and the gap computation over hand-made attribution rows (validator/gap.c).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "collector/store/store_internal.h" /* white-box: the store's own tests read its connection */
#include "validator/gap.h"
#include "tests/unit/support/test_support.h"

static const char *db_path(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", wc_test_tmpdir(), name);
    return p;
}

static wc_zone ZONES[2] = {
    {.name = "package", .socket = 0, .raw_name = "package-0", .path = "/x/intel-rapl:0",
     .parent = -1, .enabled = 1, .max_energy_range_uj = 1000000000, .kind = WC_KIND_COUNTER_UJ},
    {.name = "dram", .socket = 0, .raw_name = "dram", .path = "/x/intel-rapl:0:0", .parent = 0,
     .enabled = 1, .max_energy_range_uj = 1000000000, .kind = WC_KIND_COUNTER_UJ},
};

static wc_store *new_run(const char *path)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_run_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.host, sizeof info.host, "node'1\"; DROP TABLE run;--");
    snprintf(info.model, sizeof info.model, "kepler-0.11");
    snprintf(info.meter_kind, sizeof info.meter_kind, "rapl");
    info.provenance = WC_PROV_MEASURED;
    cr_assert_eq(wc_store_put_run(st, &info, &err), 0, "%s", err.msg);
    static const wc_meter_ops ops = {.kind = "rapl"};
    wc_meter m = {.ops = &ops, .provenance = WC_PROV_MEASURED, .zones = ZONES, .nzones = 2};
    int64_t first = 0;
    cr_assert_eq(wc_store_put_zones(st, &m, &first, &err), 0, "%s", err.msg);
    cr_assert_eq(first, 1);
    return st;
}

static int64_t query_i64(wc_store *st, const char *sql)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), SQLITE_OK, "%s", sql);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

Test(store, schema_version_and_refuses_second_run)
{
    const char *p = db_path("run.db");
    wc_store *st = new_run(p);
    cr_assert_eq(query_i64(st, "PRAGMA user_version"), WC_STORE_SCHEMA_VERSION);
    cr_assert_eq(query_i64(st, "SELECT COUNT(*) FROM run WHERE host LIKE 'node''1%DROP%'"), 1);
    cr_assert_eq(query_i64(st, "SELECT parent_id FROM zone WHERE name='dram'"), 1);
    wc_store_close(st);
    wc_error err = {{0}};
    cr_assert_null(wc_store_open(p, WC_STORE_CREATE, &err));
    cr_assert(strstr(err.msg, p) && strstr(err.msg, "already holds"), "%s", err.msg);
    st = wc_store_open(p, WC_STORE_WRITE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_store_close(st);
}

Test(store, foreign_file_is_named)
{
    const char *p = db_path("foreign.db");
    sqlite3 *db = NULL;
    sqlite3_open(p, &db);
    sqlite3_exec(db, "CREATE TABLE t(x); PRAGMA user_version=7;", NULL, NULL, NULL);
    sqlite3_close(db);
    wc_error err = {{0}};
    cr_assert_null(wc_store_open(p, WC_STORE_WRITE, &err));
    cr_assert(strstr(err.msg, p) && strstr(err.msg, "version 7"), "%s", err.msg);
}

Test(store, process_identity_and_untrusted_names)
{
    wc_store *st = new_run(db_path("proc.db"));
    wc_error err = {{0}};
    wc_proc_identity id;
    memset(&id, 0, sizeof id);
    id.pid = 4242;
    id.starttime = 777;
    snprintf(id.comm, sizeof id.comm, "x'); DROP--\n");
    snprintf(id.cgroup.container_id, sizeof id.cgroup.container_id, "%064d", 0);
    snprintf(id.cgroup.pod_uid, sizeof id.cgroup.pod_uid, "481c0ae9-7d40-46dd-b6ca-ba27cb64f87e");
    id.store_id = -1;
    wc_proc_sample sample = {.id = &id, .utime = 10, .stime = 5, .num_threads = 3};
    wc_proc_snapshot snap = {.samples = &sample, .count = 1};
    wc_cpu_times cpu = {.cpu = -1, .user = 100};
    int64_t tick = 0;
    for (int t = 0; t < 2; t++) {
        cr_assert_eq(wc_store_begin(st, &err), 0);
        cr_assert_eq(wc_store_put_tick(st, t, t * 1000, t * 1000, t, &cpu, 1, 1, 0, &tick, &err), 0);
        cr_assert_eq(wc_store_put_processes(st, tick, &snap, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_store_commit(st, &err), 0);
    }
    cr_assert_eq(query_i64(st, "SELECT COUNT(*) FROM process"), 1, "one identity for two ticks");
    /* the second tick's counters did not change: a delta tick without a row */
    cr_assert_eq(query_i64(st, "SELECT COUNT(*) FROM proc_sample"), 1);
    cr_assert_eq(query_i64(st, "SELECT COUNT(*) FROM tick WHERE proc_delta = 1"), 1);
    cr_assert_eq(query_i64(st, "SELECT COUNT(*) FROM process WHERE comm = 'x''); DROP--' || char(10)"), 1);
    cr_assert_eq(query_i64(st, "SELECT COUNT(*) FROM container"), 1);
    cr_assert_eq(query_i64(st, "SELECT COUNT(*) FROM pod"), 1);
    wc_store_close(st);
}

/* Two ticks of hand-made attribution rows for one zone: checks every column
 * of the gap report. Tick 2: node ΔE 10 J, active 6 J, idle 4 J; processes
 * 3 J + 2 J (1 J unattributed). Tick 3: active 4 J, processes 5 J (1 J over). */
Test(gap, totals_from_rows)
{
    wc_store *st = new_run(db_path("gap.db"));
    wc_error err = {{0}};
    int64_t model_id = 0, tick = 0, procs[2];
    cr_assert_eq(wc_store_model_id(st, "kepler-0.11", &model_id, &err), 0);
    wc_cpu_times cpu = {.cpu = -1};
    wc_proc_identity ids[2];
    memset(ids, 0, sizeof ids);
    wc_proc_sample samples[2];
    for (int i = 0; i < 2; i++) {
        ids[i].pid = 100 + i;
        ids[i].starttime = 1;
        snprintf(ids[i].comm, sizeof ids[i].comm, "p%d", i);
        ids[i].store_id = -1;
        samples[i] = (wc_proc_sample){.id = &ids[i]};
    }
    wc_proc_snapshot snap = {.samples = samples, .count = 2};
    const uint64_t delta[3] = {0, 10000000, 9000000}, active[3] = {0, 6000000, 4000000};
    const uint64_t pe[3][2] = {{0, 0}, {3000000, 2000000}, {4000000, 1000000}};
    const unsigned flags[3] = {WC_AF_FIRST, 0, 0};
    for (int t = 0; t < 3; t++) {
        wc_store_begin(st, &err);
        cr_assert_eq(wc_store_put_tick(st, t, (int64_t)t * 1000000000, 0, 0, &cpu, 1, 2, 0, &tick, &err), 0);
        cr_assert_eq(wc_store_put_processes(st, tick, &snap, &err), 0);
        procs[0] = ids[0].store_id;
        procs[1] = ids[1].store_id;
        wc_attr_node_out node = {.zone = "package", .delta_uj = delta[t], .active_uj = active[t],
                                 .idle_uj = delta[t] - active[t], .flags = flags[t]};
        wc_attr_work_out work[2] = {
            {.level = WC_LEVEL_PROCESS, .proc_index = 0, .zone = 0, .energy_uj = pe[t][0], .cpu_delta_s = 1},
            {.level = WC_LEVEL_PROCESS, .proc_index = 1, .zone = 0, .energy_uj = pe[t][1], .cpu_delta_s = 1},
        };
        wc_attr_out out = {.node = &node, .nnode = 1, .work = work, .nwork = 2};
        cr_assert_eq(wc_store_put_attribution(st, model_id, tick, &out, procs, &err), 0, "%s", err.msg);
        wc_store_commit(st, &err);
    }
    wc_gap_report rep;
    cr_assert_eq(wc_gap_compute(st, WC_MODEL_KEPLER_011, &rep, &err), 0, "%s", err.msg);
    cr_assert_eq(rep.nzones, 1);
    const wc_gap_zone *z = &rep.zones[0];
    cr_assert_str_eq(z->zone, "package");
    cr_assert_float_eq(z->node_joules, 19.0, 1e-9);
    cr_assert_float_eq(z->idle_joules, 9.0, 1e-9);
    cr_assert_float_eq(z->active_joules, 10.0, 1e-9);
    cr_assert_float_eq(z->process_joules, 10.0, 1e-9);
    cr_assert_float_eq(z->unattributed_joules, 1.0, 1e-9);
    cr_assert_float_eq(z->over_joules, 1.0, 1e-9);
    cr_assert_eq(z->intervals, 2);
    cr_assert_eq(rep.ntop_processes, 2);
    cr_assert_eq(rep.top_processes[0].pid, 100);
    cr_assert_float_eq(rep.top_processes[0].joules, 7.0, 1e-9);
    cr_assert_eq(wc_gap_compute(st, WC_MODEL_IDEAL, &rep, &err), -ENOENT);
    wc_store_close(st);
}

Test(store, huge_uint64_kept_as_real)
{
    wc_store *st = new_run(db_path("huge.db"));
    wc_error err = {{0}};
    int64_t model_id = 0, tick = 0;
    wc_store_model_id(st, "kepler-0.11", &model_id, &err);
    wc_cpu_times cpu = {.cpu = -1};
    wc_store_begin(st, &err);
    wc_store_put_tick(st, 0, 0, 0, 0, &cpu, 1, 0, 0, &tick, &err);
    wc_attr_node_out node = {.zone = "package"};
    wc_attr_work_out w = {.level = WC_LEVEL_CONTAINER, .key = "c", .energy_uj = UINT64_MAX - 5,
                          .flags = WC_AF_NEGATIVE_SHARE};
    wc_attr_out out = {.node = &node, .nnode = 1, .work = &w, .nwork = 1};
    cr_assert_eq(wc_store_put_attribution(st, model_id, tick, &out, NULL, &err), 0);
    wc_store_commit(st, &err);
    sqlite3_stmt *s = NULL;
    sqlite3_prepare_v2(st->db, "SELECT energy_uj, typeof(energy_uj) FROM work_attr", -1, &s, NULL);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(s, 1), "real");
    cr_assert_float_eq(sqlite3_column_double(s, 0), 1.8446744073709552e19, 1e4);
    sqlite3_finalize(s);
    wc_store_close(st);
}

/* Raw counters keep their bits: a value >= 2^63 reads back exactly when cast
 * to uint64_t (offline replay must see what the recorder saw). */
Test(store, raw_u64_round_trip)
{
    wc_store *st = new_run(db_path("raw.db"));
    wc_error err = {{0}};
    int64_t tick = 0;
    wc_cpu_times cpu = {.cpu = -1, .user = UINT64_MAX - 1, .idle = (1ULL << 63) + 7};
    wc_reading r[2] = {{.value = UINT64_MAX, .status = 0}, {.value = 0, .status = -ENOENT}};
    wc_store_begin(st, &err);
    cr_assert_eq(wc_store_put_tick(st, 0, 0, 0, 0, &cpu, 1, 0, 0, &tick, &err), 0);
    cr_assert_eq(wc_store_put_zone_samples(st, tick, 1, r, 2, &err), 0);
    wc_store_commit(st, &err);
    cr_assert_eq((uint64_t)query_i64(st, "SELECT cpu_user FROM tick"), UINT64_MAX - 1);
    cr_assert_eq((uint64_t)query_i64(st, "SELECT cpu_idle FROM tick"), (1ULL << 63) + 7);
    cr_assert_eq((uint64_t)query_i64(st, "SELECT value FROM zone_sample WHERE zone_id=1"), UINT64_MAX);
    cr_assert_eq(query_i64(st, "SELECT value IS NULL FROM zone_sample WHERE zone_id=2"), 1);
    cr_assert_eq(query_i64(st, "SELECT status FROM zone_sample WHERE zone_id=2"), -ENOENT);
    wc_store_close(st);
}

Test(store, empty_path_and_foreign_db_refused)
{
    wc_error err = {{0}};
    cr_assert_null(wc_store_open("", WC_STORE_CREATE, &err));
    cr_assert(strstr(err.msg, "empty") != NULL, "%s", err.msg);
    const char *p = db_path("app.db");
    sqlite3 *db = NULL;
    sqlite3_open(p, &db);
    sqlite3_exec(db, "CREATE TABLE customers(id)", NULL, NULL, NULL);
    sqlite3_close(db);
    cr_assert_null(wc_store_open(p, WC_STORE_CREATE, &err));
    cr_assert(strstr(err.msg, "another application") && strstr(err.msg, p), "%s", err.msg);
}
