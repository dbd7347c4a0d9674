/*
 * stats.h — error statistics of a source against ground truth, with honest
 * 95 % confidence intervals for autocorrelated series.
 *
 * Paired samples (s_i, g_i), watts: s from the source under test, g the
 * ground truth over the same interval; d_i = s_i − g_i.
 *   bias_w      mean d                         bias_pct  100 · Σd / Σg
 *   mae_w       mean |d|                       wape_pct  100 · Σ|d| / Σ|g|
 *   rmse_w      sqrt(mean d²)                  p95_abs_w 95th percentile of |d|
 *   mape_pct    100 · mean(|d| / g) over pairs with g above a floor only
 *               (near idle, relative errors explode)
 *   Bland–Altman: bias ± 1.96 · sd(d) (sd with n − 1): the 95 % limits of
 *               agreement (Bland & Altman 1986).
 * Quantiles: GSL's gsl_stats_quantile_from_sorted_data (linear interpolation
 * between order statistics, Hyndman & Fan type 7).
 *
 * Confidence intervals: moving-block bootstrap (Künsch 1989) — consecutive
 * pairs are autocorrelated (load phases, a BMC's averaging window), so an
 * i.i.d. bootstrap would give intervals far too narrow. Block length
 * b = max(ceil(n^(1/3)), min_block) (the n^(1/3) order of Hall, Horowitz &
 * Jing 1995; min_block = how many consecutive pairs one truth averaging window
 * spans, so a block never splits one dependent stretch), capped at n. Each
 * replicate draws ceil(n / b) block starts uniformly from [0, n − b] with
 * GSL's MT19937 generator seeded with `seed` (default 1), concatenates the
 * blocks and cuts to n pairs; the interval is the 2.5 % and 97.5 % percentiles
 * of `replicates` (default 1000) replicate statistics. Same data and seed →
 * the same interval, bit for bit.
 */
#ifndef WC_STATS_H
#define WC_STATS_H

#include <stddef.h>
#include <stdint.h>

#define WC_BOOT_DEFAULT_REPLICATES 1000
#define WC_BOOT_DEFAULT_SEED 1
/* Pairs needed before any interval is computed. */
#define WC_BOOT_MIN_PAIRS 8

/* Bootstrap settings. */
typedef struct wc_boot_cfg {
    int replicates;       /* >= 100 recommended; <= 0: WC_BOOT_DEFAULT_REPLICATES */
    uint64_t seed;
    size_t min_block;     /* >= 1: dependence floor for the block length */
} wc_boot_cfg;

/* A point estimate with its 95 % interval; lo/hi NAN when not computed
 * (fewer than WC_BOOT_MIN_PAIRS pairs, or the statistic is undefined). */
typedef struct wc_ci {
    double est, lo, hi;
} wc_ci;

/* The block length the bootstrap uses for n pairs (see top of file). */
size_t wc_boot_block_len(size_t n, size_t min_block);

/* Accuracy of one source against ground truth over n pairs. */
typedef struct wc_accuracy {
    size_t n;                 /* pairs scored */
    size_t n_mape;            /* pairs with truth above mape_floor_w */
    double mape_floor_w;
    double mean_source_w, mean_truth_w;
    wc_ci bias_w, bias_pct, mae_w, wape_pct, rmse_w, p95_abs_w, mape_pct;
    double sd_diff_w;         /* sd of d (n − 1) */
    wc_ci loa_lo_w, loa_hi_w; /* Bland–Altman limits of agreement */
    size_t block_len;         /* bootstrap block length used (0: no interval) */
    int replicates;
    uint64_t seed;
} wc_accuracy;

/* Computes every statistic and its interval. source_w/truth_w: n paired
 * values (finite). mape_floor_w: truth at or below it is left out of MAPE
 * (mape NAN when no pair is above). Returns 0, -EINVAL for n == 0, -ENOMEM. */
int wc_accuracy_compute(const double *source_w, const double *truth_w, size_t n,
                        double mape_floor_w, const wc_boot_cfg *cfg, wc_accuracy *out);

/* The share of the top |d| ranks wc_accuracy_compute counts for each
 * replicate's 95th percentile (a replicate holding too few of them is
 * counted in full): a speed setting, never a change of value. */
#define WC_P95_TRACKED_FRACTION 0.2

/* wc_accuracy_compute with the tracked share given (1: every pair counted,
 * the plain O(n)-per-replicate count); the results are identical for any
 * share in (0, 1], which the unit tests check. Same returns. */
int wc_accuracy_compute_tracked(const double *source_w, const double *truth_w, size_t n,
                                double mape_floor_w, const wc_boot_cfg *cfg, double top_fraction,
                                wc_accuracy *out);

/* Bootstrap replicates of the mean of x (n values, autocorrelated): fills
 * reps[replicates] (caller-allocated, cfg->replicates entries after the
 * default is applied: use wc_boot_replicates). Returns 0, -EINVAL (n == 0),
 * -ENOMEM. */
int wc_boot_mean_replicates(const double *x, size_t n, const wc_boot_cfg *cfg, double *reps);

/* cfg->replicates with the default applied. */
int wc_boot_replicates(const wc_boot_cfg *cfg);

/* Mean of x with its block-bootstrap 95 % interval. Returns 0, -EINVAL, -ENOMEM. */
int wc_boot_mean_ci(const double *x, size_t n, const wc_boot_cfg *cfg, wc_ci *out);

/* 2.5 % / 97.5 % percentiles of m replicate values (sorted in place; NANs
 * dropped) into lo/hi; NAN when fewer than 2 finite values. */
void wc_percentile_ci(double *reps, size_t m, double *lo, double *hi);

/* Standard deviation (n − 1) of m replicate values ignoring NANs; NAN if < 2. */
double wc_replicate_sd(const double *reps, size_t m);

#endif
