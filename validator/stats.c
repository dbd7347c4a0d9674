/*
 * stats.c — accuracy statistics and the moving-block bootstrap (stats.h).
 *
 * Point estimates use GSL's statistics and sorting. A bootstrap replicate is
 * a sequence of blocks of consecutive pairs; every statistic here is a
 * function of sums over the pairs except the 95th percentile, so replicates
 * are computed from prefix sums (O(n / b) per replicate) and the percentile
 * from counts over the ranks of |d|, never by copying and sorting each
 * replicate. Only the top ranks can hold a replicate's 95th percentile, so
 * only pairs ranked in the top WC_P95_TRACKED_FRACTION are counted (their
 * positions listed once, O(n / b + 0.2 n) per replicate); a replicate with
 * too few of them to reach its percentile position is counted in full. Both
 * give the same value: the tracked count is exact, not an approximation.
 */
#include "validator/stats.h"

#include <errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define Q_LO 0.025
#define Q_HI 0.975
#define LOA_Z 1.96

int wc_boot_replicates(const wc_boot_cfg *cfg)
{
    return cfg && cfg->replicates > 0 ? cfg->replicates : WC_BOOT_DEFAULT_REPLICATES;
}

size_t wc_boot_block_len(size_t n, size_t min_block)
{
    if (n == 0)
        return 0;
    size_t b = (size_t)ceil(cbrt((double)n));
    if (b < min_block)
        b = min_block;
    if (b < 1)
        b = 1;
    return b > n ? n : b;
}

void wc_percentile_ci(double *reps, size_t m, double *lo, double *hi)
{
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (isfinite(reps[i]))
            reps[k++] = reps[i];
    if (k < 2) {
        *lo = *hi = NAN;
        return;
    }
    gsl_sort(reps, 1, k);
    *lo = gsl_stats_quantile_from_sorted_data(reps, 1, k, Q_LO);
    *hi = gsl_stats_quantile_from_sorted_data(reps, 1, k, Q_HI);
}

double wc_replicate_sd(const double *reps, size_t m)
{
    double *c = malloc((m ? m : 1) * sizeof *c);
    if (!c)
        return NAN;
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (isfinite(reps[i]))
            c[k++] = reps[i];
    double sd = k >= 2 ? gsl_stats_sd(c, 1, k) : NAN;
    free(c);
    return sd;
}

/* A seeded generator and the block layout shared by one bootstrap run. */
typedef struct boot_plan {
    gsl_rng *rng;
    size_t n, b, nblocks;
} boot_plan;

static int plan_init(boot_plan *p, size_t n, const wc_boot_cfg *cfg)
{
    p->n = n;
    p->b = wc_boot_block_len(n, cfg ? cfg->min_block : 1);
    p->nblocks = (n + p->b - 1) / p->b;
    p->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!p->rng)
        return -ENOMEM;
    gsl_rng_set(p->rng, cfg ? (unsigned long)cfg->seed : WC_BOOT_DEFAULT_SEED);
    return 0;
}

/* Start of the next block and its length (the last block is cut to n). */
static size_t plan_block(boot_plan *p, size_t k, size_t *len)
{
    size_t start = (size_t)gsl_rng_uniform_int(p->rng, (unsigned long)(p->n - p->b + 1));
    size_t remaining = p->n - k * p->b;
    *len = remaining < p->b ? remaining : p->b;
    return start;
}

/* Prefix sums of nf features: pre[f * (n + 1) + i] = Σ_{j<i} feature f of pair j. */
typedef struct prefix {
    size_t n, nf;
    double *v;
} prefix;

static double pre_sum(const prefix *p, size_t f, size_t start, size_t len)
{
    const double *row = p->v + f * (p->n + 1);
    return row[start + len] - row[start];
}

int wc_boot_mean_replicates(const double *x, size_t n, const wc_boot_cfg *cfg, double *reps)
{
    if (!n)
        return -EINVAL;
    int m = wc_boot_replicates(cfg);
    double *pre = malloc((n + 1) * sizeof *pre);
    boot_plan p;
    if (!pre || plan_init(&p, n, cfg)) {
        free(pre);
        return -ENOMEM;
    }
    pre[0] = 0;
    for (size_t i = 0; i < n; i++)
        pre[i + 1] = pre[i] + x[i];
    for (int r = 0; r < m; r++) {
        double sum = 0;
        for (size_t k = 0; k < p.nblocks; k++) {
            size_t len, s = plan_block(&p, k, &len);
            sum += pre[s + len] - pre[s];
        }
        reps[r] = sum / (double)n;
    }
    gsl_rng_free(p.rng);
    free(pre);
    return 0;
}

int wc_boot_mean_ci(const double *x, size_t n, const wc_boot_cfg *cfg, wc_ci *out)
{
    if (!n)
        return -EINVAL;
    out->est = gsl_stats_mean(x, 1, n);
    out->lo = out->hi = NAN;
    if (n < WC_BOOT_MIN_PAIRS)
        return 0;
    int m = wc_boot_replicates(cfg);
    double *reps = malloc((size_t)m * sizeof *reps);
    if (!reps)
        return -ENOMEM;
    int rc = wc_boot_mean_replicates(x, n, cfg, reps);
    if (!rc)
        wc_percentile_ci(reps, (size_t)m, &out->lo, &out->hi);
    free(reps);
    return rc;
}

/* Features summed for every statistic but the percentile. */
enum { F_D, F_ABS, F_SQ, F_G, F_APE, F_IND, NF };

/* Statistics of one (replicate) sample from its sums; n pairs. */
typedef struct sums_stats {
    double bias, bias_pct, mae, wape, rmse, mape, sd, loa_lo, loa_hi;
} sums_stats;

static sums_stats from_sums(const double *sum, double n)
{
    sums_stats r;
    r.bias = sum[F_D] / n;
    r.bias_pct = sum[F_G] != 0 ? 100.0 * sum[F_D] / sum[F_G] : NAN;
    r.mae = sum[F_ABS] / n;
    r.wape = sum[F_G] != 0 ? 100.0 * sum[F_ABS] / sum[F_G] : NAN;
    r.rmse = sqrt(sum[F_SQ] / n);
    r.mape = sum[F_IND] > 0 ? 100.0 * sum[F_APE] / sum[F_IND] : NAN;
    double var = n > 1 ? (sum[F_SQ] - sum[F_D] * sum[F_D] / n) / (n - 1) : NAN;
    r.sd = var > 0 ? sqrt(var) : 0;
    r.loa_lo = r.bias - LOA_Z * r.sd;
    r.loa_hi = r.bias + LOA_Z * r.sd;
    return r;
}

/* The type-7 quantile q of a multiset of total values, the smallest seen0
 * of which are below sorted[0] and the rest sorted value k occurring
 * count[k] times (seen0 = 0: the whole multiset). The caller makes sure the
 * quantile's position is not among the first seen0. */
static double counted_quantile(const double *sorted, const unsigned *count, size_t n,
                               size_t total, size_t seen0, double q)
{
    double h = q * (double)(total - 1);
    size_t lo = (size_t)floor(h), hi = lo + 1 < total ? lo + 1 : lo;
    double delta = h - (double)lo, v_lo = 0, v_hi = 0;
    int have_lo = 0;
    size_t seen = seen0;
    for (size_t k = 0; k < n; k++) {
        size_t next = seen + count[k];
        if (!have_lo && lo < next) {
            v_lo = sorted[k];
            have_lo = 1;
        }
        if (hi < next) {
            v_hi = sorted[k];
            break;
        }
        seen = next;
    }
    return (1 - delta) * v_lo + delta * v_hi;
}

/* The pairs a replicate's 95th percentile is counted over: those whose rank
 * (in the |d| order) is at least r0, listed by position, with the number of
 * them before each position (tpos[tcum[i] .. tcum[i + len]) lie in a block
 * [i, i + len)). r0 = 0 counts every pair (the full count). */
typedef struct p95_track {
    size_t n, r0, ntop;
    size_t *tpos, *tcum;
    unsigned *count;              /* per rank − r0 */
} p95_track;

static void track_free(p95_track *t)
{
    free(t->tpos);
    free(t->tcum);
    free(t->count);
}

static int track_init(p95_track *t, const size_t *rank, size_t n, double fraction)
{
    double f = fraction > 0 && fraction < 1 ? fraction : 1;
    *t = (p95_track){.n = n, .r0 = f >= 1 ? 0 : (size_t)floor((1 - f) * (double)n)};
    t->tpos = malloc((n ? n : 1) * sizeof *t->tpos);
    t->tcum = malloc((n + 1) * sizeof *t->tcum);
    t->count = malloc((n - t->r0 ? n - t->r0 : 1) * sizeof *t->count);
    if (!t->tpos || !t->tcum || !t->count)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        t->tcum[i] = t->ntop;
        if (rank[i] >= t->r0)
            t->tpos[t->ntop++] = i;
    }
    t->tcum[n] = t->ntop;
    return 0;
}

/* Counts the tracked pairs of block [s, s + len); returns how many. */
static size_t track_block(p95_track *t, const size_t *rank, size_t s, size_t len)
{
    size_t a = t->tcum[s], b = t->tcum[s + len];
    for (size_t k = a; k < b; k++)
        t->count[rank[t->tpos[k]] - t->r0]++;
    return b - a;
}

/* Whether the type-7 quantile q of total values lies among the largest c. */
static int within_top(size_t total, size_t c, double q)
{
    return c > 0 && (size_t)floor(q * (double)(total - 1)) >= total - c;
}

/* One replicate's 95th percentile of |d|: counted over the tracked pairs of
 * its blocks, or over every pair (full) when they cannot reach it. blocks:
 * the replicate's nblocks starts, then their lengths. */
static double replicate_p95(p95_track *t, p95_track *full, const size_t *rank,
                            const double *abs_sorted, const size_t *blocks, size_t nblocks)
{
    memset(t->count, 0, (t->n - t->r0) * sizeof *t->count);
    size_t c = 0;
    for (size_t k = 0; k < nblocks; k++)
        c += track_block(t, rank, blocks[k], blocks[nblocks + k]);
    if (within_top(t->n, c, 0.95)) /* ranks below r0 fill the first n − c places */
        return counted_quantile(abs_sorted + t->r0, t->count, t->n - t->r0, t->n, t->n - c, 0.95);
    memset(full->count, 0, full->n * sizeof *full->count);
    for (size_t k = 0; k < nblocks; k++)
        track_block(full, rank, blocks[k], blocks[nblocks + k]);
    return counted_quantile(abs_sorted, full->count, full->n, full->n, 0, 0.95);
}

enum { R_BIAS, R_BIASP, R_MAE, R_WAPE, R_RMSE, R_MAPE, R_P95, R_LOA_LO, R_LOA_HI, NR };

/* One bootstrap replicate r of m into reps[k * m + r] for every statistic k. */
static void one_replicate(boot_plan *p, const prefix *pre, p95_track *top, p95_track *full,
                          const size_t *rank, const double *abs_sorted, size_t *blocks,
                          double *reps, int m, int r)
{
    double sum[NF] = {0};
    for (size_t k = 0; k < p->nblocks; k++) {
        blocks[k] = plan_block(p, k, &blocks[p->nblocks + k]);
        for (size_t f = 0; f < NF; f++)
            sum[f] += pre_sum(pre, f, blocks[k], blocks[p->nblocks + k]);
    }
    sums_stats st = from_sums(sum, (double)pre->n);
    double v[NR] = {st.bias, st.bias_pct, st.mae, st.wape, st.rmse, st.mape, 0, st.loa_lo,
                    st.loa_hi};
    v[R_P95] = replicate_p95(top, full, rank, abs_sorted, blocks, p->nblocks);
    for (int k = 0; k < NR; k++)
        reps[(size_t)k * (size_t)m + (size_t)r] = v[k];
}

/* The bootstrap part of wc_accuracy_compute; top_fraction: the share of
 * ranks whose pairs are tracked for the percentile (1: all). */
static int accuracy_intervals(const prefix *pre, const double *abs_sorted, const size_t *rank,
                              const wc_boot_cfg *cfg, double top_fraction, wc_accuracy *out)
{
    size_t n = pre->n;
    int m = wc_boot_replicates(cfg);
    double *reps = malloc((size_t)m * NR * sizeof *reps);
    size_t *blocks = NULL;
    boot_plan p = {0};
    p95_track top = {0}, full = {0};
    int rc = reps && !plan_init(&p, n, cfg) ? 0 : -ENOMEM;
    if (!rc && (!(blocks = malloc(2 * p.nblocks * sizeof *blocks)) ||
                track_init(&top, rank, n, top_fraction) || track_init(&full, rank, n, 1)))
        rc = -ENOMEM;
    out->block_len = rc ? 0 : p.b;
    for (int r = 0; !rc && r < m; r++)
        one_replicate(&p, pre, &top, &full, rank, abs_sorted, blocks, reps, m, r);
    wc_ci *dst[NR] = {&out->bias_w, &out->bias_pct, &out->mae_w, &out->wape_pct, &out->rmse_w,
                      &out->mape_pct, &out->p95_abs_w, &out->loa_lo_w, &out->loa_hi_w};
    for (int k = 0; !rc && k < NR; k++)
        if (isfinite(dst[k]->est))
            wc_percentile_ci(reps + (size_t)k * (size_t)m, (size_t)m, &dst[k]->lo, &dst[k]->hi);
    track_free(&top);
    track_free(&full);
    if (p.rng)
        gsl_rng_free(p.rng);
    free(reps);
    free(blocks);
    return rc;
}

/* wc_accuracy_compute's working arrays: prefix sums of the per-pair
 * features, the differences, their absolute values sorted, and each pair's
 * rank in that order. */
typedef struct acc_work {
    prefix pre;
    double *d, *absd, *abs_sorted;
    size_t *rank, *order;
} acc_work;

static void acc_work_free(acc_work *w)
{
    free(w->pre.v);
    free(w->d);
    free(w->absd);
    free(w->rank);
    free(w->order);
    free(w->abs_sorted);
}

static int acc_work_init(acc_work *w, size_t n)
{
    *w = (acc_work){.pre = {.n = n, .nf = NF, .v = malloc(NF * (n + 1) * sizeof(double))}};
    w->d = malloc(n * sizeof *w->d);
    w->absd = malloc(n * sizeof *w->absd);
    w->rank = malloc(n * sizeof *w->rank);
    w->order = malloc(n * sizeof *w->order);
    w->abs_sorted = malloc(n * sizeof *w->abs_sorted);
    if (!w->pre.v || !w->d || !w->absd || !w->rank || !w->order || !w->abs_sorted)
        return -ENOMEM;
    return 0;
}

/* Differences, their prefix sums, and the count of pairs above the MAPE floor. */
static void fill_diffs(const double *source_w, const double *truth_w, double mape_floor_w,
                       acc_work *w, wc_accuracy *out)
{
    size_t n = w->pre.n;
    for (size_t f = 0; f < NF; f++)
        w->pre.v[f * (n + 1)] = 0;
    for (size_t i = 0; i < n; i++) {
        w->d[i] = source_w[i] - truth_w[i];
        w->absd[i] = fabs(w->d[i]);
        int above = truth_w[i] > mape_floor_w;
        double feat[NF] = {w->d[i], w->absd[i], w->d[i] * w->d[i], fabs(truth_w[i]),
                           above ? w->absd[i] / truth_w[i] : 0, above ? 1.0 : 0.0};
        for (size_t f = 0; f < NF; f++)
            w->pre.v[f * (n + 1) + i + 1] = w->pre.v[f * (n + 1) + i] + feat[f];
        out->n_mape += (size_t)above;
    }
}

/* The point estimates of every statistic (intervals NaN), and the sorted
 * absolute differences with each pair's rank for the bootstrap. */
static void point_estimates(const double *source_w, const double *truth_w, acc_work *w,
                            wc_accuracy *out)
{
    size_t n = w->pre.n;
    out->mean_source_w = gsl_stats_mean(source_w, 1, n);
    out->mean_truth_w = gsl_stats_mean(truth_w, 1, n);
    double sum[NF];
    for (size_t f = 0; f < NF; f++)
        sum[f] = pre_sum(&w->pre, f, 0, n);
    sums_stats st = from_sums(sum, (double)n);
    /* Point estimates through GSL where it has the statistic. */
    st.bias = gsl_stats_mean(w->d, 1, n);
    st.mae = gsl_stats_mean(w->absd, 1, n);
    st.sd = n > 1 ? gsl_stats_sd_m(w->d, 1, n, st.bias) : NAN;
    out->sd_diff_w = st.sd;
    gsl_sort_index(w->order, w->absd, 1, n);
    for (size_t k = 0; k < n; k++) {
        w->abs_sorted[k] = w->absd[w->order[k]];
        w->rank[w->order[k]] = k;
    }
    double p95 = gsl_stats_quantile_from_sorted_data(w->abs_sorted, 1, n, 0.95);
    wc_ci *all[] = {&out->bias_w, &out->bias_pct, &out->mae_w, &out->wape_pct, &out->rmse_w,
                    &out->mape_pct, &out->p95_abs_w, &out->loa_lo_w, &out->loa_hi_w};
    double est[] = {st.bias, st.bias_pct, st.mae, st.wape, st.rmse, st.mape, p95,
                    st.bias - LOA_Z * (isnan(st.sd) ? 0 : st.sd),
                    st.bias + LOA_Z * (isnan(st.sd) ? 0 : st.sd)};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        *all[k] = (wc_ci){est[k], NAN, NAN};
}

int wc_accuracy_compute(const double *source_w, const double *truth_w, size_t n,
                        double mape_floor_w, const wc_boot_cfg *cfg, wc_accuracy *out)
{
    return wc_accuracy_compute_tracked(source_w, truth_w, n, mape_floor_w, cfg,
                                       WC_P95_TRACKED_FRACTION, out);
}

int wc_accuracy_compute_tracked(const double *source_w, const double *truth_w, size_t n,
                                double mape_floor_w, const wc_boot_cfg *cfg, double top_fraction,
                                wc_accuracy *out)
{
    memset(out, 0, sizeof *out);
    out->mape_floor_w = mape_floor_w;
    out->replicates = wc_boot_replicates(cfg);
    out->seed = cfg ? cfg->seed : WC_BOOT_DEFAULT_SEED;
    if (!n)
        return -EINVAL;
    out->n = n;
    acc_work w;
    int rc = acc_work_init(&w, n);
    if (!rc) {
        fill_diffs(source_w, truth_w, mape_floor_w, &w, out);
        point_estimates(source_w, truth_w, &w, out);
        if (n < 2)
            out->loa_lo_w.est = out->loa_hi_w.est = NAN;
        else if (n >= WC_BOOT_MIN_PAIRS)
            rc = accuracy_intervals(&w.pre, w.abs_sorted, w.rank, cfg, top_fraction, out);
    }
    acc_work_free(&w);
    return rc;
}
