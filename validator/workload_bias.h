/*
 * workload_bias.h — per-workload attribution against the isolation known
 * answer, and the bias factor of every workload class (the bias matrix).
 *
 * A replayed scenario (workloads/) runs each class alone (an isolated phase)
 * and then together (a mixed phase). For a zone (package, dram, or the node
 * = package + dram, from the meter's counters):
 *   isolated marginal power  M = mean P(phase) − mean P(idle phases), W
 *   its energy per CPU-second  e = Σ M·duration / Σ true CPU-s (wait4 rusage
 *                              of the workload's whole subtree), pooled over
 *                              the isolated phases of the class;
 *   in a mixed phase, the energy the model attributed to the workload's
 *   processes (same process group, first seen in the phase) A, against the
 *   expected energy X = e · (its true CPU-s in the mix);
 *   bias factor = A / X (1 = the model gives the workload what it costs in
 *   isolation; CPU-time attribution cannot tell an AVX second from a stalled
 *   one, so classes drift apart: that is the bias).
 * The class factor is Σ A / Σ X over its mixed workloads. 95 % intervals:
 * the tick powers of each phase and of the pooled idle baseline are
 * block-bootstrapped independently (stats.h rule and seed) and the ratio is
 * recomputed per replicate; A is the model's exact output and has none.
 * Isolated phases also show the energy the model attributed there beside M.
 * Bursts: coverage = CPU /proc sampling saw / true CPU (short-lived
 * processes vanish between samples), shown with the class.
 * Every figure says its provenance: meter (measured or simulated), model.
 */
#ifndef WC_WORKLOAD_BIAS_H
#define WC_WORKLOAD_BIAS_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "common/wc_error.h"
#include "validator/stats.h"

enum { WC_BIAS_PACKAGE = 0, WC_BIAS_DRAM, WC_BIAS_NODE, WC_BIAS_NZONES };

/* "package", "dram", "package+dram". */
const char *wc_bias_zone_name(int z);

#define WC_BIAS_MAX 64

/* An isolated phase (one class, not idle). */
typedef struct wc_bias_isolated {
    char phase[64], cls[16];
    int repetition;
    double duration_s, true_cpu_s;
    wc_ci marginal_w[WC_BIAS_NZONES];     /* over the idle baseline */
    double attributed_j[WC_BIAS_NZONES];  /* what the model gave the workload there */
    double marginal_j[WC_BIAS_NZONES];    /* M · duration */
} wc_bias_isolated;

/* A workload of a mixed phase. */
typedef struct wc_bias_mixed {
    char phase[64], cls[16];
    int repetition;
    double true_cpu_s, seen_cpu_s, coverage;
    double attributed_j[WC_BIAS_NZONES];
    wc_ci expected_j[WC_BIAS_NZONES];     /* NAN when the class has no isolated phase */
    wc_ci factor[WC_BIAS_NZONES];
} wc_bias_mixed;

/* One class over the run (a row of the bias matrix). */
typedef struct wc_bias_class {
    char cls[16];
    size_t n_isolated, n_mixed;
    double j_per_cpu_s[WC_BIAS_NZONES];   /* pooled isolated energy per true CPU-second */
    double attributed_j[WC_BIAS_NZONES], expected_j[WC_BIAS_NZONES];
    wc_ci factor[WC_BIAS_NZONES];
    double coverage;                      /* Σ seen / Σ true CPU over its workloads (all phases) */
} wc_bias_class;

typedef struct wc_bias_report {
    char model[32];
    char meter_provenance[32];
    int has_baseline;                     /* idle phases found */
    double idle_w[WC_BIAS_NZONES];
    wc_bias_isolated isolated[WC_BIAS_MAX];
    size_t nisolated;
    wc_bias_mixed mixed[WC_BIAS_MAX];
    size_t nmixed;
    wc_bias_class classes[8];
    size_t nclasses;
} wc_bias_report;

/* Computes the report for model_id (named model). A run without workloads
 * gives an empty report. Returns 0, -EIO/-ENOMEM with err. */
int wc_bias_compute(wc_store *st, int64_t model_id, const char *model,
                    const wc_boot_cfg *cfg, wc_bias_report *out, wc_error *err);

#endif
