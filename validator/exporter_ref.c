/*
 * exporter_ref.c — the second opinion: the exporter's per-pod, per-container
 * and per-process energy against the reference model of the run over the
 * same scrape intervals (exporter_report.h).
 *
 * Intervals: between consecutive scrapes k−1, k; the reference model's
 * per-tick energy of a workload falls in interval k when the exporter had
 * counted its tick by scrape k and not by k−1. Where each scrape cut the
 * ticks is read from the exporter's own node active energy: a dynamic
 * programme over every scrape's cut (a tick sampled before its response, all
 * those 12 median tick spacings older than its request in) minimising
 * Σ |Δexporter − Δreference| over the intervals the exporter knows, so a
 * scrape that raced with a tick (in at one scrape, out at the next) and an
 * interval it cannot tell (a restart) are placed by the intervals around
 * them. (One global lag with a one-tick correction per boundary left the
 * restart's ticks in its neighbours: ±6 % on every row of an exporter with a
 * restart.) L, the refresh lag reported, is the one of 0, ½, 1, ... 12
 * spacings whose node active energy per interval is closest to the
 * exporter's; it only breaks ties between equal cuts. A workload is compared on
 * the intervals where the exporter's delta is known (no restart, no fall):
 * pairs (exporter W, reference W) scored with validate's statistics; the bias
 * % = 100 · (Σ exporter − Σ reference) / Σ reference, with its moving-block
 * bootstrap 95 % interval over the intervals (stats.h). Matching: pods by
 * uid, containers by id; processes by pid + comm, a reused pid told apart by
 * lifetime (exporter_procs.c: Kepler exports no start time); VMs by vm_id
 * (kepler_vm_cpu_joules_total against work_attr level 4).
 * The rows kept are the largest |Σ exporter − Σ reference| of each level.
 */
#include "validator/exporter_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "collector/store/store_results.h"
#include "common/wc_text.h"
#include "validator/exporter_ref_internal.h"
#include "validator/series.h"

#define REF_PER_LEVEL 12

static int key_cmp(const void *a, const void *b)
{
    return strcmp(((const ref_key *)a)->key, ((const ref_key *)b)->key);
}

static ref_key *find_key(ref_ctx *c, const char *key)
{
    ref_key probe;
    wc_textf(probe.key, sizeof probe.key, "%s", key);
    return bsearch(&probe, c->keys, c->nkeys, sizeof *c->keys, key_cmp);
}

/* The key a pod or container track is compared under (processes:
 * exporter_procs.c). */
static const char *track_key(const ref_ctx *c, const wc_xp_track *t)
{
    (void)c;
    return t->s->row.key;
}

/* One key per distinct track key of the zone (sorted). Returns 0 or -ENOMEM. */
static int keys_build(ref_ctx *c, const wc_xp_track *t, size_t nt)
{
    size_t n = c->d->nscrapes;
    c->keys = calloc(nt ? nt : 1, sizeof *c->keys);
    if (!c->keys)
        return -ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < nt; i++)
        if (!strcmp(t[i].s->row.zone, c->zone) && track_key(c, &t[i])[0]) {
            wc_textf(c->keys[m].key, sizeof c->keys[m].key, "%s", track_key(c, &t[i]));
            wc_textf(c->keys[m].name, sizeof c->keys[m].name, "%s", t[i].s->row.name);
            m++;
        }
    qsort(c->keys, m, sizeof *c->keys, key_cmp);
    for (size_t i = 0; i < m; i++) {
        if (c->nkeys && !strcmp(c->keys[c->nkeys - 1].key, c->keys[i].key))
            continue;
        ref_key *k = &c->keys[c->nkeys++];
        if (k != &c->keys[i])
            *k = c->keys[i];
        k->exp_j = calloc(n, sizeof(double));
        k->ref_j = calloc(n, sizeof(double));
        k->known = calloc(n, 1);
        if (!k->exp_j || !k->ref_j || !k->known)
            return -ENOMEM;
    }
    return 0;
}

int wc_xp_ref_scrape_ok(const wc_xp_data *d, size_t k)
{
    return !strcmp(d->scrapes[k].status, "ok") || !strcmp(d->scrapes[k].status, "capped");
}

/* The exporter's deltas of every track into its key's intervals. Interval k
 * is known when scrapes k−1 and k both answered and no track of the key
 * has an unknown step there (a fall, a restart, a sample missing at k−1); a
 * key absent from both scrapes had 0 J there, a track first seen at k its
 * value (its energy since it started). */
static void keys_fill_exporter(ref_ctx *c, const wc_xp_track *t, size_t nt)
{
    for (size_t i = 0; i < c->nkeys; i++)
        for (size_t s = 0; s < c->d->nscrapes; s++)
            c->keys[i].known[s] = s > 0 && wc_xp_ref_scrape_ok(c->d, s) && wc_xp_ref_scrape_ok(c->d, s - 1);
    for (size_t i = 0; i < nt; i++) {
        ref_key *k = strcmp(t[i].s->row.zone, c->zone) ? NULL : find_key(c, track_key(c, &t[i]));
        for (size_t j = 0; k && j < t[i].n; j++) {
            size_t s = t[i].scrape[j];
            wc_xp_dkind kind = WC_XP_D_MISSING;
            double dj = j ? wc_xp_track_delta(c->d, &t[i], j, &kind) : t[i].v[0];
            if (!j && s > 0 && !c->d->restart[s] && isfinite(dj))
                kind = WC_XP_D_OK;
            if (kind != WC_XP_D_OK || (j && t[i].scrape[j - 1] + 1 != s))
                k->known[s] = 0;
            else
                k->exp_j[s] += dj;
        }
    }
}

/* The interval (k−1, k] of monotonic time t: the first scrape whose request
 * is at or after t; nscrapes when after the last. */
static size_t interval_of(const wc_xp_data *d, int64_t t)
{
    size_t lo = 0, hi = d->nscrapes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->scrapes[mid].req_mono_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The reference model's per-tick energy of each key into its intervals
 * (kind WC_TENANT_ROWS_ALL); with WC_TENANT_ROWS_NEGATIVE_SHARE, Kepler's
 * wrapped rows, whose intervals become unknown (not compared: neither side's
 * number is energy there, validator/levels.h). */
static int keys_fill_reference(wc_store *st, int64_t model_id, const wc_timebase *tb, ref_ctx *c,
                               wc_tenant_rows_kind kind, wc_error *err)
{
    wc_attr_level lv = !strcmp(c->level, "pod")         ? WC_LEVEL_POD
                       : !strcmp(c->level, "container") ? WC_LEVEL_CONTAINER
                       : !strcmp(c->level, "vm")        ? WC_LEVEL_VM
                                                        : WC_LEVEL_PROCESS;
    wc_store_iter *it = NULL;
    int rc = wc_store_tenant_rows_open(st, model_id, lv, c->zone, kind, &it, err);
    wc_tenant_row r;
    while (!rc && (rc = wc_store_tenant_next(it, &r, err)) == 1) {
        rc = 0;
        long ti = r.key ? wc_timebase_index(tb, r.tick_id) : -1;
        ref_key *k = ti >= 0 ? find_key(c, r.key) : NULL;
        if (!k)
            continue;
        size_t s = c->tick_scrape[ti];
        if (s > 0 && s < c->d->nscrapes && kind == WC_TENANT_ROWS_NEGATIVE_SHARE)
            k->known[s] = 0;
        else if (s > 0 && s < c->d->nscrapes)
            k->ref_j[s] += r.energy_uj / 1e6;
    }
    wc_store_iter_close(it);
    return rc < 0 ? rc : 0;
}

/* Scores one key into row (pairs in W over its known intervals). Returns 0
 * (row->n 0 when nothing to score) or -ENOMEM. */
static int score_key(const ref_ctx *c, const ref_key *k, const wc_boot_cfg *boot, wc_xp_ref *row)
{
    size_t n = c->d->nscrapes;
    double *e = malloc((n ? n : 1) * sizeof *e), *r = malloc((n ? n : 1) * sizeof *r);
    if (!e || !r) {
        free(e);
        free(r);
        return -ENOMEM;
    }
    memset(row, 0, sizeof *row);
    wc_textf(row->level, sizeof row->level, "%s", c->level);
    wc_textf(row->key, sizeof row->key, "%s", k->key);
    wc_textf(row->name, sizeof row->name, "%s", k->name);
    row->bias_pct = (wc_ci){NAN, NAN, NAN};
    size_t m = 0;
    for (size_t s = 1; s < n; s++) {
        double dt = (double)(c->d->scrapes[s].req_mono_ns - c->d->scrapes[s - 1].req_mono_ns) / 1e9;
        if (!k->known[s] || dt <= 0)
            continue;
        row->exp_j += k->exp_j[s];
        row->ref_j += k->ref_j[s];
        e[m] = k->exp_j[s] / dt;
        r[m++] = k->ref_j[s] / dt;
    }
    row->n = m;
    wc_accuracy a;
    int rc = m && row->ref_j > 0 ? wc_accuracy_compute(e, r, m, 0, boot, &a) : 0;
    if (m && row->ref_j > 0 && !rc)
        row->bias_pct = a.bias_pct;
    free(e);
    free(r);
    return rc == -ENOMEM ? rc : 0;
}

/* |exporter − reference| of a row, 0 when within WC_XP_REF_AGREE_J (float
 * noise: both sides are whole µJ counters differenced). */
static double gap_of(const wc_xp_ref *r)
{
    double g = fabs(r->exp_j - r->ref_j);
    return g <= WC_XP_REF_AGREE_J ? 0 : g;
}

/* The largest disagreement first; rows that agree, the largest workload first. */
static int by_gap(const void *a, const void *b)
{
    const wc_xp_ref *x = a, *y = b;
    double gx = gap_of(x), gy = gap_of(y);
    if (gx != gy)
        return gx < gy ? 1 : -1;
    double sx = fmax(x->exp_j, x->ref_j), sy = fmax(y->exp_j, y->ref_j);
    return sx < sy ? 1 : sx > sy ? -1 : strcmp(x->key, y->key);
}

int wc_xp_ref_keep_top(const ref_ctx *c, const wc_boot_cfg *boot, wc_xp_one *x)
{
    wc_xp_ref *rows = calloc(c->nkeys ? c->nkeys : 1, sizeof *rows);
    if (!rows)
        return -ENOMEM;
    size_t m = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < c->nkeys; i++) {
        rc = score_key(c, &c->keys[i], boot, &rows[m]);
        m += !rc && rows[m].n && (rows[m].exp_j > 0 || rows[m].ref_j > 0);
    }
    qsort(rows, m, sizeof *rows, by_gap);
    x->ref_compared += m;
    for (size_t i = 0; i < m; i++)
        x->ref_agree += gap_of(&rows[i]) == 0;
    for (size_t i = 0; !rc && i < m && i < REF_PER_LEVEL && x->nref < WC_XP_MAX_REF; i++)
        x->ref[x->nref++] = rows[i];
    free(rows);
    return rc;
}

void wc_xp_ref_keys_free(ref_ctx *c)
{
    for (size_t i = 0; i < c->nkeys; i++) {
        free(c->keys[i].exp_j);
        free(c->keys[i].ref_j);
        free(c->keys[i].known);
    }
    free(c->keys);
    c->keys = NULL;
    c->nkeys = 0;
}

/* Σ |Δ exporter active − Δ reference active| over the intervals with lag
 * lag_ns. ea[k]: the exporter's delta into scrape k (NAN unknown). */
static double lag_cost(const ref_ctx *c, const double *ea, const int64_t *mono, const double *ra,
                       size_t nt, int64_t lag_ns, double *bins)
{
    memset(bins, 0, c->d->nscrapes * sizeof *bins);
    for (size_t j = 0; j < nt; j++) {
        size_t s = interval_of(c->d, mono[j] + lag_ns);
        if (s > 0 && s < c->d->nscrapes)
            bins[s] += ra[j];
    }
    double cost = 0;
    for (size_t k = 1; k < c->d->nscrapes; k++)
        cost += isfinite(ea[k]) ? fabs(ea[k] - bins[k]) : 0;
    return cost;
}

/* The exporter's node active delta into each scrape (NAN unknown). */
static void exporter_active(const ref_ctx *c, double *ea, double *val, unsigned char *p)
{
    wc_xp_zone_values(c->d, "node", "active_joules", c->zone, val, p);
    for (size_t k = 0; k < c->d->nscrapes; k++)
        ea[k] = k && p[k] && p[k - 1] && !c->d->restart[k] && val[k] >= val[k - 1] ? val[k] - val[k - 1]
                                                                                    : NAN;
}

/* The reference's node active energy per tick of the zone (J) into
 * mono/ra (tb->n each); *nt rows. */
static int reference_active(wc_store *st, int64_t model_id, const wc_timebase *tb, const char *zone,
                            int64_t *mono, double *ra, size_t *tbi, size_t *nt, wc_error *err)
{
    const char *zones[] = {zone, NULL};
    wc_store_iter *it = NULL;
    int rc = wc_store_node_zone_rows_open(st, model_id, zones, &it, err);
    wc_node_row r;
    *nt = 0;
    while (!rc && (rc = wc_store_node_row_next(it, &r, err)) == 1) {
        rc = 0;
        long ti = wc_timebase_index(tb, r.tick_id);
        if (ti >= 0 && *nt < tb->n && isfinite(r.active_uj) && r.active_uj >= 0) {
            mono[*nt] = tb->mono_ns[ti];
            tbi[*nt] = (size_t)ti;
            ra[(*nt)++] = r.active_uj / 1e6;
        }
    }
    wc_store_iter_close(it);
    return rc < 0 ? rc : 0;
}

/* The cut search (cut_ticks): per scrape k, cut[k] = how many of the
 * reference's ticks (time order) the exporter had counted when it answered
 * scrape k, between lo[k] and hi[k]; cost and from index a flat table, row k
 * at off[k]. */
typedef struct cut_dp {
    size_t *lo, *hi, *def, *off, *from;
    double *cost;
} cut_dp;

static void cut_dp_free(cut_dp *p)
{
    free(p->lo), free(p->hi), free(p->def), free(p->off), free(p->from), free(p->cost);
}

/* The candidate cuts of every scrape: the ticks sampled at or before its
 * response (a tick sampled later cannot be in it; one sampled between the
 * request and the response can), all those older than lmax_ns before the
 * request in; def: the cut of the global lag. Returns 0 or -ENOMEM. */
static int cut_ranges(const ref_ctx *c, const int64_t *mono, size_t nt, int64_t lmax_ns, cut_dp *p)
{
    size_t n = c->d->nscrapes, total = 0, lo = 0, hi = 0, def = 0;
    p->lo = calloc(n, sizeof *p->lo), p->hi = calloc(n, sizeof *p->hi);
    p->def = calloc(n, sizeof *p->def), p->off = calloc(n + 1, sizeof *p->off);
    if (!p->lo || !p->hi || !p->def || !p->off)
        return -ENOMEM;
    for (size_t k = 0; k < n; k++) {
        int64_t req = c->d->scrapes[k].req_mono_ns;
        while (lo < nt && mono[lo] <= req - lmax_ns)
            lo++;
        while (hi < nt && mono[hi] <= c->d->scrapes[k].resp_mono_ns)
            hi++;
        while (def < nt && mono[def] + c->lag_ns <= req)
            def++;
        p->lo[k] = lo, p->hi[k] = hi;
        p->def[k] = def < lo ? lo : def > hi ? hi : def;
        p->off[k] = total;
        total += hi - lo + 1;
    }
    p->off[n] = total;
    p->cost = calloc(total ? total : 1, sizeof *p->cost);
    p->from = calloc(total ? total : 1, sizeof *p->from);
    return p->cost && p->from ? 0 : -ENOMEM;
}

/* Fills the table: the least Σ over known intervals of |reference active
 * between the cuts − the exporter's delta|, plus a tiny pull towards the
 * global lag's cut (ties: zero-energy ticks). R: prefix sums of ra. */
static void cut_fill(const double *ea, const double *R, size_t n, double eps, cut_dp *p)
{
    for (size_t k = 0; k < n; k++)
        for (size_t x = p->lo[k]; x <= p->hi[k]; x++) {
            double pen = eps * fabs((double)x - (double)p->def[k]), best = INFINITY;
            size_t arg = 0;
            for (size_t y = k ? p->lo[k - 1] : x; k && y <= p->hi[k - 1] && y <= x; y++) {
                double v = p->cost[p->off[k - 1] + y - p->lo[k - 1]] +
                           (isfinite(ea[k]) ? fabs(R[x] - R[y] - ea[k]) : 0);
                if (v < best)
                    best = v, arg = y;
            }
            p->cost[p->off[k] + x - p->lo[k]] = (k ? best : 0) + pen;
            p->from[p->off[k] + x - p->lo[k]] = arg;
        }
}

/* Places the reference's ticks into the exporter's intervals by where the
 * exporter's node active energy says it cut them: a dynamic programme over
 * every scrape's cut (cut_fill), so a scrape that raced with a tick (in or
 * out, varying from scrape to scrape) and an interval the exporter cannot
 * tell (a restart) are placed by the intervals around them, never by one
 * global lag. ea[k]: the exporter's delta into k (NAN unknown); mono/ra/tbi:
 * the reference's node active ticks. Returns 0 or -ENOMEM. */
static int cut_ticks(ref_ctx *c, const double *ea, const int64_t *mono, const double *ra,
                     const size_t *tbi, size_t nt, int64_t lmax_ns)
{
    size_t n = c->d->nscrapes;
    cut_dp p = {0};
    double *R = calloc(nt + 1, sizeof *R);
    size_t *cut = calloc(n, sizeof *cut);
    int rc = R && cut ? cut_ranges(c, mono, nt, lmax_ns, &p) : -ENOMEM;
    for (size_t j = 0; !rc && j < nt; j++)
        R[j + 1] = R[j] + ra[j];
    if (!rc && n) {
        cut_fill(ea, R, n, 1e-9 * (1 + R[nt]), &p);
        size_t x = p.lo[n - 1];
        for (size_t y = x; y <= p.hi[n - 1]; y++)
            x = p.cost[p.off[n - 1] + y - p.lo[n - 1]] < p.cost[p.off[n - 1] + x - p.lo[n - 1]] ? y : x;
        for (size_t k = n; k-- > 0;) {
            cut[k] = x;
            x = p.from[p.off[k] + x - p.lo[k]];
        }
        for (size_t j = 0, k = 0; j < nt; j++) {
            while (k < n && cut[k] <= j)
                k++;
            c->tick_scrape[tbi[j]] = k;
        }
    }
    cut_dp_free(&p);
    free(R);
    free(cut);
    return rc;
}

/* Sets c->lag_ns (0 when nothing to estimate it from) and c->tick_scrape. */
static int estimate_lag(wc_store *st, int64_t model_id, const wc_timebase *tb, ref_ctx *c,
                        wc_error *err)
{
    size_t n = c->d->nscrapes;
    double *ea = calloc(n, sizeof *ea), *val = calloc(n, sizeof *val), *bins = calloc(n, sizeof *bins);
    unsigned char *p = calloc(n, 1);
    int64_t *mono = calloc(tb->n, sizeof *mono);
    double *ra = calloc(tb->n, sizeof *ra);
    size_t *tbi = calloc(tb->n, sizeof *tbi), nt = 0;
    c->tick_scrape = calloc(tb->n, sizeof *c->tick_scrape);
    int rc = ea && val && bins && p && mono && ra && tbi && c->tick_scrape
                 ? 0 : wc_error_set(err, -ENOMEM, "out of memory");
    if (!rc)
        rc = reference_active(st, model_id, tb, c->zone, mono, ra, tbi, &nt, err);
    c->lag_ns = 0;
    if (!rc && nt) {
        exporter_active(c, ea, val, p);
        double best = lag_cost(c, ea, mono, ra, nt, 0, bins);
        for (int64_t i = 1; i <= 24; i++) {
            int64_t lag = i * tb->median_spacing_ns / 2;
            double cost = lag_cost(c, ea, mono, ra, nt, lag, bins);
            if (cost < best * (1 - 1e-9)) {
                best = cost;
                c->lag_ns = lag;
            }
        }
    }
    for (size_t i = 0; !rc && i < tb->n; i++)
        c->tick_scrape[i] = interval_of(c->d, tb->mono_ns[i] + c->lag_ns);
    if (!rc && nt && cut_ticks(c, ea, mono, ra, tbi, nt, 12 * tb->median_spacing_ns))
        rc = wc_error_set(err, -ENOMEM, "out of memory placing the reference's ticks");
    free(ea);
    free(val);
    free(bins);
    free(p);
    free(mono);
    free(ra);
    free(tbi);
    return rc;
}

/* One level's comparison. */
static int reference_level(wc_store *st, int64_t model_id, const wc_timebase *tb,
                           const char *level, const wc_boot_cfg *boot, ref_ctx *c, wc_xp_one *x,
                           wc_error *err)
{
    wc_xp_track *t = NULL;
    size_t nt = 0;
    c->level = level;
    int rc = wc_xp_tracks(c->d, level, &t, &nt);
    if (!rc)
        rc = keys_build(c, t, nt);
    if (!rc)
        keys_fill_exporter(c, t, nt);
    wc_xp_tracks_free(t, nt);
    if (rc)
        rc = wc_error_set(err, -ENOMEM, "out of memory comparing %ss with the reference", level);
    if (!rc && c->nkeys)
        rc = keys_fill_reference(st, model_id, tb, c, WC_TENANT_ROWS_ALL, err);
    if (!rc && c->nkeys)
        rc = keys_fill_reference(st, model_id, tb, c, WC_TENANT_ROWS_NEGATIVE_SHARE, err);
    if (!rc && c->nkeys && wc_xp_ref_keep_top(c, boot, x))
        rc = wc_error_set(err, -ENOMEM, "out of memory scoring %ss", level);
    wc_xp_ref_keys_free(c);
    return rc;
}

int wc_xp_reference(wc_store *st, int64_t model_id, const char *model, const wc_xp_data *d,
                    const wc_boot_cfg *boot, wc_xp_one *x, wc_error *err)
{
    wc_textf(x->ref_model, sizeof x->ref_model, "%s", model ? model : "");
    if (model_id <= 0 || d->nscrapes < 2) {
        wc_textf(x->ref_note, sizeof x->ref_note, "no reference model rows, or fewer than 2 scrapes");
        return 0;
    }
    wc_timebase tb;
    int rc = wc_timebase_load(st, &tb, err);
    if (rc == -ENODATA) {
        wc_textf(x->ref_note, sizeof x->ref_note, "the run has fewer than 2 ticks");
        return 0;
    }
    if (rc)
        return rc;
    ref_ctx c = {.d = d, .zone = x->show_zone[0] ? x->show_zone : "package"};
    rc = estimate_lag(st, model_id, &tb, &c, err);
    x->ref_lag_s = (double)c.lag_ns / 1e9;
    static const char *const LEVELS[] = {"pod", "container", "process"};
    for (size_t l = 0; !rc && l < 2; l++)
        rc = reference_level(st, model_id, &tb, LEVELS[l], boot, &c, x, err);
    c.level = LEVELS[2];
    if (!rc)
        rc = wc_xp_ref_processes(st, model_id, &tb, boot, &c, x, err);
    if (!rc) /* kepler_vm_cpu_joules_total{vm_id} against work_attr level 4 */
        rc = reference_level(st, model_id, &tb, "vm", boot, &c, x, err);
    free(c.tick_scrape);
    wc_timebase_free(&tb);
    wc_textf(x->ref_note, sizeof x->ref_note,
             "zone %s, exporter lag %.2f s; pods by uid, containers by id, processes by pid + comm"
             " (a reused pid told apart by lifetime), VMs by vm_id",
             c.zone, x->ref_lag_s);
    return rc;
}
