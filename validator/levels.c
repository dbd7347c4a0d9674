/*
 * levels.c — attribution gap per level, its split and the Σ children ≤
 * parent invariants, in one pass over a model's workload rows (levels.h).
 *
 * Rows stream from the store in rowid order, which is tick order for every
 * writer (record and replay insert one tick at a time), by a plain table
 * scan (collector/store/store_levels.c says why); if a run ever breaks that
 * order, the pass restarts with the rows ordered by tick_id. A compact run
 * (schema 6) is read by tick range instead, its two halves of ticks on two
 * connections at once (see "two connections" below). The pass also keeps
 * each pod's energy per zone and tick (levels.h pod_tick_uj) for showback
 * and the report's stacked figure, so neither reads the rows again.
 */
#include "validator/levels.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "collector/store/store_read.h"
#include "collector/store/store_results.h"
#include "validator/series.h"

#define CHILD_TOLERANCE_UJ 1.0
#define SKIP_FLAGS (WC_AF_SKIPPED | WC_AF_UNMEASURABLE | WC_AF_REFRESH_FAILED | WC_AF_CPU_MISSING)

const char *wc_invariant_name(int inv)
{
    switch (inv) {
    case WC_INV_PROCS_LE_NODE: return "sum(processes) <= node active";
    case WC_INV_CONTAINERS_LE_NODE: return "sum(containers) <= node active";
    case WC_INV_PODS_LE_NODE: return "sum(pods) <= node active";
    case WC_INV_PROCS_LE_CONTAINER: return "sum(processes of a container) <= container";
    case WC_INV_CONTAINERS_LE_POD: return "sum(containers of a pod) <= pod";
    case WC_INV_VMS_LE_NODE: return "sum(vms) <= node active";
    case WC_INV_VMS_LE_PROCS: return "sum(vms) <= sum(processes)";
    }
    return "?";
}

/* A sorted list of keys (container ids or pod uids) for bsearch. */
typedef struct keyset {
    size_t n;
    char **key;
    long *parent;                  /* containers: index of their pod, -1 none */
} keyset;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static long key_index(const keyset *k, const char *key)
{
    if (!key || !*key || !k->n)
        return -1;
    char *const *hit = bsearch(&key, k->key, k->n, sizeof *k->key, cmp_str);
    return hit ? (long)(hit - k->key) : -1;
}

static void keyset_free(keyset *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->key[i]);
    free(k->key);
    free(k->parent);
    memset(k, 0, sizeof *k);
}

/* Adds a copy of key to k (*cap slots). Returns 0 or -ENOMEM. */
static int keyset_push(keyset *k, size_t *cap, const char *key)
{
    if (k->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        char **nk = realloc(k->key, ncap * sizeof *nk);
        if (!nk)
            return -ENOMEM;
        k->key = nk;
        *cap = ncap;
    }
    if (!(k->key[k->n] = strdup(key)))
        return -ENOMEM;
    k->n++;
    return 0;
}

/* Sorts the keys and gives each the parent -1. Returns 0 or -ENOMEM. */
static int keyset_finish(keyset *k)
{
    if (k->n)
        qsort(k->key, k->n, sizeof *k->key, cmp_str);
    k->parent = malloc((k->n ? k->n : 1) * sizeof *k->parent);
    if (!k->parent)
        return -ENOMEM;
    for (size_t i = 0; i < k->n; i++)
        k->parent[i] = -1;
    return 0;
}

/* The open function of a text reader of the store (store_read.h). */
typedef int (*text_reader)(wc_store *st, wc_store_iter **it, wc_error *err);

/* Loads the distinct non-empty values of a text reader of the store
 * (container ids or pod uids). */
static int keyset_load(wc_store *st, text_reader open_reader, keyset *k, wc_error *err)
{
    memset(k, 0, sizeof *k);
    wc_store_iter *it = NULL;
    int rc = open_reader(st, &it, err);
    if (rc)
        return rc;
    size_t cap = 0;
    const char *t = NULL;
    while ((rc = wc_store_text_next(it, &t, err)) == 1)
        if (t && *t && keyset_push(k, &cap, t)) {
            rc = -ENOMEM;
            break;
        }
    wc_store_iter_close(it);
    if (!rc)
        rc = keyset_finish(k);
    if (rc)
        keyset_free(k);
    return rc == -ENOMEM ? wc_error_set(err, rc, "out of memory reading containers and pods") : rc;
}

/* The tick sums kept per (tick index, zone) (pass.tick_sums). */
enum { TS_PROC, TS_CONT, TS_POD, TS_VM, TS_CONT_PROCS, TS_N };

/* Everything the pass needs, and its per-tick scratch. */
typedef struct pass {
    wc_levels_report *rep;
    wc_timebase tb;
    keyset containers, pods;
    long *proc_container;          /* process row id → container index (-1 none) */
    int64_t max_proc_id;
    size_t nz;
    /* node rows per (tick index, zone) */
    double *node_delta, *node_active, *node_idle;
    unsigned *node_flags;
    unsigned char *node_have;
    /* per-tick scratch */
    double *sum_proc, *sum_cont, *sum_pod, *sum_cont_procs, *sum_vm;
    uint32_t *nvm;                 /* VM rows of the tick, per zone */
    double *cont_parent, *cont_child, *pod_parent, *pod_child;
    uint32_t *cont_nchild, *pod_nchild;
    unsigned char *cont_touched, *pod_touched;
    long *touched_c, *touched_p;
    size_t ntouched_c, ntouched_p;
    int64_t window_ns;
    long cur_i;                    /* tick index of the rows being added */
    double *tick_sums;             /* per (tick index, zone): the tick's Σ of each level
                                      (TS_*), added into the totals and windows in tick
                                      order once every tick is closed (add_ticks); shared
                                      by both halves, each writing its own ticks */
    double *pod_tick;              /* the report's pod_tick_uj (shared by both halves:
                                      each writes its own ticks) or NULL */
} pass;

/* Index of zone name in the report, -1 when it has none. */
static long zone_find(const wc_levels_report *r, const char *name)
{
    for (size_t i = 0; i < r->nzones; i++)
        if (!strcmp(r->zones[i].zone, name))
            return (long)i;
    return -1;
}

/* Adds a zone name (once); past WC_LEVELS_MAX_ZONES it is left out (-1). A
 * name that does not fit is refused: cut, it would match none of its rows. */
static long zone_add(wc_levels_report *r, const char *name, wc_error *err)
{
    long z = zone_find(r, name);
    if (z >= 0 || r->nzones == WC_LEVELS_MAX_ZONES)
        return z;
    size_t len = strlen(name);
    if (len >= sizeof r->zones[0].zone)
        return wc_error_set(err, -EINVAL, "node_attr: zone name '%.40s...' is %zu bytes long, "
                            "longer than the %zu a wattcal zone name has (a run altered or "
                            "written by another tool): its levels cannot be checked", name, len,
                            sizeof r->zones[0].zone - 1);
    snprintf(r->zones[r->nzones].zone, sizeof r->zones[r->nzones].zone, "%s", name);
    return (long)r->nzones++;
}

/* The zone names of the model's node rows become the report's zones first,
 * so the per-tick arrays have their final width (nothing adds one later). */
static int load_node_zones(wc_store *st, int64_t model_id, pass *p, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_node_zones_open(st, model_id, &it, err);
    if (rc)
        return rc;
    const char *zone = NULL;
    while ((rc = wc_store_text_next(it, &zone, err)) == 1)
        if (zone && zone_add(p->rep, zone, err) < -1) {
            rc = -EINVAL;
            break;
        }
    wc_store_iter_close(it);
    return rc;
}

static int load_node_rows(wc_store *st, int64_t model_id, pass *p, wc_error *err)
{
    int rc = load_node_zones(st, model_id, p, err);
    if (rc)
        return rc;
    p->nz = p->rep->nzones;
    if (!p->nz)
        return -ENOENT;
    size_t cells = p->tb.n * p->nz;
    p->node_delta = calloc(cells, sizeof *p->node_delta);
    p->node_active = calloc(cells, sizeof *p->node_active);
    p->node_idle = calloc(cells, sizeof *p->node_idle);
    p->node_flags = calloc(cells, sizeof *p->node_flags);
    p->node_have = calloc(cells, 1);
    p->tick_sums = calloc(cells * TS_N, sizeof *p->tick_sums);
    if (!p->node_delta || !p->node_active || !p->node_idle || !p->node_flags || !p->node_have ||
        !p->tick_sums)
        return wc_error_set(err, -ENOMEM, "out of memory for node rows");
    wc_store_iter *it = NULL;
    rc = wc_store_node_rows_open(st, model_id, &it, err);
    if (rc)
        return rc;
    wc_node_row r;
    while ((rc = wc_store_node_row_next(it, &r, err)) == 1) {
        long i = wc_timebase_index(&p->tb, r.tick_id);
        long z = r.zone ? zone_find(p->rep, r.zone) : -1;
        if (i < 0 || z < 0 || (size_t)z >= p->nz)
            continue;
        size_t c = (size_t)i * p->nz + (size_t)z;
        p->node_delta[c] = r.delta_uj;
        p->node_active[c] = r.active_uj;
        p->node_idle[c] = r.idle_uj;
        p->node_flags[c] = r.flags;
        p->node_have[c] = 1;
    }
    wc_store_iter_close(it);
    return rc;
}

/* The process id extent and the process → container map (all -1). Per-
 * process totals are indexed by the row id, which the recorder hands out
 * densely (1, 2, ...): far sparser ids are not a wattcal run. */
static int load_process_ids(wc_store *st, pass *p, wc_error *err)
{
    int64_t nproc = 0, min_id = 0;
    int rc = wc_store_process_extent(st, &p->max_proc_id, &nproc, &min_id, err);
    if (rc)
        return rc;
    if (min_id < 0 || p->max_proc_id > 16 * nproc + 65536)
        return wc_error_set(err, -EINVAL, "process ids %lld..%lld for %lld processes: the table's ids are"
                            " not the recorder's dense row ids (a damaged or foreign run)", (long long)min_id,
                            (long long)p->max_proc_id, (long long)nproc);
    p->proc_container = malloc((size_t)(p->max_proc_id + 1) * sizeof *p->proc_container);
    if (!p->proc_container)
        return wc_error_set(err, -ENOMEM, "out of memory for %lld processes",
                            (long long)p->max_proc_id);
    for (int64_t i = 0; i <= p->max_proc_id; i++)
        p->proc_container[i] = -1;
    return 0;
}

/* Each process's container, and the pod of each container with processes. */
static int map_processes(wc_store *st, pass *p, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_process_identities_open(st, &it, err);
    if (rc)
        return rc;
    wc_identity_row r;
    while ((rc = wc_store_identity_next(it, &r, err)) == 1) {
        long c = key_index(&p->containers, r.container_id);
        if (r.process_id < 0 || r.process_id > p->max_proc_id)
            continue;
        p->proc_container[r.process_id] = c;
        long pod = key_index(&p->pods, r.pod_uid);
        if (c >= 0 && pod >= 0)
            p->containers.parent[c] = pod;
    }
    wc_store_iter_close(it);
    return rc;
}

/* Containers seen without processes carry their pod in the container table. */
static int map_containers(wc_store *st, pass *p, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_container_pods_open(st, &it, err);
    if (rc)
        return rc;
    wc_identity_row r;
    while ((rc = wc_store_identity_next(it, &r, err)) == 1) {
        long c = key_index(&p->containers, r.container_id);
        long pod = key_index(&p->pods, r.pod_uid);
        if (c >= 0 && pod >= 0 && p->containers.parent[c] < 0)
            p->containers.parent[c] = pod;
    }
    wc_store_iter_close(it);
    return rc;
}

static int load_identities(wc_store *st, pass *p, wc_error *err)
{
    int rc = keyset_load(st, wc_store_container_ids_open, &p->containers, err);
    if (!rc)
        rc = keyset_load(st, wc_store_pod_uids_open, &p->pods, err);
    if (!rc)
        rc = load_process_ids(st, p, err);
    if (!rc)
        rc = map_processes(st, p, err);
    if (!rc)
        rc = map_containers(st, p, err);
    return rc;
}

static int alloc_scratch(pass *p)
{
    size_t nz = p->nz, nc = p->containers.n ? p->containers.n : 1, np = p->pods.n ? p->pods.n : 1;
    p->sum_proc = calloc(nz, sizeof(double));
    p->sum_cont = calloc(nz, sizeof(double));
    p->sum_pod = calloc(nz, sizeof(double));
    p->sum_cont_procs = calloc(nz, sizeof(double));
    p->sum_vm = calloc(nz, sizeof(double));
    p->nvm = calloc(nz, sizeof(uint32_t));
    p->cont_parent = calloc(nc * nz, sizeof(double));
    p->cont_child = calloc(nc * nz, sizeof(double));
    p->pod_parent = calloc(np * nz, sizeof(double));
    p->pod_child = calloc(np * nz, sizeof(double));
    p->cont_nchild = calloc(nc * nz, sizeof(uint32_t));
    p->pod_nchild = calloc(np * nz, sizeof(uint32_t));
    p->cont_touched = calloc(nc, 1);
    p->pod_touched = calloc(np, 1);
    p->touched_c = malloc(nc * sizeof(long));
    p->touched_p = malloc(np * sizeof(long));
    return (p->sum_proc && p->sum_cont && p->sum_pod && p->sum_cont_procs && p->sum_vm && p->nvm &&
            p->cont_parent &&
            p->cont_child && p->pod_parent && p->pod_child && p->cont_nchild && p->pod_nchild &&
            p->cont_touched && p->pod_touched && p->touched_c && p->touched_p)
               ? 0
               : -ENOMEM;
}

static void touch_container(pass *p, long c)
{
    if (!p->cont_touched[c]) {
        p->cont_touched[c] = 1;
        p->touched_c[p->ntouched_c++] = c;
    }
}

static void touch_pod(pass *p, long q)
{
    if (!p->pod_touched[q]) {
        p->pod_touched[q] = 1;
        p->touched_p[p->ntouched_p++] = q;
    }
}

static void check(wc_invariant *inv, double children, double parent, double nchild,
                  int64_t tick_id)
{
    inv->checked++;
    double excess = children - parent;
    if (excess > CHILD_TOLERANCE_UJ * (nchild > 1 ? nchild : 1)) {
        inv->violated++;
        if (excess / 1e6 > inv->worst_excess_j) {
            inv->worst_excess_j = excess / 1e6;
            inv->worst_tick_id = tick_id;
        }
    }
}

/* Adds one zone's figures of a tick (cell c) to the window it falls in. */
static void window_add(wc_level_window *win, const pass *p, size_t c, double unattr,
                       double over)
{
    const double *ts = &p->tick_sums[c * TS_N];
    win->node_j += p->node_delta[c];
    win->idle_j += p->node_idle[c];
    win->active_j += p->node_active[c];
    win->process_j += ts[TS_PROC];
    win->container_j += ts[TS_CONT];
    win->pod_j += ts[TS_POD];
    win->vm_j += ts[TS_VM];
    win->unattributed_j += unattr;
    win->over_j += over;
}

/* Zone z of tick index i: the Σ children ≤ node checks, and the tick's
 * sums kept for add_ticks. */
static void close_zone(pass *p, long i, size_t z)
{
    size_t c = (size_t)i * p->nz + z;
    if (!p->node_have[c])
        return;
    int64_t tick_id = p->tb.tick_id[i];
    wc_level_zone *lz = &p->rep->zones[z];
    double active = p->node_active[c];
    check(&lz->inv[WC_INV_PROCS_LE_NODE], p->sum_proc[z], active, 1, tick_id);
    check(&lz->inv[WC_INV_CONTAINERS_LE_NODE], p->sum_cont[z], active, 1, tick_id);
    check(&lz->inv[WC_INV_PODS_LE_NODE], p->sum_pod[z], active, 1, tick_id);
    if (p->nvm[z]) {
        check(&lz->inv[WC_INV_VMS_LE_NODE], p->sum_vm[z], active, p->nvm[z], tick_id);
        check(&lz->inv[WC_INV_VMS_LE_PROCS], p->sum_vm[z], p->sum_proc[z], p->nvm[z], tick_id);
    }
    double *ts = &p->tick_sums[c * TS_N];
    ts[TS_PROC] = p->sum_proc[z], ts[TS_CONT] = p->sum_cont[z], ts[TS_POD] = p->sum_pod[z];
    ts[TS_VM] = p->sum_vm[z], ts[TS_CONT_PROCS] = p->sum_cont_procs[z];
}

/* Adds zone z of tick index i (cell c) to the totals and to window w (-1
 * or beyond the last: none). */
static void add_tick(pass *p, long i, size_t z, long w)
{
    size_t c = (size_t)i * p->nz + z;
    const double *ts = &p->tick_sums[c * TS_N];
    wc_level_zone *lz = &p->rep->zones[z];
    double active = p->node_active[c], proc = ts[TS_PROC];
    double unattr = active > proc ? active - proc : 0;
    double over = proc > active ? proc - active : 0;
    lz->node_j += p->node_delta[c];
    lz->active_j += active;
    lz->idle_j += p->node_idle[c];
    lz->process_j += proc;
    lz->container_j += ts[TS_CONT];
    lz->pod_j += ts[TS_POD];
    lz->vm_j += ts[TS_VM];
    lz->containerised_process_j += ts[TS_CONT_PROCS];
    if (p->node_flags[c] & SKIP_FLAGS)
        lz->unattr_skipped_j += unattr;
    else
        lz->unattr_missed_j += unattr;
    lz->over_j += over;
    if (w >= 0 && (size_t)w < lz->nwindows && i > 0)
        window_add(&lz->windows[w], p, c, unattr, over);
}

/* The totals and windows, every tick added in tick order once the pass (or
 * both halves) closed them all: the same additions in the same order
 * however the rows were read, so even sums of values beyond 2^53 µJ (a
 * Kepler idle underflow stored as ~2^64) come out the same. */
static void add_ticks(pass *p)
{
    for (size_t i = 0; i < p->tb.n; i++) {
        long w = p->window_ns > 0
                     ? (long)((p->tb.mono_ns[i] - p->tb.mono_ns[0] - 1) / p->window_ns)
                     : 0;
        for (size_t z = 0; z < p->nz; z++)
            if (p->node_have[i * p->nz + z])
                add_tick(p, (long)i, z, w);
    }
}

/* The Σ processes ≤ container and Σ containers ≤ pod checks of the
 * containers and pods the tick touched, whose sums are then cleared. */
static void close_parents(pass *p, int64_t tick_id)
{
    wc_levels_report *r = p->rep;
    for (size_t k = 0; k < p->ntouched_c; k++) {
        long cidx = p->touched_c[k];
        for (size_t z = 0; z < p->nz; z++) {
            size_t c = (size_t)cidx * p->nz + z;
            if (p->cont_nchild[c])
                check(&r->zones[z].inv[WC_INV_PROCS_LE_CONTAINER], p->cont_child[c],
                      p->cont_parent[c], p->cont_nchild[c], tick_id);
            p->cont_child[c] = p->cont_parent[c] = 0;
            p->cont_nchild[c] = 0;
        }
        p->cont_touched[cidx] = 0;
    }
    for (size_t k = 0; k < p->ntouched_p; k++) {
        long q = p->touched_p[k];
        for (size_t z = 0; z < p->nz; z++) {
            size_t c = (size_t)q * p->nz + z;
            if (p->pod_nchild[c])
                check(&r->zones[z].inv[WC_INV_CONTAINERS_LE_POD], p->pod_child[c],
                      p->pod_parent[c], p->pod_nchild[c], tick_id);
            p->pod_child[c] = p->pod_parent[c] = 0;
            p->pod_nchild[c] = 0;
        }
        p->pod_touched[q] = 0;
    }
    p->ntouched_c = p->ntouched_p = 0;
}

/* Closes tick index i: its invariants, and its sums kept for add_ticks.
 * The totals accumulate integer µJ (exact in a double up to 2^53 µJ) and
 * are turned into joules once, at the end (to_joules), so sums that must
 * agree (unattributed against active energy) agree exactly. */
static void close_tick(pass *p, long i)
{
    for (size_t z = 0; z < p->nz; z++)
        close_zone(p, i, z);
    close_parents(p, p->tb.tick_id[i]);
    memset(p->sum_proc, 0, p->nz * sizeof(double));
    memset(p->sum_cont, 0, p->nz * sizeof(double));
    memset(p->sum_pod, 0, p->nz * sizeof(double));
    memset(p->sum_cont_procs, 0, p->nz * sizeof(double));
    memset(p->sum_vm, 0, p->nz * sizeof(double));
    memset(p->nvm, 0, p->nz * sizeof(uint32_t));
}

/* A row flagged NEGATIVE_SHARE: counted and its workload marked, its
 * wrapped energy (~2^64 µJ) added nowhere (levels.h). */
static void exclude_row(pass *p, int level, int64_t process_id, long kix)
{
    wc_levels_report *r = p->rep;
    if (level >= 0 && level < 5)
        r->excluded_rows[level]++;
    if (level == WC_LEVEL_PROCESS) {
        r->negative_share_rows++;
        if (process_id >= 0 && process_id <= p->max_proc_id)
            r->excluded_process[process_id] = 1;
    } else if (level == WC_LEVEL_CONTAINER) {
        if (kix >= 0)
            r->excluded_container[kix] = 1;
    } else if (level == WC_LEVEL_POD) {
        if (kix >= 0)
            r->excluded_pod[kix] = 1;
    }
}

/* A CPU delta (s) in whole nanoseconds, the unit its sums are kept in: a
 * sum of integers below 2^53 is exact in a double, so the totals do not
 * depend on the order rows are added in (to_joules turns them into
 * seconds). */
static double cpu_ns(double cpu_s)
{
    double ns = cpu_s * 1e9; /* a hand-edited absurd delta stays as it is */
    return fabs(ns) < 9e15 ? (double)llround(ns) : ns;
}

/* One workload row into the tick's scratch and the run totals (a
 * NEGATIVE_SHARE row only counted: exclude_row); kix: a container's or
 * pod's index in its keyset (-1 not listed). */
static void add_row(pass *p, int level, int64_t process_id, long kix, long z, double e,
                    double cpu_s, unsigned flags)
{
    size_t nz = p->nz;
    wc_level_zone *lz = &p->rep->zones[z];
    if (flags & WC_AF_NEGATIVE_SHARE) {
        exclude_row(p, level, process_id, kix);
        return;
    }
    if (level == WC_LEVEL_PROCESS) {
        p->sum_proc[z] += e;
        if (process_id >= 0 && process_id <= p->max_proc_id) {
            lz->per_process_j[process_id] += e;
            lz->per_process_cpu_s[process_id] += cpu_ns(cpu_s);
        }
        if (e != 0 && (flags & WC_AF_LIFETIME_DELTA))
            p->rep->lifetime_delta_rows++;
        long c = process_id >= 0 && process_id <= p->max_proc_id ? p->proc_container[process_id] : -1;
        if (c >= 0) {
            p->cont_child[(size_t)c * nz + (size_t)z] += e;
            p->cont_nchild[(size_t)c * nz + (size_t)z]++;
            p->sum_cont_procs[z] += e;
            touch_container(p, c);
        }
    } else if (level == WC_LEVEL_CONTAINER) {
        p->sum_cont[z] += e;
        long c = kix;
        if (c >= 0) {
            lz->per_container_j[c] += e;
            lz->per_container_cpu_s[c] += cpu_ns(cpu_s);
            p->cont_parent[(size_t)c * nz + (size_t)z] += e;
            touch_container(p, c);
            long q = p->containers.parent[c];
            if (q >= 0) {
                p->pod_child[(size_t)q * nz + (size_t)z] += e;
                p->pod_nchild[(size_t)q * nz + (size_t)z]++;
                touch_pod(p, q);
            }
        } else {
            p->rep->unlisted_container_rows++;
        }
    } else if (level == WC_LEVEL_VM) {
        p->sum_vm[z] += e;
        p->nvm[z]++;
    } else if (level == WC_LEVEL_POD) {
        p->sum_pod[z] += e;
        long q = kix;
        if (q >= 0) {
            lz->per_pod_j[q] += e;
            if (p->pod_tick && e > 0 && p->cur_i >= 0)
                p->pod_tick[((size_t)q * nz + (size_t)z) * p->tb.n + (size_t)p->cur_i] += e;
            p->pod_parent[(size_t)q * nz + (size_t)z] += e;
            touch_pod(p, q);
        } else {
            p->rep->unlisted_pod_rows++;
        }
    }
}

/* Closes every tick index in [from, to) that had no rows (its sums are 0:
 * the node's energy that interval went entirely unattributed). */
static void close_empty(pass *p, long from, long to)
{
    for (long i = from; i < to; i++)
        close_tick(p, i);
}

/* Where a stream of rows stands. */
typedef struct stream_pos {
    int64_t cur_tick;             /* tick of the rows being gathered */
    long cur_i;                   /* its index in the time base, -1 when not a run tick */
    long next;                    /* first tick index not closed yet */
    long lastz;                   /* zone of the previous row */
} stream_pos;

/* Moves the stream to a row of tick `tick`: closes the tick gathered so far
 * and the empty ticks before this one. Returns 1 when the tick goes back
 * (rowid order is not tick order), else 0. */
static int stream_to_tick(pass *p, stream_pos *s, int64_t tick)
{
    if (tick == s->cur_tick)
        return 0;
    if (tick < s->cur_tick)
        return 1;
    long i = wc_timebase_index(&p->tb, tick);
    if (s->cur_i >= 0) {
        close_tick(p, s->cur_i);
        s->next = s->cur_i + 1;
    }
    s->cur_tick = tick;
    s->cur_i = i >= s->next ? i : -1;
    if (s->cur_i >= 0) {
        close_empty(p, s->next, s->cur_i);
        s->next = s->cur_i;
    }
    return 0;
}

/* Index of zone name zn in the report (the previous row's zone tried first),
 * -1 when it has none. */
static long row_zone(const pass *p, stream_pos *s, const char *zn)
{
    if (!zn)
        return -1;
    long z = (size_t)s->lastz < p->nz && !strcmp(p->rep->zones[s->lastz].zone, zn) ? s->lastz : -1;
    for (size_t k = 0; z < 0 && k < p->nz; k++)
        if (!strcmp(p->rep->zones[k].zone, zn))
            z = (long)k;
    if (z >= 0)
        s->lastz = z;
    return z;
}

/* A container's or pod row's index in its keyset (-1 not listed; a process
 * row -1), cached per key slot of a compact stream (cache: nkeys entries,
 * -2 until resolved). */
static long row_key_index(const pass *p, const wc_work_row *r, long *cache, size_t nkeys)
{
    if (r->level != WC_LEVEL_CONTAINER && r->level != WC_LEVEL_POD)
        return -1;
    const keyset *k = r->level == WC_LEVEL_CONTAINER ? &p->containers : &p->pods;
    if (r->key_slot < 0 || (size_t)r->key_slot >= nkeys)
        return key_index(k, r->key);
    if (cache[r->key_slot] == -2)
        cache[r->key_slot] = key_index(k, r->key);
    return cache[r->key_slot];
}

/* Streams an open iterator's rows into p, closing every tick index in
 * [i0, i1) exactly once, in order, rows or not. Returns 1 when the ticks go
 * back (rowid order is not tick order: the caller retries ordered), 0 done,
 * < 0 an error. */
static int stream_iter(wc_store_iter *it, pass *p, long i0, long i1, wc_error *err)
{
    size_t nkeys = wc_store_work_rows_nkeys(it);
    long *cache = malloc((nkeys ? nkeys : 1) * sizeof *cache);
    if (!cache)
        return wc_error_set(err, -ENOMEM, "out of memory for %zu workload keys", nkeys);
    for (size_t k = 0; k < nkeys; k++)
        cache[k] = -2;
    long zslot[64]; /* a compact stream's zone slot → zone index, -2 unresolved */
    for (int k = 0; k < 64; k++)
        zslot[k] = -2;
    stream_pos s = {.cur_tick = INT64_MIN, .cur_i = -1, .next = i0, .lastz = 0};
    int restart = 0, rc;
    wc_work_row r;
    p->rep->rows = 0;
    while ((rc = wc_store_work_row_next(it, &r, err)) == 1) {
        if ((restart = stream_to_tick(p, &s, r.tick_id)))
            break;
        p->rep->rows++;
        p->cur_i = s.cur_i;
        long z = -1;
        if (s.cur_i >= 0 && r.zone_slot >= 0 && r.zone_slot < 64)
            z = zslot[r.zone_slot] != -2 ? zslot[r.zone_slot]
                                         : (zslot[r.zone_slot] = row_zone(p, &s, r.zone));
        else if (s.cur_i >= 0)
            z = row_zone(p, &s, r.zone);
        if (z >= 0)
            add_row(p, r.level, r.process_id, row_key_index(p, &r, cache, nkeys), z, r.energy_uj,
                    r.cpu_delta_s, r.flags);
    }
    free(cache);
    if (restart)
        return 1;
    if (rc)
        return rc;
    if (s.cur_i >= 0) {
        close_tick(p, s.cur_i);
        s.next = s.cur_i + 1;
    }
    close_empty(p, s.next, i1);
    return 0;
}

/* Streams every row of the model (rowid order, or tick_id order when
 * ordered); returns as stream_iter. */
static int stream_rows(wc_store *st, int64_t model_id, int ordered, pass *p, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_work_rows_open(st, model_id, ordered, &it, err);
    if (rc)
        return rc;
    rc = stream_iter(it, p, 0, (long)p->tb.n, err);
    wc_store_iter_close(it);
    return rc;
}

/* Resets every total (before a retry in explicit tick order). */
static void reset_totals(pass *p)
{
    for (size_t z = 0; z < p->nz; z++) {
        wc_level_zone *lz = &p->rep->zones[z];
        wc_level_window *w = lz->windows;
        size_t nw = lz->nwindows;
        for (size_t k = 0; k < nw; k++) {
            int64_t a = w[k].start_ns, b = w[k].end_ns;
            memset(&w[k], 0, sizeof w[k]);
            w[k].start_ns = a;
            w[k].end_ns = b;
        }
        double *pj = lz->per_process_j, *pc = lz->per_process_cpu_s, *cj = lz->per_container_j,
               *cc = lz->per_container_cpu_s, *qj = lz->per_pod_j;
        char name[sizeof lz->zone];
        snprintf(name, sizeof name, "%s", lz->zone);
        memset(lz, 0, sizeof *lz);
        snprintf(lz->zone, sizeof lz->zone, "%s", name);
        lz->windows = w;
        lz->nwindows = nw;
        size_t np = (size_t)(p->max_proc_id + 1), nc = p->containers.n ? p->containers.n : 1;
        memset(pj, 0, np * sizeof *pj), memset(pc, 0, np * sizeof *pc);
        memset(cj, 0, nc * sizeof *cj), memset(cc, 0, nc * sizeof *cc);
        memset(qj, 0, (p->pods.n ? p->pods.n : 1) * sizeof *qj);
        lz->per_process_j = pj, lz->per_process_cpu_s = pc;
        lz->per_container_j = cj, lz->per_container_cpu_s = cc, lz->per_pod_j = qj;
    }
    p->rep->negative_share_rows = p->rep->lifetime_delta_rows = p->rep->unlisted_pod_rows = 0;
    p->rep->unlisted_container_rows = 0;
    memset(p->rep->excluded_rows, 0, sizeof p->rep->excluded_rows);
    memset(p->rep->excluded_process, 0, (size_t)(p->max_proc_id + 1));
    memset(p->rep->excluded_container, 0, p->containers.n ? p->containers.n : 1);
    memset(p->rep->excluded_pod, 0, p->pods.n ? p->pods.n : 1);
    memset(p->sum_proc, 0, p->nz * sizeof(double));
    memset(p->sum_cont, 0, p->nz * sizeof(double));
    memset(p->sum_pod, 0, p->nz * sizeof(double));
    memset(p->sum_cont_procs, 0, p->nz * sizeof(double));
    memset(p->sum_vm, 0, p->nz * sizeof(double));
    memset(p->nvm, 0, p->nz * sizeof(uint32_t));
    size_t nc = p->containers.n ? p->containers.n : 1, np = p->pods.n ? p->pods.n : 1;
    memset(p->cont_parent, 0, nc * p->nz * sizeof(double));
    memset(p->cont_child, 0, nc * p->nz * sizeof(double));
    memset(p->cont_nchild, 0, nc * p->nz * sizeof(uint32_t));
    memset(p->cont_touched, 0, nc);
    memset(p->pod_parent, 0, np * p->nz * sizeof(double));
    memset(p->pod_child, 0, np * p->nz * sizeof(double));
    memset(p->pod_nchild, 0, np * p->nz * sizeof(uint32_t));
    memset(p->pod_touched, 0, np);
    p->ntouched_c = p->ntouched_p = 0;
    if (p->pod_tick)
        memset(p->pod_tick, 0, p->pods.n * p->nz * p->tb.n * sizeof *p->pod_tick);
    memset(p->tick_sums, 0, p->tb.n * p->nz * TS_N * sizeof *p->tick_sums);
}

static int walk_all(wc_store *st, int64_t model_id, pass *p, wc_error *err)
{
    int rc = stream_rows(st, model_id, 0, p, err);
    if (rc == 1) {
        reset_totals(p);
        rc = stream_rows(st, model_id, 1, p, err);
    }
    return rc;
}

/* Frees the per-tick scratch of a pass (alloc_scratch). */
static void scratch_free(pass *p)
{
    free(p->sum_proc), free(p->sum_cont), free(p->sum_pod), free(p->sum_cont_procs);
    free(p->sum_vm), free(p->nvm);
    free(p->cont_parent), free(p->cont_child), free(p->pod_parent), free(p->pod_child);
    free(p->cont_nchild), free(p->pod_nchild), free(p->cont_touched), free(p->pod_touched);
    free(p->touched_c), free(p->touched_p);
}

static void pass_free(pass *p)
{
    wc_timebase_free(&p->tb);
    keyset_free(&p->containers);
    keyset_free(&p->pods);
    free(p->proc_container);
    free(p->node_delta), free(p->node_active), free(p->node_idle), free(p->node_flags);
    free(p->node_have);
    free(p->tick_sums);
    free(p->pod_tick);
    scratch_free(p);
}

/* µJ → J (and CPU ns → s) for every total, window and per-workload sum of
 * the report. */
static void to_joules(wc_levels_report *r)
{
    for (size_t i = 0; i < r->nzones; i++) {
        wc_level_zone *z = &r->zones[i];
        double *tot[] = {&z->node_j, &z->idle_j, &z->active_j, &z->process_j, &z->container_j,
                         &z->pod_j, &z->unattr_skipped_j, &z->unattr_missed_j, &z->over_j,
                         &z->containerised_process_j, &z->vm_j};
        for (size_t k = 0; k < sizeof tot / sizeof *tot; k++)
            *tot[k] /= 1e6;
        for (size_t k = 0; k < z->nwindows; k++) {
            wc_level_window *w = &z->windows[k];
            w->node_j /= 1e6, w->idle_j /= 1e6, w->active_j /= 1e6, w->process_j /= 1e6;
            w->container_j /= 1e6, w->pod_j /= 1e6, w->unattributed_j /= 1e6, w->over_j /= 1e6;
            w->vm_j /= 1e6;
        }
        for (int64_t k = 0; k <= r->max_process_id; k++)
            z->per_process_j[k] /= 1e6, z->per_process_cpu_s[k] /= 1e9;
        for (size_t k = 0; k < r->ncontainers; k++)
            z->per_container_j[k] /= 1e6, z->per_container_cpu_s[k] /= 1e9;
        for (size_t k = 0; k < r->npods; k++)
            z->per_pod_j[k] /= 1e6;
    }
}

/* The time base; a window shorter than the sample spacing would only repeat
 * ticks, so it is widened to that spacing. */
static int load_timebase(wc_store *st, pass *p, wc_error *err)
{
    int rc = wc_timebase_load(st, &p->tb, err);
    if (!rc && p->window_ns < p->tb.median_spacing_ns) {
        p->window_ns = p->tb.median_spacing_ns;
        p->rep->window_s = (double)p->window_ns / 1e9;
    }
    return rc;
}

/* Every zone's windows and per-process and per-container totals. */
static int alloc_zone_totals(pass *p, wc_error *err)
{
    size_t nw = p->window_ns > 0 && p->tb.n > 1
                    ? (size_t)((p->tb.mono_ns[p->tb.n - 1] - p->tb.mono_ns[0] + p->window_ns - 1) /
                               p->window_ns)
                    : 0;
    size_t np = (size_t)(p->max_proc_id + 1), nc = p->containers.n ? p->containers.n : 1;
    p->rep->excluded_process = calloc(np, 1);
    p->rep->excluded_container = calloc(nc, 1);
    p->rep->excluded_pod = calloc(p->pods.n ? p->pods.n : 1, 1);
    if (!p->rep->excluded_process || !p->rep->excluded_container || !p->rep->excluded_pod)
        return wc_error_set(err, -ENOMEM, "out of memory");
    for (size_t z = 0; z < p->nz; z++) {
        wc_level_zone *lz = &p->rep->zones[z];
        lz->per_process_j = calloc(np, sizeof(double));
        lz->per_process_cpu_s = calloc(np, sizeof(double));
        lz->per_container_j = calloc(nc, sizeof(double));
        lz->per_container_cpu_s = calloc(nc, sizeof(double));
        lz->per_pod_j = calloc(p->pods.n ? p->pods.n : 1, sizeof(double));
        lz->windows = calloc(nw ? nw : 1, sizeof(wc_level_window));
        if (!lz->windows || !lz->per_process_j || !lz->per_process_cpu_s ||
            !lz->per_container_j || !lz->per_container_cpu_s || !lz->per_pod_j)
            return wc_error_set(err, -ENOMEM, "out of memory");
        lz->nwindows = nw;
        for (size_t k = 0; k < nw; k++) {
            lz->windows[k].start_ns = p->tb.mono_ns[0] + (int64_t)k * p->window_ns;
            lz->windows[k].end_ns = lz->windows[k].start_ns + p->window_ns;
        }
    }
    return 0;
}

/* The per-tick pod series (levels.h pod_tick_uj) when it fits its budget;
 * none is not an error (showback reads the rows). */
static void alloc_pod_series(pass *p)
{
    size_t cells = p->pods.n * p->nz;
    if (!cells || !p->tb.n || cells > WC_LEVELS_POD_SERIES_MAX_BYTES / sizeof(double) / p->tb.n)
        return;
    p->pod_tick = calloc(cells * p->tb.n, sizeof(double));
}

/* The pods in the order a compact run stores one tick's pod rows
 * (levels.h pod_row_order); none (not an error) for a run that keeps the
 * work_attr table, or when a pod row names a pod the pod table lacks. */
static int load_pod_order(wc_store *st, wc_levels_report *r, wc_error *err)
{
    wc_store_iter *it = NULL;
    if (!r->pod_tick_uj || r->unlisted_pod_rows)
        return 0;
    int rc = wc_store_work_keys_open(st, WC_LEVEL_POD, &it, err);
    if (rc)
        return rc == -ENOTSUP ? 0 : rc;
    size_t *order = malloc(r->npods * sizeof *order), n = 0;
    unsigned char *seen = calloc(r->npods, 1);
    const char *key = NULL;
    keyset pods = {.n = r->npods, .key = r->pod_uids};
    while (order && seen && (rc = wc_store_text_next(it, &key, err)) == 1) {
        long q = key_index(&pods, key);
        if (q >= 0 && !seen[q])
            seen[q] = 1, order[n++] = (size_t)q;
    }
    wc_store_iter_close(it);
    for (size_t q = 0; order && seen && !rc && q < r->npods; q++)
        if (!seen[q]) /* no row at all: its series is zero */
            order[n++] = q;
    free(seen);
    if (!rc && order && n == r->npods)
        r->pod_row_order = order;
    else
        free(order);
    return rc < 0 ? rc : 0;
}

/* ---- two connections: the run's ticks in two halves ---------------------
 *
 * A compact run's rows can be read by tick range (primary-key order), so
 * the pass streams the first half of the ticks here while a second thread,
 * on its own read-only connection, streams the second half into invariants
 * and per-workload sums of its own; they are then added (integer µJ and
 * whole CPU ns: the same in any order). Each half writes its own ticks'
 * sums, which add_ticks adds into the totals and windows in tick order, as
 * one pass does. Only when the caller holds a read transaction on a file
 * no recording writes (wc_store_readers_agree: both connections then read
 * the same file). A run that keeps the work_attr table, a short run, a live
 * one, or a thread that cannot start reads in one pass, with the same
 * figures. */

#define SPLIT_MIN_TICKS 64

/* The second half: its pass (sharing the first one's time base, identities
 * and node rows, read only), its own report, and its outcome. */
typedef struct half {
    pass q;
    wc_levels_report rep;
    const wc_store *st;
    int64_t model_id;
    long i0, i1;
    int rc;
    wc_error err;
} half;

/* Streams tick indexes [i0, i1) of a compact run into p. */
static int stream_range(wc_store *st, int64_t model_id, pass *p, long i0, long i1,
                        wc_error *err)
{
    int64_t lo = i0 > 0 ? p->tb.tick_id[i0] : INT64_MIN;
    int64_t hi = (size_t)i1 < p->tb.n ? p->tb.tick_id[i1] : INT64_MAX;
    wc_store_iter *it = NULL;
    int rc = wc_store_work_rows_open_range(st, model_id, lo, hi, &it, err);
    if (rc)
        return rc;
    rc = stream_iter(it, p, i0, i1, err);
    wc_store_iter_close(it);
    if (rc == 1)
        rc = wc_error_set(err, -EIO, "%s: the workload rows of a compact run went back in time"
                          " (a damaged file)", wc_store_path(st));
    return rc;
}

static void *half_main(void *arg)
{
    half *h = arg;
    wc_store *st = wc_store_open_reader(h->st, &h->err);
    h->rc = st ? stream_range(st, h->model_id, &h->q, h->i0, h->i1, &h->err) : -EIO;
    wc_store_close(st);
    return NULL;
}

/* The second half's pass: p's shared parts, its own scratch and totals. */
static int half_init(half *h, const pass *p, wc_error *err)
{
    h->q = *p;
    h->q.rep = &h->rep;
    h->rep.window_s = p->rep->window_s;
    h->rep.nzones = p->rep->nzones;
    for (size_t z = 0; z < p->rep->nzones; z++)
        memcpy(h->rep.zones[z].zone, p->rep->zones[z].zone, sizeof h->rep.zones[z].zone);
    pass *q = &h->q;
    q->sum_proc = q->sum_cont = q->sum_pod = q->sum_cont_procs = q->sum_vm = NULL;
    q->nvm = NULL;
    q->cont_parent = q->cont_child = q->pod_parent = q->pod_child = NULL;
    q->cont_nchild = q->pod_nchild = NULL;
    q->cont_touched = q->pod_touched = NULL;
    q->touched_c = q->touched_p = NULL;
    q->ntouched_c = q->ntouched_p = 0;
    if (alloc_scratch(q))
        return wc_error_set(err, -ENOMEM, "out of memory");
    return alloc_zone_totals(q, err);
}

static void half_free(half *h)
{
    scratch_free(&h->q);
    wc_levels_free(&h->rep);
}

static void sum_into(double *d, const double *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        d[k] += s[k];
}

/* Adds zone s of the second half to zone d (the first half's): the
 * invariants and the per-workload sums (the totals and windows are added
 * from every tick afterwards, add_ticks). */
static void merge_zone(wc_level_zone *d, const wc_level_zone *s, const pass *p)
{
    for (int k = 0; k < WC_INV_COUNT; k++) {
        wc_invariant *a = &d->inv[k];
        const wc_invariant *b = &s->inv[k];
        a->checked += b->checked, a->violated += b->violated;
        if (b->worst_excess_j > a->worst_excess_j) /* the earlier tick wins a tie */
            a->worst_excess_j = b->worst_excess_j, a->worst_tick_id = b->worst_tick_id;
    }
    size_t np = (size_t)(p->max_proc_id + 1), nc = p->containers.n, nq = p->pods.n;
    sum_into(d->per_process_j, s->per_process_j, np);
    sum_into(d->per_process_cpu_s, s->per_process_cpu_s, np);
    sum_into(d->per_container_j, s->per_container_j, nc);
    sum_into(d->per_container_cpu_s, s->per_container_cpu_s, nc);
    sum_into(d->per_pod_j, s->per_pod_j, nq);
}

/* Adds the second half's report to the first's (p->rep). */
static void merge_half(pass *p, const wc_levels_report *s)
{
    wc_levels_report *d = p->rep;
    for (size_t z = 0; z < d->nzones; z++)
        merge_zone(&d->zones[z], &s->zones[z], p);
    d->rows += s->rows, d->negative_share_rows += s->negative_share_rows;
    d->lifetime_delta_rows += s->lifetime_delta_rows;
    d->unlisted_pod_rows += s->unlisted_pod_rows;
    d->unlisted_container_rows += s->unlisted_container_rows;
    for (int k = 0; k < 5; k++)
        d->excluded_rows[k] += s->excluded_rows[k];
    for (int64_t k = 0; k <= p->max_proc_id; k++)
        d->excluded_process[k] |= s->excluded_process[k];
    for (size_t k = 0; k < p->containers.n; k++)
        d->excluded_container[k] |= s->excluded_container[k];
    for (size_t k = 0; k < p->pods.n; k++)
        d->excluded_pod[k] |= s->excluded_pod[k];
}

/* Both halves, the second on a thread; 1 when the run cannot be split (the
 * caller reads it in one pass), else 0 or < 0 with err. */
static int walk_split(wc_store *st, int64_t model_id, pass *p, wc_error *err)
{
    long n = (long)p->tb.n, mid = n / 2;
    wc_store_iter *probe = NULL;
    if (n < SPLIT_MIN_TICKS || !wc_store_readers_agree(st) ||
        wc_store_work_rows_open_range(st, model_id, 0, 0, &probe, NULL) != 0)
        return 1;
    wc_store_iter_close(probe);
    half *h = calloc(1, sizeof *h);
    if (!h)
        return wc_error_set(err, -ENOMEM, "out of memory");
    *h = (half){.st = st, .model_id = model_id, .i0 = mid, .i1 = n};
    int rc = half_init(h, p, err);
    pthread_t t;
    int started = !rc && pthread_create(&t, NULL, half_main, h) == 0;
    if (!rc && !started)
        rc = 1; /* no thread: one pass */
    if (started) {
        rc = stream_range(st, model_id, p, 0, mid, err);
        pthread_join(t, NULL);
        if (!rc && h->rc) {
            rc = h->rc;
            if (err)
                *err = h->err;
        }
        if (!rc)
            merge_half(p, &h->rep);
    }
    half_free(h);
    free(h);
    return rc;
}

/* The identities go with the report, in joules. */
static void hand_over(pass *p, wc_levels_report *out)
{
    out->max_process_id = p->max_proc_id;
    out->ncontainers = p->containers.n;
    out->container_ids = p->containers.key;
    out->container_pod = p->containers.parent;
    out->npods = p->pods.n;
    out->pod_uids = p->pods.key;
    free(p->pods.parent); /* pods have no parent */
    out->pod_tick_uj = p->pod_tick;
    p->pod_tick = NULL;
    out->ntick = p->tb.n;
    out->first_tick_id = p->tb.n ? p->tb.tick_id[0] : 0;
    out->last_tick_id = p->tb.n ? p->tb.tick_id[p->tb.n - 1] : 0;
    memset(&p->containers, 0, sizeof p->containers);
    memset(&p->pods, 0, sizeof p->pods);
    to_joules(out);
}

/* Every VM of the model with its labels (none in a run without VMs). */
static int load_vms(wc_store *st, int64_t model_id, wc_levels_report *out, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_vm_totals_open(st, model_id, &it, err);
    if (rc)
        return rc;
    size_t cap = 0;
    wc_vm_total v;
    while ((rc = wc_store_vm_total_next(it, &v, err)) == 1) {
        if (out->nvms == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            wc_level_vm *n = realloc(out->vms, ncap * sizeof *n);
            if (!n) {
                rc = wc_error_set(err, -ENOMEM, "out of memory reading VMs");
                break;
            }
            out->vms = n;
            cap = ncap;
        }
        wc_level_vm *d = &out->vms[out->nvms++];
        snprintf(d->zone, sizeof d->zone, "%s", v.zone ? v.zone : "");
        snprintf(d->vm_id, sizeof d->vm_id, "%s", v.vm_id ? v.vm_id : "");
        snprintf(d->vm_name, sizeof d->vm_name, "%s", v.vm_name ? v.vm_name : "");
        snprintf(d->hypervisor, sizeof d->hypervisor, "%s", v.hypervisor ? v.hypervisor : "");
        d->joules = v.energy_uj / 1e6;
        d->cpu_s = v.cpu_s;
        d->processes = v.processes;
    }
    wc_store_iter_close(it);
    return rc;
}

int wc_levels_compute(wc_store *st, int64_t model_id, double window_s, wc_levels_report *out,
                      wc_error *err)
{
    memset(out, 0, sizeof *out);
    out->window_s = window_s;
    pass p;
    memset(&p, 0, sizeof p);
    p.rep = out;
    p.window_ns = (int64_t)llround(window_s * 1e9);
    int rc = load_timebase(st, &p, err);
    if (!rc)
        rc = load_node_rows(st, model_id, &p, err);
    if (rc == -ENOENT)
        wc_error_set(err, rc, "the run has no node attribution for this model");
    if (!rc)
        rc = load_identities(st, &p, err);
    if (!rc && alloc_scratch(&p))
        rc = wc_error_set(err, -ENOMEM, "out of memory");
    if (!rc)
        rc = alloc_zone_totals(&p, err);
    if (!rc)
        alloc_pod_series(&p);
    if (!rc && (rc = walk_split(st, model_id, &p, err)) == 1)
        rc = walk_all(st, model_id, &p, err);
    if (!rc)
        add_ticks(&p);
    if (!rc)
        hand_over(&p, out);
    if (!rc)
        rc = load_vms(st, model_id, out, err);
    if (!rc)
        rc = load_pod_order(st, out, err);
    pass_free(&p);
    if (rc) {
        wc_levels_free(out);
        return rc < 0 ? rc : -EIO;
    }
    return 0;
}

const wc_level_zone *wc_levels_zone(const wc_levels_report *r, const char *zone)
{
    for (size_t i = 0; i < r->nzones; i++)
        if (!strcmp(r->zones[i].zone, zone))
            return &r->zones[i];
    return NULL;
}

void wc_levels_free(wc_levels_report *r)
{
    for (size_t i = 0; i < r->nzones; i++) {
        wc_level_zone *z = &r->zones[i];
        free(z->windows);
        free(z->per_process_j), free(z->per_process_cpu_s);
        free(z->per_container_j), free(z->per_container_cpu_s), free(z->per_pod_j);
    }
    keyset c = {.n = r->ncontainers, .key = r->container_ids, .parent = r->container_pod};
    keyset q = {.n = r->npods, .key = r->pod_uids, .parent = NULL};
    keyset_free(&c);
    keyset_free(&q);
    free(r->vms);
    free(r->excluded_process), free(r->excluded_container), free(r->excluded_pod);
    free(r->pod_tick_uj);
    free(r->pod_row_order);
    memset(r, 0, sizeof *r);
}
