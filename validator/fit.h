/*
 * fit.h — straight-line weighted least squares, y = c0 + c1 · x, by GSL
 * (gsl_multifit_wlinear), with standard errors, R², residuals and a
 * moving-block bootstrap interval for both coefficients.
 *
 * Weights are relative (seconds each point stands for), not known 1/σ², so
 * the covariance GSL returns is scaled by the reduced chi-square
 * χ²/(n − 2): the usual standard errors of a weighted regression with an
 * unknown error scale. Those assume independent residuals; residuals of a
 * power time series are not, so the 95 % intervals come from a block
 * bootstrap of the (x, y, w) points (stats.h rule and seed), refitting every
 * replicate. A resample whose x barely varies (a short or flat run: constant
 * utilisation) is discarded and counted; with more than half discarded
 * there is no bootstrap interval at all (issue 14 item 7: never an interval
 * like [−5e12, 62] W). The t-based interval c ± t(0.975, n − 2) · se is
 * reported too.
 * R² = 1 − Σw·r² / Σw·(y − ȳ_w)².
 */
#ifndef WC_FIT_H
#define WC_FIT_H

#include <stddef.h>

#include "validator/stats.h"

/* A fitted line and its uncertainty. */
typedef struct wc_linfit {
    size_t n;
    int dof;                       /* n − 2 */
    double c0, c1;                 /* intercept, slope */
    double se0, se1, cov01;        /* scaled standard errors and covariance */
    double t0_lo, t0_hi, t1_lo, t1_hi; /* c ± t(0.975, dof) · se */
    double b0_lo, b0_hi, b1_lo, b1_hi; /* block-bootstrap 95 % intervals (NAN if n too small) */
    double r2, rmse;               /* weighted R²; sqrt(Σw r² / Σw) in y units */
    double chisq;
    size_t block_len;
    int boot_replicates;           /* resamples drawn (0: no bootstrap, n too small) */
    size_t boot_degenerate;        /* of which discarded: their x spanned less than
                                      WC_FIT_MIN_BOOT_SPREAD of the data's range (constant
                                      utilisation); more than half: no interval (NAN) */
} wc_linfit;

/* A bootstrap resample whose x spans less than this fraction of the data's
 * range is degenerate: its line is noise over a vanishing spread. */
#define WC_FIT_MIN_BOOT_SPREAD 0.01

/* Fits y = c0 + c1 x over n points with weights w (NULL: all 1). Returns 0,
 * -EINVAL when n < 3 or x has no spread, -ENOMEM, -EDOM when GSL fails. */
int wc_linfit_wls(const double *x, const double *y, const double *w, size_t n,
                  const wc_boot_cfg *cfg, wc_linfit *out);

#endif
