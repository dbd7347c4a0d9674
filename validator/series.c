/*
 * series.c — reads a run's meter, model, gauge, utilisation and ground-truth
 * series from the store (collector/store/store_read.h) onto its monotonic
 * tick clock (see series.h).
 */
#include "validator/series.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "collector/meter/counter.h"
#include "collector/store/store_read.h"
#include "collector/store/store_results.h"
#include "common/wc_sorted.h"

/* Median of n int64 values (copied into doubles), 0 when n is 0. */
static double median_of(const double *v, size_t n)
{
    if (!n)
        return 0;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return 0;
    memcpy(c, v, n * sizeof *c);
    gsl_sort(c, 1, n);
    double m = gsl_stats_median_from_sorted_data(c, 1, n);
    free(c);
    return m;
}

/* The time base's arrays for cap ticks, and *boot for their boot clock. */
static int tb_alloc(wc_timebase *tb, size_t cap, int64_t **boot, wc_error *err)
{
    tb->tick_id = malloc(cap * sizeof *tb->tick_id);
    tb->mono_ns = malloc(cap * sizeof *tb->mono_ns);
    tb->ok = calloc(cap, 1);
    *boot = malloc(cap * sizeof **boot);
    if (!tb->tick_id || !tb->mono_ns || !tb->ok || !*boot) {
        free(*boot);
        *boot = NULL;
        wc_timebase_free(tb);
        return wc_error_set(err, -ENOMEM, "out of memory loading %lld ticks", (long long)cap);
    }
    return 0;
}

/* A monotonic clock never goes back, nor reads below 0 or centuries: a run
 * whose ticks do is corrupt. Returns 0 or -EINVAL naming the tick. */
static int tb_check_clock(const wc_timebase *tb, wc_error *err)
{
    for (size_t i = 0; i < tb->n; i++)
        if (tb->mono_ns[i] < 0 || tb->mono_ns[i] > WC_SERIES_MAX_MONO_NS)
            return wc_error_set(err, -EINVAL, "tick %lld: mono_ns %lld is not a monotonic clock reading"
                                " (0 .. 2^62 ns): the run's clock is corrupt", (long long)tb->tick_id[i],
                                (long long)tb->mono_ns[i]);
    for (size_t i = 0; i + 1 < tb->n; i++)
        if (tb->mono_ns[i + 1] <= tb->mono_ns[i])
            return wc_error_set(err, -EINVAL,
                                "tick %lld: mono_ns %lld is not after the previous tick's %lld: the"
                                " run's monotonic clock is corrupt", (long long)tb->tick_id[i + 1],
                                (long long)tb->mono_ns[i + 1], (long long)tb->mono_ns[i]);
    return 0;
}

/* The median spacing, then each interval's verdict: longer than the gap
 * factor × the median, or a suspend (boot clock ahead of monotonic). */
static int tb_mark_gaps(wc_timebase *tb, const int64_t *boot, wc_error *err)
{
    double *spacing = malloc((tb->n ? tb->n : 1) * sizeof *spacing);
    if (!spacing)
        return wc_error_set(err, -ENOMEM, "out of memory loading %lld ticks", (long long)tb->n);
    size_t nsp = 0;
    for (size_t i = 0; i + 1 < tb->n; i++)
        spacing[nsp++] = (double)tb->mono_ns[i + 1] - (double)tb->mono_ns[i];
    tb->median_spacing_ns = (int64_t)median_of(spacing, nsp);
    free(spacing);
    for (size_t i = 0; i + 1 < tb->n; i++) {
        /* in double: corrupt extremes must not overflow */
        double dm = (double)tb->mono_ns[i + 1] - (double)tb->mono_ns[i];
        double db_ns = (double)boot[i + 1] - (double)boot[i];
        tb->ok[i] = 1;
        if (dm > WC_SERIES_GAP_FACTOR * (double)tb->median_spacing_ns) {
            tb->ok[i] = 0;
            tb->gaps.long_gaps++;
            tb->gaps.gap_seconds += dm / 1e9;
        }
        if (boot[i] && boot[i + 1] && db_ns - dm > (double)WC_SERIES_SUSPEND_NS) {
            tb->ok[i] = 0;
            tb->gaps.suspends++;
            tb->gaps.suspended_seconds += (db_ns - dm) / 1e9;
        }
    }
    return 0;
}

/* Wall-clock steps: intervals whose wall clock moved more than
 * WC_SERIES_CLOCK_STEP_NS off the monotonic one (counted, not unusable:
 * every interval is monotonic; validate says so, issue 14 item 9). */
static int tb_clock_steps(wc_store *st, wc_timebase *tb, wc_error *err)
{
    int64_t *wall = malloc((tb->n ? tb->n : 1) * sizeof *wall);
    if (!wall)
        return wc_error_set(err, -ENOMEM, "out of memory loading %zu ticks", tb->n);
    size_t n = 0;
    int rc = wc_store_get_tick_walls(st, wall, tb->n, &n, err);
    for (size_t i = 0; !rc && i + 1 < n && i + 1 < tb->n; i++) {
        if (!wall[i] || !wall[i + 1])
            continue;
        double off = ((double)wall[i + 1] - (double)wall[i]) -
                     ((double)tb->mono_ns[i + 1] - (double)tb->mono_ns[i]);
        if (fabs(off) > (double)WC_SERIES_CLOCK_STEP_NS) {
            tb->gaps.clock_steps++;
            tb->gaps.clock_step_seconds += fabs(off) / 1e9;
        }
    }
    free(wall);
    return rc;
}

int wc_timebase_load(wc_store *st, wc_timebase *tb, wc_error *err)
{
    memset(tb, 0, sizeof *tb);
    int64_t count = 0;
    int rc = wc_store_count_rows(st, WC_TABLE_TICK, &count, err);
    if (rc)
        return rc;
    if (count < 2)
        return wc_error_set(err, -ENODATA, "the run has %lld tick(s): no interval to score",
                            (long long)count);
    int64_t *boot = NULL;
    rc = tb_alloc(tb, (size_t)count, &boot, err);
    if (rc)
        return rc;
    rc = wc_store_get_ticks(st, tb->tick_id, tb->mono_ns, boot, (size_t)count, &tb->n, err);
    if (!rc)
        rc = tb_clock_steps(st, tb, err);
    wc_run_meta m;
    if (!rc)
        rc = wc_store_get_run(st, &m, err);
    if (!rc)
        tb->ceiling_watts = m.ceiling_stored ? m.ceiling_watts : 0.0;
    if (!rc)
        rc = tb_check_clock(tb, err);
    if (!rc)
        rc = tb_mark_gaps(tb, boot, err);
    free(boot);
    if (rc)
        wc_timebase_free(tb);
    return rc;
}

void wc_timebase_free(wc_timebase *tb)
{
    free(tb->tick_id);
    free(tb->mono_ns);
    free(tb->ok);
    memset(tb, 0, sizeof *tb);
}

long wc_timebase_index(const wc_timebase *tb, int64_t tick_id)
{
    return wc_sorted_find_i64(tb->tick_id, tb->n, tick_id);
}
static int series_alloc(const wc_timebase *tb, wc_cumseries *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    out->n = tb->n;
    out->t_ns = tb->mono_ns;
    out->cum = calloc(tb->n, sizeof *out->cum);
    out->ok = calloc(tb->n, 1);
    if (!out->cum || !out->ok) {
        wc_cumseries_free(out);
        return wc_error_set(err, -ENOMEM, "out of memory for a series of %zu ticks", tb->n);
    }
    return 0;
}

/* ok[i] &= the time base's own verdict; counts what the series itself lost. */
static void series_finish(const wc_timebase *tb, wc_cumseries *s)
{
    s->unusable = 0;
    for (size_t i = 0; i + 1 < s->n; i++) {
        if (tb->ok[i] && !s->ok[i])
            s->unusable++;
        s->ok[i] = s->ok[i] && tb->ok[i];
    }
    if (s->n)
        s->ok[s->n - 1] = 0;
}

void wc_cumseries_free(wc_cumseries *s)
{
    free(s->cum);
    free(s->ok);
    memset(s, 0, sizeof *s);
}
/* Per-zone accumulation state while walking one zone's samples in tick order. */
typedef struct zone_walk {
    int64_t zone_id;
    long last_idx;        /* tick index of the last good reading, -1 none */
    uint64_t last_value;
    double cum_j;
    long filled;          /* ticks [0, filled) written into zc */
    int prev_seg_good;    /* the reading at last_idx closed a usable segment */
} zone_walk;

/* Writes zone cumulative values up to (excluding) index `upto` as flat. */
static void zone_fill(zone_walk *w, double *zc, long upto)
{
    for (; w->filled < upto; w->filled++)
        zc[w->filled] = w->cum_j;
}

/* The zones of one kind being summed into a series (the one loader of
 * wc_series_meter and wc_series_gauge): gauges one zone at a time, counters
 * (read in tick order) each with its own walk. */
typedef struct zone_load {
    const wc_timebase *tb;
    wc_reading_kind kind;
    wc_cumseries *out;
    double *zc;                  /* gauges: every zone's J of the interval ending there */
    unsigned char *zok;          /* gauges: this zone has a value at tick i */
    unsigned char *allok;        /* segment i usable in every zone so far */
    size_t nfound;
} zone_load;

/* One counter zone: its walk, its cumulative J at each tick (zc) and its
 * usable segments (zok). */
typedef struct counter_zone {
    zone_walk w;
    double *zc;
    unsigned char *zok;
} counter_zone;

/* Every counter zone met so far, zone ids ascending. */
typedef struct counter_zones {
    counter_zone *z;
    size_t n, cap, last;
} counter_zones;

static void counter_zones_free(counter_zones *cz)
{
    for (size_t k = 0; k < cz->n; k++)
        free(cz->z[k].zc), free(cz->z[k].zok);
    free(cz->z);
}

/* The zone of id (added in id order on first sight, its arrays of nt
 * ticks zeroed); NULL out of memory. */
static counter_zone *counter_zone_of(counter_zones *cz, int64_t id, size_t nt)
{
    if (cz->last < cz->n && cz->z[cz->last].w.zone_id == id)
        return &cz->z[cz->last];
    size_t k = 0;
    while (k < cz->n && cz->z[k].w.zone_id < id)
        k++;
    if (k == cz->n || cz->z[k].w.zone_id != id) {
        if (cz->n == cz->cap) {
            size_t cap = cz->cap ? cz->cap * 2 : 8;
            counter_zone *n = realloc(cz->z, cap * sizeof *n);
            if (!n)
                return NULL;
            cz->z = n, cz->cap = cap;
        }
        counter_zone z = {.w = {.zone_id = id, .last_idx = -1}, .zc = calloc(nt ? nt : 1, sizeof(double)),
                          .zok = calloc(nt ? nt : 1, 1)};
        if (!z.zc || !z.zok) {
            free(z.zc), free(z.zok);
            return NULL;
        }
        memmove(&cz->z[k + 1], &cz->z[k], (cz->n - k) * sizeof *cz->z);
        cz->z[k] = z;
        cz->n++;
    }
    cz->last = k;
    return &cz->z[k];
}

/* One counter reading: differenced against the zone's last good one with the
 * collector's counter rule. A transient failure keeps the baseline (its
 * energy counts for totals, its segments are unusable); a zone that vanished
 * (ENOENT: cases/B25) starts a new one. */
static void counter_row(const wc_timebase *tb, counter_zone *z, const wc_zone_sample *r)
{
    zone_walk *w = &z->w;
    long i = wc_timebase_index(tb, r->tick_id);
    if (i < 0 || i < w->filled)
        return;
    zone_fill(w, z->zc, i);
    /* a counter is an integer: NULL or any other type is a failed read */
    if (r->status != 0 || r->type != WC_VALUE_INTEGER) {
        if (r->status == -ENOENT)
            w->last_idx = -1;
        z->zc[i] = w->cum_j;
        w->filled = i + 1;
        return;
    }
    uint64_t v = (uint64_t)r->value;
    if (w->last_idx >= 0) {
        uint64_t d = 0;
        wc_delta_status st = wc_counter_delta_checked(w->last_value, v, r->max_range_uj,
                                                      tb->mono_ns[i] - tb->mono_ns[w->last_idx],
                                                      tb->ceiling_watts, &d);
        if (wc_delta_usable(st)) {
            w->cum_j += (double)d / 1e6;
            /* Only a tick-to-tick interval is usable for windows; across a
             * failed read the energy counts for totals only. */
            if (i == w->last_idx + 1)
                z->zok[w->last_idx] = 1;
        }
    }
    w->last_idx = i;
    w->last_value = v;
    z->zc[i] = w->cum_j;
    w->filled = i + 1;
}

/* Adds a counter zone walked to the end to the series and to the usable
 * segments. */
static void counter_close(zone_load *L, counter_zone *z)
{
    size_t n = L->tb->n;
    zone_fill(&z->w, z->zc, (long)n);
    for (size_t i = 0; i < n; i++) {
        L->out->cum[i] += z->zc[i];
        L->allok[i] = L->allok[i] && z->zok[i];
    }
    L->nfound++;
}

/* Walks every counter sample (tick order), then adds the zones in id order:
 * the additions a zone-by-zone walk makes. Returns 0 or < 0 with err. */
static int counter_walk_all(zone_load *L, wc_store_iter *it, wc_error *err)
{
    counter_zones cz = {0};
    wc_zone_sample r;
    int rc;
    while ((rc = wc_store_zone_sample_next(it, &r, err)) == 1) {
        counter_zone *z = counter_zone_of(&cz, r.zone_id, L->tb->n);
        if (!z) {
            rc = wc_error_set(err, -ENOMEM, "out of memory reading meter zones");
            break;
        }
        counter_row(L->tb, z, &r);
    }
    for (size_t k = 0; !rc && k < cz.n; k++)
        counter_close(L, &cz.z[k]);
    counter_zones_free(&cz);
    return rc;
}

/* One gauge reading (µW), held over the interval since the previous tick. */
static void gauge_row(zone_load *L, const wc_zone_sample *r)
{
    const wc_timebase *tb = L->tb;
    long i = wc_timebase_index(tb, r->tick_id);
    if (i <= 0 || r->status != 0 || r->type == WC_VALUE_OTHER)
        return;
    double watts = r->value_real / 1e6;
    L->zc[i] += watts * (double)(tb->mono_ns[i] - tb->mono_ns[i - 1]) / 1e9;
    L->zok[i] = 1;
}

/* Adds the gauge zone just walked to the usable segments. */
static void gauge_close(zone_load *L)
{
    size_t n = L->tb->n;
    for (size_t i = 0; i + 1 < n; i++)
        L->allok[i] = L->allok[i] && L->zok[i + 1];
    L->nfound++;
}

/* Walks every gauge sample, zone by zone. Returns 0 or < 0 with err. */
static int gauge_walk_all(zone_load *L, wc_store_iter *it, wc_error *err)
{
    wc_zone_sample r;
    int64_t cur = -1;
    int rc;
    while ((rc = wc_store_zone_sample_next(it, &r, err)) == 1) {
        if (r.zone_id != cur) {
            if (cur != -1)
                gauge_close(L);
            memset(L->zok, 0, L->tb->n);
            cur = r.zone_id;
        }
        gauge_row(L, &r);
    }
    if (cur != -1)
        gauge_close(L);
    return rc;
}

/* The series of the zones of a kind named in zones (wc_series_meter,
 * wc_series_gauge). */
static int load_zones(wc_store *st, const wc_timebase *tb, wc_reading_kind kind,
                      const char *const *zones, wc_cumseries *out, size_t *nfound, wc_error *err)
{
    *nfound = 0;
    int rc = series_alloc(tb, out, err);
    if (rc)
        return rc;
    wc_store_iter *it = NULL;
    rc = wc_store_zone_samples_open(st, kind, zones, &it, err);
    if (rc) {
        wc_cumseries_free(out);
        return rc;
    }
    zone_load L = {.tb = tb, .kind = kind, .out = out};
    L.zc = calloc(tb->n, sizeof *L.zc);
    L.zok = calloc(tb->n, 1);
    L.allok = malloc(tb->n);
    if (L.zc && L.zok && L.allok) {
        memset(L.allok, 1, tb->n);
        rc = kind == WC_KIND_COUNTER_UJ ? counter_walk_all(&L, it, err)
                                        : gauge_walk_all(&L, it, err);
    } else {
        rc = wc_error_set(err, -ENOMEM, "out of memory");
    }
    wc_store_iter_close(it);
    for (size_t i = 0; !rc && i < tb->n; i++) {
        if (kind == WC_KIND_GAUGE_UW)
            out->cum[i] = (i ? out->cum[i - 1] : 0) + L.zc[i];
        out->ok[i] = L.nfound ? L.allok[i] : 0;
    }
    *nfound = L.nfound;
    free(L.zc);
    free(L.zok);
    free(L.allok);
    if (rc) {
        wc_cumseries_free(out);
        return rc;
    }
    series_finish(tb, out);
    return 0;
}

int wc_series_meter(wc_store *st, const wc_timebase *tb, const char *const *zones,
                    wc_cumseries *out, size_t *nfound, wc_error *err)
{
    return load_zones(st, tb, WC_KIND_COUNTER_UJ, zones, out, nfound, err);
}

int wc_series_gauge(wc_store *st, const wc_timebase *tb, const char *const *zones,
                    wc_cumseries *out, size_t *nfound, wc_error *err)
{
    return load_zones(st, tb, WC_KIND_GAUGE_UW, zones, out, nfound, err);
}

/* A model's node rows summed per tick over the zones asked for. */
typedef struct node_sum {
    double *inc;                 /* J of the interval ending at tick i */
    unsigned *flags;             /* WC_AF_* of any zone */
    unsigned char *seen;
    size_t nz;                   /* rows at the first tick: the zones found */
} node_sum;

static int node_sum_read(wc_store *st, const wc_timebase *tb, int64_t model_id,
                         const char *const *zones, node_sum *ns, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_node_zone_rows_open(st, model_id, zones, &it, err);
    if (rc)
        return rc;
    wc_node_row r;
    while ((rc = wc_store_node_row_next(it, &r, err)) == 1) {
        long i = wc_timebase_index(tb, r.tick_id);
        if (i < 0)
            continue;
        double d = r.delta_uj;
        if (d < 0) /* a uint64 stored with its bits (Kepler's underflow quirk) */
            d += 18446744073709551616.0;
        ns->inc[i] += d / 1e6;
        ns->flags[i] |= r.flags;
        ns->seen[i] = 1;
        if (r.zone && i == 0)
            ns->nz++;
    }
    wc_store_iter_close(it);
    return rc;
}

/* Cumulates the sums; segment i (the interval ending at tick i+1) is usable
 * when seen without a bad flag and not right after a failed refresh. */
static void node_sum_finish(const wc_timebase *tb, const node_sum *ns, wc_cumseries *out,
                            size_t *nfound)
{
    size_t any = 0;
    const unsigned bad = WC_AF_FIRST | WC_AF_REFRESH_FAILED | WC_AF_CPU_MISSING;
    for (size_t i = 0; i < tb->n; i++) {
        any += ns->seen[i];
        out->cum[i] = (i ? out->cum[i - 1] : 0) + ns->inc[i];
        if (i + 1 < tb->n) {
            int ok = ns->seen[i + 1] && !(ns->flags[i + 1] & bad);
            if (i >= 1 && (ns->flags[i] & WC_AF_REFRESH_FAILED))
                ok = 0; /* this ΔE spans the discarded refresh too */
            out->ok[i] = (unsigned char)ok;
        }
    }
    *nfound = any ? (ns->nz ? ns->nz : 1) : 0;
}

int wc_series_model_node(wc_store *st, const wc_timebase *tb, int64_t model_id,
                         const char *const *zones, wc_cumseries *out, size_t *nfound,
                         wc_error *err)
{
    *nfound = 0;
    int rc = series_alloc(tb, out, err);
    if (rc)
        return rc;
    node_sum ns = {.inc = calloc(tb->n, sizeof(double)), .flags = calloc(tb->n, sizeof(unsigned)),
                   .seen = calloc(tb->n, 1)};
    if (!ns.inc || !ns.flags || !ns.seen)
        rc = wc_error_set(err, -ENOMEM, "out of memory");
    if (!rc)
        rc = node_sum_read(st, tb, model_id, zones, &ns, err);
    if (!rc)
        node_sum_finish(tb, &ns, out, nfound);
    free(ns.inc);
    free(ns.flags);
    free(ns.seen);
    if (rc) {
        wc_cumseries_free(out);
        return rc;
    }
    series_finish(tb, out);
    return 0;
}

/* The previous /proc/stat cpu line, and how many of each kind were seen. */
typedef struct cpu_prev {
    uint64_t busy, total;
    int have;
    int64_t nproc, nutil;
} cpu_prev;

/* The node's busy fraction over the interval ending at this tick: an imported
 * utilisation, or busy (all of the 8 Kepler fields but idle and iowait) over
 * total since the previous line. NAN when unknown. */
static double busy_fraction(const wc_tick_cpu *c, cpu_prev *p)
{
    double frac = NAN;
    if (c->has_util) {
        frac = c->util_pct / 100.0; /* imported: describes the interval */
        p->nutil++;
    } else if (c->cpu_ok) {
        uint64_t total = 0;
        for (int k = 0; k < 8; k++)
            total += c->field[k];
        uint64_t busy = total - c->field[3] - c->field[4];
        if (p->have && total > p->total && busy >= p->busy)
            frac = (double)(busy - p->busy) / (double)(total - p->total);
        p->busy = busy;
        p->total = total;
        p->have = 1;
        p->nproc++;
    } else {
        p->have = 0;
    }
    return frac;
}

int wc_series_utilisation(wc_store *st, const wc_timebase *tb, wc_cumseries *out, int *found,
                          wc_error *err)
{
    *found = 0;
    int rc = series_alloc(tb, out, err);
    if (rc)
        return rc;
    wc_store_iter *it = NULL;
    rc = wc_store_tick_cpu_open(st, &it, err);
    if (rc) {
        wc_cumseries_free(out);
        return rc;
    }
    cpu_prev p = {0};
    wc_tick_cpu c;
    while ((rc = wc_store_tick_cpu_next(it, &c, err)) == 1) {
        long i = wc_timebase_index(tb, c.tick_id);
        if (i < 0)
            continue;
        double dt = i > 0 ? (double)(tb->mono_ns[i] - tb->mono_ns[i - 1]) / 1e9 : 0;
        double frac = busy_fraction(&c, &p);
        if (i > 0) {
            int ok = !isnan(frac) && frac >= 0 && frac <= 1.0 + 1e-9;
            out->cum[i] = out->cum[i - 1] + (ok ? frac * dt : 0);
            out->ok[i - 1] = (unsigned char)ok;
        }
    }
    wc_store_iter_close(it);
    if (rc) {
        wc_cumseries_free(out);
        return rc;
    }
    *found = p.nproc > 1 || p.nutil > 0;
    series_finish(tb, out);
    return 0;
}

/* Index j of the segment (t[j], t[j+1]] used for time x; the side says which
 * segment a time exactly on a sample belongs to (start of an interval: the
 * later segment; end: the earlier). Returns -1 when x is outside. */
static long segment_of(const wc_cumseries *s, int64_t x, int is_end)
{
    if (s->n < 2 || x < s->t_ns[0] || x > s->t_ns[s->n - 1])
        return -1;
    size_t lo = 0, hi = s->n - 1; /* find last j with t[j] <= x (start) or t[j] < x (end) */
    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (is_end ? s->t_ns[mid] < x : s->t_ns[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return (long)lo;
}

static double cum_at(const wc_cumseries *s, long j, int64_t x)
{
    int64_t t0 = s->t_ns[j], t1 = s->t_ns[j + 1];
    double f = t1 > t0 ? (double)(x - t0) / (double)(t1 - t0) : 0;
    return s->cum[j] + f * (s->cum[j + 1] - s->cum[j]);
}

double wc_cumseries_rate(const wc_cumseries *s, int64_t a_ns, int64_t b_ns)
{
    if (b_ns < a_ns)
        return NAN;
    long ja = segment_of(s, a_ns, 0);
    long jb = a_ns == b_ns ? ja : segment_of(s, b_ns, 1);
    if (ja < 0 || jb < 0)
        return NAN;
    for (long j = ja; j <= jb; j++)
        if (!s->ok[j])
            return NAN;
    if (a_ns == b_ns) {
        double dt = (double)(s->t_ns[ja + 1] - s->t_ns[ja]) / 1e9;
        return dt > 0 ? (s->cum[ja + 1] - s->cum[ja]) / dt : NAN;
    }
    return (cum_at(s, jb, b_ns) - cum_at(s, ja, a_ns)) / ((double)(b_ns - a_ns) / 1e9);
}

double wc_cumseries_total(const wc_cumseries *s)
{
    return s->n ? s->cum[s->n - 1] - s->cum[0] : 0;
}

int wc_cumseries_affine(const wc_cumseries *s, double a, double b, wc_cumseries *out)
{
    memset(out, 0, sizeof *out);
    out->n = s->n;
    out->t_ns = s->t_ns;
    out->unusable = s->unusable;
    out->cum = malloc(s->n * sizeof *out->cum);
    out->ok = malloc(s->n ? s->n : 1);
    if (!out->cum || !out->ok) {
        wc_cumseries_free(out);
        return -ENOMEM;
    }
    for (size_t i = 0; i < s->n; i++) {
        out->cum[i] = a * s->cum[i] + b * (double)(s->t_ns[i] - s->t_ns[0]) / 1e9;
        out->ok[i] = s->ok[i];
    }
    return 0;
}

/* ---- ground truth ------------------------------------------------------- */

/* Counts a poll that gives no reading: flagged stale, unavailable, an error,
 * or a value no meter can report. Returns 1 when it was such a poll. */
static int poll_rejected(const wc_truth_poll_row *p, int64_t lo_ns, int64_t hi_ns,
                         wc_truth_counts *c)
{
    if (!strcmp(p->status, "stale")) {
        c->stale++;
        return 1;
    }
    if (!strcmp(p->status, "unavailable")) {
        c->unavailable++;
        return 1;
    }
    if (strcmp(p->status, "ok") || isnan(p->watts)) {
        c->error++;
        return 1;
    }
    if (!isfinite(p->watts) || p->watts < 0 || p->watts > WC_TRUTH_MAX_WATTS ||
        !isfinite(p->window_s) || p->window_s < 0 || p->window_s > WC_TRUTH_MAX_WINDOW_S ||
        p->t_ns < lo_ns || p->t_ns > hi_ns) {
        c->invalid++;
        return 1;
    }
    return 0;
}

/* 1 when poll p (stated window w) re-serves the reading last: the same value
 * and window, no device timestamp, a window longer than the poll spacing and
 * still inside it (cases/B22). */
static int is_repeat(const wc_truth_reading *last, const wc_truth_poll_row *p, double w,
                     double poll_spacing_ns)
{
    if (!last || w <= 0 || p->device_ts_ns != 0)
        return 0;
    double since_first_s = (double)(p->t_ns - last->t_ns) / 1e9;
    return last->watts == p->watts && last->window_s == w && w * 1e9 > 1.5 * poll_spacing_ns &&
           since_first_s < w;
}

/* The reading of poll i of p: the interval it averages is its stated window
 * w, else the time since the previous poll (at most 3 poll spacings; after a
 * gap, one spacing). */
static void make_reading(const wc_truth_poll_row *p, size_t i, double w, int64_t lo_ns,
                         double poll_spacing_ns, wc_truth_reading *r)
{
    r->t_ns = p[i].t_ns;
    r->watts = p[i].watts;
    r->window_s = w;
    r->window_known = w > 0;
    r->b_ns = p[i].t_ns;
    if (w > 0) {
        r->a_ns = r->b_ns - (int64_t)(w * 1e9);
        return;
    }
    int64_t prev_t = i > 0 && p[i - 1].t_ns >= lo_ns ? p[i - 1].t_ns : p[i].t_ns;
    int64_t span = p[i].t_ns - prev_t;
    if (i == 0 || span <= 0 || (double)span > 3.0 * poll_spacing_ns)
        span = (int64_t)poll_spacing_ns;
    r->a_ns = r->b_ns - span;
}

/* Median spacing of the increasing polls inside [lo, hi], ns. */
static double poll_spacing(const wc_truth_poll_row *p, size_t np, int64_t lo_ns, int64_t hi_ns,
                           double *scratch)
{
    size_t nsp = 0;
    for (size_t i = 1; i < np; i++)
        if (p[i].t_ns > p[i - 1].t_ns && p[i - 1].t_ns >= lo_ns && p[i].t_ns <= hi_ns)
            scratch[nsp++] = (double)(p[i].t_ns - p[i - 1].t_ns);
    return median_of(scratch, nsp);
}

/* The median spacing of the readings and the median of their stated windows. */
static void reading_medians(wc_truth_series *t, double *scratch)
{
    size_t nsp = 0;
    for (size_t i = 1; i < t->n; i++)
        scratch[nsp++] = (double)(t->r[i].t_ns - t->r[i - 1].t_ns);
    t->median_spacing_s = median_of(scratch, nsp) / 1e9;
    nsp = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->r[i].window_known)
            scratch[nsp++] = t->r[i].window_s;
    t->median_window_s = median_of(scratch, nsp);
}

/* Turns the polls of one source into fresh readings (see wc_truth_series_load). */
static int build_readings(const wc_truth_poll_row *p, size_t np, int64_t lo_ns, int64_t hi_ns,
                          wc_truth_series *t)
{
    t->r = calloc(np ? np : 1, sizeof *t->r);
    double *scratch = malloc((np ? np : 1) * sizeof *scratch);
    if (!t->r || !scratch) {
        free(scratch);
        return -ENOMEM;
    }
    double poll_spacing_ns = poll_spacing(p, np, lo_ns, hi_ns, scratch);
    long last_used = -1;     /* index in t->r */
    for (size_t i = 0; i < np; i++) {
        t->counts.polls++;
        if (poll_rejected(&p[i], lo_ns, hi_ns, &t->counts))
            continue;
        double w = p[i].window_known && p[i].window_s > 0 ? p[i].window_s : 0;
        if (is_repeat(last_used >= 0 ? &t->r[last_used] : NULL, &p[i], w, poll_spacing_ns)) {
            t->counts.repeats++;
            continue;
        }
        make_reading(p, i, w, lo_ns, poll_spacing_ns, &t->r[t->n]);
        if (w > 0)
            t->any_window_known = 1;
        last_used = (long)t->n;
        t->n++;
        t->counts.used++;
    }
    reading_medians(t, scratch);
    free(scratch);
    return 0;
}

/* The first max sources (id, spec, kind, provenance) into out, zeroed first.
 * Returns their count or < 0 with err. */
static int load_sources(wc_store *st, wc_truth_series *out, size_t max, wc_error *err)
{
    wc_truth_source_row *src = malloc((max ? max : 1) * sizeof *src);
    if (!src)
        return wc_error_set(err, -ENOMEM, "out of memory reading ground truth");
    size_t n = 0;
    int rc = wc_store_truth_sources(st, src, max, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        wc_truth_series *t = &out[i];
        memset(t, 0, sizeof *t);
        t->source_id = src[i].id;
        WC_STORE_COPY_TEXT(t->spec, src[i].spec);
        WC_STORE_COPY_TEXT(t->kind, src[i].kind);
        WC_STORE_COPY_TEXT(t->provenance, src[i].provenance);
    }
    free(src);
    return rc ? rc : (int)n;
}

int wc_truth_series_load(wc_store *st, const wc_timebase *tb, wc_truth_series *out, size_t max,
                         wc_error *err)
{
    int rc = load_sources(st, out, max, err);
    if (rc < 0)
        return rc;
    size_t n = (size_t)rc;
    rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        wc_truth_poll_row *p = NULL;
        size_t np = 0;
        rc = wc_store_truth_polls(st, out[i].source_id, &p, &np, err);
        /* readings may precede or follow the ticks (a wall-meter log), by a day at most */
        int64_t lo = tb->mono_ns[0] - WC_TRUTH_MAX_OUTSIDE_NS;
        int64_t hi = tb->mono_ns[tb->n - 1] + WC_TRUTH_MAX_OUTSIDE_NS;
        if (!rc && build_readings(p, np, lo, hi, &out[i]))
            rc = wc_error_set(err, -ENOMEM, "out of memory reading ground truth");
        free(p);
    }
    if (rc) {
        for (size_t i = 0; i < n; i++)
            wc_truth_series_free(&out[i]);
        return rc;
    }
    return (int)n;
}

void wc_truth_series_free(wc_truth_series *t)
{
    free(t->r);
    t->r = NULL;
    t->n = 0;
}
