/*
 * test_stats.c — the error statistics, the block bootstrap and the fits
 * against values computed independently: fixed pairs whose expected figures
 * were computed with Python's statistics module and a hand-written type-7
 * quantile (values below), NIST StRD "Norris" with its certified regression
 * statistics, and the coverage of the bootstrap intervals on autocorrelated
 * series whose true mean is known.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "validator/fit.h"
#include "validator/stats.h"

static const double TRUTH[12] = {100, 120, 95, 150, 200, 180, 90, 5, 110, 130, 160, 140};
static const double SOURCE[12] = {98, 125, 97, 140, 210, 175, 92, 9, 105, 133, 150, 152};

#define NEAR(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%s = %.15g, expected %.15g", #a, (double)(a), (double)(b))

Test(stats, fixed_pairs_match_independent_values)
{
    wc_accuracy a;
    wc_boot_cfg cfg = {.replicates = 1000, .seed = 1, .min_block = 1};
    cr_assert_eq(wc_accuracy_compute(SOURCE, TRUTH, 12, 10.0, &cfg, &a), 0);
    /* Python: statistics.mean / stdev, sum formulas, type-7 quantile. */
    NEAR(a.bias_w.est, 0.5, 1e-12);
    NEAR(a.bias_pct.est, 0.40540540540540543, 1e-12);
    NEAR(a.mae_w.est, 5.833333333333333, 1e-12);
    NEAR(a.wape_pct.est, 4.72972972972973, 1e-12);
    NEAR(a.rmse_w.est, 6.8068592855540455, 1e-12);
    NEAR(a.p95_abs_w.est, 10.9, 1e-12);
    NEAR(a.mape_pct.est, 4.237561083254864, 1e-12);
    cr_assert_eq(a.n_mape, 11, "the 5 W truth is below the 10 W floor");
    NEAR(a.sd_diff_w, 7.090326316378342, 1e-12);
    NEAR(a.loa_lo_w.est, -13.39703958010155, 1e-12);
    NEAR(a.loa_hi_w.est, 14.39703958010155, 1e-12);
    NEAR(a.mean_source_w, 123.83333333333333, 1e-12);
    NEAR(a.mean_truth_w, 123.33333333333333, 1e-12);
    cr_assert_eq(a.n, 12);
    cr_assert_eq(a.block_len, 3, "ceil(12^(1/3)) = 3");
    /* every interval brackets its estimate */
    const wc_ci *all[] = {&a.bias_w, &a.bias_pct, &a.mae_w, &a.wape_pct, &a.rmse_w, &a.p95_abs_w,
                          &a.mape_pct, &a.loa_lo_w, &a.loa_hi_w};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        cr_assert(isfinite(all[i]->lo) && isfinite(all[i]->hi), "interval %zu", i);
        cr_assert(all[i]->lo <= all[i]->hi, "interval %zu ordered", i);
    }
    cr_assert(a.bias_w.lo <= 0.5 && a.bias_w.hi >= 0.5);
}

Test(stats, mape_without_any_truth_above_the_floor_is_undefined)
{
    wc_accuracy a;
    cr_assert_eq(wc_accuracy_compute(SOURCE, TRUTH, 12, 1000.0, NULL, &a), 0);
    cr_assert(isnan(a.mape_pct.est));
    cr_assert_eq(a.n_mape, 0);
    cr_assert(isfinite(a.bias_w.est));
}

Test(stats, too_few_pairs_give_no_interval)
{
    wc_accuracy a;
    cr_assert_eq(wc_accuracy_compute(SOURCE, TRUTH, 5, 10.0, NULL, &a), 0);
    cr_assert(isfinite(a.bias_w.est));
    cr_assert(isnan(a.bias_w.lo) && isnan(a.bias_w.hi), "5 pairs < WC_BOOT_MIN_PAIRS");
    cr_assert_eq(a.block_len, 0);
    cr_assert_eq(wc_accuracy_compute(SOURCE, TRUTH, 0, 10.0, NULL, &a), -EINVAL);
}

Test(stats, same_seed_same_interval_other_seed_other_interval)
{
    wc_accuracy a, b, c;
    wc_boot_cfg s1 = {.replicates = 500, .seed = 42}, s2 = {.replicates = 500, .seed = 43};
    cr_assert_eq(wc_accuracy_compute(SOURCE, TRUTH, 12, 10, &s1, &a), 0);
    cr_assert_eq(wc_accuracy_compute(SOURCE, TRUTH, 12, 10, &s1, &b), 0);
    cr_assert_eq(wc_accuracy_compute(SOURCE, TRUTH, 12, 10, &s2, &c), 0);
    cr_assert_eq(a.bias_w.lo, b.bias_w.lo);
    cr_assert_eq(a.p95_abs_w.hi, b.p95_abs_w.hi);
    cr_assert(a.bias_w.lo != c.bias_w.lo || a.bias_w.hi != c.bias_w.hi);
}

/* Every field of two accuracy results, bit for bit (NaN equal to NaN). */
static void same_accuracy(const wc_accuracy *a, const wc_accuracy *b, const char *what)
{
    const wc_ci *x[] = {&a->bias_w, &a->bias_pct, &a->mae_w, &a->wape_pct, &a->rmse_w,
                        &a->p95_abs_w, &a->mape_pct, &a->loa_lo_w, &a->loa_hi_w};
    const wc_ci *y[] = {&b->bias_w, &b->bias_pct, &b->mae_w, &b->wape_pct, &b->rmse_w,
                        &b->p95_abs_w, &b->mape_pct, &b->loa_lo_w, &b->loa_hi_w};
    for (size_t k = 0; k < sizeof x / sizeof *x; k++) {
        double u[3] = {x[k]->est, x[k]->lo, x[k]->hi}, v[3] = {y[k]->est, y[k]->lo, y[k]->hi};
        for (int i = 0; i < 3; i++)
            cr_assert((isnan(u[i]) && isnan(v[i])) || u[i] == v[i],
                      "%s: statistic %zu part %d: %.17g vs %.17g", what, k, i, u[i], v[i]);
    }
    cr_assert_eq(a->block_len, b->block_len, "%s", what);
}

/* The 95th percentile's replicates count only the top ranks' pairs (a speed
 * setting): on heavy-tailed, tied, constant and short series the intervals
 * equal those of counting every pair, whatever share is tracked — including
 * shares so small that most replicates fall back to the full count. */
Test(stats, tracked_percentile_equals_the_full_count)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    size_t sizes[] = {10, 37, 400, 5000};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        double *src = malloc(n * sizeof *src), *tru = malloc(n * sizeof *tru);
        for (int shape = 0; shape < 3; shape++) {
            for (size_t i = 0; i < n; i++) {
                tru[i] = 100 + 20 * sin((double)i / 50);
                double e = shape == 0   ? gsl_ran_cauchy(r, 2)             /* heavy tails */
                           : shape == 1 ? (double)gsl_rng_uniform_int(r, 4) /* ties */
                                        : 3.0;                             /* constant */
                src[i] = tru[i] + e;
            }
            wc_boot_cfg cfg = {.replicates = 300, .seed = 11 + si};
            wc_accuracy full, part;
            cr_assert_eq(wc_accuracy_compute_tracked(src, tru, n, 10, &cfg, 1.0, &full), 0);
            double shares[] = {WC_P95_TRACKED_FRACTION, 0.06, 0.01};
            for (size_t k = 0; k < sizeof shares / sizeof *shares; k++) {
                char what[64];
                snprintf(what, sizeof what, "n %zu shape %d share %g", n, shape, shares[k]);
                cr_assert_eq(wc_accuracy_compute_tracked(src, tru, n, 10, &cfg, shares[k], &part), 0);
                same_accuracy(&full, &part, what);
            }
        }
        free(src);
        free(tru);
    }
    gsl_rng_free(r);
}

Test(stats, block_length_rule)
{
    cr_assert_eq(wc_boot_block_len(1000, 1), 10);
    cr_assert_eq(wc_boot_block_len(1001, 1), 11);
    cr_assert_eq(wc_boot_block_len(100, 30), 30, "the dependence floor wins");
    cr_assert_eq(wc_boot_block_len(10, 30), 10, "capped at n");
    cr_assert_eq(wc_boot_block_len(0, 1), 0);
}

/* AR(1) series with mean mu: x_t = mu + phi (x_{t-1} - mu) + e_t. */
static void ar1(gsl_rng *r, double *x, size_t n, double mu, double phi)
{
    double v = 0;
    for (size_t i = 0; i < n + 100; i++) {
        v = phi * v + gsl_ran_gaussian(r, 1.0);
        if (i >= 100)
            x[i - 100] = mu + v;
    }
}

Test(stats, block_bootstrap_intervals_cover_the_true_mean_of_autocorrelated_series)
{
    /* With phi = 0.6 an i.i.d. bootstrap interval covers the mean only
     * about 60 % of the time; the block bootstrap must stay near 95 %. */
    enum { SIMS = 200, N = 500 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2026);
    double *x = malloc(N * sizeof *x);
    int covered = 0;
    for (int s = 0; s < SIMS; s++) {
        ar1(r, x, N, 5.0, 0.6);
        wc_ci ci;
        wc_boot_cfg cfg = {.replicates = 400, .seed = (uint64_t)s + 1};
        cr_assert_eq(wc_boot_mean_ci(x, N, &cfg, &ci), 0);
        covered += ci.lo <= 5.0 && ci.hi >= 5.0;
    }
    free(x);
    gsl_rng_free(r);
    cr_assert(covered >= SIMS * 85 / 100 && covered <= SIMS * 99 / 100,
              "coverage %d of %d, expected about 95 %%", covered, SIMS);
}

/* NIST StRD Norris (https://www.itl.nist.gov/div898/strd/lls/data/Norris.shtml),
 * observed ozone-monitor calibration data with certified statistics. */
static const double NORRIS_Y[36] = {
    0.1,   338.8, 118.1, 888.0, 9.2,   228.1, 668.5, 998.5, 449.1, 778.9, 559.2, 0.3,
    0.1,   778.1, 668.8, 339.3, 448.9, 10.8,  557.7, 228.3, 998.0, 888.8, 119.6, 0.3,
    0.6,   557.6, 339.3, 888.0, 998.5, 778.9, 10.2,  117.6, 228.9, 668.4, 449.2, 0.2};
static const double NORRIS_X[36] = {
    0.2,   337.4, 118.2, 884.6, 10.1,  226.5, 666.3, 996.3, 448.6, 777.0, 558.2, 0.4,
    0.6,   775.5, 666.9, 338.0, 447.5, 11.6,  556.0, 228.1, 995.8, 887.6, 120.2, 0.3,
    0.3,   556.8, 339.1, 887.2, 999.0, 779.0, 11.1,  118.3, 229.2, 669.1, 448.9, 0.5};

Test(fit, nist_norris_certified_values)
{
    wc_linfit f;
    cr_assert_eq(wc_linfit_wls(NORRIS_X, NORRIS_Y, NULL, 36, NULL, &f), 0);
    NEAR(f.c0, -0.262323073774029, 1e-9);
    NEAR(f.c1, 1.00211681802045, 1e-12);
    NEAR(f.se0, 0.232818234301152, 1e-9);
    NEAR(f.se1, 0.429796848199937E-03, 1e-12);
    NEAR(f.r2, 0.999993745883712, 1e-12);
    NEAR(f.chisq, 26.6173985294224, 1e-7);
    NEAR(sqrt(f.chisq / f.dof), 0.884796396144373, 1e-9); /* certified residual SD */
    cr_assert_eq(f.dof, 34);
    cr_assert(f.b1_lo < f.c1 && f.b1_hi > f.c1, "bootstrap interval brackets the slope");
    cr_assert(f.t1_lo < f.c1 && f.t1_hi > f.c1);
}

Test(fit, a_weight_of_two_equals_the_point_counted_twice)
{
    double x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {2.1, 3.9, 6.2, 7.8, 10.1, 12.3};
    double w[6] = {1, 1, 2, 1, 1, 1};
    double x2[7] = {1, 2, 3, 3, 4, 5, 6}, y2[7] = {2.1, 3.9, 6.2, 6.2, 7.8, 10.1, 12.3};
    wc_linfit a, b;
    cr_assert_eq(wc_linfit_wls(x, y, w, 6, NULL, &a), 0);
    cr_assert_eq(wc_linfit_wls(x2, y2, NULL, 7, NULL, &b), 0);
    NEAR(a.c0, b.c0, 1e-12);
    NEAR(a.c1, b.c1, 1e-12);
    NEAR(a.r2, b.r2, 1e-12);
}

Test(fit, no_spread_in_x_is_refused)
{
    double x[5] = {3, 3, 3, 3, 3}, y[5] = {1, 2, 3, 4, 5};
    wc_linfit f;
    cr_assert_eq(wc_linfit_wls(x, y, NULL, 5, NULL, &f), -EINVAL);
    cr_assert_eq(wc_linfit_wls(x, y, NULL, 2, NULL, &f), -EINVAL);
}
