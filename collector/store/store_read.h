/*
 * store_read.h — reading what a run RECORDED: the raw samples as the
 * recorder, the scenario runner and `wattcal import` wrote them. What
 * analysis derived from them (attribution rows, tenant energy, calibration
 * fits) is store_results.h; the run row is store.h.
 *
 * How do I read ...
 *   how many rows a table holds, how far the ticks reach   store_counts.c
 *   ticks: ids, clocks, /proc/stat cpu lines                store_series.c
 *   zones and their raw samples (counters, gauges)          store_series.c
 *   processes, containers, pods                             store_procs.c
 *   ground-truth sources and polls                          store_truth_read.c
 *   phases and workloads (a replayed scenario's answers)    store_phases.c
 *
 * The iterator, error and text conventions are in store.h; every SQL
 * statement behind these lives in collector/store/ (README.md there), the
 * columns are those of docs/schema.md.
 */
#ifndef WC_STORE_READ_H
#define WC_STORE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "collector/meter/meter.h"
#include "collector/store/store.h"
#include "common/wc_error.h"

/* ---- row counts and the tick table's extent (store_counts.c) ------------ */

/* The tables whose rows can be counted. */
typedef enum wc_store_table {
    WC_TABLE_TICK = 0, WC_TABLE_ZONE_SAMPLE, WC_TABLE_PROCESS, WC_TABLE_PROC_SAMPLE,
    WC_TABLE_TRUTH_SAMPLE, WC_TABLE_NODE_ATTR, WC_TABLE_WORK_ATTR, WC_TABLE_COUNT
} wc_store_table;

/* Rows of a table into *n (WC_TABLE_TICK: the ticks a run kept, killed or
 * not). Returns 0, -EINVAL for an unknown table, -EIO. */
int wc_store_count_rows(wc_store *st, wc_store_table table, int64_t *n, wc_error *err);

/* The tick table's extent: first and last monotonic time (ns; 0 when empty)
 * and its row count. Returns 0 or -EIO. */
int wc_store_tick_span(wc_store *st, int64_t *first_mono_ns, int64_t *last_mono_ns,
                       int64_t *count, wc_error *err);

/* ---- ticks (store_series.c) --------------------------------------------- */

/* Reads at most cap ticks in id order: store id, monotonic and boot clock
 * (ns; a NULL boot clock reads 0) into the caller's arrays; *n gets the count
 * read. Returns 0 or -EIO. */
int wc_store_get_ticks(wc_store *st, int64_t *id, int64_t *mono_ns, int64_t *boot_ns,
                       size_t cap, size_t *n, wc_error *err);

/* Reads at most cap ticks' wall clocks (ns, a NULL one reads 0) in id order,
 * the order of wc_store_get_ticks (validate tells wall-clock steps from
 * them). Returns 0 or -EIO. */
int wc_store_get_tick_walls(wc_store *st, int64_t *wall_ns, size_t cap, size_t *n, wc_error *err);

/* The ids of the ticks inside a time window: first and last tick id with
 * t0_ns <= mono_ns <= t1_ns (tick ids grow with time; unlike
 * wc_store_tick_span, which spans the whole table in time); *first = 0 and
 * *last = -1 when no tick lies there. Returns 0 or -EIO. */
int wc_store_tick_ids_between(wc_store *st, int64_t t0_ns, int64_t t1_ns, int64_t *first,
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

/* Three reads of zone samples, each of other zones and columns. Counter
 * samples come in tick order (through the tick index: no sort), the zones
 * of one tick in the order they were written; a reader keeps a state per
 * zone. */

/* The samples of the zones of one kind whose name is in names (NULL-
 * terminated): counters in tick order, gauges by zone then tick: zone_id,
 * tick_id, value, status, max_range_uj (validate's meter and gauge
 * series). */
int wc_store_zone_samples_open(wc_store *st, wc_reading_kind kind, const char *const *names,
                               wc_store_iter **it, wc_error *err);

/* The samples of every counter zone, in tick order: zone_id, name,
 * max_range_uj, value, status, mono_ns (the gap's meter energy per zone). */
int wc_store_counter_samples_open(wc_store *st, wc_store_iter **it, wc_error *err);

/* The samples of the package and dram counter zones of the ticks first..last,
 * in tick order: zone_id, max_range_uj, value, status, mono_ns (a phase's
 * node energy; first..last from wc_store_tick_ids_between). */
int wc_store_node_counters_open(wc_store *st, int64_t first_tick, int64_t last_tick,
                                wc_store_iter **it, wc_error *err);

/* Next row of any zone-sample iterator. Returns 1, 0 at the end, < 0 with err. */
int wc_store_zone_sample_next(wc_store_iter *it, wc_zone_sample *row, wc_error *err);

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

/* A process's row id and name (comm; NULL when the file has none). */
typedef struct wc_process_name_row {
    int64_t id;
    const char *comm;
} wc_process_name_row;

/* Every process by name then id (wc_store_process_name_next): the report
 * groups per-process energy by name. */
int wc_store_process_names_open(wc_store *st, wc_store_iter **it, wc_error *err);
int wc_store_process_name_next(wc_store_iter *it, wc_process_name_row *row, wc_error *err);

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

/* Which phases, in which order: three filters, not one read three ways (a
 * phase whose bounds are not integers is in SPANNING only; WITH_TICKS costs
 * two tick lookups per phase). */
typedef enum wc_phase_set {
    WC_PHASES_SPANNING = 0,       /* end > start, by start then id (accuracy per phase) */
    WC_PHASES_TIMED,              /* integer bounds, end > start, by start (the gap's phase
                                     power) */
    WC_PHASES_WITH_TICKS          /* as TIMED, by start then id, with tick_lo/tick_hi
                                     (workload bias) */
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
 * 10 s after), for the gap's coverage table. One query per run; its
 * j_per_cpu_s is the one column read from attribution rows. */
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

/* Every workload by id, in a malloc'd array *out (the caller frees it): the
 * plain rows, for the bias pass that reads each workload's seen CPU and
 * energy over its own windows (wc_store_group_seen_cpu,
 * wc_store_group_energy_open). */
int wc_store_workloads(wc_store *st, wc_workload_row **out, size_t *n, wc_error *err);

/* CPU seconds /proc sampling saw of the processes of a process group first
 * seen in [lo_ns, hi_ns]: Σ over them of the largest cumulative CPU (the
 * seen_cpu_s of wc_workload_coverage, over a window the caller gives). */
int wc_store_group_seen_cpu(wc_store *st, int64_t pgid, int64_t lo_ns, int64_t hi_ns,
                            double *cpu_s, wc_error *err);

#endif
