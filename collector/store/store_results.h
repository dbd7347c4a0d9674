/*
 * store_results.h — typed reads and writes of what analysis derives from a
 * run or reads back from it, so that validator/ and reports/ see rows and
 * never SQL:
 *  - the calibration fits and their residuals (store_calibration.c), written
 *    by `wattcal calibrate` and read by validate, report and --apply-from;
 *  - the attributed energy of tenants (work_attr: pods, containers, process
 *    names) and of the node (node_attr) per model and zone, read by `wattcal
 *    diff` and the report's stacked figure (store_tenants.c);
 *  - the row count of a table and the extent of the tick table
 *    (store_counts.c), for the benchmark and the report's default window.
 *
 * Large row sets stream through a wc_store_rows iterator: open with one of
 * the wc_store_*_rows / _totals / _top functions, step with the matching
 * typed next function until it returns 0, then wc_store_rows_close (also
 * after an error). Text in a row stays valid until the next step. Every
 * function returns 0 (next: 1 for a row, 0 at the end) or a negative errno
 * with err naming the file (wc_store_fail). Strings are bound as parameters.
 * The columns are those of docs/schema.md.
 */
#ifndef WC_STORE_RESULTS_H
#define WC_STORE_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "common/wc_error.h"

/* ---- calibrations (tables calibration, calibration_residual) ------------- */

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

/* The distinct energy-counter zone names of the run (kind counter_uj), in the
 * order their first zone row was written: the zones a zone_utilisation fit is
 * made for. *n of at most max; names longer than 31 bytes are cut. Returns 0
 * or -EIO. */
int wc_store_counter_zone_names(wc_store *st, char (*names)[32], size_t max, size_t *n,
                                wc_error *err);

/* ---- attributed energy (tables work_attr, node_attr, process) ------------ */

/* A query being stepped. */
typedef struct wc_store_rows wc_store_rows;

/* Tenant levels, as the work_attr level column holds them. */
typedef enum wc_tenant_level {
    WC_TENANT_PROCESS = 1,        /* process rows, read grouped by process name (comm) */
    WC_TENANT_CONTAINER = 2,      /* keyed by container id */
    WC_TENANT_POD = 3             /* keyed by pod uid */
} wc_tenant_level;

/* One tenant row: a tick's energy (rows) or a sum over the run (totals, top;
 * tick_id 0). */
typedef struct wc_tenant_row {
    int64_t tick_id;
    const char *key;              /* pod uid, container id or comm; NULL when the file has none */
    double energy_uj;
} wc_tenant_row;

/* Per-key energy of a level over the run, for `diff`: pods and containers
 * with a non-empty key, process names grouped by comm; unordered. */
int wc_store_tenant_totals(wc_store *st, int64_t model_id, wc_tenant_level level,
                           const char *zone, wc_store_rows **rows, wc_error *err);

/* The limit largest pods or containers (level 2 or 3) by energy over the run,
 * only those with energy, largest first (ties by key). */
int wc_store_tenant_top(wc_store *st, int64_t model_id, wc_tenant_level level,
                        const char *zone, int limit, wc_store_rows **rows, wc_error *err);

/* Which per-tick rows wc_store_tenant_rows yields. */
typedef enum wc_tenant_rows_kind {
    WC_TENANT_ROWS_ALL = 0,       /* every row (diff) */
    WC_TENANT_ROWS_POSITIVE = 1   /* only rows with energy > 0 (the report) */
} wc_tenant_rows_kind;

/* Per-tick energy of every key (comm for processes) of a level, unordered. */
int wc_store_tenant_rows(wc_store *st, int64_t model_id, wc_tenant_level level,
                         const char *zone, wc_tenant_rows_kind kind, wc_store_rows **rows,
                         wc_error *err);

/* Steps totals, top or per-tick tenant rows. Returns 1 (row filled), 0 at the
 * end, or -EIO. */
int wc_store_tenant_next(wc_store_rows *rows, wc_tenant_row *row, wc_error *err);

/* One node row of a tick: the zone's energy and its active part (µJ). */
typedef struct wc_node_energy_row {
    int64_t tick_id;
    double delta_uj, active_uj;
} wc_node_energy_row;

/* The node rows of a model and zone, unordered. */
int wc_store_node_rows(wc_store *st, int64_t model_id, const char *zone, wc_store_rows **rows,
                       wc_error *err);

/* Steps node rows: 1, 0 at the end, or -EIO. */
int wc_store_node_next(wc_store_rows *rows, wc_node_energy_row *row, wc_error *err);

/* A named row: a process (id, comm) or a zone (id 0, name). */
typedef struct wc_name_row {
    int64_t id;
    const char *name;             /* NULL when the file has none */
} wc_name_row;

/* Every process by name then id (its id and comm). */
int wc_store_process_names(wc_store *st, wc_store_rows **rows, wc_error *err);

/* The distinct zones a model attributed (node rows), unordered. */
int wc_store_node_zones(wc_store *st, int64_t model_id, wc_store_rows **rows, wc_error *err);

/* Steps process names or zones: 1, 0 at the end, or -EIO. */
int wc_store_name_next(wc_store_rows *rows, wc_name_row *row, wc_error *err);

/* Closes an iterator. Safe on NULL. */
void wc_store_rows_close(wc_store_rows *rows);

/* Whether a model attributed the zone (1) or not (0); -EIO. */
int wc_store_node_has_zone(wc_store *st, int64_t model_id, const char *zone, wc_error *err);

/* ---- counts (store_counts.c) --------------------------------------------- */

/* The tables whose rows can be counted. */
typedef enum wc_store_table {
    WC_TABLE_TICK = 0, WC_TABLE_ZONE_SAMPLE, WC_TABLE_PROCESS, WC_TABLE_PROC_SAMPLE,
    WC_TABLE_TRUTH_SAMPLE, WC_TABLE_NODE_ATTR, WC_TABLE_WORK_ATTR, WC_TABLE_COUNT
} wc_store_table;

/* Rows of a table into *n. Returns 0, -EINVAL for an unknown table, -EIO. */
int wc_store_count_rows(wc_store *st, wc_store_table table, int64_t *n, wc_error *err);

/* The tick table's extent: first and last monotonic time (ns; 0 when empty)
 * and its row count. Returns 0 or -EIO. */
int wc_store_tick_span(wc_store *st, int64_t *first_mono_ns, int64_t *last_mono_ns,
                       int64_t *count, wc_error *err);

#endif
