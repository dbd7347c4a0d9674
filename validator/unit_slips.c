/*
 * unit_slips.c — unit-slip warnings of a recorded run (unit_slips.h): the
 * mean power of every zone name, from the gap report's meter energy for
 * counters and from the stored values for gauges, checked against what a
 * node can draw and against each other (the platform covers the package).
 */
#include "validator/unit_slips.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "collector/store/store_read.h"

#define MAX_POWERS (2 * WC_GAP_MAX_ZONES)

/* The mean power of one zone name over the run. */
typedef struct zone_power {
    char zone[32];
    double total_w;          /* summed over its instances (sockets) */
    double per_instance_w;
} zone_power;

typedef struct powers {
    zone_power z[MAX_POWERS];
    size_t n;
} powers;

/* Appends one warning (dropped when full). */
static void add(wc_unit_slips *o, const char *fmt, ...)
{
    if (o->n >= WC_SLIP_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->msg[o->n++], sizeof o->msg[0], fmt, ap);
    va_end(ap);
}

static int is_platform(const char *zone)
{
    return !strcmp(zone, "psys") || !strcmp(zone, "platform");
}

static void put(powers *p, const char *zone, double total_w, double per_w)
{
    if (p->n >= MAX_POWERS)
        return;
    zone_power *z = &p->z[p->n++];
    snprintf(z->zone, sizeof z->zone, "%s", zone);
    z->total_w = total_w;
    z->per_instance_w = per_w;
}

/* Counter zones: meter energy over the seconds it was measured in. */
static void counter_powers(const wc_gap_report *g, powers *p)
{
    for (size_t i = 0; i < g->nzones; i++) {
        const wc_gap_zone *z = &g->zones[i];
        if (!(z->meter_seconds > 0) || z->meter_instances <= 0)
            continue;
        double per = z->meter_joules / z->meter_seconds;
        put(p, z->zone, per * z->meter_instances, per);
    }
}

/* One gauge zone name: the mean of each instance's readings (µW), summed. */
static int gauge_power(wc_store *st, const char *name, powers *p, wc_error *err)
{
    const char *names[2] = {name, NULL};
    wc_store_iter *it = NULL;
    int rc = wc_store_zone_samples_open(st, WC_KIND_GAUGE_UW, names, &it, err);
    if (rc)
        return rc;
    int64_t zone = -1;
    double sum = 0, total = 0;
    int64_t count = 0, instances = 0;
    wc_zone_sample r;
    while ((rc = wc_store_zone_sample_next(it, &r, err)) == 1) {
        if (r.zone_id != zone) {
            total += count ? sum / (double)count : 0;
            instances += count > 0;
            zone = r.zone_id, sum = 0, count = 0;
        }
        if (r.status == 0 && r.type != WC_VALUE_OTHER && isfinite(r.value_real))
            sum += r.value_real / 1e6, count++;
    }
    wc_store_iter_close(it);
    total += count ? sum / (double)count : 0;
    instances += count > 0;
    if (!rc && instances)
        put(p, name, total, total / (double)instances);
    return rc;
}

/* Every gauge zone name of the run. */
static int gauge_powers(wc_store *st, powers *p, wc_error *err)
{
    char names[WC_GAP_MAX_ZONES][32];
    size_t n = 0;
    wc_store_iter *it = NULL;
    int rc = wc_store_zone_names_open(st, WC_KIND_GAUGE_UW, &it, err);
    const char *t = NULL;
    while (!rc && n < WC_GAP_MAX_ZONES && (rc = wc_store_text_next(it, &t, err)) == 1) {
        rc = 0;
        if (t)
            snprintf(names[n++], sizeof names[0], "%s", t);
    }
    wc_store_iter_close(it);
    for (size_t i = 0; !rc && i < n; i++)
        rc = gauge_power(st, names[i], p, err);
    return rc;
}

/* The package zones' total power (the first package entry: counters come
 * before gauges), NAN when the run has none. */
static double package_w(const powers *p)
{
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->z[i].zone, "package"))
            return p->z[i].total_w;
    return NAN;
}

static void check_one(const zone_power *z, double package, wc_unit_slips *o)
{
    if (is_platform(z->zone) && package > 0 &&
        z->total_w < package * (1 - WC_SLIP_PLATFORM_TOLERANCE)) {
        double ratio = z->total_w > 0 ? package / z->total_w : INFINITY;
        if (ratio >= 100)
            add(o, "platform zone %s averages %.4g W, %.0fx below the package's %.4g W it covers:"
                   " a 1000x unit slip (W added to a mJ sum, or mW read as W: kepler#1466)",
                z->zone, z->total_w, ratio, package);
        else
            add(o, "platform zone %s averages %.4g W, below the package's %.4g W it covers:"
                   " check its unit and which zones it includes", z->zone, z->total_w, package);
    }
    if (z->per_instance_w > WC_SLIP_LARGE_W)
        add(o, "zone %s averages %.6g W per zone, implausibly large for a node: a 1000x unit"
               " slip (uW read as mW: kepler#1774)?", z->zone, z->per_instance_w);
    else if ((is_platform(z->zone) || !strcmp(z->zone, "package")) && z->total_w > 0 &&
             z->per_instance_w < WC_SLIP_SMALL_W)
        add(o, "zone %s averages %.4g W per zone, implausibly small for a node: a 1000x unit"
               " slip (mW read as W, mJ summed as J)?", z->zone, z->per_instance_w);
}

int wc_unit_slips_check(wc_store *st, const wc_gap_report *gap, wc_unit_slips *out,
                        wc_error *err)
{
    memset(out, 0, sizeof *out);
    powers p;
    memset(&p, 0, sizeof p);
    counter_powers(gap, &p);
    int rc = gauge_powers(st, &p, err);
    if (rc)
        return rc;
    double package = package_w(&p);
    for (size_t i = 0; i < p.n; i++)
        check_one(&p.z[i], package, out);
    return 0;
}
