/*
 * fit.c — weighted straight-line fits through GSL (fit.h).
 */
#include "validator/fit.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One GSL weighted fit; fills c0, c1, unscaled cov and chisq. */
static int wls_core(const double *x, const double *y, const double *w, size_t n, double *c0,
                    double *c1, double cov[3], double *chisq)
{
    gsl_matrix *X = gsl_matrix_alloc(n, 2), *C = gsl_matrix_alloc(2, 2);
    gsl_vector *Y = gsl_vector_alloc(n), *W = gsl_vector_alloc(n), *c = gsl_vector_alloc(2);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, 2);
    int rc = (!X || !C || !Y || !W || !c || !ws) ? -ENOMEM : 0;
    if (!rc) {
        for (size_t i = 0; i < n; i++) {
            gsl_matrix_set(X, i, 0, 1.0);
            gsl_matrix_set(X, i, 1, x[i]);
            gsl_vector_set(Y, i, y[i]);
            gsl_vector_set(W, i, w ? w[i] : 1.0);
        }
        if (gsl_multifit_wlinear(X, W, Y, c, C, chisq, ws) != GSL_SUCCESS)
            rc = -EDOM;
    }
    if (!rc) {
        *c0 = gsl_vector_get(c, 0);
        *c1 = gsl_vector_get(c, 1);
        cov[0] = gsl_matrix_get(C, 0, 0);
        cov[1] = gsl_matrix_get(C, 1, 1);
        cov[2] = gsl_matrix_get(C, 0, 1);
    }
    gsl_matrix_free(X);
    gsl_matrix_free(C);
    gsl_vector_free(Y);
    gsl_vector_free(W);
    gsl_vector_free(c);
    if (ws)
        gsl_multifit_linear_free(ws);
    return rc;
}

/* Range (max − min) of x[0..n). */
static double x_range(const double *x, size_t n)
{
    double lo = x[0], hi = x[0];
    for (size_t i = 1; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    return hi - lo;
}

/* Refits one resample; a degenerate one (its x spans less than
 * WC_FIT_MIN_BOOT_SPREAD of the data's range: constant utilisation, whose
 * slope and intercept are noise over a vanishing spread) gives NAN. */
static void boot_refit(const double *bx, const double *by, const double *bw, size_t n,
                       double full_range, double *c0, double *c1)
{
    double cov[3], chisq;
    if (x_range(bx, n) < WC_FIT_MIN_BOOT_SPREAD * full_range ||
        wls_core(bx, by, bw, n, c0, c1, cov, &chisq))
        *c0 = *c1 = NAN;
}

/* Block-bootstrap intervals of both coefficients (refit per replicate).
 * Degenerate resamples are discarded and counted (issue 14 item 7); when
 * more than half are, there is no interval (NAN) rather than nonsense. */
static int boot_coeffs(const double *x, const double *y, const double *w, size_t n,
                       const wc_boot_cfg *cfg, wc_linfit *out)
{
    int m = wc_boot_replicates(cfg);
    size_t b = wc_boot_block_len(n, cfg ? cfg->min_block : 1), nb = (n + b - 1) / b;
    out->block_len = b;
    double *bx = malloc(n * sizeof *bx), *by = malloc(n * sizeof *by), *bw = malloc(n * sizeof *bw);
    double *r0 = malloc((size_t)m * sizeof *r0), *r1 = malloc((size_t)m * sizeof *r1);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = (!bx || !by || !bw || !r0 || !r1 || !rng) ? -ENOMEM : 0;
    if (rng)
        gsl_rng_set(rng, cfg ? (unsigned long)cfg->seed : WC_BOOT_DEFAULT_SEED);
    for (int r = 0; !rc && r < m; r++) {
        size_t k = 0;
        for (size_t blk = 0; blk < nb; blk++) {
            size_t s = (size_t)gsl_rng_uniform_int(rng, (unsigned long)(n - b + 1));
            for (size_t j = s; j < s + b && k < n; j++, k++) {
                bx[k] = x[j];
                by[k] = y[j];
                bw[k] = w ? w[j] : 1.0;
            }
        }
        boot_refit(bx, by, bw, n, x_range(x, n), &r0[r], &r1[r]);
        out->boot_degenerate += isnan(r0[r]);
    }
    out->boot_replicates = m;
    if (!rc && out->boot_degenerate * 2 <= (size_t)m) {
        wc_percentile_ci(r0, (size_t)m, &out->b0_lo, &out->b0_hi);
        wc_percentile_ci(r1, (size_t)m, &out->b1_lo, &out->b1_hi);
    }
    if (rng)
        gsl_rng_free(rng);
    free(bx), free(by), free(bw), free(r0), free(r1);
    return rc;
}

int wc_linfit_wls(const double *x, const double *y, const double *w, size_t n,
                  const wc_boot_cfg *cfg, wc_linfit *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->b0_lo = out->b0_hi = out->b1_lo = out->b1_hi = NAN;
    if (n < 3)
        return -EINVAL;
    double xmin = x[0], xmax = x[0];
    for (size_t i = 1; i < n; i++) {
        xmin = x[i] < xmin ? x[i] : xmin;
        xmax = x[i] > xmax ? x[i] : xmax;
    }
    if (!(xmax > xmin))
        return -EINVAL;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    double cov[3];
    int rc = wls_core(x, y, w, n, &out->c0, &out->c1, cov, &out->chisq);
    if (rc) {
        gsl_set_error_handler(old);
        return rc;
    }
    out->dof = (int)n - 2;
    double scale = out->dof > 0 ? out->chisq / out->dof : NAN;
    out->se0 = sqrt(cov[0] * scale);
    out->se1 = sqrt(cov[1] * scale);
    out->cov01 = cov[2] * scale;
    double t = out->dof > 0 ? gsl_cdf_tdist_Pinv(0.975, out->dof) : NAN;
    out->t0_lo = out->c0 - t * out->se0;
    out->t0_hi = out->c0 + t * out->se0;
    out->t1_lo = out->c1 - t * out->se1;
    out->t1_hi = out->c1 + t * out->se1;
    double sw = 0, swy = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        sw += wi;
        swy += wi * y[i];
    }
    double ybar = swy / sw, tss = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1.0;
        tss += wi * (y[i] - ybar) * (y[i] - ybar);
    }
    out->r2 = tss > 0 ? 1.0 - out->chisq / tss : NAN;
    out->rmse = sqrt(out->chisq / sw);
    if (n >= WC_BOOT_MIN_PAIRS)
        rc = boot_coeffs(x, y, w, n, cfg, out);
    gsl_set_error_handler(old);
    return rc;
}
