/*
 * gap.c — attribution-gap totals from a recorded run (see gap.h).
 *
 * All sums are SQL aggregates over the model's rows except the meter energy,
 * which re-differences the raw counters with collector/meter/counter.c so a wrap
 * or reset is handled exactly as the collector defines it.
 */
#include "validator/gap.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "collector/meter/counter.h"
#include "validator/levels.h"

size_t wc_gap_below_baseline(const wc_gap_report *r, char *phase, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nphases; i++) {
        const wc_gap_phase *p = &r->phases[i];
        if (strcmp(p->cls, "idle") && p->marginal_watts < 0) {
            if (!n++ && cap)
                snprintf(phase, cap, "%s", p->name);
        }
    }
    return n;
}

double wc_gap_pct(double part, double whole)
{
    return whole != 0.0 ? 100.0 * (part / whole) : NAN; /* part == whole gives 100 exactly */
}

static int sql_fail(sqlite3 *db, wc_error *err, const char *what)
{
    return wc_error_set(err, -EIO, "validate: %s: %s", what, sqlite3_errmsg(db));
}

static void copy_text(char *dst, size_t cap, const unsigned char *src)
{
    snprintf(dst, cap, "%s", src ? (const char *)src : "");
}

static wc_gap_zone *zone_slot(wc_gap_report *rep, const char *name)
{
    if (!name)
        name = ""; /* a NULL zone name (a damaged run) is a zone without a name */
    for (size_t i = 0; i < rep->nzones; i++)
        if (strcmp(rep->zones[i].zone, name) == 0)
            return &rep->zones[i];
    if (rep->nzones == WC_GAP_MAX_ZONES)
        return NULL;
    wc_gap_zone *z = &rep->zones[rep->nzones++];
    snprintf(z->zone, sizeof z->zone, "%s", name);
    return z;
}

static int load_run(sqlite3 *db, wc_gap_report *rep, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT host, provenance, meter_description,"
                           " (SELECT COUNT(*) FROM tick),"
                           " (SELECT MAX(mono_ns) - MIN(mono_ns) FROM tick), clean_stop, meter_kind FROM run",
                           -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading run");
    if (sqlite3_step(s) == SQLITE_ROW) {
        copy_text(rep->host, sizeof rep->host, sqlite3_column_text(s, 0));
        copy_text(rep->provenance, sizeof rep->provenance, sqlite3_column_text(s, 1));
        copy_text(rep->meter_description, sizeof rep->meter_description,
                  sqlite3_column_text(s, 2));
        rep->ticks = sqlite3_column_int64(s, 3);
        rep->duration_s = (double)sqlite3_column_int64(s, 4) / 1e9;
        rep->clean_stop = sqlite3_column_int(s, 5);
        copy_text(rep->meter_kind, sizeof rep->meter_kind, sqlite3_column_text(s, 6));
    }
    sqlite3_finalize(s);
    return 0;
}

/* Meter energy per zone name: raw counters through wc_counter_delta, per
 * socket zone before any sum. meter_unmeasurable counts ticks without a usable
 * interval (failed reads, resets, unknown range). */
static int load_meter_energy(sqlite3 *db, wc_gap_report *rep, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT zs.zone_id, z.name, z.max_energy_range_uj, zs.value,"
                           " zs.status, t.mono_ns FROM zone_sample zs"
                           " JOIN zone z ON z.id = zs.zone_id JOIN tick t ON t.id = zs.tick_id"
                           " WHERE z.kind = 'counter_uj' ORDER BY zs.zone_id, zs.tick_id",
                           -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading zone samples");
    int64_t cur_zone = -1, prev_mono = 0;
    uint64_t prev = 0;
    int have_prev = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        int64_t zid = sqlite3_column_int64(s, 0);
        if (zid != cur_zone) {
            cur_zone = zid;
            have_prev = 0;
        }
        wc_gap_zone *z = zone_slot(rep, (const char *)sqlite3_column_text(s, 1));
        /* a counter is an integer: NULL or any other type is a failed read */
        int ok = sqlite3_column_int(s, 4) == 0 && sqlite3_column_type(s, 3) == SQLITE_INTEGER;
        uint64_t v = (uint64_t)sqlite3_column_int64(s, 3);
        int64_t mono = sqlite3_column_int64(s, 5);
        if (!z)
            continue;
        if (!ok) {
            /* The tick has no reading. A transient failure keeps the last good
             * baseline, so the next reading spans the gap (the ceiling then
             * applies to the longer interval); a zone that vanished (ENOENT:
             * its CPUs went offline, cases/B25) starts a new baseline. */
            if (have_prev)
                z->meter_unmeasurable++;
            if (sqlite3_column_int(s, 4) == -ENOENT)
                have_prev = 0;
            continue;
        }
        if (have_prev) {
            uint64_t d = 0;
            wc_delta_status st = wc_counter_delta(prev, v, (uint64_t)sqlite3_column_int64(s, 2),
                                                  mono - prev_mono, 0, &d);
            z->meter_intervals++;
            if (wc_delta_usable(st))
                z->meter_joules += (double)d / 1e6;
            else
                z->meter_unmeasurable++;
        }
        prev = v;
        prev_mono = mono;
        have_prev = 1;
    }
    sqlite3_finalize(s);
    return 0;
}

static int load_node(sqlite3 *db, int64_t model_id, wc_gap_report *rep, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT zone, SUM(delta_uj), SUM(active_uj), SUM(idle_uj),"
             " SUM((flags & %u) = 0), SUM((flags & %u) != 0), SUM((flags & %u) != 0),"
             " SUM((flags & %u) != 0), SUM((flags & %u) != 0), SUM((flags & %u) != 0),"
             " SUM((flags & %u) != 0)"
             " FROM node_attr WHERE model_id = ? GROUP BY zone ORDER BY MIN(rowid)",
             WC_AF_FIRST, WC_AF_SKIPPED, WC_AF_TOTALS_RESET, WC_AF_WRAP, WC_AF_UNMEASURABLE,
             WC_AF_REFRESH_FAILED, WC_AF_RATIO_RANGE);
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading node attribution");
    sqlite3_bind_int64(s, 1, model_id);
    int rows = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        wc_gap_zone *z = zone_slot(rep, (const char *)sqlite3_column_text(s, 0));
        rows++;
        if (!z)
            continue;
        z->node_joules = sqlite3_column_double(s, 1) / 1e6;
        z->active_joules = sqlite3_column_double(s, 2) / 1e6;
        z->idle_joules = sqlite3_column_double(s, 3) / 1e6;
        z->intervals = sqlite3_column_int64(s, 4);
        z->skipped = sqlite3_column_int64(s, 5);
        z->totals_reset = sqlite3_column_int64(s, 6);
        z->wraps = sqlite3_column_int64(s, 7);
        z->unmeasurable = sqlite3_column_int64(s, 8);
        z->refresh_failed = sqlite3_column_int64(s, 9);
        z->ratio_out_of_range = sqlite3_column_int64(s, 10);
    }
    sqlite3_finalize(s);
    return rows ? 0 : -ENOENT;
}

/* Processes, containers and pods, unattributed and over-attributed energy,
 * per zone, from the levels pass (validator/levels.c: one read of the
 * model's workload rows). */
static void copy_levels(const wc_levels_report *lv, wc_gap_report *rep)
{
    for (size_t i = 0; i < lv->nzones; i++) {
        const wc_level_zone *l = &lv->zones[i];
        wc_gap_zone *z = zone_slot(rep, l->zone);
        if (!z)
            continue;
        z->process_joules = l->process_j;
        z->container_joules = l->container_j;
        z->pod_joules = l->pod_j;
        z->unattributed_joules = l->unattr_skipped_j + l->unattr_missed_j;
        z->over_joules = l->over_j;
    }
    rep->negative_share_rows = lv->negative_share_rows;
    rep->lifetime_delta_rows = lv->lifetime_delta_rows;
}

static void pick_rank_zone(wc_gap_report *rep)
{
    static const char *const pref[] = {"package", "psys", "core", "dram", "uncore"};
    for (size_t p = 0; p < sizeof pref / sizeof *pref; p++)
        for (size_t i = 0; i < rep->nzones; i++)
            if (strcmp(rep->zones[i].zone, pref[p]) == 0 && rep->zones[i].intervals > 0) {
                snprintf(rep->rank_zone, sizeof rep->rank_zone, "%s", pref[p]);
                return;
            }
    if (rep->nzones)
        snprintf(rep->rank_zone, sizeof rep->rank_zone, "%s", rep->zones[0].zone);
}

/* Indexes of the (at most) WC_GAP_TOP largest positive values of v[0..n), largest first. */
static size_t top_indexes(const double *v, size_t n, size_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i] > 0))
            continue;
        size_t pos = k < WC_GAP_TOP ? k++ : WC_GAP_TOP;
        if (pos == WC_GAP_TOP) {
            if (v[i] <= v[out[WC_GAP_TOP - 1]])
                continue;
            pos = WC_GAP_TOP - 1;
        }
        while (pos > 0 && v[out[pos - 1]] < v[i]) {
            out[pos] = out[pos - 1];
            pos--;
        }
        out[pos] = i;
    }
    return k;
}

static int load_top(sqlite3 *db, const wc_levels_report *lv, wc_gap_report *rep, wc_error *err)
{
    const wc_level_zone *z = wc_levels_zone(lv, rep->rank_zone);
    if (!z)
        return 0;
    size_t idx[WC_GAP_TOP];
    size_t n = top_indexes(z->per_process_j, (size_t)(lv->max_process_id + 1), idx);
    sqlite3_stmt *s = NULL;
    if (n && sqlite3_prepare_v2(db, "SELECT pid, starttime, comm, container_id, pod_uid FROM process"
                                    " WHERE id = ?", -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "ranking processes");
    for (size_t k = 0; k < n; k++) {
        wc_gap_top *t = &rep->top_processes[rep->ntop_processes++];
        sqlite3_bind_int64(s, 1, (int64_t)idx[k]);
        if (sqlite3_step(s) == SQLITE_ROW) {
            t->pid = sqlite3_column_int(s, 0);
            t->starttime = (uint64_t)sqlite3_column_int64(s, 1);
            copy_text(t->name, sizeof t->name, sqlite3_column_text(s, 2));
            copy_text(t->container_id, sizeof t->container_id, sqlite3_column_text(s, 3));
            copy_text(t->pod_uid, sizeof t->pod_uid, sqlite3_column_text(s, 4));
        }
        sqlite3_reset(s);
        t->joules = z->per_process_j[idx[k]];
        t->cpu_seconds = z->per_process_cpu_s[idx[k]];
    }
    sqlite3_finalize(s);
    n = lv->ncontainers ? top_indexes(z->per_container_j, lv->ncontainers, idx) : 0;
    for (size_t k = 0; k < n; k++) {
        wc_gap_top *t = &rep->top_containers[rep->ntop_containers++];
        long pod = lv->container_pod[idx[k]];
        copy_text(t->container_id, sizeof t->container_id,
                  (const unsigned char *)lv->container_ids[idx[k]]);
        copy_text(t->pod_uid, sizeof t->pod_uid,
                  (const unsigned char *)(pod >= 0 ? lv->pod_uids[pod] : ""));
        memcpy(t->name, t->container_id, 12);
        t->name[12] = '\0';
        t->joules = z->per_container_j[idx[k]];
        t->cpu_seconds = z->per_container_cpu_s[idx[k]];
    }
    return 0;
}

static int load_truth(sqlite3 *db, wc_gap_report *rep, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(
            db,
            "SELECT ts.spec, ts.kind, ts.provenance, ts.description,"
            " SUM(t.status = 'ok'), SUM(t.status = 'stale'), SUM(t.status = 'unavailable'),"
            " SUM(t.status = 'error'), AVG(CASE WHEN t.status = 'ok' THEN t.watts END),"
            " (SELECT error FROM truth_sample e WHERE e.source_id = ts.id AND e.error != ''"
            "  ORDER BY e.rowid DESC LIMIT 1)"
            " FROM truth_source ts LEFT JOIN truth_sample t ON t.source_id = ts.id"
            " GROUP BY ts.id ORDER BY ts.id",
            -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading ground truth");
    while (sqlite3_step(s) == SQLITE_ROW && rep->ntruth < WC_GAP_MAX_TRUTH) {
        wc_gap_truth *t = &rep->truth[rep->ntruth++];
        copy_text(t->spec, sizeof t->spec, sqlite3_column_text(s, 0));
        copy_text(t->kind, sizeof t->kind, sqlite3_column_text(s, 1));
        copy_text(t->provenance, sizeof t->provenance, sqlite3_column_text(s, 2));
        copy_text(t->description, sizeof t->description, sqlite3_column_text(s, 3));
        t->ok = sqlite3_column_int64(s, 4);
        t->stale = sqlite3_column_int64(s, 5);
        t->unavailable = sqlite3_column_int64(s, 6);
        t->error = sqlite3_column_int64(s, 7);
        t->mean_watts = sqlite3_column_type(s, 8) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 8);
        copy_text(t->last_error, sizeof t->last_error, sqlite3_column_text(s, 9));
    }
    sqlite3_finalize(s);
    return 0;
}

/* Replayed workloads: true CPU (wait4) against the CPU /proc sampling saw
 * of the processes in the workload's process group that were first seen
 * during its phase (coverage ratio; short-lived processes lower it). */
static int load_workloads(sqlite3 *db, wc_gap_report *rep, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(
            db,
            "SELECT ph.name, ph.repetition, w.class, w.workers, w.crashed,"
            " (w.true_user_ns + w.true_sys_ns) / 1e9,"
            " (SELECT COALESCE(SUM(mx), 0) / 100.0 FROM"
            "   (SELECT MAX(ps.utime + ps.stime) AS mx FROM process pr"
            "    JOIN tick t ON t.id = pr.first_tick_id"
            "    JOIN proc_sample ps ON ps.process_id = pr.id"
            "    WHERE pr.pgid = w.pgid AND t.mono_ns >= ph.start_mono_ns - 2000000000"
            "      AND t.mono_ns <= ph.end_mono_ns + 10000000000 GROUP BY pr.id))"
            " , (SELECT SUM(n.active_uj) / 1e6 / NULLIF(SUM(n.node_busy_s), 0) FROM node_attr n"
            "    JOIN tick t2 ON t2.id = n.tick_id WHERE n.zone = 'package'"
            "    AND n.model_id = (SELECT MIN(id) FROM model)"
            "    AND t2.mono_ns > ph.start_mono_ns AND t2.mono_ns <= ph.end_mono_ns)"
            " FROM workload w JOIN phase ph ON ph.id = w.phase_id ORDER BY w.id",
            -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading workloads");
    while (sqlite3_step(s) == SQLITE_ROW && rep->nworkloads < WC_GAP_MAX_WORKLOADS) {
        wc_gap_workload *w = &rep->workloads[rep->nworkloads++];
        copy_text(w->phase, sizeof w->phase, sqlite3_column_text(s, 0));
        w->repetition = sqlite3_column_int(s, 1);
        copy_text(w->cls, sizeof w->cls, sqlite3_column_text(s, 2));
        w->workers = sqlite3_column_int(s, 3);
        w->crashed = sqlite3_column_int(s, 4);
        w->true_cpu_s = sqlite3_column_double(s, 5);
        if (!(w->true_cpu_s >= 0))
            w->true_cpu_s = NAN; /* a negative rusage is corrupt, not a measurement */
        w->seen_cpu_s = sqlite3_column_double(s, 6);
        w->coverage = w->true_cpu_s > 0 ? w->seen_cpu_s / w->true_cpu_s : NAN;
        double j_per_cpu_s = sqlite3_column_type(s, 7) == SQLITE_NULL ? NAN
                                                                      : sqlite3_column_double(s, 7);
        double missed = w->true_cpu_s - w->seen_cpu_s;
        w->lost_joules = (isnan(j_per_cpu_s) || missed < 0) ? (missed < 0 ? 0 : NAN)
                                                            : missed * j_per_cpu_s;
    }
    sqlite3_finalize(s);
    return 0;
}

/* Meter energy (package + dram counter zones) between two monotonic times,
 * per zone from its first to its last sample inside the window, wraps handled
 * by the counter rule; returns J and sets *span_s, or NAN when unmeasurable. */
static double meter_joules_between(sqlite3 *db, int64_t t0, int64_t t1, double *span_s)
{
    sqlite3_stmt *s = NULL;
    double total = 0;
    int any = 0;
    *span_s = 0;
    /* tick ids grow with time: the phase as an id range uses the tick index */
    int64_t id0 = 0, id1 = -1;
    if (sqlite3_prepare_v2(db, "SELECT MIN(id), MAX(id) FROM tick WHERE mono_ns >= ? AND mono_ns <= ?",
                           -1, &s, NULL) != SQLITE_OK)
        return NAN;
    sqlite3_bind_int64(s, 1, t0);
    sqlite3_bind_int64(s, 2, t1);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
        id0 = sqlite3_column_int64(s, 0);
        id1 = sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
    if (sqlite3_prepare_v2(db,
                           "SELECT zs.zone_id, z.max_energy_range_uj, zs.value, zs.status, t.mono_ns"
                           " FROM zone_sample zs JOIN zone z ON z.id = zs.zone_id"
                           " JOIN tick t ON t.id = zs.tick_id WHERE z.kind = 'counter_uj'"
                           " AND z.name IN ('package', 'dram') AND zs.tick_id BETWEEN ? AND ?"
                           " ORDER BY zs.zone_id, zs.tick_id",
                           -1, &s, NULL) != SQLITE_OK)
        return NAN;
    sqlite3_bind_int64(s, 1, id0);
    sqlite3_bind_int64(s, 2, id1);
    int64_t zone = -1, prev_mono = 0, first_mono = 0;
    uint64_t prev = 0;
    int have = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        int64_t zid = sqlite3_column_int64(s, 0);
        if (zid != zone) {
            zone = zid;
            have = 0;
        }
        if (sqlite3_column_int(s, 3) != 0 || sqlite3_column_type(s, 2) != SQLITE_INTEGER) {
            have = 0;
            continue;
        }
        uint64_t v = (uint64_t)sqlite3_column_int64(s, 2);
        int64_t mono = sqlite3_column_int64(s, 4);
        if (have) {
            uint64_t d = 0;
            if (wc_delta_usable(wc_counter_delta(prev, v, (uint64_t)sqlite3_column_int64(s, 1),
                                                 mono - prev_mono, 0, &d))) {
                total += (double)d / 1e6;
                any = 1;
            }
            double span = (double)(mono - first_mono) / 1e9;
            if (span > *span_s)
                *span_s = span;
        } else {
            first_mono = mono;
        }
        prev = v;
        prev_mono = mono;
        have = 1;
    }
    sqlite3_finalize(s);
    return any ? total : NAN;
}

/* Phases with their mean node power and the marginal power over the idle
 * baseline (isolation known answers). Ground truth per phase is scored, after
 * alignment, by validator/accuracy.c. */
static int load_phases(sqlite3 *db, wc_gap_report *rep, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(
            db,
            "SELECT ph.name, ph.class, ph.repetition, ph.start_mono_ns, ph.end_mono_ns"
            " FROM phase ph WHERE typeof(ph.start_mono_ns) = 'integer' AND"
            " typeof(ph.end_mono_ns) = 'integer' AND ph.end_mono_ns > ph.start_mono_ns"
            " ORDER BY ph.start_mono_ns",
            -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading phases");
    double idle_sum = 0;
    int idle_n = 0;
    while (sqlite3_step(s) == SQLITE_ROW && rep->nphases < WC_GAP_MAX_PHASES) {
        wc_gap_phase *p = &rep->phases[rep->nphases++];
        copy_text(p->name, sizeof p->name, sqlite3_column_text(s, 0));
        copy_text(p->cls, sizeof p->cls, sqlite3_column_text(s, 1));
        p->repetition = sqlite3_column_int(s, 2);
        int64_t t0 = sqlite3_column_int64(s, 3), t1 = sqlite3_column_int64(s, 4);
        p->duration_s = ((double)t1 - (double)t0) / 1e9;
        double span = 0, j = meter_joules_between(db, t0, t1, &span);
        p->node_watts = (!isnan(j) && span > 0) ? j / span : NAN;
        if (!strcmp(p->cls, "idle") && !isnan(p->node_watts)) {
            idle_sum += p->node_watts;
            idle_n++;
        }
    }
    sqlite3_finalize(s);
    for (size_t i = 0; i < rep->nphases; i++) {
        wc_gap_phase *p = &rep->phases[i];
        p->marginal_watts = idle_n ? p->node_watts - idle_sum / idle_n : NAN;
    }
    return 0;
}

static int model_id_of(sqlite3 *db, wc_model model, int64_t *id)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id FROM model WHERE name = ?", -1, &s, NULL) != SQLITE_OK)
        return -EIO;
    sqlite3_bind_text(s, 1, wc_model_name(model), -1, SQLITE_STATIC);
    int rc = sqlite3_step(s) == SQLITE_ROW ? 0 : -ENOENT;
    if (!rc)
        *id = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return rc;
}

int wc_gap_compute_with(wc_store *st, wc_model model, const wc_levels_report *lv,
                        wc_gap_report *rep, wc_error *err)
{
    sqlite3 *db = wc_store_db(st);
    memset(rep, 0, sizeof *rep);
    snprintf(rep->model, sizeof rep->model, "%s", wc_model_name(model));
    int64_t model_id = 0;
    int rc = model_id_of(db, model, &model_id);
    if (rc)
        return wc_error_set(err, rc, "the run has no attribution for model %s",
                            wc_model_name(model));
    rc = load_run(db, rep, err);
    if (!rc)
        rc = load_node(db, model_id, rep, err);
    if (rc == -ENOENT)
        return wc_error_set(err, rc, "the run has no attribution rows for model %s",
                            wc_model_name(model));
    if (!rc)
        rc = load_meter_energy(db, rep, err);
    if (!rc) {
        copy_levels(lv, rep);
        pick_rank_zone(rep);
        rc = load_top(db, lv, rep, err);
    }
    if (!rc)
        rc = load_truth(db, rep, err);
    if (!rc)
        rc = load_workloads(db, rep, err);
    if (!rc)
        rc = load_phases(db, rep, err);
    return rc;
}

int wc_gap_compute(wc_store *st, wc_model model, wc_gap_report *rep, wc_error *err)
{
    int64_t model_id = 0;
    if (model_id_of(wc_store_db(st), model, &model_id))
        return wc_error_set(err, -ENOENT, "the run has no attribution for model %s",
                            wc_model_name(model));
    wc_levels_report lv;
    int rc = wc_levels_compute(wc_store_db(st), model_id, 60, &lv, err);
    if (rc == -ENOENT || rc == -ENODATA)
        return wc_error_set(err, -ENOENT, "the run has no attribution rows for model %s",
                            wc_model_name(model));
    if (rc)
        return rc;
    rc = wc_gap_compute_with(st, model, &lv, rep, err);
    wc_levels_free(&lv);
    return rc;
}
