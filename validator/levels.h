/*
 * levels.h — the attribution gap at every level (node → processes →
 * containers → pods), over time and in total, with its split and the
 * invariant Σ children ≤ parent checked on every interval.
 *
 * For one model and every zone name:
 *   node → processes:  gap = node − Σ processes
 *                          = idle (not attributed by design)
 *                          + unattributed (active energy no process received)
 *                          − over-attributed (processes received more than the
 *                            node's active energy that interval);
 *     unattributed is split by cause: skipped cycles (the model attributed
 *     nothing that interval: flags SKIPPED, UNMEASURABLE, REFRESH_FAILED,
 *     CPU_MISSING) and missed CPU (the rest: CPU of short-lived or vanished
 *     processes the /proc sampler never saw, which only the ideal model leaves
 *     unattributed — Kepler hands it to the survivors);
 *   processes → containers: Σ processes − Σ containers (processes outside any
 *     container: system daemons, the kubelet, kernel threads);
 *   containers → pods: Σ containers − Σ pods (containers outside pods);
 *   processes → VMs (level 4, beside the container chain): Σ processes − Σ
 *     VMs (processes that are no hypervisor, and for the Kepler models the
 *     hypervisor processes but the last of each VM, whose energy Kepler's
 *     VM does not take: docs/kepler-model.md §3.4).
 * Invariants, per interval (tick) and zone, each counted with its worst
 * excess: Σ processes ≤ node active; Σ containers ≤ node active; Σ pods ≤
 * node active; Σ processes of a container ≤ that container; Σ containers of
 * a pod ≤ that pod (a tolerance of 0.5 µJ per child absorbs nothing but
 * rounding: shares are truncated integers).
 *
 * It also totals every process's and container's energy and CPU per zone
 * (the top lists of validator/gap.c) and counts the quirk rows, so the whole
 * attribution side of `validate` reads the model's work_attr rows once: one
 * pass in tick order; memory is per process, container and pod, not per row.
 */
#ifndef WC_LEVELS_H
#define WC_LEVELS_H

#include <stddef.h>
#include <stdint.h>

#include "collector/model/attribution.h"
#include "collector/store/store.h"
#include "common/wc_error.h"

#define WC_LEVELS_MAX_ZONES 16

/* The invariants checked. */
enum {
    WC_INV_PROCS_LE_NODE = 0,
    WC_INV_CONTAINERS_LE_NODE,
    WC_INV_PODS_LE_NODE,
    WC_INV_PROCS_LE_CONTAINER,
    WC_INV_CONTAINERS_LE_POD,
    WC_INV_VMS_LE_NODE,            /* checked only on intervals with VM rows */
    WC_INV_VMS_LE_PROCS,           /* Σ VMs ≤ Σ processes (a VM is its hypervisor processes) */
    WC_INV_COUNT
};

/* "Σ processes ≤ node active", ... for reports. */
const char *wc_invariant_name(int inv);

/* One window of one zone, joules. */
typedef struct wc_level_window {
    int64_t start_ns, end_ns;      /* monotonic */
    double node_j, idle_j, active_j, process_j, container_j, pod_j;
    double unattributed_j, over_j;
    double vm_j;                   /* Σ VMs (level 4) */
} wc_level_window;

/* One invariant over a zone. */
typedef struct wc_invariant {
    int64_t checked;               /* (interval, parent) pairs checked */
    int64_t violated;
    double worst_excess_j;         /* largest Σ children − parent seen */
    int64_t worst_tick_id;
} wc_invariant;

/* Totals and series of one zone name. */
typedef struct wc_level_zone {
    char zone[WC_ATTR_ZONE_NAME_MAX]; /* every name the attribution writes fits; a longer
                                         one (a run altered elsewhere) is refused */
    double node_j, idle_j, active_j, process_j, container_j, pod_j;
    double unattr_skipped_j, unattr_missed_j, over_j;
    double containerised_process_j;  /* Σ processes that belong to a container */
    double vm_j;                   /* Σ VMs (level 4); 0 in a run without VMs */
    wc_invariant inv[WC_INV_COUNT];
    wc_level_window *windows;
    size_t nwindows;
    double *per_process_j, *per_process_cpu_s;     /* per process row id, 0..max_process_id */
    double *per_container_j, *per_container_cpu_s; /* per container index of the report */
    double *per_pod_j;             /* per pod index of the report (pod_uids) */
} wc_level_zone;

/* One VM of the model in one zone over the run (work_attr level 4), with
 * Kepler's labels (collector/store/store_results.h wc_vm_total). */
typedef struct wc_level_vm {
    char zone[32];
    char vm_id[128], vm_name[128], hypervisor[32];
    double joules, cpu_s;          /* attributed by the model */
    int64_t processes;             /* hypervisor processes recorded for it */
} wc_level_vm;

/* The whole analysis for one model. */
typedef struct wc_levels_report {
    double window_s;
    wc_level_zone zones[WC_LEVELS_MAX_ZONES];
    size_t nzones;
    int64_t rows;                  /* work_attr rows read */
    int64_t max_process_id;        /* per_process_j has max_process_id + 1 slots */
    size_t ncontainers;
    char **container_ids;          /* sorted */
    long *container_pod;           /* index into pod_uids, -1 none */
    size_t npods;
    char **pod_uids;               /* sorted */
    int64_t negative_share_rows;   /* process rows with Kepler's negative-share flag (excluded) */
    /* Kepler's negative shares (flag NEGATIVE_SHARE: pid reuse drove the CPU
     * delta sum D below 0, and uint64 wrapped the share to ~2^64 µJ,
     * docs/kepler-model.md §8 item 10) are not usable numbers: such rows add
     * nothing to any sum, total, window or invariant above. They are counted
     * here per level (index = WC_LEVEL_*, 1 process .. 4 VM) and their
     * workloads marked (1 = at least one excluded interval row). The node's
     * active energy of those intervals then goes to "unattributed" (active −
     * Σ the remaining processes), so gap = idle + unattributed − over stays
     * exact. */
    int64_t excluded_rows[5];
    unsigned char *excluded_process;   /* per process row id, 0..max_process_id */
    unsigned char *excluded_container; /* per container index */
    unsigned char *excluded_pod;       /* per pod index */
    int64_t unlisted_pod_rows;     /* pod rows whose uid the run's pod table lacks: in the
                                      level sums, in no per_pod_j */
    int64_t unlisted_container_rows; /* likewise container rows and per_container_j */
    int64_t lifetime_delta_rows;   /* ... and with its lifetime-first-delta flag */
    wc_level_vm *vms;              /* every VM per zone, zone then energy order; NULL none */
    size_t nvms;
    /* Each listed pod's energy per zone and tick, µJ: pod_tick_uj[(q * nzones
     * + z) * ntick + i] sums pod q's rows with energy > 0 (NEGATIVE_SHARE
     * left out) of zone z and tick index i of the run's ntick ticks (ids
     * first_tick_id .. last_tick_id), for showback's series. NULL when the
     * array would pass WC_LEVELS_POD_SERIES_MAX_BYTES (showback then reads
     * the rows itself) or the run has no pods. */
    double *pod_tick_uj;
    size_t ntick;
    int64_t first_tick_id, last_tick_id;
    /* With pod_tick_uj, in a compact run: every pod index, in the order the
     * store keeps one tick's pod rows (work_key order), so a reader that
     * adds them up tick by tick adds in the order the rows would come;
     * NULL otherwise. */
    size_t *pod_row_order;
} wc_levels_report;

/* The most the per-tick pod series of a levels pass may take (64 MiB). */
#define WC_LEVELS_POD_SERIES_MAX_BYTES ((size_t)64 << 20)

/* Computes the levels of model_id with windows of window_s seconds from the
 * run's first tick (never shorter than the run's median tick spacing:
 * out->window_s says what was used). Returns 0, -ENOENT when the model has no node rows,
 * -EIO/-ENOMEM with err. */
int wc_levels_compute(wc_store *st, int64_t model_id, double window_s,
                      wc_levels_report *out, wc_error *err);

/* The zone named, or NULL. */
const wc_level_zone *wc_levels_zone(const wc_levels_report *r, const char *zone);

void wc_levels_free(wc_levels_report *r);

#endif
