/*
 * gap.c — attribution-gap totals from a recorded run (see gap.h).
 *
 * The node sums are the store's per-zone totals of the model's rows
 * (collector/store/store_read.h), the workload sums come from the levels pass;
 * the meter energy re-differences the raw counters with
 * collector/meter/counter.c so a wrap or reset is handled exactly as the
 * collector defines it.
 */
#include "validator/gap.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/counter.h"
#include "collector/store/store_read.h"
#include "collector/store/store_results.h"
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

static wc_gap_zone *zone_slot(wc_gap_report *rep, const char *name)
{
    if (!name)
        name = ""; /* a NULL zone name (a damaged run) is a zone without a name */
    for (size_t i = 0; i < rep->nzones; i++)
        if (strcmp(rep->zones[i].zone, name) == 0)
            return &rep->zones[i];
    if (rep->nzones == WC_GAP_MAX_ZONES || strlen(name) >= sizeof rep->zones[0].zone)
        return NULL; /* cut, a name would match none of its rows and fill the table */
    wc_gap_zone *z = &rep->zones[rep->nzones++];
    snprintf(z->zone, sizeof z->zone, "%s", name);
    return z;
}

/* last − first in ns as SQL computed MAX(mono_ns) − MIN(mono_ns): on an
 * overflow, the difference of the doubles, held to 64 bits. */
static int64_t span_ns(int64_t first, int64_t last)
{
    int64_t d;
    if (!__builtin_sub_overflow(last, first, &d))
        return d;
    double r = (double)last - (double)first;
    return r >= 9223372036854775807.0 ? INT64_MAX : r <= -9223372036854775808.0 ? INT64_MIN : (int64_t)r;
}

static int load_run(wc_store *st, wc_gap_report *rep, wc_error *err)
{
    wc_run_meta m;
    int rc = wc_store_get_run(st, &m, err);
    if (rc)
        return rc;
    WC_STORE_COPY_TEXT(rep->host, m.host);
    WC_STORE_COPY_TEXT(rep->provenance, m.provenance);
    WC_STORE_COPY_TEXT(rep->meter_description, m.meter_description);
    int64_t first = 0, last = 0;
    /* a file without a run row reports no ticks */
    if (m.present)
        rc = wc_store_tick_span(st, &first, &last, &rep->ticks, err);
    rep->duration_s = (double)span_ns(first, last) / 1e9;
    rep->clean_stop = m.clean_stop;
    WC_STORE_COPY_TEXT(rep->meter_kind, m.meter_kind);
    rep->ceiling_watts = m.ceiling_watts;
    rep->ceiling_stored = m.ceiling_stored;
    return rc;
}

/* One counter zone's walk through its readings (tick order), and what it
 * adds to its name's figures: energy in µJ and time in ns as integers, so
 * the sums are exact whatever order zones are added in. */
typedef struct meter_walk {
    int64_t zone, prev_mono;
    uint64_t prev;
    int have, named;
    char name[sizeof(((wc_gap_zone *)0)->zone) + 1]; /* one byte more: a longer name is cut
                                                        to one that matches no zone */
    uint64_t uj;
    int64_t ns, intervals, unmeasurable, ambiguous;
} meter_walk;

/* The walks of every counter zone met so far (zone ids ascending). */
typedef struct meter_walks {
    meter_walk *w;
    size_t n, cap, last;
    double ceiling;      /* the run's stored ceiling (0: none, counter.h) */
} meter_walks;

/* The walk of zone_id (added, in id order, on first sight); NULL out of memory. */
static meter_walk *walk_of(meter_walks *ws, const wc_zone_sample *r)
{
    if (ws->last < ws->n && ws->w[ws->last].zone == r->zone_id)
        return &ws->w[ws->last];
    size_t k = 0;
    while (k < ws->n && ws->w[k].zone < r->zone_id)
        k++;
    if (k == ws->n || ws->w[k].zone != r->zone_id) {
        if (ws->n == ws->cap) {
            size_t cap = ws->cap ? ws->cap * 2 : 8;
            meter_walk *n = realloc(ws->w, cap * sizeof *n);
            if (!n)
                return NULL;
            ws->w = n, ws->cap = cap;
        }
        memmove(&ws->w[k + 1], &ws->w[k], (ws->n - k) * sizeof *ws->w);
        ws->w[k] = (meter_walk){.zone = r->zone_id, .named = r->name != NULL};
        snprintf(ws->w[k].name, sizeof ws->w[k].name, "%s", r->name ? r->name : "");
        ws->n++;
    }
    ws->last = k;
    return &ws->w[k];
}

/* One counter reading into its zone's walk (see load_meter_energy). */
static void meter_row(meter_walks *ws, meter_walk *w, const wc_zone_sample *r)
{
    /* a counter is an integer: NULL or any other type is a failed read */
    if (r->status != 0 || r->type != WC_VALUE_INTEGER) {
        /* The tick has no reading. A transient failure keeps the last good
         * baseline, so the next reading spans the gap (the ceiling then
         * applies to the longer interval); a zone that vanished (ENOENT:
         * its CPUs went offline, cases/B25) starts a new baseline. */
        if (w->have)
            w->unmeasurable++;
        if (r->status == -ENOENT)
            w->have = 0;
        return;
    }
    uint64_t v = (uint64_t)r->value;
    if (w->have) {
        uint64_t d = 0;
        wc_delta_status st = wc_counter_delta_checked(w->prev, v, r->max_range_uj,
                                                      r->mono_ns - w->prev_mono, ws->ceiling, &d);
        w->intervals++;
        if (wc_delta_usable(st)) {
            w->uj += d;
            w->ns += r->mono_ns - w->prev_mono;
        } else {
            w->unmeasurable++;
        }
        w->ambiguous += st == WC_DELTA_AMBIGUOUS;
    }
    w->prev = v;
    w->prev_mono = r->mono_ns;
    w->have = 1;
}

/* The walks into their zone names, in zone id order (the order names are
 * first listed in). */
static void meter_totals(wc_gap_report *rep, const meter_walks *ws)
{
    uint64_t uj[WC_GAP_MAX_ZONES] = {0};
    int64_t ns[WC_GAP_MAX_ZONES] = {0};
    int any[WC_GAP_MAX_ZONES] = {0};
    for (size_t k = 0; k < ws->n; k++) {
        const meter_walk *w = &ws->w[k];
        wc_gap_zone *z = zone_slot(rep, w->named ? w->name : NULL);
        if (!z)
            continue;
        size_t i = (size_t)(z - rep->zones);
        z->meter_instances++;
        z->meter_intervals += w->intervals;
        z->meter_unmeasurable += w->unmeasurable;
        z->meter_ambiguous += w->ambiguous;
        uj[i] += w->uj, ns[i] += w->ns, any[i] = 1;
    }
    for (size_t i = 0; i < rep->nzones; i++)
        if (any[i]) {
            rep->zones[i].meter_joules = (double)uj[i] / 1e6;
            rep->zones[i].meter_seconds = (double)ns[i] / 1e9;
        }
}

/* Meter energy per zone name: raw counters through wc_counter_delta, per
 * socket zone before any sum, read in tick order. meter_unmeasurable counts
 * ticks without a usable interval (failed reads, resets, unknown range). */
static int load_meter_energy(wc_store *st, wc_gap_report *rep, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_counter_samples_open(st, &it, err);
    if (rc)
        return rc;
    meter_walks ws = {.ceiling = rep->ceiling_stored ? rep->ceiling_watts : 0.0};
    wc_zone_sample r;
    while ((rc = wc_store_zone_sample_next(it, &r, err)) == 1) {
        meter_walk *w = walk_of(&ws, &r);
        if (!w) {
            rc = wc_error_set(err, -ENOMEM, "out of memory reading meter zones");
            break;
        }
        meter_row(&ws, w, &r);
    }
    wc_store_iter_close(it);
    if (!rc)
        meter_totals(rep, &ws);
    free(ws.w);
    return rc;
}

static int load_node(wc_store *st, int64_t model_id, wc_gap_report *rep, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_node_totals_open(st, model_id, &it, err);
    if (rc)
        return rc;
    int rows = 0;
    wc_node_totals r;
    while ((rc = wc_store_node_totals_next(it, &r, err)) == 1) {
        wc_gap_zone *z = zone_slot(rep, r.zone);
        rows++;
        if (!z)
            continue;
        z->node_joules = r.delta_uj / 1e6;
        z->active_joules = r.active_uj / 1e6;
        z->idle_joules = r.idle_uj / 1e6;
        z->intervals = r.intervals;
        z->skipped = r.skipped;
        z->totals_reset = r.totals_reset;
        z->wraps = r.wraps;
        z->unmeasurable = r.unmeasurable;
        z->refresh_failed = r.refresh_failed;
        z->ratio_out_of_range = r.ratio_range;
    }
    wc_store_iter_close(it);
    if (rc)
        return rc;
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

/* The top processes of zone z, with their identity as recorded. */
static int top_processes(wc_store *st, const wc_levels_report *lv, const wc_level_zone *z,
                         wc_gap_report *rep, wc_error *err)
{
    size_t idx[WC_GAP_TOP];
    size_t n = top_indexes(z->per_process_j, (size_t)(lv->max_process_id + 1), idx);
    int64_t ids[WC_GAP_TOP];
    wc_process_row pr[WC_GAP_TOP];
    for (size_t k = 0; k < n; k++)
        ids[k] = (int64_t)idx[k];
    int rc = wc_store_get_processes(st, ids, n, pr, err);
    for (size_t k = 0; !rc && k < n; k++) {
        wc_gap_top *t = &rep->top_processes[rep->ntop_processes++];
        if (pr[k].found) {
            t->pid = pr[k].pid;
            t->starttime = pr[k].starttime;
            WC_STORE_COPY_TEXT(t->name, pr[k].comm);
            WC_STORE_COPY_TEXT(t->container_id, pr[k].container_id);
            WC_STORE_COPY_TEXT(t->pod_uid, pr[k].pod_uid);
        }
        t->joules = z->per_process_j[idx[k]];
        t->cpu_seconds = z->per_process_cpu_s[idx[k]];
    }
    return rc;
}

/* The top containers of zone z, named by the first 12 characters of their id. */
static void top_containers(const wc_levels_report *lv, const wc_level_zone *z,
                           wc_gap_report *rep)
{
    size_t idx[WC_GAP_TOP];
    size_t n = lv->ncontainers ? top_indexes(z->per_container_j, lv->ncontainers, idx) : 0;
    for (size_t k = 0; k < n; k++) {
        wc_gap_top *t = &rep->top_containers[rep->ntop_containers++];
        long pod = lv->container_pod[idx[k]];
        snprintf(t->container_id, sizeof t->container_id, "%s", lv->container_ids[idx[k]]);
        snprintf(t->pod_uid, sizeof t->pod_uid, "%s", pod >= 0 ? lv->pod_uids[pod] : "");
        memcpy(t->name, t->container_id, 12);
        t->name[12] = '\0';
        t->joules = z->per_container_j[idx[k]];
        t->cpu_seconds = z->per_container_cpu_s[idx[k]];
    }
}

/* Adds a workload excluded at level (name of at most 111 bytes kept). */
static void add_excluded(wc_gap_report *rep, const char *level, const char *name)
{
    rep->excluded_workloads++;
    if (rep->nexcluded == WC_GAP_MAX_EXCLUDED)
        return;
    wc_gap_excluded *x = &rep->excluded[rep->nexcluded++];
    snprintf(x->level, sizeof x->level, "%s", level);
    snprintf(x->name, sizeof x->name, "%s", name);
}

/* The processes marked excluded, named as recorded. */
static int excluded_processes(wc_store *st, const wc_levels_report *lv, wc_gap_report *rep,
                              wc_error *err)
{
    for (int64_t i = 0; i <= lv->max_process_id; i++) {
        if (!lv->excluded_process[i])
            continue;
        wc_process_row pr;
        int rc = wc_store_get_processes(st, &i, 1, &pr, err);
        if (rc)
            return rc;
        char name[112];
        if (pr.found)
            snprintf(name, sizeof name, "pid %d start %llu %.64s", (int)pr.pid,
                     (unsigned long long)pr.starttime, pr.comm);
        else
            snprintf(name, sizeof name, "process row %lld", (long long)i);
        add_excluded(rep, "process", name);
    }
    return 0;
}

/* Every workload with NEGATIVE_SHARE rows (counts from levels.c). */
static int load_excluded(wc_store *st, const wc_levels_report *lv, wc_gap_report *rep,
                         wc_error *err)
{
    memcpy(rep->excluded_rows, lv->excluded_rows, sizeof rep->excluded_rows);
    int rc = excluded_processes(st, lv, rep, err);
    for (size_t c = 0; !rc && c < lv->ncontainers; c++)
        if (lv->excluded_container[c])
            add_excluded(rep, "container", lv->container_ids[c]);
    for (size_t q = 0; !rc && q < lv->npods; q++)
        if (lv->excluded_pod[q])
            add_excluded(rep, "pod", lv->pod_uids[q]);
    return rc;
}

static int load_top(wc_store *st, const wc_levels_report *lv, wc_gap_report *rep, wc_error *err)
{
    const wc_level_zone *z = wc_levels_zone(lv, rep->rank_zone);
    if (!z)
        return 0;
    int rc = top_processes(st, lv, z, rep, err);
    if (!rc)
        top_containers(lv, z, rep);
    return rc;
}

static int load_truth(wc_store *st, wc_gap_report *rep, wc_error *err)
{
    wc_truth_summary s[WC_GAP_MAX_TRUTH];
    size_t n = 0;
    int rc = wc_store_truth_summaries(st, s, WC_GAP_MAX_TRUTH, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        wc_gap_truth *t = &rep->truth[rep->ntruth++];
        WC_STORE_COPY_TEXT(t->spec, s[i].spec);
        WC_STORE_COPY_TEXT(t->kind, s[i].kind);
        WC_STORE_COPY_TEXT(t->provenance, s[i].provenance);
        WC_STORE_COPY_TEXT(t->description, s[i].description);
        t->ok = s[i].ok;
        t->stale = s[i].stale;
        t->unavailable = s[i].unavailable;
        t->error = s[i].error;
        t->mean_watts = s[i].mean_watts;
        WC_STORE_COPY_TEXT(t->last_error, s[i].last_error);
    }
    return rc;
}

/* Replayed workloads: true CPU (wait4) against the CPU /proc sampling saw
 * of the processes in the workload's process group that were first seen
 * during its phase (coverage ratio; short-lived processes lower it). */
static int load_workloads(wc_store *st, wc_gap_report *rep, wc_error *err)
{
    wc_workload_coverage *c = malloc(WC_GAP_MAX_WORKLOADS * sizeof *c);
    if (!c)
        return wc_error_set(err, -ENOMEM, "out of memory reading workloads");
    size_t n = 0;
    int rc = wc_store_workload_coverage(st, c, WC_GAP_MAX_WORKLOADS, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        wc_gap_workload *w = &rep->workloads[rep->nworkloads++];
        WC_STORE_COPY_TEXT(w->phase, c[i].phase);
        w->repetition = c[i].repetition;
        WC_STORE_COPY_TEXT(w->cls, c[i].cls);
        w->workers = c[i].workers;
        w->crashed = c[i].crashed;
        w->true_cpu_s = c[i].true_cpu_s;
        if (!(w->true_cpu_s >= 0))
            w->true_cpu_s = NAN; /* a negative rusage is corrupt, not a measurement */
        w->seen_cpu_s = c[i].seen_cpu_s;
        w->coverage = w->true_cpu_s > 0 ? w->seen_cpu_s / w->true_cpu_s : NAN;
        double j_per_cpu_s = c[i].j_per_cpu_s;
        double missed = w->true_cpu_s - w->seen_cpu_s;
        w->lost_joules = (isnan(j_per_cpu_s) || missed < 0) ? (missed < 0 ? 0 : NAN)
                                                            : missed * j_per_cpu_s;
    }
    free(c);
    return rc;
}

/* One package or dram counter zone of a phase being differenced. */
typedef struct phase_zone {
    int64_t zone, prev_mono, first_mono;
    uint64_t prev;
    int have;
} phase_zone;

/* A phase's counters (read in tick order, a state per zone): energy in
 * integer µJ, exact in any order. */
typedef struct phase_energy {
    phase_zone z[64];
    size_t nz, dropped;  /* zones kept; readings of zones past the 64th */
    int any;
    uint64_t uj;
    double span_s;
    double ceiling;      /* the run's stored ceiling (0: none, counter.h) */
} phase_energy;

/* The state of zone_id; NULL past the 64th zone (32 sockets' package and
 * dram: no node wattcal records has more). */
static phase_zone *phase_zone_of(phase_energy *e, int64_t zone_id)
{
    for (size_t k = 0; k < e->nz; k++)
        if (e->z[k].zone == zone_id)
            return &e->z[k];
    if (e->nz == sizeof e->z / sizeof *e->z)
        return NULL;
    e->z[e->nz] = (phase_zone){.zone = zone_id};
    return &e->z[e->nz++];
}

static void phase_row(phase_energy *e, const wc_zone_sample *r)
{
    phase_zone *z = phase_zone_of(e, r->zone_id);
    if (!z) {
        e->dropped++;
        return;
    }
    if (r->status != 0 || r->type != WC_VALUE_INTEGER) {
        z->have = 0;
        return;
    }
    uint64_t v = (uint64_t)r->value;
    if (z->have) {
        uint64_t d = 0;
        if (wc_delta_usable(wc_counter_delta_checked(z->prev, v, r->max_range_uj,
                                                     r->mono_ns - z->prev_mono, e->ceiling, &d))) {
            e->uj += d;
            e->any = 1;
        }
        double span = (double)(r->mono_ns - z->first_mono) / 1e9;
        if (span > e->span_s)
            e->span_s = span;
    } else {
        z->first_mono = r->mono_ns;
    }
    z->prev = v;
    z->prev_mono = r->mono_ns;
    z->have = 1;
}

/* Meter energy (package + dram counter zones) between two monotonic times,
 * per zone from its first to its last sample inside the window, wraps handled
 * by the counter rule at the run's ceiling (0: none): *joules (NAN when
 * unmeasurable, or when the run has more than 64 such zones) over
 * *span_s. Returns 0 or < 0 with err. */
static int meter_joules_between(wc_store *st, int64_t t0, int64_t t1, double ceiling,
                                double *joules, double *span_s, wc_error *err)
{
    *joules = NAN;
    *span_s = 0;
    /* tick ids grow with time: the phase as an id range uses the tick index */
    int64_t id0 = 0, id1 = -1;
    wc_store_iter *it = NULL;
    int rc = wc_store_tick_ids_between(st, t0, t1, &id0, &id1, err);
    if (!rc)
        rc = wc_store_node_counters_open(st, id0, id1, &it, err);
    if (rc)
        return rc;
    phase_energy e = {.ceiling = ceiling};
    wc_zone_sample r;
    while ((rc = wc_store_zone_sample_next(it, &r, err)) == 1)
        phase_row(&e, &r);
    wc_store_iter_close(it);
    *joules = e.any && !e.dropped ? (double)e.uj / 1e6 : NAN;
    *span_s = e.span_s;
    return rc;
}

/* Phases with their mean node power and the marginal power over the idle
 * baseline (isolation known answers). Ground truth per phase is scored, after
 * alignment, by validator/accuracy.c. */
static int load_phases(wc_store *st, wc_gap_report *rep, wc_error *err)
{
    wc_phase_row *ph = NULL;
    size_t n = 0;
    int rc = wc_store_phases(st, WC_PHASES_TIMED, WC_GAP_MAX_PHASES, &ph, &n, err);
    double idle_sum = 0;
    int idle_n = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        wc_gap_phase *p = &rep->phases[rep->nphases++];
        WC_STORE_COPY_TEXT(p->name, ph[i].name);
        WC_STORE_COPY_TEXT(p->cls, ph[i].cls);
        p->repetition = ph[i].repetition;
        int64_t t0 = ph[i].start_ns, t1 = ph[i].end_ns;
        p->duration_s = ((double)t1 - (double)t0) / 1e9;
        double span = 0, j = NAN;
        rc = meter_joules_between(st, t0, t1, rep->ceiling_stored ? rep->ceiling_watts : 0.0, &j,
                                  &span, err);
        p->node_watts = (!isnan(j) && span > 0) ? j / span : NAN;
        if (!strcmp(p->cls, "idle") && !isnan(p->node_watts)) {
            idle_sum += p->node_watts;
            idle_n++;
        }
    }
    free(ph);
    for (size_t i = 0; i < rep->nphases; i++) {
        wc_gap_phase *p = &rep->phases[i];
        p->marginal_watts = idle_n ? p->node_watts - idle_sum / idle_n : NAN;
    }
    return rc;
}

/* The model's id; a model without rows is named in err. */
static int gap_model_id(wc_store *st, wc_model model, int64_t *id, wc_error *err)
{
    int rc = wc_store_find_model(st, wc_model_name(model), id, err);
    if (rc == -ENOENT)
        return wc_error_set(err, rc, "the run has no attribution for model %s", wc_model_name(model));
    return rc;
}

int wc_gap_compute_with(wc_store *st, wc_model model, const wc_levels_report *lv,
                        wc_gap_report *rep, wc_error *err)
{
    memset(rep, 0, sizeof *rep);
    snprintf(rep->model, sizeof rep->model, "%s", wc_model_name(model));
    int64_t model_id = 0;
    int rc = gap_model_id(st, model, &model_id, err);
    if (rc)
        return rc;
    rc = load_run(st, rep, err);
    if (!rc)
        rc = load_node(st, model_id, rep, err);
    if (rc == -ENOENT)
        return wc_error_set(err, rc, "the run has no attribution rows for model %s",
                            wc_model_name(model));
    if (!rc)
        rc = load_meter_energy(st, rep, err);
    if (!rc) {
        copy_levels(lv, rep);
        pick_rank_zone(rep);
        rc = load_top(st, lv, rep, err);
    }
    if (!rc)
        rc = load_excluded(st, lv, rep, err);
    if (!rc)
        rc = load_truth(st, rep, err);
    if (!rc)
        rc = load_workloads(st, rep, err);
    if (!rc)
        rc = load_phases(st, rep, err);
    return rc;
}

int wc_gap_compute(wc_store *st, wc_model model, wc_gap_report *rep, wc_error *err)
{
    int64_t model_id = 0;
    int rc = gap_model_id(st, model, &model_id, err);
    if (rc)
        return rc;
    wc_levels_report lv;
    rc = wc_levels_compute(st, model_id, 60, &lv, err);
    if (rc == -ENOENT || rc == -ENODATA)
        return wc_error_set(err, -ENOENT, "the run has no attribution rows for model %s",
                            wc_model_name(model));
    if (rc)
        return rc;
    rc = wc_gap_compute_with(st, model, &lv, rep, err);
    wc_levels_free(&lv);
    return rc;
}
