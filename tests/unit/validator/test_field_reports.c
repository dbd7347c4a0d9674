/*
 * test_field_reports.c — issue 14 ("Field reports: wrong numbers on real
 * hardware layouts"), the analysis side, on runs built from the project's own
 * fixtures or synthetic runs whose every figure is a known answer:
 *   item 2  the run's stored --ceiling-watts is what validate and the ideal
 *           model use; a run without one says the built-in 5000 W;
 *   item 3  intervals long enough for a whole wrap to hide at the ceiling are
 *           flagged ambiguous and never counted as measured;
 *   item 6  a partial-socket interval (tests/fixtures/counter/hot-unplug):
 *           every joule of node energy in exactly one bucket of the gap
 *           identity;
 *   item 8  unit slips (tests/fixtures/import/unit-slips.csv, imported): a
 *           platform 2000x below the package it covers, a 160 kW zone;
 *   item 9  validate says what it dropped from scoring (a suspend, a gap)
 *           and the wall-clock steps it saw.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/import/import.h"
#include "collector/model/attribution.h"
#include "collector/store/store_replay.h"
#include "validator/gap.h"
#include "validator/levels.h"
#include "validator/text_report.h"
#include "validator/validation.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"

#define S(x) ((int64_t)((x) * 1000000000LL))
#define NEAR(a, b, tol)                                                                            \
    cr_assert(fabs((a) - (b)) <= (tol), "%s = %.12g, expected %.12g", #a, (double)(a), (double)(b))

static const char *tmp_db(const char *name)
{
    static char buf[4][4200];
    static unsigned next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", wc_test_tmpdir(), name);
    return b;
}

/* Replays the ideal model into the run (a writable store). */
static void replay_ideal(const char *path)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_WRITE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    int64_t ticks = 0;
    cr_assert_eq(wc_store_replay(st, WC_MODEL_IDEAL, &ticks, &err), 0, "%s", err.msg);
    wc_store_close(st);
}

/* The whole `validate --model ideal` text of a run (malloc'd). */
static char *validate_text(const char *path, wc_validation *v)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_validation_opts o;
    memset(&o, 0, sizeof o);
    o.acc.boot.replicates = 50;
    o.acc.boot.seed = 1;
    cr_assert_eq(wc_validation_run(st, WC_MODEL_IDEAL, &o, v, &err), 0, "%s", err.msg);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    wc_text_validation(f, v, path);
    fclose(f);
    wc_store_close(st);
    return text;
}

/* One integer from a SQL query on the run file. */
static int64_t sql_i64(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return v;
}

/* Node rows of the ideal model with every bit of flags set. */
static int64_t ideal_rows_flagged(const char *path, unsigned flags)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM node_attr n JOIN model m ON m.id = n.model_id"
                              " WHERE m.name = 'ideal' AND n.flags & %u = %u", flags, flags);
    return sql_i64(path, sql);
}

/* The zone of the gap report named name. */
static const wc_gap_zone *gap_zone(const wc_gap_report *r, const char *name)
{
    for (size_t i = 0; i < r->nzones; i++)
        if (!strcmp(r->zones[i].zone, name))
            return &r->zones[i];
    cr_assert_fail("no zone %s in the gap report", name);
    return NULL;
}

/* nticks ticks step_s apart of one package zone drawing watts (range 262 kJ). */
static void build_steady(const char *path, double watts, int step_s, int nticks)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    for (int k = 0; k < nticks; k++) {
        double w = watts;
        trun_tick(&t, S(k * step_s), S(k * step_s), S(1700000000 + k * step_s), &w, 0.5);
    }
    trun_finish(&t);
}

/* ---- item 2: the stored ceiling --------------------------------------------- */

Test(field_reports, stored_ceiling_is_the_one_validate_and_the_ideal_model_use)
{
    /* recorded with --ceiling-watts 200: a 300 W package is implausible there */
    const char *a = tmp_db("ceiling200.db");
    build_steady(a, 300, 1, 6);
    trun_exec(a, "UPDATE run SET ceiling_watts = 200");
    replay_ideal(a);
    wc_validation *v = calloc(1, sizeof *v);
    char *text = validate_text(a, v);
    const wc_gap_zone *z = gap_zone(&v->gap, "package");
    NEAR(z->meter_joules, 0, 1e-9);
    cr_assert_eq(z->meter_unmeasurable, 5);
    cr_assert(v->gap.ceiling_stored);
    NEAR(v->gap.ceiling_watts, 200, 0);
    cr_assert_not_null(strstr(text, "counter ceiling: 200 W per zone (stored with the run)\n"), "%s",
                       text);
    cr_assert_eq(ideal_rows_flagged(a, WC_AF_UNMEASURABLE), 5, "the ideal model used 200 W");
    free(text);
    wc_validation_free(v);

    /* the same run recorded before the ceiling was stored: 5000 W, said so */
    const char *b = tmp_db("ceiling-none.db");
    build_steady(b, 300, 1, 6);
    replay_ideal(b);
    memset(v, 0, sizeof *v);
    text = validate_text(b, v);
    z = gap_zone(&v->gap, "package");
    NEAR(z->meter_joules, 1500, 1e-6);
    cr_assert_eq(z->meter_unmeasurable, 0);
    cr_assert(!v->gap.ceiling_stored);
    NEAR(v->gap.ceiling_watts, 5000, 0);
    cr_assert_not_null(strstr(text, "counter ceiling: 5000 W per zone (built in: the run was recorded"
                                    " before the ceiling was stored; no hidden-wrap check)"), "%s", text);
    cr_assert_eq(ideal_rows_flagged(b, WC_AF_UNMEASURABLE), 0);
    free(text);
    wc_validation_free(v);
    free(v);
}

/* ---- item 3: hidden wraps --------------------------------------------------- */

Test(field_reports, a_wrap_that_could_hide_in_a_long_interval_is_never_measured)
{
    /* 60 s reads of a 100 W package, range 262 kJ: at 5000 W one interval
     * could hold 300 kJ, so 6 kJ could as well be 268 kJ */
    const char *a = tmp_db("long5000.db");
    build_steady(a, 100, 60, 5);
    trun_exec(a, "UPDATE run SET ceiling_watts = 5000");
    replay_ideal(a);
    wc_validation *v = calloc(1, sizeof *v);
    char *text = validate_text(a, v);
    const wc_gap_zone *z = gap_zone(&v->gap, "package");
    cr_assert_eq(z->meter_ambiguous, 4);
    cr_assert_eq(z->meter_unmeasurable, 4);
    NEAR(z->meter_joules, 0, 1e-9);
    NEAR(z->node_joules, 0, 1e-9);
    cr_assert_not_null(strstr(text, "warning: 4 counter interval(s) (first zone: package) long enough"
                                    " for a whole wrap to hide at the 5000 W ceiling: flagged"
                                    " ambiguous, never counted as measured"), "%s", text);
    cr_assert_eq(ideal_rows_flagged(a, WC_AF_WRAP_AMBIGUOUS | WC_AF_UNMEASURABLE), 4);
    free(text);
    wc_validation_free(v);

    /* recorded with --ceiling-watts 1000: 60 s hold 60 kJ < 262 kJ: measured */
    const char *b = tmp_db("long1000.db");
    build_steady(b, 100, 60, 5);
    trun_exec(b, "UPDATE run SET ceiling_watts = 1000");
    replay_ideal(b);
    memset(v, 0, sizeof *v);
    text = validate_text(b, v);
    z = gap_zone(&v->gap, "package");
    cr_assert_eq(z->meter_ambiguous, 0);
    NEAR(z->meter_joules, 24000, 1e-6);
    NEAR(z->node_joules, 24000, 1e-6);
    cr_assert_null(strstr(text, "ambiguous"), "%s", text);
    cr_assert_eq(ideal_rows_flagged(b, WC_AF_WRAP_AMBIGUOUS), 0);
    free(text);
    wc_validation_free(v);
    free(v);
}

/* ---- item 6: partial-socket intervals ---------------------------------------- */

/* A run of two packages from tests/fixtures/counter/hot-unplug/readings.csv
 * ("absent": the zone read ENOENT), written through the store. */
/* A new run of two measured package zones (sockets 0 and 1); *first gets
 * the first zone's id. */
static wc_store *two_package_run(const char *path, int64_t *first)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_run_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.model, sizeof info.model, "ideal");
    snprintf(info.meter_kind, sizeof info.meter_kind, "rapl");
    info.provenance = WC_PROV_MEASURED;
    info.sockets = 2;
    info.ncpus = 4;
    info.interval_ns = S(10);
    info.ceiling_watts = 5000;
    cr_assert_eq(wc_store_put_run(st, &info, &err), 0, "%s", err.msg);
    wc_zone zones[2];
    memset(zones, 0, sizeof zones);
    for (int i = 0; i < 2; i++) {
        snprintf(zones[i].name, sizeof zones[i].name, "package");
        snprintf(zones[i].raw_name, sizeof zones[i].raw_name, "package-%d", i);
        zones[i].socket = i;
        zones[i].parent = -1;
        zones[i].max_energy_range_uj = 262143328850ULL;
    }
    static const wc_meter_ops ops = {.kind = "rapl"};
    wc_meter m = {.ops = &ops, .provenance = WC_PROV_MEASURED, .zones = zones, .nzones = 2};
    cr_assert_eq(wc_store_put_zones(st, &m, first, &err), 0, "%s", err.msg);
    return st;
}

static void build_hot_unplug(const char *path)
{
    wc_error err = {{0}};
    int64_t first = 0;
    wc_store *st = two_package_run(path, &first);
    char *text = wc_test_slurp(wc_own_fixture("counter/hot-unplug/readings.csv"), NULL);
    wc_cpu_times cpu;
    memset(&cpu, 0, sizeof cpu);
    cpu.cpu = -1;
    cpu.nfields = 10;
    char *save = NULL;
    int64_t seq = 0;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        double t_s, busy;
        unsigned long long p0;
        char p1[32];
        if (l[0] == '#' || sscanf(l, "%lf,%lf,%llu,%31s", &t_s, &busy, &p0, p1) != 4)
            continue;
        if (seq) { /* 4 CPUs, 100 ticks/s, over the 10 s since the previous row */
            cpu.user += (uint64_t)(4000 * busy / 100);
            cpu.idle += (uint64_t)(4000 * (100 - busy) / 100);
        }
        wc_reading r[2] = {{S(t_s), p0, 0}, {S(t_s), 0, 0}};
        if (!strcmp(p1, "absent"))
            r[1].status = -ENOENT;
        else
            r[1].value = strtoull(p1, NULL, 10);
        int64_t id = 0;
        cr_assert_eq(wc_store_begin(st, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_store_put_tick(st, seq, S(t_s), S(t_s), S(1700000000 + t_s), &cpu, 1, 0,
                                       0, &id, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_store_put_zone_samples(st, id, first, r, 2, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_store_commit(st, &err), 0, "%s", err.msg);
        seq++;
    }
    free(text);
    cr_assert_eq(seq, 5);
    cr_assert_eq(wc_store_finish_run(st, S(40), S(40), seq, 1, &err), 0, "%s", err.msg);
    wc_store_close(st);
}

Test(field_reports, every_joule_of_a_partial_socket_interval_lands_in_one_bucket)
{
    const char *p = tmp_db("hot-unplug.db");
    build_hot_unplug(p);
    replay_ideal(p);
    wc_validation *v = calloc(1, sizeof *v);
    char *text = validate_text(p, v);
    /* 2 × 70 J, 70 J (package 1 absent), 70 J (package 1 back: a new
     * baseline, no interval), 2 × 70 J; the node half busy, no process */
    const wc_gap_zone *z = gap_zone(&v->gap, "package");
    NEAR(z->node_joules, 420, 1e-9);
    NEAR(z->meter_joules, 420, 1e-9);
    NEAR(z->idle_joules, 210, 1e-9);
    NEAR(z->active_joules, 210, 1e-9);
    NEAR(z->process_joules, 0, 1e-9);
    NEAR(z->unattributed_joules, 210, 1e-9);
    /* gap = node − Σ processes = idle + unattributed − over: nothing left over */
    NEAR(z->node_joules - z->process_joules, z->idle_joules + z->unattributed_joules - z->over_joules,
         1e-9);
    const wc_level_zone *l = wc_levels_zone(&v->levels, "package");
    cr_assert_not_null(l);
    NEAR(l->unattr_skipped_j, 70, 1e-9); /* the two partial intervals' active halves */
    NEAR(l->unattr_missed_j, 140, 1e-9);
    NEAR(l->node_j, l->idle_j + l->unattr_skipped_j + l->unattr_missed_j - l->over_j + l->process_j,
         1e-9);
    cr_assert_eq(ideal_rows_flagged(p, WC_AF_ZONE_MISSING | WC_AF_UNMEASURABLE), 2);
    free(text);
    wc_validation_free(v);
    free(v);
}

/* ---- item 8: unit slips ------------------------------------------------------ */

Test(field_reports, unit_slips_of_platform_and_acpi_sources_are_warned)
{
    const char *p = tmp_db("slips.db");
    wc_import_csv_opts o;
    memset(&o, 0, sizeof o);
    o.path = wc_own_fixture("import/unit-slips.csv");
    o.time_col = "time";
    o.time_unit_ns = 1000000000LL;
    o.util_scale = 1.0;
    const char *cols[3] = {"package_uj:package:uj", "psys_mj:psys:mj", "platform_w:platform:w"};
    const wc_import_col_kind kinds[3] = {WC_IMPORT_COUNTER, WC_IMPORT_COUNTER, WC_IMPORT_POWER};
    wc_error err = {{0}};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(wc_import_parse_col(cols[i], kinds[i], &o.cols[o.ncols++], &err), 0, "%s",
                     err.msg);
    wc_import_target t = {.db_path = p, .provenance = WC_PROV_MEASURED, .command_line = "test"};
    wc_import_summary sum;
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), 0, "%s", err.msg);
    replay_ideal(p);
    wc_validation *v = calloc(1, sizeof *v);
    char *text = validate_text(p, v);
    cr_assert_eq(v->slips.n, 2, "%s", text);
    cr_assert_not_null(strstr(text, "warning: unit slip? platform zone psys averages 0.06017 W,"
                                    " 1994x below the package's 120 W it covers: a 1000x unit slip"),
                       "%s", text);
    cr_assert_not_null(strstr(text, "warning: unit slip? zone platform averages 160000 W per zone,"
                                    " implausibly large for a node"), "%s", text);
    /* the figures stay as measured */
    NEAR(gap_zone(&v->gap, "package")->meter_joules, 1800, 1e-6);
    NEAR(gap_zone(&v->gap, "psys")->meter_joules, 0.9025, 1e-9);
    free(text);
    wc_validation_free(v);

    /* a consistent run (the hot-unplug node) has no warning */
    const char *q = tmp_db("no-slips.db");
    build_hot_unplug(q);
    replay_ideal(q);
    memset(v, 0, sizeof *v);
    text = validate_text(q, v);
    cr_assert_eq(v->slips.n, 0, "%s", v->slips.msg[0]);
    cr_assert_null(strstr(text, "unit slip"), "%s", text);
    free(text);
    wc_validation_free(v);
    free(v);
}

/* ---- item 9: what validate dropped, said ------------------------------------- */

Test(field_reports, validate_says_it_dropped_a_suspend_and_saw_clock_steps)
{
    const char *p = tmp_db("clocks.db");
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, p, z, 1);
    int64_t mono = 0, boot = 0, wall = S(1700000000);
    for (int k = 0; k < 60; k++) {
        double w = 100;
        if (k == 20) {
            boot += S(30); /* suspended 30 s: the counter kept counting */
            w *= 31;
        }
        if (k == 40)
            wall -= S(3600); /* NTP steps the wall clock back an hour */
        mono += k ? S(1) : 0;
        boot += k ? S(1) : 0;
        wall += k ? S(1) : 0;
        trun_tick(&t, mono, boot, wall, &w, 0.3);
    }
    trun_finish(&t);
    replay_ideal(p);
    wc_validation *v = calloc(1, sizeof *v);
    char *text = validate_text(p, v);
    cr_assert_eq(v->acc.tb.gaps.suspends, 1);
    cr_assert_eq(v->acc.tb.gaps.clock_steps, 1);
    NEAR(v->acc.tb.gaps.clock_step_seconds, 3600, 1e-6);
    cr_assert_not_null(strstr(text, "note: dropped from scoring: 1 suspend(s) (30.0 s asleep) and"
                                    " 0 gap(s) (0.0 s without samples): no power is derived across"
                                    " them, no pair or window spanning them is scored\n"), "%s", text);
    cr_assert_not_null(strstr(text, "note: the wall clock stepped 1 time(s) (3600.0 s in all):"
                                    " nothing dropped, intervals come from the monotonic clock"),
                       "%s", text);
    free(text);
    wc_validation_free(v);
    free(v);
}
