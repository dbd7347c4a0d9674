/*
 * validation.h — everything `wattcal validate` computes for one run, in one
 * struct: the attribution gap and top workloads (gap.h), node accuracy
 * against ground truth (accuracy.h, with the estimates of any stored
 * calibration), the gap per level with its invariants (levels.h), the
 * workload-class bias (workload_bias.h) and the CI gate (tolerances).
 *
 * Tolerances (`--tolerance metric=value[%|W|s],...`, each a threshold):
 *   node=P%      |bias %| (Σ(source − truth) / Σ truth) of the gated node
 *                source against every truth source, overall and per phase
 *   wape=P%  mape=P%             the same pairs' WAPE / MAPE
 *   mae=W  rmse=W  p95=W  loa=W  absolute errors in watts (loa: the larger
 *                                magnitude of the two limits of agreement)
 *   gap=P%       unattributed energy, % of the zone's active energy
 *   over=P%      over-attributed energy, % of the zone's active energy
 *   invariants=N violations of Σ children ≤ parent allowed per zone
 *   coverage=P%  minimum burst coverage (CPU /proc saw / true CPU)
 *   class-bias=P%  largest |bias factor − 1| of any workload class (node zone)
 *   source=measured  every exporter's power source is "measured" (a fake
 *                meter or an unknown path fails; NO VERDICT, skipped, when
 *                the run holds no exporter data)
 *   exporter-invariants=N  violations of each of the exporter's own
 *                invariants over the run allowed (exporter_check.c; one check
 *                per exporter and invariant; an invariant with too little to
 *                check, or a run without exporter data: NO VERDICT, skipped)
 * The node metrics are the tolerances of the accuracy statistics
 * (validator/stat_table.h: name, unit and how the checked value derives
 * from the statistic); the others are listed here. wc_tol_def_at gives all
 * of them as one table, which --tolerance's parsing, its messages and its
 * help read.
 * A check passes when the point estimate is within its threshold; its 95 %
 * interval is reported beside it ("marginal" when the interval straddles
 * the threshold). A check that cannot be evaluated (no pairs in that phase,
 * a truth source that delivered nothing, no workloads) is NO VERDICT, and
 * a node check on fewer than WC_CHECK_MIN_N pairs is INSUFFICIENT: never
 * passed, and either makes the gate NO VERDICT unless a check failed.
 */
#ifndef WC_VALIDATION_H
#define WC_VALIDATION_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "common/wc_error.h"
#include "validator/accuracy.h"
#include "validator/calibration.h"
#include "validator/exporter_report.h"
#include "validator/cpu_share.h"
#include "validator/gap.h"
#include "validator/levels.h"
#include "validator/showback.h"
#include "validator/stat_table.h"
#include "validator/unit_slips.h"
#include "validator/workload_bias.h"

#define WC_TOL_MAX 16

/* A metric of the gate: an accuracy statistic of the gated node source
 * (which one: wc_tolerance.stat, a row of stat_table.h), or one of the others. */
typedef enum wc_tol_metric {
    WC_TOL_STAT = 0, WC_TOL_GAP, WC_TOL_OVER, WC_TOL_INVARIANTS, WC_TOL_COVERAGE,
    WC_TOL_CLASS_BIAS, WC_TOL_SOURCE, WC_TOL_XP_INVARIANTS,
    WC_TOL_COUNT
} wc_tol_metric;

/* One threshold. */
typedef struct wc_tolerance {
    wc_tol_metric metric;
    const wc_stat *stat;         /* WC_TOL_STAT: the statistic it reads; else NULL */
    double threshold;            /* %, W or a count, per metric */
    char text[48];               /* as given: "node=10%" */
} wc_tolerance;

/* A metric as --tolerance names it: a row of the gate's one table of metrics. */
typedef struct wc_tol_def {
    const char *name;            /* "node", "gap" */
    const char *unit;            /* "%", "W", or "" for a plain count */
    int lower_bound;             /* the threshold is a minimum (coverage) */
    wc_tol_metric metric;
    const wc_stat *stat;         /* WC_TOL_STAT: the statistic; else NULL */
} wc_tol_def;

/* The i-th metric of the gate (i from 0) into *out: first the tolerances of
 * the accuracy statistics (stat_table.h), grouped by unit in the order the
 * table first uses each unit (percentages, then watts), table order within
 * a unit; then gap, over, invariants, coverage, class-bias. Returns 0, or
 * -ENOENT past the last. */
int wc_tol_def_at(size_t i, wc_tol_def *out);

/* The metrics' names in wc_tol_def_at's order into buf (cut to cap):
 * help 0: "node, wape, ..., class-bias" (for messages); help 1: each as
 * name=PLACEHOLDER ("node=P%", "mae=W", "invariants=N"), space-separated, the
 * accuracy metrics on the first line and the others on a second one. */
void wc_tol_names(char *buf, size_t cap, int help);

/* Parses "node=10%,gap=1%,rmse=20W" into tol (appending to *n, at most
 * WC_TOL_MAX). Units are checked per metric (% / W / none). Returns 0 or
 * -EINVAL with err naming the bad item. */
int wc_tolerance_parse(const char *spec, wc_tolerance *tol, size_t *n, wc_error *err);

/* The tolerance's metric name: "node", "wape", "gap", ...; "?" when t holds
 * no metric. */
const char *wc_tolerance_name(const wc_tolerance *t);

/* Outcome of one (phase × metric × threshold) check. WC_CHECK_SKIP is NO
 * VERDICT: the check could not be evaluated (its message names the cause,
 * e.g. a truth source that delivered no reading); WC_CHECK_INSUFFICIENT: a
 * node check read fewer than WC_CHECK_MIN_N pairs, its value is shown but
 * is neither a pass nor a failure. Neither is ever counted as passed. */
typedef enum wc_check_status {
    WC_CHECK_PASS = 0, WC_CHECK_FAIL, WC_CHECK_SKIP, WC_CHECK_INSUFFICIENT
} wc_check_status;

/* The fewest pairs (truth readings, or windows) a node check needs for a
 * PASS or FAIL, overall, per phase and per window: fewer is INSUFFICIENT. */
#define WC_CHECK_MIN_N 5

/* "PASS", "FAIL", "NO VERDICT", "INSUFFICIENT". */
const char *wc_check_status_name(wc_check_status s);

/* The gate as a whole: FAIL when a check failed; else NO VERDICT when a
 * check could not be evaluated or read too few pairs; else PASS; NONE when
 * no tolerance was asked for. */
typedef enum wc_gate_outcome {
    WC_GATE_NONE = 0, WC_GATE_PASS, WC_GATE_FAIL, WC_GATE_NO_VERDICT
} wc_gate_outcome;

/* "none", "PASS", "FAIL", "NO VERDICT". */
const char *wc_gate_outcome_name(wc_gate_outcome g);

typedef struct wc_check {
    char phase[80];              /* "all" or "<phase>#<repetition>" */
    char metric[24];
    char subject[160];           /* source vs truth, or zone, or class */
    double value, lo, hi;        /* value and its 95 % interval (NAN when none) */
    double threshold;
    char unit[4];                /* "%", "W", "" */
    wc_check_status status;
    int marginal;                /* the interval straddles the threshold */
    size_t n;                    /* pairs a node check read; 0 when not a node check */
    /* the signed figure behind a |x| check (node=: bias %; class-bias:
     * factor − 1 in %) and its interval; NAN when the check reads no sign */
    double signed_value, signed_lo, signed_hi;
    char direction[8];           /* "over", "under", "" (no sign, or exactly 0) */
    char message[400];
} wc_check;

/* The value a tolerance of an accuracy statistic checks (stat_table.h's
 * rule: signed, |x|, the larger end of a range) with its interval, into
 * c->value, c->lo, c->hi. Used by validate and by fleet (fleet.h). */
void wc_tol_stat_value(const wc_stat *s, const wc_accuracy *a, wc_check *c);

/* What to compute. */
typedef struct wc_validation_opts {
    wc_acc_opts acc;             /* windows, node zones, MAPE floor, lag, bootstrap */
    double gate_window_s;        /* window of the node checks: 0 native (default) */
    const char *gate_source;     /* source name to gate; NULL: the latest out-of-sample
                                    estimate:wall (fitted on another run), else the meter */
    double levels_window_s;      /* gap-over-time windows; default 60 s */
    wc_tolerance tol[WC_TOL_MAX];
    size_t ntol;
} wc_validation_opts;

/* The whole validation of one run under one model. */
typedef struct wc_validation {
    char model[32];
    int64_t model_id;
    wc_gap_report gap;
    wc_unit_slips slips;         /* unit-slip warnings (validator/unit_slips.h) */
    int have_accuracy;           /* 0 when the run has < 2 ticks */
    wc_accuracy_report acc;
    wc_calibration fits[WC_CAL_MAX];
    size_t nfits;
    size_t fits_ignored;         /* stored fits skipped: coefficients not finite */
    int have_levels;
    wc_levels_report levels;
    wc_bias_report bias;
    wc_xp_report *xp;            /* the exporters' own numbers (exporter_report.h); never NULL
                                    after a successful run (xp->n 0: none) */
    wc_cpu_share_report cpu_share; /* pods' energy share vs cgroup CPU share (package) */
    wc_showback showback;        /* the top pods by energy in gap.rank_zone (showback.h) */
    int gated_source;            /* index of the gated node source, -1 none */
    double gate_window_s;        /* window of the node checks (0 native) */
    wc_check *checks;
    size_t nchecks;
    size_t passed, failed, skipped; /* skipped: NO VERDICT checks */
    size_t insufficient;         /* checks on fewer than WC_CHECK_MIN_N pairs */
    wc_gate_outcome outcome;     /* the gate as a whole */
    char outcome_reason[400];    /* why NO VERDICT or FAIL (the first such check); "" on PASS */
} wc_validation;

/* Runs every analysis on a store that already holds the model's rows.
 * Returns 0, -ENODATA (fewer than 2 ticks: nothing measurable), -ENOENT (no
 * rows for the model), -EINVAL (a bad option for this run, a corrupt clock),
 * -EIO/-ENOMEM with err. */
int wc_validation_run(wc_store *st, wc_model model, const wc_validation_opts *o,
                      wc_validation *v, wc_error *err);

void wc_validation_free(wc_validation *v);

#endif
