/*
 * accuracy.h — node accuracy: every measured, modelled or estimated node
 * power source of a run against every ground-truth source, overall and per
 * phase, on the native alignment and on common windows (default 10 s and
 * 60 s), after the truth's lag (and window) has been estimated.
 *
 * Sources (each with its provenance, never mixed up):
 *   meter:<zones>        the RAPL counters (measured, or simulated on the sim
 *                        node), default package+dram of every socket;
 *   meter:psys           the platform zone, when the node has one;
 *   gauge:<zones>        gauge zones (an imported power column);
 *   model:<m>:<zones>    the node energy the exporter model reported (quirks
 *                        included: a wrap spike shows as error here);
 *   estimate:fit#N       a calibration applied to the meter (estimated),
 *                        added by the caller (validator/calibration.h).
 * The lag of each truth source is estimated against the first source (the
 * meter) and applied to all of them: they share the node's clock.
 */
#ifndef WC_ACCURACY_H
#define WC_ACCURACY_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"
#include "validator/align.h"
#include "validator/series.h"
#include "validator/stats.h"

#define WC_ACC_MAX_TRUTH 8
#define WC_ACC_MAX_WINDOWS 4
#define WC_ACC_MAX_ZONES 8

/* One node power source. */
typedef struct wc_acc_source {
    char name[112];               /* "meter:package+dram", "model:kepler-0.11:package+dram", ... */
    char provenance[48];          /* measured | simulated | estimated | exporter model <m> */
    char description[256];
    wc_cumseries series;          /* J on the run's ticks */
    double run_energy_j;          /* over the whole run */
    int in_sample;                /* an estimate from a fit made on this very run's truth */
} wc_acc_source;

/* One scored combination. */
typedef struct wc_acc_cell {
    size_t source, truth;         /* indexes into the report's arrays */
    int phase;                    /* -1 overall, else index into phases */
    double window_s;              /* 0 = native (one pair per reading) */
    wc_accuracy acc;
    double covered_s;             /* seconds the pairs span */
    double source_j, truth_j;     /* energy over the scored windows (NAN for native pairs
                                     whose intervals overlap) */
} wc_acc_cell;

/* A labelled phase of the run. */
typedef struct wc_acc_phase {
    char name[64], cls[32];
    int repetition;
    int64_t start_ns, end_ns;
} wc_acc_phase;

/* Options (zero = defaults). */
typedef struct wc_acc_opts {
    double windows_s[WC_ACC_MAX_WINDOWS - 1]; /* default {10, 60} */
    size_t nwindows;
    const char *node_zones[WC_ACC_MAX_ZONES + 1]; /* NULL-terminated; default package, dram */
    double mape_floor_w;          /* <= 0: 10 % of the median truth of each source */
    int lag_fixed;                /* 1: use lag_s, do not estimate */
    double lag_s;
    wc_lag_search search;
    wc_boot_cfg boot;             /* replicates and seed (min_block is set per table) */
    int64_t model_id;             /* model whose node energy is a source; <= 0 none */
    char model_name[32];
} wc_acc_opts;

/* The whole node accuracy analysis of a run. */
typedef struct wc_accuracy_report {
    wc_timebase tb;
    char run_provenance[32];      /* of the meter: measured / simulated / estimated */
    char node_zones[64];          /* "package+dram" */
    wc_acc_source *sources;       /* malloc'd, grown by wc_accuracy_add_source (no cap: the
                                     meter, the model, estimates, every exporter zone) */
    size_t nsources, sources_cap;
    wc_truth_series truth[WC_ACC_MAX_TRUTH];
    wc_lagwin lag[WC_ACC_MAX_TRUTH];
    double mape_floor_w[WC_ACC_MAX_TRUTH];
    size_t ntruth;
    double windows_s[WC_ACC_MAX_WINDOWS]; /* [0] = 0 (native), then the configured ones */
    size_t nwindows;
    char window_skipped[WC_ACC_MAX_TRUTH][WC_ACC_MAX_WINDOWS][96]; /* why a window was not scored */
    wc_acc_phase *phases;
    size_t nphases;
    wc_acc_cell *cells;
    size_t ncells;
    wc_acc_opts opts;
} wc_accuracy_report;

/* Loads the ticks, the node sources, the truth sources and the phases of the
 * run. Returns 0 (a run without truth has ntruth 0), -ENODATA with fewer
 * than 2 ticks, -EIO/-ENOMEM with err. */
int wc_accuracy_load(wc_store *st, const wc_acc_opts *o, wc_accuracy_report *rep,
                     wc_error *err);

/* Adds a source (ownership of src->series moves to the report; src is
 * copied). Returns 0, -ENOMEM (src->series is then still the caller's). */
int wc_accuracy_add_source(wc_accuracy_report *rep, wc_acc_source *src);

/* Estimates the lags, then scores every source against every truth source on
 * every window, overall and per phase. Returns 0 or -ENOMEM. */
int wc_accuracy_score(wc_accuracy_report *rep, wc_error *err);

/* The cell for (source, truth, window, phase), or NULL when not scored. */
const wc_acc_cell *wc_accuracy_cell(const wc_accuracy_report *rep, size_t source, size_t truth,
                                    double window_s, int phase);

void wc_accuracy_free(wc_accuracy_report *rep);

#endif
