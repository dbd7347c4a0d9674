/*
 * exporter_data.c — loads one exporter's scrapes, series and samples of a
 * run into memory and classifies counter deltas: ok, wrap, reset (at an
 * exporter restart), decrease (exporter_data.h).
 */
#include "validator/exporter_data.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int wc_xp_is(const wc_xp_series *s, const char *level, const char *quantity, const char *zone)
{
    return !strcmp(s->row.level, level) && !strcmp(s->row.quantity, quantity) &&
           (!zone || !strcmp(s->row.zone, zone));
}

long wc_xp_index_of(const size_t *scrape, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (scrape[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && scrape[lo] == k ? (long)lo : -1;
}

long wc_xp_at(const wc_xp_series *s, size_t k)
{
    return wc_xp_index_of(s->scrape, s->n, k);
}

/* The index of the scrape with id `id` (scrapes are in time order, ids
 * normally rising with it: binary search, then a scan). -1 when absent. */
static long scrape_index(const wc_xp_data *d, int64_t id)
{
    size_t lo = 0, hi = d->nscrapes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->scrapes[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < d->nscrapes && d->scrapes[lo].id == id)
        return (long)lo;
    for (size_t k = 0; k < d->nscrapes; k++)
        if (d->scrapes[k].id == id)
            return (long)k;
    return -1;
}

/* Appends one sample to series s (amortised doubling). Returns 0 or -ENOMEM. */
static int push_sample(wc_xp_series *s, size_t *cap, int64_t t, size_t k, double v)
{
    if (s->n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        int64_t *t2 = realloc(s->t_ns, c * sizeof *t2);
        if (t2)
            s->t_ns = t2;
        size_t *k2 = realloc(s->scrape, c * sizeof *k2);
        if (k2)
            s->scrape = k2;
        double *v2 = realloc(s->v, c * sizeof *v2);
        if (v2)
            s->v = v2;
        if (!t2 || !k2 || !v2)
            return -ENOMEM;
        *cap = c;
    }
    s->t_ns[s->n] = t;
    s->scrape[s->n] = k;
    s->v[s->n++] = v;
    return 0;
}

/* The series with store id `id` (series are by id: binary search). */
static wc_xp_series *series_by_id(wc_xp_data *d, int64_t id)
{
    size_t lo = 0, hi = d->nseries;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->series[mid].row.id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->nseries && d->series[lo].row.id == id ? &d->series[lo] : NULL;
}

/* Streams every sample into its series. */
static int load_samples(wc_store *st, wc_xp_data *d, wc_error *err)
{
    size_t *caps = calloc(d->nseries ? d->nseries : 1, sizeof *caps);
    if (!caps)
        return wc_error_set(err, -ENOMEM, "out of memory for exporter series");
    wc_store_iter *it = NULL;
    int rc = wc_store_exporter_samples_open(st, d->info.id, NULL, NULL, &it, err);
    wc_exporter_sample_row r;
    while (!rc && (rc = wc_store_exporter_sample_next(it, &r, err)) == 1) {
        rc = 0;
        wc_xp_series *s = series_by_id(d, r.series_id);
        long k = scrape_index(d, r.scrape_id);
        if (!s || k < 0)
            continue;
        if (push_sample(s, &caps[s - d->series], r.mono_ns, (size_t)k, r.value))
            rc = wc_error_set(err, -ENOMEM, "out of memory for exporter samples");
    }
    wc_store_iter_close(it);
    free(caps);
    return rc < 0 ? rc : 0;
}

/* A restart: any node active/idle counter falls into scrape k. */
static void mark_restarts(wc_xp_data *d)
{
    for (size_t i = 0; i < d->nseries; i++) {
        const wc_xp_series *s = &d->series[i];
        if (!wc_xp_is(s, "node", "active_joules", NULL) && !wc_xp_is(s, "node", "idle_joules", NULL))
            continue;
        for (size_t j = 1; j < s->n; j++)
            if (isfinite(s->v[j]) && isfinite(s->v[j - 1]) && s->v[j] < s->v[j - 1])
                d->restart[s->scrape[j]] = 1;
    }
    for (size_t k = 0; k < d->nscrapes; k++)
        d->nrestarts += d->restart[k];
}

int wc_xp_load(wc_store *st, const wc_exporter_info *info, wc_xp_data *d, wc_error *err)
{
    memset(d, 0, sizeof *d);
    d->info = *info;
    int rc = wc_store_scrapes(st, info->id, &d->scrapes, &d->nscrapes, err);
    size_t nrows = 0;
    if (!rc)
        rc = wc_store_exporter_series_count(st, info->id, &nrows, err);
    if (!rc) {
        d->series = calloc(nrows ? nrows : 1, sizeof *d->series);
        d->restart = calloc(d->nscrapes ? d->nscrapes : 1, 1);
        if (!d->series || !d->restart)
            rc = wc_error_set(err, -ENOMEM, "out of memory for %zu exporter series", nrows);
    }
    /* the rows straight into the series (one copy of ~2 KB per series) */
    if (!rc)
        rc = wc_store_exporter_series_fill(st, info->id, &d->series[0].row, sizeof *d->series,
                                           nrows, &d->nseries, err);
    if (!rc)
        rc = load_samples(st, d, err);
    if (rc) {
        wc_xp_free(d);
        return rc;
    }
    mark_restarts(d);
    return 0;
}

void wc_xp_free(wc_xp_data *d)
{
    for (size_t i = 0; i < d->nseries; i++) {
        free(d->series[i].t_ns);
        free(d->series[i].scrape);
        free(d->series[i].v);
    }
    free(d->series);
    free(d->scrapes);
    free(d->restart);
    memset(d, 0, sizeof *d);
}

double wc_xp_delta(const wc_xp_data *d, const wc_xp_series *s, size_t i, wc_xp_dkind *kind)
{
    double a = s->v[i - 1], b = s->v[i];
    *kind = WC_XP_D_MISSING;
    if (!isfinite(a) || !isfinite(b))
        return NAN;
    for (size_t k = s->scrape[i - 1] + 1; k <= s->scrape[i]; k++)
        if (d->restart[k]) {
            *kind = WC_XP_D_RESET;
            return NAN;
        }
    if (b >= a) {
        *kind = WC_XP_D_OK;
        return b - a;
    }
    *kind = wc_xp_is(s, "node", "joules", NULL) ? WC_XP_D_WRAP : WC_XP_D_DECREASE;
    return NAN;
}

/* ---- tracks ------------------------------------------------------------ */

/* Whether series a and b are one workload in one zone (state aside). */
static int same_track(const wc_xp_series *a, const wc_xp_series *b)
{
    /* a process is its pid and its comm: a reused pid under another name is
     * another process */
    return !strcmp(a->row.key, b->row.key) && !strcmp(a->row.zone, b->row.zone) &&
           (strcmp(a->row.level, "process") || !strcmp(a->row.name, b->row.name));
}

/* Merges series s into track t (both rising by scrape). Returns 0 or -ENOMEM. */
static int track_merge(wc_xp_track *t, const wc_xp_series *s)
{
    size_t n = t->n + s->n;
    size_t *k = malloc((n ? n : 1) * sizeof *k);
    double *v = malloc((n ? n : 1) * sizeof *v);
    unsigned char *term = malloc(n ? n : 1);
    if (!k || !v || !term) {
        free(k);
        free(v);
        free(term);
        return -ENOMEM;
    }
    int st = !strcmp(s->row.state, "terminated");
    size_t i = 0, j = 0, m = 0;
    while (i < t->n || j < s->n) {
        /* at one scrape a terminated sample (an ended process) comes before a
         * running one (a new process under its reused pid) */
        int from_t = j == s->n || (i < t->n && (t->scrape[i] < s->scrape[j] ||
                                                (t->scrape[i] == s->scrape[j] && (t->terminated[i] || !st))));
        k[m] = from_t ? t->scrape[i] : s->scrape[j];
        v[m] = from_t ? t->v[i] : s->v[j];
        term[m++] = (unsigned char)(from_t ? t->terminated[i++] : (j++, st));
    }
    free(t->scrape);
    free(t->v);
    free(t->terminated);
    t->scrape = k;
    t->v = v;
    t->terminated = term;
    t->n = m;
    return 0;
}

/* FNV-1a over what same_track compares (key, zone, and a process's name). */
static size_t track_hash(const wc_xp_series *s)
{
    const char *part[3] = {s->row.key, s->row.zone, strcmp(s->row.level, "process") ? "" : s->row.name};
    uint64_t h = 1469598103934665603u;
    for (int k = 0; k < 3; k++) {
        for (const unsigned char *p = (const unsigned char *)part[k]; *p; p++)
            h = (h ^ *p) * 1099511628211u;
        h = (h ^ 0xff) * 1099511628211u; /* "ab"+"c" is not "a"+"bc" */
    }
    return (size_t)h;
}

/* The track of series s among t[0..nt) through the open-addressing index
 * slot[cap] (track index + 1, 0 empty): found, or appended as t[nt]. */
static size_t track_find(wc_xp_track *t, size_t *nt, size_t *slot, size_t cap,
                         const wc_xp_series *s)
{
    size_t h = track_hash(s) & (cap - 1);
    while (slot[h] && !same_track(t[slot[h] - 1].s, s))
        h = (h + 1) & (cap - 1);
    if (!slot[h]) {
        t[*nt].s = s;
        slot[h] = ++*nt;
    }
    return slot[h] - 1;
}

int wc_xp_tracks(const wc_xp_data *d, const char *level, wc_xp_track **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 16;
    while (cap < 2 * d->nseries)
        cap *= 2;
    wc_xp_track *t = calloc(d->nseries ? d->nseries : 1, sizeof *t);
    size_t *slot = calloc(cap, sizeof *slot);
    if (!t || !slot) {
        free(t);
        free(slot);
        return -ENOMEM;
    }
    size_t nt = 0;
    for (size_t i = 0; i < d->nseries; i++) {
        const wc_xp_series *s = &d->series[i];
        if (!wc_xp_is(s, level, "joules", NULL) || strcmp(s->row.device, "cpu") || !s->row.key[0])
            continue;
        if (track_merge(&t[track_find(t, &nt, slot, cap, s)], s)) {
            free(slot);
            wc_xp_tracks_free(t, nt);
            return -ENOMEM;
        }
    }
    free(slot);
    *out = t;
    *n = nt;
    return 0;
}

int wc_xp_new_incarnation(double prev, double next)
{
    return isfinite(prev) && isfinite(next) && (next < prev || next - prev >= WC_XP_PID_REUSE_J);
}

void wc_xp_tracks_free(wc_xp_track *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++) {
        free(t[i].scrape);
        free(t[i].v);
        free(t[i].terminated);
    }
    free(t);
}

double wc_xp_track_delta(const wc_xp_data *d, const wc_xp_track *t, size_t i, wc_xp_dkind *kind)
{
    double a = t->v[i - 1], b = t->v[i];
    *kind = WC_XP_D_MISSING;
    if (!isfinite(a) || !isfinite(b))
        return NAN;
    for (size_t k = t->scrape[i - 1] + 1; k <= t->scrape[i]; k++)
        if (d->restart[k]) {
            *kind = WC_XP_D_RESET;
            return NAN;
        }
    *kind = b >= a ? WC_XP_D_OK : WC_XP_D_DECREASE;
    return b >= a ? b - a : NAN;
}
