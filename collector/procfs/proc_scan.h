/*
 * proc_scan.h — the per-tick process sampler.
 *
 * One scan lists the numeric entries of <procfs_root> (thread-group leaders)
 * and reads each /proc/<pid>/stat. Processes are identified by (pid,
 * starttime): a pid with a new starttime is a new process (pid reuse). comm,
 * exe and cgroup are read only the first time a (pid, starttime) is seen, so
 * the steady-state cost is one pread per process of its stat file, kept open
 * across scans (make bench compares it with the open+read+close floor; see
 * proc_scan.c for the descriptor budget and how a kept file is checked). A process vanishing between readdir
 * and read is normal and silently skipped; other failures are counted and the
 * first one described, and the scan goes on.
 *
 * Lifetimes: the scanner owns every identity. An identity not seen in scan k
 * (its process exited, or its pid now belongs to a process with another
 * starttime) is listed in snap->gone of scan k and freed when scan k+1
 * starts; so the samples of scan k−1 and scan k can both be dereferenced
 * until scan k+1 is called.
 */
#ifndef WC_PROC_SCAN_H
#define WC_PROC_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "collector/procfs/cgroup.h"
#include "collector/procfs/cmdline.h"
#include "common/wc_error.h"

/* The VM of a hypervisor process (cmdline.h's wc_vm_info with its strings
 * interned): all "" (since WC_VM_NONE) for any other process. */
typedef struct wc_proc_vm {
    wc_vm_since since;
    int truncated;          /* 1 when the cmdline was longer than WC_CMDLINE_MAX */
    const char *hypervisor; /* "kvm", "xen", "virtualbox", "vmware" */
    const char *id;         /* Kepler's vm_id label (cut to 127 bytes) */
    const char *name;       /* Kepler's vm_name label (cut to 127 bytes) */
} wc_proc_vm;

/* What is known of one process for its whole life; read once when first seen.
 * The pointer stays valid while the process is alive and for one scan after
 * it disappears (so a consumer can still label its last interval). The
 * strings behind exe, cgroup_path and vm are the scanner's, shared between
 * processes with equal ones (strpool.h: issue 15, record within 16 MiB at
 * 5,000 processes), valid as long as the identity; never NULL from the
 * scanner (a consumer reads NULL in a hand-made identity as ""). */
typedef struct wc_proc_identity {
    int32_t pid;            /* the <procfs_root>/<pid> directory name */
    int32_t ppid;
    uint64_t starttime;     /* ticks since boot: with pid, the identity */
    int32_t pgid;           /* process group when first seen (a workload's processes share one) */
    char comm[64];          /* from stat (first '(' .. last ')') */
    const char *exe;        /* readlink of /proc/<pid>/exe; "" for kernel threads or when unreadable
                             * (truncated to 255 bytes) */
    wc_cgroup_ids cgroup;   /* container/pod/runtime; empty ids for host processes, and when the
                             * process exited before its cgroup file was read */
    const char *cgroup_path; /* wc_cgroup_info.path of that file (at most 511 bytes) */
    wc_proc_vm vm;          /* the VM of a hypervisor process, from its cmdline read at birth
                             * (cmdline.h); since WC_VM_NONE for any other */
    int64_t store_id;       /* free for the consumer (the SQLite row id); -1 initially */
} wc_proc_identity;

/* One process in one scan: cumulative CPU ticks (USER_HZ) from its stat. */
typedef struct wc_proc_sample {
    const wc_proc_identity *id;
    uint64_t utime, stime;
    int64_t num_threads;
    int is_new;             /* 1 when this (pid, starttime) was first seen in this scan */
    char comm[32];          /* comm as of THIS scan (id->comm is the first-seen one; a worker
                             * renames itself after exec), cut to 31 bytes: what the simulated
                             * node classifies by (wc_meter_sim_feed) */
} wc_proc_sample;

/* The result of one scan; samples are in readdir order. Zero-initialise it
 * before its first scan; every scan reuses (and grows) its arrays. */
typedef struct wc_proc_snapshot {
    wc_proc_sample *samples;
    size_t count, cap;
    size_t vanished;        /* listed by readdir but gone before stat was read (ENOENT/ESRCH on
                             * open or read, or an empty read): normal, not an error */
    size_t errors;          /* other per-process failures (EACCES, malformed stat or cgroup...);
                             * a process whose cgroup failed is still sampled, with empty ids */
    wc_error first_error;   /* describes the first of those, naming the file */
    const wc_proc_identity **gone; /* identities seen in the previous scan but not this one; each
                                    * stays valid until the next scan starts (freed then) */
    size_t gone_count, gone_cap;
} wc_proc_snapshot;

typedef struct wc_proc_scanner wc_proc_scanner;

/* Creates a scanner over procfs_root ("/proc" or a fixture tree). Returns NULL
 * with err set when the root cannot be opened. */
wc_proc_scanner *wc_proc_scanner_new(const char *procfs_root, wc_error *err);

/* Scans every process into snap (reusing its arrays). Returns 0, or -errno
 * when the root itself cannot be listed, or -ENOMEM (then snap is
 * incomplete); per-process failures are counted in snap->errors, not
 * returned. */
int wc_proc_scan(wc_proc_scanner *s, wc_proc_snapshot *snap, wc_error *err);

/* Frees the snapshot's arrays (not the identities, which the scanner owns). */
void wc_proc_snapshot_free(wc_proc_snapshot *snap);

/* Stat files the scanner keeps open now (re-read with pread each scan), and
 * in *budget (when not NULL) how many it may keep: RLIMIT_NOFILE less a
 * reserve, 0 when the limit is too low (then every stat is opened, read and
 * closed per scan). */
size_t wc_proc_scanner_kept_fds(const wc_proc_scanner *s, size_t *budget);

/* Frees the scanner and every identity it holds (closing its kept files). */
void wc_proc_scanner_free(wc_proc_scanner *s);

#endif
