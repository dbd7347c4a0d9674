/*
 * series.c — reads a run's meter, model, gauge, utilisation and ground-truth
 * series from the store onto its monotonic tick clock (see series.h).
 */
#include "validator/series.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "collector/meter/counter.h"

static int sql_fail(sqlite3 *db, wc_error *err, const char *what)
{
    return wc_error_set(err, -EIO, "validate: %s: %s", what, sqlite3_errmsg(db));
}

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

int wc_timebase_load(sqlite3 *db, wc_timebase *tb, wc_error *err)
{
    memset(tb, 0, sizeof *tb);
    sqlite3_stmt *s = NULL;
    int64_t count = 0;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM tick", -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "counting ticks");
    if (sqlite3_step(s) == SQLITE_ROW)
        count = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    if (count < 2)
        return wc_error_set(err, -ENODATA, "the run has %lld tick(s): no interval to score",
                            (long long)count);
    size_t cap = (size_t)count;
    tb->tick_id = malloc(cap * sizeof *tb->tick_id);
    tb->mono_ns = malloc(cap * sizeof *tb->mono_ns);
    tb->ok = calloc(cap, 1);
    int64_t *boot = malloc(cap * sizeof *boot);
    double *spacing = malloc(cap * sizeof *spacing);
    if (!tb->tick_id || !tb->mono_ns || !tb->ok || !boot || !spacing) {
        free(boot);
        free(spacing);
        wc_timebase_free(tb);
        return wc_error_set(err, -ENOMEM, "out of memory loading %lld ticks", (long long)count);
    }
    int rc = 0;
    if (sqlite3_prepare_v2(db, "SELECT id, mono_ns, COALESCE(boot_ns, 0) FROM tick ORDER BY id",
                           -1, &s, NULL) != SQLITE_OK)
        rc = sql_fail(db, err, "reading ticks");
    while (!rc && tb->n < cap && sqlite3_step(s) == SQLITE_ROW) {
        tb->tick_id[tb->n] = sqlite3_column_int64(s, 0);
        tb->mono_ns[tb->n] = sqlite3_column_int64(s, 1);
        boot[tb->n] = sqlite3_column_int64(s, 2);
        tb->n++;
    }
    sqlite3_finalize(s);
    /* a monotonic clock never goes back, nor reads below 0 or centuries: a
     * run whose ticks do is corrupt */
    for (size_t i = 0; !rc && i < tb->n; i++)
        if (tb->mono_ns[i] < 0 || tb->mono_ns[i] > WC_SERIES_MAX_MONO_NS)
            rc = wc_error_set(err, -EINVAL, "tick %lld: mono_ns %lld is not a monotonic clock reading"
                              " (0 .. 2^62 ns): the run's clock is corrupt", (long long)tb->tick_id[i],
                              (long long)tb->mono_ns[i]);
    for (size_t i = 0; !rc && i + 1 < tb->n; i++)
        if (tb->mono_ns[i + 1] <= tb->mono_ns[i])
            rc = wc_error_set(err, -EINVAL,
                              "tick %lld: mono_ns %lld is not after the previous tick's %lld: the"
                              " run's monotonic clock is corrupt", (long long)tb->tick_id[i + 1],
                              (long long)tb->mono_ns[i + 1], (long long)tb->mono_ns[i]);
    size_t nsp = 0;
    for (size_t i = 0; !rc && i + 1 < tb->n; i++)
        spacing[nsp++] = (double)tb->mono_ns[i + 1] - (double)tb->mono_ns[i];
    tb->median_spacing_ns = (int64_t)median_of(spacing, nsp);
    for (size_t i = 0; !rc && i + 1 < tb->n; i++) {
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
    free(boot);
    free(spacing);
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
    size_t lo = 0, hi = tb->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tb->tick_id[mid] < tick_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < tb->n && tb->tick_id[lo] == tick_id) ? (long)lo : -1;
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

/* " IN (?,?,...)" for n names. */
static void in_list(char *buf, size_t cap, size_t n)
{
    size_t used = (size_t)snprintf(buf, cap, " IN (");
    for (size_t i = 0; i < n && used + 3 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, i ? ",?" : "?");
    snprintf(buf + used, cap - used, ")");
}

static size_t count_names(const char *const *names)
{
    size_t n = 0;
    while (names && names[n])
        n++;
    return n;
}

/* Prepares "<head> z.name IN (...) <tail>" with the names bound from index first. */
static int prepare_zone_query(sqlite3 *db, const char *head, const char *tail,
                              const char *const *zones, int first, sqlite3_stmt **s)
{
    char in[512], sql[1536];
    size_t nz = count_names(zones);
    in_list(in, sizeof in, nz);
    snprintf(sql, sizeof sql, "%s%s%s", head, in, tail);
    if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK)
        return -1;
    for (size_t i = 0; i < nz; i++)
        sqlite3_bind_text(*s, first + (int)i, zones[i], -1, SQLITE_STATIC);
    return 0;
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

int wc_series_meter(sqlite3 *db, const wc_timebase *tb, const char *const *zones,
                    wc_cumseries *out, size_t *nfound, wc_error *err)
{
    *nfound = 0;
    int rc = series_alloc(tb, out, err);
    if (rc)
        return rc;
    sqlite3_stmt *s = NULL;
    if (prepare_zone_query(db,
                           "SELECT zs.zone_id, zs.tick_id, zs.value, zs.status,"
                           " z.max_energy_range_uj FROM zone_sample zs JOIN zone z ON"
                           " z.id = zs.zone_id WHERE z.kind = 'counter_uj' AND z.name",
                           " ORDER BY zs.zone_id, zs.tick_id", zones, 1, &s)) {
        wc_cumseries_free(out);
        return sql_fail(db, err, "reading meter zones");
    }
    double *zc = malloc(tb->n * sizeof *zc);
    unsigned char *zok = malloc(tb->n);
    unsigned char *allok = malloc(tb->n);
    if (!zc || !zok || !allok) {
        sqlite3_finalize(s);
        free(zc);
        free(zok);
        free(allok);
        wc_cumseries_free(out);
        return wc_error_set(err, -ENOMEM, "out of memory");
    }
    memset(allok, 1, tb->n);
    zone_walk w = {.zone_id = -1, .last_idx = -1};
    int step;
    for (;;) {
        step = sqlite3_step(s);
        int64_t zid = step == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -2;
        if (zid != w.zone_id) {
            if (w.zone_id != -1) { /* close the previous zone */
                zone_fill(&w, zc, (long)tb->n);
                for (size_t i = 0; i < tb->n; i++) {
                    out->cum[i] += zc[i];
                    allok[i] = allok[i] && zok[i];
                }
                (*nfound)++;
            }
            if (step != SQLITE_ROW)
                break;
            w = (zone_walk){.zone_id = zid, .last_idx = -1};
            memset(zok, 0, tb->n);
        }
        long i = wc_timebase_index(tb, sqlite3_column_int64(s, 1));
        if (i < 0 || i < w.filled)
            continue;
        zone_fill(&w, zc, i);
        /* a counter is an integer: NULL or any other type is a failed read */
        int good = sqlite3_column_int(s, 3) == 0 && sqlite3_column_type(s, 2) == SQLITE_INTEGER;
        if (!good) {
            if (sqlite3_column_int(s, 3) == -ENOENT)
                w.last_idx = -1; /* the zone vanished (cases/B25): new baseline */
            zc[i] = w.cum_j;
            w.filled = i + 1;
            continue;
        }
        uint64_t v = (uint64_t)sqlite3_column_int64(s, 2);
        if (w.last_idx >= 0) {
            uint64_t d = 0;
            wc_delta_status st =
                wc_counter_delta(w.last_value, v, (uint64_t)sqlite3_column_int64(s, 4),
                                 tb->mono_ns[i] - tb->mono_ns[w.last_idx], 0, &d);
            if (wc_delta_usable(st)) {
                w.cum_j += (double)d / 1e6;
                /* Only a tick-to-tick interval is usable for windows; across a
                 * failed read the energy counts for totals only. */
                if (i == w.last_idx + 1)
                    zok[w.last_idx] = 1;
            }
        }
        w.last_idx = i;
        w.last_value = v;
        zc[i] = w.cum_j;
        w.filled = i + 1;
    }
    rc = step == SQLITE_DONE ? 0 : sql_fail(db, err, "reading meter zones");
    sqlite3_finalize(s);
    for (size_t i = 0; i < tb->n; i++)
        out->ok[i] = *nfound ? allok[i] : 0;
    free(zc);
    free(zok);
    free(allok);
    if (rc) {
        wc_cumseries_free(out);
        return rc;
    }
    series_finish(tb, out);
    return 0;
}

int wc_series_gauge(sqlite3 *db, const wc_timebase *tb, const char *const *zones,
                    wc_cumseries *out, size_t *nfound, wc_error *err)
{
    *nfound = 0;
    int rc = series_alloc(tb, out, err);
    if (rc)
        return rc;
    sqlite3_stmt *s = NULL;
    if (prepare_zone_query(db,
                           "SELECT zs.zone_id, zs.tick_id, zs.value, zs.status FROM zone_sample zs"
                           " JOIN zone z ON z.id = zs.zone_id WHERE z.kind = 'gauge_uw' AND z.name",
                           " ORDER BY zs.zone_id, zs.tick_id", zones, 1, &s)) {
        wc_cumseries_free(out);
        return sql_fail(db, err, "reading gauge zones");
    }
    double *inc = calloc(tb->n, sizeof *inc);
    unsigned char *have = calloc(tb->n, 1), *allok = malloc(tb->n);
    if (!inc || !have || !allok) {
        sqlite3_finalize(s);
        free(inc);
        free(have);
        free(allok);
        wc_cumseries_free(out);
        return wc_error_set(err, -ENOMEM, "out of memory");
    }
    memset(allok, 1, tb->n);
    int64_t cur = -1;
    int step;
    for (;;) {
        step = sqlite3_step(s);
        int64_t zid = step == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -2;
        if (zid != cur) {
            if (cur != -1) {
                for (size_t i = 0; i + 1 < tb->n; i++)
                    allok[i] = allok[i] && have[i + 1];
                (*nfound)++;
            }
            if (step != SQLITE_ROW)
                break;
            cur = zid;
            memset(have, 0, tb->n);
        }
        long i = wc_timebase_index(tb, sqlite3_column_int64(s, 1));
        int type = sqlite3_column_type(s, 2);
        if (i <= 0 || sqlite3_column_int(s, 3) != 0 || (type != SQLITE_INTEGER && type != SQLITE_FLOAT))
            continue;
        /* The value describes the interval since the previous tick. */
        double watts = sqlite3_column_double(s, 2) / 1e6;
        inc[i] += watts * (double)(tb->mono_ns[i] - tb->mono_ns[i - 1]) / 1e9;
        have[i] = 1;
    }
    rc = step == SQLITE_DONE ? 0 : sql_fail(db, err, "reading gauge zones");
    sqlite3_finalize(s);
    for (size_t i = 0; i < tb->n; i++) {
        out->cum[i] = (i ? out->cum[i - 1] : 0) + inc[i];
        out->ok[i] = *nfound ? allok[i] : 0;
    }
    free(inc);
    free(have);
    free(allok);
    if (rc) {
        wc_cumseries_free(out);
        return rc;
    }
    series_finish(tb, out);
    return 0;
}

int wc_series_model_node(sqlite3 *db, const wc_timebase *tb, int64_t model_id,
                         const char *const *zones, wc_cumseries *out, size_t *nfound,
                         wc_error *err)
{
    *nfound = 0;
    int rc = series_alloc(tb, out, err);
    if (rc)
        return rc;
    sqlite3_stmt *s = NULL;
    if (prepare_zone_query(db,
                           "SELECT tick_id, delta_uj, flags, zone FROM node_attr z WHERE"
                           " model_id = ?1 AND z.zone",
                           " ORDER BY tick_id", zones, 2, &s)) {
        wc_cumseries_free(out);
        return sql_fail(db, err, "reading the model's node energy");
    }
    sqlite3_bind_int64(s, 1, model_id);
    double *inc = calloc(tb->n, sizeof *inc);
    unsigned *flags = calloc(tb->n, sizeof *flags);
    unsigned char *seen = calloc(tb->n, 1);
    if (!inc || !flags || !seen) {
        sqlite3_finalize(s);
        free(inc);
        free(flags);
        free(seen);
        wc_cumseries_free(out);
        return wc_error_set(err, -ENOMEM, "out of memory");
    }
    char first_zone[WC_ATTR_ZONE_NAME_MAX] = "";
    size_t nz = 0;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        long i = wc_timebase_index(tb, sqlite3_column_int64(s, 0));
        if (i < 0)
            continue;
        double d = sqlite3_column_double(s, 1);
        if (d < 0) /* a uint64 stored with its bits (Kepler's underflow quirk) */
            d += 18446744073709551616.0;
        inc[i] += d / 1e6;
        flags[i] |= (unsigned)sqlite3_column_int(s, 2);
        seen[i] = 1;
        const char *z = (const char *)sqlite3_column_text(s, 3);
        if (z && !first_zone[0])
            snprintf(first_zone, sizeof first_zone, "%s", z);
        if (z && i == 0)
            nz++;
    }
    rc = step == SQLITE_DONE ? 0 : sql_fail(db, err, "reading the model's node energy");
    sqlite3_finalize(s);
    size_t any = 0;
    const unsigned bad = WC_AF_FIRST | WC_AF_REFRESH_FAILED | WC_AF_CPU_MISSING;
    for (size_t i = 0; i < tb->n; i++) {
        any += seen[i];
        out->cum[i] = (i ? out->cum[i - 1] : 0) + inc[i];
        if (i + 1 < tb->n) {
            /* segment i = the interval ending at tick i+1 */
            int ok = seen[i + 1] && !(flags[i + 1] & bad);
            if (i >= 1 && (flags[i] & WC_AF_REFRESH_FAILED))
                ok = 0; /* this ΔE spans the discarded refresh too */
            out->ok[i] = (unsigned char)ok;
        }
    }
    *nfound = any ? (nz ? nz : 1) : 0;
    free(inc);
    free(flags);
    free(seen);
    if (rc) {
        wc_cumseries_free(out);
        return rc;
    }
    series_finish(tb, out);
    return 0;
}

int wc_series_utilisation(sqlite3 *db, const wc_timebase *tb, wc_cumseries *out, int *found,
                          wc_error *err)
{
    *found = 0;
    int rc = series_alloc(tb, out, err);
    if (rc)
        return rc;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT id, cpu_user, cpu_nice, cpu_system, cpu_idle, cpu_iowait, cpu_irq,"
                           " cpu_softirq, cpu_steal, cpu_ok, util_pct FROM tick ORDER BY id",
                           -1, &s, NULL) != SQLITE_OK) {
        wc_cumseries_free(out);
        return sql_fail(db, err, "reading CPU utilisation");
    }
    uint64_t prev_busy = 0, prev_total = 0;
    int have_prev = 0, step;
    int64_t nproc = 0, nutil = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        long i = wc_timebase_index(tb, sqlite3_column_int64(s, 0));
        if (i < 0)
            continue;
        double dt = i > 0 ? (double)(tb->mono_ns[i] - tb->mono_ns[i - 1]) / 1e9 : 0;
        double frac = NAN;
        if (sqlite3_column_type(s, 10) != SQLITE_NULL) {
            frac = sqlite3_column_double(s, 10) / 100.0; /* imported: describes the interval */
            nutil++;
        } else if (sqlite3_column_int(s, 9)) {
            uint64_t f[8];
            for (int k = 0; k < 8; k++)
                f[k] = (uint64_t)sqlite3_column_int64(s, 1 + k);
            uint64_t total = 0;
            for (int k = 0; k < 8; k++)
                total += f[k];
            uint64_t busy = total - f[3] - f[4];
            if (have_prev && total > prev_total && busy >= prev_busy)
                frac = (double)(busy - prev_busy) / (double)(total - prev_total);
            prev_busy = busy;
            prev_total = total;
            have_prev = 1;
            nproc++;
        } else {
            have_prev = 0;
        }
        if (i > 0) {
            int ok = !isnan(frac) && frac >= 0 && frac <= 1.0 + 1e-9;
            out->cum[i] = out->cum[i - 1] + (ok ? frac * dt : 0);
            out->ok[i - 1] = (unsigned char)ok;
        }
    }
    rc = step == SQLITE_DONE ? 0 : sql_fail(db, err, "reading CPU utilisation");
    sqlite3_finalize(s);
    if (rc) {
        wc_cumseries_free(out);
        return rc;
    }
    *found = nproc > 1 || nutil > 0;
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

static void copy_col(char *dst, size_t cap, sqlite3_stmt *s, int col)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

/* One stored poll, as read. */
typedef struct truth_poll {
    int64_t t_ns, device_ts_ns;
    double watts, window_s;
    int window_known;
    char status[16];
} truth_poll;

/* Turns the polls of one source into fresh readings (see wc_truth_series_load). */
static int build_readings(const truth_poll *p, size_t np, int64_t lo_ns, int64_t hi_ns,
                          wc_truth_series *t)
{
    t->r = calloc(np ? np : 1, sizeof *t->r);
    double *spacing = malloc((np ? np : 1) * sizeof *spacing);
    if (!t->r || !spacing) {
        free(spacing);
        return -ENOMEM;
    }
    size_t nsp = 0;
    for (size_t i = 1; i < np; i++)
        if (p[i].t_ns > p[i - 1].t_ns && p[i - 1].t_ns >= lo_ns && p[i].t_ns <= hi_ns)
            spacing[nsp++] = (double)(p[i].t_ns - p[i - 1].t_ns);
    double poll_spacing_ns = median_of(spacing, nsp);
    long last_used = -1;     /* index in t->r */
    for (size_t i = 0; i < np; i++) {
        t->counts.polls++;
        if (!strcmp(p[i].status, "stale")) {
            t->counts.stale++;
            continue;
        }
        if (!strcmp(p[i].status, "unavailable")) {
            t->counts.unavailable++;
            continue;
        }
        if (strcmp(p[i].status, "ok") || isnan(p[i].watts)) {
            t->counts.error++;
            continue;
        }
        if (!isfinite(p[i].watts) || p[i].watts < 0 || p[i].watts > WC_TRUTH_MAX_WATTS ||
            !isfinite(p[i].window_s) || p[i].window_s < 0 || p[i].window_s > WC_TRUTH_MAX_WINDOW_S ||
            p[i].t_ns < lo_ns || p[i].t_ns > hi_ns) {
            t->counts.invalid++;
            continue;
        }
        double w = p[i].window_known && p[i].window_s > 0 ? p[i].window_s : 0;
        if (last_used >= 0 && w > 0 && p[i].device_ts_ns == 0) {
            const wc_truth_reading *prev = &t->r[last_used];
            double since_first_s = (double)(p[i].t_ns - prev->t_ns) / 1e9;
            if (prev->watts == p[i].watts && prev->window_s == w &&
                w * 1e9 > 1.5 * poll_spacing_ns && since_first_s < w) {
                t->counts.repeats++;
                continue;
            }
        }
        wc_truth_reading *r = &t->r[t->n];
        r->t_ns = p[i].t_ns;
        r->watts = p[i].watts;
        r->window_s = w;
        r->window_known = w > 0;
        r->b_ns = p[i].t_ns;
        if (w > 0) {
            r->a_ns = r->b_ns - (int64_t)(w * 1e9);
            t->any_window_known = 1;
        } else {
            /* Not stated: the reading describes the time since the previous poll,
             * at most 3 poll spacings (after a gap: one spacing). */
            int64_t prev_t = i > 0 && p[i - 1].t_ns >= lo_ns ? p[i - 1].t_ns : p[i].t_ns;
            int64_t span = p[i].t_ns - prev_t;
            if (i == 0 || span <= 0 || (double)span > 3.0 * poll_spacing_ns)
                span = (int64_t)poll_spacing_ns;
            r->a_ns = r->b_ns - span;
        }
        last_used = (long)t->n;
        t->n++;
        t->counts.used++;
    }
    nsp = 0;
    for (size_t i = 1; i < t->n; i++)
        spacing[nsp++] = (double)(t->r[i].t_ns - t->r[i - 1].t_ns);
    t->median_spacing_s = median_of(spacing, nsp) / 1e9;
    nsp = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->r[i].window_known)
            spacing[nsp++] = t->r[i].window_s;
    t->median_window_s = median_of(spacing, nsp);
    free(spacing);
    return 0;
}

static int load_polls(sqlite3 *db, int64_t source_id, truth_poll **out, size_t *np,
                      wc_error *err)
{
    *out = NULL;
    *np = 0;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT poll_mono_ns, watts, COALESCE(window_s, 0),"
                           " COALESCE(window_known, 0), status, COALESCE(device_ts_ns, 0)"
                           " FROM truth_sample WHERE source_id = ? ORDER BY poll_mono_ns, rowid",
                           -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading ground-truth samples");
    sqlite3_bind_int64(s, 1, source_id);
    size_t cap = 0;
    int step, rc = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (*np == cap) {
            size_t ncap = cap ? cap * 2 : 256;
            truth_poll *g = realloc(*out, ncap * sizeof *g);
            if (!g) {
                rc = wc_error_set(err, -ENOMEM, "out of memory reading ground truth");
                break;
            }
            *out = g;
            cap = ncap;
        }
        truth_poll *p = &(*out)[(*np)++];
        p->t_ns = sqlite3_column_int64(s, 0);
        p->watts = sqlite3_column_type(s, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 1);
        p->window_s = sqlite3_column_double(s, 2);
        p->window_known = sqlite3_column_int(s, 3);
        copy_col(p->status, sizeof p->status, s, 4);
        p->device_ts_ns = sqlite3_column_int64(s, 5);
    }
    if (!rc && step != SQLITE_DONE)
        rc = sql_fail(db, err, "reading ground-truth samples");
    sqlite3_finalize(s);
    if (rc) {
        free(*out);
        *out = NULL;
        *np = 0;
    }
    return rc;
}

int wc_truth_series_load(sqlite3 *db, const wc_timebase *tb, wc_truth_series *out, size_t max,
                         wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id, spec, kind, provenance FROM truth_source ORDER BY id",
                           -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading ground-truth sources");
    size_t n = 0;
    int rc = 0;
    while (n < max && sqlite3_step(s) == SQLITE_ROW) {
        wc_truth_series *t = &out[n];
        memset(t, 0, sizeof *t);
        t->source_id = sqlite3_column_int64(s, 0);
        copy_col(t->spec, sizeof t->spec, s, 1);
        copy_col(t->kind, sizeof t->kind, s, 2);
        copy_col(t->provenance, sizeof t->provenance, s, 3);
        n++;
    }
    sqlite3_finalize(s);
    for (size_t i = 0; i < n && !rc; i++) {
        truth_poll *p = NULL;
        size_t np = 0;
        rc = load_polls(db, out[i].source_id, &p, &np, err);
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
