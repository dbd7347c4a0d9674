/*
 * proc_scan.h — the per-tick process sampler.
 *
 * One scan lists the numeric entries of <procfs_root> (thread-group leaders)
 * and reads each /proc/<pid>/stat. Processes are identified by (pid,
 * starttime): a pid with a new starttime is a new process (pid reuse). comm,
 * exe and cgroup are read only the first time a (pid, starttime) is seen, so
 * the steady-state cost is one open+read+close per process (make bench
 * compares it with exactly that floor). A process vanishing between readdir
 * and read is normal and silently skipped; other failures are counted and the
 * first one described, and the scan goes on.
 */
#ifndef WC_PROC_SCAN_H
#define WC_PROC_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "collector/cgroup.h"
#include "common/wc_error.h"

/* What is known of one process for its whole life; read once when first seen.
 * The pointer stays valid while the process is alive and for one scan after
 * it disappears (so a consumer can still label its last interval). */
typedef struct wc_proc_identity {
    int32_t pid;
    uint64_t starttime;     /* ticks since boot: with pid, the identity */
    int32_t ppid;
    char comm[64];          /* from stat (first '(' .. last ')') */
    char exe[256];          /* readlink of /proc/<pid>/exe; "" for kernel threads or when unreadable */
    wc_cgroup_info cgroup;  /* container/pod/runtime; empty ids for host processes */
    int64_t store_id;       /* free for the consumer (the SQLite row id); -1 initially */
} wc_proc_identity;

/* One process in one scan: cumulative CPU ticks (USER_HZ) from its stat. */
typedef struct wc_proc_sample {
    const wc_proc_identity *id;
    uint64_t utime, stime;
    int64_t num_threads;
    int is_new;             /* 1 when this (pid, starttime) was first seen in this scan */
} wc_proc_sample;

/* The result of one scan; samples are in readdir order. */
typedef struct wc_proc_snapshot {
    wc_proc_sample *samples;
    size_t count, cap;
    size_t vanished;        /* listed by readdir but gone before stat was read (normal) */
    size_t errors;          /* other per-process failures (EACCES, malformed stat...) */
    wc_error first_error;   /* describes the first of those, naming the file */
    const wc_proc_identity **gone; /* identities seen in the previous scan but not this one */
    size_t gone_count, gone_cap;
} wc_proc_snapshot;

typedef struct wc_proc_scanner wc_proc_scanner;

/* Creates a scanner over procfs_root ("/proc" or a fixture tree). Returns NULL
 * with err set when the root cannot be opened. */
wc_proc_scanner *wc_proc_scanner_new(const char *procfs_root, wc_error *err);

/* Scans every process into snap (reusing its arrays). Returns 0, or -errno
 * when the root itself cannot be listed (per-process failures are counted in
 * snap->errors, not returned). */
int wc_proc_scan(wc_proc_scanner *s, wc_proc_snapshot *snap, wc_error *err);

/* Frees the snapshot's arrays (not the identities, which the scanner owns). */
void wc_proc_snapshot_free(wc_proc_snapshot *snap);

/* Frees the scanner and every identity it holds. */
void wc_proc_scanner_free(wc_proc_scanner *s);

#endif
