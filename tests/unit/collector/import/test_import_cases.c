/*
 * test_import_cases.c — `wattcal import` (collector/import/import.c) on the
 * project's own datasets in tests/fixtures/import: a Green Metrics Tool
 * folder (gmt-laptop/: RAPL interval energies, the MCP AC log in microwatts
 * and its pre-2026 centiwatt twin, utilisation, phases.json, the underflow
 * and single-measurement logs), CodeCarbon CPU-load profiles with and
 * without a smart plug, and a Kepler-legacy model table that is not a time
 * series. test_import.c proves the same on the shared corpus/datasets.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/import/import.h"
#include "collector/store/store.h"
#include "tests/unit/support/test_support.h"

#define GMT "import/gmt-laptop/"
#define T0_NS 1764583200000000000LL /* the [BASELINE] phase start: the run's origin */

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
    static char p[8][512];
    static int next;
    char *out = p[next++ % 8];
    snprintf(out, sizeof p[0], "%s%s", wc_own_fixture(GMT), name);
    return out;
}

static const char *tmp_file(const char *dir, const char *name, const char *text)
{
    static char p[4][512];
    static int next;
    char *out = p[next++ % 4];
    wc_test_write(dir, name, text);
    snprintf(out, sizeof p[0], "%s/%s", dir, name);
    return out;
}

/* ---- reading the DB back ---- */

static sqlite3 *open_db(const char *path)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", path);
    return db;
}

static sqlite3_stmt *query(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    return s;
}

static int64_t q_i64(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = query(db, sql);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

static double q_dbl(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = query(db, sql);
    double v = sqlite3_column_type(s, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
}

static const char *q_text(sqlite3 *db, const char *sql)
{
    static char buf[1024];
    sqlite3_stmt *s = query(db, sql);
    const unsigned char *t = sqlite3_column_text(s, 0);
    snprintf(buf, sizeof buf, "%s", t ? (const char *)t : "(null)");
    sqlite3_finalize(s);
    return buf;
}

/* ---- Green Metrics Tool ---- */

/* The run, ticks and counter of the imported GMT folder. */
static void check_gmt_run_and_counter(sqlite3 *d)
{
    cr_assert_str_eq(q_text(d, "SELECT meter_kind||'/'||provenance||'/'||host FROM run"),
                     "import/measured/imported");
    cr_assert_eq(q_i64(d, "SELECT ticks FROM run"), 150);
    cr_assert_eq(q_i64(d, "SELECT clean_stop FROM run"), 1);
    cr_assert_eq(q_i64(d, "SELECT started_wall_ns FROM run"), T0_NS);
    cr_assert_eq(q_i64(d, "SELECT ended_mono_ns FROM run"), 15093150000LL, "the last AC reading");
    cr_assert_eq(q_i64(d, "SELECT mono_ns FROM tick WHERE seq=0"), 90000000);
    cr_assert_eq(q_i64(d, "SELECT wall_ns FROM tick WHERE seq=149"), 1764583214990200000LL);
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM tick WHERE cpu_ok=0"), 150);
    cr_assert_str_eq(q_text(d, "SELECT name||' '||socket||' '||raw_name||' '||kind FROM zone"),
                     "package 0 Package_0 counter_uj");
    /* the counter holds every interval energy */
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample JOIN tick ON tick.id=tick_id WHERE seq=0"),
                 91126);
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample JOIN tick ON tick.id=tick_id WHERE seq=149"),
                 48859749);
    cr_assert_eq(q_i64(d, "SELECT MAX(value)-MIN(value) FROM zone_sample"), 48768623);
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM zone_sample WHERE status<>0"), 0);
}

/* Ground truth, utilisation and phases of the imported GMT folder. */
static void check_gmt_truth_util_phases(sqlite3 *d)
{
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM truth_sample WHERE status='ok'"), 151);
    cr_assert_float_eq(q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns LIMIT 1"),
                       1509.072, 1e-9);
    cr_assert_float_eq(
        q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns DESC LIMIT 1"),
        1738.906561, 1e-9);
    cr_assert_eq(q_i64(d, "SELECT poll_mono_ns FROM truth_sample ORDER BY poll_wall_ns LIMIT 1"),
                 92400000);
    cr_assert_str_eq(q_text(d, "SELECT kind||' '||provenance FROM truth_source"),
                     "import ground truth");
    /* utilisation: the latest sample at or before each tick, ratio x 10000 -> % */
    cr_assert_float_eq(q_dbl(d, "SELECT util_pct FROM tick WHERE seq=0"), 12.50, 1e-12);
    cr_assert_float_eq(q_dbl(d, "SELECT util_pct FROM tick WHERE seq=1"), 12.53, 1e-12);
    cr_assert_float_eq(q_dbl(d, "SELECT util_pct FROM tick WHERE seq=149"), 12.62, 1e-12);
    cr_assert_str_eq(
        q_text(d, "SELECT group_concat(name, '|') FROM (SELECT name FROM phase ORDER BY id)"),
        "[BASELINE]|[INSTALLATION]|[BOOT]|[IDLE]|[RUNTIME]|Idle a bit|Hidden warmup|Stress|"
        "Cooldown|[REMOVE]");
    cr_assert_str_eq(q_text(d, "SELECT class||' '||start_wall_ns||' '||end_wall_ns||' '||"
                               "start_mono_ns||' '||repetition FROM phase WHERE name='Stress'"),
                     "runtime 1764583205000000000 1764583209000000000 5000000000 1");
    cr_assert_str_eq(q_text(d, "SELECT class FROM phase WHERE name='Hidden warmup'"), "hidden");
    cr_assert_str_eq(q_text(d, "SELECT class FROM phase WHERE name='[RUNTIME]'"), "gmt");
    cr_assert_eq(q_i64(d, "SELECT start_mono_ns FROM phase WHERE name='[BASELINE]'"), 0);
}

Test(import_cases, gmt_folder_end_to_end)
{
    char folder[512];
    snprintf(folder, sizeof folder, "%s", wc_own_fixture("import/gmt-laptop"));
    wc_import_gmt_opts o = {.dir = folder};
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.ticks, 150);
    cr_assert_eq(sum.zones, 1);
    cr_assert_eq(sum.truth_samples, 151);
    cr_assert_eq(sum.phases, 10);
    cr_assert_eq(sum.util_ticks, 150);
    cr_assert_eq(sum.rejected_samples, 0);
    cr_assert(strstr(sum.notes, "values read as microwatts (inferred"), "%s", sum.notes);
    sqlite3 *d = open_db(db);
    check_gmt_run_and_counter(d);
    check_gmt_truth_util_phases(d);
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM node_attr") + q_i64(d, "SELECT COUNT(*) FROM process"),
                 0);
    cr_assert_eq(q_i64(d, "PRAGMA user_version"), WC_STORE_SCHEMA_VERSION);
    sqlite3_close(d);
    /* the DB opens as a wattcal run */
    wc_store *st = wc_store_open(db, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_store_close(st);
}

Test(import_cases, gmt_pre_2026_psu_log_is_refused_until_declared)
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
    cr_assert(strstr(err.msg, "microwatts (GMT since 2026-04) gives a median of 0.512 W"), "%s",
              err.msg);
    cr_assert(strstr(err.msg, "centiwatts (GMT before 2026-04) a median of 5115.2 W"), "%s",
              err.msg);
    cr_assert(strstr(err.msg, "--gmt-psu-unit uw or --gmt-psu-unit cw"), "%s", err.msg);
    cr_assert(strstr(err.msg, "CPU package alone draws a median of"), "%s", err.msg);
    cr_assert_neq(access(db, F_OK), 0, "a refused import left %s behind", db);
    /* declared: centiwatts; the same instants read as the newer log within 0.01 W */
    o.psu_unit = WC_GMT_PSU_CW;
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert(strstr(sum.notes, "values read as centiwatts (declared)"), "%s", sum.notes);
    sqlite3 *d = open_db(db);
    cr_assert_float_eq(q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns LIMIT 1"),
                       1509.07, 1e-9);
    cr_assert_float_eq(
        q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns DESC LIMIT 1"), 1738.91,
        1e-9);
    cr_assert_str_eq(q_text(d, "SELECT description FROM truth_source"),
                     "Green Metrics Tool MCP39F511 AC power, values in centiwatts");
    sqlite3_close(d);
}

Test(import_cases, gmt_psu_scale_change_within_one_file)
{
    const char *dir = wc_test_tmpdir();
    char db[512];
    snprintf(db, sizeof db, "%s/run.db", dir);
    /* the same power before and after GMT's switch: centiwatts, then microwatts */
    wc_import_gmt_opts o = {.rapl_path = gmt_file("cpu_energy_rapl_msr_component.log"),
                            .psu_path = tmp_file(dir, "psu.log",
                                                 "1764583200092400 150900\n"
                                                 "1764583200192400 160000\n"
                                                 "1764583200292400 1600000000\n"
                                                 "1764583200392400 1710000000\n")};
    wc_import_summary sum;
    wc_error err = {{0}};
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "changes scale within the file: line 3 is 10000x line 2"), "%s",
              err.msg);
    cr_assert(strstr(err.msg, "--gmt-psu-unit"), "%s", err.msg);
    o.psu_unit = WC_GMT_PSU_UW;
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
}

Test(import_cases, gmt_underflow_log_gives_no_negative_and_no_spike)
{
    wc_import_gmt_opts o = {.rapl_path = gmt_file("cpu_energy_rapl_msr_component_underflow.log")};
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.ticks, 15);
    cr_assert_eq(sum.rejected_samples, 3);
    cr_assert(strstr(sum.notes, "underflow.log:4: Package_0 interval of 1 uJ over 1.000 s (0.0 W) "
                                "refused: resolution underflow (<= 1 uJ)"), "%s", sum.notes);
    cr_assert(strstr(sum.notes, "underflow.log:7: Package_0 interval of 91234567000 uJ"), "%s",
              sum.notes);
    cr_assert(strstr(sum.notes, "(91198.1 W) refused: above the 1000 W ceiling"), "%s", sum.notes);
    cr_assert(strstr(sum.notes, "underflow.log:15:"), "%s", sum.notes);
    sqlite3 *d = open_db(db);
    cr_assert_str_eq(q_text(d, "SELECT group_concat(seq) FROM (SELECT seq FROM tick JOIN zone_sample "
                               "ON tick.id=tick_id WHERE status=-34 ORDER BY seq)"),
                     "3,6,14");
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM zone_sample WHERE status=-34 AND value IS NOT NULL"),
                 0);
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
    cr_assert_eq(n, 12);
    cr_assert_eq(pv, 25982000);
    sqlite3_close(d);
}

Test(import_cases, gmt_single_measurement_is_nothing_measurable)
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

/* The first n lines of a file, minus `cut` bytes at the end. malloc'd. */
static char *head_cut(const char *path, int n, size_t cut)
{
    size_t len = 0;
    char *text = wc_test_slurp(path, &len);
    size_t end = 0;
    for (int i = 0; i < n; i++) {
        char *nl = memchr(text + end, '\n', len - end);
        cr_assert_not_null(nl, "%s has fewer than %d lines", path, n);
        end = (size_t)(nl - text) + 1;
    }
    text[end - cut] = '\0';
    return text;
}

Test(import_cases, gmt_truncated_last_line_is_refused_not_misread)
{
    const char *dir = wc_test_tmpdir();
    char db[512];
    snprintf(db, sizeof db, "%s/run.db", dir);
    wc_import_target t = target(db);
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *rapl = gmt_file("cpu_energy_rapl_msr_component.log");
    const char *psu = gmt_file("psu_energy_ac_mcp_machine.log");
    /* head -n 120: line 120 reads 5125.8 W */
    char *whole = head_cut(psu, 120, 0);
    wc_import_gmt_opts o = {.rapl_path = rapl, .psu_path = tmp_file(dir, "psu.log", whole)};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    sqlite3 *d = open_db(db);
    double last_w = q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns DESC LIMIT 1");
    sqlite3_close(d);
    cr_assert(last_w > 5000 && last_w < 6000, "line 120: %.1f W", last_w);
    free(whole);
    remove(db);
    /* ... | head -c -2: the newline and the last digit gone: refused as cut short */
    char *cut = head_cut(psu, 120, 2);
    o.psu_path = tmp_file(dir, "psu.log", cut);
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "psu.log:120:2: truncated last line (no newline at end of file"),
              "%s", err.msg);
    cr_assert_neq(access(db, F_OK), 0);
    free(cut);
    /* the RAPL log (leading empty line included) cut inside the domain name */
    char *packa = head_cut(rapl, 8, strlen("ge_0\n"));
    cr_assert(strstr(packa + strlen(packa) - 6, " Packa"), "%s", packa + strlen(packa) - 6);
    o = (wc_import_gmt_opts){.rapl_path = tmp_file(dir, "rapl.log", packa)};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "rapl.log:8:3: truncated last line"), "%s", err.msg);
    free(packa);
    cr_assert_neq(access(db, F_OK), 0);
}

Test(import_cases, gmt_companion_checks_with_the_own_rapl_log)
{
    const char *dir = wc_test_tmpdir();
    char db[512];
    snprintf(db, sizeof db, "%s/run.db", dir);
    wc_import_target t = target(db);
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *rapl = gmt_file("cpu_energy_rapl_msr_component.log");
    /* a 3rd field in the AC log */
    wc_import_gmt_opts o = {.rapl_path = rapl,
                            .psu_path = tmp_file(dir, "psu.log", "1764583200092400 1509072000 x\n")};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "psu.log:1:3: 3 fields, a GMT line has 2"), "%s", err.msg);
    /* 200 kW read as declared microwatts: refused with its line */
    o.psu_path = tmp_file(dir, "psu.log", "1764583200092400 1509072000\n"
                                          "1764583200192400 200000000000\n");
    o.psu_unit = WC_GMT_PSU_UW;
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "psu.log:2:2: 200000000000 uW is an implausible wall power "
                              "(200000 W; a node draws at most 100000 W)"), "%s", err.msg);
    cr_assert_neq(access(db, F_OK), 0);
    /* exactly 65535 W is the "no reading" marker: unavailable, never a reading */
    o.psu_path = tmp_file(dir, "psu.log", "1764583200092400 1509072000\n"
                                          "1764583200192400 65535000000\n");
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.truth_unavailable, 1);
}

/* ---- CodeCarbon and Kepler-legacy CSVs through the column mapping ---- */

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

Test(import_cases, codecarbon_profile_via_column_mapping)
{
    wc_import_csv_opts o = csv_opts(wc_own_fixture("import/codecarbon-with-plug.csv"), "timestamp");
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
                     "Intel(R) Xeon(R) E-2278G CPU @ 3.40GHz/imported/1");
    cr_assert_eq(q_i64(d, "SELECT started_wall_ns FROM run"), 1736900000125000000LL);
    cr_assert_eq(q_i64(d, "SELECT wall_ns FROM tick WHERE seq=10"), 1736900309875000000LL);
    cr_assert_eq(q_i64(d, "SELECT mono_ns FROM tick WHERE seq=10"), 309750000000LL);
    /* rapl_energy is kWh per ~31 s step, accumulated: 31298.875 J in all */
    cr_assert_eq(q_i64(d, "SELECT MAX(value) FROM zone_sample JOIN zone ON zone.id=zone_id "
                          "WHERE zone.kind='counter_uj'"),
                 31298875000LL);
    cr_assert_eq(q_i64(d, "SELECT MIN(value) FROM zone_sample JOIN zone ON zone.id=zone_id "
                          "WHERE zone.kind='counter_uj'"),
                 247500000LL);
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample JOIN zone ON zone.id=zone_id JOIN tick "
                          "ON tick.id=tick_id WHERE zone.kind='gauge_uw' AND seq=0"),
                 8250000);
    cr_assert_eq(q_i64(d, "SELECT value FROM zone_sample JOIN zone ON zone.id=zone_id JOIN tick "
                          "ON tick.id=tick_id WHERE zone.kind='gauge_uw' AND seq=10"),
                 139000000);
    cr_assert_str_eq(q_text(d, "SELECT group_concat(zone_index) FROM zone"), "0,1");
    cr_assert_float_eq(q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns LIMIT 1"),
                       101.0, 0);
    cr_assert_float_eq(
        q_dbl(d, "SELECT watts FROM truth_sample ORDER BY poll_wall_ns DESC LIMIT 1"), 236.0, 0);
    cr_assert_float_eq(q_dbl(d, "SELECT util_pct FROM tick WHERE seq=0"), 1.9, 1e-12);
    cr_assert_float_eq(q_dbl(d, "SELECT util_pct FROM tick WHERE seq=10"), 99.4, 1e-12);
    cr_assert_str_eq(q_text(d, "SELECT name FROM phase ORDER BY id DESC LIMIT 1"),
                     "Load for 24 threads or % load on all_cores");
    cr_assert_eq(q_i64(d, "SELECT COUNT(*) FROM phase WHERE end_mono_ns <= start_mono_ns"), 0);
    /* rows i..j of one label span (t[i-1], t[j]]: the 2-thread step is row 1 */
    cr_assert_str_eq(q_text(d, "SELECT start_wall_ns||' '||end_wall_ns FROM phase WHERE name="
                               "'Load for 2 threads or % load on all_cores'"),
                     "1736900000125000000 1736900030625000000");
    sqlite3_close(d);
}

Test(import_cases, codecarbon_without_smart_plug_has_no_usable_truth)
{
    wc_import_csv_opts o =
        csv_opts(wc_own_fixture("import/codecarbon-without-plug.csv"), "timestamp");
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

Test(import_cases, model_table_is_not_a_time_series)
{
    wc_import_csv_opts o = csv_opts(wc_own_fixture("import/model-table.csv"), "Architecture");
    map(&o, "Max Watts:package:w", WC_IMPORT_POWER);
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "model-table.csv:2:2: column 'Architecture': 'Zen 2' is not an "
                              "epoch time"), "%s", err.msg);
    /* its unnamed index column as "time" reads as 1970: refused too */
    o.time_col = "";
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "model-table.csv:2:1: column '': '0' is before 2000-01-01"), "%s",
              err.msg);
    cr_assert_neq(access(db, F_OK), 0);
}

/* Issue 14 item 9: a monotonic time column (perf stat -I: seconds since perf
 * started) is refused as a wall clock, imported with time_monotonic: the
 * intervals come from it, the run says it has no wall clock. */
Test(import_cases, monotonic_time_column_is_accepted_when_declared)
{
    wc_import_csv_opts o = csv_opts(wc_own_fixture("import/perf-interval.csv"), "time");
    map(&o, "energy_pkg_j:package:j", WC_IMPORT_ENERGY);
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *db = db_path();
    wc_import_target t = target(db);
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), -EINVAL, "a wall clock before 2000");
    cr_assert(strstr(err.msg, "'1.001073767' is before 2000-01-01"), "%s", err.msg);
    o.time_monotonic = 1;
    memset(&err, 0, sizeof err);
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.ticks, 5);
    cr_assert(sum.monotonic);
    cr_assert_eq(sum.first_wall_ns, 1001073767);
    cr_assert_eq(sum.last_wall_ns, 5005520331);
    sqlite3 *d = open_db(db);
    /* monotonic times from the column's own origin; 4 intervals of energy */
    cr_assert_eq(q_i64(d, "SELECT mono_ns FROM tick WHERE seq = 4"), 5005520331 - 1001073767);
    cr_assert_eq(q_i64(d, "SELECT MAX(value) - MIN(value) FROM zone_sample"),
                 (int64_t)((39.88 + 41.05 + 40.47 + 39.96) * 1e6 + 0.5));
    cr_assert(strstr(q_text(d, "SELECT meter_description FROM run"),
                     "(monotonic time column: no wall clock)"));
    sqlite3_close(d);
    /* an ISO time is a wall-clock time: refused with monotonic */
    o.time_unit_ns = 0;
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "--time-clock monotonic needs a numeric --time-unit"), "%s", err.msg);
}
