/*
 * store_iter.h — the iterator behind the streaming readers of store_read.h
 * and store_results.h (the convention is in store.h), shared by the
 * store_*.c files that open one; nothing outside collector/store/ includes
 * it.
 *
 * An iterator is one prepared statement with the kind of rows it yields: each
 * typed next function (wc_store_zone_sample_next, ...) checks the kind, steps
 * and reads its columns.
 */
#ifndef WC_STORE_ITER_H
#define WC_STORE_ITER_H

#include "collector/store/store_internal.h"

/* The row layouts (one per statement shape). */
typedef enum wc_iter_kind {
    WC_ITER_TEXT = 1,             /* one text column */
    WC_ITER_TICK_CPU,
    WC_ITER_ZONE_BY_NAME,         /* zone_id, tick_id, value, status, max_range */
    WC_ITER_ZONE_COUNTERS,        /* zone_id, name, max_range, value, status, mono */
    WC_ITER_ZONE_NODE_WINDOW,     /* zone_id, max_range, value, status, mono */
    WC_ITER_NODE_ROWS,            /* tick_id, zone, delta, active, idle, flags */
    WC_ITER_NODE_ZONE_ROWS,       /* tick_id, delta, flags, zone, active */
    WC_ITER_NODE_TOTALS,
    WC_ITER_WORK_ROWS,
    WC_ITER_PROCESS_IDENTITY,     /* id, container_id, pod_uid */
    WC_ITER_CONTAINER_POD,        /* container_id, pod_uid */
    WC_ITER_PROCESS_NAME,         /* id, comm */
    WC_ITER_ZONE_SUM,             /* zone, energy */
    WC_ITER_TENANT_TOTALS,        /* key, energy */
    WC_ITER_TENANT_ROWS,          /* tick_id, key, energy */
    WC_ITER_EXPORTER_SAMPLE,      /* series_id, scrape_id, mono, wall, value, ts_ms */
    WC_ITER_CGROUP_CPU,           /* cgroup_id, tick_id, mono, usage_ns, status */
    WC_ITER_VM_TOTALS             /* zone, vm_id, vm_name, hypervisor, energy, cpu, processes */
} wc_iter_kind;

struct wc_store_iter {
    wc_store *st;
    sqlite3_stmt *s;
    wc_iter_kind kind;
    const char *what;             /* "reading meter zones": names a failed step */
    size_t slot, nslot;           /* compact workload rows (store_levels.c): the next zone
                                     slot of the current row, and the run's slot count */
    int64_t *key_id;              /* compact workload rows: work_key's ids, ascending, */
    char **key;                   /* and their keys (nkeys of each; freed on close) */
    size_t nkeys;
    const char **zone;            /* compact workload rows: each slot's zone name (the
                                     store's, nslot of them; freed on close) */
    int64_t cur_tick, cur_pid;    /* the current statement row's columns, read once */
    int cur_level;                /* for all of its zones */
    long cur_slot;
    double cur_cpu;
};

/* Prepares sql into a new iterator *it (NULL on failure); the caller binds
 * its parameters on (*it)->s. Returns 0, -ENOMEM or wc_store_fail(st, err,
 * what). */
int wc_store_iter_open(wc_store *st, const char *sql, wc_iter_kind kind, const char *what,
                       wc_store_iter **it, wc_error *err);

/* Steps an iterator expected to be of kind. Returns 1 (a row), 0 at the end,
 * -EINVAL for an iterator of another kind, or wc_store_fail. */
int wc_store_iter_step(wc_store_iter *it, wc_iter_kind kind, wc_error *err);

/* Opens "<head> IN (?,...) <tail>" with names (NULL-terminated, at most 200)
 * bound from parameter number first on. Returns as wc_store_iter_open, or
 * -EINVAL for too many names. */
int wc_store_open_in_list(wc_store *st, const char *head, const char *tail,
                          const char *const *names, int first, wc_iter_kind kind,
                          const char *what, wc_store_iter **it, wc_error *err);

/* A column's text, NULL when it is NULL. */
const char *wc_store_col_str(sqlite3_stmt *s, int col);

#endif
