/*
 * test_import.c — `wattcal import` (collector/import/import.c): a Green Metrics Tool
 * folder (RAPL interval energies into a counter, the MCP AC log as ground
 * truth with its unmarked x10000 unit change, utilisation, phases.json, the
 * underflow log), CodeCarbon and Kepler-legacy CSVs through the generic column
 * mapping, and an end-to-end import of an own CSV whose tables are queried.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/import/import.h"
#include "collector/store/store.h"
#include "tests/unit/support/test_support.h"

#define GMT "corpus/datasets/gmt-framework-laptop-2025-10"
#define CODECARBON "corpus/datasets/codecarbon-cpu-load-profiling"

static const char *db_path(void)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/run.db", wc_test_tmpdir());
    return p;
}

static wc_import_target target(const char *db)
{
    return (wc_import_target){.db_path = db, .provenance = WC_PROV_MEASURED,
                              .command_line = "wattcal import (test)"};
}

static const char *gmt_file(const char *name)
{
    static char p[8][1024];
    static int next;
    char rel[256];
    snprintf(rel, sizeof rel, GMT "/%s", name);
    char *out = p[next++ % 8];
    snprintf(out, sizeof p[0], "%s", wc_shared_fixture(rel));
    return out;
}

/* --- reading the DB back --- */

static sqlite3 *open_db(const char *path)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", path);
    return db;
}

static int64_t q_i64(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

static double q_dbl(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    double v = sqlite3_column_type(s, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
}

static const char *q_text(sqlite3 *db, const char *sql)
{
    static char buf[1024];
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    const unsigned char *t = sqlite3_column_text(s, 0);
    snprintf(buf, sizeof buf, "%s", t ? (const char *)t : "(null)");
    sqlite3_finalize(s);
    return buf;
}

/* --- column mappings --- */

Test(import, column_mappings)
{
    wc_import_col c;
    wc_error err = {{0}};
    cr_assert_eq(wc_import_parse_col("rapl_energy:package-1:kWh", WC_IMPORT_ENERGY, &c, &err), 0,
                 "%s", err.msg);
    cr_assert_str_eq(c.column, "rapl_energy");
    cr_assert_str_eq(c.zone, "package");
    cr_assert_eq(c.socket, 1);
    cr_assert_str_eq(c.unit, "kwh");
    cr_assert_float_eq(c.scale, 3.6e12, 0);
    cr_assert_eq(wc_import_parse_col("a:b:psys:uj", WC_IMPORT_COUNTER, &c, &err), 0, "%s", err.msg);
    cr_assert_str_eq(c.column, "a:b");
    cr_assert_eq(c.socket, -1);
    cr_assert_eq(wc_import_parse_col("Tapo power:w", WC_IMPORT_TRUTH, &c, &err), 0, "%s", err.msg);
    cr_assert_str_eq(c.column, "Tapo power");
    cr_assert_float_eq(c.scale, 1.0, 0);
    cr_assert_eq(wc_import_parse_col("gpu:gpu:mw", WC_IMPORT_POWER, &c, &err), 0);
    cr_assert_float_eq(c.scale, 1e3, 0);
    cr_assert_eq(wc_import_parse_col("x:package:w", WC_IMPORT_COUNTER, &c, &err), -EINVAL);
    cr_assert(strstr(err.msg, "--counter-col x:package:w: unit 'w' is not one of uj|mj|j|wh|kwh"),
              "%s", err.msg);
    cr_assert_eq(wc_import_parse_col("x:Package:uj", WC_IMPORT_COUNTER, &c, &err), -EINVAL);
    cr_assert(strstr(err.msg, "ZONE like package"), "%s", err.msg);
    cr_assert_eq(wc_import_parse_col("package:uj", WC_IMPORT_COUNTER, &c, &err), -EINVAL);
    cr_assert_eq(wc_import_parse_col(":w", WC_IMPORT_TRUTH, &c, &err), -EINVAL);
    cr_assert_eq(wc_import_parse_col("watts", WC_IMPORT_TRUTH, &c, &err), -EINVAL);
    cr_assert(strstr(err.msg, "expected NAME:UNIT"), "%s", err.msg);
}

/* --- Green Metrics Tool --- */

Test(import, gmt_folder_end_to_end)
{
    const char *dir = gmt_file("phases.json");
    char folder[1024];
    snprintf(folder, sizeof folder, "%.*s", (int)(strrchr(dir, '/') - dir), dir);
    wc_import_gmt_opts o = {.dir = folder};
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.ticks, 200);
    cr_assert_eq(sum.zones, 1);
    cr_assert_eq(sum.truth_samples, 201);
    cr_assert_eq(sum.phases, 11);
    cr_assert_eq(sum.util_ticks, 200);
    cr_assert_eq(sum.rejected_samples, 0);
    cr_assert(strstr(sum.notes, "values read as microwatts (inferred"), "%s", sum.notes);

    sqlite3 *d = open_db(db);
    cr_assert_str_eq(q_text(d, "SELECT meter_kind||'/'||provenance||'/'||host FROM run"),
                     "import/measured/imported");
    cr_assert_eq(q_i64(d, "SELECT ticks FROM run"), 200);
    cr_assert_eq(q_i64(d, "SELECT clean_stop FROM run"), 1);
    /* Origin: the [BASELINE] phase start, the earliest time imported. */
    cr_assert_eq(q_i64(d, "SELECT started_wall_ns FROM run"), 1759592247440278000LL);
    cr_assert_eq(q_i64(d, "SELECT ended_mono_ns FROM run"),
                 1759592267399383000LL - 1759592247440278000LL);
    cr_assert_eq(q_i64(d, "SELECT mono_ns FROM tick WHERE seq=0"), 89495000);
    cr_assert_eq(q_i64(d, "SELECT wall_ns FROM tick WHERE seq=199"), 1759592267299490000LL);
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM tick WHERE cpu_ok=0"), 200);
    cr_assert_str_eq(q_text(d, "SELECT name||' '||socket||' '||raw_name||' '||kind FROM zone"),
                     "package 0 Package_0 counter_uj");
    /* The counter holds every interval energy: 200 lines, 89.356042 J. */
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample JOIN tick ON tick.id=tick_id WHERE seq=0"),
                 397277);
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample JOIN tick ON tick.id=tick_id WHERE seq=199"),
                 89356042);
    cr_assert_eq(q_i64(d, "SELECT MAX(value)-MIN(value) FROM zone_sample"), 88958765);
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM zone_sample WHERE status<>0"), 0);
    /* Ground truth: microwatts -> W. */
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM truth_sample WHERE status='ok'"), 201);
    cr_assert_float_eq(q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns LIMIT 1"),
                       9553.228173, 1e-9);
    cr_assert_float_eq(
        q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns DESC LIMIT 1"),
        21284.793215, 1e-9);
    cr_assert_eq(q_i64(d, "SELECT poll_mono_ns FROM truth_sample ORDER BY poll_wall_ns LIMIT 1"),
                 1759592247532228000LL - 1759592247440278000LL);
    cr_assert_str_eq(q_text(d, "SELECT kind||' '||provenance FROM truth_source"),
                     "import ground truth");
    /* Utilisation: latest sample at or before each tick, ratio x 10000 -> %. */
    cr_assert_float_eq(q_dbl(d, "SELECT util_pct FROM tick WHERE seq=0"), 1.26, 1e-12);
    cr_assert_float_eq(q_dbl(d, "SELECT util_pct FROM tick WHERE seq=1"), 16.66, 1e-12);
    cr_assert_float_eq(q_dbl(d, "SELECT util_pct FROM tick WHERE seq=199"), 2.53, 1e-12);
    /* Phases. */
    cr_assert_str_eq(q_text(d, "SELECT group_concat(name, '|') FROM (SELECT name FROM phase ORDER BY id)"),
                     "[BASELINE]|[INSTALLATION]|[BOOT]|[IDLE]|[RUNTIME]|Idle a bit|Hidden warmup|"
                     "Stress|Download|Hidden cleanup|[REMOVE]");
    cr_assert_str_eq(q_text(d, "SELECT class||' '||start_wall_ns||' '||end_wall_ns||' '||start_mono_ns"
                               "||' '||repetition FROM phase WHERE name='Stress'"),
                     "runtime 1759592263190497000 1759592264373945000 15750219000 1");
    cr_assert_str_eq(q_text(d, "SELECT class FROM phase WHERE name='Hidden warmup'"), "hidden");
    cr_assert_str_eq(q_text(d, "SELECT class FROM phase WHERE name='[RUNTIME]'"), "gmt");
    cr_assert_eq(q_i64(d, "SELECT start_mono_ns FROM phase WHERE name='[BASELINE]'"), 0);
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM node_attr") + q_i64(d, "SELECT COUNT(*) FROM process"),
                 0);
    cr_assert_eq(q_i64(d, "PRAGMA user_version"), WC_STORE_SCHEMA_VERSION);
    sqlite3_close(d);

    /* The DB opens as a wattcal run. */
    wc_store *st = wc_store_open(db, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_store_close(st);
}

Test(import, gmt_pre_2026_psu_log_is_refused_until_declared)
{
    wc_import_gmt_opts o = {.rapl_path = gmt_file("cpu_energy_rapl_msr_component.log"),
                            .psu_path = gmt_file("psu_energy_ac_mcp_machine.pre-2026-04.log")};
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "psu_energy_ac_mcp_machine.pre-2026-04.log: the MCP value column "
                              "carries no unit"), "%s", err.msg);
    cr_assert(strstr(err.msg, "microwatts (GMT since 2026-04) gives a median of 0.719 W"), "%s",
              err.msg);
    cr_assert(strstr(err.msg, "centiwatts (GMT before 2026-04) a median of 7193.6 W"), "%s",
              err.msg);
    cr_assert(strstr(err.msg, "--gmt-psu-unit uw or --gmt-psu-unit cw"), "%s", err.msg);
    cr_assert(strstr(err.msg, "CPU package alone draws a median of"), "%s", err.msg);
    cr_assert_neq(access(db, F_OK), 0, "a refused import left %s behind", db);

    /* Declared: centiwatts; the same instants read as the newer log within 0.01 W. */
    o.psu_unit = WC_GMT_PSU_CW;
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert(strstr(sum.notes, "values read as centiwatts (declared)"), "%s", sum.notes);
    sqlite3 *d = open_db(db);
    cr_assert_float_eq(q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns LIMIT 1"),
                       9553.22, 1e-9);
    cr_assert_float_eq(
        q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns DESC LIMIT 1"), 21284.79,
        1e-9);
    cr_assert_str_eq(q_text(d, "SELECT description FROM truth_source"),
                     "Green Metrics Tool MCP39F511 AC power, values in centiwatts");
    sqlite3_close(d);
}

Test(import, gmt_psu_scale_change_within_one_file)
{
    const char *dir = wc_test_tmpdir();
    /* Same power before and after GMT's switch: 955322 cW then 9553228173 uW. */
    wc_test_write(dir, "psu.log",
                  "1759592247532228 955322\n1759592247631431 800598\n"
                  "1759592247730616 8151850294\n1759592247829789 9119265378\n");
    char psu[512], db[512];
    snprintf(psu, sizeof psu, "%s/psu.log", dir);
    snprintf(db, sizeof db, "%s/run.db", dir);
    wc_import_gmt_opts o = {.rapl_path = gmt_file("cpu_energy_rapl_msr_component.log"),
                            .psu_path = psu};
    wc_import_summary sum;
    wc_error err = {{0}};
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "changes scale within the file: line 3 is 10182x line 2"), "%s",
              err.msg);
    cr_assert(strstr(err.msg, "--gmt-psu-unit"), "%s", err.msg);
    /* Declared, the file is read as declared (the caller's responsibility). */
    o.psu_unit = WC_GMT_PSU_UW;
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
}

Test(import, gmt_underflow_log_gives_no_negative_and_no_spike)
{
    wc_import_gmt_opts o = {.rapl_path = gmt_file("cpu_energy_rapl_msr_component_underflow.log")};
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.ticks, 19);
    cr_assert_eq(sum.rejected_samples, 3);
    cr_assert(strstr(sum.notes, "underflow.log:5: Package_0 interval of 1 uJ over 1.001 s (0.0 W) "
                                "refused: resolution underflow (<= 1 uJ)"), "%s", sum.notes);
    cr_assert(strstr(sum.notes, "(41196.7 W) refused: above the 1000 W ceiling"), "%s", sum.notes);
    cr_assert(strstr(sum.notes, "underflow.log:9: Package_0 interval of 41214123000 uJ"), "%s",
              sum.notes);
    cr_assert(strstr(sum.notes, "underflow.log:19:"), "%s", sum.notes);
    sqlite3 *d = open_db(db);
    cr_assert_str_eq(q_text(d, "SELECT group_concat(seq) FROM (SELECT seq FROM tick JOIN zone_sample "
                               "ON tick.id=tick_id WHERE status=-34 ORDER BY seq)"),
                     "4,8,18");
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM zone_sample WHERE status=-34 AND value IS NOT NULL"),
                 0);
    /* Between consecutive accepted readings: never a decrease, never above 1000 W. */
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(d, "SELECT mono_ns, value FROM tick JOIN zone_sample ON "
                                       "tick.id=tick_id WHERE status=0 ORDER BY seq",
                                    -1, &s, NULL),
                 SQLITE_OK);
    int64_t pm = -1, pv = 0, n = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        int64_t m = sqlite3_column_int64(s, 0), v = sqlite3_column_int64(s, 1);
        if (pm >= 0) {
            cr_assert_geq(v, pv, "counter decreased at mono %lld", (long long)m);
            double w = (double)(v - pv) / 1e6 / ((double)(m - pm) / 1e9);
            cr_assert_leq(w, 1000.0, "spike of %.1f W at mono %lld", w, (long long)m);
        }
        pm = m;
        pv = v;
        n++;
    }
    sqlite3_finalize(s);
    cr_assert_eq(n, 16);
    cr_assert_eq(pv, 553847000);
    sqlite3_close(d);
}

Test(import, gmt_single_measurement_is_nothing_measurable)
{
    wc_import_gmt_opts o = {
        .rapl_path = gmt_file("cpu_energy_rapl_msr_component_single_measurement.log")};
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -ENODATA);
    cr_assert(strstr(err.msg, "1 sample instant: at least 2 are needed"), "%s", err.msg);
    cr_assert_neq(access(db, F_OK), 0);
}

Test(import, gmt_malformed_line_names_file_line_column)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "rapl.log",
                  "\n1759592247529773 397277 Package_0\n1759592247629050 37805l Package_0\n");
    char rapl[512], db[512];
    snprintf(rapl, sizeof rapl, "%s/rapl.log", dir);
    snprintf(db, sizeof db, "%s/run.db", dir);
    wc_import_gmt_opts o = {.rapl_path = rapl};
    wc_import_summary sum;
    wc_error err = {{0}};
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "rapl.log:3:2: '37805l' is not an unsigned integer"), "%s", err.msg);
    wc_import_gmt_opts none = {.dir = dir};
    cr_assert_eq(wc_import_gmt(&none, &t, &sum, &err), -ENOENT);
}

/* --- generic CSV --- */

static wc_import_csv_opts csv_opts(const char *path, const char *time_col)
{
    wc_import_csv_opts o;
    memset(&o, 0, sizeof o);
    o.path = path;
    o.time_col = time_col;
    o.time_unit_ns = 1000000000LL;
    o.util_scale = 1.0;
    return o;
}

static void map(wc_import_csv_opts *o, const char *arg, wc_import_col_kind kind)
{
    wc_error err = {{0}};
    cr_assert_eq(wc_import_parse_col(arg, kind, &o->cols[o->ncols++], &err), 0, "%s", err.msg);
}

static const char *codecarbon(const char *rel)
{
    static char p[1024];
    char r[512];
    snprintf(r, sizeof r, CODECARBON "/%s", rel);
    snprintf(p, sizeof p, "%s", wc_shared_fixture(r));
    return p;
}

Test(import, codecarbon_threadripper_via_column_mapping)
{
    wc_import_csv_opts o = csv_opts(
        codecarbon("AMD_Threadripper/all_cores-AMD_Ryzen_Threadripper_1950X_16-Core_Processor-"
                   "2025-01-14.csv"),
        "timestamp");
    map(&o, "rapl_energy:package:kwh", WC_IMPORT_ENERGY);
    map(&o, "rapl_power:package:w", WC_IMPORT_POWER);
    map(&o, "tapo_power:w", WC_IMPORT_TRUTH);
    o.util_col = "cpu_load";
    o.phase_col = "task_name";
    o.cpu_model_col = "cpu_name";
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.ticks, 11);
    cr_assert_eq(sum.zones, 2);
    cr_assert_eq(sum.truth_samples, 11);
    cr_assert_eq(sum.truth_unavailable, 0);
    cr_assert_eq(sum.phases, 10);
    cr_assert_eq(sum.util_ticks, 11);
    cr_assert(strstr(sum.notes, "phase 'Load for 0 threads or % load on all_cores' is the first "
                                "row alone: it spans no interval, not stored"), "%s", sum.notes);
    sqlite3 *d = open_db(db);
    cr_assert_str_eq(q_text(d, "SELECT cpu_model||'/'||host||'/'||sockets FROM run"),
                     "AMD Ryzen Threadripper 1950X 16-Core Processor/imported/1");
    cr_assert_eq(q_i64(d, "SELECT started_wall_ns FROM run"), 1736861292186518400LL);
    cr_assert_eq(q_i64(d, "SELECT wall_ns FROM tick WHERE seq=10"), 1736861604329727200LL);
    cr_assert_eq(q_i64(d, "SELECT mono_ns FROM tick WHERE seq=10"),
                 1736861604329727200LL - 1736861292186518400LL);
    /* rapl_energy is kWh per ~30 s step, accumulated: 43143.625645 J in all. */
    cr_assert_eq(q_i64(d, "SELECT MAX(value) FROM zone_sample JOIN zone ON zone.id=zone_id "
                          "WHERE zone.kind='counter_uj'"),
                 43143625645LL);
    cr_assert_eq(q_i64(d, "SELECT MIN(value) FROM zone_sample JOIN zone ON zone.id=zone_id "
                          "WHERE zone.kind='counter_uj'"),
                 1308553149LL);
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample JOIN zone ON zone.id=zone_id JOIN tick "
                          "ON tick.id=tick_id WHERE zone.kind='gauge_uw' AND seq=0"),
                 1376694);
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample JOIN zone ON zone.id=zone_id JOIN tick "
                          "ON tick.id=tick_id WHERE zone.kind='gauge_uw' AND seq=10"),
                 166891447);
    cr_assert_str_eq(q_text(d, "SELECT group_concat(zone_index) FROM zone"), "0,1");
    cr_assert_float_eq(q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns LIMIT 1"),
                       115.0, 0);
    cr_assert_float_eq(
        q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns DESC LIMIT 1"), 278.0, 0);
    cr_assert_float_eq(q_dbl(d, "SELECT util_pct FROM tick WHERE seq=0"), 2.8, 1e-12);
    cr_assert_float_eq(q_dbl(d, "SELECT util_pct FROM tick WHERE seq=10"), 99.7, 1e-12);
    cr_assert_str_eq(q_text(d, "SELECT name FROM phase ORDER BY id DESC LIMIT 1"),
                     "Load for 100 threads or % load on all_cores");
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM phase WHERE end_mono_ns <= start_mono_ns"), 0);
    /* Rows i..j of one label span (t[i-1], t[j]]: the 10-thread step is row 1. */
    cr_assert_str_eq(q_text(d, "SELECT start_wall_ns||' '||end_wall_ns FROM phase WHERE name="
                               "'Load for 10 threads or % load on all_cores'"),
                     "1736861292186518400 1736861323373335100");
    sqlite3_close(d);
}

Test(import, codecarbon_without_smart_plug_has_no_usable_truth)
{
    wc_import_csv_opts o = csv_opts(
        codecarbon("AMD_EPYC_8024P_8C/all_cores-AMD_EPYC_8024P_8-Core_Processor-2025-01-14.csv"),
        "timestamp");
    map(&o, "rapl_power:package:w", WC_IMPORT_POWER);
    map(&o, "tapo_power:w", WC_IMPORT_TRUTH);
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.truth_samples, 11);
    cr_assert_eq(sum.truth_unavailable, 11);
    cr_assert(strstr(sum.notes, "11 of 11 samples stored as unavailable"), "%s", sum.notes);
    sqlite3 *d = open_db(db);
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM truth_sample WHERE status='unavailable' AND "
                          "watts IS NULL"),
                 11);
    sqlite3_close(d);
}

Test(import, kepler_legacy_model_table_is_not_a_time_series)
{
    const char *p = wc_shared_fixture("corpus/datasets/kepler-legacy/power_data.csv");
    wc_import_csv_opts o = csv_opts(p, "Architecture");
    map(&o, "Max Watts:package:w", WC_IMPORT_POWER);
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "power_data.csv:2:2: column 'Architecture': 'Graviton' is not an "
                              "epoch time"), "%s", err.msg);
    /* Its unnamed index column as "time" reads as 1970: refused too. */
    o.time_col = "";
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "power_data.csv:2:1: column '': '0' is before 2000-01-01"), "%s",
              err.msg);
    cr_assert_neq(access(db, F_OK), 0);
}

static wc_import_csv_opts run_csv_opts(void)
{
    wc_import_csv_opts o = csv_opts(wc_own_fixture("import/run.csv"), "timestamp");
    o.time_unit_ns = 0;
    map(&o, "pkg_uj:package:uj", WC_IMPORT_COUNTER);
    map(&o, "dram_j:dram:j", WC_IMPORT_COUNTER);
    map(&o, "gpu_mw:gpu:mw", WC_IMPORT_POWER);
    map(&o, "wall_w:w", WC_IMPORT_TRUTH);
    o.util_col = "util";
    o.phase_col = "phase";
    o.host_col = "host";
    return o;
}

Test(import, own_csv_end_to_end)
{
    wc_import_csv_opts o = run_csv_opts();
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    t.provenance = WC_PROV_ESTIMATED;
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.ticks, 6);
    cr_assert_eq(sum.zones, 3);
    cr_assert_eq(sum.missing_samples, 1);
    cr_assert_eq(sum.interval_ns, 1000000000LL);
    cr_assert(strstr(sum.notes, "run.csv:9: counter column 'pkg_uj' decreased"), "%s", sum.notes);
    sqlite3 *d = open_db(db);
    cr_assert_str_eq(q_text(d, "SELECT host||' '||provenance||' '||meter_kind||' '||interval_ns||' '"
                               "||command_line FROM run"),
                     "node-a estimated import 1000000000 wattcal import (test)");
    cr_assert_eq(q_i64(d, "SELECT started_wall_ns FROM run"), 1795964400000000000LL);
    cr_assert_str_eq(q_text(d, "SELECT group_concat(name||'-'||socket||':'||kind, ' ') FROM zone"),
                     "package-0:counter_uj dram-0:counter_uj gpu-0:gauge_uw");
    /* Cumulative counters stored as read (µJ), the reset included. */
    cr_assert_str_eq(q_text(d, "SELECT group_concat(value) FROM (SELECT value FROM zone_sample "
                               "WHERE zone_id=1 ORDER BY tick_id)"),
                     "1000000,2000000,4000000,6000000,500000,1500000");
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample WHERE zone_id=2 AND tick_id=6"), 3000000);
    /* The empty gpu cell: no value, status -ENODATA; mW -> µW. */
    cr_assert_str_eq(q_text(d, "SELECT ifnull(value,'NULL')||' '||status FROM zone_sample WHERE "
                               "zone_id=3 AND tick_id=1"),
                     "NULL -61");
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample WHERE zone_id=3 AND tick_id=2"), 50000000);
    cr_assert_str_eq(q_text(d, "SELECT status||' '||ifnull(watts,'NULL') FROM truth_sample WHERE "
                               "poll_mono_ns=2000000000"),
                     "unavailable NULL");
    cr_assert_float_eq(q_dbl(d, "SELECT watts FROM truth_sample WHERE poll_mono_ns=3000000000"),
                       150.5, 0);
    cr_assert_float_eq(q_dbl(d, "SELECT SUM(util_pct) FROM tick"), 281.0, 1e-9);
    cr_assert_str_eq(q_text(d, "SELECT group_concat(p, ' ') FROM (SELECT name||':'||(start_mono_ns/"
                               "1000000000)||'-'||(end_mono_ns/1000000000)||'#'||repetition AS p "
                               "FROM phase ORDER BY id)"),
                     "idle:0-1#1 load:1-4#1 idle:4-5#2");
    cr_assert_str_eq(q_text(d, "SELECT class FROM phase LIMIT 1"), "csv");
    sqlite3_close(d);

    /* The DB now holds a run: a second import into it is refused and leaves it intact. */
    cr_assert_neq(wc_import_csv(&o, &t, &sum, &err), 0);
    cr_assert(strstr(err.msg, "already holds a recorded run"), "%s", err.msg);
    d = open_db(db);
    cr_assert_eq(q_i64(d, "SELECT ticks FROM run"), 6);
    sqlite3_close(d);
}

Test(import, csv_bad_rows_name_file_line_column)
{
    const char *dir = wc_test_tmpdir();
    char path[512], db[512];
    snprintf(db, sizeof db, "%s/run.db", dir);
    wc_import_target t = target(db);
    wc_import_summary sum;
    wc_error err = {{0}};
    struct {
        const char *text, *want;
    } cases[] = {
        {"t,e\n1795967237,1\n1795967238,x\n", "c.csv:3:2: column 'e': 'x' is not a number"},
        {"t,e\n1795967237,1\n1795967237,2\n", "c.csv:3:1: column 't': time is not after"},
        {"t,e\n1795967237,1\n1795967238\n", "c.csv:3: 1 cells, the mapped columns need 2"},
        {"t,e\n1795967237,1\n1795967238,-3\n", "c.csv:3:2: column 'e': negative value '-3'"},
        {"t,x\n1795967237,1\n", "c.csv:1: --counter-col 'e': no such column in the header ('t', 'x')"},
        {"t,e\n1795967237,1\n", "c.csv: 1 sample instant"},
        {"t,e,u\n1795967237,1,120\n1795967238,2,1\n", "c.csv:2:3: column 'u': utilisation 120"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wc_test_write(dir, "c.csv", cases[i].text);
        snprintf(path, sizeof path, "%s/c.csv", dir);
        wc_import_csv_opts o = csv_opts(path, "t");
        map(&o, "e:package:j", WC_IMPORT_COUNTER);
        if (strchr(cases[i].text, 'u'))
            o.util_col = "u";
        cr_assert_neq(wc_import_csv(&o, &t, &sum, &err), 0, "case %zu imported", i);
        cr_assert(strstr(err.msg, cases[i].want), "case %zu: '%s' lacks '%s'", i, err.msg,
                  cases[i].want);
        cr_assert_neq(access(db, F_OK), 0, "case %zu left a DB", i);
    }
}

Test(import, csv_iso_times_without_zone_need_one_declared)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "n.csv", "t;e\n2026-11-29 16:47:17.123;1\n2026-11-29 16:47:18.123;2\n");
    char path[512], db[512];
    snprintf(path, sizeof path, "%s/n.csv", dir);
    snprintf(db, sizeof db, "%s/run.db", dir);
    wc_import_csv_opts o = csv_opts(path, "t");
    o.delimiter = ';';
    o.time_unit_ns = 0;
    map(&o, "e:package:kwh", WC_IMPORT_ENERGY);
    wc_import_target t = target(db);
    wc_import_summary sum;
    wc_error err = {{0}};
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "n.csv:2:1: column 't': '2026-11-29 16:47:17.123' has no time zone"),
              "%s", err.msg);
    int off = -(5 * 3600 + 30 * 60);
    o.iso_offset_s = &off;
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), 0, "%s", err.msg);
    sqlite3 *d = open_db(db);
    cr_assert_eq(q_i64(d, "SELECT wall_ns FROM tick WHERE seq=0"),
                 1795967237123000000LL + (6 * 3600 + 30 * 60) * 1000000000LL);
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample WHERE tick_id=2"), 3 * 3600000000000LL);
    sqlite3_close(d);
}

/* --- refusals: truncated logs, implausible values, mappings that count twice --- */

static const char *tmp_file(const char *dir, const char *name, const char *text)
{
    static char p[4][512];
    static int next;
    char *out = p[next++ % 4];
    wc_test_write(dir, name, text);
    snprintf(out, sizeof p[0], "%s/%s", dir, name);
    return out;
}

/* The first n lines of a fixture, then the next line cut to keep bytes of it
 * (keep < 0: the first n lines minus -keep bytes). malloc'd. */
static char *fixture_head(const char *path, int n, int keep)
{
    size_t len = 0;
    char *text = wc_test_slurp(path, &len);
    size_t end = 0;
    for (int i = 0; i < n; i++) {
        char *nl = memchr(text + end, '\n', len - end);
        cr_assert_not_null(nl, "%s has fewer than %d lines", path, n);
        end = (size_t)(nl - text) + 1;
    }
    end = keep < 0 ? end - (size_t)-keep : end + (size_t)keep;
    text[end] = '\0';
    return text;
}

Test(import, gmt_truncated_last_line_is_refused_not_misread)
{
    const char *dir = wc_test_tmpdir();
    char db[512];
    snprintf(db, sizeof db, "%s/run.db", dir);
    wc_import_target t = target(db);
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *rapl = gmt_file("cpu_energy_rapl_msr_component.log");
    const char *psu_fixture = gmt_file("psu_energy_ac_mcp_machine.log");

    /* head -n 120 psu_energy_ac_mcp_machine.log: line 120 reads 7322 W. */
    char *whole = fixture_head(psu_fixture, 120, 0);
    wc_import_gmt_opts o = {.rapl_path = rapl, .psu_path = tmp_file(dir, "psu.log", whole)};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    sqlite3 *d = open_db(db);
    double last_w = q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns DESC LIMIT 1");
    sqlite3_close(d);
    cr_assert(last_w > 7000 && last_w < 8000, "line 120: %.1f W", last_w);
    free(whole);
    remove(db);

    /* ... | head -c -2: the newline and the last digit gone. Refused as cut
     * short (not a 732 W reading, nor a "scale change" without a line). */
    char *cut = fixture_head(psu_fixture, 120, -2);
    o.psu_path = tmp_file(dir, "psu.log", cut);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "psu.log:120:2: truncated last line (no newline at end of file"),
              "%s", err.msg);
    cr_assert_neq(access(db, F_OK), 0);
    free(cut);

    /* A RAPL log cut inside the domain name. */
    char *packa = fixture_head(rapl, 8, 0);
    char *name = packa + strlen(packa) - strlen("Package_0\n");
    cr_assert_str_eq(name, "Package_0\n");
    name[strlen("Packa")] = '\0';
    o = (wc_import_gmt_opts){.rapl_path = tmp_file(dir, "rapl.log", packa)};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "rapl.log:8:3: truncated last line"), "%s", err.msg);
    free(packa);
    /* Cut after a blank: the cell it cuts is the next one. */
    o.rapl_path = tmp_file(dir, "rapl.log",
                           "1759592247529773 397277 Package_0\n1759592247629050 378050 ");
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "rapl.log:2:3: truncated last line"), "%s", err.msg);
    /* The utilisation log too. */
    o = (wc_import_gmt_opts){.rapl_path = rapl,
                             .util_path = tmp_file(dir, "util.log", "1759592247529773 126\n"
                                                                    "1759592247629050 16")};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "util.log:2:2: truncated last line"), "%s", err.msg);
    cr_assert_neq(access(db, F_OK), 0);
}

Test(import, gmt_rapl_domains_are_the_ones_gmt_writes)
{
    const char *dir = wc_test_tmpdir();
    char db[512];
    snprintf(db, sizeof db, "%s/run.db", dir);
    wc_import_target t = target(db);
    wc_import_summary sum;
    wc_error err = {{0}};
    struct {
        const char *line2, *want;
    } bad[] = {
        {"1759592247629050 378050 Packa\n",
         "rapl.log:2:3: 'Packa' is not a RAPL domain of a GMT log (Package_N, DRAM_N or PSYS_N)"},
        {"1759592247629050 378050 package_0\n", "rapl.log:2:3: 'package_0' is not a RAPL domain"},
        {"1759592247629050 378050 Package_01\n", "rapl.log:2:3: 'Package_01' is not"},
        {"1759592247629050 378050 Package_\n", "rapl.log:2:3: 'Package_' is not"},
        {"1759592247629050 378050 Package\n", "rapl.log:2:3: 'Package' is not"},
        {"1759592247629050 378050 Pack\033[2Jage_0\n", "rapl.log:2:3: 'Pack?[2Jage_0' is not"},
        {"1759592247629050 378050 Package_0 Package_0\n",
         "rapl.log:2:4: 4 fields, a GMT line has 3 (<unix_us> <value> <detail>): 'Package_0' is "
         "one too many"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[256];
        snprintf(text, sizeof text, "1759592247529773 397277 Package_0\n%s", bad[i].line2);
        wc_import_gmt_opts o = {.rapl_path = tmp_file(dir, "rapl.log", text)};
        cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL, "case %zu imported", i);
        cr_assert(strstr(err.msg, bad[i].want), "case %zu: '%s' lacks '%s'", i, err.msg,
                  bad[i].want);
        cr_assert_null(strchr(err.msg, '\033'), "case %zu: control byte in '%s'", i, err.msg);
        cr_assert_neq(access(db, F_OK), 0);
    }
    /* A value too large for 64 bits is out of range, not "not a number". */
    wc_import_gmt_opts big = {.rapl_path = tmp_file(dir, "rapl.log",
                                                    "1759592247529773 397277 Package_0\n"
                                                    "1759592247629050 99999999999999999999999 "
                                                    "Package_0\n")};
    cr_assert_eq(wc_import_gmt(&big, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "rapl.log:2:2: '99999999999999999999999' is out of range"), "%s",
              err.msg);
    /* A 3rd field in the AC log is refused too. */
    wc_import_gmt_opts o = {
        .rapl_path = gmt_file("cpu_energy_rapl_msr_component.log"),
        .psu_path = tmp_file(dir, "psu.log", "1759592247532228 9553228173 x\n")};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "psu.log:1:3: 3 fields, a GMT line has 2"), "%s", err.msg);

    /* Package_N, DRAM_N and PSYS_N: one counter zone each. */
    o = (wc_import_gmt_opts){.rapl_path = tmp_file(dir, "rapl.log",
                                                   "1759592247529773 397277 Package_0\n"
                                                   "1759592247529773 39727 DRAM_0\n"
                                                   "1759592247529773 497277 PSYS_0\n"
                                                   "1759592247529773 397277 Package_1\n"
                                                   "1759592247629050 378050 Package_0\n"
                                                   "1759592247629050 37805 DRAM_0\n"
                                                   "1759592247629050 478050 PSYS_0\n"
                                                   "1759592247629050 378050 Package_1\n")};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.zones, 4);
    sqlite3 *d = open_db(db);
    cr_assert_str_eq(q_text(d, "SELECT group_concat(name||'-'||socket||'/'||zone_index, ' ') FROM "
                               "(SELECT * FROM zone ORDER BY id)"),
                     "package-0/0 dram-0/0 psys-0/0 package-1/0");
    sqlite3_close(d);
}

Test(import, gmt_implausible_ac_power_is_refused)
{
    const char *dir = wc_test_tmpdir();
    char db[512];
    snprintf(db, sizeof db, "%s/run.db", dir);
    wc_import_target t = target(db);
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *rapl = gmt_file("cpu_energy_rapl_msr_component.log");
    /* 200 kW read as declared microwatts: refused with its line. */
    wc_import_gmt_opts o = {.rapl_path = rapl,
                            .psu_path = tmp_file(dir, "psu.log",
                                                 "1759592247532228 9553228173\n"
                                                 "1759592247631431 200000000000\n"),
                            .psu_unit = WC_GMT_PSU_UW};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "psu.log:2:2: 200000000000 uW is an implausible wall power "
                              "(200000 W; a node draws at most 100000 W) (is --gmt-psu-unit "
                              "right?)"),
              "%s", err.msg);
    cr_assert_neq(access(db, F_OK), 0);
    /* Exactly 65535 W is the "no reading" marker: unavailable, never a reading. */
    o.psu_path = tmp_file(dir, "psu.log",
                          "1759592247532228 9553228173\n1759592247631431 65535000000\n");
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.truth_unavailable, 1);
    sqlite3 *d = open_db(db);
    cr_assert_str_eq(q_text(d, "SELECT status||' '||ifnull(watts,'NULL')||' '||error FROM "
                               "truth_sample ORDER BY poll_wall_ns DESC LIMIT 1"),
                     "unavailable NULL line 2: 65535 W: the \"no reading\" marker (0xFFFF) of a "
                     "BMC, not a measurement");
    sqlite3_close(d);
}

Test(import, gmt_without_rapl_log_is_refused)
{
    /* The AC log and utilisation alone make a run without zones: validate
     * could not replay it, so nothing is written. */
    const char *dir = wc_test_tmpdir();
    tmp_file(dir, "psu_energy_ac_mcp_machine.log",
             "1759592247532228 9553228173\n1759592247631431 8005980000\n");
    tmp_file(dir, "cpu_utilization_procfs_system.log",
             "1759592247532228 126\n1759592247631431 1666\n");
    char db[512];
    snprintf(db, sizeof db, "%s/run.db", dir);
    wc_import_target t = target(db);
    wc_import_summary sum;
    wc_error err = {{0}};
    wc_import_gmt_opts o = {.dir = dir};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -ENOENT);
    cr_assert(strstr(err.msg, ": no RAPL log (cpu_energy_rapl_msr_component.log), and a run "
                              "needs an energy series: give --gmt-rapl FILE"),
              "%s", err.msg);
    cr_assert_neq(access(db, F_OK), 0);
    o.rapl_path = "";
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -ENOENT);
    cr_assert(strstr(err.msg, "--gmt-rapl -: no RAPL log"), "%s", err.msg);
    cr_assert_neq(access(db, F_OK), 0);
}

/* Runs a CSV import of text with mappings (NULL-terminated "KIND:ARG": c, e,
 * p or t); returns its result. */
static char csv_db[512]; /* the DB of the last import_text */

static int import_text(const char *text, const char *const *maps, wc_import_summary *sum,
                       wc_error *err)
{
    const char *dir = wc_test_tmpdir();
    char *db = csv_db;
    snprintf(csv_db, sizeof csv_db, "%s/run.db", dir);
    wc_import_csv_opts o = csv_opts(tmp_file(dir, "c.csv", text), "t");
    for (size_t i = 0; maps[i]; i++) {
        wc_import_col_kind k = maps[i][0] == 'c'   ? WC_IMPORT_COUNTER
                               : maps[i][0] == 'e' ? WC_IMPORT_ENERGY
                               : maps[i][0] == 'p' ? WC_IMPORT_POWER
                                                   : WC_IMPORT_TRUTH;
        if (maps[i][0] == 'u')
            o.util_col = maps[i] + 2;
        else
            map(&o, maps[i] + 2, k);
    }
    wc_import_target t = target(db);
    int rc = wc_import_csv(&o, &t, sum, err);
    if (rc)
        cr_assert_neq(access(db, F_OK), 0, "a refused import left %s", db);
    return rc;
}

Test(import, csv_truth_col_refuses_implausible_wall_power)
{
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *const m[] = {"c:e:package:j", "t:w:w", NULL};
    struct {
        const char *cell, *want;
    } bad[] = {
        {"1e308", "c.csv:3:3: column 'w': '1e308' w is an implausible wall power (1e+308 W; a "
                  "node draws at most 100000 W)"},
        {"100000.5", "c.csv:3:3: column 'w': '100000.5' w is an implausible wall power"},
        {"1e400", "c.csv:3:3: column 'w': '1e400' (5 characters) is out of range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[256];
        snprintf(text, sizeof text, "t,e,w\n1795967237,1,200\n1795967238,2,%s\n", bad[i].cell);
        cr_assert_eq(import_text(text, m, &sum, &err), -EINVAL, "case %zu", i);
        cr_assert(strstr(err.msg, bad[i].want), "case %zu: '%s' lacks '%s'", i, err.msg,
                  bad[i].want);
    }
    /* In kW the limit holds after scaling. */
    const char *const kw[] = {"c:e:package:j", "t:w:kw", NULL};
    cr_assert_eq(import_text("t,e,w\n1795967237,1,0.2\n1795967238,2,101\n", kw, &sum, &err),
                 -EINVAL);
    cr_assert(strstr(err.msg, "c.csv:3:3: column 'w': '101' kw is an implausible wall power "
                              "(101000 W"),
              "%s", err.msg);
    /* 65535 W: the BMC "no reading" marker, unavailable; 100 kW itself is accepted. */
    cr_assert_eq(import_text("t,e,w\n1795967237,1,65535\n1795967238,2,100000\n", m, &sum, &err),
                 0, "%s", err.msg);
    cr_assert_eq(sum.truth_samples, 2);
    cr_assert_eq(sum.truth_unavailable, 1);
    cr_assert(strstr(sum.notes, "1 of 2 samples stored as unavailable"), "%s", sum.notes);
    sqlite3 *d = open_db(csv_db);
    cr_assert_str_eq(q_text(d, "SELECT status||' '||ifnull(watts,'NULL')||' '||error FROM "
                               "truth_sample ORDER BY poll_wall_ns LIMIT 1"),
                     "unavailable NULL line 2: 65535 W: the \"no reading\" marker (0xFFFF) of a "
                     "BMC, not a measurement");
    cr_assert_float_eq(q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns DESC LIMIT 1"),
                       100000.0, 0);
    sqlite3_close(d);
}

Test(import, csv_zone_or_column_mapped_twice_is_refused)
{
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *text = "t,e,f,w\n1795967237,1,1,200\n1795967238,2,2,210\n";
    struct {
        const char *maps[4], *want;
    } bad[] = {
        {{"c:e:package:j", "c:e:package:j", NULL},
         "--counter-col e:package:j: column 'e' is already mapped by --counter-col e:package:j"},
        {{"c:e:package:j", "c:f:package:j", NULL},
         "--counter-col f:package:j: zone package-0 is already fed by --counter-col e:package:j "
         "(one energy series per zone, or its energy would count twice)"},
        {{"c:e:package-0:j", "e:f:package:j", NULL}, "zone package-0 is already fed by"},
        {{"p:e:dram-1:w", "p:f:dram-1:w", NULL}, "zone dram-1 is already fed by --power-col "
                                                 "e:dram-1:w (one power series"},
        {{"c:e:psys:j", "c:f:psys:j", NULL}, "zone psys is already fed"},
        {{"c:e:package:j", "t:e:w", NULL},
         "--truth-col e:w: column 'e' is already mapped by --counter-col e:package:j"},
        {{"c:t:package:j", NULL}, "--counter-col t:package:j: column 't' is the --time-col"},
        {{"c:e:package:j", "u:e", NULL}, "column 'e' is the --util-col"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_assert_eq(import_text(text, bad[i].maps, &sum, &err), -EINVAL, "case %zu", i);
        cr_assert(strstr(err.msg, bad[i].want), "case %zu: '%s' lacks '%s'", i, err.msg,
                  bad[i].want);
    }
    /* Other sockets, or an energy and a power view of one zone, are distinct. */
    const char *const ok[] = {"c:e:package:j", "c:f:package-1:j", "p:w:package:w", NULL};
    cr_assert_eq(import_text(text, ok, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.zones, 3);
}

Test(import, csv_duplicate_header_names_are_refused)
{
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *const m[] = {"c:e:package:j", NULL};
    cr_assert_eq(import_text("t,e,x,e\n1795967237,1,0,5\n1795967238,2,0,6\n", m, &sum, &err),
                 -EINVAL);
    cr_assert(strstr(err.msg, "c.csv:1:4: duplicate column name 'e' (also column 2)"), "%s",
              err.msg);
    /* An unmapped duplicate is ambiguous all the same. */
    cr_assert_eq(import_text("# c\nt,e,x,x\n1795967237,1,0,5\n1795967238,2,0,6\n", m, &sum, &err),
                 -EINVAL);
    cr_assert(strstr(err.msg, "c.csv:2:4: duplicate column name 'x' (also column 3)"), "%s",
              err.msg);
    /* Unnamed columns (trailing delimiters, an index) may repeat while unmapped. */
    cr_assert_eq(import_text("t,e,,\n1795967237,1,,\n1795967238,2,,\n", m, &sum, &err), 0, "%s",
                 err.msg);
}

Test(import, csv_needs_an_energy_or_power_series)
{
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *text = "t,w,u\n1795967237,200,10\n1795967238,210,20\n";
    const char *const truth_only[] = {"t:w:w", NULL};
    cr_assert_eq(import_text(text, truth_only, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "no energy or power series: map at least one --counter-col, "
                              "--energy-col or --power-col"),
              "%s", err.msg);
    const char *const util_only[] = {"u:u", NULL};
    cr_assert_eq(import_text(text, util_only, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "no energy or power series"), "%s", err.msg);
    const char *const none[] = {NULL};
    cr_assert_eq(import_text(text, none, &sum, &err), -EINVAL);
}

Test(import, csv_empty_file_is_bad_input)
{
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *const m[] = {"c:e:package:j", NULL};
    cr_assert_eq(import_text("", m, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "c.csv: empty (no header row)"), "%s", err.msg);
    cr_assert_eq(import_text("# only a comment\n\n", m, &sum, &err), -EINVAL);
    /* A header without rows is a run too short to measure. */
    cr_assert_eq(import_text("t,e\n", m, &sum, &err), -ENODATA);
}

Test(import, csv_huge_number_cell_is_out_of_range)
{
    size_t n = 1 << 20;
    char *text = malloc(n + 64);
    cr_assert_not_null(text);
    int k = snprintf(text, 64, "t,e\n1795967237,1\n1795967238,");
    memset(text + k, '9', n);
    memcpy(text + k + n, "\n", 2);
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *const m[] = {"c:e:package:j", NULL};
    cr_assert_eq(import_text(text, m, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "c.csv:3:2: column 'e': '9999999999999999999999999999999999999999..."
                              "' (1048576 characters) is out of range"),
              "%s", err.msg);
    free(text);
}

Test(import, csv_messages_show_control_characters_as_question_marks)
{
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *const m[] = {"c:e:package:j", NULL};
    cr_assert_eq(import_text("t,e\n1795967237,1\n1795967238,\033]0;pwned\a\n", m, &sum, &err),
                 -EINVAL);
    cr_assert(strstr(err.msg, "c.csv:3:2: column 'e': '?]0;pwned?' is not a number"), "%s",
              err.msg);
    cr_assert_eq(import_text("t,e\n179596\0337237,1\n", m, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "'179596?7237' is not an epoch time"), "%s", err.msg);
    const char *const missing[] = {"c:nope:package:j", NULL};
    cr_assert_eq(import_text("t,e\r\x7f\n1795967237,1\n", missing, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "no such column in the header ('t', 'e?" "?')"), "%s", err.msg);
    for (const char *p = err.msg; *p; p++)
        cr_assert(*(const unsigned char *)p >= 0x20 && *p != 0x7f, "control byte in '%s'",
                  err.msg);
}

Test(import, column_mapping_with_too_many_fields)
{
    wc_import_col c;
    wc_error err = {{0}};
    cr_assert_eq(wc_import_parse_col("pkg:package:j:x", WC_IMPORT_COUNTER, &c, &err), -EINVAL);
    cr_assert(strstr(err.msg, "--counter-col pkg:package:j:x: the mapping has too many fields: "
                              "expected NAME:ZONE:UNIT with the unit last ('x' follows the unit "
                              "'j')"),
              "%s", err.msg);
    cr_assert_eq(wc_import_parse_col("w:w:x:y", WC_IMPORT_TRUTH, &c, &err), -EINVAL);
    cr_assert(strstr(err.msg, "too many fields: expected NAME:UNIT with the unit last ('x:y' "
                              "follows the unit 'w')"),
              "%s", err.msg);
    /* Without a unit anywhere: the unit is what is wrong. */
    cr_assert_eq(wc_import_parse_col("pkg:package:joule", WC_IMPORT_COUNTER, &c, &err), -EINVAL);
    cr_assert(strstr(err.msg, "unit 'joule' is not one of uj|mj|j|wh|kwh"), "%s", err.msg);
}
