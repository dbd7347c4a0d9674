/*
 * diff.h — version comparison (`wattcal diff`): the energy of the top-N
 * pods, containers and process names under two exporter versions, side by
 * side, with the differences, their 95 % intervals and a verdict.
 *
 * Two forms:
 *  - two runs (before and after an upgrade, or one node on each version):
 *    each side's mean power per workload (W = its attributed energy over the
 *    run's full windows / their duration) with a block-bootstrap interval
 *    over its window series; the two sides are independent, so the
 *    difference's interval pairs independent replicates. Workloads are
 *    matched by pod uid, container id, or process name (comm) — never pid;
 *  - one run re-attributed under two reference models (kepler-0.11 vs
 *    kepler-head): the same samples, so the difference is exact in total and
 *    its interval comes from the bootstrap of the per-window differences
 *    (paired): what an upgrade moves, before it is rolled out.
 * Verdict per workload against a band B = max(T % of side A's mean power,
 * the noise floor F W, --min-change-watts, default 0.5 W): "changed" when
 * |difference| > B and its interval excludes 0 (so a change below F W is
 * never CHANGED); "same" when the whole interval lies within ±B; "inconclusive" otherwise (also when a
 * side has fewer than 8 full windows: no interval); "new" or "gone" when one
 * side has none of it — reported, never a failure. Namespaces are not recorded (wattcal
 * has no kubelet informer: pods are known by uid from cgroup paths), so they
 * are not compared.
 */
#ifndef WC_DIFF_H
#define WC_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "common/wc_error.h"
#include "validator/stats.h"

#define WC_DIFF_MAX_TOP 50
#define WC_DIFF_MIN_CHANGE_W 0.5  /* --min-change-watts default */

typedef enum wc_diff_level { WC_DIFF_POD = 0, WC_DIFF_CONTAINER, WC_DIFF_COMM, WC_DIFF_NLEVELS } wc_diff_level;

/* "pod", "container", "process name". */
const char *wc_diff_level_name(wc_diff_level l);

typedef enum wc_diff_verdict {
    WC_DIFF_SAME = 0, WC_DIFF_CHANGED, WC_DIFF_INCONCLUSIVE, WC_DIFF_NEW, WC_DIFF_GONE
} wc_diff_verdict;

/* "same", "CHANGED", "inconclusive", "new", "gone". */
const char *wc_diff_verdict_name(wc_diff_verdict v);

/* One side of the comparison. */
typedef struct wc_diff_side {
    wc_store *st;                 /* the run (the same store on both sides: paired) */
    int64_t model_id;
    char model[32];
    char label[160];              /* db path (and model) */
    char host[128];
    char provenance[32];          /* meter provenance of the run */
} wc_diff_side;

/* One workload compared. */
typedef struct wc_diff_row {
    char key[128];                /* pod uid, container id or comm */
    double a_j, b_j;              /* attributed energy over each side's full windows (J):
                                     its mean power × the windows' length, so J and W agree */
    wc_ci a_w, b_w;               /* mean power over each run's full windows (W) */
    wc_ci diff_w;                 /* b − a */
    double diff_pct;              /* 100 · (b − a) / a (NAN when a is 0) */
    wc_diff_verdict verdict;
} wc_diff_row;

typedef struct wc_diff_table {
    wc_diff_level level;
    size_t n;
    wc_diff_row rows[WC_DIFF_MAX_TOP];
    size_t keys_a, keys_b;        /* workloads with energy on each side */
    int64_t excluded_a, excluded_b; /* Kepler's NEGATIVE_SHARE rows of the level in the zone
                                       (pid reuse wrapped the share): left out of every total
                                       and series above, as validate does (validator/levels.h) */
} wc_diff_table;

typedef struct wc_diff_opts {
    size_t top;                   /* default 10 */
    double window_s;              /* default 60 */
    double tolerance_pct;         /* default 10 */
    double min_change_w;          /* noise floor: |B − A| below it is never CHANGED (default
                                     WC_DIFF_MIN_CHANGE_W; 0 none) */
    int min_change_set;           /* min_change_w was given (0 W allowed) */
    const char *zone;             /* default "package" */
    wc_boot_cfg boot;
} wc_diff_opts;

typedef struct wc_diff_report {
    int paired;                   /* one run, two models */
    char zone[32];
    double window_s, tolerance_pct;
    double min_change_w;          /* the noise floor used (W) */
    double a_duration_s, b_duration_s; /* full windows covered */
    size_t a_windows, b_windows;
    wc_ci a_node_w, b_node_w, a_active_w, b_active_w; /* the node and its active part (model) */
    wc_diff_table tables[WC_DIFF_NLEVELS];
    size_t changed, same, inconclusive, appeared, vanished;
} wc_diff_report;

/* The verdict of a row whose a_j, b_j, a_w and diff_w are set (the rule at
 * the top of this file), counted into rep's changed/same/... (also used by
 * exporter_diff.c for the exporter's own per-pod series). */
void wc_diff_decide(wc_diff_row *r, double tol_pct, wc_diff_report *rep);

/* Compares side b against side a (a->st == b->st for the paired form).
 * Returns 0, -ENODATA when a run has no full window, -EIO/-ENOMEM with err. */
int wc_diff_compute(const wc_diff_side *a, const wc_diff_side *b, const wc_diff_opts *o,
                    wc_diff_report *out, wc_error *err);

#endif
