/*
 * exporter_interval.c — the exporter's refresh interval as its own numbers
 * show it (exporter_data.h: wc_xp_refresh_interval). Kepler exports no
 * setting for it (no config or interval series in any catalogue of
 * ../shared/fixtures/corpus/kepler-metrics/), but its node counters only
 * move when it recomputes: every monitor.interval, or at a scrape once its
 * snapshot is older than staleness. The spacing of those moves, as the
 * scrapes saw them, is its interval — bounded below by the scrape interval.
 */
#include "validator/exporter_data.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Σ of the node active counters (every CPU zone) at scrape k into v;
 * returns 0 when some series has no finite sample there. */
static int active_at(const wc_xp_data *d, size_t k, double *v)
{
    size_t found = 0;
    *v = 0;
    for (size_t i = 0; i < d->nseries; i++) {
        const wc_xp_series *s = &d->series[i];
        if (!wc_xp_is(s, "node", "active_joules", NULL) || strcmp(s->row.device, "cpu"))
            continue;
        long j = wc_xp_at(s, k);
        if (j < 0 || !isfinite(s->v[j]))
            return 0;
        *v += s->v[j];
        found++;
    }
    return found > 0;
}

/* The median of x[n] (sorted in place). */
static double median(double *x, size_t n)
{
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}

int wc_xp_refresh_interval(const wc_xp_data *d, wc_xp_refresh *out)
{
    memset(out, 0, sizeof *out);
    out->interval_s = out->scrape_s = NAN;
    double *gap = malloc((d->nscrapes ? d->nscrapes : 1) * sizeof *gap);
    double *sg = malloc((d->nscrapes ? d->nscrapes : 1) * sizeof *sg);
    if (!gap || !sg) {
        free(gap);
        free(sg);
        return -ENOMEM;
    }
    size_t ng = 0, ns = 0;
    long last_change = -1, prev = -1;
    double prev_v = 0;
    for (size_t k = 0; k < d->nscrapes; k++) {
        double v;
        if (!active_at(d, k, &v))
            continue;
        if (prev >= 0 && !d->restart[k]) {
            out->compared++;
            sg[ns++] = (double)(d->scrapes[k].resp_mono_ns - d->scrapes[prev].resp_mono_ns) / 1e9;
            if (v != prev_v) {
                out->changes++;
                if (last_change >= 0)
                    gap[ng++] = (double)(d->scrapes[k].resp_mono_ns -
                                         d->scrapes[last_change].resp_mono_ns) / 1e9;
                last_change = (long)k;
            }
        }
        prev = (long)k;
        prev_v = v;
    }
    if (ns)
        out->scrape_s = median(sg, ns);
    if (ng >= WC_XP_REFRESH_MIN - 1)
        out->interval_s = median(gap, ng);
    out->every_scrape = out->compared && out->changes * 10 >= out->compared * 9;
    free(gap);
    free(sg);
    return 0;
}
