/*
 * attr_internal.h — what the attribution engine (attribution.c) and its model
 * variants (attr_kepler.c: kepler-0.10, kepler-0.11 and kepler-main;
 * attr_ideal.c: ideal)
 * share: the engine's state, the keyed tables of running totals, the per-tick
 * scratch, each variant's state, the model table (attr_models.c) and the
 * helpers the variants call back into the engine for.
 *
 * Nobody outside collector/model/ includes this header: the public interface
 * is attribution.h. Adding a model means an enum value in attribution.h, its
 * own attr_<name>.c (a step function and, when it keeps state of its own, an
 * attr_state_ops), its declarations below and one line in attr_models.c.
 *
 * Units as in attribution.h: energies µJ (uint64), powers µW (double), CPU
 * seconds (double, USER_HZ = 100), clocks ns.
 */
#ifndef WC_ATTR_INTERNAL_H
#define WC_ATTR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collector/model/attribution.h"
#include "common/wc_clock.h"

/* "Not found" / "no group" index. */
#define NPOS ((size_t)-1)

/* Go's time.Duration(ns).Seconds(): whole seconds plus the remainder / 1e9
 * (both Kepler variants and the ideal model divide by it, so the last bits of
 * every power match Kepler's). */
static inline double go_duration_seconds(int64_t ns)
{
    int64_t sec = ns / WC_NS_PER_S, nsec = ns % WC_NS_PER_S;
    return (double)sec + (double)nsec / 1e9;
}

/* ---- keyed tables of per-zone running totals (attribution.c) ------------ */

/* One process of a table: pid (Kepler key), plus starttime (ideal key). */
typedef struct proc_rec {
    int32_t pid;
    uint64_t start;      /* starttime, ticks since boot */
    uint64_t ticks;      /* ideal: cumulative utime+stime at the last tick */
    double cpu_s;        /* Kepler informer: cached CPUTotalTime, seconds */
} proc_rec;

/* Processes sorted by (pid, start) with nzone totals each (tot_uj[k*nz + z])
 * and the power of their last row (pw_uw, same layout: Kepler's terminated
 * tracker exports it). */
typedef struct proc_tab {
    proc_rec *rec;
    uint64_t *tot_uj;
    double *pw_uw;
    size_t n, cap;
} proc_tab;

/* Strings (container ids, pod uids) sorted by strcmp, with nzone totals and
 * last powers each. */
typedef struct str_tab {
    size_t *off;         /* key offsets into pool */
    uint64_t *tot_uj;
    double *pw_uw;
    char *pool;
    size_t n, cap, pool_len, pool_cap;
} str_tab;

/* Makes room for n processes with nz totals each; 0 or -ENOMEM (t unchanged). */
int attr_proc_tab_reserve(proc_tab *t, size_t n, size_t nz);
/* Frees a table's arrays (not t itself). */
void attr_proc_tab_free(proc_tab *t);
/* Index of pid (and start when by_start) or NPOS; binary search. */
size_t attr_proc_tab_find(const proc_tab *t, int32_t pid, uint64_t start, int by_start);
/* Exchanges two tables (the next snapshot becomes the current one). */
void attr_proc_tab_swap(proc_tab *a, proc_tab *b);
/* Makes room for n keys with nz totals each and pool_bytes of key text; 0 or
 * -ENOMEM. */
int attr_str_tab_reserve(str_tab *t, size_t n, size_t nz, size_t pool_bytes);
/* Frees a table's arrays (not t itself). */
void attr_str_tab_free(str_tab *t);
/* The nz totals of key in t (a previous snapshot), or NULL when absent. */
const uint64_t *attr_str_prev(const str_tab *t, const char *key, size_t nz);
/* Key i of t (i < t->n). */
const char *attr_str_key(const str_tab *t, size_t i);

/* ---- the engine's state -------------------------------------------------- */

typedef struct key_idx {
    const char *key;
    size_t idx;
} key_idx;

typedef struct pid_idx {
    int32_t pid;
    uint64_t start;
    size_t idx;
} pid_idx;

/* Per-tick scratch, sized for the tick's processes. */
typedef struct scratch {
    size_t cap;
    pid_idx *pk;
    size_t *ord;          /* process indices sorted by (pid, starttime) */
    double *d_s;          /* Δ CPU seconds per process */
    uint64_t *d_ticks;    /* ideal: Δ ticks per process */
    unsigned *pflags;     /* per-process flags */
    const char **ckey;    /* container_id per process ("" = none) */
    const char **pkey;    /* pod_uid per process ("" = none) */
    key_idx *kidx;
    size_t *prov, *map;   /* grouping scratch */
    /* containers */
    size_t ncont;
    size_t *cgrp, *cfirst, *csorted;
    double *cd_s;
    unsigned *cflags;
    const char **cpod;    /* Kepler: pod uid of each container */
    /* pods */
    size_t npod;
    size_t *pgrp, *pfirst, *psorted; /* Kepler: items are containers; ideal: processes */
    double *pd_s;
    unsigned *podflags;
    uint64_t *g_ticks;    /* ideal: Δ ticks per container or pod */
    /* VMs (attr_group_vms) */
    const char **vkey;    /* vm_id per process ("" = not a VM for this model) */
    size_t nvm;
    size_t *vgrp, *vfirst, *vsorted;
    size_t *vlast;        /* the last process of each VM in input order (Kepler's Δ) */
} scratch;

/* Kepler's meter, informer and last snapshot. */
typedef struct kepler_state {
    /* meter (per input zone = socket) */
    uint64_t *sock_max_uj, *sock_last_uj;
    unsigned char *sock_has_last;
    /* meter (per zone name) */
    uint64_t *max_uj;     /* MaxEnergy(): socket max, or Σmax saturating */
    uint64_t *agg_uj;     /* AggregatedZone.currentEnergy */
    uint64_t *read_uj;    /* this tick's reading (a gauge: its accumulated counter) */
    double *read_uw;      /* this tick's gauge reading (Power()), µW; NAN: a counter */
    int zone_types;       /* 1 from v0.11.4: range 0 and reading 0 = a power gauge (§2.6) */
    unsigned *pending;    /* WRAP seen by a read whose refresh failed */
    /* informer */
    proc_tab cache, cache_next;
    double prev_stat[10]; /* procfs CPUStat of the last call, seconds */
    wc_cpu_times prev_cpu;
    int have_prev_cpu;
    double ratio, d_sum_s, busy_s;
    /* snapshot */
    int have_snap;
    int64_t snap_mono_ns;
    uint64_t *snap_counter_uj, *snap_active_uj, *snap_idle_uj;
    proc_tab procs, procs_next;
    str_tab cont, cont_next, pod, pod_next;
    str_tab vm, vm_next;  /* VMs by vm_id */
    /* terminated workloads (attr_terminated.c) */
    wc_attr_term_out *term;
    size_t term_cap;
    struct term_heap_item *heap;
    size_t heap_cap;
} kepler_state;

/* The ideal model's baselines and totals. */
typedef struct ideal_state {
    uint64_t *base_uj;            /* per socket: last good reading */
    double *base_uw;              /* per socket: last good gauge reading, µW */
    int64_t *base_mono_ns;        /* per socket: tick mono_ns of that reading */
    unsigned char *has_base;
    int have_prev;
    int64_t prev_mono_ns, prev_boot_ns;
    wc_cpu_times prev_cpu;
    uint64_t *counter_uj, *active_total_uj, *idle_total_uj; /* per zone name */
    unsigned char *attributable;  /* per zone name, this tick */
    uint64_t denom_ticks;
    proc_tab procs, procs_next;
    str_tab cont, cont_next, pod, pod_next;
    str_tab vm, vm_next;
} ideal_state;

/* The part of a model that keeps state of its own beside the engine's: every
 * hook gets the engine, whose layout (zones, sockets) is known from the first
 * tick on. */
typedef struct attr_state_ops {
    /* Allocates the per-socket and per-zone state once the layout is known
     * (the first tick t); 0 or -ENOMEM (release then frees what was made). */
    int (*layout)(wc_attrib *a, const wc_attr_tick_in *t);
    /* Frees and forgets what layout made; safe when it made nothing. */
    void (*release)(wc_attrib *a);
    /* Reserves the tables this tick will build for nprocs processes whose
     * container ids (pod uids, vm ids) take cont_bytes (pod_bytes,
     * vm_bytes) with their NULs; 0 or -ENOMEM, the state unchanged. */
    int (*reserve)(wc_attrib *a, size_t nprocs, size_t cont_bytes, size_t pod_bytes,
                   size_t vm_bytes);
    /* Frees the model's tables (at wc_attrib_free). */
    void (*free)(wc_attrib *a);
} attr_state_ops;

/* One tick of a model: everything it needs was reserved by the engine, so it
 * cannot fail. Fills out->nwork, flags, cpu_delta_sum_s and node_busy_s; the
 * engine has set out->node/nnode/work, cleared zflags and node outputs. */
typedef void (*attr_step_fn)(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out);

/* One row of the model table (attr_models.c). */
typedef struct attr_model {
    wc_model id;
    const char *name;              /* --model value, run.model, model.name */
    const char *old_name;          /* the name older versions stored, or NULL */
    attr_step_fn step;
    const attr_state_ops *state;
    const char *description;       /* one line for humans */
    const char *exporter;          /* the exporter release it reproduces, for reports */
    wc_vm_since vm_upto;           /* the VM detection of its release (cmdline.h): processes
                                      whose vm_since is later are no VM for it */
} attr_model;

/* The table row of model m, or NULL for a value outside the table. */
const attr_model *attr_model_find(wc_model m);

struct wc_attrib {
    wc_model model;
    const attr_model *def;        /* its row of the model table */
    double ceiling_watts;         /* ideal: counter ceiling per zone (wc_attrib_set_ceiling);
                                     0 = counter.h's default */
    int max_terminated;           /* Kepler: terminated workloads kept per kind (<0: all) */
    uint64_t min_terminated_uj;   /* Kepler: below it in the primary zone: not kept */
    int have_layout;
    size_t nsock;                 /* input zones per tick */
    char (*sock_name)[WC_ATTR_ZONE_NAME_MAX];
    size_t nzone;
    size_t *zone_nsock;
    size_t **zone_sock;           /* input zone indices of each node zone, in order */
    unsigned *zflags;
    wc_attr_node_out *node;
    wc_attr_work_out *work;
    size_t work_cap;
    int have_mono;
    int64_t last_mono_ns;
    scratch s;
    kepler_state k;
    ideal_state i;
};

/* ---- engine helpers the variants use (attribution.c) ---------------------- */

/* Groups items 0..n−1 by key[i] ("" = no group). Group ids follow first
 * appearance: grp[i] is the item's group or NPOS, first[g] the group's first
 * item, sorted[j] the group ids in strcmp order of their keys. Returns the
 * number of groups. */
size_t attr_group_by_key(scratch *s, const char **key, size_t n, size_t *grp, size_t *first,
                         size_t *sorted);
/* Containers: every process with a container_id (s->ncont, cgrp, cfirst, csorted). */
void attr_group_containers(scratch *s, size_t n);
/* VMs of this tick as the model sees them (s->vkey, nvm, vgrp, vfirst,
 * vsorted, vlast); call after the containers are grouped (s->ckey set). */
void attr_group_vms(wc_attrib *a, const wc_attr_tick_in *t);
/* The tick's VM rows (after the pods) become the previous snapshot. */
void attr_commit_vms(wc_attrib *a, const wc_attr_tick_in *t, str_tab *vm, str_tab *vnext);
/* Busy and total ticks of the eight /proc/stat fields between two samples
 * (busy = total − Δidle − Δiowait); 0 when a field went backwards (no usable
 * interval), except that with clamp_iowait a decreasing iowait counts as Δ 0.
 * 1 otherwise. */
int attr_cpu_interval(const wc_cpu_times *prev, const wc_cpu_times *cur, int clamp_iowait,
                      uint64_t *busy, uint64_t *total);
/* Emits zeroed rows for one workload from row r, one per zone, with flags and
 * the previous totals (NULL: 0); returns the next row. */
size_t attr_rows_start(wc_attrib *a, size_t r, wc_attr_level level, size_t proc_index,
                       const char *key, double cpu_delta_s, unsigned flags,
                       const uint64_t *prev_tot_uj);
/* The tick's workloads and their totals become the previous snapshot: the
 * *_next tables are filled and swapped with the current ones. */
void attr_commit_tables(wc_attrib *a, const wc_attr_tick_in *t, proc_tab *procs,
                        proc_tab *pnext, str_tab *cont, str_tab *cnext, str_tab *pod,
                        str_tab *dnext);

/* ---- the variants (attr_kepler.c, attr_ideal.c) --------------------------- */

/* Kepler v0.11.4 (the released order of v0.10.0–v0.11.4: the node first,
 * split with the previous ratio), with its zone-type test. */
void attr_kepler_011_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out);
/* Kepler main after 81477124: the informer first, ratio of the same interval. */
void attr_kepler_head_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out);
/* kepler-0.10 (v0.10.0–v0.11.3): kepler-0.11 without the zone-type test
 * (kepler-model.md §2.6): no power gauges. */
void attr_kepler_010_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out);
/* The meter, informer and snapshot state both Kepler variants keep. */
extern const attr_state_ops attr_kepler_state;
/* Room for the terminated rows of the next step (attr_terminated.c): the
 * current snapshot's workloads, each a candidate; 0 or -ENOMEM. */
int attr_term_reserve(wc_attrib *a);
/* Kepler's terminated-workload trackers after a committed refresh
 * (attr_terminated.c): the workloads of the previous snapshot (the *_next
 * tables after attr_commit_tables) that no longer run, kept as
 * terminated_resource_tracker.go keeps them, into out->term. */
void attr_term_collect(wc_attrib *a, wc_attr_out *out);
/* Frees the tracker's arrays. */
void attr_term_free(wc_attrib *a);
/* wattcal's corrected model. */
void attr_ideal_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out);
/* The ideal model's baselines, totals and tables. */
extern const attr_state_ops attr_ideal_state;

#endif
