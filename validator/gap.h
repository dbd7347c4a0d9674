/*
 * gap.h — the attribution gap of a recorded run, per zone and per level.
 *
 * For one attribution model, per RAPL zone name: node energy as the meter
 * measured it (raw counters differenced with wattcal's counter rule), node
 * energy as the model saw it, its idle part (never attributed by design),
 * what was attributed to processes, containers and pods, and the rest of the
 * active energy that no process received (unattributed: short-lived
 * processes, vanished PIDs, skipped cycles) or that processes received beyond
 * the node's active energy (over-attributed). Plus the top workloads.
 * gap = node − Σ attributed = idle + unattributed − over-attributed.
 */
#ifndef WC_GAP_H
#define WC_GAP_H

#include <stddef.h>
#include <stdint.h>

#include "collector/model/attribution.h"
#include "collector/store/store.h"
#include "common/wc_error.h"

#define WC_GAP_MAX_ZONES 16
#define WC_GAP_TOP 10

/* Totals of one zone name over the run, joules. */
typedef struct wc_gap_zone {
    char zone[WC_ATTR_ZONE_NAME_MAX]; /* as the attribution's names; longer: left out */
    double meter_joules;          /* raw counters, wattcal's counter rule */
    int64_t meter_intervals, meter_unmeasurable; /* intervals counted / flagged (reset, no range, missing) */
    int64_t meter_ambiguous;      /* of which long enough for a whole wrap to hide at the ceiling */
    double meter_seconds;         /* monotonic seconds of the intervals in meter_joules, summed
                                     over the zone's instances (sockets) */
    int meter_instances;          /* counter zones (sockets, dies) of this name */
    double node_joules;           /* ΔE the model used */
    double active_joules, idle_joules;
    double process_joules, container_joules, pod_joules;
    double unattributed_joules;   /* Σ_ticks max(0, active − Σ process) */
    double over_joules;           /* Σ_ticks max(0, Σ process − active) */
    int64_t intervals;            /* node rows after the first tick */
    int64_t skipped, totals_reset, wraps, unmeasurable, refresh_failed;
    int64_t ratio_out_of_range;   /* Kepler: usage ratio outside [0,1] (split meaningless) */
} wc_gap_zone;

/* One workload in the top list (by energy of the ranking zone). */
typedef struct wc_gap_top {
    int32_t pid;                  /* processes only */
    uint64_t starttime;
    char name[64];                /* comm, or container id (short), or pod uid */
    char container_id[65], pod_uid[37];
    double joules, cpu_seconds;
} wc_gap_top;

#define WC_GAP_MAX_TRUTH 8

/* What one ground-truth source delivered during the run. */
typedef struct wc_gap_truth {
    char spec[128], kind[16], provenance[32], description[256];
    int64_t ok, stale, unavailable, error;
    double mean_watts;            /* over ok samples, NAN when none */
    char last_error[256];         /* most recent error/unavailable reason */
} wc_gap_truth;

#define WC_GAP_MAX_WORKLOADS 64

/* A replayed workload's known answer beside what /proc sampling saw of it. */
typedef struct wc_gap_workload {
    char phase[64], cls[16];
    int repetition, workers, crashed;
    double true_cpu_s;            /* wait4 rusage of the whole subtree */
    double seen_cpu_s;            /* Σ over its processes (same pgid, first seen in the
                                     phase) of the largest cumulative CPU sampled */
    double coverage;              /* seen / true; NAN when true is 0 */
    double lost_joules;           /* ESTIMATED energy polling lost: (true − seen) CPU-s ×
                                     the model's active package J per busy CPU-s in the phase */
} wc_gap_workload;

#define WC_GAP_MAX_PHASES 64

/* One phase repetition: mean node power (meter: package + dram) and its
 * marginal power over the idle baseline (the mean of the phases labelled
 * idle) — the isolation known answer. (Ground truth per phase is scored after
 * alignment by validator/accuracy.h, never by poll time.) */
typedef struct wc_gap_phase {
    char name[64], cls[32];
    int repetition;
    double duration_s;
    double node_watts;            /* meter, package + dram; NAN when unmeasured */
    double marginal_watts;        /* node_watts − idle baseline; NAN without a baseline */
} wc_gap_phase;

/* The whole report. */
typedef struct wc_gap_report {
    char model[32];
    char provenance[32];          /* of the node meter: measured / simulated */
    char meter_description[256];
    char host[256];
    double duration_s;
    int64_t ticks;
    int clean_stop;               /* 0 when the recorder was killed or failed */
    char meter_kind[16];          /* "rapl", "sim", "import" */
    double ceiling_watts;         /* the counter ceiling per zone the run was recorded with (W) */
    int ceiling_stored;           /* 0: the run predates stored ceilings (5000 W built in, no
                                     hidden-wrap check) */
    wc_gap_zone zones[WC_GAP_MAX_ZONES];
    size_t nzones;
    char rank_zone[WC_ATTR_ZONE_NAME_MAX];           /* zone used for the top lists */
    wc_gap_top top_processes[WC_GAP_TOP], top_containers[WC_GAP_TOP];
    size_t ntop_processes, ntop_containers;
    int64_t negative_share_rows, lifetime_delta_rows;
    wc_gap_truth truth[WC_GAP_MAX_TRUTH];
    size_t ntruth;
    wc_gap_workload workloads[WC_GAP_MAX_WORKLOADS];
    size_t nworkloads;
    wc_gap_phase phases[WC_GAP_MAX_PHASES];
    size_t nphases; /* process rows that received energy through that quirk */
} wc_gap_report;

struct wc_levels_report;

/* Computes the report for model from an open store (attribution rows of that
 * model must exist: see collector/model/replay.h). Returns 0, -ENOENT when the
 * model has no rows, -EIO with err on a store error. */
int wc_gap_compute(wc_store *st, wc_model model, wc_gap_report *rep, wc_error *err);

/* The same from a levels pass already made for that model (validator/levels.h),
 * so the workload rows are read once. */
int wc_gap_compute_with(wc_store *st, wc_model model, const struct wc_levels_report *lv,
                        wc_gap_report *rep, wc_error *err);

/* Phases (not idle) whose mean node power is below the idle baseline: the
 * baseline was loaded by something else (on the simulated node, by anything
 * running on this machine), so the isolation known answers derived from it
 * are not trustworthy. Returns the count; the first one's name in phase. */
size_t wc_gap_below_baseline(const wc_gap_report *r, char *phase, size_t cap);

/* Percent helper: 100·part/whole, NaN when whole is 0. */
double wc_gap_pct(double part, double whole);

#endif
