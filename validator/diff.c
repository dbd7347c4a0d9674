/*
 * diff.c — top-N workload energy of two exporter versions side by side,
 * with bootstrap intervals of the differences (diff.h). The attributed rows
 * come from the run's store (collector/store/store_results.h).
 */
#include "validator/diff.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_read.h"
#include "collector/store/store_results.h"
#include "common/wc_text.h"
#include "validator/series.h"

const char *wc_diff_level_name(wc_diff_level l)
{
    static const char *const N[] = {"pod", "container", "process name"};
    return l < WC_DIFF_NLEVELS ? N[l] : "?";
}

const char *wc_diff_verdict_name(wc_diff_verdict v)
{
    static const char *const N[] = {"same", "CHANGED", "inconclusive", "new", "gone"};
    return v <= WC_DIFF_GONE ? N[v] : "?";
}

/* A side's time base and full windows. */
typedef struct side_ctx {
    const wc_diff_side *s;
    wc_timebase tb;
    size_t nw;
    int64_t w_ns;
} side_ctx;

static long window_of(const side_ctx *c, long i)
{
    if (i <= 0)
        return -1; /* the first tick closes no interval */
    long k = (long)((c->tb.mono_ns[i] - c->tb.mono_ns[0] - 1) / c->w_ns);
    return (size_t)k < c->nw ? k : -1;
}

/* The store's level of a table. */
static wc_attr_level tenant_of(wc_diff_level l)
{
    return l == WC_DIFF_POD ? WC_LEVEL_POD : l == WC_DIFF_CONTAINER ? WC_LEVEL_CONTAINER
                                                                    : WC_LEVEL_PROCESS;
}

/* A key with its totals on both sides. */
typedef struct cand {
    char key[128];
    double a_j, b_j;
} cand;

static cand *find_cand(cand *c, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(c[i].key, key))
            return &c[i];
    return NULL;
}

/* The candidate of key, added when new. NULL when out of memory. */
static cand *cand_of(cand **c, size_t *n, size_t *cap, const char *key)
{
    cand *x = find_cand(*c, *n, key);
    if (x)
        return x;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        cand *g = realloc(*c, nc * sizeof *g);
        if (!g)
            return NULL;
        *c = g;
        *cap = nc;
    }
    x = &(*c)[(*n)++];
    memset(x, 0, sizeof *x);
    snprintf(x->key, sizeof x->key, "%s", key);
    return x;
}

/* Adds one side's totals of a level to the candidates. */
static int load_totals(const side_ctx *sc, wc_diff_level l, const char *zone, int side, cand **c,
                       size_t *n, size_t *cap, size_t *nkeys, wc_error *err)
{
    wc_store_iter *rows = NULL;
    int rc = wc_store_tenant_totals_open(sc->s->st, sc->s->model_id, tenant_of(l), zone, &rows,
                                         err);
    wc_tenant_row row;
    while (!rc && (rc = wc_store_tenant_next(rows, &row, err)) == 1) {
        rc = 0;
        double j = row.energy_uj / 1e6;
        if (!row.key || j <= 0)
            continue;
        (*nkeys)++;
        cand *x = cand_of(c, n, cap, row.key);
        if (!x) {
            rc = wc_error_set(err, -ENOMEM, "out of memory");
            break;
        }
        if (side == 0)
            x->a_j += j;
        else
            x->b_j += j;
    }
    wc_store_iter_close(rows);
    return rc;
}

/* Each side's NEGATIVE_SHARE rows of level l in the zone (flag 64), counted
 * into t: the totals leave them out, the report says how many. */
static int count_excluded(const side_ctx *sa, const side_ctx *sb, wc_diff_level l,
                          const char *zone, wc_diff_table *t, wc_error *err)
{
    int rc = 0;
    for (int side = 0; side < 2 && !rc; side++) {
        const side_ctx *sc = side ? sb : sa;
        int64_t *n = side ? &t->excluded_b : &t->excluded_a;
        wc_store_iter *rows = NULL;
        rc = wc_store_tenant_rows_open(sc->s->st, sc->s->model_id, tenant_of(l), zone,
                                       WC_TENANT_ROWS_NEGATIVE_SHARE, &rows, err);
        wc_tenant_row row;
        while (!rc && (rc = wc_store_tenant_next(rows, &row, err)) == 1) {
            rc = 0;
            (*n)++;
        }
        wc_store_iter_close(rows);
    }
    return rc;
}

/* Per-window power (W) of each key, side sc: out[k * nw + w]. */
static int window_series(const side_ctx *sc, wc_diff_level l, const char *zone, const cand *keys,
                         size_t nk, double *out, wc_error *err)
{
    memset(out, 0, nk * sc->nw * sizeof *out);
    wc_store_iter *rows = NULL;
    int rc = wc_store_tenant_rows_open(sc->s->st, sc->s->model_id, tenant_of(l), zone,
                                       WC_TENANT_ROWS_ALL, &rows, err);
    double wsec = (double)sc->w_ns / 1e9;
    wc_tenant_row row;
    while (!rc && (rc = wc_store_tenant_next(rows, &row, err)) == 1) {
        rc = 0;
        if (!row.key)
            continue;
        size_t k = 0;
        while (k < nk && strcmp(keys[k].key, row.key))
            k++;
        if (k == nk)
            continue;
        long w = window_of(sc, wc_timebase_index(&sc->tb, row.tick_id));
        if (w >= 0)
            out[k * sc->nw + (size_t)w] += row.energy_uj / 1e6 / wsec;
    }
    wc_store_iter_close(rows);
    return rc;
}

/* Node and active power per window of a side. */
static int node_series(const side_ctx *sc, const char *zone, double *node, double *active,
                       wc_error *err)
{
    memset(node, 0, sc->nw * sizeof *node);
    memset(active, 0, sc->nw * sizeof *active);
    const char *const zones[] = {zone, NULL};
    wc_store_iter *rows = NULL;
    int rc = wc_store_node_zone_rows_open(sc->s->st, sc->s->model_id, zones, &rows, err);
    double wsec = (double)sc->w_ns / 1e9;
    wc_node_row row;
    while (!rc && (rc = wc_store_node_row_next(rows, &row, err)) == 1) {
        rc = 0;
        long w = window_of(sc, wc_timebase_index(&sc->tb, row.tick_id));
        if (w < 0)
            continue;
        node[w] += row.delta_uj / 1e6 / wsec;
        active[w] += row.active_uj / 1e6 / wsec;
    }
    wc_store_iter_close(rows);
    return rc;
}

static int cmp_cand(const void *x, const void *y)
{
    const cand *p = x, *q = y;
    double a = fmax(p->a_j, p->b_j), b = fmax(q->a_j, q->b_j);
    return (a < b) - (a > b);
}

/* Mean with interval of x (n), reps filled for the difference. */
static int mean_reps(const double *x, size_t n, wc_boot_cfg cfg, uint64_t seed_offset, wc_ci *ci,
                     double *reps)
{
    cfg.seed += seed_offset;
    cfg.min_block = 1;
    int rc = wc_boot_mean_ci(x, n, &cfg, ci);
    if (!rc)
        rc = wc_boot_mean_replicates(x, n, &cfg, reps);
    return rc;
}

void wc_diff_decide(wc_diff_row *r, double tol_pct, wc_diff_report *rep)
{
    double base = r->a_w.est;
    r->diff_pct = base > 0 ? 100.0 * r->diff_w.est / base : NAN;
    /* appearing and vanishing workloads are reported, never a failure: pods
     * churn between runs, and a model may leave a workload at 0 J */
    if (r->a_j <= 0 && r->b_j > 0) {
        r->verdict = WC_DIFF_NEW;
        rep->appeared++;
        return;
    }
    if (r->b_j <= 0 && r->a_j > 0) {
        r->verdict = WC_DIFF_GONE;
        rep->vanished++;
        return;
    }
    /* the band in watts: T % of A's mean power, never below the noise floor */
    double band = fmax(base > 0 ? tol_pct / 100.0 * base : 0, rep->min_change_w);
    double lo = r->diff_w.lo, hi = r->diff_w.hi;
    int excl0 = isfinite(lo) && isfinite(hi) && (lo > 0 || hi < 0);
    if (isfinite(r->diff_pct) && fabs(r->diff_w.est) > band && excl0) {
        r->verdict = WC_DIFF_CHANGED;
        rep->changed++;
    } else if (isfinite(lo) && isfinite(hi) && base > 0 && lo >= -band && hi <= band) {
        r->verdict = WC_DIFF_SAME;
        rep->same++;
    } else {
        r->verdict = WC_DIFF_INCONCLUSIVE;
        rep->inconclusive++;
    }
}

/* One level's table. */
static int level_table(side_ctx *sa, side_ctx *sb, int paired, wc_diff_level l,
                       const wc_diff_opts *o, wc_diff_report *rep, wc_error *err)
{
    wc_diff_table *t = &rep->tables[l];
    t->level = l;
    cand *c = NULL;
    size_t n = 0, cap = 0;
    int rc = load_totals(sa, l, rep->zone, 0, &c, &n, &cap, &t->keys_a, err);
    if (!rc)
        rc = load_totals(sb, l, rep->zone, 1, &c, &n, &cap, &t->keys_b, err);
    if (!rc)
        rc = count_excluded(sa, sb, l, rep->zone, t, err);
    if (rc || !n) {
        free(c);
        return rc;
    }
    qsort(c, n, sizeof *c, cmp_cand);
    size_t nk = n < o->top ? n : o->top;
    int reps = wc_boot_replicates(&o->boot);
    double *xa = malloc(nk * sa->nw * sizeof *xa), *xb = malloc(nk * sb->nw * sizeof *xb);
    double *ra = malloc((size_t)reps * sizeof *ra), *rb = malloc((size_t)reps * sizeof *rb);
    double *d = malloc((sa->nw > sb->nw ? sa->nw : sb->nw) * sizeof *d);
    if (!xa || !xb || !ra || !rb || !d)
        rc = wc_error_set(err, -ENOMEM, "out of memory");
    if (!rc)
        rc = window_series(sa, l, rep->zone, c, nk, xa, err);
    if (!rc)
        rc = window_series(sb, l, rep->zone, c, nk, xb, err);
    for (size_t k = 0; !rc && k < nk; k++) {
        wc_diff_row *r = &t->rows[t->n++];
        memset(r, 0, sizeof *r);
        snprintf(r->key, sizeof r->key, "%s", c[k].key);
        const double *pa = xa + k * sa->nw, *pb = xb + k * sb->nw;
        rc = mean_reps(pa, sa->nw, o->boot, 0, &r->a_w, ra);
        if (!rc)
            rc = mean_reps(pb, sb->nw, o->boot, paired ? 0 : 7777, &r->b_w, rb);
        if (rc)
            break;
        /* J over the same full windows as W, so the columns agree */
        r->a_j = r->a_w.est * (double)sa->nw * ((double)sa->w_ns / 1e9);
        r->b_j = r->b_w.est * (double)sb->nw * ((double)sb->w_ns / 1e9);
        if (paired) {
            for (size_t w = 0; w < sa->nw; w++)
                d[w] = pb[w] - pa[w];
            rc = mean_reps(d, sa->nw, o->boot, 0, &r->diff_w, ra);
        } else {
            r->diff_w.est = r->b_w.est - r->a_w.est;
            for (int i = 0; i < reps; i++)
                rb[i] -= ra[i];
            if (sa->nw >= WC_BOOT_MIN_PAIRS && sb->nw >= WC_BOOT_MIN_PAIRS)
                wc_percentile_ci(rb, (size_t)reps, &r->diff_w.lo, &r->diff_w.hi);
            else
                r->diff_w.lo = r->diff_w.hi = NAN;
        }
        wc_diff_decide(r, o->tolerance_pct, rep);
    }
    free(xa), free(xb), free(ra), free(rb), free(d), free(c);
    return rc == -ENOMEM ? wc_error_set(err, rc, "out of memory") : rc;
}

static int side_init(const wc_diff_side *s, double window_s, side_ctx *c, wc_error *err)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->w_ns = (int64_t)llround(window_s * 1e9);
    int rc = wc_timebase_load(s->st, &c->tb, err);
    if (rc)
        return wc_error_prefix(err, rc, "%s: ", s->label);
    if (c->w_ns < c->tb.median_spacing_ns) {
        int64_t sp = c->tb.median_spacing_ns;
        wc_timebase_free(&c->tb);
        return wc_error_set(err, -EINVAL, "%s: --window %g s is shorter than the run's %g s sample"
                                          " spacing", s->label, window_s, (double)sp / 1e9);
    }
    c->nw = (size_t)((c->tb.mono_ns[c->tb.n - 1] - c->tb.mono_ns[0]) / c->w_ns);
    if (!c->nw) {
        wc_timebase_free(&c->tb);
        return wc_error_set(err, -ENODATA, "%s: shorter than one %g s window (use --window)",
                            s->label, window_s);
    }
    return 0;
}

/* The zone must be one the side's model attributed (a typo must not pass as
 * "nothing changed"). */
static int check_zone(const side_ctx *sc, const char *zone, wc_error *err)
{
    int found = wc_store_node_has_zone(sc->s->st, sc->s->model_id, zone, err);
    if (found)
        return found < 0 ? found : 0;
    char list[256] = "";
    size_t used = 0;
    wc_store_iter *rows = NULL;
    int rc = wc_store_node_zones_open(sc->s->st, sc->s->model_id, &rows, err);
    const char *name = NULL;
    while (!rc && (rc = wc_store_text_next(rows, &name, err)) == 1) {
        rc = 0;
        /* a NULL zone reads as glibc prints a NULL string */
        wc_append(list, sizeof list, &used, "%s%s", used ? ", " : "", name ? name : "(null)");
    }
    wc_store_iter_close(rows);
    if (rc)
        return rc;
    return wc_error_set(err, -EINVAL, "%s: --zone '%.40s' has no attribution (zones: %s)",
                        sc->s->label, zone, used ? list : "none");
}

static int node_rows(side_ctx *sc, const wc_diff_opts *o, const char *zone, wc_ci *node,
                     wc_ci *active, uint64_t seed, wc_error *err)
{
    double *n = malloc(sc->nw * sizeof *n), *a = malloc(sc->nw * sizeof *a);
    int rc = (!n || !a) ? wc_error_set(err, -ENOMEM, "out of memory") : node_series(sc, zone, n, a, err);
    wc_boot_cfg cfg = o->boot;
    cfg.seed += seed;
    cfg.min_block = 1;
    if (!rc)
        rc = wc_boot_mean_ci(n, sc->nw, &cfg, node);
    if (!rc)
        rc = wc_boot_mean_ci(a, sc->nw, &cfg, active);
    free(n), free(a);
    return rc;
}

int wc_diff_compute(const wc_diff_side *a, const wc_diff_side *b, const wc_diff_opts *o,
                    wc_diff_report *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    wc_diff_opts opt = *o;
    if (!opt.top)
        opt.top = 10;
    if (opt.top > WC_DIFF_MAX_TOP)
        opt.top = WC_DIFF_MAX_TOP;
    if (opt.window_s <= 0)
        opt.window_s = 60;
    if (opt.tolerance_pct <= 0)
        opt.tolerance_pct = 10;
    if (!opt.boot.seed)
        opt.boot.seed = WC_BOOT_DEFAULT_SEED;
    out->paired = a->st == b->st;
    out->window_s = opt.window_s;
    out->tolerance_pct = opt.tolerance_pct;
    out->min_change_w = opt.min_change_set ? opt.min_change_w : WC_DIFF_MIN_CHANGE_W;
    snprintf(out->zone, sizeof out->zone, "%s", opt.zone ? opt.zone : "package");
    side_ctx sa, sb;
    int rc = side_init(a, opt.window_s, &sa, err);
    if (rc)
        return rc;
    rc = side_init(b, opt.window_s, &sb, err);
    if (rc) {
        wc_timebase_free(&sa.tb);
        return rc;
    }
    rc = check_zone(&sa, out->zone, err);
    if (!rc)
        rc = check_zone(&sb, out->zone, err);
    if (rc) {
        wc_timebase_free(&sa.tb);
        wc_timebase_free(&sb.tb);
        return rc;
    }
    out->a_windows = sa.nw;
    out->b_windows = sb.nw;
    out->a_duration_s = (double)sa.nw * opt.window_s;
    out->b_duration_s = (double)sb.nw * opt.window_s;
    rc = node_rows(&sa, &opt, out->zone, &out->a_node_w, &out->a_active_w, 0, err);
    if (!rc)
        rc = node_rows(&sb, &opt, out->zone, &out->b_node_w, &out->b_active_w, 7777, err);
    for (int l = 0; !rc && l < WC_DIFF_NLEVELS; l++)
        rc = level_table(&sa, &sb, out->paired, (wc_diff_level)l, &opt, out, err);
    wc_timebase_free(&sa.tb);
    wc_timebase_free(&sb.tb);
    return rc;
}
