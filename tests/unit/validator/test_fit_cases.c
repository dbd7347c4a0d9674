/*
 * test_fit_cases.c — the straight-line fit of `wattcal calibrate`
 * (validator/fit.c) on the project's own fixture tests/fixtures/calibrate:
 * issue 14 item 7, a short run whose utilisation is constant but for one
 * window. Degenerate bootstrap resamples (constant utilisation) are
 * discarded and counted; with more than half of them gone the fit has no
 * bootstrap interval instead of one like [-5e12, 62] W. A healthy ramp
 * keeps every resample and its interval.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/fit.h"
#include "tests/unit/support/test_support.h"

#define NPTS 60

/* Reads "window, utilisation, watts" rows; returns the count. */
static size_t read_points(const char *rel, double *u, double *w, size_t cap)
{
    char *text = wc_test_slurp(wc_own_fixture(rel), NULL);
    size_t n = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        int k;
        if (l[0] == '#')
            continue;
        cr_assert_lt(n, cap);
        cr_assert_eq(sscanf(l, "%d,%lf,%lf", &k, &u[n], &w[n]), 3, "row \"%s\"", l);
        n++;
    }
    free(text);
    return n;
}

Test(fit_cases, degenerate_resamples_are_discarded_and_counted_never_nonsense)
{
    double u[NPTS], w[NPTS];
    cr_assert_eq(read_points("calibrate/one-late-step.csv", u, w, NPTS), NPTS);
    wc_boot_cfg cfg = {.replicates = 1000, .seed = 1, .min_block = 1};
    wc_linfit f;
    cr_assert_eq(wc_linfit_wls(u, w, NULL, NPTS, &cfg, &f), 0);
    /* the point estimate is the data's: 60 W idle, 40 W per busy fraction */
    cr_assert(fabs(f.c0 - 60) < 0.5, "P_idle %.4f", f.c0);
    cr_assert(fabs(f.c1 - 40) < 1.0, "k %.4f", f.c1);
    cr_assert_eq(f.boot_replicates, 1000);
    /* block length 4 over 60 points: about 3 in 4 resamples miss the busy window */
    cr_assert_gt(f.boot_degenerate, 600, "%zu degenerate", f.boot_degenerate);
    cr_assert_lt(f.boot_degenerate, 900, "%zu degenerate", f.boot_degenerate);
    cr_assert(isnan(f.b0_lo) && isnan(f.b0_hi) && isnan(f.b1_lo) && isnan(f.b1_hi),
              "no interval: [%g, %g] / [%g, %g]", f.b0_lo, f.b0_hi, f.b1_lo, f.b1_hi);
}

Test(fit_cases, a_ramp_keeps_every_resample_and_its_interval)
{
    double u[NPTS], w[NPTS];
    for (int i = 0; i < NPTS; i++) {
        u[i] = 0.05 + 0.9 * i / (NPTS - 1);
        w[i] = 60 + 40 * u[i] + (i % 3 == 0 ? 0.5 : i % 3 == 1 ? -0.5 : 0);
    }
    wc_boot_cfg cfg = {.replicates = 1000, .seed = 1, .min_block = 1};
    wc_linfit f;
    cr_assert_eq(wc_linfit_wls(u, w, NULL, NPTS, &cfg, &f), 0);
    cr_assert_eq(f.boot_degenerate, 0);
    cr_assert(f.b0_lo < 60 && f.b0_hi > 60 && f.b0_hi - f.b0_lo < 2, "[%g, %g]", f.b0_lo, f.b0_hi);
    cr_assert(f.b1_lo < 40 && f.b1_hi > 40 && f.b1_hi - f.b1_lo < 4, "[%g, %g]", f.b1_lo, f.b1_hi);
}
