/*
 * store_read.h — the typed readers of a recorded run that the validator uses
 * (validate's series, attribution gap, levels, node accuracy and workload
 * bias): ticks and their CPU lines, zones and zone samples, the model's node
 * and workload rows, processes, ground truth, phases and workloads.
 *
 * Every SQL statement behind them lives in collector/store/ (store_series.c,
 * store_levels.c, store_procs.c, store_truth_read.c, store_phases.c, with the
 * iterator in store_iter.c); the schema is docs/schema.md. Small sets come
 * back filled in one call (an array and its count); large ones (zone samples
 * and workload rows of a 24 h run are tens of millions of rows) stream
 * through an iterator: open, then next until it returns 0, then
 * wc_store_iter_close. Every function returns 0 (next: 1 for a row, 0 at the
 * end) or a negative errno with err naming the file and what was being read
 * (wc_store_fail: -EIO, -ENOSPC), -ENOMEM, or -EINVAL for a bad argument.
 * Text in an iterator's row (const char *) points into the statement: it is
 * NULL for a NULL column and valid until the next call on that iterator.
 */
#ifndef WC_STORE_READ_H
#define WC_STORE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collector/meter/meter.h"
#include "collector/store/store.h"
#include "common/wc_error.h"

/* Copies a text field of a row below into a caller's field of the same size
 * (checked at compile time; the row's text is always terminated). */
#define WC_STORE_COPY_TEXT(dst, src)                                                           \
    do {                                                                                       \
        _Static_assert(sizeof(dst) == sizeof(src), "text fields of one size");                 \
        memcpy((dst), (src), sizeof(dst));                                                     \
    } while (0)

/* A stream of rows of one kind; each open function says which next to call. */
typedef struct wc_store_iter wc_store_iter;

/* Finalizes the statement and frees the iterator. Safe on NULL. */
void wc_store_iter_close(wc_store_iter *it);

/* Next row of a text iterator (zone names, container ids, pod uids) into *text
 * (NULL for a NULL value). Returns 1, 0 at the end, or < 0 with err. */
int wc_store_text_next(wc_store_iter *it, const char **text, wc_error *err);

/* ---- ticks (store_series.c) --------------------------------------------- */

/* Rows in the tick table (what a killed run kept). Returns 0 or -EIO. */
int wc_store_tick_count(wc_store *st, int64_t *n, wc_error *err);

/* Reads at most cap ticks in id order: store id, monotonic and boot clock
 * (ns; a NULL boot clock reads 0) into the caller's arrays; *n gets the count
 * read. Returns 0 or -EIO. */
int wc_store_get_ticks(wc_store *st, int64_t *id, int64_t *mono_ns, int64_t *boot_ns,
                       size_t cap, size_t *n, wc_error *err);

/* First and last tick id with t0_ns <= mono_ns <= t1_ns (tick ids grow with
 * time); *first = 0 and *last = -1 when no tick lies there. Returns 0 or -EIO. */
int wc_store_tick_range(wc_store *st, int64_t t0_ns, int64_t t1_ns, int64_t *first,
                        int64_t *last, wc_error *err);

/* The aggregate /proc/stat cpu line of one tick (USER_HZ ticks, as stored). */
typedef struct wc_tick_cpu {
    int64_t tick_id;
    uint64_t field[8];            /* user nice system idle iowait irq softirq steal */
    int cpu_ok;                   /* the line was read that tick */
    int has_util;                 /* util_pct is set (imported runs) */
    double util_pct;              /* CPU utilisation, percent of all CPUs */
} wc_tick_cpu;

/* Every tick's cpu line, in id order (wc_store_tick_cpu_next). */
int wc_store_tick_cpu_open(wc_store *st, wc_store_iter **it, wc_error *err);
int wc_store_tick_cpu_next(wc_store_iter *it, wc_tick_cpu *row, wc_error *err);

/* ---- zones and zone samples (store_series.c) ---------------------------- */

/* Distinct names of the zones of one kind, in zone id order
 * (wc_store_text_next). */
int wc_store_zone_names_open(wc_store *st, wc_reading_kind kind, wc_store_iter **it,
                             wc_error *err);

/* How a stored zone value reads. */
typedef enum wc_value_type {
    WC_VALUE_OTHER = 0,           /* NULL, TEXT or BLOB: a failed read */
    WC_VALUE_INTEGER,
    WC_VALUE_REAL
} wc_value_type;

/* One raw zone reading. Which fields an iterator fills is said at its open
 * function; the others are 0 (name NULL). */
typedef struct wc_zone_sample {
    int64_t zone_id, tick_id;
    const char *name;             /* zone name */
    uint64_t max_range_uj;        /* the counter's max_energy_range_uj (0: unknown) */
    wc_value_type type;
    int64_t value;                /* the value when type is WC_VALUE_INTEGER */
    double value_real;            /* the value as a double when numeric */
    int status;                   /* 0 ok, else the negative errno of the read */
    int64_t mono_ns;              /* of the sample's tick */
} wc_zone_sample;

/* The samples of the zones of one kind whose name is in names (NULL-
 * terminated), by zone then tick: zone_id, tick_id, value, status,
 * max_range_uj. */
int wc_store_zone_samples_open(wc_store *st, wc_reading_kind kind, const char *const *names,
                               wc_store_iter **it, wc_error *err);

/* The samples of every counter zone, by zone then tick: zone_id, name,
 * max_range_uj, value, status, mono_ns. */
int wc_store_counter_samples_open(wc_store *st, wc_store_iter **it, wc_error *err);

/* The samples of the package and dram counter zones of the ticks first..last,
 * by zone then tick: zone_id, max_range_uj, value, status, mono_ns. */
int wc_store_node_counters_open(wc_store *st, int64_t first_tick, int64_t last_tick,
                                wc_store_iter **it, wc_error *err);

/* Next row of any zone-sample iterator. Returns 1, 0 at the end, < 0 with err. */
int wc_store_zone_sample_next(wc_store_iter *it, wc_zone_sample *row, wc_error *err);

/* ---- the model's node and workload rows (store_levels.c) ---------------- */

/* Distinct zone names of a model's node rows, in order of first appearance
 * (wc_store_text_next). */
int wc_store_node_zones_open(wc_store *st, int64_t model_id, wc_store_iter **it,
                             wc_error *err);

/* One node_attr row (µJ as stored: a uint64 above 2^63 reads negative). */
typedef struct wc_node_row {
    int64_t tick_id;
    const char *zone;
    double delta_uj, active_uj, idle_uj;
    unsigned flags;               /* WC_AF_* */
} wc_node_row;

/* Every node row of a model, in table order (all fields). */
int wc_store_node_rows_open(wc_store *st, int64_t model_id, wc_store_iter **it, wc_error *err);

/* The node rows of a model for the zones named (NULL-terminated), by tick:
 * tick_id, delta_uj, flags, zone (active_uj and idle_uj are 0). */
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
    double energy_uj, cpu_delta_s;
    unsigned flags;
} wc_work_row;

/* Every workload row of a model: in table (rowid) order by a plain scan
 * when tick_ordered is 0 — tick order for every writer, and several times
 * faster than through the model index — else by tick_id. */
int wc_store_work_rows_open(wc_store *st, int64_t model_id, int tick_ordered,
                            wc_store_iter **it, wc_error *err);
int wc_store_work_row_next(wc_store_iter *it, wc_work_row *row, wc_error *err);

/* ---- processes, containers and pods (store_procs.c) --------------------- */

/* Distinct container ids (container table and processes) and pod uids (pod
 * table and processes), in no promised order; a NULL or empty one may be
 * among them (wc_store_text_next). */
int wc_store_container_ids_open(wc_store *st, wc_store_iter **it, wc_error *err);
int wc_store_pod_uids_open(wc_store *st, wc_store_iter **it, wc_error *err);

/* Largest and smallest process row id (0 when none) and the row count. */
int wc_store_process_extent(wc_store *st, int64_t *max_id, int64_t *count, int64_t *min_id,
                            wc_error *err);

/* Who belongs where: a process's (or a container's) container id and pod uid. */
typedef struct wc_identity_row {
    int64_t process_id;           /* 0 for container rows */
    const char *container_id, *pod_uid;
} wc_identity_row;

/* Every process's identity (process table order) / every container's pod. */
int wc_store_process_identities_open(wc_store *st, wc_store_iter **it, wc_error *err);
int wc_store_container_pods_open(wc_store *st, wc_store_iter **it, wc_error *err);
int wc_store_identity_next(wc_store_iter *it, wc_identity_row *row, wc_error *err);

/* One process row as recorded. */
typedef struct wc_process_row {
    int found;                    /* 0 when no row has that id (the rest zero) */
    int32_t pid;
    uint64_t starttime;
    char comm[64], container_id[65], pod_uid[37];
} wc_process_row;

/* The process rows of ids[0..n) into out[0..n). Returns 0 or -EIO. */
int wc_store_get_processes(wc_store *st, const int64_t *ids, size_t n, wc_process_row *out,
                           wc_error *err);

/* ---- ground truth (store_truth_read.c) ---------------------------------- */

/* A registered ground-truth source. */
typedef struct wc_truth_source_row {
    int64_t id;
    char spec[128], kind[16], provenance[32];
} wc_truth_source_row;

/* The first max sources, by id; *n gets the count. */
int wc_store_truth_sources(wc_store *st, wc_truth_source_row *out, size_t max, size_t *n,
                           wc_error *err);

/* One stored poll of a source. */
typedef struct wc_truth_poll_row {
    int64_t t_ns, device_ts_ns;   /* poll (monotonic) and device time; 0 when unknown */
    double watts;                 /* NAN when NULL */
    double window_s;              /* 0 when NULL */
    int window_known;
    char status[16];              /* ok, stale, unavailable, error */
} wc_truth_poll_row;

/* Every poll of a source by poll time (then insertion), in a malloc'd array
 * *out (NULL when none; the caller frees it). */
int wc_store_truth_polls(wc_store *st, int64_t source_id, wc_truth_poll_row **out, size_t *n,
                         wc_error *err);

/* What a source delivered: counts per status and the mean of its ok samples. */
typedef struct wc_truth_summary {
    char spec[128], kind[16], provenance[32], description[256];
    int64_t ok, stale, unavailable, error;
    double mean_watts;            /* NAN when no ok sample */
    char last_error[256];         /* most recent non-empty error */
} wc_truth_summary;

/* The first max sources' summaries, by source id. */
int wc_store_truth_summaries(wc_store *st, wc_truth_summary *out, size_t max, size_t *n,
                             wc_error *err);

/* ---- phases and workloads (store_phases.c) ------------------------------ */

/* Which phases, in which order. */
typedef enum wc_phase_set {
    WC_PHASES_SPANNING = 0,       /* end > start, by start then id */
    WC_PHASES_TIMED,              /* integer bounds, end > start, by start */
    WC_PHASES_WITH_TICKS          /* as TIMED, by start then id, with tick_lo/tick_hi */
} wc_phase_set;

/* One labelled phase (monotonic ns). */
typedef struct wc_phase_row {
    int64_t id;
    char name[64], cls[32];
    int repetition;
    int64_t start_ns, end_ns;
    int64_t tick_lo, tick_hi;     /* WITH_TICKS: first tick after the start, last at or
                                     before the end (0 when none) */
} wc_phase_row;

/* The first max phases of a set (max 0: all) in a malloc'd array *out (the
 * caller frees it; NULL when none). */
int wc_store_phases(wc_store *st, wc_phase_set set, size_t max, wc_phase_row **out, size_t *n,
                    wc_error *err);

/* A replayed workload's known answer beside what /proc sampling saw of it
 * (its processes: same process group, first seen from 2 s before its phase to
 * 10 s after). */
typedef struct wc_workload_coverage {
    char phase[64], cls[16];
    int repetition, workers, crashed;
    double true_cpu_s;            /* wait4 rusage of the whole subtree */
    double seen_cpu_s;            /* Σ of each process's largest cumulative CPU sampled */
    double j_per_cpu_s;           /* the first model's package active J per busy CPU-s in
                                     the phase; NAN when unknown */
} wc_workload_coverage;

/* The first max workloads, by id. */
int wc_store_workload_coverage(wc_store *st, wc_workload_coverage *out, size_t max, size_t *n,
                               wc_error *err);

/* One workload row. */
typedef struct wc_workload_row {
    int64_t phase_id, pgid;
    char cls[16];
    double true_cpu_s;            /* user + sys, s */
} wc_workload_row;

/* Every workload by id, in a malloc'd array *out (the caller frees it). */
int wc_store_workloads(wc_store *st, wc_workload_row **out, size_t *n, wc_error *err);

/* CPU seconds /proc sampling saw of the processes of a process group first
 * seen in [lo_ns, hi_ns]: Σ over them of the largest cumulative CPU. */
int wc_store_group_seen_cpu(wc_store *st, int64_t pgid, int64_t lo_ns, int64_t hi_ns,
                            double *cpu_s, wc_error *err);

/* Energy a model gave those processes over the ticks tick_lo..tick_hi, per
 * zone (wc_store_zone_sum_next). */
int wc_store_group_energy_open(wc_store *st, int64_t model_id, int64_t tick_lo,
                               int64_t tick_hi, int64_t pgid, int64_t lo_ns, int64_t hi_ns,
                               wc_store_iter **it, wc_error *err);
int wc_store_zone_sum_next(wc_store_iter *it, const char **zone, double *energy_uj,
                           wc_error *err);

#endif
