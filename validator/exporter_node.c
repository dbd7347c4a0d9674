/*
 * exporter_node.c — the exporter's node energy per zone and its platform
 * power as node sources of the accuracy analysis (exporter_report.h).
 *
 * Per zone, kepler_node_cpu_joules_total is the raw meter counter: only its
 * deltas mean anything. Between two scrapes: a rise is energy; a fall at an
 * exporter restart (exporter_data.h) is a reset, so that interval is a gap;
 * any other fall is a wrap, bridged by Δactive + Δidle of the zone (Kepler
 * splits each counter delta into the two, and they never wrap). The
 * cumulative at the scrapes is then resampled onto the run's ticks (linear
 * inside a scrape interval), so lag, windows and statistics are validate's.
 * Zones overlap (package contains core): package and psys are scored alone;
 * a non-package zone alone (dram, core, uncore) is no node total, so it is
 * not scored against the wall: dram is scored inside "package+dram", the
 * node total the meter source uses (accuracy.c), and the note says so.
 * kepler_platform_watts (a gauge) is held over the interval since
 * the previous scrape and integrated.
 */
#include "validator/exporter_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_text.h"

size_t wc_xp_zone_values(const wc_xp_data *d, const char *level, const char *quantity,
                         const char *zone, double *val, unsigned char *present)
{
    size_t found = 0;
    for (size_t k = 0; k < d->nscrapes; k++) {
        val[k] = 0;
        present[k] = 1;
    }
    for (size_t i = 0; i < d->nseries; i++) {
        const wc_xp_series *s = &d->series[i];
        /* node series: the CPU's only (GPU zones are their own); platform
         * power has no device */
        if (!wc_xp_is(s, level, quantity, zone) ||
            (!strcmp(level, "node") && strcmp(s->row.device, "cpu")))
            continue;
        found++;
        size_t j = 0;
        for (size_t k = 0; k < d->nscrapes; k++) {
            while (j < s->n && s->scrape[j] < k)
                j++;
            if (j < s->n && s->scrape[j] == k && isfinite(s->v[j]))
                val[k] += s->v[j];
            else
                present[k] = 0;
        }
    }
    if (!found)
        memset(present, 0, d->nscrapes);
    return found;
}

/* Whether a restart lies in scrapes (p, k]. */
static int restart_between(const wc_xp_data *d, size_t p, size_t k)
{
    for (size_t i = p + 1; i <= k; i++)
        if (d->restart[i])
            return 1;
    return 0;
}

/* Work arrays of wc_xp_zone_energy. */
typedef struct zone_arrays {
    double *tot, *act, *idl;
    unsigned char *pt, *pa, *pi;
} zone_arrays;

/* The delta (J) of the zone's raw counter from scrape p to k, NAN when not
 * known; counts a wrap or a reset. */
static double zone_delta(const wc_xp_data *d, const zone_arrays *z, size_t p, size_t k,
                         size_t *wraps, size_t *resets)
{
    if (restart_between(d, p, k)) {
        (*resets)++;
        return NAN;
    }
    if (z->tot[k] >= z->tot[p])
        return z->tot[k] - z->tot[p];
    (*wraps)++;
    if (z->pa[p] && z->pa[k] && z->pi[p] && z->pi[k] && z->act[k] >= z->act[p] &&
        z->idl[k] >= z->idl[p])
        return (z->act[k] - z->act[p]) + (z->idl[k] - z->idl[p]);
    return NAN;
}

/* Fills cum/okseg from the zone arrays. */
static void zone_cumulate(const wc_xp_data *d, const zone_arrays *z, double *cum,
                          unsigned char *okseg, size_t *wraps, size_t *resets)
{
    long prev = -1;
    double c = 0;
    for (size_t k = 0; k < d->nscrapes; k++) {
        okseg[k] = 0;
        if (!z->pt[k]) {
            cum[k] = c;
            continue;
        }
        if (prev >= 0) {
            double dj = zone_delta(d, z, (size_t)prev, k, wraps, resets);
            int ok = isfinite(dj);
            c += ok ? dj : 0;
            for (size_t i = (size_t)prev; i < k; i++)
                okseg[i] = (unsigned char)ok;
        }
        cum[k] = c;
        prev = (long)k;
    }
}

int wc_xp_zone_energy(const wc_xp_data *d, const char *zone, double *cum, unsigned char *okseg,
                      size_t *wraps, size_t *resets)
{
    size_t n = d->nscrapes ? d->nscrapes : 1;
    zone_arrays z = {calloc(n, sizeof(double)), calloc(n, sizeof(double)),
                     calloc(n, sizeof(double)), calloc(n, 1), calloc(n, 1), calloc(n, 1)};
    int rc = z.tot && z.act && z.idl && z.pt && z.pa && z.pi ? 0 : -ENOMEM;
    if (!rc && !wc_xp_zone_values(d, "node", "joules", zone, z.tot, z.pt))
        rc = -ENOENT;
    if (!rc) {
        wc_xp_zone_values(d, "node", "active_joules", zone, z.act, z.pa);
        wc_xp_zone_values(d, "node", "idle_joules", zone, z.idl, z.pi);
        zone_cumulate(d, &z, cum, okseg, wraps, resets);
    }
    free(z.tot);
    free(z.act);
    free(z.idl);
    free(z.pt);
    free(z.pa);
    free(z.pi);
    return rc;
}

/* The platform power integrated per scrape (J): w[k] held over (k−1, k]. */
static int platform_energy(const wc_xp_data *d, double *cum, unsigned char *okseg)
{
    unsigned char *p = calloc(d->nscrapes ? d->nscrapes : 1, 1);
    double *w = calloc(d->nscrapes ? d->nscrapes : 1, sizeof *w);
    int rc = p && w ? 0 : -ENOMEM;
    if (!rc && !wc_xp_zone_values(d, "platform", "watts", NULL, w, p))
        rc = -ENOENT;
    double c = 0;
    for (size_t k = 0; !rc && k < d->nscrapes; k++) {
        okseg[k] = k + 1 < d->nscrapes && p[k + 1] && p[k];
        if (k && p[k] && p[k - 1])
            c += w[k] * (double)(d->scrapes[k].resp_mono_ns - d->scrapes[k - 1].resp_mono_ns) / 1e9;
        cum[k] = c;
    }
    free(p);
    free(w);
    return rc;
}

/* Resamples a cumulative at the scrapes onto the run's ticks: out->cum[j]
 * interpolated, out->ok[j] when (t_j, t_j+1] lies inside known scrape
 * segments and the tick interval is usable. Returns 0 or -ENOMEM. */
static int resample(const wc_xp_data *d, const double *cum, const unsigned char *okseg,
                    const wc_timebase *tb, wc_cumseries *out)
{
    memset(out, 0, sizeof *out);
    out->n = tb->n;
    out->t_ns = tb->mono_ns;
    out->cum = calloc(tb->n, sizeof *out->cum);
    out->ok = calloc(tb->n, 1);
    if (!out->cum || !out->ok) {
        wc_cumseries_free(out);
        return -ENOMEM;
    }
    size_t k = 0;
    for (size_t j = 0; j < tb->n; j++) {
        int64_t t = tb->mono_ns[j];
        while (k + 1 < d->nscrapes && d->scrapes[k + 1].resp_mono_ns < t)
            k++;
        int64_t a = d->scrapes[k].resp_mono_ns;
        int64_t b = k + 1 < d->nscrapes ? d->scrapes[k + 1].resp_mono_ns : a;
        /* held at the first scrape's value before it, never extrapolated */
        double f = b > a && t > a ? (double)(t - a) / (double)(b - a) : 0;
        out->cum[j] = k + 1 < d->nscrapes ? cum[k] + f * (cum[k + 1] - cum[k]) : cum[k];
        out->ok[j] = t >= a && t <= b && b > a && okseg[k];
    }
    for (size_t j = 0; j + 1 < tb->n; j++)
        out->ok[j] = out->ok[j] && out->ok[j + 1] && tb->ok[j];
    out->ok[tb->n - 1] = 0;
    return 0;
}

/* The energy of "package+dram" (PAIR_ZONES): each part's cumulative summed,
 * a segment known where both are. Wraps are counted for dram only (package
 * is its own source and counts its own). Returns 0, -ENOENT, -ENOMEM. */
static int pair_energy(const wc_xp_data *d, double *cum, unsigned char *okseg, size_t *wraps)
{
    size_t n = d->nscrapes ? d->nscrapes : 1, resets = 0, pkg_wraps = 0;
    double *c2 = calloc(n, sizeof *c2);
    unsigned char *ok2 = calloc(n, 1);
    int rc = c2 && ok2 ? 0 : -ENOMEM;
    if (!rc)
        rc = wc_xp_zone_energy(d, "package", cum, okseg, &pkg_wraps, &resets);
    if (!rc)
        rc = wc_xp_zone_energy(d, "dram", c2, ok2, wraps, &resets);
    for (size_t k = 0; !rc && k < d->nscrapes; k++) {
        cum[k] += c2[k];
        okseg[k] = okseg[k] && ok2[k];
    }
    free(c2);
    free(ok2);
    return rc;
}

#define PAIR_ZONES "package+dram"

/* Adds one source (zone NULL: platform; PAIR_ZONES: the sum). Returns 0,
 * -ENOENT (no series), -ENOMEM. */
static int add_one(const wc_xp_data *d, const char *zone, wc_accuracy_report *acc, wc_xp_one *x)
{
    size_t n = d->nscrapes;
    double *cum = calloc(n, sizeof *cum);
    unsigned char *okseg = calloc(n, 1);
    int rc = cum && okseg ? 0 : -ENOMEM;
    size_t resets = 0; /* d->nrestarts says it once for every zone */
    if (!rc)
        rc = !zone                        ? platform_energy(d, cum, okseg)
           : !strcmp(zone, PAIR_ZONES) ? pair_energy(d, cum, okseg, &x->nwraps)
                                          : wc_xp_zone_energy(d, zone, cum, okseg, &x->nwraps, &resets);
    wc_acc_source src;
    memset(&src, 0, sizeof src);
    if (!rc)
        rc = resample(d, cum, okseg, &acc->tb, &src.series);
    free(cum);
    free(okseg);
    if (rc)
        return rc;
    const char *z = zone ? zone : "platform";
    wc_textf(src.name, sizeof src.name, "exporter#%lld:%s", (long long)d->info.id, z);
    wc_textf(src.provenance, sizeof src.provenance, "%s", d->info.provenance);
    wc_textf(src.description, sizeof src.description, "%s, %s %s, node %s: %s", d->info.provenance,
             zone ? "node zone" : "platform power", z, d->info.node[0] ? d->info.node : "?",
             !zone ? "kepler_platform_watts integrated"
                   : strchr(zone, '+') ? "sum of the zones' kepler_node_cpu_joules_total deltas"
                                       : "kepler_node_cpu_joules_total deltas");
    rc = wc_accuracy_add_source(acc, &src);
    if (rc) {
        wc_cumseries_free(&src.series);
        return rc;
    }
    x->source_index[x->nsources] = (int)acc->nsources - 1;
    wc_textf(x->source_zone[x->nsources++], sizeof x->source_zone[0], "%s", z);
    return 0;
}

/* Whether the exporter has a node energy series of zone z. */
static int has_zone(const wc_xp_data *d, const char *z)
{
    for (size_t i = 0; i < d->nseries; i++)
        if (wc_xp_is(&d->series[i], "node", "joules", z) && !strcmp(d->series[i].row.device, "cpu"))
            return 1;
    return 0;
}

/* The node zones the exporter reports, the usual ones first in ORDER, then
 * the others as they come (at most max into zones); *total counts them all. */
static size_t node_zones(const wc_xp_data *d, char zones[][32], size_t max, size_t *total)
{
    static const char *const ORDER[] = {"package", "psys", "dram", "core", "uncore", NULL};
    char seen[64][32];
    size_t n = 0;
    for (size_t o = 0; ORDER[o]; o++)
        if (has_zone(d, ORDER[o]))
            wc_textf(seen[n++], 32, "%s", ORDER[o]);
    for (size_t i = 0; i < d->nseries && n < 64; i++) {
        const wc_xp_series *s = &d->series[i];
        if (!wc_xp_is(s, "node", "joules", NULL) || strcmp(s->row.device, "cpu"))
            continue;
        int dup = 0;
        for (size_t j = 0; j < n; j++)
            dup |= !strcmp(seen[j], s->row.zone);
        if (!dup)
            wc_textf(seen[n++], 32, "%s", s->row.zone);
    }
    for (size_t i = 0; i < n && i < max; i++)
        memcpy(zones[i], seen[i], 32);
    *total = n;
    return n < max ? n : max;
}

/* Whether zone z alone is a node total worth scoring against the wall:
 * package and psys are; dram, core, uncore (a part of the node) are not. */
static int scored_alone(const char *z)
{
    return !strcmp(z, "package") || !strcmp(z, "psys");
}

/* Keeps in zones[0..nz) those scored alone, then PAIR_ZONES when the exporter
 * has package and dram; names the zones left out in x->sources_note. Returns
 * the new count. */
static size_t scored_zones(const wc_xp_data *d, char zones[][32], size_t nz, wc_xp_one *x)
{
    char out[256] = "";
    size_t used = 0, k = 0, nout = 0;
    for (size_t i = 0; i < nz; i++) {
        if (scored_alone(zones[i]))
            memmove(zones[k++], zones[i], 32);
        else
            wc_append(out, sizeof out, &used, "%s%.31s", nout++ ? ", " : "", zones[i]);
    }
    int pair = has_zone(d, "package") && has_zone(d, "dram");
    if (pair)
        wc_textf(zones[k++], 32, "%s", PAIR_ZONES);
    if (nout) {
        size_t l = strlen(x->sources_note);
        wc_textf(x->sources_note + l, sizeof x->sources_note - l,
                 "%s%.60s not scored alone: a part of the node is no wall estimate%s", l ? "; " : "", out,
                 pair ? " (package+dram is)" : "");
    }
    return k;
}

int wc_xp_add_sources(const wc_xp_data *d, wc_accuracy_report *acc, wc_xp_one *x,
                      wc_error *err)
{
    char zones[WC_XP_MAX_ZONES][32];
    size_t total = 0, nz = node_zones(d, zones, WC_XP_MAX_ZONES - 1, &total);
    if (total > nz)
        wc_textf(x->sources_note, sizeof x->sources_note,
                 "%zu of its %zu node zones considered (at most %d per exporter, platform aside)", nz,
                 total, WC_XP_MAX_ZONES - 1);
    nz = scored_zones(d, zones, nz, x);
    for (size_t i = 0; i <= nz && d->nscrapes >= 2; i++) {
        int rc = add_one(d, i < nz ? zones[i] : NULL, acc, x);
        if (rc == -ENOMEM)
            return wc_error_set(err, rc, "out of memory for exporter %lld's node series",
                                (long long)d->info.id);
    }
    return 0;
}
