/*
 * spawn.h — start a workload as child processes, wait for it, kill it.
 *
 * A workload is `workers` children of one executable (by default this one,
 * /proc/self/exe), each started with posix_spawn and an argv array such as
 *   wattcal stress --class avx --duration 10000000000ns --duty 50 --parent-pid 1234
 * All children share one new process group (POSIX_SPAWN_SETPGROUP; the first
 * child's pid is the pgid), so the whole workload — including anything its
 * children fork — is signalled with one killpg. `wattcal stress` sets
 * PR_SET_PDEATHSIG(SIGKILL) in every child and exits at once when
 * --parent-pid no longer names its parent, so a killed spawner leaves no
 * stressor behind.
 *
 * True CPU time: wait4 on each direct child returns the rusage of the child
 * plus every descendant it waited for. The burst class relies on this: its
 * leader forks short-lived children one batch at a time and waits for each,
 * so the leader's wait4 rusage covers the whole burst. wc_workload_start
 * makes the calling process a child subreaper (PR_SET_CHILD_SUBREAPER), so
 * descendants orphaned by a dying leader are reaped (and counted) here too.
 *
 * Backends: by default (WC_BACKEND_WATTCAL) each worker is `wattcal stress`
 * as above. With WC_BACKEND_STRESS_NG each worker is instead one `stress-ng`
 * process (posix_spawnp, looked up on PATH, an argv array, never a shell),
 * in the same process group, with the argv of wc_stress_ng_argv. stress-ng
 * cannot be asked to set PR_SET_PDEATHSIG, so if wattcal itself is killed
 * with SIGKILL its stress-ng workers run on until their --timeout (the
 * workload duration rounded up to whole seconds); an orderly stop kills
 * them with the process group. True CPU still comes from wait4: stress-ng
 * waits for its stressor children, so its rusage includes them.
 */
#ifndef WC_SPAWN_H
#define WC_SPAWN_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/wc_error.h"
#include "workloads/stressor.h"

#define WC_WORKLOAD_MAX_WORKERS 256
/* Most burst children one leader runs at once. */
#define WC_BURST_MAX_BATCH 64

/* Who runs each worker. */
typedef enum wc_workload_backend {
    WC_BACKEND_WATTCAL = 0, /* `wattcal stress` (the default) */
    WC_BACKEND_STRESS_NG,   /* `stress-ng`, when installed */
} wc_workload_backend;

/* "wattcal" / "stress-ng" ("?" for anything else). */
const char *wc_workload_backend_name(wc_workload_backend b);
/* Parses "wattcal" or "stress-ng". Returns 0, or -EINVAL. */
int wc_workload_backend_parse(const char *s, wc_workload_backend *out);

/* What to start. wc_workload_spec_init fills the defaults. */
typedef struct wc_workload_spec {
    wc_stress_class cls;        /* any class; burst: each worker is a burst leader */
    int workers;                /* 1..WC_WORKLOAD_MAX_WORKERS (default 1) */
    int64_t duration_ns;        /* run time of each worker (default 60 s); burst:
                                   the leader starts no child after it */
    int duty_pct;               /* 1..100 (default 100) */
    size_t resident_bytes;      /* idle/membound memory, passed in whole MiB
                                   (rounded up); 0 = the class default */
    int burst_count;            /* burst: children per leader (default 200) */
    int64_t burst_child_cpu_ns; /* burst: CPU each child burns (default 50 ms) */
    int burst_batch;            /* burst: children running at once (default 1) */
    const char *exe;            /* program to run (NULL = /proc/self/exe); must
                                   accept the `stress` argv above */
    int test_crash_last;        /* testing aid: the last worker gets --test-crash
                                   and dies by SIGSEGV (wattcal backend only) */
    wc_workload_backend backend;/* default WC_BACKEND_WATTCAL; with
                                   WC_BACKEND_STRESS_NG, exe (NULL = "stress-ng"
                                   on PATH) must accept the stress-ng argv */
} wc_workload_spec;

/* The argv of one worker: argv[0..argc-1], NULL-terminated; numbers are
 * formatted into text[]. */
typedef struct wc_worker_argv {
    char *argv[32];
    char text[16][32];
    int argc, ntext;
} wc_worker_argv;

/* Builds the stress-ng argv of one worker of s (a pure function of s):
 *   cpu      stress-ng --cpu 1 --cpu-load DUTY
 *   avx      stress-ng --cpu 1 --cpu-method matrixprod [--cpu-load DUTY if < 100]
 *            (floating-point matrix work; not guaranteed to use AVX)
 *   membound stress-ng --stream 1 (bandwidth, not wattcal's pointer chase;
 *            resident_bytes is not used)
 *   idle     stress-ng --vm 1 --vm-bytes NM --vm-hang 0 (N = resident MiB,
 *            default 64: allocate, touch, then sleep)
 *   burst    stress-ng --fork 1 --fork-ops COUNT --fork-max BATCH (children
 *            exit at once: burst_child_cpu_ns is not used)
 * each followed by --timeout <seconds>s --quiet, seconds = duration_ns
 * rounded up, at least 1 (stress-ng's 0 would mean "forever"). */
void wc_stress_ng_argv(const wc_workload_spec *s, wc_worker_argv *a);

/* A started workload. Fields are read-only for callers. */
typedef struct wc_workload {
    pid_t pgid;                                 /* process group of all workers */
    int n;                                      /* workers started */
    pid_t pid[WC_WORKLOAD_MAX_WORKERS];         /* direct children (burst: leaders) */
    uint64_t starttime[WC_WORKLOAD_MAX_WORKERS];/* /proc/<pid>/stat field 22, ticks
                                                   since boot: (pid, starttime) is
                                                   the identity; 0 if unreadable */
    int status[WC_WORKLOAD_MAX_WORKERS];        /* wait status once reaped */
    int reaped[WC_WORKLOAD_MAX_WORKERS];        /* 1 once reaped */
    int64_t user_ns, sys_ns;                    /* summed wait4 rusage of every child
                                                   reaped so far (ns) */
    int crashed;                                /* workers that died by a signal
                                                   (other than a kill by us) */
    int crash_signal;                           /* the first such signal, or 0 */
    int failed;                                 /* workers that exited non-zero */
    int killed;                                 /* 1 once wc_workload_kill ran */
} wc_workload;

/* Fills spec with the defaults above for class cls. */
void wc_workload_spec_init(wc_workload_spec *spec, wc_stress_class cls);

/* Starts spec->workers children in one new process group. Returns a heap
 * handle (free with wc_workload_free), or NULL with err: -EINVAL-style
 * messages for a bad spec, or the posix_spawn error; with the stress-ng
 * backend, -ENOENT when stress-ng is not on PATH (the message names
 * stress-ng and `apt-get install stress-ng`). A failure after some
 * workers started kills and reaps those first. */
wc_workload *wc_workload_start(const wc_workload_spec *spec, wc_error *err);

/* Waits (polling every 10 ms) until every worker has exited, reaping each
 * with wait4 and adding its rusage to h->user_ns/sys_ns; a worker killed by
 * a signal counts in h->crashed, never as an error. Returns 0 when all are
 * reaped, or -EINTR as soon as *stop is set (stop may be NULL; the workers
 * keep running: call wc_workload_kill). */
int wc_workload_wait(wc_workload *h, volatile sig_atomic_t *stop);

/* Sends SIGTERM to the whole process group, waits up to grace_ns for the
 * workers to exit, then SIGKILLs the group and reaps every worker and every
 * orphaned descendant of the group (up to 2 s more). Deaths by the signals we
 * sent do not count as crashes. Returns 0, or -ETIMEDOUT when a member of the
 * group was still present at the end. */
int wc_workload_kill(wc_workload *h, int64_t grace_ns);

/* User + system CPU of everything reaped so far, ns. */
int64_t wc_workload_cpu_ns(const wc_workload *h);

/* 1 when an executable named name is found in one of $PATH's directories
 * (or name contains a '/' and is executable), else 0. No shell involved. */
int wc_on_path(const char *name);

/* Frees the handle (does not kill; call wc_workload_kill first if needed). */
void wc_workload_free(wc_workload *h);

/* Number of processes whose /proc/<pid>/stat names process group pgid;
 * zombies count only when with_zombies is 1. */
int wc_pgid_count(pid_t pgid, int with_zombies);

/* The burst leader, run in the calling process (`wattcal stress --class
 * burst` as a spawned worker): forks `count` children, `batch` at a time,
 * each named wattcal-burst, with PR_SET_PDEATHSIG(SIGKILL), burning
 * child_cpu_ns of its own CPU (cpu loop) and exiting 0; waits for each.
 * Starts no child once duration_ns has elapsed or *stop is set; on *stop the
 * running children are SIGKILLed and reaped. batch: 1..WC_BURST_MAX_BATCH.
 * Returns the number of children that did not exit 0 (>= 0); -EINVAL (with
 * err) for a bad batch; -errno (with err) when fork fails (the children
 * already running are reaped first). */
int wc_burst_lead(int count, int batch, int64_t child_cpu_ns, int64_t duration_ns,
                  volatile sig_atomic_t *stop, wc_error *err);

#endif
