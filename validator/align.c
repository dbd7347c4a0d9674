/*
 * align.c — lag/window estimation and the native and windowed pairings of a
 * source with ground truth (align.h).
 *
 * The grid search evaluates, for every reading and every (lag, window) grid
 * point, the source's mean over the shifted interval. To keep that O(1) the
 * source's cumulative series is first resampled on a fine regular grid whose
 * step is the lag step, with a prefix count of unusable cells; interval ends
 * are snapped to that grid (an error of at most half a step, the resolution
 * of the search itself). The pairs that are finally scored are computed
 * exactly on the tick series, without snapping.
 */
#include "validator/align.h"

#include <errno.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "validator/stats.h"

#define LAG_REPLICATES 200
/* Correlations closer than this are a tie, resolved toward the smaller lag
 * (then the smaller window): an exact series must not drift to a later,
 * equally perfect, grid point. */
#define TIE_EPS 1e-6

void wc_pairs_free(wc_pairs *p)
{
    free(p->source_w);
    free(p->truth_w);
    free(p->a_ns);
    free(p->b_ns);
    memset(p, 0, sizeof *p);
}

static int pairs_push(wc_pairs *p, double s, double g, int64_t a, int64_t b)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        double *ns = realloc(p->source_w, cap * sizeof *ns);
        if (!ns)
            return -ENOMEM;
        p->source_w = ns;
        double *ng = realloc(p->truth_w, cap * sizeof *ng);
        if (!ng)
            return -ENOMEM;
        p->truth_w = ng;
        int64_t *na = realloc(p->a_ns, cap * sizeof *na);
        if (!na)
            return -ENOMEM;
        p->a_ns = na;
        int64_t *nb = realloc(p->b_ns, cap * sizeof *nb);
        if (!nb)
            return -ENOMEM;
        p->b_ns = nb;
        p->cap = cap;
    }
    p->source_w[p->n] = s;
    p->truth_w[p->n] = g;
    p->a_ns[p->n] = a;
    p->b_ns[p->n] = b;
    p->n++;
    return 0;
}

void wc_lagwin_fixed(double lag_s, wc_lagwin *out)
{
    memset(out, 0, sizeof *out);
    out->lag_s = lag_s;
    out->lag_lo_s = out->lag_hi_s = NAN;
    out->window_s = out->window_lo_s = out->window_hi_s = NAN;
    out->corr = out->corr_at_zero = NAN;
    out->identifiable = 1;
    snprintf(out->note, sizeof out->note, "lag %.2f s given, not estimated", lag_s);
}

void wc_lagwin_interval(const wc_lagwin *lw, const wc_truth_reading *r, int64_t *a_ns,
                        int64_t *b_ns)
{
    int64_t lag = (int64_t)llround(lw->lag_s * 1e9);
    *b_ns = r->b_ns - lag;
    if (!isnan(lw->window_s) && !r->window_known)
        *a_ns = *b_ns - (int64_t)llround(lw->window_s * 1e9);
    else
        *a_ns = r->a_ns - lag;
}

/* ---- the fine grid ------------------------------------------------------ */

typedef struct fine_grid {
    int64_t t0, step;
    long n;
    double *c;          /* cumulative value at t0 + k·step */
    uint32_t *bad;      /* bad[k] = unusable cells among cells [0, k) */
} fine_grid;

static void grid_free(fine_grid *g)
{
    free(g->c);
    free(g->bad);
    memset(g, 0, sizeof *g);
}

static int grid_build(const wc_cumseries *s, int64_t step, fine_grid *g)
{
    memset(g, 0, sizeof *g);
    if (s->n < 2 || step <= 0)
        return -EINVAL;
    g->t0 = s->t_ns[0];
    g->step = step;
    g->n = (long)((s->t_ns[s->n - 1] - g->t0) / step) + 1;
    g->c = malloc((size_t)g->n * sizeof *g->c);
    g->bad = malloc((size_t)(g->n + 1) * sizeof *g->bad);
    if (!g->c || !g->bad) {
        grid_free(g);
        return -ENOMEM;
    }
    size_t j = 0;
    g->bad[0] = 0;
    for (long k = 0; k < g->n; k++) {
        int64_t t = g->t0 + k * step;
        while (j + 2 < s->n && s->t_ns[j + 1] <= t)
            j++;
        int64_t ta = s->t_ns[j], tb = s->t_ns[j + 1];
        double f = tb > ta ? (double)(t - ta) / (double)(tb - ta) : 0;
        if (f > 1)
            f = 1;
        g->c[k] = s->cum[j] + f * (s->cum[j + 1] - s->cum[j]);
        /* cell k = (t, t + step]: bad when any segment it touches is unusable */
        int bad = !s->ok[j];
        for (size_t m = j + 1; m + 1 < s->n && s->t_ns[m] < t + step; m++)
            bad |= !s->ok[m];
        if (k + 1 == g->n)
            bad = 1;
        g->bad[k + 1] = g->bad[k] + (uint32_t)bad;
    }
    return 0;
}

/* Mean rate over grid cells [ka, kb) (a point: the rate of cell ka). */
static double grid_mean(const fine_grid *g, long ka, long kb)
{
    if (kb < ka)
        return NAN;
    long end = kb > ka ? kb : ka + 1;
    if (ka < 0 || end >= g->n || g->bad[end] != g->bad[ka])
        return NAN;
    return (g->c[end] - g->c[ka]) / ((double)(end - ka) * (double)g->step / 1e9);
}

/* ---- lag and window estimation ----------------------------------------- */

static double median_spacing_s(const wc_cumseries *s)
{
    return s->n > 1 ? (double)(s->t_ns[s->n - 1] - s->t_ns[0]) / 1e9 / (double)(s->n - 1) : 1;
}

/* Pearson correlation from sums over n pairs. */
static double corr_from(double n, double sx, double sy, double sxx, double syy, double sxy)
{
    double vx = n * sxx - sx * sx, vy = n * syy - sy * sy;
    if (vx <= 0 || vy <= 0)
        return NAN;
    return (n * sxy - sx * sy) / sqrt(vx * vy);
}

/* The grid search's working set. */
typedef struct lag_grid {
    long nlag, nwin, wstep_cells;   /* nwin 1 = stated windows only */
    long *ka, *kb;                  /* snapped nominal interval per used reading (cells) */
    double *y;
    size_t n;                       /* used readings */
} lag_grid;

static double grid_x(const fine_grid *g, const lag_grid *lg, size_t i, long j, long w)
{
    long kb = lg->kb[i] - j;
    long ka = lg->nwin == 1 ? lg->ka[i] - j : kb - w * lg->wstep_cells;
    return grid_mean(g, ka, kb);
}

/* Readings the search uses at most: 20,000 for a lag alone, 4,000 when the
 * window is searched too (the grid is then 2-D); longer runs use every k-th
 * reading, which keeps each reading's own interval, so only the precision,
 * not the resolution, of the estimate changes. */
#define LAG_MAX_READINGS_1D 20000
#define LAG_MAX_READINGS_2D 4000

/* Keeps the readings defined at every grid point (one common set), thinned
 * to the cap above; *stride gets the thinning. */
static int lag_grid_init(const fine_grid *g, const wc_truth_series *t, lag_grid *lg,
                         size_t *stride)
{
    lg->ka = malloc((t->n ? t->n : 1) * sizeof *lg->ka);
    lg->kb = malloc((t->n ? t->n : 1) * sizeof *lg->kb);
    lg->y = malloc((t->n ? t->n : 1) * sizeof *lg->y);
    if (!lg->ka || !lg->kb || !lg->y)
        return -ENOMEM;
    lg->n = 0;
    long jmax = lg->nlag - 1, wmax = (lg->nwin - 1) * lg->wstep_cells;
    size_t cap = lg->nwin > 1 ? LAG_MAX_READINGS_2D : LAG_MAX_READINGS_1D;
    *stride = t->n > cap ? (t->n + cap - 1) / cap : 1;
    for (size_t i = 0; i < t->n; i += *stride) {
        const wc_truth_reading *r = &t->r[i];
        long kb = (long)llround((double)(r->b_ns - g->t0) / (double)g->step);
        long ka = (long)llround((double)(r->a_ns - g->t0) / (double)g->step);
        long lo = (lg->nwin == 1 ? ka : (kb - wmax < ka ? kb - wmax : ka)) - jmax;
        long hi = (kb > ka ? kb : ka) + 1;
        if (lo < 0 || hi >= g->n || g->bad[hi] != g->bad[lo])
            continue;
        lg->ka[lg->n] = ka;
        lg->kb[lg->n] = kb;
        lg->y[lg->n] = r->watts;
        lg->n++;
    }
    return 0;
}

static void lag_grid_free(lag_grid *lg)
{
    free(lg->ka);
    free(lg->kb);
    free(lg->y);
}

/* Runs the search over every grid point: full-sample correlations in corr[],
 * and for each bootstrap replicate (block starts in starts[rep * nblocks +
 * k]) the best grid point in best_g[rep]. */
static int search_grid(const fine_grid *g, const lag_grid *lg, const size_t *starts, int reps,
                       size_t nblocks, size_t b, double *corr, long *best_g, double *best_r)
{
    size_t n = lg->n;
    double *px = malloc((n + 1) * sizeof *px), *pxx = malloc((n + 1) * sizeof *pxx);
    double *pxy = malloc((n + 1) * sizeof *pxy), *py = malloc((n + 1) * sizeof *py);
    double *pyy = malloc((n + 1) * sizeof *pyy);
    if (!px || !pxx || !pxy || !py || !pyy) {
        free(px), free(pxx), free(pxy), free(py), free(pyy);
        return -ENOMEM;
    }
    py[0] = pyy[0] = 0;
    for (size_t i = 0; i < n; i++) {
        py[i + 1] = py[i] + lg->y[i];
        pyy[i + 1] = pyy[i] + lg->y[i] * lg->y[i];
    }
    for (int r = 0; r < reps; r++)
        best_r[r] = -INFINITY, best_g[r] = -1;
    long G = lg->nlag * lg->nwin;
    for (long gi = 0; gi < G; gi++) {
        /* lag-major order: among equally good points the smallest lag comes first */
        long j = gi / lg->nwin, w = gi % lg->nwin;
        px[0] = pxx[0] = pxy[0] = 0;
        for (size_t i = 0; i < n; i++) {
            double x = grid_x(g, lg, i, j, w);
            px[i + 1] = px[i] + x;
            pxx[i + 1] = pxx[i] + x * x;
            pxy[i + 1] = pxy[i] + x * lg->y[i];
        }
        corr[gi] = corr_from((double)n, px[n], py[n], pxx[n], pyy[n], pxy[n]);
        for (int r = 0; r < reps; r++) {
            double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
            for (size_t k = 0; k < nblocks; k++) {
                size_t s = starts[(size_t)r * nblocks + k];
                size_t len = n - k * b < b ? n - k * b : b;
                sx += px[s + len] - px[s];
                sxx += pxx[s + len] - pxx[s];
                sxy += pxy[s + len] - pxy[s];
                sy += py[s + len] - py[s];
                syy += pyy[s + len] - pyy[s];
            }
            double c = corr_from((double)n, sx, sy, sxx, syy, sxy);
            if (isfinite(c) && c > best_r[r] + TIE_EPS) {
                best_r[r] = c;
                best_g[r] = gi;
            }
        }
    }
    free(px), free(pxx), free(pxy), free(py), free(pyy);
    return 0;
}

static void set_defaults(const wc_cumseries *ref, const wc_lag_search *in, wc_lag_search *s)
{
    double spacing = median_spacing_s(ref);
    double run_s = ref->n > 1 ? (double)(ref->t_ns[ref->n - 1] - ref->t_ns[0]) / 1e9 : 0;
    *s = in ? *in : (wc_lag_search){0};
    /* defaults, at most a quarter of the run each so readings remain */
    if (s->max_lag_s <= 0)
        s->max_lag_s = fmin(30, fmax(run_s / 4, spacing));
    if (s->max_window_s <= 0)
        s->max_window_s = fmin(120, fmax(run_s / 4, spacing));
    if (s->step_s <= 0)
        s->step_s = fmax(spacing / 4, 0.001);
    if (s->window_step_s <= 0)
        s->window_step_s = spacing;
    /* keep the grid within bounds: at most 241 lags and 121 windows */
    if (s->max_lag_s / s->step_s > 240)
        s->step_s = s->max_lag_s / 240;
    if (s->max_window_s / s->window_step_s > 120) /* whole multiples of the sample spacing */
        s->window_step_s = spacing * ceil(s->max_window_s / 120 / spacing);
}

static void not_identifiable(wc_lagwin *out, const char *why)
{
    out->lag_s = 0;
    out->lag_lo_s = out->lag_hi_s = NAN;
    out->window_s = out->window_lo_s = out->window_hi_s = NAN;
    out->identifiable = 0;
    snprintf(out->note, sizeof out->note, "lag not identifiable (%s): 0 s used", why);
}

/* The block bootstrap of the search: block starts per replicate, the
 * full-sample correlation of every grid point, each replicate's best point. */
typedef struct lag_boot {
    size_t b, nblocks;  /* block length and blocks per replicate */
    int reps;
    size_t *starts;     /* starts[rep * nblocks + k] */
    double *corr;       /* per grid point */
    double *best_r;     /* per replicate */
    long *best_g;
    double *lags, *wins; /* scratch for the intervals */
} lag_boot;

static void lag_boot_free(lag_boot *bt)
{
    free(bt->starts);
    free(bt->corr);
    free(bt->best_r);
    free(bt->best_g);
    free(bt->lags);
    free(bt->wins);
}

/* Allocates the bootstrap for lg's readings (blocks at least one truth window
 * long) and draws its block starts from the seeded generator. */
static int lag_boot_init(const wc_truth_series *t, const lag_grid *lg, size_t stride,
                         const wc_boot_cfg *cfg, lag_boot *bt)
{
    memset(bt, 0, sizeof *bt);
    size_t minb = 1;
    if (t->median_window_s > 0 && t->median_spacing_s > 0)
        minb = (size_t)ceil(t->median_window_s / (t->median_spacing_s * (double)stride));
    bt->b = wc_boot_block_len(lg->n, minb);
    bt->nblocks = (lg->n + bt->b - 1) / bt->b;
    bt->reps = LAG_REPLICATES;
    size_t reps = (size_t)bt->reps;
    bt->starts = malloc(reps * bt->nblocks * sizeof *bt->starts);
    bt->corr = calloc((size_t)(lg->nlag * lg->nwin), sizeof *bt->corr);
    bt->best_r = malloc(reps * sizeof *bt->best_r);
    bt->best_g = malloc(reps * sizeof *bt->best_g);
    bt->lags = malloc(reps * sizeof *bt->lags);
    bt->wins = malloc(reps * sizeof *bt->wins);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!bt->starts || !bt->corr || !bt->best_r || !bt->best_g || !bt->lags || !bt->wins || !rng) {
        if (rng)
            gsl_rng_free(rng);
        return -ENOMEM;
    }
    gsl_rng_set(rng, cfg ? (unsigned long)cfg->seed : WC_BOOT_DEFAULT_SEED);
    for (size_t k = 0; k < reps * bt->nblocks; k++)
        bt->starts[k] = (size_t)gsl_rng_uniform_int(rng, (unsigned long)(lg->n - bt->b + 1));
    gsl_rng_free(rng);
    return 0;
}

/* The grid point with the highest full-sample correlation (ties: the first),
 * -1 when none is finite; the lowest finite correlation in *cmin. */
static long best_point(const double *corr, long G, double *cmin)
{
    long gbest = -1;
    *cmin = INFINITY;
    for (long gi = 0; gi < G; gi++) {
        if (!isfinite(corr[gi]))
            continue;
        if (gbest < 0 || corr[gi] > corr[gbest] + TIE_EPS)
            gbest = gi;
        if (corr[gi] < *cmin)
            *cmin = corr[gi];
    }
    return gbest;
}

/* An identifiable estimate at grid point gbest: lag, window, their bootstrap
 * intervals and the note. */
static void lagwin_report(lag_boot *bt, const lag_grid *lg, const wc_lag_search *s,
                          size_t stride, long gbest, wc_lagwin *out)
{
    double wcell = (double)lg->wstep_cells * s->step_s;
    out->identifiable = 1;
    out->lag_s = (double)(gbest / lg->nwin) * s->step_s;
    out->window_s = lg->nwin > 1 ? (double)(gbest % lg->nwin) * wcell : NAN;
    size_t m = 0;
    for (int r = 0; r < bt->reps; r++) {
        if (bt->best_g[r] < 0)
            continue;
        bt->lags[m] = (double)(bt->best_g[r] / lg->nwin) * s->step_s;
        bt->wins[m] = (double)(bt->best_g[r] % lg->nwin) * wcell;
        m++;
    }
    wc_percentile_ci(bt->lags, m, &out->lag_lo_s, &out->lag_hi_s);
    if (lg->nwin > 1)
        wc_percentile_ci(bt->wins, m, &out->window_lo_s, &out->window_hi_s);
    else
        out->window_lo_s = out->window_hi_s = NAN;
    int at_edge = out->lag_s >= s->max_lag_s - s->step_s / 2 ||
                  (lg->nwin > 1 && out->window_s >= s->max_window_s - wcell / 2);
    char thin[48] = "";
    if (stride > 1)
        snprintf(thin, sizeof thin, " (every %zu-th)", stride);
    snprintf(out->note, sizeof out->note,
             "estimated over %zu readings%s (correlation %.3f; %.3f at lag 0)%s", lg->n, thin,
             out->corr, out->corr_at_zero,
             at_edge ? "; AT THE EDGE of the search range: raise --max-lag" : "");
}

/* The search over lg's readings and its verdict into out. */
static int lagwin_search(const fine_grid *g, const lag_grid *lg, const wc_truth_series *t,
                         const wc_lag_search *s, const wc_boot_cfg *cfg, size_t stride,
                         wc_lagwin *out)
{
    lag_boot bt;
    int rc = lag_boot_init(t, lg, stride, cfg, &bt);
    if (!rc)
        rc = search_grid(g, lg, bt.starts, bt.reps, bt.nblocks, bt.b, bt.corr, bt.best_g,
                         bt.best_r);
    if (rc) {
        lag_boot_free(&bt);
        return rc;
    }
    double cmin;
    long gbest = best_point(bt.corr, lg->nlag * lg->nwin, &cmin);
    out->block_len = bt.b;
    out->replicates = bt.reps;
    out->corr_at_zero = bt.corr[0];
    if (gbest < 0) {
        not_identifiable(out, "the truth or the source is constant");
    } else if (bt.corr[gbest] < WC_ALIGN_MIN_CORR || bt.corr[gbest] - cmin < 0.02) {
        out->corr = bt.corr[gbest];
        char why[96];
        snprintf(why, sizeof why, "no load step locates it: best correlation %.2f",
                 bt.corr[gbest]);
        not_identifiable(out, why);
    } else {
        out->corr = bt.corr[gbest];
        lagwin_report(&bt, lg, s, stride, gbest, out);
    }
    lag_boot_free(&bt);
    return 0;
}

int wc_lagwin_estimate(const wc_cumseries *ref, const wc_truth_series *t,
                       const wc_lag_search *search, const wc_boot_cfg *cfg, wc_lagwin *out)
{
    memset(out, 0, sizeof *out);
    out->corr = out->corr_at_zero = NAN;
    out->estimated = 1;
    wc_lag_search s;
    set_defaults(ref, search, &s);
    out->step_s = s.step_s;
    out->max_lag_s = s.max_lag_s;
    out->max_window_s = t->any_window_known ? NAN : s.max_window_s;
    fine_grid g;
    int64_t step_ns = (int64_t)llround(s.step_s * 1e9);
    if (grid_build(ref, step_ns, &g)) {
        not_identifiable(out, "the source series is too short");
        return 0;
    }
    lag_grid lg = {.nlag = (long)floor(s.max_lag_s / s.step_s + 1e-9) + 1, .nwin = 1};
    if (!t->any_window_known) {
        lg.wstep_cells = (long)llround(s.window_step_s / s.step_s);
        if (lg.wstep_cells < 1)
            lg.wstep_cells = 1;
        lg.nwin = (long)floor(s.max_window_s / ((double)lg.wstep_cells * s.step_s) + 1e-9) + 1;
    }
    size_t stride = 1;
    int rc = lag_grid_init(&g, t, &lg, &stride);
    if (!rc) {
        out->n_used = lg.n;
        if (lg.n < WC_ALIGN_MIN_READINGS)
            not_identifiable(out, "too few readings overlap the source");
        else
            rc = lagwin_search(&g, &lg, t, &s, cfg, stride, out);
    }
    lag_grid_free(&lg);
    grid_free(&g);
    return rc;
}

/* ---- pairings ---------------------------------------------------------- */

static size_t native_min_block(const wc_truth_series *t)
{
    if (t->median_window_s > 0 && t->median_spacing_s > 0 &&
        t->median_window_s > t->median_spacing_s)
        return (size_t)ceil(t->median_window_s / t->median_spacing_s);
    return 1;
}

int wc_align_native(const wc_cumseries *src, const wc_truth_series *t, const wc_lagwin *lw,
                    int64_t lo_ns, int64_t hi_ns, wc_pairs *out)
{
    memset(out, 0, sizeof *out);
    out->min_block = native_min_block(t);
    double len_sum = 0;
    for (size_t i = 0; i < t->n; i++) {
        int64_t a, b;
        wc_lagwin_interval(lw, &t->r[i], &a, &b);
        if (a < lo_ns || b > hi_ns)
            continue;
        double s = wc_cumseries_rate(src, a, b);
        if (!isfinite(s))
            continue;
        if (pairs_push(out, s, t->r[i].watts, a, b))
            return -ENOMEM;
        len_sum += (double)(b - a) / 1e9;
    }
    out->weight_s = out->n ? len_sum / (double)out->n : 0;
    return 0;
}

/* A reading's interval as it weighs in a window (a point reading: the
 * interval since the previous reading). */
typedef struct span {
    int64_t a, b;
    int64_t src_a;     /* start of the interval the source is averaged over */
    double watts;
} span;

static int cmp_span(const void *x, const void *y)
{
    const span *p = x, *q = y;
    return (p->a > q->a) - (p->a < q->a);
}

/* Length of the union of spans clipped to [lo, hi) (spans sorted by a). */
static int64_t union_len(const span *sp, size_t n, int64_t lo, int64_t hi)
{
    int64_t total = 0, cur_a = 0, cur_b = 0;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t a = sp[i].a > lo ? sp[i].a : lo, b = sp[i].b < hi ? sp[i].b : hi;
        if (b <= a)
            continue;
        if (open && a <= cur_b) {
            if (b > cur_b)
                cur_b = b;
            continue;
        }
        if (open)
            total += cur_b - cur_a;
        cur_a = a, cur_b = b, open = 1;
    }
    return total + (open ? cur_b - cur_a : 0);
}

/* The working state of wc_align_windows: every reading's span, the source's
 * mean over the reading's own interval (computed on first use), the spans
 * that meet the current window, and the first reading not yet behind it. */
typedef struct win_ctx {
    const wc_cumseries *src;
    span *sp, *win;
    double *smean;
    unsigned char *have;
    size_t n, first;
    int64_t maxlen;     /* longest span */
} win_ctx;

static void win_ctx_free(win_ctx *c)
{
    free(c->sp);
    free(c->smean);
    free(c->win);
    free(c->have);
}

/* Allocates c and fills the spans of t's readings under lw (a point reading
 * spans the median spacing before it). */
static int win_ctx_init(win_ctx *c, const wc_cumseries *src, const wc_truth_series *t,
                        const wc_lagwin *lw)
{
    memset(c, 0, sizeof *c);
    c->src = src;
    c->n = t->n;
    c->sp = malloc(t->n * sizeof *c->sp);
    c->smean = malloc(t->n * sizeof *c->smean);
    c->win = malloc(t->n * sizeof *c->win);
    c->have = calloc(t->n, 1);
    if (!c->sp || !c->smean || !c->win || !c->have) {
        win_ctx_free(c);
        return -ENOMEM;
    }
    int64_t hold = (int64_t)llround(t->median_spacing_s * 1e9);
    for (size_t i = 0; i < t->n; i++) {
        span *sp = &c->sp[i];
        wc_lagwin_interval(lw, &t->r[i], &sp->a, &sp->b);
        c->smean[i] = NAN;
        sp->src_a = sp->a;
        if (sp->b - sp->a < 1 && hold > 0) /* a point reading */
            sp->a = sp->b - hold;
        sp->watts = t->r[i].watts;
        if (sp->b - sp->a > c->maxlen)
            c->maxlen = sp->b - sp->a;
    }
    return 0;
}

/* The window [T, U): 1 with the overlap-weighted means of the source (over
 * each reading's own interval) and of the truth in *s and *g; 0 when no
 * reading meets it, a source mean is undefined, or the readings cover less
 * than WC_ALIGN_MIN_COVERAGE of it. Windows come in increasing order. */
static int window_means(win_ctx *c, int64_t T, int64_t U, double *s, double *g)
{
    while (c->first < c->n && c->sp[c->first].b <= T)
        c->first++;
    size_t nw = 0;
    double ow = 0, og = 0, os = 0;
    for (size_t i = c->first; i < c->n && c->sp[i].b - c->maxlen < U; i++) {
        const span *sp = &c->sp[i];
        int64_t a = sp->a > T ? sp->a : T, b = sp->b < U ? sp->b : U;
        if (b <= a)
            continue;
        if (!c->have[i]) {
            c->smean[i] = wc_cumseries_rate(c->src, sp->src_a, sp->b);
            c->have[i] = 1;
        }
        if (!isfinite(c->smean[i]))
            return 0;
        double o = (double)(b - a);
        ow += o;
        og += o * sp->watts;
        os += o * c->smean[i];
        c->win[nw++] = *sp;
    }
    if (!nw)
        return 0;
    qsort(c->win, nw, sizeof *c->win, cmp_span);
    if ((double)union_len(c->win, nw, T, U) < WC_ALIGN_MIN_COVERAGE * (double)(U - T))
        return 0;
    *s = os / ow;
    *g = og / ow;
    return 1;
}

int wc_align_windows(const wc_cumseries *src, const wc_truth_series *t, const wc_lagwin *lw,
                     int64_t origin_ns, int64_t window_ns, int64_t lo_ns, int64_t hi_ns,
                     wc_pairs *out)
{
    memset(out, 0, sizeof *out);
    out->weight_s = (double)window_ns / 1e9;
    out->min_block = t->median_window_s * 1e9 > (double)window_ns
                         ? (size_t)ceil(t->median_window_s * 1e9 / (double)window_ns)
                         : 1;
    if (!t->n || window_ns <= 0 || src->n < 2)
        return 0;
    win_ctx c;
    int rc = win_ctx_init(&c, src, t, lw);
    if (rc)
        return rc;
    int64_t start = origin_ns, end = src->t_ns[src->n - 1];
    if (lo_ns > start)
        start = origin_ns + ((lo_ns - origin_ns + window_ns - 1) / window_ns) * window_ns;
    for (int64_t T = start; !rc && T + window_ns <= end && T + window_ns <= hi_ns; T += window_ns) {
        double s, g;
        if (window_means(&c, T, T + window_ns, &s, &g))
            rc = pairs_push(out, s, g, T, T + window_ns);
    }
    win_ctx_free(&c);
    return rc;
}

int wc_align_series_windows(const wc_cumseries *x, const wc_cumseries *y, int64_t origin_ns,
                            int64_t window_ns, int64_t lo_ns, int64_t hi_ns, wc_pairs *out)
{
    memset(out, 0, sizeof *out);
    out->weight_s = (double)window_ns / 1e9;
    out->min_block = 1;
    if (window_ns <= 0 || x->n < 2)
        return 0;
    int64_t start = origin_ns, end = x->t_ns[x->n - 1];
    if (lo_ns > start)
        start = origin_ns + ((lo_ns - origin_ns + window_ns - 1) / window_ns) * window_ns;
    for (int64_t T = start; T + window_ns <= end && T + window_ns <= hi_ns; T += window_ns) {
        double vx = wc_cumseries_rate(x, T, T + window_ns);
        double vy = y ? wc_cumseries_rate(y, T, T + window_ns) : 0;
        if (!isfinite(vx) || !isfinite(vy))
            continue;
        if (pairs_push(out, vx, vy, T, T + window_ns))
            return -ENOMEM;
    }
    return 0;
}
