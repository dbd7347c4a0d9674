/*
 * cpu_share.h — the CPU-accounting cross-check of `wattcal validate`: for
 * each pod, its share of the node's active energy against its share of the
 * node's busy CPU as the kernel accounts it (per-pod cgroup cpu.stat
 * usage_usec or cpuacct.usage, recorded every tick: store_cgroup_cpu.h;
 * node busy CPU = /proc/stat total − idle − iowait, Kepler's active time),
 * over the same intervals, with the largest disagreements first.
 *
 * Kepler gives a pod (active energy) × (its CPU time / all processes' CPU
 * time), so the two shares agree unless the exporter mis-attributes, its CPU
 * sampling misses what the cgroup counts (short-lived processes), or its
 * denominator differs from the node's busy time. Two energy sources are
 * compared, each on its own intervals: the reference model the run was
 * validated with (per tick: the model's pod rows and node active energy) and,
 * when the run holds exporter data (store_exporter.h), the exporter's own
 * kepler_pod_cpu_joules_total against kepler_node_cpu_active_joules_total
 * (between consecutive scrapes; a decrease is a reset and that interval is
 * skipped), the CPU interpolated on the tick clock at the scrapes' times.
 */
#ifndef WC_CPU_SHARE_H
#define WC_CPU_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "common/wc_error.h"

/* Rows kept per source (largest |energy share − CPU share| first). */
#define WC_CPU_SHARE_TOP 10
/* Fewer intervals than this (per source) is too little data for a finding. */
#define WC_CPU_SHARE_MIN_INTERVALS 5

/* One pod under one energy source. */
typedef struct wc_share_row {
    char pod_uid[72];
    char name[256], ns[128];     /* from the exporter's labels; "" unknown */
    double energy_j, active_j;   /* the pod's and the node's active energy over its intervals */
    double cpu_s, busy_s;        /* the pod's cgroup CPU and the node's busy CPU, same intervals */
    double energy_pct, cpu_pct;  /* energy_j / active_j, cpu_s / busy_s, in % (NAN unknown) */
    double diff_pts;             /* energy_pct − cpu_pct, percentage points */
    double ratio;                /* energy_pct / cpu_pct (NAN when cpu_pct is 0) */
    int64_t intervals;
} wc_share_row;

/* One energy source: the reference model's or the exporter's. */
typedef struct wc_share_source {
    char source[64];             /* "model:kepler-0.11", "exporter:<id>" */
    char provenance[128];        /* "attributed by model kepler-0.11", the exporter's */
    size_t npods;                /* pods compared (with at least one interval) */
    int64_t intervals;           /* intervals with any pod compared */
    int too_little;              /* fewer than WC_CPU_SHARE_MIN_INTERVALS intervals */
    wc_share_row rows[WC_CPU_SHARE_TOP];
    size_t nrows;
} wc_share_source;

/* The cross-check of one run. */
typedef struct wc_cpu_share_report {
    int have;                    /* 0: the run has no pod cgroup accounting (then nothing else) */
    char zone[16];               /* the energy zone compared ("package") */
    char accounting[48];         /* "cpu.stat usage_usec", "cpuacct.usage" or both */
    size_t pods;                 /* pod cgroups recorded */
    wc_share_source src[2];
    size_t nsrc;
} wc_cpu_share_report;

/* Computes the cross-check for model_id (named model) in zone. A run without
 * pod cgroup reads gives have = 0 and returns 0. Returns 0, -EIO, -ENOMEM. */
int wc_cpu_share_compute(wc_store *st, int64_t model_id, const char *model, const char *zone,
                         wc_cpu_share_report *r, wc_error *err);

#endif
