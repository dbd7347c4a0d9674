/*
 * calibration.h — `wattcal calibrate`: fits that turn what a node measures
 * into what it draws, stored in the run, and applied to produce estimates
 * that are always tagged "estimated".
 *
 * Two kinds of fit (GSL weighted least squares, validator/fit.h):
 *   zone_utilisation  per RAPL zone: P_zone = P_idle + k · u, with u the node's
 *                     CPU utilisation (0..1, /proc/stat or an imported column)
 *                     over common windows (default 10 s, never shorter than
 *                     the data's own sample spacing: a shorter window would
 *                     invent detail). c0 = P_idle (W), c1 = k (W at u = 1).
 *   truth_meter       per ground-truth source: truth = a · (Σ measured zones) + b
 *                     (platform power and PSU loss), the zones summed as the
 *                     node source (default package + dram), over each truth
 *                     reading's own averaging interval after the estimated lag
 *                     (validator/align.h), weighted by the seconds each reading
 *                     covers. c1 = a, c0 = b (W).
 * Each fit keeps its standard errors, R², RMSE, t and block-bootstrap
 * intervals, and every residual (table calibration_residual).
 *
 * Applying: a truth_meter fit gives estimated wall power a · P_meter + b; a
 * set of zone_utilisation fits covering the node zones gives an estimated
 * node power Σ (P_idle + k · u) from utilisation alone (what an exporter's
 * estimator does on a VM without RAPL), turned into wall power through the
 * latest truth_meter fit when there is one. A fit fitted on the same run is
 * in-sample (it cannot be worse than its residuals); `--apply-from` copies
 * the fits of another run so the estimate is checked out of sample.
 */
#ifndef WC_CALIBRATION_H
#define WC_CALIBRATION_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "common/wc_error.h"
#include "validator/accuracy.h"
#include "validator/align.h"
#include "validator/fit.h"

#define WC_CAL_MAX 16

typedef enum wc_cal_kind { WC_CAL_ZONE_UTIL = 0, WC_CAL_TRUTH_METER = 1 } wc_cal_kind;

/* "zone_utilisation", "truth_meter". */
const char *wc_cal_kind_name(wc_cal_kind k);

/* One fit. */
typedef struct wc_calibration {
    int64_t id;                   /* row id once stored (0 before) */
    wc_cal_kind kind;
    char target[128];             /* the zone name, or the truth source's spec */
    char input[112];              /* "utilisation", or the node source ("meter:package+dram") */
    double window_s;              /* 0 = each truth reading's own interval */
    double lag_s;                 /* truth lag applied (truth_meter) */
    wc_linfit fit;                /* c0 = P_idle or b (W); c1 = k or a */
    char fitted_on[300];          /* "" = this run; else where it was fitted ("A.db, host h, fit #3") */
    char note[256];
    char fitted_run[160];         /* the fingerprint of the run it was fitted on
                                     (wc_store_run_fingerprint); "" unknown (older fits) */
    int here;                     /* wc_calibration_load: fitted on the run it was loaded from
                                     (its own fit, or one copied away and back): in-sample */
    int unusable;                 /* 1: coefficients not identified (wc_calibration_usable); never
                                     stored, never applied */
    char why[320];                /* why unusable, with the numbers */
    /* residuals (not owned after wc_calibration_store: freed by wc_calibration_free) */
    size_t nres;
    double *x, *y;
    int64_t *a_ns, *b_ns;
    double *w;
} wc_calibration;

/* Options of a calibration run (zero = defaults). */
typedef struct wc_cal_opts {
    double window_s;              /* zone fits; default 10 s */
    double truth_window_s;        /* truth fits; 0 (default) = each reading's own interval */
    const char *node_zones[WC_ACC_MAX_ZONES + 1]; /* default package, dram */
    int lag_fixed;
    double lag_s;
    wc_lag_search search;
    wc_boot_cfg boot;
} wc_cal_opts;

/* Whether a fit's coefficients are identified well enough to be applied
 * (issue NU2: `P_idle -1.8e13 ± 1.5e14 W`, R² 0.001, was stored and scored).
 * Not usable when: R^2 < WC_CAL_MIN_R2; the t-based 95 % interval of the
 * intercept (W) or of k (W) is wider than ceiling_w (the run's counter
 * ceiling, run.ceiling_watts; x WC_CAL_TRUTH_CEILINGS for b); the intercept
 * (P_idle or b, W) is below zero
 * beyond its interval or above ceiling_w; a truth fit's a (wall W per meter
 * W) is not above 0 across its 95 % interval (a flat load: any b scores
 * well, so the fit proves nothing); or, for a zone fit whose residuals
 * are at hand, the utilisation spans less than WC_CAL_MIN_UTIL_RANGE.
 * Returns 1 usable, 0 not (why: the reason with the numbers). */
#define WC_CAL_MIN_R2 0.1
/* A truth fit's b is wall power: several zones, platform and PSU loss, so its
 * bounds are this many per-zone ceilings. */
#define WC_CAL_TRUTH_CEILINGS 4
#define WC_CAL_MIN_UTIL_RANGE 0.05
int wc_calibration_usable(const wc_calibration *c, double ceiling_w, char *why, size_t cap);

/* Fits every zone against utilisation and every truth source against the
 * node zones. out receives at most max fits (*n of them), those whose
 * coefficients are not identified marked unusable (with why; a note says
 * so too); fits that cannot be
 * made (no utilisation, no spread, too few windows) are described in
 * notes (one per line). Returns 0, -ENODATA when nothing could be fitted,
 * -EIO/-ENOMEM with err. */
int wc_calibrate(wc_store *st, const wc_cal_opts *o, wc_calibration *out, size_t max,
                 size_t *n, char *notes, size_t notes_cap, wc_error *err);

/* Stores a fit and its residuals (sets c->id). The store must be writable;
 * calibration tables are created when missing. Returns 0, -EINVAL for an
 * unusable fit (never stored), or -EIO/-EROFS. */
int wc_calibration_store(wc_store *st, wc_calibration *c, wc_error *err);

/* Loads the latest stored fits (one per kind and target, the highest id
 * winning) into out; *n of at most max. Residuals are not loaded. Rows whose
 * coefficients are not finite numbers are skipped and counted in *ignored
 * (may be NULL). A run without calibration tables has none. Returns 0 or
 * -EIO. */
int wc_calibration_load(wc_store *st, wc_calibration *out, size_t max, size_t *n,
                        size_t *ignored, wc_error *err);

/* Copies the latest fits of the run `from_path` into st, recording where they
 * came from (fitted_on). Returns the number copied (>= 0), or -errno. */
int wc_calibration_apply_from(wc_store *st, const char *from_path, wc_error *err);

/* Adds the estimate sources the stored fits allow to an accuracy report
 * (after wc_accuracy_load, before wc_accuracy_score): "estimate:wall#N" for
 * the latest truth_meter fit whose input matches the report's node source,
 * and "estimate:util" when zone_utilisation fits cover every node zone (wall
 * power through that truth_meter fit when there is one, else node power).
 * Fits not usable at the run's ceiling (wc_calibration_usable, e.g. stored
 * before that check) give no estimate.
 * Their provenance is "estimated". Returns the number added or -errno. */
int wc_calibration_add_estimates(wc_store *st, const wc_calibration *fits, size_t nfits,
                                 wc_accuracy_report *rep, wc_error *err);

void wc_calibration_free(wc_calibration *c);

#endif
