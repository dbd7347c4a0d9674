/*
 * test_rundb.c — synthetic run databases for the validator's tests
 * (test_rundb.h).
 */
#include "tests/unit/support/test_rundb.h"

#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#define CPU_TICKS_PER_S 100.0
#define NCPUS 4

void trun_create(trun *t, const char *path, const trun_zone *zones, size_t nzones)
{
    memset(t, 0, sizeof *t);
    wc_error err = {{0}};
    t->st = wc_store_open(path, WC_STORE_CREATE, &err);
    cr_assert_not_null(t->st, "%s", err.msg);
    wc_run_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.host, sizeof info.host, "synthetic");
    snprintf(info.model, sizeof info.model, "ideal");
    snprintf(info.meter_kind, sizeof info.meter_kind, "sim");
    snprintf(info.meter_description, sizeof info.meter_description, "SYNTHETIC test run");
    snprintf(info.command_line, sizeof info.command_line, "unit test (synthetic)");
    info.provenance = WC_PROV_SIMULATED;
    info.interval_ns = 1000000000LL;
    info.ncpus = NCPUS;
    cr_assert_eq(wc_store_put_run(t->st, &info, &err), 0, "%s", err.msg);
    cr_assert(nzones <= TR_MAX_ZONES);
    t->nzones = nzones;
    for (size_t i = 0; i < nzones; i++) {
        wc_zone *z = &t->zones[i];
        snprintf(z->name, sizeof z->name, "%s", zones[i].name);
        snprintf(z->raw_name, sizeof z->raw_name, "%s-%d", zones[i].name, zones[i].socket);
        snprintf(z->path, sizeof z->path, "/synthetic/%zu", i);
        z->socket = zones[i].socket;
        z->parent = -1;
        z->enabled = 1;
        z->max_energy_range_uj = 262143328850ULL;
        z->kind = zones[i].kind;
    }
    static const wc_meter_ops ops = {.kind = "sim"};
    wc_meter m = {.ops = &ops, .provenance = WC_PROV_SIMULATED, .zones = t->zones, .nzones = nzones};
    cr_assert_eq(wc_store_put_zones(t->st, &m, &t->first_zone_id, &err), 0, "%s", err.msg);
    t->cpu.cpu = -1;
    t->cpu.nfields = 10;
    t->cpu.idle = 1000;
}

int64_t trun_tick(trun *t, int64_t mono_ns, int64_t boot_ns, int64_t wall_ns, const double *watts,
                  double busy_frac)
{
    wc_error err = {{0}};
    double dt = t->seq ? (double)(mono_ns - t->last_mono_ns) / 1e9 : 0;
    wc_reading r[TR_MAX_ZONES];
    for (size_t z = 0; z < t->nzones; z++) {
        r[z].mono_ns = mono_ns;
        r[z].status = 0;
        if (t->zones[z].kind == WC_KIND_COUNTER_UJ) {
            t->cum_uj[z] += watts[z] * dt * 1e6;
            r[z].value = (uint64_t)llround(t->cum_uj[z]);
        } else {
            r[z].value = (uint64_t)llround(watts[z] * 1e6);
        }
    }
    int cpu_ok = busy_frac >= 0;
    if (cpu_ok && dt > 0) {
        double total = dt * CPU_TICKS_PER_S * NCPUS;
        t->cpu.user += (uint64_t)llround(total * busy_frac);
        t->cpu.idle += (uint64_t)llround(total * (1 - busy_frac));
    }
    int64_t id = 0;
    cr_assert_eq(wc_store_begin(t->st, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_tick(t->st, t->seq, mono_ns, boot_ns, wall_ns, &t->cpu, cpu_ok, 0, 0,
                                   &id, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_zone_samples(t->st, id, t->first_zone_id, r, t->nzones, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(wc_store_commit(t->st, &err), 0, "%s", err.msg);
    t->seq++;
    t->last_mono_ns = mono_ns;
    t->last_tick_id = id;
    return id;
}

int64_t trun_truth_source(trun *t, const char *spec, const char *kind, wc_provenance prov)
{
    wc_error err = {{0}};
    int64_t id = 0;
    cr_assert_eq(wc_store_put_truth_source(t->st, spec, kind, prov, "synthetic truth", &id, &err), 0,
                 "%s", err.msg);
    return id;
}

void trun_truth(trun *t, int64_t source_id, int64_t poll_mono_ns, double watts, double window_s,
                int window_known, int64_t device_ts_ns, const char *status)
{
    wc_truth_sample s;
    memset(&s, 0, sizeof s);
    s.poll_mono_ns = poll_mono_ns;
    s.poll_wall_ns = poll_mono_ns;
    s.device_ts_ns = device_ts_ns;
    s.watts = (!strcmp(status, "ok") || !strcmp(status, "stale")) ? watts : NAN;
    s.min_watts = s.max_watts = s.avg_watts = NAN;
    s.window_s = window_s;
    s.window_known = window_known;
    snprintf(s.path, sizeof s.path, "synthetic");
    s.status = !strcmp(status, "ok")      ? WC_TRUTH_OK
               : !strcmp(status, "stale") ? WC_TRUTH_STALE
               : !strcmp(status, "unavailable") ? WC_TRUTH_UNAVAILABLE
                                                : WC_TRUTH_ERROR;
    wc_error err = {{0}};
    cr_assert_eq(wc_store_put_truth_sample(t->st, source_id, &s, &err), 0, "%s", err.msg);
}

int64_t trun_phase(trun *t, const char *name, const char *cls, int64_t start_ns, int64_t end_ns,
                   int repetition)
{
    wc_error err = {{0}};
    cr_assert_eq(wc_store_put_phase(t->st, name, cls, start_ns, end_ns, start_ns, end_ns, repetition,
                                    &err), 0, "%s", err.msg);
    return wc_store_last_insert_id(t->st);
}

void trun_finish(trun *t)
{
    wc_error err = {{0}};
    cr_assert_eq(wc_store_finish_run(t->st, t->last_mono_ns, t->last_mono_ns, t->seq, 1, &err), 0,
                 "%s", err.msg);
    wc_store_close(t->st);
    t->st = NULL;
}

void trun_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, msg ? msg : "");
    sqlite3_free(msg);
    sqlite3_close(db);
}
