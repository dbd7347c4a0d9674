/*
 * store_cgroup_cpu.h — the CPU accounting of pods and containers in the run
 * database (schema version 5; docs/schema.md "cgroup", "cgroup_cpu"): each
 * pod or container cgroup the recorder saw (its directory and which kernel
 * file accounts it: cgroup v2 cpu.stat usage_usec or v1 cpuacct.usage), and
 * its cumulative usage at every tick it was read.
 *
 * Written by the recorder (collector/recorder_cgroup.c) inside the tick's
 * transaction; read by validator/cpu_share.c, which compares a pod's share of
 * energy with its share of this CPU. A run without the tables (made before
 * them) reads as one with no cgroup accounting.
 */
#ifndef WC_STORE_CGROUP_CPU_H
#define WC_STORE_CGROUP_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "common/wc_error.h"

/* Registers a cgroup (level "pod" or "container", its key: pod uid or
 * container id, its directory as /proc/<pid>/cgroup names it); sets *id.
 * Returns 0 or -EIO/-ENOSPC; -EROFS on a read-only store. */
int wc_store_put_cgroup(wc_store *st, const char *level, const char *key, const char *path,
                        int64_t *id, wc_error *err);

/* Records which file accounts cgroup id ("cpu.stat usage_usec",
 * "cpuacct.usage"); the first read that succeeded sets it. Returns 0 or -EIO. */
int wc_store_set_cgroup_accounting(wc_store *st, int64_t id, const char *accounting,
                                   wc_error *err);

/* One read of one cgroup at one tick. */
typedef struct wc_cgroup_cpu_in {
    int64_t cgroup_id;
    uint64_t usage_ns;           /* cumulative CPU time (v2: usage_usec × 1000) */
    int status;                  /* 0 ok; else -errno (usage stored as NULL) */
} wc_cgroup_cpu_in;

/* Inserts the n reads of a tick. Call inside the tick's transaction.
 * Returns 0, -EIO, -ENOSPC. */
int wc_store_put_cgroup_cpu(wc_store *st, int64_t tick_id, const wc_cgroup_cpu_in *v, size_t n,
                            wc_error *err);

/* ---- readers ---- */

/* One cgroup of the run. */
typedef struct wc_cgroup_row {
    int64_t id;
    char level[16];              /* "pod" | "container" */
    char key[72];                /* pod uid | container id */
    char path[512];
    char accounting[32];         /* "" when never read successfully */
} wc_cgroup_row;

/* Every cgroup of the run by id (malloc'd *out, *n rows; free()). A run
 * without the tables has none. Returns 0, -EIO, -ENOMEM. */
int wc_store_cgroups(wc_store *st, wc_cgroup_row **out, size_t *n, wc_error *err);

/* One stored read with its tick's time. */
typedef struct wc_cgroup_cpu_row {
    int64_t cgroup_id, tick_id;
    int64_t mono_ns;             /* the tick's monotonic time */
    int ok;                      /* 1: usage_ns holds a reading */
    uint64_t usage_ns;
    int status;
} wc_cgroup_cpu_row;

/* Streams the reads of every cgroup of a level ("pod", "container"; NULL:
 * all), cgroup by cgroup, each in tick order. Step with
 * wc_store_cgroup_cpu_next (1 row, 0 end, <0 error); close with
 * wc_store_iter_close. */
int wc_store_cgroup_cpu_open(wc_store *st, const char *level, wc_store_iter **it,
                             wc_error *err);
int wc_store_cgroup_cpu_next(wc_store_iter *it, wc_cgroup_cpu_row *row, wc_error *err);

#endif
