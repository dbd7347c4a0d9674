/*
 * attribution.h — the reference attribution model: node energy → processes,
 * containers and pods, exactly as the exporter computes it, plus our corrected
 * model.
 *
 * Attribution is a pure function of the recorded raw samples (cumulative
 * /proc/stat cpu fields, raw per-socket zone counters, per-process cumulative
 * CPU ticks): feed the same tick sequence and the same model, get the same
 * numbers, so any recorded run can be re-attributed offline under another
 * model (cmd_attribute, version comparison).
 *
 * Models (docs/kepler-model.md §1.2, §3, §4, §5; internal/monitor/{node,process,
 * container,pod}.go in Kepler):
 *   kepler-0.11  released ordering (v0.10.0–v0.11.4): the node's active/idle
 *                split of interval k uses the usage ratio of interval k−1
 *                (tick 2 therefore uses 0: every workload skipped and reset).
 *                From v0.11.4: a zone reading 0 with range 0 is a power
 *                gauge (node.go isEnergySensor): RAPL then fails the refresh,
 *                an hwmon gauge is integrated as P x interval.
 *   kepler-0.10  v0.10.0–v0.11.3: the same without that zone-type test: a
 *                zone reading 0 with range 0 is a counter at 0, and power
 *                gauges are no meter (their zones fail every refresh).
 *   kepler-main  main after commit 81477124 (followed up to 13944a69; was
 *                kepler-head): ratio and deltas over the same interval.
 *   ideal        wattcal's corrected model: (pid, starttime) identity, no
 *                lifetime first Δ, ratio and deltas over the same interval,
 *                counters differenced per socket with wattcal's sane wrap rule
 *                (collector/meter/counter.h, at the run's ceiling: an interval
 *                long enough to hide a whole wrap is unmeasurable), shares
 *                over max(ΣΔ, node busy CPU) so
 *                CPU the sampler missed stays visible as unattributed instead
 *                of going to survivors, workload totals never reset,
 *                containers and pods the sums of their processes (so Σ
 *                children ≤ parent holds exactly). A socket whose read failed
 *                transiently keeps its last good reading as baseline: its next
 *                reading is differenced across the whole gap (the counter
 *                ceiling over that longer interval, P over it too), so no
 *                energy is lost, and that tick splits and shares it with its
 *                own interval's ratio and CPU deltas (the failed ticks
 *                themselves attribute nothing). A socket that vanished
 *                (ENOENT, cases/B25) loses its baseline instead. A decreasing
 *                iowait (proc(5): it can) counts as Δ 0; any other /proc/stat
 *                field going backwards makes the interval unmeasurable.
 * Both Kepler models reproduce its quirks (§8 items 9–13, 17): any counter
 * decrease is one wrap; PID reuse gives a negative share whose uint64
 * truncation is ≈2^64 µJ; first Δ = lifetime CPU; processes gone before the
 * scan leave their share to survivors; a skipped zone resets totals to 0; a
 * failed refresh is discarded and the next one's energy spans both intervals;
 * a /proc/stat counter going backwards puts the unclamped usage ratio outside
 * [0,1], so activeE can exceed ΔE and idleE underflow to ≈2^64 µJ
 * (WC_AF_RATIO_RANGE; kepler-model.md §3.1).
 *
 * Units: energies µJ (uint64), powers µW (double), CPU seconds (double,
 * USER_HZ = 100 as Kepler), clocks ns.
 */
#ifndef WC_ATTRIBUTION_H
#define WC_ATTRIBUTION_H

#include <stddef.h>
#include <stdint.h>

#include "collector/procfs/cmdline.h"
#include "collector/procfs/procstat.h"
#include "common/wc_error.h"

/* The models, named by the Kepler releases they match (docs/kepler-model.md
 * §5, §6 says what differs). Values are not stored (runs store the name);
 * kepler-0.10 came last, so it is appended. */
typedef enum wc_model {
    WC_MODEL_KEPLER_011 = 0,
    WC_MODEL_KEPLER_MAIN,
    WC_MODEL_IDEAL,
    WC_MODEL_KEPLER_010,
    WC_MODEL_KEPLER_HEAD = WC_MODEL_KEPLER_MAIN /* its old name */
} wc_model;

/* "kepler-0.10", "kepler-0.11", "kepler-main", "ideal" ("unknown" outside the
 * table). The names, descriptions and steps come from one table
 * (attr_models.c). */
const char *wc_model_name(wc_model m);
/* The name model m was stored under by older wattcal versions ("kepler-head"
 * for kepler-main), or NULL when it never had another. Readers of old runs
 * look rows up under it too; wc_model_parse accepts it. */
const char *wc_model_old_name(wc_model m);
/* One line for humans saying what model m does (for --help listings). */
const char *wc_model_description(wc_model m);
/* The exporter release a model reproduces, for reports ("Kepler v0.10.0 –
 * v0.11.4 (released ordering; ...)"); "unknown model" outside the table. */
const char *wc_model_exporter(wc_model m);
/* Number of models; they are the wc_model values 0 .. wc_model_count() − 1. */
size_t wc_model_count(void);
/* Parses a model name, or an old name (wc_model_old_name); returns 0 or
 * -EINVAL. */
int wc_model_parse(const char *name, wc_model *out);

/* Longest zone name, NUL included. */
#define WC_ATTR_ZONE_NAME_MAX 64

/* One raw zone reading of one tick (per socket, as the meter discovered it).
 * The zone list must have the same length, names and order on every tick.
 * Zones sharing a name (package on socket 0 and 1) form one node output, as
 * Kepler's AggregatedZone; sockets are taken in list order. */
typedef struct wc_attr_zone_in {
    const char *name;            /* domain: "package","dram","core","uncore","psys" */
    uint64_t energy_uj;          /* raw counter */
    uint64_t max_energy_range_uj;/* 0 = unknown (Kepler models use the first tick's value) */
    int ok;                      /* 1 when the read succeeded this tick */
    int vanished;                /* 1 when the read failed because the zone disappeared (ENOENT:
                                    e.g. all CPUs of the package went offline) — its next
                                    reading starts a new baseline (fixtures/cases/B25); 0 for a
                                    transient failure, after which the ideal model differences
                                    the next reading against the last good one. Ignored when
                                    ok; the Kepler models ignore it */
    int gauge;                   /* 1: a power gauge (hwmon powerN_input/average, V x I), not a
                                    counter: energy_uj and max_energy_range_uj are 0 and power_uw
                                    holds the reading; every socket of one name alike */
    double power_uw;             /* gauge: the reading, µW */
} wc_attr_zone_in;

/* One process of one tick. pids are unique within a tick. */
typedef struct wc_attr_proc_in {
    int32_t pid;
    uint64_t starttime;          /* ticks since boot (USER_HZ) */
    uint64_t cpu_ticks;          /* utime + stime, cumulative, USER_HZ */
    const char *container_id;    /* "" (or NULL) when none; runtime monitors: "" */
    const char *pod_uid;         /* "" (or NULL) when none */
    const char *vm_id;           /* Kepler's vm_id of a hypervisor process (cmdline.h); "" (or
                                    NULL) when none */
    wc_vm_since vm_since;        /* the first Kepler release that sees it as a VM; a model sees
                                    it when its release does (kepler-0.10: v0.11.0's rules,
                                    kepler-0.11: v0.11.4's, kepler-main and ideal: all); a
                                    process in a container is never a VM (Kepler: container
                                    check first) */
} wc_attr_proc_in;

/* Everything one tick recorded that attribution may use. */
typedef struct wc_attr_tick_in {
    int64_t mono_ns;             /* monotonic time of the node read; strictly increasing */
    int64_t boot_ns;             /* boot clock at the same moment (for starttime) */
    wc_cpu_times cpu;            /* aggregate /proc/stat cpu line, cumulative */
    int cpu_ok;                  /* 0 when /proc/stat could not be read this tick */
    const wc_attr_zone_in *zones;
    size_t nzones;
    const wc_attr_proc_in *procs;
    size_t nprocs;
} wc_attr_tick_in;

/* Flags on node and workload outputs. */
enum {
    WC_AF_FIRST          = 1u << 0, /* first tick: no interval yet */
    WC_AF_WRAP           = 1u << 1, /* a counter decrease was treated as one wrap */
    WC_AF_UNMEASURABLE   = 1u << 2, /* ideal: reset/unknown range/implausible/no baseline (also
                                       the first reading after a vanished zone) or a /proc/stat
                                       field other than iowait went backwards → nothing
                                       attributed */
    WC_AF_SKIPPED        = 1u << 3, /* active energy, active power or the share denominator
                                       was 0: workloads not attributed this tick */
    WC_AF_TOTALS_RESET   = 1u << 4, /* Kepler: every workload total for this zone fell to 0 */
    WC_AF_LIFETIME_DELTA = 1u << 5, /* Kepler: first Δ of a (re)discovered pid = lifetime CPU */
    WC_AF_NEGATIVE_SHARE = 1u << 6, /* Kepler: negative Δ (pid reuse) → negative watts, ≈2^64 µJ */
    WC_AF_REFRESH_FAILED = 1u << 7, /* Kepler: a zone or /proc/stat read failed, the refresh was
                                       discarded (no workload rows; the next refresh's ΔE spans
                                       both intervals) */
    WC_AF_ZONE_MISSING   = 1u << 8, /* a socket of this zone was unreadable, or (ideal) its
                                       interval unusable: delta_uj sums only usable sockets */
    WC_AF_CPU_MISSING    = 1u << 9, /* /proc/stat unreadable this tick (Kepler: refresh failed;
                                       ideal: tick ignored, the next one spans both intervals) */
    WC_AF_RATIO_RANGE    = 1u << 10,/* Kepler: usage ratio outside [0,1] (a /proc/stat counter
                                       went backwards): Kepler's active/idle split is
                                       meaningless, idle may underflow to ≈2^64 µJ. Set on each
                                       node zone whose split used such a ratio (§3.1) */
    WC_AF_TERMINATED     = 1u << 12,/* Kepler: a workload that exited, exported once with its
                                       last total and power (state="terminated", §4.3) */
    WC_AF_WRAP_AMBIGUOUS = 1u << 11 /* ideal: a socket's counter interval was long enough for a
                                       whole wrap to hide in it at the run's ceiling
                                       (counter.h WC_DELTA_AMBIGUOUS): its energy is not
                                       measured (with UNMEASURABLE and ZONE_MISSING) */
};

/* Node result for one zone name (per-socket zones of one name aggregated, as
 * Kepler's AggregatedZone). Energies µJ, powers µW. */
typedef struct wc_attr_node_out {
    char zone[WC_ATTR_ZONE_NAME_MAX];
    uint64_t delta_uj;           /* ΔE of the interval under this model */
    uint64_t active_uj, idle_uj; /* activeE = trunc(ΔE × r), idleE = ΔE − activeE */
    double power_uw, active_uw, idle_uw; /* P = ΔE/Δt, activeP = P × r, idleP = P − activeP
                                            (ideal: sockets whose intervals differ — one
                                            recovering from a transient failure — give
                                            P = Σ ΔE_s/Δt_s) */
    double ratio;                /* usage ratio used for this split */
    double interval_s;           /* monotonic seconds of the interval (0 on the first tick;
                                    ideal: the longest usable socket interval, longer than the
                                    tick's when a socket recovers from a transient failure) */
    uint64_t counter_uj;         /* Kepler: EnergyTotal as exported (raw or aggregated counter,
                                    wraps); ideal: Σ usable ΔE since the first tick */
    uint64_t active_total_uj, idle_total_uj; /* running totals as exported (Kepler's idle total
                                                starts at the raw counter, §4.1) */
    unsigned flags;              /* WC_AF_* of this zone */
} wc_attr_node_out;

/* WC_LEVEL_VM: a virtual machine, keyed by its vm_id (the hypervisor
 * processes of one VM; Kepler's kepler_vm_cpu_* series). */
typedef enum wc_attr_level {
    WC_LEVEL_PROCESS = 1,
    WC_LEVEL_CONTAINER,
    WC_LEVEL_POD,
    WC_LEVEL_VM
} wc_attr_level;

/* One workload × zone result of one tick. Every running workload gets a row
 * per zone, zero or not (Kepler exports them all). Rows come process-major:
 * all processes in input order, then containers, then pods, then VMs in
 * order of first appearance, each with one row per node zone. A VM's energy:
 * Kepler models — the share of the CPU Δ of its LAST process in scan order
 * (informer.go updateVMCache assigns, it does not add: a VM of several
 * hypervisor processes gets one process's share); ideal — the sum of its
 * processes' energies. */
typedef struct wc_attr_work_out {
    wc_attr_level level;
    size_t proc_index;           /* index into the tick's procs: the process itself, or the
                                    first process of the container / pod */
    const char *key;             /* process: its container_id; container: container id;
                                    pod: pod uid; VM: vm id (points into the input; never
                                    NULL) */
    size_t zone;                 /* index into the node output array */
    double cpu_delta_s;          /* Δ CPU seconds the model used */
    uint64_t energy_uj;          /* this interval (Kepler: uint64 of trunc(share × activeE)) */
    uint64_t total_uj;           /* running total as the exporter would report it */
    double power_uw;
    unsigned flags;
} wc_attr_work_out;

/* One zone of a terminated workload as the Kepler models export it
 * (internal/monitor/terminated_resource_tracker.go, kepler-model.md §4.3):
 * a workload of the previous snapshot that no longer runs, frozen at its last
 * total and last power, kept when its total in the primary zone reaches
 * min_terminated (10 J) and it is among the max_terminated (500) largest of
 * its kind, exported with the refresh that found it gone and cleared at the
 * next one (every refresh is taken as scraped before the next). Rows: every
 * kept process, then containers, then pods, each with one row per node zone;
 * no interval energy (its energy was counted while it ran). */
typedef struct wc_attr_term_out {
    wc_attr_level level;
    int32_t pid;                 /* process: its pid (Kepler's key); else 0 */
    uint64_t starttime;          /* process: its starttime when last seen; else 0 */
    const char *key;             /* container id, pod uid or vm id; "" for a process
                                    (engine-owned) */
    size_t zone;                 /* index into the node output array */
    uint64_t total_uj;           /* its last exported total, µJ */
    double power_uw;             /* its last power, µW (Kepler exports it, not 0) */
} wc_attr_term_out;

/* The output of one step; arrays owned by the engine, valid until the next step. */
typedef struct wc_attr_out {
    wc_attr_node_out *node;
    size_t nnode;
    wc_attr_work_out *work;
    size_t nwork;
    double cpu_delta_sum_s;      /* D = Σ running Δ (the denominator Kepler uses) */
    double node_busy_s;          /* busy CPU seconds from /proc/stat over the interval of this
                                    tick's CPU deltas (total − idle − iowait ticks / 100) */
    unsigned flags;              /* flags of the whole tick: FIRST, REFRESH_FAILED, CPU_MISSING */
    const wc_attr_term_out *term;/* Kepler models: terminated workloads exported this tick */
    size_t nterm;
} wc_attr_out;

typedef struct wc_attrib wc_attrib;

/* Creates an engine for one model. NULL on out-of-memory. */
wc_attrib *wc_attrib_new(wc_model model);

/* Sets the counter plausibility ceiling per zone, watts, the ideal model
 * differences counters with (collector/meter/counter.h; the run's stored
 * --ceiling-watts); <= 0 = unknown (WC_DEFAULT_CEILING_WATTS without the
 * hidden-wrap check, as runs recorded before the ceiling was stored). Call
 * before the first step. The Kepler models use no ceiling (any decrease is
 * one wrap). */
void wc_attrib_set_ceiling(wc_attrib *a, double watts);

/* Kepler's defaults for the terminated-workload trackers (config/config.go:
 * monitor.maxTerminated 500 — 100 in the shipped manifests — and
 * monitor.minTerminatedEnergyThreshold 10 J). */
#define WC_KEPLER_MAX_TERMINATED 500
#define WC_KEPLER_MIN_TERMINATED_UJ UINT64_C(10000000)

/* Sets the Kepler models' terminated-workload trackers: at most
 * max_terminated per kind (0 disables them, < 0 keeps all), those below
 * min_energy_uj in the primary zone dropped. Defaults above; call before the
 * first step. The ideal model keeps no tracker. */
void wc_attrib_set_terminated(wc_attrib *a, int max_terminated, uint64_t min_energy_uj);

/* Advances by one tick. Returns 0; -EINVAL with err set when the zone list
 * changed (length or names) since the first tick, a zone name is too long,
 * mono_ns did not increase, a pid appears twice, or an array is NULL;
 * -ENOMEM. On error nothing is attributed and the model's state is
 * unchanged. *out stays valid until the next call. */
int wc_attrib_step(wc_attrib *a, const wc_attr_tick_in *tick, wc_attr_out *out, wc_error *err);

/* Frees the engine (NULL is a no-op). */
void wc_attrib_free(wc_attrib *a);

#endif
