/*
 * store_results.h — reading what analysis DERIVED from a run, and writing
 * the calibration fits: each model's attribution rows (node_attr and
 * work_attr, written by the recorder or by replay), the energy of tenants
 * (pods, containers, process names) and of a replayed workload's processes,
 * and the fits of `wattcal calibrate`. The raw samples all of these come from
 * are store_read.h; re-attributing a run under another model is
 * store_replay.h.
 *
 * How do I read ...
 *   a model's zones, node rows and per-zone totals        store_levels.c
 *   a model's workload rows, as one stream                store_levels.c
 *   tenant energy per key or per tick (diff, report)      store_tenants.c
 *   each VM's energy and labels (validate, attribute)     store_tenants.c
 *   the energy a model gave a workload's processes        store_phases.c
 *   calibration fits (and store one)                      store_calibration.c
 *
 * The iterator, error and text conventions are in store.h; strings are bound
 * as parameters; the columns are those of docs/schema.md.
 */
#ifndef WC_STORE_RESULTS_H
#define WC_STORE_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "collector/model/attribution.h"
#include "collector/store/store.h"
#include "common/wc_error.h"

/* ---- a model's node and workload rows (store_levels.c) ------------------ */

/* Distinct zone names of a model's node rows, in order of first appearance
 * (wc_store_text_next). */
int wc_store_node_zones_open(wc_store *st, int64_t model_id, wc_store_iter **it,
                             wc_error *err);

/* Whether the model attributed the zone (1) or not (0), without reading its
 * rows; -EIO. */
int wc_store_node_has_zone(wc_store *st, int64_t model_id, const char *zone, wc_error *err);

/* One node_attr row (µJ as stored: a uint64 above 2^63 reads negative). */
typedef struct wc_node_row {
    int64_t tick_id;
    const char *zone;
    double delta_uj, active_uj, idle_uj;
    unsigned flags;               /* WC_AF_* */
} wc_node_row;

/* Two reads of node rows: every zone's whole row in one pass, or a few
 * zones' energy in tick order. */

/* Every node row of a model, in table order (all fields): validate's levels
 * pass. */
int wc_store_node_rows_open(wc_store *st, int64_t model_id, wc_store_iter **it, wc_error *err);

/* The node rows of a model for the zones named (NULL-terminated), by tick:
 * tick_id, delta_uj, active_uj, flags, zone (idle_uj is 0): the model's node
 * series (validate) and node power per window (diff). */
int wc_store_node_zone_rows_open(wc_store *st, int64_t model_id, const char *const *zones,
                                 wc_store_iter **it, wc_error *err);

/* Next row of a node-row iterator. Returns 1, 0 at the end, < 0 with err. */
int wc_store_node_row_next(wc_store_iter *it, wc_node_row *row, wc_error *err);

/* A model's node rows summed per zone (µJ; counts of rows). */
typedef struct wc_node_totals {
    const char *zone;
    double delta_uj, active_uj, idle_uj;
    int64_t intervals;            /* rows without WC_AF_FIRST */
    int64_t skipped, totals_reset, wraps, unmeasurable, refresh_failed, ratio_range;
} wc_node_totals;

/* Per-zone totals of a model, zones in order of first appearance. */
int wc_store_node_totals_open(wc_store *st, int64_t model_id, wc_store_iter **it,
                              wc_error *err);
int wc_store_node_totals_next(wc_store_iter *it, wc_node_totals *row, wc_error *err);

/* One work_attr row. Only the columns its level uses are read (the stream
 * runs once per stored row): process rows leave key NULL; container and pod
 * rows leave process_id -1 and flags 0; pod rows leave cpu_delta_s 0. */
typedef struct wc_work_row {
    int64_t tick_id;
    const char *zone;
    int level;                    /* WC_LEVEL_* */
    int64_t process_id;
    const char *key;              /* container id or pod uid */
    int zone_slot;                /* compact run: the zone's attr_zone slot (< 64, stable
                                     for the stream); -1 for a table-layout run */
    long key_slot;                /* compact run: key's index among the stream's keys
                                     (wc_store_work_rows_nkeys), stable for the stream;
                                     -1 for a process row or a table-layout run */
    double energy_uj, cpu_delta_s;
    unsigned flags;
} wc_work_row;

/* Every workload row of a model: in table (rowid) order by a plain scan
 * when tick_ordered is 0 — tick order for every writer, and several times
 * faster than through the model index — else by tick_id. */
int wc_store_work_rows_open(wc_store *st, int64_t model_id, int tick_ordered,
                            wc_store_iter **it, wc_error *err);
int wc_store_work_row_next(wc_store_iter *it, wc_work_row *row, wc_error *err);

/* The workload rows of the ticks with tick_lo <= id < tick_hi of a compact
 * run, in tick order, as wc_store_work_rows_open gives them: a reader may
 * stream parts of a run on several connections. -ENOTSUP for a run that
 * keeps the work_attr table (one scan of it reads every row). */
int wc_store_work_rows_open_range(wc_store *st, int64_t model_id, int64_t tick_lo,
                                  int64_t tick_hi, wc_store_iter **it, wc_error *err);

/* The keys of a level (WC_LEVEL_CONTAINER, _POD, _VM) of a compact run in
 * the order its rows of one tick are stored (work_key id order), as text
 * rows (wc_store_text_next); -ENOTSUP for a run that keeps the work_attr
 * table. */
int wc_store_work_keys_open(wc_store *st, int level, wc_store_iter **it, wc_error *err);

/* How many distinct key slots a workload stream's rows may carry (0 for a
 * table-layout run): a reader caches per-key work by wc_work_row.key_slot. */
size_t wc_store_work_rows_nkeys(const wc_store_iter *it);

/* ---- tenants: attributed energy per key (store_tenants.c) --------------- */

/* One tenant row: a tick's energy (rows) or a sum over the run (totals, top;
 * tick_id 0). Process rows are keyed by process name (comm). */
typedef struct wc_tenant_row {
    int64_t tick_id;
    const char *key;              /* pod uid, container id or comm; NULL when the file has none */
    double energy_uj;
} wc_tenant_row;

/* Per-key energy of a level (WC_LEVEL_POD, _CONTAINER, or _PROCESS grouped
 * by comm) in a zone over the run, for `diff`: pods and containers with a
 * non-empty key; unordered (wc_store_tenant_next). */
int wc_store_tenant_totals_open(wc_store *st, int64_t model_id, wc_attr_level level,
                                const char *zone, wc_store_iter **it, wc_error *err);

/* The limit largest pods or containers by energy over the run, only those
 * with energy, largest first (ties by key), for the report's stacked figure
 * (wc_store_tenant_next). */
int wc_store_tenant_top_open(wc_store *st, int64_t model_id, wc_attr_level level,
                             const char *zone, int limit, wc_store_iter **it, wc_error *err);

/* Which per-tick rows wc_store_tenant_rows_open yields: two reads, since
 * diff's windows take every row as stored while the report's figure wants
 * only the rows that carry energy (fewer rows, and its statement binds the
 * level). */
typedef enum wc_tenant_rows_kind {
    WC_TENANT_ROWS_ALL = 0,       /* every row (diff) */
    WC_TENANT_ROWS_POSITIVE = 1,  /* only rows with energy > 0 (the report) */
    WC_TENANT_ROWS_NEGATIVE_SHARE = 2 /* only Kepler's NEGATIVE_SHARE rows (flag 64, energy
                                         ~2^64 µJ: no energy), which every other read leaves
                                         out: the second opinion skips their intervals */
} wc_tenant_rows_kind;

/* Per-tick energy of every key (comm for processes) of a level, unordered
 * (wc_store_tenant_next). */
int wc_store_tenant_rows_open(wc_store *st, int64_t model_id, wc_attr_level level,
                              const char *zone, wc_tenant_rows_kind kind, wc_store_iter **it,
                              wc_error *err);

/* Next row of a totals, top or per-tick tenant iterator. Returns 1, 0 at the
 * end, < 0 with err. */
int wc_store_tenant_next(wc_store_iter *it, wc_tenant_row *row, wc_error *err);

/* One VM of a model (work_attr level 4, keyed by vm_id) over the run in one
 * zone, with the labels of its latest hypervisor process (the process
 * table's vm_name and hypervisor, collector/procfs/cmdline.h). Strings live
 * until the next call; "" when the process table has none. */
typedef struct wc_vm_total {
    const char *zone, *vm_id, *vm_name, *hypervisor;
    double energy_uj, cpu_s;      /* attributed by the model; its CPU seconds */
    int64_t processes;            /* hypervisor processes recorded with this vm_id */
} wc_vm_total;

/* Every VM of a model per zone, ordered by zone (first attributed first),
 * then energy descending, then vm_id; terminated rows (flag 4096) left out.
 * No rows in a run without VMs. Next: 1, 0 at the end, < 0 with err. */
int wc_store_vm_totals_open(wc_store *st, int64_t model_id, wc_store_iter **it, wc_error *err);
int wc_store_vm_total_next(wc_store_iter *it, wc_vm_total *row, wc_error *err);

/* ---- a workload's processes (store_phases.c) ----------------------------- */

/* Energy a model gave the processes of a process group first seen in
 * [lo_ns, hi_ns] (those of wc_store_group_seen_cpu, store_read.h) over the
 * ticks tick_lo..tick_hi, per zone (wc_store_zone_sum_next). */
int wc_store_group_energy_open(wc_store *st, int64_t model_id, int64_t tick_lo,
                               int64_t tick_hi, int64_t pgid, int64_t lo_ns, int64_t hi_ns,
                               wc_store_iter **it, wc_error *err);
int wc_store_zone_sum_next(wc_store_iter *it, const char **zone, double *energy_uj,
                           wc_error *err);

/* ---- calibration fits (store_calibration.c) ----------------------------- */

/* One stored fit as its row holds it. Numbers stored as NULL read as NAN. */
typedef struct wc_store_cal_row {
    int64_t id;                   /* row id (set by wc_store_put_calibration) */
    char kind[32];                /* "zone_utilisation", "truth_meter" */
    char target[128];             /* the zone, or the truth source's spec */
    char input[112];              /* "utilisation", or the node source */
    double window_s, lag_s;
    int64_t n;                    /* points fitted */
    int dof;
    double c0, c0_se, c1, c1_se, cov01;  /* coefficients (W, or W per unit) and errors */
    double c0_lo, c0_hi, c1_lo, c1_hi;   /* bootstrap intervals */
    double r2, rmse;
    char fitted_on[300];          /* "" = this run */
    char note[256];
    char fitted_run[160];         /* the fingerprint of the run it was fitted on
                                     (wc_store_run_fingerprint); "" unknown (older runs) */
} wc_store_cal_row;

/* The fitted points of a fit (n each): x, y, weight, the interval each point
 * covers (monotonic ns). fitted = c0 + c1 * x and residual = y - fitted are
 * stored beside them. */
typedef struct wc_store_cal_points {
    size_t n;
    const double *x, *y, *w;
    const int64_t *a_ns, *b_ns;
} wc_store_cal_points;

/* Stores a fit (provenance "estimated", created now) and its points in one
 * transaction, creating the calibration tables when missing; sets row->id.
 * Returns 0, -EROFS on a read-only store, -EIO (nothing written). */
int wc_store_put_calibration(wc_store *st, wc_store_cal_row *row,
                             const wc_store_cal_points *pts, wc_error *err);

/* Loads the latest fit of each (kind, target), the highest id winning, in id
 * order: *n rows of at most max. Rows whose c0 or c1 is not a finite number
 * are skipped and counted in *ignored (may be NULL). A run without
 * calibration tables has none. Returns 0 or -EIO. */
int wc_store_load_calibrations(wc_store *st, wc_store_cal_row *out, size_t max, size_t *n,
                               size_t *ignored, wc_error *err);

#endif
