/*
 * exporter_check.c — the exporter's own invariants over the whole run (its
 * e2e tests check them at one instant), the gap split from its numbers and
 * the showback table (exporter_report.h).
 *
 * Every check is on deltas between consecutive scrapes at which the node
 * zone was reported, skipping intervals across a restart:
 *   total = active + idle    |Δtotal − (Δactive + Δidle)| <= 1 mJ + 0.01 %
 *                            (wrap intervals left out: Δtotal is unknown there)
 *   Σ processes <= active    Σ Δ running processes (a new one: its first
 *                            value) <= 105 % of Δactive + 0.5 J: Kepler shares
 *                            the active energy by CPU time, so the sum may be
 *                            short of it (CPU time outside processes) but never
 *                            above it; the note gives Σ processes / active
 *   pod = Σ containers       per pod and interval, |Δpod − Σ Δ its containers|
 *                            <= 1 mJ + 0.01 % (Kepler sums them exactly);
 *                            worst in % of the containers' sum
 *   counters monotonic       every workload and node active/idle counter:
 *                            a fall outside a restart is a violation
 *   usage ratio in [0, 1]    every kepler_node_cpu_usage_ratio sample
 *   terminated vanish        a workload exported with state="terminated" is
 *                            exported by at most 2 scrapes (a second one when
 *                            no refresh came between them) and never again
 * An invariant with fewer than WC_XP_MIN_INTERVALS checked items (1 for the
 * terminated workloads) is NO VERDICT, saying so.
 *
 * Showback error bar (per pod, ± J) = joules × sqrt(e_node² + e_class²) / 100:
 * e_node = the larger end, in magnitude, of the 95 % interval of bias % of
 * the exporter's node source against the first ground truth (platform power
 * when the exporter has it, else the showback zone: then the error also holds
 * the power outside that zone); e_class = the largest |bias factor − 1| of any
 * workload class of the run (validate's class bias; 0 when the run has
 * none, which the basis text says).
 */
#include "validator/exporter_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_text.h"

const char *wc_xp_verdict_name(wc_xp_verdict v)
{
    return v == WC_XP_PASS ? "PASS" : v == WC_XP_FAIL ? "FAIL" : "NO VERDICT";
}

/* A new invariant row (NULL when full). */
static wc_xp_invariant *inv_new(wc_xp_one *x, const char *name, const char *zone,
                                const char *unit)
{
    if (x->ninv == WC_XP_MAX_INV)
        return NULL;
    wc_xp_invariant *v = &x->inv[x->ninv++];
    memset(v, 0, sizeof *v);
    wc_textf(v->name, sizeof v->name, "%s", name);
    wc_textf(v->zone, sizeof v->zone, "%s", zone ? zone : "");
    wc_textf(v->unit, sizeof v->unit, "%s", unit);
    v->worst = NAN;
    return v;
}

/* Records one checked item: deviation dev (signed), violated or not. */
static void inv_item(wc_xp_invariant *v, double dev, int violated, const char *where)
{
    v->checked++;
    v->violations += violated != 0;
    if (isfinite(dev) && (!isfinite(v->worst) || fabs(dev) > fabs(v->worst))) {
        v->worst = dev;
        wc_textf(v->worst_at, sizeof v->worst_at, "%s", where);
    }
}

/* The verdict from the counts; min: items needed. */
static void inv_decide(wc_xp_invariant *v, size_t min, const char *none)
{
    if (v->checked < min) {
        v->verdict = WC_XP_NO_VERDICT;
        wc_textf(v->note, sizeof v->note, "%s (checked %zu, needs %zu)", none, v->checked, min);
        return;
    }
    v->verdict = v->violations ? WC_XP_FAIL : WC_XP_PASS;
}

/* The step of track t into scrape k from scrape p: 1 and *dj when known (a
 * track first seen at k > 0: its value), 2 when absent at k (0 J), 0 unknown. */
static int track_step(const wc_xp_data *d, const wc_xp_track *t, size_t p, size_t k, double *dj)
{
    long lo = 0, hi = (long)t->n - 1, i = -1;
    while (lo <= hi) {
        long mid = (lo + hi) / 2;
        if (t->scrape[mid] == k) {
            i = mid;
            break;
        }
        if (t->scrape[mid] < k)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    *dj = 0;
    if (i < 0)
        return 2;
    if (i == 0) {
        *dj = t->v[0];
        return k > 0 && !d->restart[k] && isfinite(*dj) ? 1 : 0;
    }
    if (t->scrape[i - 1] != p)
        return 0;
    wc_xp_dkind kind;
    *dj = wc_xp_track_delta(d, t, (size_t)i, &kind);
    return kind == WC_XP_D_OK ? 1 : 0;
}

/* Whether a restart lies in scrapes (p, k]. */
static int restart_between_idx(const wc_xp_data *d, size_t p, size_t k)
{
    for (size_t i = p + 1; i <= k; i++)
        if (d->restart[i])
            return 1;
    return 0;
}

/* The data every per-interval check of a zone reads. */
typedef struct zone_ctx {
    const wc_xp_data *d;
    const char *zone;
    double *tot, *act, *idl;
    unsigned char *pt, *pa, *pi;
    wc_xp_track *procs, *conts, *pods;
    size_t nprocs, nconts, npods;
} zone_ctx;

/* Σ step of the tracks of zone over (p, k]; *unknown counts unknown ones. */
static double tracks_sum(const zone_ctx *c, const wc_xp_track *t, size_t n, const char *parent,
                         size_t p, size_t k, size_t *unknown)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(t[i].s->row.zone, c->zone) || (parent && strcmp(t[i].s->row.parent, parent)))
            continue;
        double dj;
        int r = track_step(c->d, &t[i], p, k, &dj);
        if (r == 1)
            sum += dj;
        else if (!r)
            (*unknown)++;
    }
    return sum;
}

/* pod = Σ containers over (p, k]. */
static void check_pods(const zone_ctx *c, size_t p, size_t k, wc_xp_invariant *v)
{
    for (size_t i = 0; i < c->npods; i++) {
        const wc_xp_track *t = &c->pods[i];
        double dp;
        if (strcmp(t->s->row.zone, c->zone) || track_step(c->d, t, p, k, &dp) != 1)
            continue;
        size_t unknown = 0;
        double sc = tracks_sum(c, c->conts, c->nconts, t->s->row.key, p, k, &unknown);
        if (unknown)
            continue;
        double dev = dp - sc;
        char where[160];
        wc_textf(where, sizeof where, "pod %s (%s)", t->s->row.name[0] ? t->s->row.name : "?",
                 t->s->row.key);
        int bad = fabs(dev) > 1e-3 + 1e-4 * fabs(dp);
        inv_item(v, sc > 0 ? 100.0 * dev / sc : (bad ? INFINITY : 0), bad, where);
    }
}

/* One interval (p, k] of the zone: every per-interval invariant and the gap. */
static void zone_interval(const zone_ctx *c, size_t p, size_t k, wc_xp_invariant **v,
                          wc_xp_gap *g, double *procs_j)
{
    if (restart_between_idx(c->d, p, k))
        return;
    double dt = c->tot[k] - c->tot[p], da = c->act[k] - c->act[p], di = c->idl[k] - c->idl[p];
    char where[160];
    wc_textf(where, sizeof where, "scrape %zu", k);
    if (c->pt[p] && c->pt[k] && dt >= 0 && da >= 0 && di >= 0) {
        double dev = dt - (da + di);
        inv_item(v[0], dev, fabs(dev) > 1e-3 + 1e-4 * dt, where);
    }
    if (da < 0 || di < 0)
        return;
    size_t unknown = 0;
    double sp = tracks_sum(c, c->procs, c->nprocs, NULL, p, k, &unknown);
    if (c->nprocs && !unknown) {
        double dev = sp - da;
        inv_item(v[1], da > 0 ? 100.0 * dev / da : 0, sp > 1.05 * da + 0.5, where);
        *procs_j += sp;
    }
    check_pods(c, p, k, v[2]);
    unknown = 0;
    double pods = tracks_sum(c, c->pods, c->npods, NULL, p, k, &unknown);
    g->intervals++;
    g->active_j += da;
    g->idle_j += di;
    g->total_j += da + di;
    g->pods_j += pods;
}

/* Loads the zone's node arrays. Returns 0 or -ENOMEM. */
static int zone_load(zone_ctx *c)
{
    size_t n = c->d->nscrapes ? c->d->nscrapes : 1;
    c->tot = calloc(n, sizeof(double));
    c->act = calloc(n, sizeof(double));
    c->idl = calloc(n, sizeof(double));
    c->pt = calloc(n, 1);
    c->pa = calloc(n, 1);
    c->pi = calloc(n, 1);
    if (!c->tot || !c->act || !c->idl || !c->pt || !c->pa || !c->pi)
        return -ENOMEM;
    wc_xp_zone_values(c->d, "node", "joules", c->zone, c->tot, c->pt);
    wc_xp_zone_values(c->d, "node", "active_joules", c->zone, c->act, c->pa);
    wc_xp_zone_values(c->d, "node", "idle_joules", c->zone, c->idl, c->pi);
    return 0;
}

static void zone_unload(zone_ctx *c)
{
    free(c->tot);
    free(c->act);
    free(c->idl);
    free(c->pt);
    free(c->pa);
    free(c->pi);
    c->tot = c->act = c->idl = NULL;
    c->pt = c->pa = c->pi = NULL;
}

/* The per-interval invariants and the gap split of one zone. */
static int check_zone(zone_ctx *c, wc_xp_one *x)
{
    if (zone_load(c)) {
        zone_unload(c);
        return -ENOMEM;
    }
    wc_xp_invariant *v[3] = {inv_new(x, "total = active + idle", c->zone, "J"),
                             inv_new(x, "sum(processes) <= node active", c->zone, "%"),
                             inv_new(x, "pod = sum(containers)", c->zone, "%")};
    wc_xp_gap *g = x->ngap < WC_XP_MAX_ZONES ? &x->gap[x->ngap++] : NULL;
    if (!v[0] || !v[1] || !v[2] || !g) {
        zone_unload(c);
        return 0;
    }
    memset(g, 0, sizeof *g);
    wc_textf(g->zone, sizeof g->zone, "%s", c->zone);
    double procs_j = 0;
    long prev = -1;
    for (size_t k = 0; k < c->d->nscrapes; k++) {
        if (!c->pa[k] || !c->pi[k])
            continue;
        if (prev >= 0)
            zone_interval(c, (size_t)prev, k, v, g, &procs_j);
        prev = (long)k;
    }
    g->outside_j = g->active_j - g->pods_j;
    inv_decide(v[0], WC_XP_MIN_INTERVALS, "too few intervals with total, active and idle");
    inv_decide(v[1], WC_XP_MIN_INTERVALS, "too few intervals with every process known");
    inv_decide(v[2], WC_XP_MIN_INTERVALS, "too few pod intervals with all containers known");
    if (v[1]->verdict != WC_XP_NO_VERDICT && g->active_j > 0)
        wc_textf(v[1]->note, sizeof v[1]->note, "sum(processes) / active over the run: %.1f %%",
                 100.0 * procs_j / g->active_j);
    zone_unload(c);
    return 0;
}

/* The node's active joules of zone at scrape k (NAN when not reported). */
static double node_active_at(const wc_xp_data *d, const char *zone, size_t k)
{
    for (size_t i = 0; i < d->nseries; i++) {
        const wc_xp_series *s = &d->series[i];
        if (!wc_xp_is(s, "node", "active_joules", NULL) || strcmp(s->row.zone, zone))
            continue;
        long j = wc_xp_at(s, k);
        if (j >= 0)
            return s->v[j];
    }
    return NAN;
}

/* Track t's value at scrape k, or NAN when it has no sample there or a
 * terminated one (frozen at its last total: Kepler never zeroes those). */
static double track_at(const wc_xp_track *t, size_t k)
{
    long j = wc_xp_index_of(t->scrape, t->n, k);
    return j >= 0 && !t->terminated[j] ? t->v[j] : NAN;
}

/* Whether every workload of zone at scrape k holds no more than limit J:
 * what a zone whose totals were all zeroed since the previous scrape shows. */
static int zone_all_within(const zone_ctx *c, const char *zone, size_t k, double limit)
{
    const wc_xp_track *sets[3] = {c->procs, c->conts, c->pods};
    size_t ns[3] = {c->nprocs, c->nconts, c->npods};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < ns[l]; i++) {
            if (strcmp(sets[l][i].s->row.zone, zone))
                continue;
            double v = track_at(&sets[l][i], k);
            if (isfinite(v) && v > limit)
                return 0;
        }
    return 1;
}

/* Whether the decrease of track t at sample j is Kepler's reset of every
 * total to zero (0.10, 0.11 zero all the zone's workload totals on a refresh
 * without active energy, docs/kepler-model.md, and they grow again): every
 * workload of the zone then holds no more than the node's active energy over
 * the same scrapes. Prometheus's rate() reads such a drop as a counter reset.
 * One workload dropping while another keeps its total is a real decrease. */
static int reset_to_zero(const zone_ctx *c, const wc_xp_track *t, size_t j)
{
    const wc_xp_data *d = c->d;
    double a0 = node_active_at(d, t->s->row.zone, t->scrape[j - 1]);
    double a1 = node_active_at(d, t->s->row.zone, t->scrape[j]);
    double limit = a1 - a0 + 1e-6;
    return isfinite(a0) && isfinite(a1) && a1 >= a0 && t->v[j] >= 0 && t->v[j] <= limit &&
           zone_all_within(c, t->s->row.zone, t->scrape[j], limit);
}

/* One counter delta, prev to next (J): a fall from (or to) a value of
 * Kepler's ~2^64 µJ wraps (a pid-reuse negative share, an idle underflow:
 * WC_XP_PID_REUSE_J or more) is a violation counted in *wraps, never a worst
 * figure in joules (it is no energy). */
static void monotonic_item(wc_xp_invariant *v, double prev, double next, wc_xp_dkind kind,
                           const char *where, size_t *wraps)
{
    int bad = kind != WC_XP_D_OK;
    int wrap = bad && (fabs(prev) >= WC_XP_PID_REUSE_J || fabs(next) >= WC_XP_PID_REUSE_J);
    *wraps += wrap;
    inv_item(v, !bad ? 0 : wrap ? NAN : next - prev, bad, where);
}

/* Counters monotonic except resets: node active/idle and every workload track. */
static void check_monotonic(const wc_xp_data *d, const zone_ctx *c, wc_xp_one *x)
{
    wc_xp_invariant *v = inv_new(x, "counters monotonic except resets", NULL, "J");
    if (!v)
        return;
    size_t resets = 0, zero_resets = 0, wraps = 0;
    for (size_t i = 0; i < d->nseries; i++) {
        const wc_xp_series *s = &d->series[i];
        if (!wc_xp_is(s, "node", "active_joules", NULL) && !wc_xp_is(s, "node", "idle_joules", NULL))
            continue;
        for (size_t j = 1; j < s->n; j++) {
            wc_xp_dkind kind;
            wc_xp_delta(d, s, j, &kind);
            resets += kind == WC_XP_D_RESET;
            if (kind == WC_XP_D_OK || kind == WC_XP_D_DECREASE)
                monotonic_item(v, s->v[j - 1], s->v[j], kind, s->row.metric, &wraps);
        }
    }
    const wc_xp_track *sets[3] = {c->procs, c->conts, c->pods};
    size_t ns[3] = {c->nprocs, c->nconts, c->npods};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < ns[l]; i++)
            for (size_t j = 1; j < sets[l][i].n; j++) {
                wc_xp_dkind kind;
                wc_xp_track_delta(d, &sets[l][i], j, &kind);
                if (kind == WC_XP_D_DECREASE && reset_to_zero(c, &sets[l][i], j)) {
                    zero_resets++;
                    continue;
                }
                resets += kind == WC_XP_D_RESET;
                if (kind == WC_XP_D_OK || kind == WC_XP_D_DECREASE)
                    monotonic_item(v, sets[l][i].v[j - 1], sets[l][i].v[j], kind,
                                   sets[l][i].s->row.labels, &wraps);
            }
    inv_decide(v, WC_XP_MIN_INTERVALS, "too few counter deltas");
    if (v->verdict != WC_XP_NO_VERDICT)
        wc_textf(v->note, sizeof v->note,
                 "%zu restart(s), %zu deltas across them resets; %zu totals reset to 0 "
                 "(Kepler: no active energy); %zu raw node wraps; %zu ~2^64 uJ wraps (no "
                 "energy: not in J)", d->nrestarts, resets, zero_resets, x->nwraps, wraps);
}

/* Usage ratio in [0, 1]. */
static void check_ratio(const wc_xp_data *d, wc_xp_one *x)
{
    wc_xp_invariant *v = inv_new(x, "usage ratio in [0, 1]", NULL, "");
    if (!v)
        return;
    for (size_t i = 0; i < d->nseries; i++) {
        const wc_xp_series *s = &d->series[i];
        if (strcmp(s->row.quantity, "ratio"))
            continue;
        for (size_t j = 0; j < s->n; j++) {
            if (!isfinite(s->v[j]))
                continue;
            double out = s->v[j] < 0 ? s->v[j] : s->v[j] > 1 ? s->v[j] - 1 : 0;
            char where[64];
            wc_textf(where, sizeof where, "scrape %zu: %g", s->scrape[j], s->v[j]);
            inv_item(v, out, out != 0, where);
        }
    }
    inv_decide(v, WC_XP_MIN_INTERVALS, "too few usage ratio samples");
}

/* One terminated workload (all zones of a level's key): scrapes that
 * exported it terminated, and whether it was seen after. */
static void terminated_one(const wc_xp_track *t, size_t n, size_t i, wc_xp_invariant *v)
{
    size_t first = (size_t)-1, last = 0, count = 0, after = 0;
    double tv = NAN; /* its last terminated value */
    for (size_t j = 0; j < t[i].n; j++)
        if (t[i].terminated[j]) {
            first = first < t[i].scrape[j] ? first : t[i].scrape[j];
            last = t[i].scrape[j] > last ? t[i].scrape[j] : last;
            tv = t[i].v[j];
            count++;
        }
    /* running again from its first terminated export on, unless that is a
     * new process under its reused pid (exporter_data.h) */
    for (size_t j = 0; j < t[i].n; j++)
        after += !t[i].terminated[j] && t[i].scrape[j] >= first && !wc_xp_new_incarnation(tv, t[i].v[j]);
    for (size_t o = 0; o < i; o++)
        if (!strcmp(t[o].s->row.key, t[i].s->row.key))
            return; /* counted with its first zone */
    (void)n;
    char where[200];
    wc_textf(where, sizeof where, "%s %s: exported terminated by %zu scrape(s)%s", t[i].s->row.level,
             t[i].s->row.key, count, after ? ", seen again after" : "");
    inv_item(v, (double)count, count > 2 || after, where);
}

/* Terminated workloads exported (at most twice) then gone. */
static void check_terminated(const zone_ctx *c, wc_xp_one *x)
{
    wc_xp_invariant *v = inv_new(x, "terminated workloads vanish", NULL, "");
    if (!v)
        return;
    const wc_xp_track *sets[3] = {c->procs, c->conts, c->pods};
    size_t ns[3] = {c->nprocs, c->nconts, c->npods};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < ns[l]; i++) {
            int term = 0;
            for (size_t j = 0; j < sets[l][i].n; j++)
                term |= sets[l][i].terminated[j];
            if (term)
                terminated_one(sets[l], ns[l], i, v);
        }
    inv_decide(v, 1, "no workload was exported as terminated (or maxTerminated is 0: they just vanish)");
    if (v->verdict != WC_XP_NO_VERDICT)
        wc_textf(v->note, sizeof v->note, "worst = scrapes exporting one terminated workload");
}

/* The node zones with active and idle counters. */
static size_t check_zones(const wc_xp_data *d, char zones[][32], size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nseries && n < max; i++) {
        const wc_xp_series *s = &d->series[i];
        if (!wc_xp_is(s, "node", "active_joules", NULL) || strcmp(s->row.device, "cpu"))
            continue;
        int dup = 0;
        for (size_t j = 0; j < n; j++)
            dup |= !strcmp(zones[j], s->row.zone);
        if (!dup)
            wc_textf(zones[n++], 32, "%s", s->row.zone);
    }
    return n;
}

int wc_xp_check(const wc_xp_data *d, wc_xp_one *x)
{
    zone_ctx c = {.d = d};
    int rc = wc_xp_tracks(d, "process", &c.procs, &c.nprocs);
    if (!rc)
        rc = wc_xp_tracks(d, "container", &c.conts, &c.nconts);
    if (!rc)
        rc = wc_xp_tracks(d, "pod", &c.pods, &c.npods);
    char zones[WC_XP_MAX_ZONES][32];
    size_t nz = rc ? 0 : check_zones(d, zones, WC_XP_MAX_ZONES);
    for (size_t z = 0; !rc && z < nz; z++) {
        c.zone = zones[z];
        rc = check_zone(&c, x);
    }
    if (!rc) {
        check_monotonic(d, &c, x);
        check_ratio(d, x);
        check_terminated(&c, x);
    }
    wc_xp_tracks_free(c.procs, c.nprocs);
    wc_xp_tracks_free(c.conts, c.nconts);
    wc_xp_tracks_free(c.pods, c.npods);
    return rc;
}
