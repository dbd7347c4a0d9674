/*
 * workload_bias.c — attributed energy of replayed workloads against their
 * isolated marginal energy, per zone, with bootstrap intervals
 * (workload_bias.h).
 */
#include "validator/workload_bias.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_read.h"
#include "collector/store/store_results.h"
#include "validator/series.h"

/* A workload's processes are those of its process group first seen from
 * FIRST_SEEN_BEFORE_NS before its phase starts (the sampler may catch a worker
 * a tick before the phase's start is stamped) to FIRST_SEEN_GRACE_NS after it
 * ends. */
#define FIRST_SEEN_BEFORE_NS 2000000000LL
#define FIRST_SEEN_GRACE_NS 10000000000LL

const char *wc_bias_zone_name(int z)
{
    static const char *const N[WC_BIAS_NZONES] = {"package", "dram", "package+dram"};
    return z >= 0 && z < WC_BIAS_NZONES ? N[z] : "?";
}

/* a + b clamped to the int64 range (phase bounds come from the file). */
static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* One phase of the run and what it held. */
typedef struct bphase {
    int64_t id, start_ns, end_ns, tick_lo, tick_hi;
    char name[64], cls[32];
    int repetition, nclasses;
    char wl_class[16];            /* the class when nclasses == 1 */
    double *rep[WC_BIAS_NZONES];  /* bootstrap replicates of the mean tick power */
    double mean_w[WC_BIAS_NZONES];
} bphase;

/* One workload row. */
typedef struct bwork {
    size_t phase;
    char cls[16];
    int64_t pgid;
    double true_cpu_s, seen_cpu_s;
    double attributed_j[WC_BIAS_NZONES];
} bwork;

typedef struct bctx {
    wc_store *st;
    int64_t model_id;
    wc_boot_cfg cfg;
    int reps;
    wc_timebase tb;
    wc_cumseries zone[WC_BIAS_NZONES];
    int have_zone[WC_BIAS_NZONES];
    bphase *ph;
    size_t nph;
    bwork *wl;
    size_t nwl;
    double *idle_rep[WC_BIAS_NZONES];
    double idle_mean[WC_BIAS_NZONES];
} bctx;

static int load_phases(bctx *c, wc_error *err)
{
    wc_phase_row *ph = NULL;
    size_t n = 0;
    int rc = wc_store_phases(c->st, WC_PHASES_WITH_TICKS, 0, &ph, &n, err);
    if (!rc && n && !(c->ph = calloc(n, sizeof *c->ph)))
        rc = wc_error_set(err, -ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        bphase *p = &c->ph[c->nph++];
        p->id = ph[i].id;
        WC_STORE_COPY_TEXT(p->name, ph[i].name);
        WC_STORE_COPY_TEXT(p->cls, ph[i].cls);
        p->repetition = ph[i].repetition;
        p->start_ns = ph[i].start_ns;
        p->end_ns = ph[i].end_ns;
        p->tick_lo = ph[i].tick_lo;
        p->tick_hi = ph[i].tick_hi;
    }
    free(ph);
    return rc;
}

static size_t phase_index(const bctx *c, int64_t id)
{
    for (size_t i = 0; i < c->nph; i++)
        if (c->ph[i].id == id)
            return i;
    return (size_t)-1;
}

/* CPU /proc sampling saw of a workload's processes (same process group,
 * first seen from the phase's first tick to 10 s after its end), CPU-s. */
static int seen_cpu(bctx *c, const bphase *p, int64_t pgid, double *out, wc_error *err)
{
    return wc_store_group_seen_cpu(c->st, pgid, sat_add(p->start_ns, -FIRST_SEEN_BEFORE_NS),
                                   sat_add(p->end_ns, FIRST_SEEN_GRACE_NS), out, err);
}

/* Energy the model gave a workload's processes in its phase, per zone. */
static int attributed(bctx *c, const bphase *p, int64_t pgid, double *out, wc_error *err)
{
    for (int z = 0; z < WC_BIAS_NZONES; z++)
        out[z] = 0;
    wc_store_iter *it = NULL;
    int rc = wc_store_group_energy_open(c->st, c->model_id, p->tick_lo, p->tick_hi, pgid,
                                        sat_add(p->start_ns, -FIRST_SEEN_BEFORE_NS),
                                        sat_add(p->end_ns, FIRST_SEEN_GRACE_NS), &it, err);
    if (rc)
        return rc;
    const char *z = NULL;
    double uj = 0;
    while ((rc = wc_store_zone_sum_next(it, &z, &uj, err)) == 1) {
        double j = uj / 1e6;
        if (z && !strcmp(z, "package"))
            out[WC_BIAS_PACKAGE] += j, out[WC_BIAS_NODE] += j;
        else if (z && !strcmp(z, "dram"))
            out[WC_BIAS_DRAM] += j, out[WC_BIAS_NODE] += j;
    }
    wc_store_iter_close(it);
    return rc;
}

/* The workloads whose phase is known, with their true CPU time. */
static int read_workloads(bctx *c, wc_error *err)
{
    wc_workload_row *w = NULL;
    size_t n = 0;
    int rc = wc_store_workloads(c->st, &w, &n, err);
    if (!rc && n && !(c->wl = calloc(n, sizeof *c->wl)))
        rc = wc_error_set(err, -ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        size_t pi = phase_index(c, w[i].phase_id);
        if (pi == (size_t)-1)
            continue;
        bwork *b = &c->wl[c->nwl++];
        b->phase = pi;
        WC_STORE_COPY_TEXT(b->cls, w[i].cls);
        b->pgid = w[i].pgid;
        b->true_cpu_s = w[i].true_cpu_s;
        if (!(b->true_cpu_s >= 0))
            b->true_cpu_s = NAN; /* a negative rusage is corrupt, not a measurement */
    }
    free(w);
    return rc;
}

static int load_workloads(bctx *c, wc_error *err)
{
    int rc = read_workloads(c, err);
    for (size_t i = 0; !rc && i < c->nwl; i++) {
        bwork *w = &c->wl[i];
        bphase *p = &c->ph[w->phase];
        rc = seen_cpu(c, p, w->pgid, &w->seen_cpu_s, err);
        if (!rc)
            rc = attributed(c, p, w->pgid, w->attributed_j, err);
        if (!p->nclasses || strcmp(p->wl_class, w->cls)) {
            if (p->nclasses && strcmp(p->wl_class, w->cls))
                p->nclasses = 2;
            else
                p->nclasses = 1, snprintf(p->wl_class, sizeof p->wl_class, "%s", w->cls);
        }
    }
    return rc;
}

/* Tick powers of a zone over the whole tick intervals inside [a, b]. */
static size_t tick_powers(const wc_cumseries *s, int64_t a, int64_t b, double *out)
{
    size_t n = 0;
    for (size_t i = 0; i + 1 < s->n; i++) {
        if (s->t_ns[i] < a || s->t_ns[i + 1] > b)
            continue;
        double w = wc_cumseries_rate(s, s->t_ns[i], s->t_ns[i + 1]);
        if (isfinite(w))
            out[n++] = w;
    }
    return n;
}

/* Tick powers of a zone over the tick intervals inside any idle phase, each
 * interval once even where idle phases overlap (a tampered or imported run
 * may have them overlap). out holds s->n values. */
static size_t idle_powers(const bctx *c, const wc_cumseries *s, double *out)
{
    size_t n = 0;
    for (size_t i = 0; i + 1 < s->n; i++) {
        int idle = 0;
        for (size_t k = 0; k < c->nph && !idle; k++)
            idle = !strcmp(c->ph[k].cls, "idle") && s->t_ns[i] >= c->ph[k].start_ns &&
                   s->t_ns[i + 1] <= c->ph[k].end_ns;
        if (!idle)
            continue;
        double w = wc_cumseries_rate(s, s->t_ns[i], s->t_ns[i + 1]);
        if (isfinite(w))
            out[n++] = w;
    }
    return n;
}

/* Mean tick power and its bootstrap replicates (NULL data: NANs). */
static int mean_and_reps(const double *x, size_t n, const wc_boot_cfg *cfg, int reps,
                         double *mean, double *rep)
{
    if (!n) {
        *mean = NAN;
        for (int r = 0; r < reps; r++)
            rep[r] = NAN;
        return 0;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    *mean = sum / (double)n;
    return wc_boot_mean_replicates(x, n, cfg, rep);
}

static int phase_powers(bctx *c, wc_error *err)
{
    double *buf = malloc((c->tb.n ? c->tb.n : 1) * sizeof *buf);
    double *idle = malloc((c->tb.n ? c->tb.n : 1) * sizeof *idle);
    if (!buf || !idle) {
        free(buf), free(idle);
        return wc_error_set(err, -ENOMEM, "out of memory");
    }
    int rc = 0;
    for (int z = 0; !rc && z < WC_BIAS_NZONES; z++) {
        if (!c->have_zone[z])
            continue;
        size_t nidle = idle_powers(c, &c->zone[z], idle);
        c->idle_rep[z] = malloc((size_t)c->reps * sizeof(double));
        if (!c->idle_rep[z]) {
            rc = -ENOMEM;
            break;
        }
        wc_boot_cfg cfg = c->cfg;
        cfg.seed = c->cfg.seed + 7919u * (uint64_t)(z + 1);
        rc = mean_and_reps(idle, nidle, &cfg, c->reps, &c->idle_mean[z], c->idle_rep[z]);
        for (size_t i = 0; !rc && i < c->nph; i++) {
            bphase *p = &c->ph[i];
            size_t n = tick_powers(&c->zone[z], p->start_ns, p->end_ns, buf);
            p->rep[z] = malloc((size_t)c->reps * sizeof(double));
            if (!p->rep[z]) {
                rc = -ENOMEM;
                break;
            }
            cfg.seed = c->cfg.seed + 104729u * (uint64_t)(i + 1) + (uint64_t)z;
            rc = mean_and_reps(buf, n, &cfg, c->reps, &p->mean_w[z], p->rep[z]);
        }
    }
    free(buf), free(idle);
    return rc ? wc_error_set(err, -ENOMEM, "out of memory bootstrapping phase powers") : 0;
}

static int is_idle_class(const char *cls)
{
    return !strcmp(cls, "idle");
}

/* Fills the isolated rows and the pooled energy per CPU-second replicates
 * of one class (e_rep[z][r]); returns how many isolated phases it has. */
static size_t pool_class(bctx *c, const char *cls, double **e, double *e_point,
                         wc_bias_report *out)
{
    size_t n = 0;
    double cpu = 0, mj[WC_BIAS_NZONES] = {0};
    for (int z = 0; z < WC_BIAS_NZONES; z++)
        for (int r = 0; r < c->reps; r++)
            e[z][r] = 0;
    for (size_t k = 0; k < c->nwl; k++) {
        const bwork *w = &c->wl[k];
        const bphase *p = &c->ph[w->phase];
        if (strcmp(w->cls, cls) || p->nclasses != 1 || is_idle_class(p->cls) || is_idle_class(cls))
            continue;
        double dur = ((double)p->end_ns - (double)p->start_ns) / 1e9;
        cpu += w->true_cpu_s;
        n++;
        wc_bias_isolated *iso = out->nisolated < WC_BIAS_MAX ? &out->isolated[out->nisolated++] : NULL;
        if (iso) {
            memset(iso, 0, sizeof *iso);
            snprintf(iso->phase, sizeof iso->phase, "%s", p->name);
            snprintf(iso->cls, sizeof iso->cls, "%s", cls);
            iso->repetition = p->repetition;
            iso->duration_s = dur;
            iso->true_cpu_s = w->true_cpu_s;
        }
        for (int z = 0; z < WC_BIAS_NZONES; z++) {
            double m = c->have_zone[z] && out->has_baseline ? p->mean_w[z] - out->idle_w[z] : NAN;
            mj[z] += m * dur;
            double *mr = malloc((size_t)c->reps * sizeof *mr);
            for (int r = 0; r < c->reps; r++) {
                double v = c->have_zone[z] && c->idle_rep[z] ? p->rep[z][r] - c->idle_rep[z][r] : NAN;
                e[z][r] += v * dur;
                if (mr)
                    mr[r] = v;
            }
            if (iso) {
                iso->marginal_w[z].est = m;
                iso->marginal_j[z] = m * dur;
                iso->attributed_j[z] = w->attributed_j[z];
                if (mr)
                    wc_percentile_ci(mr, (size_t)c->reps, &iso->marginal_w[z].lo, &iso->marginal_w[z].hi);
                else
                    iso->marginal_w[z].lo = iso->marginal_w[z].hi = NAN;
            }
            free(mr);
        }
    }
    for (int z = 0; z < WC_BIAS_NZONES; z++) {
        e_point[z] = n && cpu > 0 ? mj[z] / cpu : NAN;
        for (int r = 0; r < c->reps; r++)
            e[z][r] = n && cpu > 0 ? e[z][r] / cpu : NAN;
    }
    return n;
}

/* The mixed workloads of one class against its isolated energy per CPU-s. */
static void score_class(bctx *c, wc_bias_class *bc, double **e, const double *e_point,
                        wc_bias_report *out)
{
    double *fr = malloc((size_t)c->reps * sizeof *fr);
    double *xr = malloc((size_t)c->reps * sizeof *xr);
    double sum_a[WC_BIAS_NZONES] = {0}, sum_cpu = 0;
    for (size_t k = 0; k < c->nwl; k++) {
        const bwork *w = &c->wl[k];
        const bphase *p = &c->ph[w->phase];
        if (strcmp(w->cls, bc->cls) || p->nclasses < 2 || out->nmixed == WC_BIAS_MAX)
            continue;
        wc_bias_mixed *m = &out->mixed[out->nmixed++];
        memset(m, 0, sizeof *m);
        snprintf(m->phase, sizeof m->phase, "%s", p->name);
        snprintf(m->cls, sizeof m->cls, "%s", w->cls);
        m->repetition = p->repetition;
        m->true_cpu_s = w->true_cpu_s;
        m->seen_cpu_s = w->seen_cpu_s;
        m->coverage = w->true_cpu_s > 0 ? w->seen_cpu_s / w->true_cpu_s : NAN;
        bc->n_mixed++;
        sum_cpu += w->true_cpu_s;
        for (int z = 0; z < WC_BIAS_NZONES; z++) {
            m->attributed_j[z] = w->attributed_j[z];
            sum_a[z] += w->attributed_j[z];
            double x = e_point[z] * w->true_cpu_s;
            m->expected_j[z] = (wc_ci){x, NAN, NAN};
            m->factor[z] = (wc_ci){x > 0 ? w->attributed_j[z] / x : NAN, NAN, NAN};
            if (!fr || !xr || !isfinite(x))
                continue;
            for (int r = 0; r < c->reps; r++) {
                xr[r] = e[z][r] * w->true_cpu_s;
                fr[r] = xr[r] > 0 ? w->attributed_j[z] / xr[r] : NAN;
            }
            wc_percentile_ci(xr, (size_t)c->reps, &m->expected_j[z].lo, &m->expected_j[z].hi);
            if (isfinite(m->factor[z].est))
                wc_percentile_ci(fr, (size_t)c->reps, &m->factor[z].lo, &m->factor[z].hi);
        }
    }
    for (int z = 0; z < WC_BIAS_NZONES; z++) {
        bc->attributed_j[z] = sum_a[z];
        double x = e_point[z] * sum_cpu;
        bc->expected_j[z] = bc->n_mixed ? x : NAN;
        bc->factor[z] = (wc_ci){bc->n_mixed && x > 0 ? sum_a[z] / x : NAN, NAN, NAN};
        if (!fr || !bc->n_mixed || !isfinite(bc->factor[z].est))
            continue;
        for (int r = 0; r < c->reps; r++) {
            double xx = e[z][r] * sum_cpu;
            fr[r] = xx > 0 ? sum_a[z] / xx : NAN;
        }
        wc_percentile_ci(fr, (size_t)c->reps, &bc->factor[z].lo, &bc->factor[z].hi);
    }
    free(fr);
    free(xr);
}

static void summarise(bctx *c, wc_bias_report *out)
{
    static const char *const CLASSES[] = {"cpu", "avx", "membound", "idle", "burst"};
    double **e = malloc(WC_BIAS_NZONES * sizeof *e);
    int ok = e != NULL;
    for (int z = 0; ok && z < WC_BIAS_NZONES; z++)
        ok = (e[z] = malloc((size_t)c->reps * sizeof(double))) != NULL;
    for (size_t k = 0; ok && k < sizeof CLASSES / sizeof *CLASSES; k++) {
        double seen = 0, truth = 0;
        int present = 0;
        for (size_t i = 0; i < c->nwl; i++)
            if (!strcmp(c->wl[i].cls, CLASSES[k])) {
                present = 1;
                seen += c->wl[i].seen_cpu_s;
                truth += c->wl[i].true_cpu_s;
            }
        if (!present)
            continue;
        wc_bias_class *bc = &out->classes[out->nclasses++];
        memset(bc, 0, sizeof *bc);
        snprintf(bc->cls, sizeof bc->cls, "%s", CLASSES[k]);
        bc->coverage = truth > 0 ? seen / truth : NAN;
        bc->n_isolated = pool_class(c, CLASSES[k], e, bc->j_per_cpu_s, out);
        score_class(c, bc, e, bc->j_per_cpu_s, out);
    }
    for (int z = 0; e && z < WC_BIAS_NZONES; z++)
        free(e[z]);
    free(e);
}

static void ctx_free(bctx *c)
{
    for (size_t i = 0; i < c->nph; i++)
        for (int z = 0; z < WC_BIAS_NZONES; z++)
            free(c->ph[i].rep[z]);
    for (int z = 0; z < WC_BIAS_NZONES; z++) {
        free(c->idle_rep[z]);
        wc_cumseries_free(&c->zone[z]);
    }
    free(c->ph);
    free(c->wl);
    wc_timebase_free(&c->tb);
}

int wc_bias_compute(wc_store *st, int64_t model_id, const char *model, const wc_boot_cfg *cfg,
                    wc_bias_report *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->model, sizeof out->model, "%s", model);
    bctx c;
    memset(&c, 0, sizeof c);
    c.st = st;
    c.model_id = model_id;
    c.cfg = cfg ? *cfg : (wc_boot_cfg){0};
    if (!c.cfg.seed)
        c.cfg.seed = WC_BOOT_DEFAULT_SEED;
    c.cfg.min_block = 1;
    c.reps = wc_boot_replicates(&c.cfg);
    int rc = load_phases(&c, err);
    if (!rc)
        rc = load_workloads(&c, err);
    if (rc || !c.nwl) {
        ctx_free(&c);
        return rc;
    }
    wc_run_meta m;
    rc = wc_store_get_run(st, &m, err);
    if (!rc)
        WC_STORE_COPY_TEXT(out->meter_provenance, m.provenance);
    if (!rc)
        rc = wc_timebase_load(st, &c.tb, err);
    static const char *const Z[WC_BIAS_NZONES][3] = {
        {"package", NULL, NULL}, {"dram", NULL, NULL}, {"package", "dram", NULL}};
    for (int z = 0; !rc && z < WC_BIAS_NZONES; z++) {
        size_t found = 0;
        rc = wc_series_meter(st, &c.tb, Z[z], &c.zone[z], &found, err);
        c.have_zone[z] = found > 0;
    }
    if (!rc)
        rc = phase_powers(&c, err);
    if (!rc) {
        size_t nidle = 0;
        for (size_t i = 0; i < c.nph; i++)
            nidle += !strcmp(c.ph[i].cls, "idle");
        out->has_baseline = nidle > 0;
        for (int z = 0; z < WC_BIAS_NZONES; z++)
            out->idle_w[z] = c.have_zone[z] ? c.idle_mean[z] : NAN;
        summarise(&c, out);
    }
    ctx_free(&c);
    return rc;
}
