/*
 * align.h — puts a source series and a ground-truth series on common
 * intervals, after estimating the truth's lag and averaging window.
 *
 * A ground-truth reading averages an interval; it is compared with the
 * source's mean over that same interval, never with the source at the
 * instant the reading was published (cases/B22: a BMC's 1-minute average
 * published at t is the mean of [t − 60 s, t) — compared with the reference
 * at t it shows −25 % / +50 % at load steps, compared over its minute 0 %).
 *
 * Two alignments:
 *  - native: one pair per fresh reading: (source mean over the reading's
 *    interval, reading);
 *  - windows of W seconds from the run start: the truth is the overlap-
 *    weighted mean of the readings whose intervals overlap the window, and the
 *    source is taken through the same weights over the same intervals (the
 *    reference seen through the truth's averaging). A window counts when the
 *    readings cover at least WC_ALIGN_MIN_COVERAGE of it and the source is
 *    defined over every one of those intervals (gaps are gaps). Windows
 *    shorter than the truth's own averaging window are not scored (they would
 *    repeat one reading several times).
 *
 * Lag and window: a reading dated t averages [t − L − w, t − L]. L (the BMC's
 * publishing delay plus clock offset), and w when the device does not state
 * it, are found by a grid search maximising the Pearson correlation between
 * the readings and the source's means over the shifted intervals — a
 * cross-correlation that only load changes can locate; correlation is
 * invariant to the scale and offset between wall power and RAPL. Their 95 %
 * intervals come from a moving-block bootstrap over the readings (the same
 * block rule as stats.h), re-running the grid search on every replicate. In a
 * run without a load step strong enough (correlation at the optimum below
 * WC_ALIGN_MIN_CORR, or a flat correlation curve) the lag is not
 * identifiable: L = 0 is used and the report says so.
 */
#ifndef WC_ALIGN_H
#define WC_ALIGN_H

#include <stddef.h>
#include <stdint.h>

#include "validator/series.h"
#include "validator/stats.h"

#define WC_ALIGN_MIN_COVERAGE 0.8
#define WC_ALIGN_MIN_CORR 0.5
#define WC_ALIGN_MIN_READINGS 10

/* The lag (and window) applied to a truth source, with where they came from. */
typedef struct wc_lagwin {
    double lag_s;                /* applied lag */
    double lag_lo_s, lag_hi_s;   /* 95 % interval (NAN: not estimated) */
    double window_s;             /* estimated averaging window; NAN when the device states its
                                    own (then each reading keeps its stated window) */
    double window_lo_s, window_hi_s;
    int estimated;               /* 1: from the data; 0: given (--lag) or defaulted */
    int identifiable;            /* 0: no load step locates the lag (0 used) */
    double corr;                 /* correlation at the optimum (NAN when not estimated) */
    double corr_at_zero;         /* correlation at lag 0 with the nominal intervals */
    size_t n_used;               /* readings in the estimate */
    size_t block_len;
    int replicates;
    double step_s, max_lag_s, max_window_s;
    char note[200];
} wc_lagwin;

/* Search limits and steps. */
typedef struct wc_lag_search {
    double max_lag_s;            /* default 30 */
    double max_window_s;         /* default 120 (window grid only when the device states none) */
    double step_s;               /* lag grid step; default max(0.25 s, tick spacing / 4) */
    double window_step_s;        /* default the tick spacing (at least 1 s) */
} wc_lag_search;

/* Estimates L (and w when no reading states its window) between ref and t.
 * Returns 0 (out->identifiable says whether it could), -ENOMEM. */
int wc_lagwin_estimate(const wc_cumseries *ref, const wc_truth_series *t,
                       const wc_lag_search *search, const wc_boot_cfg *cfg, wc_lagwin *out);

/* A fixed lag (e.g. --lag 3s), not estimated. */
void wc_lagwin_fixed(double lag_s, wc_lagwin *out);

/* The interval reading r averages under lw: [a − L, b − L], or [b − L − w, b − L]
 * with an estimated window w. */
void wc_lagwin_interval(const wc_lagwin *lw, const wc_truth_reading *r, int64_t *a_ns,
                        int64_t *b_ns);

/* Scored pairs, watts, with the interval each covers. */
typedef struct wc_pairs {
    size_t n, cap;
    double *source_w, *truth_w;
    int64_t *a_ns, *b_ns;
    double weight_s;             /* seconds each pair stands for (window length; native: median) */
    size_t min_block;            /* consecutive pairs one truth averaging window spans */
} wc_pairs;

/* Native pairs whose interval lies inside [lo_ns, hi_ns] (INT64_MIN/MAX for
 * the whole run). Returns 0 or -ENOMEM. */
int wc_align_native(const wc_cumseries *src, const wc_truth_series *t, const wc_lagwin *lw,
                    int64_t lo_ns, int64_t hi_ns, wc_pairs *out);

/* Window pairs: windows [origin + kW, origin + (k+1)W) inside [lo_ns, hi_ns].
 * Returns 0 or -ENOMEM. */
int wc_align_windows(const wc_cumseries *src, const wc_truth_series *t, const wc_lagwin *lw,
                     int64_t origin_ns, int64_t window_ns, int64_t lo_ns, int64_t hi_ns,
                     wc_pairs *out);

/* Window means of two series on the same windows, e.g. a zone's power and the
 * CPU utilisation for a calibration: source_w = x's mean, truth_w = y's mean
 * (rate units) over windows [origin + kW, ...) inside [lo, hi] where both are
 * defined. Returns 0 or -ENOMEM. */
int wc_align_series_windows(const wc_cumseries *x, const wc_cumseries *y, int64_t origin_ns,
                            int64_t window_ns, int64_t lo_ns, int64_t hi_ns, wc_pairs *out);

void wc_pairs_free(wc_pairs *p);

#endif
