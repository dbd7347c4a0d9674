/*
 * bench_validate.c — `make bench`, part 2: how long `wattcal validate` takes,
 * and how much memory it needs, on a full-size run.
 *
 * How it fits: bench_sampler.c measures the recording side (tick cost, SQLite
 * ingest); this file measures the analysis side against its targets, ≤ 10 s
 * and ≤ 1 GiB on a 2-core machine for a 24 h run of 500 processes. Nobody
 * records 24 h just to benchmark, so it first builds such a run:
 *
 * 1. Generator. A SYNTHETIC run written through the store API exactly as
 *    `wattcal record` writes one (collector/store/store.h: run row, zones, ticks
 *    with the /proc/stat cpu line, raw zone counters, processes by (pid,
 *    starttime) with cumulative CPU, a ground-truth source, phases): 24 h at
 *    1 Hz (86,400 ticks), 500 processes alive for the whole run — kernel
 *    threads, host daemons, containerd shims, batch/user processes and 60
 *    processes in 30 containers of 15 kubepods pods, whose container id, pod
 *    uid and QoS come from cgroup paths parsed by the real parser
 *    (collector/procfs/cgroup.c). About 40 processes have a non-zero CPU delta per
 *    tick; the load changes in steps every 2–8 minutes on a daily curve, so
 *    node power varies. Two sockets of package + dram zones plus psys are
 *    counter_uj zones with real-RAPL max_energy_range_uj values, and each
 *    wraps several times in 24 h. The /proc/stat cpu fields add up to the
 *    processes' CPU plus a little kernel time. One simulated BMC (kind "sim",
 *    provenance simulated) publishes every second wall = (package + dram
 *    averaged over [t − 12 s, t − 2 s] + 40 W) / 0.9 + noise. One phase per
 *    hour ("hour-NN", class "mixed"). Run provenance simulated, meter_kind
 *    "sim", and command_line says this is a synthetic benchmark run. Fixed
 *    seed and fixed clocks: the same DB on every run. Several ticks per
 *    transaction (a recording writes one per tick; only speed differs).
 * 2. Attribution: wc_store_replay under kepler-0.11, so node_attr and work_attr are
 *    the real model's output, then wc_store_finish_run (indexes, rollback
 *    journal) as at the end of a recording.
 * 3. Timer. Runs `$WATTCAL_BIN validate --db FILE` (default ./wattcal, the
 *    build in the repository root, where `make bench` runs) plus the words of
 *    $WATTCAL_BENCH_VALIDATE_ARGS, split on spaces, with posix_spawn and an
 *    argv array (no shell), stdout to /dev/null, 5 times; prints the median
 *    wall time (CLOCK_MONOTONIC) and the largest ru_maxrss (wait4; this
 *    process's peak RSS is reset first, see reset_peak_rss) beside the
 *    targets.
 *
 * The DB lives in a mkdtemp directory under $TMPDIR (or /tmp), removed at the
 * end unless WATTCAL_BENCH_KEEP=1 (then its path is printed); it needs about
 * 4.5 GiB free there (a 3.4 GiB DB, plus the WAL of replay's one transaction). Figures are
 * printed, nothing asserts timings. Exit status: 0, or 1 when generation or
 * replay fails or validate does not exit 0 or 1 (1 = a tolerance broken is a
 * result, not a failure of the benchmark).
 * Build with -DBENCH_HOURS=N for a shorter run (e.g. a sanitizer check).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/model/attribution.h"
#include "collector/procfs/cgroup.h"
#include "collector/meter/meter.h"
#include "collector/procfs/proc_scan.h"
#include "collector/procfs/procstat.h"
#include "collector/store/store.h"
#include "collector/store/store_replay.h"
#include "collector/store/store_read.h"
#include "collector/truth/truth.h"
#include "common/wc_clock.h"

extern char **environ;

#ifndef BENCH_HOURS
#define BENCH_HOURS 24
#endif
#define NTICKS ((int64_t)BENCH_HOURS * 3600)
#define INTERVAL_NS WC_NS_PER_S
#define SEED 20260101u
#define TICKS_PER_TXN 60
#define VALIDATE_RUNS 5
#define REPORT_RUNS 3

#define NCPUS 32            /* 2 sockets × 16 */
#define NSOCKETS 2
#define NPROC 500
#define NPODS 15            /* × 2 containers × 2 processes = 60 processes */
#define CONT_PER_POD 2
#define PROC_PER_CONT 2
#define NCONTPROC (NPODS * CONT_PER_POD * PROC_PER_CONT)
#define NALWAYS 10          /* light daemons busy in every step */
#define NSTEP_HOST 15       /* host processes busy per load step */
#define NSTEP_CONT 15       /* container processes busy per load step */

/* Zone order as the simulated node (meter_sim.c) discovers them. */
#define NZONES 5
enum { Z_PKG0, Z_DRAM0, Z_PKG1, Z_DRAM1, Z_PSYS };
#define PKG_RANGE_UJ 262143328850ull  /* max_energy_range_uj of a real RAPL package */
#define DRAM_RANGE_UJ 65712999613ull  /* ... and of a real dram zone */

/* Node clocks at the first tick: fixed, so the DB is reproducible. */
#define MONO0_NS (273600LL * WC_NS_PER_S)            /* 3 d 4 h of uptime */
#define BOOT_OFFSET_NS (7LL * WC_NS_PER_S)           /* boot clock − monotonic (suspend) */
#define WALL0_NS (1767225600LL * WC_NS_PER_S)        /* 2026-01-01T00:00:00Z */

/* Ground truth: the simulated BMC's parameters. */
#define TRUTH_LAG_S 2.0
#define TRUTH_WINDOW_S 10.0
#define TRUTH_BASE_W 40.0
#define TRUTH_EFF 0.9
#define TRUTH_NOISE_W 0.5
#define HIST 32             /* ticks of (mono, package+dram energy) history kept */

/* ---- deterministic random numbers ---------------------------------------- */

/* xorshift64* state; never 0. */
typedef struct rng {
    uint64_t s;
} rng;

/* Next 64 random bits. */
static uint64_t rng_next(rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

/* Uniform in [0, 1). */
static double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) / 9007199254740992.0; }

/* Uniform integer in [0, n). */
static uint64_t rng_below(rng *r, uint64_t n) { return n ? rng_next(r) % n : 0; }

/* Standard normal (Box–Muller). */
static double rng_gauss(rng *r)
{
    double u = rng_unit(r), v = rng_unit(r);
    return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

/* ---- the synthetic node --------------------------------------------------- */

/* What the generator keeps per process beside the store's identity/sample. */
typedef struct synth_proc {
    double rate;            /* CPU ticks per second in the current load step (0 = idle) */
    int sys_permille;       /* share of its CPU that is stime */
    int always;             /* 1 for the light daemons busy in every step */
    int container;          /* 1 for processes in a pod's container */
} synth_proc;

/* Whole generator state. */
typedef struct gen {
    rng r;
    wc_proc_identity ids[NPROC];
    char cgroup_paths[NPROC][512];   /* ids[i].cgroup_path points here */
    wc_proc_sample samples[NPROC];
    synth_proc sp[NPROC];
    int order[NPROC];                /* sample indexes by ascending pid: /proc's readdir order */
    wc_proc_sample scan[NPROC];      /* the tick's samples in that order */
    wc_proc_snapshot snap;
    wc_cpu_times cpu;                /* cumulative aggregate cpu line */
    uint64_t total_uj[NZONES];       /* unwrapped energy since the counters' origin */
    double frac_uj[NZONES];          /* sub-µJ remainders */
    int64_t wraps[NZONES];
    int64_t hist_mono[HIST];         /* ring: tick times ... */
    double hist_j[HIST];             /* ... and package+dram joules since the first tick */
    int64_t nhist;
    double pd_j;                     /* package+dram joules since the first tick */
    int64_t last_mono;               /* monotonic time of the last tick */
    /* figures for the report */
    int64_t nonzero_sum, busy_ticks_sum, steps, truth_ok, truth_unavail;
    double node_w_min, node_w_max, node_w_sum;
} gen;

/* The meter's zones as wc_store_put_zones takes them (paths say synthetic). */
static const wc_zone ZONES[NZONES] = {
    [Z_PKG0] = {.name = "package", .socket = 0, .index = 0, .raw_name = "package-0",
                .path = "synthetic/class/powercap/intel-rapl:0", .parent = -1, .enabled = 1,
                .max_energy_range_uj = PKG_RANGE_UJ, .kind = WC_KIND_COUNTER_UJ},
    [Z_DRAM0] = {.name = "dram", .socket = 0, .index = 0, .raw_name = "dram",
                 .path = "synthetic/class/powercap/intel-rapl:0:0", .parent = Z_PKG0,
                 .enabled = 1, .max_energy_range_uj = DRAM_RANGE_UJ, .kind = WC_KIND_COUNTER_UJ},
    [Z_PKG1] = {.name = "package", .socket = 1, .index = 0, .raw_name = "package-1",
                .path = "synthetic/class/powercap/intel-rapl:1", .parent = -1, .enabled = 1,
                .max_energy_range_uj = PKG_RANGE_UJ, .kind = WC_KIND_COUNTER_UJ},
    [Z_DRAM1] = {.name = "dram", .socket = 1, .index = 0, .raw_name = "dram",
                 .path = "synthetic/class/powercap/intel-rapl:1:0", .parent = Z_PKG1,
                 .enabled = 1, .max_energy_range_uj = DRAM_RANGE_UJ, .kind = WC_KIND_COUNTER_UJ},
    [Z_PSYS] = {.name = "psys", .socket = -1, .index = 0, .raw_name = "psys",
                .path = "synthetic/class/powercap/intel-rapl:2", .parent = -1, .enabled = 1,
                .max_energy_range_uj = PKG_RANGE_UJ, .kind = WC_KIND_COUNTER_UJ},
};

/* Only .kind is used: wc_store_put_zones takes the zones' meter_kind from it. */
static const wc_meter_ops SYNTH_OPS = {.kind = "sim"};

/* Host daemons: comm, exe, cgroup (v2 path), threads; the first NALWAYS-2 are
 * also "always busy" (two kworkers complete the set). */
static const struct {
    const char *comm, *exe, *cgroup;
    int threads;
} DAEMONS[] = {
    {"systemd", "/usr/lib/systemd/systemd", "/init.scope", 1},
    {"kubelet", "/usr/bin/kubelet", "/system.slice/kubelet.service", 24},
    {"containerd", "/usr/bin/containerd", "/system.slice/containerd.service", 18},
    {"systemd-journal", "/usr/lib/systemd/systemd-journald", "/system.slice/systemd-journald.service", 1},
    {"node_exporter", "/usr/bin/node_exporter", "/system.slice/node_exporter.service", 8},
    {"chronyd", "/usr/sbin/chronyd", "/system.slice/chrony.service", 1},
    {"rsyslogd", "/usr/sbin/rsyslogd", "/system.slice/rsyslog.service", 4},
    {"dbus-daemon", "/usr/bin/dbus-daemon", "/system.slice/dbus.service", 1},
    {"systemd-udevd", "/usr/lib/systemd/systemd-udevd", "/system.slice/systemd-udevd.service", 1},
    {"systemd-logind", "/usr/lib/systemd/systemd-logind", "/system.slice/systemd-logind.service", 1},
    {"systemd-network", "/usr/lib/systemd/systemd-networkd", "/system.slice/systemd-networkd.service", 1},
    {"systemd-resolve", "/usr/lib/systemd/systemd-resolved", "/system.slice/systemd-resolved.service", 1},
    {"sshd", "/usr/sbin/sshd", "/system.slice/ssh.service", 1},
    {"cron", "/usr/sbin/cron", "/system.slice/cron.service", 1},
    {"agetty", "/usr/sbin/agetty", "/system.slice/system-getty.slice/getty@tty1.service", 1},
    {"polkitd", "/usr/lib/polkit-1/polkitd", "/system.slice/polkit.service", 3},
    {"irqbalance", "/usr/sbin/irqbalance", "/system.slice/irqbalance.service", 2},
    {"auditd", "/usr/sbin/auditd", "/system.slice/auditd.service", 2},
    {"multipathd", "/usr/sbin/multipathd", "/system.slice/multipathd.service", 7},
    {"lldpd", "/usr/sbin/lldpd", "/system.slice/lldpd.service", 1},
    {"smartd", "/usr/sbin/smartd", "/system.slice/smartd.service", 1},
    {"snmpd", "/usr/sbin/snmpd", "/system.slice/snmpd.service", 1},
    {"fluent-bit", "/usr/bin/fluent-bit", "/system.slice/fluent-bit.service", 6},
    {"dockerd", "/usr/bin/dockerd", "/system.slice/docker.service", 20},
    {"systemd", "/usr/lib/systemd/systemd", "/user.slice/user-1000.slice/user@1000.service/init.scope", 1},
};
#define NDAEMONS (sizeof DAEMONS / sizeof DAEMONS[0])
#define NKTHREADS 200
#define NSHIMS NPODS
#define NGENERIC (NPROC - NKTHREADS - (int)NDAEMONS - NSHIMS - NCONTPROC)

/* Batch and user processes of the host. */
static const struct {
    const char *comm, *exe;
} GENERIC[] = {
    {"python3", "/usr/bin/python3.11"}, {"java", "/usr/lib/jvm/java-17/bin/java"},
    {"node", "/usr/bin/node"},          {"postgres", "/usr/lib/postgresql/15/bin/postgres"},
    {"nginx", "/usr/sbin/nginx"},       {"bash", "/usr/bin/bash"},
    {"rsync", "/usr/bin/rsync"},        {"prometheus", "/usr/bin/prometheus"},
    {"envoy", "/usr/local/bin/envoy"},  {"redis-server", "/usr/bin/redis-server"},
};

/* Container images of the pods: comm and exe of a container's processes. */
static const struct {
    const char *comm, *exe;
} IMAGES[] = {
    {"nginx", "/usr/sbin/nginx"},       {"java", "/opt/java/openjdk/bin/java"},
    {"python", "/usr/local/bin/python3.12"}, {"envoy", "/usr/local/bin/envoy"},
    {"redis-server", "/usr/local/bin/redis-server"}, {"node", "/usr/local/bin/node"},
};

/* Writes 64 lower-case hex digits (a container id) into out[65]. */
static void random_container_id(rng *r, char out[65])
{
    for (int i = 0; i < 4; i++)
        snprintf(out + 16 * i, 17, "%016" PRIx64, rng_next(r));
}

/* Writes an 8-4-4-4-12 pod uid with separator sep ('-', or '_' as in systemd
 * slice names) from the 128 bits hi:lo into out[37]. */
static void format_pod_uid(uint64_t hi, uint64_t lo, char sep, char out[37])
{
    snprintf(out, 37, "%08" PRIx64 "%c%04" PRIx64 "%c%04" PRIx64 "%c%04" PRIx64 "%c%012" PRIx64,
             hi >> 32, sep, (hi >> 16) & 0xffff, sep, hi & 0xffff, sep, lo >> 48, sep,
             lo & UINT64_C(0xffffffffffff));
}

/* Fills one identity; cgroup_path is parsed as a cgroup v2 file would be. */
static int set_identity(gen *g, int i, int32_t pid, int32_t ppid, int32_t pgid, uint64_t starttime,
                        const char *comm, const char *exe, const char *cgroup_path, int threads,
                        wc_error *err)
{
    wc_proc_identity *id = &g->ids[i];
    id->pid = pid;
    id->ppid = ppid;
    id->pgid = pgid;
    id->starttime = starttime;
    snprintf(id->comm, sizeof id->comm, "%s", comm);
    id->exe = exe; /* a string literal of the tables below */
    char text[600];
    int n = snprintf(text, sizeof text, "0::%s\n", cgroup_path);
    wc_cgroup_info ci;
    if (wc_cgroup_parse(text, (size_t)n, "synthetic cgroup", &ci, err) != 0)
        return -EINVAL;
    wc_cgroup_ids_of(&ci, &id->cgroup);
    memcpy(g->cgroup_paths[i], ci.path, sizeof ci.path);
    id->cgroup_path = g->cgroup_paths[i];
    id->store_id = -1; /* not in the store yet: put_processes inserts it (0 would mean "stored") */
    g->samples[i].id = id;
    g->samples[i].num_threads = threads;
    g->samples[i].is_new = 1;
    /* CPU already used since the process started (Kepler's first Δ sees it). */
    uint64_t age = (uint64_t)((MONO0_NS + BOOT_OFFSET_NS) / (WC_NS_PER_S / WC_USER_HZ)) - starttime;
    uint64_t used = rng_below(&g->r, age / 40 + 1);
    g->sp[i].sys_permille = 50 + (int)rng_below(&g->r, 250);
    g->samples[i].stime = used * (uint64_t)g->sp[i].sys_permille / 1000;
    g->samples[i].utime = used - g->samples[i].stime;
    return 0;
}

/* Builds the 500 processes: kernel threads, daemons, shims, generic host
 * processes, then the pods' container processes (pids and start times grow
 * in that order, as on a node that booted and then got its pods). */
/* Where the next process goes and the pid and start time it grows from. */
typedef struct proc_cursor {
    int i;                       /* next index in g->ids */
    int32_t pid;
    uint64_t st;
} proc_cursor;

/* Kernel threads: pids 2.., children of kthreadd (pid 2). */
static int make_kthreads(gen *g, proc_cursor *c, wc_error *err)
{
    static const char *const KT[6][2] = {{"cpuhp/", ""},    {"migration/", ""}, {"ksoftirqd/", ""},
                                         {"kworker/", ":0"}, {"kworker/", ":0H"}, {"kworker/", ":1"}};
    static const char *const KMISC[NKTHREADS - 6 * NCPUS] = {
        "kthreadd", "rcu_gp", "rcu_par_gp", "kswapd0", "khugepaged", "kcompactd0", "oom_reaper",
        "writeback"};
    char comm[64];
    int rc = 0;
    for (int k = 0; k < NKTHREADS && !rc; k++, c->i++) {
        if (k < (int)(sizeof KMISC / sizeof KMISC[0]))
            snprintf(comm, sizeof comm, "%s", KMISC[k]);
        else {
            int j = k - (int)(sizeof KMISC / sizeof KMISC[0]);
            snprintf(comm, sizeof comm, "%s%d%s", KT[j % 6][0], j / 6, KT[j % 6][1]);
        }
        rc = set_identity(g, c->i, 2 + k, k ? 2 : 0, 0, (uint64_t)(1 + k), comm, "", "/", 1, err);
    }
    return rc;
}

/* Daemons, systemd (pid 1) first; then the kworkers kworker/0:1 and
 * kworker/16:1, busy all the time too. */
static int make_daemons(gen *g, proc_cursor *c, wc_error *err)
{
    int rc = 0;
    for (size_t d = 0; d < NDAEMONS && !rc; d++, c->i++) {
        int32_t p = d == 0 ? 1 : (c->pid += 1 + (int32_t)rng_below(&g->r, 400));
        c->st += d == 0 ? 0 : 1 + rng_below(&g->r, 3000);
        rc = set_identity(g, c->i, p, d == 0 ? 0 : 1, p, d == 0 ? 1 : c->st, DAEMONS[d].comm,
                          DAEMONS[d].exe, DAEMONS[d].cgroup, DAEMONS[d].threads, err);
        g->sp[c->i].always = d < NALWAYS - 2;
    }
    for (int k = 0; k < NKTHREADS; k++)
        if (!strcmp(g->ids[k].comm, "kworker/0:1") || !strcmp(g->ids[k].comm, "kworker/16:1"))
            g->sp[k].always = 1;
    return rc;
}

/* Generic host processes, then one containerd shim per pod (in containerd's
 * cgroup). */
static int make_host_procs(gen *g, proc_cursor *c, wc_error *err)
{
    char cg[512];
    int rc = 0;
    for (int k = 0; k < NGENERIC && !rc; k++, c->i++) {
        c->pid += 1 + (int32_t)rng_below(&g->r, 2000);
        c->st += 1 + rng_below(&g->r, 80000);
        size_t gi = rng_below(&g->r, sizeof GENERIC / sizeof GENERIC[0]);
        if (k % 3 == 0)
            snprintf(cg, sizeof cg, "/user.slice/user-1000.slice/session-%d.scope", 3 + k % 7);
        else
            snprintf(cg, sizeof cg, "/system.slice/%s-%d.service", GENERIC[gi].comm, k);
        rc = set_identity(g, c->i, c->pid, 1, c->pid, c->st, GENERIC[gi].comm, GENERIC[gi].exe, cg,
                          1 + (int)rng_below(&g->r, 8), err);
    }
    for (int p = 0; p < NSHIMS && !rc; p++, c->i++) {
        c->pid += 1 + (int32_t)rng_below(&g->r, 2000);
        c->st += 1 + rng_below(&g->r, 20000);
        rc = set_identity(g, c->i, c->pid, 1, c->pid, c->st, "containerd-shim",
                          "/usr/bin/containerd-shim-runc-v2", "/system.slice/containerd.service",
                          12, err);
    }
    return rc;
}

/* One container of PROC_PER_CONT processes under shim_pid in pod uid (uid_:
 * its cgroup spelling) of QoS q ("" = guaranteed); the cgroup parser must
 * read back what was written. */
static int make_container(gen *g, proc_cursor *c, int32_t shim_pid, const char *q, const char *uid,
                          const char *uid_, wc_error *err)
{
    char cid[65], cg[512];
    random_container_id(&g->r, cid);
    if (*q)
        snprintf(cg, sizeof cg,
                 "/kubepods.slice/kubepods-%s.slice/kubepods-%s-pod%s.slice/"
                 "cri-containerd-%s.scope", q, q, uid_, cid);
    else /* guaranteed: no QoS slice */
        snprintf(cg, sizeof cg, "/kubepods.slice/kubepods-pod%s.slice/cri-containerd-%s.scope",
                 uid_, cid);
    size_t img = rng_below(&g->r, sizeof IMAGES / sizeof IMAGES[0]);
    int32_t leader = 0;
    int rc = 0;
    for (int k = 0; k < PROC_PER_CONT && !rc; k++, c->i++) {
        c->pid += 1 + (int32_t)rng_below(&g->r, 300);
        c->st += 1 + rng_below(&g->r, 500);
        if (k == 0)
            leader = c->pid;
        rc = set_identity(g, c->i, c->pid, k == 0 ? shim_pid : leader, leader, c->st,
                          IMAGES[img].comm, IMAGES[img].exe, cg, 4 + (int)rng_below(&g->r, 36), err);
        g->sp[c->i].container = 1;
        const wc_cgroup_ids *ci = &g->ids[c->i].cgroup;
        if (!rc && (strcmp(ci->container_id, cid) || strcmp(ci->pod_uid, uid) ||
                    strcmp(ci->runtime, "containerd") || strcmp(ci->qos, *q ? q : "guaranteed")))
            rc = wc_error_set(err, -EINVAL,
                              "cgroup parser read %s as container '%s' pod '%s' runtime "
                              "'%s' qos '%s'", cg, ci->container_id, ci->pod_uid,
                              ci->runtime, ci->qos);
    }
    return rc;
}

/* Per pod CONT_PER_POD containers in a kubepods slice of its QoS class. */
static int make_pods(gen *g, proc_cursor *c, int shim_index, wc_error *err)
{
    int rc = 0;
    for (int p = 0; p < NPODS && !rc; p++) {
        uint64_t hi = rng_next(&g->r), lo = rng_next(&g->r);
        hi = (hi & ~0xf000ull) | 0x4000ull;                     /* UUID v4 */
        lo = (lo & ~(3ull << 62)) | (2ull << 62);
        char uid[37], uid_[37];
        format_pod_uid(hi, lo, '-', uid);
        format_pod_uid(hi, lo, '_', uid_);
        static const char *const QOS[3] = {"", "burstable", "besteffort"};
        for (int k = 0; k < CONT_PER_POD && !rc; k++)
            rc = make_container(g, c, g->ids[shim_index + p].pid, QOS[p % 3], uid, uid_, err);
    }
    return rc;
}

static int make_processes(gen *g, wc_error *err)
{
    proc_cursor c = {.i = 0, .pid = 2 + NKTHREADS + 300, .st = 1500};
    int rc = make_kthreads(g, &c, err);
    if (!rc)
        rc = make_daemons(g, &c, err);
    int shim_index = c.i + NGENERIC;
    if (!rc)
        rc = make_host_procs(g, &c, err);
    if (!rc)
        rc = make_pods(g, &c, shim_index, err);
    if (!rc && c.i != NPROC)
        rc = wc_error_set(err, -EINVAL, "generator made %d processes, not %d", c.i, NPROC);
    g->snap.samples = g->scan;
    g->snap.count = g->snap.cap = NPROC;
    for (int i = 0; i < NPROC; i++) { /* insertion sort by pid, once */
        int j = i;
        for (; j > 0 && g->ids[g->order[j - 1]].pid > g->ids[i].pid; j--)
            g->order[j] = g->order[j - 1];
        g->order[j] = i;
    }
    return rc;
}

/* Picks k distinct indexes among cand[0..n) (partial Fisher–Yates) and gives
 * each a CPU rate: budget ticks/s split by exponential weights, capped at 95 %
 * of the process's threads. Returns the ticks/s actually handed out. */
static double assign_busy(gen *g, int *cand, int n, int k, double budget)
{
    double w[NPROC], sum = 0, given = 0;
    for (int j = 0; j < k && j < n; j++) {
        int r = j + (int)rng_below(&g->r, (uint64_t)(n - j));
        int t = cand[j];
        cand[j] = cand[r];
        cand[r] = t;
        w[j] = -log(1.0 - rng_unit(&g->r)) + 0.05;
        sum += w[j];
    }
    for (int j = 0; j < k && j < n; j++) {
        int p = cand[j];
        double cap = 95.0 * (double)g->samples[p].num_threads;
        double rate = fmax(1.0, budget * w[j] / sum);
        g->sp[p].rate = fmin(rate, cap);
        given += g->sp[p].rate;
    }
    return given;
}

/* Starts a load step at hour-of-day h: a target of busy CPUs on a daily curve
 * (quiet at 03:00, busiest at 15:00) with noise; the always-busy daemons take
 * a few ticks each, NSTEP_HOST host and NSTEP_CONT container processes share
 * the rest. Every other process goes idle. */
static void load_step(gen *g, double h)
{
    double target = 3.0 + 13.0 * (0.5 - 0.5 * cos(6.283185307179586 * (h - 3.0) / 24.0)) +
                    2.0 * rng_gauss(&g->r);
    target = fmin(22.0, fmax(0.5, target));
    int host[NPROC], cont[NPROC], nh = 0, nc = 0;
    double budget = target * WC_USER_HZ;
    for (int i = 0; i < NPROC; i++) {
        g->sp[i].rate = 0;
        if (g->sp[i].always) {
            g->sp[i].rate = 1.0 + (double)rng_below(&g->r, 6);
            budget -= g->sp[i].rate;
        } else if (g->sp[i].container)
            cont[nc++] = i;
        else if (i >= NKTHREADS)
            host[nh++] = i;
    }
    budget = fmax(budget, 2.0 * (NSTEP_HOST + NSTEP_CONT));
    /* pods get about two thirds of the work */
    double given = assign_busy(g, cont, nc, NSTEP_CONT, budget * 2.0 / 3.0);
    assign_busy(g, host, nh, NSTEP_HOST, budget - given);
    g->steps++;
}

/* Advances every process and the cpu line by one 1 s interval; returns the
 * interval's busy CPU ticks (what the power model follows). */
static uint64_t advance_cpu(gen *g)
{
    uint64_t du = 0, ds = 0;
    int64_t nonzero = 0;
    for (int i = 0; i < NPROC; i++) {
        wc_proc_sample *s = &g->samples[i];
        s->is_new = 0;
        uint64_t d = 0;
        if (g->sp[i].rate > 0) {
            double x = g->sp[i].rate * (1.0 + 0.08 * rng_gauss(&g->r));
            d = x < 1.0 ? 1 : (uint64_t)llround(x);
        } else if (rng_below(&g->r, 100) == 0) {
            d = 1; /* an idle process waking up briefly */
        }
        if (!d)
            continue;
        nonzero++;
        uint64_t sys = (d * (uint64_t)g->sp[i].sys_permille + rng_below(&g->r, 1000)) / 1000;
        if (sys > d)
            sys = d;
        s->stime += sys;
        s->utime += d - sys;
        ds += sys;
        du += d - sys;
    }
    /* kernel time no process is charged with, and some iowait */
    uint64_t ksys = 2 + rng_below(&g->r, 5), soft = 1 + rng_below(&g->r, 3),
             irq = rng_below(&g->r, 2), iow = rng_below(&g->r, 4);
    uint64_t total = (uint64_t)NCPUS * WC_USER_HZ, busy = du + ds + ksys + soft + irq;
    uint64_t idle = busy + iow < total ? total - busy - iow : 0;
    g->cpu.user += du;
    g->cpu.system += ds + ksys;
    g->cpu.softirq += soft;
    g->cpu.irq += irq;
    g->cpu.iowait += iow;
    g->cpu.idle += idle;
    g->nonzero_sum += nonzero;
    g->busy_ticks_sum += (int64_t)busy;
    return busy;
}

/* Adds joules to zone z's unwrapped counter, counting wraps of its range. */
static void add_energy(gen *g, int z, double joules)
{
    double uj = joules * 1e6 + g->frac_uj[z];
    uint64_t whole = (uint64_t)uj;
    g->frac_uj[z] = uj - (double)whole;
    uint64_t range = ZONES[z].max_energy_range_uj;
    if ((g->total_uj[z] % range) + whole >= range)
        g->wraps[z]++;
    g->total_uj[z] += whole;
}

/* The power model over one interval of dt_s seconds with busy CPU ticks:
 * per package 32 W + 5.5 W per busy CPU of its socket, per dram 4 W + 0.45 W,
 * psys = packages + drams + 22 W, each with Gaussian noise. */
static void advance_energy(gen *g, uint64_t busy, double dt_s)
{
    double cpus = (double)busy / WC_USER_HZ / dt_s;
    double share0 = 0.5 + 0.03 * rng_gauss(&g->r);
    double w[NZONES];
    w[Z_PKG0] = 32.0 + 5.5 * cpus * share0 + 0.5 * rng_gauss(&g->r);
    w[Z_PKG1] = 32.0 + 5.5 * cpus * (1.0 - share0) + 0.5 * rng_gauss(&g->r);
    w[Z_DRAM0] = 4.0 + 0.45 * cpus * share0 + 0.2 * rng_gauss(&g->r);
    w[Z_DRAM1] = 4.0 + 0.45 * cpus * (1.0 - share0) + 0.2 * rng_gauss(&g->r);
    double pd = w[Z_PKG0] + w[Z_PKG1] + w[Z_DRAM0] + w[Z_DRAM1];
    w[Z_PSYS] = pd + 22.0 + 0.5 * rng_gauss(&g->r);
    for (int z = 0; z < NZONES; z++)
        add_energy(g, z, w[z] * dt_s);
    g->pd_j += pd * dt_s;
    g->node_w_sum += pd;
    g->node_w_min = fmin(g->node_w_min, pd);
    g->node_w_max = fmax(g->node_w_max, pd);
}

/* Remembers the package+dram energy at a tick for the simulated BMC. */
static void push_history(gen *g, int64_t mono_ns)
{
    g->hist_mono[g->nhist % HIST] = mono_ns;
    g->hist_j[g->nhist % HIST] = g->pd_j;
    g->nhist++;
}

/* Package+dram joules at time t, interpolated between ticks, into *joules;
 * returns 1, or 0 when t is outside the history kept. */
static int energy_at(const gen *g, int64_t t, double *joules)
{
    int64_t first = g->nhist > HIST ? g->nhist - HIST : 0;
    for (int64_t k = g->nhist - 1; k > first; k--) {
        int64_t a = g->hist_mono[(k - 1) % HIST], b = g->hist_mono[k % HIST];
        if (t >= a && t <= b) {
            double f = (double)(t - a) / (double)(b - a);
            *joules = g->hist_j[(k - 1) % HIST] + f * (g->hist_j[k % HIST] - g->hist_j[(k - 1) % HIST]);
            return 1;
        }
    }
    return 0;
}

/* The simulated BMC's poll shortly after tick mono_ns: wall power over
 * [t − lag − window, t − lag], or unavailable while it lacks that history
 * (as collector/truth/truth_sim.c), never 0 W. */
static void truth_poll(gen *g, int64_t mono_ns, wc_truth_sample *t)
{
    memset(t, 0, sizeof *t);
    t->poll_mono_ns = mono_ns + 300000000 + (int64_t)rng_below(&g->r, 40000000);
    t->poll_wall_ns = WALL0_NS + (t->poll_mono_ns - MONO0_NS);
    t->min_watts = t->max_watts = NAN;
    t->stats_window_s = 0;
    int64_t t1 = t->poll_mono_ns - (int64_t)(TRUTH_LAG_S * 1e9);
    int64_t t0 = t1 - (int64_t)(TRUTH_WINDOW_S * 1e9);
    double e0, e1;
    if (!energy_at(g, t0, &e0) || !energy_at(g, t1, &e1)) {
        t->status = WC_TRUTH_UNAVAILABLE;
        t->watts = t->avg_watts = t->window_s = NAN;
        snprintf(t->error, sizeof t->error, "simulated BMC warming up: needs %.1f s of history",
                 TRUTH_LAG_S + TRUTH_WINDOW_S);
        g->truth_unavail++;
        return;
    }
    double node_w = (e1 - e0) / ((double)(t1 - t0) / 1e9);
    t->watts = t->avg_watts = (node_w + TRUTH_BASE_W) / TRUTH_EFF + TRUTH_NOISE_W * rng_gauss(&g->r);
    t->window_s = TRUTH_WINDOW_S;
    t->window_known = 1;
    t->device_ts_ns = t->poll_wall_ns; /* published at this poll (period 1 s) */
    snprintf(t->path, sizeof t->path, "sim:wall(package+dram+base)/eff");
    t->status = WC_TRUTH_OK;
    g->truth_ok++;
}

/* Writes the run row, the zones and the truth source; *first_zone and
 * *source get their ids. */
static int write_header(wc_store *st, int64_t *first_zone, int64_t *source, wc_error *err)
{
    wc_run_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.host, sizeof info.host, "bench-synthetic-node");
    snprintf(info.kernel, sizeof info.kernel, "Linux (synthetic) x86_64");
    snprintf(info.cpu_model, sizeof info.cpu_model, "synthetic 2-socket node, %d CPUs", NCPUS);
    info.sockets = NSOCKETS;
    info.ncpus = NCPUS;
    info.interval_ns = INTERVAL_NS;
    info.started_wall_ns = WALL0_NS;
    info.started_mono_ns = MONO0_NS;
    snprintf(info.model, sizeof info.model, "%s", wc_model_name(WC_MODEL_KEPLER_011));
    snprintf(info.meter_kind, sizeof info.meter_kind, "sim");
    info.provenance = WC_PROV_SIMULATED;
    snprintf(info.meter_description, sizeof info.meter_description,
             "SIMULATED synthetic node of bench_validate (not a recording): 2 packages with dram "
             "subzones and a psys, real-RAPL max ranges, seed %u", SEED);
    snprintf(info.sim_params_json, sizeof info.sim_params_json,
             "{\"generator\":\"bench/bench_validate.c\",\"package_idle_watts\":32,"
             "\"package_watts_per_cpu\":5.5,\"dram_idle_watts\":4,\"dram_watts_per_cpu\":0.45,"
             "\"psys_base_watts\":22,\"noise_sd_watts\":0.5,\"seed\":%u}", SEED);
    snprintf(info.procfs_root, sizeof info.procfs_root, "(synthetic)");
    snprintf(info.sysfs_root, sizeof info.sysfs_root, "(synthetic)");
    snprintf(info.command_line, sizeof info.command_line,
             "bench_validate: SYNTHETIC benchmark run (%d h at 1 Hz, %d processes, seed %u), "
             "generated through the store API, not recorded", BENCH_HOURS, NPROC, SEED);
    wc_meter m = {.ops = &SYNTH_OPS, .provenance = WC_PROV_SIMULATED,
                  .zones = (wc_zone *)ZONES, .nzones = NZONES};
    int rc = wc_store_put_run(st, &info, err);
    if (!rc)
        rc = wc_store_put_zones(st, &m, first_zone, err);
    if (!rc) {
        char desc[256];
        snprintf(desc, sizeof desc,
                 "SIMULATED BMC (bench_validate): wall = (package+dram + %.1f W)/%.2f, window %.1f s, "
                 "lag %.1f s, update every 1.0 s, noise sd %.2f W, seed %u",
                 TRUTH_BASE_W, TRUTH_EFF, TRUTH_WINDOW_S, TRUTH_LAG_S, TRUTH_NOISE_W, SEED);
        rc = wc_store_put_truth_source(st, "sim:lag=2,window=10,period=1,eff=0.9,base=40,quant=0,"
                                           "noise=0.5", "sim", WC_PROV_SIMULATED, desc, source, err);
    }
    return rc;
}

/* The node's counters at the start: an uptime's worth of CPU ticks, random
 * energy counters. */
static void init_counters(gen *g)
{
    g->cpu.cpu = -1;
    g->cpu.nfields = 10;
    g->cpu.idle = 27000000ull * NCPUS; /* uptime's worth of cumulative ticks */
    g->cpu.user = 1300000ull * NCPUS;
    g->cpu.system = 250000ull * NCPUS;
    for (int z = 0; z < NZONES; z++)
        g->total_uj[z] = rng_below(&g->r, ZONES[z].max_energy_range_uj);
    g->node_w_min = INFINITY;
    g->node_w_max = -INFINITY;
}

/* Writes tick k read at mono: its row, zone samples, process samples and the
 * truth sample, opening a transaction every TICKS_PER_TXN ticks and
 * committing at its end (*in_txn tells whether one is open). */
static int write_tick(wc_store *st, gen *g, int64_t k, int64_t mono, int64_t first_zone,
                      int64_t source, int *in_txn, wc_error *err)
{
    wc_reading rd[NZONES];
    for (int z = 0; z < NZONES; z++)
        rd[z] = (wc_reading){.mono_ns = mono, .value = g->total_uj[z] % ZONES[z].max_energy_range_uj};
    wc_truth_sample ts;
    truth_poll(g, mono, &ts);
    int64_t tick_id = 0;
    int rc = 0;
    if (k % TICKS_PER_TXN == 0) {
        rc = wc_store_begin(st, err);
        *in_txn = !rc;
    }
    if (!rc)
        rc = wc_store_put_tick(st, k, mono, mono + BOOT_OFFSET_NS, WALL0_NS + (mono - MONO0_NS),
                               &g->cpu, 1, NPROC, 2500000 + (int64_t)rng_below(&g->r, 800000),
                               &tick_id, err);
    if (!rc)
        rc = wc_store_put_zone_samples(st, tick_id, first_zone, rd, NZONES, err);
    for (int i = 0; i < NPROC; i++)
        g->scan[i] = g->samples[g->order[i]];
    if (!rc)
        rc = wc_store_put_processes(st, tick_id, &g->snap, err);
    if (!rc)
        rc = wc_store_put_truth_sample(st, source, &ts, err);
    if (!rc && (k % TICKS_PER_TXN == TICKS_PER_TXN - 1 || k == NTICKS - 1)) {
        *in_txn = 0;
        rc = wc_store_commit(st, err);
    }
    return rc;
}

/* The hourly phases (hour_mono: BENCH_HOURS + 1 bounds), in one transaction. */
static int write_hours(wc_store *st, const int64_t *hour_mono, int *in_txn, wc_error *err)
{
    int rc = wc_store_begin(st, err);
    *in_txn = !rc;
    for (int h = 0; h < BENCH_HOURS && !rc; h++) {
        char name[32];
        snprintf(name, sizeof name, "hour-%02d", h);
        rc = wc_store_put_phase(st, name, "mixed", hour_mono[h], hour_mono[h + 1],
                                WALL0_NS + (hour_mono[h] - MONO0_NS),
                                WALL0_NS + (hour_mono[h + 1] - MONO0_NS), 1, err);
    }
    if (!rc) {
        *in_txn = 0;
        rc = wc_store_commit(st, err);
    }
    return rc;
}

/* Writes every tick (TICKS_PER_TXN per transaction) and the hourly phases.
 * Returns 0 or the store's error; an open transaction is rolled back. */
static int generate(wc_store *st, gen *g, wc_error *err)
{
    int64_t first_zone = 0, source = 0;
    int rc = make_processes(g, err);
    if (!rc)
        rc = write_header(st, &first_zone, &source, err);
    if (rc)
        return rc;
    init_counters(g);
    int64_t hour_mono[BENCH_HOURS + 1], prev_mono = 0, next_step = 0;
    int in_txn = 0;
    for (int64_t k = 0; k < NTICKS && !rc; k++) {
        int64_t mono = MONO0_NS + k * INTERVAL_NS + (int64_t)rng_below(&g->r, 3000000);
        if (k == next_step) {
            load_step(g, (double)k / 3600.0);
            next_step = k + 120 + (int64_t)rng_below(&g->r, 361);
        }
        if (k > 0) {
            uint64_t busy = advance_cpu(g);
            advance_energy(g, busy, (double)(mono - prev_mono) / 1e9);
        }
        push_history(g, mono);
        if (k % 3600 == 0)
            hour_mono[k / 3600] = mono;
        rc = write_tick(st, g, k, mono, first_zone, source, &in_txn, err);
        prev_mono = mono;
    }
    hour_mono[BENCH_HOURS] = g->last_mono = prev_mono;
    if (!rc)
        rc = write_hours(st, hour_mono, &in_txn, err);
    if (rc && in_txn)
        wc_store_rollback(st);
    return rc;
}

/* ---- report helpers ------------------------------------------------------- */

/* COUNT(*) of a table, -1 on error. */
static int64_t count_rows(wc_store *st, wc_store_table table)
{
    int64_t n = -1;
    return wc_store_count_rows(st, table, &n, NULL) ? -1 : n;
}

/* Size of a file, 0 when absent. */
static int64_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (int64_t)sb.st_size : 0;
}

/* Removes the DB with its side files and the directory. */
static void remove_tree(const char *dir, const char *db)
{
    static const char *const SIDE[] = {"", "-wal", "-shm", "-journal"};
    char p[1100];
    for (size_t i = 0; i < sizeof SIDE / sizeof SIDE[0]; i++) {
        snprintf(p, sizeof p, "%s%s", db, SIDE[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/report", dir); /* bench_report's output: plain files */
    DIR *d = opendir(p);
    for (struct dirent *e; d && (e = readdir(d));) {
        char f[1400];
        snprintf(f, sizeof f, "%s/%s", p, e->d_name);
        if (e->d_name[0] != '.')
            unlink(f);
    }
    if (d)
        closedir(d);
    rmdir(p);
    rmdir(dir);
}

/* qsort order of int64_t values. */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ---- the timer -------------------------------------------------------------- */

/* posix_spawn's child shares this process's memory until it execs, and Linux
 * folds the peak RSS of that memory into the child's ru_maxrss at exec (so the
 * generator's peak would show up as validate's). Resets this process's peak to
 * its current RSS (clear_refs "5", Linux >= 4.0). Returns 0 or -errno. */
static int reset_peak_rss(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = write(fd, "5", 1) == 1 ? 0 : -errno;
    close(fd);
    return rc;
}

/* This process's current RSS in KiB (VmRSS), 0 when unknown. */
static long self_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

/* Runs argv once with stdout on /dev/null (stderr kept, so errors show);
 * *wall_ns, *maxrss_kib, *cpu_s (user + system) and *status get the child's
 * figures. Returns 0, or -errno when it could not be started. */
static int time_once(char *const argv[], int64_t *wall_ns, long *maxrss_kib, double *cpu_s,
                     int *status)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -ENOMEM;
    int rc = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    int64_t t0 = wc_mono_ns();
    if (rc == 0)
        rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -rc;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    pid_t w;
    while ((w = wait4(pid, status, 0, &ru)) < 0 && errno == EINTR)
        ;
    *wall_ns = wc_mono_ns() - t0;
    if (w < 0)
        return -errno;
    *maxrss_kib = ru.ru_maxrss; /* KiB on Linux */
    *cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
             ru.ru_stime.tv_usec / 1e6;
    return 0;
}

/* Builds the validate argv (binary, "validate", "--db", db, then the words of
 * WATTCAL_BENCH_VALIDATE_ARGS), times VALIDATE_RUNS runs and prints the
 * median and the peak RSS. Returns 0 when every run exited 0 or 1. */
/* The validate command line: bin validate --db db, then the words of
 * WATTCAL_BENCH_VALIDATE_ARGS (split in *words, which the caller frees with
 * the array). Returns NULL when out of memory. */
static char **validate_argv(const char *bin, const char *db, char **words, size_t *n)
{
    const char *extra = getenv("WATTCAL_BENCH_VALIDATE_ARGS");
    *words = strdup(extra ? extra : "");
    size_t cap = 5 + (extra ? strlen(extra) / 2 + 1 : 0);
    char **argv = calloc(cap, sizeof *argv);
    if (!*words || !argv) {
        free(*words);
        free(argv);
        *words = NULL;
        return NULL;
    }
    *n = 0;
    argv[(*n)++] = (char *)bin;
    argv[(*n)++] = "validate";
    argv[(*n)++] = "--db";
    argv[(*n)++] = (char *)db;
    char *save = NULL;
    for (char *w = strtok_r(*words, " ", &save); w; w = strtok_r(NULL, " ", &save))
        argv[(*n)++] = w;
    argv[*n] = NULL;
    return argv;
}

/* What the timed runs gave. */
typedef struct timed {
    int64_t t[VALIDATE_RUNS];
    long peak, floor_kib;
    int runs, reset;
} timed;

/* One timed run of argv into tm (run number tm->runs). Returns 0, or -1
 * when validate could not run or failed (exit >= 2: no timing). */
static int time_run(char *const argv[], const char *bin, timed *tm)
{
    int status = 0, code = 0;
    long rss = 0;
    double cpu = 0;
    tm->reset = reset_peak_rss();
    long self = self_rss_kib();
    tm->floor_kib = self > tm->floor_kib ? self : tm->floor_kib;
    int e = time_once(argv, &tm->t[tm->runs], &rss, &cpu, &status);
    if (e) {
        fprintf(stderr, "bench_validate: cannot run %s: %s (build it with `make wattcal`; "
                        "WATTCAL_BIN names another binary)\n", bin, strerror(-e));
        return -1;
    }
    tm->peak = rss > tm->peak ? rss : tm->peak;
    printf("    run %d: %.3f s (CPU %.3f s), max RSS %.1f MiB, ", tm->runs + 1,
           tm->t[tm->runs] / 1e9, cpu, rss / 1024.0);
    if (WIFEXITED(status)) {
        code = WEXITSTATUS(status);
        printf("exit %d%s\n", code, code == 1 ? " (a tolerance broken: fine here)" : "");
    } else {
        printf("killed by signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        code = 128;
    }
    fflush(stdout);
    tm->runs++;
    if (code >= 2) {
        fprintf(stderr, "bench_validate: validate failed (exit %d): no timing reported\n", code);
        return -1;
    }
    return 0;
}

/* The median, range and peak RSS of the runs. */
static void print_timing(timed *tm)
{
    qsort(tm->t, (size_t)tm->runs, sizeof tm->t[0], cmp_i64);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    printf("  validate: median %.3f s (min %.3f, max %.3f) of %d runs, max RSS %.1f MiB"
           "   [target <= 4 s and <= 256 MiB on a 2-core machine (issue 15); this one has %ld CPUs]\n",
           tm->t[tm->runs / 2] / 1e9, tm->t[0] / 1e9, tm->t[tm->runs - 1] / 1e9, tm->runs,
           tm->peak / 1024.0, ncpu);
    if (tm->reset)
        printf("  (could not reset this process's peak RSS: %s; the max RSS may be this "
               "benchmark's own peak)\n", strerror(-tm->reset));
    else
        printf("  (max RSS: ru_maxrss of the child; a figure at or below %.1f MiB, this "
               "benchmark's RSS at spawn, may be that)\n", tm->floor_kib / 1024.0);
}

static int bench_validate(const char *db)
{
    const char *bin = getenv("WATTCAL_BIN");
    if (!bin || !*bin)
        bin = "./wattcal";
    char *words = NULL;
    size_t n = 0;
    char **argv = validate_argv(bin, db, &words, &n);
    if (!argv) {
        fprintf(stderr, "bench_validate: out of memory\n");
        return -1;
    }
    printf("  validate: %s validate --db FILE", bin);
    for (size_t i = 4; i < n; i++)
        printf(" %s", argv[i]);
    printf("   (stdout to /dev/null, %d runs)\n", VALIDATE_RUNS);
    fflush(stdout);
    timed tm = {.runs = 0};
    int rc = 0;
    while (!rc && tm.runs < VALIDATE_RUNS)
        rc = time_run(argv, bin, &tm);
    if (!rc)
        print_timing(&tm);
    free(words);
    free(argv);
    return rc;
}

/* `wattcal report --db db --out dir/report` REPORT_RUNS times: median wall
 * time, CPU and peak RSS (target ≤ 6 s, ≤ 256 MiB). Returns 0 or -1. */
static int bench_report(const char *db, const char *dir)
{
    const char *bin = getenv("WATTCAL_BIN");
    char out[1100];
    snprintf(out, sizeof out, "%s/report", dir);
    char *argv[] = {(char *)(bin && *bin ? bin : "./wattcal"), "report", "--db", (char *)db,
                    "--out", out, NULL};
    int64_t t[REPORT_RUNS];
    double cpu[REPORT_RUNS];
    long peak = 0;
    for (int r = 0; r < REPORT_RUNS; r++) {
        long rss = 0;
        int status = 0;
        if (time_once(argv, &t[r], &rss, &cpu[r], &status) || !WIFEXITED(status) ||
            WEXITSTATUS(status) >= 2) {
            fprintf(stderr, "bench_validate: report failed: no timing reported\n");
            return -1;
        }
        peak = rss > peak ? rss : peak;
        printf("    report run %d: %.3f s (CPU %.3f s), max RSS %.1f MiB\n", r + 1, t[r] / 1e9,
               cpu[r], rss / 1024.0);
    }
    qsort(t, REPORT_RUNS, sizeof t[0], cmp_i64);
    printf("  report: median %.3f s (min %.3f, max %.3f) of %d runs, max RSS %.1f MiB"
           "   [target <= 6 s and <= 256 MiB (issue 15)]\n", t[REPORT_RUNS / 2] / 1e9, t[0] / 1e9,
           t[REPORT_RUNS - 1] / 1e9, REPORT_RUNS, peak / 1024.0);
    return 0;
}

/* ---- main ------------------------------------------------------------------- */

/* Generates and attributes the run, reports it, times validate, cleans up. */
/* What generate made, printed. */
static void print_generated(const gen *g, int64_t t0, int64_t t1)
{
    printf("  generate: %" PRId64 " ticks in %.1f s (%d ticks per transaction); %.1f processes "
           "with CPU per tick, %.1f busy CPUs of %d on average, %" PRId64 " load steps;\n"
           "            package+dram %.0f..%.0f W (mean %.0f W, simulated); counter wraps:",
           NTICKS, (t1 - t0) / 1e9, TICKS_PER_TXN, (double)g->nonzero_sum / (double)(NTICKS - 1),
           (double)g->busy_ticks_sum / (double)(NTICKS - 1) / WC_USER_HZ, NCPUS, g->steps,
           g->node_w_min, g->node_w_max, g->node_w_sum / (double)(NTICKS - 1));
    static const char *const LABEL[NZONES] = {"package-0", "dram-0", "package-1", "dram-1",
                                              "psys"};
    for (int z = 0; z < NZONES; z++)
        printf(" %s %" PRId64, LABEL[z], g->wraps[z]);
    printf("; truth %" PRId64 " ok, %" PRId64 " unavailable (BMC warm-up)\n", g->truth_ok,
           g->truth_unavail);
    fflush(stdout);
}

/* The row count of each table, printed. */
static void print_rows(wc_store *st)
{
    printf("  rows: tick %" PRId64 ", zone_sample %" PRId64 ", process %" PRId64
           ", proc_sample %" PRId64 ", truth_sample %" PRId64 ", node_attr %" PRId64
           ", work_attr %" PRId64 "\n",
           count_rows(st, WC_TABLE_TICK), count_rows(st, WC_TABLE_ZONE_SAMPLE),
           count_rows(st, WC_TABLE_PROCESS), count_rows(st, WC_TABLE_PROC_SAMPLE),
           count_rows(st, WC_TABLE_TRUTH_SAMPLE), count_rows(st, WC_TABLE_NODE_ATTR),
           count_rows(st, WC_TABLE_WORK_ATTR));
}

/* Generates the synthetic run into db, replays it under kepler-0.11 and
 * finishes it, printing each step's time. Returns 0 or nonzero with err. */
static int build_run(const char *db, wc_error *err)
{
    gen *g = calloc(1, sizeof *g);
    wc_store *st = g ? wc_store_open(db, WC_STORE_CREATE, err) : NULL;
    int rc = st ? 0 : -1;
    if (!g)
        snprintf(err->msg, sizeof err->msg, "out of memory");
    int64_t t0 = wc_mono_ns(), t1 = t0, t2 = t0, t3 = t0, t4 = t0, ticks = 0;
    if (!rc) {
        g->r.s = SEED * 0x9E3779B97F4A7C15ull | 1;
        rc = generate(st, g, err);
        t1 = wc_mono_ns();
    }
    if (!rc) {
        print_generated(g, t0, t1);
        rc = wc_store_replay(st, WC_MODEL_KEPLER_011, &ticks, err);
        t2 = wc_mono_ns();
    }
    if (!rc) {
        printf("  replay (%s): %" PRId64 " ticks in %.1f s\n", wc_model_name(WC_MODEL_KEPLER_011),
               ticks, (t2 - t1) / 1e9);
        fflush(stdout);
        rc = wc_store_finish_run(st, WALL0_NS + (g->last_mono - MONO0_NS), g->last_mono, NTICKS,
                                 1, err);
        t3 = wc_mono_ns();
        if (!rc) /* as `wattcal record` ends its run (recorder.c finish_run) */
            rc = wc_store_compact(st, NULL, 0, err);
        t4 = wc_mono_ns();
    }
    if (!rc) {
        printf("  finish (indexes, rollback journal): %.1f s; compact (VACUUM, as record does):"
               " %.1f s; generation + replay + finish %.1f s\n",
               (t3 - t2) / 1e9, (t4 - t3) / 1e9, (t4 - t0) / 1e9);
        print_rows(st);
    }
    wc_store_close(st);
    free(g); /* before validate runs: see reset_peak_rss */
    return rc;
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[1024], db[1100];
    snprintf(dir, sizeof dir, "%s/wattcal-bench-validate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "bench_validate: mkdtemp %s: %s\n", dir, strerror(errno));
        return 1;
    }
    snprintf(db, sizeof db, "%s/synthetic-%dh.db", dir, BENCH_HOURS);
    const char *keep_env = getenv("WATTCAL_BENCH_KEEP");
    int keep = keep_env && !strcmp(keep_env, "1");
    printf("wattcal bench: validate on a SYNTHETIC %d h run (1 Hz, %d processes, %d in %d "
           "containers of %d pods; simulated node and BMC, seed %u)\n",
           BENCH_HOURS, NPROC, NCONTPROC, NPODS * CONT_PER_POD, NPODS, SEED);
    fflush(stdout);

    wc_error err = {{0}};
    int rc = build_run(db, &err);
    malloc_trim(0);
    if (rc)
        fprintf(stderr, "bench_validate: generating the run failed: %s\n", err.msg);
    else {
        int64_t size = file_size(db);
        char side[1110];
        snprintf(side, sizeof side, "%s-wal", db);
        size += file_size(side);
        printf("  DB: %.2f GiB (%" PRId64 " bytes)\n", size / 1073741824.0, size);
        fflush(stdout);
        rc = bench_validate(db);
        if (!rc)
            rc = bench_report(db, dir);
    }
    if (keep)
        printf("  kept (WATTCAL_BENCH_KEEP=1): %s\n", db);
    else
        remove_tree(dir, db);
    return rc ? 1 : 0;
}
