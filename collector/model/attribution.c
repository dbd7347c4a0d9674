/*
 * attribution.c — the reference attribution model (see attribution.h).
 *
 * How it fits: the recorder (collector/recorder.c) and the offline replay
 * (collector/model/replay.c) hand one wc_attr_tick_in per tick to wc_attrib_step —
 * raw per-socket zone counters, the cumulative /proc/stat cpu line, every
 * process's cumulative CPU ticks — and store what it returns. Nothing here
 * reads a file or a clock: the same ticks under the same model give the same
 * numbers, bit for bit.
 *
 * The two Kepler models replay Kepler's own code paths (kepler-model.md §1.2,
 * §2.3, §3.1–3.5, §4), float64 for float64 and in the same order, so the last
 * bits match:
 *   internal/monitor/monitor.go        refresh order (calculatePower and
 *                                      firstReading per version); a failed
 *                                      refresh discards the new snapshot
 *   internal/monitor/node.go           firstNodeRead, calculateNodePower,
 *                                      calculateEnergyDelta
 *   internal/device/energy_zone.go     AggregatedZone.Energy: per-socket wrap,
 *                                      running sum modulo Σmax
 *   internal/resource/informer.go      per-pid cache (lifetime first Δ, no
 *                                      start-time check), Σ Δ, container and
 *                                      pod Δ sums
 *   internal/resource/procfs_reader.go CPUUsageRatio (fields / 100 as float64)
 *   internal/monitor/{process,container,pod}.go  shares, skip-and-reset,
 *                                      float64 → uint64 truncation
 * Go's float64 → uint64 conversion on amd64 is emulated without C undefined
 * behaviour (go_f64_to_u64), as is time.Duration.Seconds().
 *
 * The ideal model is wattcal's correction of the same pipeline: per-socket
 * counter intervals through collector/meter/counter.c, (pid, starttime) identity,
 * shares over max(ΣΔ, busy CPU), sums for containers and pods.
 *
 * Memory: everything a step needs is reserved before any state changes, so a
 * step either fails with the state untouched or runs to the end.
 */
#include "collector/model/attribution.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/counter.h"
#include "common/wc_clock.h"

#define NPOS ((size_t)-1)
#define TWO_POW_63 9223372036854775808.0
#define TWO_POW_64 18446744073709551616.0
#define NS_PER_TICK (WC_NS_PER_S / WC_USER_HZ)

/* ---- Go arithmetic ------------------------------------------------------ */

/* amd64 CVTTSD2SQ: float64 → int64 truncating toward zero; NaN or out of
 * range gives the "integer indefinite" INT64_MIN. */
static int64_t amd64_cvttsd2sq(double x)
{
    if (!(x >= -TWO_POW_63 && x < TWO_POW_63))
        return INT64_MIN;
    return (int64_t)x;
}

/* Go's uint64(x) for a float64 on amd64 (cmd/compile floatToUint): below
 * 2^63 the signed conversion, so trunc(−5.5) = −5 becomes 2^64 − 5;
 * above, convert x − 2^63 and set the top bit. */
static uint64_t go_f64_to_u64(double x)
{
    if (x < TWO_POW_63)
        return (uint64_t)amd64_cvttsd2sq(x);
    return (uint64_t)amd64_cvttsd2sq(x - TWO_POW_63) | (UINT64_C(1) << 63);
}

/* Go's time.Duration(ns).Seconds(): whole seconds plus the remainder / 1e9. */
static double go_duration_seconds(int64_t ns)
{
    int64_t sec = ns / WC_NS_PER_S, nsec = ns % WC_NS_PER_S;
    return (double)sec + (double)nsec / 1e9;
}

/* Kepler's calculateEnergyDelta (node.go): any decrease is one wrap when the
 * range is known, else 0. Sets WC_AF_WRAP when a wrap was assumed. */
static uint64_t kepler_energy_delta(uint64_t cur_uj, uint64_t prev_uj, uint64_t max_uj,
                                    unsigned *flags)
{
    if (cur_uj >= prev_uj)
        return cur_uj - prev_uj;
    if (max_uj > 0) {
        *flags |= WC_AF_WRAP;
        return (max_uj - prev_uj) + cur_uj;
    }
    return 0;
}

/* Ideal energy share: trunc toward zero, never negative, saturating. */
static uint64_t ideal_trunc_uj(double x)
{
    if (!(x > 0))
        return 0;
    if (x >= TWO_POW_64)
        return UINT64_MAX;
    return (uint64_t)x;
}

/* ---- allocation helpers -------------------------------------------------- */

/* realloc to n elements of elem bytes (at least one); NULL on overflow/OOM,
 * the old block then stays valid. */
static void *grow(void *p, size_t n, size_t elem)
{
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX / elem)
        return NULL;
    return realloc(p, n * elem);
}

#define GROW_OR_FAIL(p, n)                                                                     \
    do {                                                                                       \
        void *np_ = grow((p), (n), sizeof *(p));                                               \
        if (!np_)                                                                              \
            return -ENOMEM;                                                                    \
        (p) = np_;                                                                             \
    } while (0)

/* a × b into *out; 0, or -ENOMEM when it overflows. */
static int mul_size(size_t a, size_t b, size_t *out)
{
    if (b && a > SIZE_MAX / b)
        return -ENOMEM;
    *out = a * b;
    return 0;
}

/* ---- keyed tables of per-zone running totals ------------------------------ */

/* One process of a table: pid (Kepler key), plus starttime (ideal key). */
typedef struct proc_rec {
    int32_t pid;
    uint64_t start;      /* starttime, ticks since boot */
    uint64_t ticks;      /* ideal: cumulative utime+stime at the last tick */
    double cpu_s;        /* Kepler informer: cached CPUTotalTime, seconds */
} proc_rec;

/* Processes sorted by (pid, start) with nzone totals each (tot_uj[k*nz + z]). */
typedef struct proc_tab {
    proc_rec *rec;
    uint64_t *tot_uj;
    size_t n, cap;
} proc_tab;

/* Strings (container ids, pod uids) sorted by strcmp, with nzone totals each. */
typedef struct str_tab {
    size_t *off;         /* key offsets into pool */
    uint64_t *tot_uj;
    char *pool;
    size_t n, cap, pool_len, pool_cap;
} str_tab;

static int proc_tab_reserve(proc_tab *t, size_t n, size_t nz)
{
    if (n <= t->cap && t->rec)
        return 0;
    size_t ntot;
    if (mul_size(n, nz, &ntot))
        return -ENOMEM;
    GROW_OR_FAIL(t->rec, n);
    GROW_OR_FAIL(t->tot_uj, ntot);
    t->cap = n;
    return 0;
}

static void proc_tab_free(proc_tab *t)
{
    free(t->rec);
    free(t->tot_uj);
}

/* Index of pid (and start when by_start) or NPOS; binary search. */
static size_t proc_tab_find(const proc_tab *t, int32_t pid, uint64_t start, int by_start)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const proc_rec *r = &t->rec[mid];
        int less = r->pid < pid || (r->pid == pid && by_start && r->start < start);
        int more = r->pid > pid || (r->pid == pid && by_start && r->start > start);
        if (less)
            lo = mid + 1;
        else if (more)
            hi = mid;
        else
            return mid;
    }
    return NPOS;
}

static int str_tab_reserve(str_tab *t, size_t n, size_t nz, size_t pool_bytes)
{
    if (n > t->cap || !t->off) {
        size_t ntot;
        if (mul_size(n, nz, &ntot))
            return -ENOMEM;
        GROW_OR_FAIL(t->off, n);
        GROW_OR_FAIL(t->tot_uj, ntot);
        t->cap = n;
    }
    if (pool_bytes > t->pool_cap || !t->pool) {
        GROW_OR_FAIL(t->pool, pool_bytes);
        t->pool_cap = pool_bytes;
    }
    return 0;
}

static void str_tab_free(str_tab *t)
{
    free(t->off);
    free(t->tot_uj);
    free(t->pool);
}

static const char *str_tab_key(const str_tab *t, size_t i)
{
    return t->pool + t->off[i];
}

/* Appends a key (callers push in strcmp order; capacity was reserved). */
static size_t str_tab_push(str_tab *t, const char *key)
{
    size_t len = strlen(key) + 1;
    memcpy(t->pool + t->pool_len, key, len);
    t->off[t->n] = t->pool_len;
    t->pool_len += len;
    return t->n++;
}

static void str_tab_clear(str_tab *t)
{
    t->n = 0;
    t->pool_len = 0;
}

/* Index of key or NPOS; binary search. */
static size_t str_tab_find(const str_tab *t, const char *key)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(str_tab_key(t, mid), key);
        if (c < 0)
            lo = mid + 1;
        else if (c > 0)
            hi = mid;
        else
            return mid;
    }
    return NPOS;
}

static void proc_tab_swap(proc_tab *a, proc_tab *b)
{
    proc_tab t = *a;
    *a = *b;
    *b = t;
}

static void str_tab_swap(str_tab *a, str_tab *b)
{
    str_tab t = *a;
    *a = *b;
    *b = t;
}

/* ---- engine ------------------------------------------------------------- */

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
} scratch;

/* Kepler's meter, informer and last snapshot. */
typedef struct kepler_state {
    /* meter (per input zone = socket) */
    uint64_t *sock_max_uj, *sock_last_uj;
    unsigned char *sock_has_last;
    /* meter (per zone name) */
    uint64_t *max_uj;     /* MaxEnergy(): socket max, or Σmax saturating */
    uint64_t *agg_uj;     /* AggregatedZone.currentEnergy */
    uint64_t *read_uj;    /* this tick's reading */
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
} kepler_state;

/* The ideal model's baselines and totals. */
typedef struct ideal_state {
    uint64_t *base_uj;            /* per socket: last good reading */
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
} ideal_state;

struct wc_attrib {
    wc_model model;
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

const char *wc_model_name(wc_model m)
{
    switch (m) {
    case WC_MODEL_KEPLER_011:
        return "kepler-0.11";
    case WC_MODEL_KEPLER_HEAD:
        return "kepler-head";
    case WC_MODEL_IDEAL:
        return "ideal";
    }
    return "unknown";
}

int wc_model_parse(const char *name, wc_model *out)
{
    static const wc_model all[] = {WC_MODEL_KEPLER_011, WC_MODEL_KEPLER_HEAD, WC_MODEL_IDEAL};
    for (size_t i = 0; name && i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(name, wc_model_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    }
    return -EINVAL;
}

wc_attrib *wc_attrib_new(wc_model model)
{
    if (model != WC_MODEL_KEPLER_011 && model != WC_MODEL_KEPLER_HEAD && model != WC_MODEL_IDEAL)
        return NULL;
    wc_attrib *a = calloc(1, sizeof *a);
    if (a)
        a->model = model;
    return a;
}

static void scratch_free(scratch *s)
{
    void *p[] = {s->pk,    s->ord,     s->d_s,     s->d_ticks, s->pflags,  (void *)s->ckey,
                 (void *)s->pkey, s->kidx, s->prov, s->map,     s->cgrp,    s->cfirst,
                 s->csorted, s->cd_s,   s->cflags,  (void *)s->cpod, s->pgrp, s->pfirst,
                 s->psorted, s->pd_s,   s->podflags, s->g_ticks};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
}

/* Frees what the zone layout sized (groups, per-zone and per-socket state)
 * and forgets the layout. */
static void layout_release(wc_attrib *a)
{
    for (size_t z = 0; a->zone_sock && z < a->nzone; z++)
        free(a->zone_sock[z]);
    void *p[] = {a->zone_sock,       a->zone_nsock,        a->sock_name,
                 a->zflags,          a->node,              a->k.sock_max_uj,     a->k.sock_last_uj,
                 a->k.sock_has_last, a->k.max_uj,          a->k.agg_uj,          a->k.read_uj,
                 a->k.pending,       a->k.snap_counter_uj, a->k.snap_active_uj, a->k.snap_idle_uj,
                 a->i.base_uj,       a->i.has_base,        a->i.counter_uj,      a->i.active_total_uj,
                 a->i.idle_total_uj, a->i.attributable,    a->i.base_mono_ns};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
    a->zone_sock = NULL;
    a->zone_nsock = NULL;
    a->sock_name = NULL;
    a->zflags = NULL;
    a->node = NULL;
    a->k.sock_max_uj = a->k.sock_last_uj = a->k.max_uj = a->k.agg_uj = a->k.read_uj = NULL;
    a->k.snap_counter_uj = a->k.snap_active_uj = a->k.snap_idle_uj = NULL;
    a->k.sock_has_last = NULL;
    a->k.pending = NULL;
    a->i.base_uj = a->i.counter_uj = a->i.active_total_uj = a->i.idle_total_uj = NULL;
    a->i.has_base = a->i.attributable = NULL;
    a->i.base_mono_ns = NULL;
    a->nzone = a->nsock = 0;
    a->have_layout = 0;
}

void wc_attrib_free(wc_attrib *a)
{
    if (!a)
        return;
    layout_release(a);
    free(a->work);
    scratch_free(&a->s);
    kepler_state *k = &a->k;
    proc_tab_free(&k->cache);
    proc_tab_free(&k->cache_next);
    proc_tab_free(&k->procs);
    proc_tab_free(&k->procs_next);
    str_tab_free(&k->cont);
    str_tab_free(&k->cont_next);
    str_tab_free(&k->pod);
    str_tab_free(&k->pod_next);
    ideal_state *i = &a->i;
    proc_tab_free(&i->procs);
    proc_tab_free(&i->procs_next);
    str_tab_free(&i->cont);
    str_tab_free(&i->cont_next);
    str_tab_free(&i->pod);
    str_tab_free(&i->pod_next);
    free(a);
}

/* ---- tick checks and layout ------------------------------------------------ */

static const char *str_or_empty(const char *s)
{
    return s ? s : "";
}

/* Checks what can be checked without allocating. */
static int check_tick(const wc_attrib *a, const wc_attr_tick_in *t, wc_error *err)
{
    if ((t->nzones && !t->zones) || (t->nprocs && !t->procs))
        return wc_error_set(err, -EINVAL, "attribution: tick has %zu zones / %zu processes but a "
                            "NULL array", t->nzones, t->nprocs);
    if (a->have_mono && t->mono_ns <= a->last_mono_ns)
        return wc_error_set(err, -EINVAL, "attribution: tick mono_ns %lld is not after the "
                            "previous tick's %lld; ticks must be fed in recording order",
                            (long long)t->mono_ns, (long long)a->last_mono_ns);
    for (size_t i = 0; i < t->nzones; i++) {
        const char *name = t->zones[i].name;
        if (!name || strlen(name) >= WC_ATTR_ZONE_NAME_MAX)
            return wc_error_set(err, -EINVAL, "attribution: zone %zu has no name or a name "
                                "longer than %d bytes", i, WC_ATTR_ZONE_NAME_MAX - 1);
    }
    if (!a->have_layout)
        return 0;
    if (t->nzones != a->nsock)
        return wc_error_set(err, -EINVAL, "attribution: the tick has %zu zones, the first tick "
                            "had %zu; the zone list must not change during a run",
                            t->nzones, a->nsock);
    for (size_t i = 0; i < t->nzones; i++)
        if (strcmp(t->zones[i].name, a->sock_name[i]) != 0)
            return wc_error_set(err, -EINVAL, "attribution: zone %zu is \"%s\", the first tick "
                                "had \"%s\"; the zone list must not change during a run", i,
                                t->zones[i].name, a->sock_name[i]);
    return 0;
}

/* Groups the first tick's zones by name (first appearance order). */
static int layout_groups(wc_attrib *a, const wc_attr_tick_in *t)
{
    size_t n = t->nzones;
    GROW_OR_FAIL(a->sock_name, n);
    GROW_OR_FAIL(a->zone_nsock, n);
    a->zone_sock = calloc(n ? n : 1, sizeof *a->zone_sock);
    if (!a->zone_sock)
        return -ENOMEM;
    a->nsock = n;
    a->nzone = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(a->sock_name[i], t->zones[i].name, strlen(t->zones[i].name) + 1);
        size_t z = 0;
        while (z < a->nzone && strcmp(a->sock_name[a->zone_sock[z][0]], a->sock_name[i]) != 0)
            z++;
        if (z == a->nzone) {
            a->zone_sock[z] = calloc(n, sizeof **a->zone_sock);
            if (!a->zone_sock[z])
                return -ENOMEM;
            a->zone_nsock[z] = 0;
            a->nzone++;
        }
        a->zone_sock[z][a->zone_nsock[z]++] = i;
    }
    return 0;
}

/* Kepler's MaxEnergy() per zone name: the socket's range, or for an
 * AggregatedZone the sum of its sockets' ranges, saturating at 2^64−1 the way
 * NewAggregatedZone does. Read once, at discovery (the first tick). */
static void kepler_discover_max(wc_attrib *a, const wc_attr_tick_in *t)
{
    for (size_t i = 0; i < a->nsock; i++)
        a->k.sock_max_uj[i] = t->zones[i].max_energy_range_uj;
    for (size_t z = 0; z < a->nzone; z++) {
        uint64_t total = 0;
        for (size_t j = 0; j < a->zone_nsock[z]; j++) {
            uint64_t m = a->k.sock_max_uj[a->zone_sock[z][j]];
            if (total > 0 && m > UINT64_MAX - total) {
                total = UINT64_MAX;
                break;
            }
            total += m;
        }
        a->k.max_uj[z] = total;
    }
}

/* Per-zone and per-socket arrays of both the model's state and the outputs. */
static int layout_arrays(wc_attrib *a)
{
    size_t ns = a->nsock ? a->nsock : 1, nz = a->nzone ? a->nzone : 1;
    a->zflags = calloc(nz, sizeof *a->zflags);
    a->node = calloc(nz, sizeof *a->node);
    if (!a->zflags || !a->node)
        return -ENOMEM;
    if (a->model == WC_MODEL_IDEAL) {
        ideal_state *i = &a->i;
        i->base_uj = calloc(ns, sizeof *i->base_uj);
        i->base_mono_ns = calloc(ns, sizeof *i->base_mono_ns);
        i->has_base = calloc(ns, sizeof *i->has_base);
        i->counter_uj = calloc(nz, sizeof *i->counter_uj);
        i->active_total_uj = calloc(nz, sizeof *i->active_total_uj);
        i->idle_total_uj = calloc(nz, sizeof *i->idle_total_uj);
        i->attributable = calloc(nz, sizeof *i->attributable);
        return i->base_uj && i->base_mono_ns && i->has_base && i->counter_uj &&
                       i->active_total_uj && i->idle_total_uj && i->attributable
                   ? 0
                   : -ENOMEM;
    }
    kepler_state *k = &a->k;
    k->sock_max_uj = calloc(ns, sizeof *k->sock_max_uj);
    k->sock_last_uj = calloc(ns, sizeof *k->sock_last_uj);
    k->sock_has_last = calloc(ns, sizeof *k->sock_has_last);
    k->max_uj = calloc(nz, sizeof *k->max_uj);
    k->agg_uj = calloc(nz, sizeof *k->agg_uj);
    k->read_uj = calloc(nz, sizeof *k->read_uj);
    k->pending = calloc(nz, sizeof *k->pending);
    k->snap_counter_uj = calloc(nz, sizeof *k->snap_counter_uj);
    k->snap_active_uj = calloc(nz, sizeof *k->snap_active_uj);
    k->snap_idle_uj = calloc(nz, sizeof *k->snap_idle_uj);
    return k->sock_max_uj && k->sock_last_uj && k->sock_has_last && k->max_uj && k->agg_uj &&
                   k->read_uj && k->pending && k->snap_counter_uj && k->snap_active_uj &&
                   k->snap_idle_uj
               ? 0
               : -ENOMEM;
}

/* Learns the zone layout from the first tick. */
static int layout_init(wc_attrib *a, const wc_attr_tick_in *t, wc_error *err)
{
    layout_release(a);
    int rc = layout_groups(a, t);
    if (!rc)
        rc = layout_arrays(a);
    if (rc) {
        layout_release(a);
        return wc_error_set(err, rc, "attribution: out of memory");
    }
    for (size_t z = 0; z < a->nzone; z++)
        memcpy(a->node[z].zone, a->sock_name[a->zone_sock[z][0]], WC_ATTR_ZONE_NAME_MAX);
    if (a->model != WC_MODEL_IDEAL)
        kepler_discover_max(a, t);
    a->have_layout = 1;
    return 0;
}

/* ---- per-tick preparation ---------------------------------------------------- */

static int scratch_reserve(scratch *s, size_t n)
{
    if (n <= s->cap && s->pk)
        return 0;
    GROW_OR_FAIL(s->pk, n);
    GROW_OR_FAIL(s->ord, n);
    GROW_OR_FAIL(s->d_s, n);
    GROW_OR_FAIL(s->d_ticks, n);
    GROW_OR_FAIL(s->pflags, n);
    GROW_OR_FAIL(s->ckey, n);
    GROW_OR_FAIL(s->pkey, n);
    GROW_OR_FAIL(s->kidx, n);
    GROW_OR_FAIL(s->prov, n);
    GROW_OR_FAIL(s->map, n);
    GROW_OR_FAIL(s->cgrp, n);
    GROW_OR_FAIL(s->cfirst, n);
    GROW_OR_FAIL(s->csorted, n);
    GROW_OR_FAIL(s->cd_s, n);
    GROW_OR_FAIL(s->cflags, n);
    GROW_OR_FAIL(s->cpod, n);
    GROW_OR_FAIL(s->pgrp, n);
    GROW_OR_FAIL(s->pfirst, n);
    GROW_OR_FAIL(s->psorted, n);
    GROW_OR_FAIL(s->pd_s, n);
    GROW_OR_FAIL(s->podflags, n);
    GROW_OR_FAIL(s->g_ticks, n);
    s->cap = n;
    return 0;
}

/* Rows: at most (processes + containers + pods) × zones = 3n × zones. */
static int work_reserve(wc_attrib *a, size_t n)
{
    size_t rows;
    if (mul_size(n, 3, &rows) || mul_size(rows, a->nzone, &rows))
        return -ENOMEM;
    if (rows <= a->work_cap && a->work)
        return 0;
    GROW_OR_FAIL(a->work, rows);
    a->work_cap = rows;
    return 0;
}

/* Reserves the tables the step will build (next snapshot, next cache). */
static int tables_reserve(wc_attrib *a, const wc_attr_tick_in *t)
{
    size_t n = t->nprocs, nz = a->nzone, cbytes = 1, pbytes = 1;
    for (size_t i = 0; i < n; i++) {
        cbytes += strlen(str_or_empty(t->procs[i].container_id)) + 1;
        pbytes += strlen(str_or_empty(t->procs[i].pod_uid)) + 1;
    }
    proc_tab *pn = a->model == WC_MODEL_IDEAL ? &a->i.procs_next : &a->k.procs_next;
    str_tab *cn = a->model == WC_MODEL_IDEAL ? &a->i.cont_next : &a->k.cont_next;
    str_tab *dn = a->model == WC_MODEL_IDEAL ? &a->i.pod_next : &a->k.pod_next;
    int rc = proc_tab_reserve(pn, n, nz);
    if (!rc)
        rc = str_tab_reserve(cn, n, nz, cbytes);
    if (!rc)
        rc = str_tab_reserve(dn, n, nz, pbytes);
    if (!rc && a->model != WC_MODEL_IDEAL)
        rc = proc_tab_reserve(&a->k.cache_next, n, 0);
    return rc;
}

static int cmp_pid_idx(const void *pa, const void *pb)
{
    const pid_idx *x = pa, *y = pb;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Sorts the tick's processes by (pid, starttime) into s->ord and rejects a
 * pid seen twice; fills the per-process grouping keys. */
static int order_procs(wc_attrib *a, const wc_attr_tick_in *t, wc_error *err)
{
    scratch *s = &a->s;
    for (size_t i = 0; i < t->nprocs; i++) {
        s->pk[i] = (pid_idx){t->procs[i].pid, t->procs[i].starttime, i};
        s->ckey[i] = str_or_empty(t->procs[i].container_id);
        s->pkey[i] = str_or_empty(t->procs[i].pod_uid);
    }
    qsort(s->pk, t->nprocs, sizeof *s->pk, cmp_pid_idx);
    for (size_t j = 0; j < t->nprocs; j++) {
        if (j > 0 && s->pk[j].pid == s->pk[j - 1].pid)
            return wc_error_set(err, -EINVAL, "attribution: pid %d appears twice in one tick",
                                (int)s->pk[j].pid);
        s->ord[j] = s->pk[j].idx;
    }
    return 0;
}

/* Everything that can refuse a tick, before any state changes: the checks,
 * the process order (a pid seen twice), the zone layout on the first tick,
 * and all the memory the step will use. */
static int prepare(wc_attrib *a, const wc_attr_tick_in *t, wc_error *err)
{
    int rc = check_tick(a, t, err);
    if (rc)
        return rc;
    rc = scratch_reserve(&a->s, t->nprocs);
    if (rc)
        return wc_error_set(err, rc, "attribution: out of memory for %zu processes", t->nprocs);
    rc = order_procs(a, t, err);
    if (!rc && !a->have_layout)
        rc = layout_init(a, t, err);
    if (rc)
        return rc;
    rc = work_reserve(a, t->nprocs);
    if (!rc)
        rc = tables_reserve(a, t);
    if (rc)
        return wc_error_set(err, rc, "attribution: out of memory for %zu processes", t->nprocs);
    return 0;
}

/* ---- grouping ---------------------------------------------------------------- */

static int cmp_key_idx(const void *pa, const void *pb)
{
    const key_idx *x = pa, *y = pb;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Groups items 0..n−1 by key[i] ("" = no group). Group ids follow first
 * appearance: grp[i] is the item's group or NPOS, first[g] the group's first
 * item, sorted[j] the group ids in strcmp order of their keys. Returns the
 * number of groups. */
static size_t group_by_key(scratch *s, const char **key, size_t n, size_t *grp,
                           size_t *first, size_t *sorted)
{
    size_t m = 0, nrun = 0, ng = 0;
    for (size_t i = 0; i < n; i++)
        if (key[i][0])
            s->kidx[m++] = (key_idx){key[i], i};
    qsort(s->kidx, m, sizeof *s->kidx, cmp_key_idx);
    for (size_t j = 0; j < m; j++) {
        if (j == 0 || strcmp(s->kidx[j].key, s->kidx[j - 1].key) != 0)
            s->map[nrun++] = NPOS;
        s->prov[s->kidx[j].idx] = nrun - 1;
    }
    for (size_t i = 0; i < n; i++) {
        grp[i] = NPOS;
        if (!key[i][0])
            continue;
        size_t r = s->prov[i];
        if (s->map[r] == NPOS) {
            s->map[r] = ng;
            first[ng++] = i;
        }
        grp[i] = s->map[r];
    }
    for (size_t r = 0; r < nrun; r++)
        sorted[r] = s->map[r];
    return ng;
}

/* Containers: every process with a container_id. */
static void group_containers(scratch *s, size_t n)
{
    s->ncont = group_by_key(s, s->ckey, n, s->cgrp, s->cfirst, s->csorted);
}

/* ---- output helpers -------------------------------------------------------- */

/* Clears the numbers of every node output (names stay). */
static void node_reset(wc_attrib *a)
{
    for (size_t z = 0; z < a->nzone; z++) {
        wc_attr_node_out *n = &a->node[z];
        char name[WC_ATTR_ZONE_NAME_MAX];
        memcpy(name, n->zone, sizeof name);
        memset(n, 0, sizeof *n);
        memcpy(n->zone, name, sizeof name);
    }
}

/* Starts a zeroed workload row. */
static wc_attr_work_out *row_init(wc_attrib *a, size_t r, wc_attr_level level, size_t proc_index,
                                  const char *key, size_t zone, double cpu_delta_s)
{
    wc_attr_work_out *w = &a->work[r];
    memset(w, 0, sizeof *w);
    w->level = level;
    w->proc_index = proc_index;
    w->key = key;
    w->zone = zone;
    w->cpu_delta_s = cpu_delta_s;
    return w;
}

/* Busy and total ticks of the eight fields between two samples (busy =
 * total − Δidle − Δiowait); returns 0 when a field went backwards (no usable
 * interval). With clamp_iowait a decreasing iowait — proc(5): "the iowait
 * field in /proc/stat can decrease in certain conditions" — counts as Δ 0
 * and the interval stays usable (ideal); without it (the Kepler models'
 * node_busy_s diagnostic) it makes the interval unusable like any field. */
static int cpu_interval(const wc_cpu_times *prev, const wc_cpu_times *cur, int clamp_iowait,
                        uint64_t *busy, uint64_t *total)
{
    const uint64_t p[8] = {prev->user, prev->nice,   prev->system,  prev->idle,
                           prev->iowait, prev->irq, prev->softirq, prev->steal};
    const uint64_t c[8] = {cur->user, cur->nice,   cur->system,  cur->idle,
                           cur->iowait, cur->irq, cur->softirq, cur->steal};
    uint64_t d[8], sum = 0;
    for (int f = 0; f < 8; f++) {
        if (c[f] < p[f] && !(clamp_iowait && f == 4))
            return 0;
        d[f] = c[f] < p[f] ? 0 : c[f] - p[f];
        sum += d[f];
    }
    *total = sum;
    *busy = sum - d[3] - d[4];
    return 1;
}

/* Emits zeroed rows for one workload, one per zone; returns the next row. */
static size_t rows_start(wc_attrib *a, size_t r, wc_attr_level level, size_t proc_index,
                         const char *key, double cpu_delta_s, unsigned flags,
                         const uint64_t *prev_tot_uj)
{
    for (size_t z = 0; z < a->nzone; z++) {
        wc_attr_work_out *w = row_init(a, r + z, level, proc_index, key, z, cpu_delta_s);
        w->flags = flags;
        w->total_uj = prev_tot_uj ? prev_tot_uj[z] : 0;
    }
    return r + a->nzone;
}

/* Stores the totals of ng workloads (their rows start at rows, nzone each)
 * into next in key order, ready to become the previous snapshot. */
static void commit_str(str_tab *next, const wc_attr_work_out *rows, const size_t *sorted,
                       size_t ng, size_t nz)
{
    str_tab_clear(next);
    if (nz == 0)
        return;
    for (size_t j = 0; j < ng; j++) {
        const wc_attr_work_out *w = rows + sorted[j] * nz;
        size_t k = str_tab_push(next, w->key);
        for (size_t z = 0; z < nz; z++)
            next->tot_uj[k * nz + z] = w[z].total_uj;
    }
}

/* The tick's workloads and their totals become the previous snapshot. */
static void commit_tables(wc_attrib *a, const wc_attr_tick_in *t, proc_tab *procs,
                          proc_tab *pnext, str_tab *cont, str_tab *cnext, str_tab *pod,
                          str_tab *dnext)
{
    const scratch *s = &a->s;
    size_t n = t->nprocs, nz = a->nzone;
    for (size_t j = 0; j < n; j++) {
        size_t i = s->ord[j];
        const wc_attr_proc_in *p = &t->procs[i];
        pnext->rec[j] = (proc_rec){p->pid, p->starttime, p->cpu_ticks, 0.0};
        for (size_t z = 0; z < nz; z++)
            pnext->tot_uj[j * nz + z] = a->work[i * nz + z].total_uj;
    }
    pnext->n = n;
    proc_tab_swap(procs, pnext);
    commit_str(cnext, a->work + n * nz, s->csorted, s->ncont, nz);
    str_tab_swap(cont, cnext);
    commit_str(dnext, a->work + (n + s->ncont) * nz, s->psorted, s->npod, nz);
    str_tab_swap(pod, dnext);
}

/* ---- Kepler: informer ---------------------------------------------------------- */

/* procfs CPUStat of the aggregate line: every field parsed as float64 and
 * divided by USER_HZ (procfs stat.go parseCPUStat). */
static void kepler_cpustat(const wc_cpu_times *c, double f[10])
{
    const uint64_t v[10] = {c->user,    c->nice,    c->system, c->idle,  c->iowait,
                            c->irq,     c->softirq, c->steal,  c->guest, c->guest_nice};
    for (int i = 0; i < 10; i++)
        f[i] = (double)v[i] / WC_USER_HZ;
}

/* Kepler's CPUUsageRatio (procfs_reader.go): 0 on the first call (previous
 * CPUStat all zero), else active/total over the eight fields, float64
 * differences summed in Kepler's order. Stores cur as the next previous. */
static double kepler_usage_ratio(double prev[10], const wc_cpu_times *cur)
{
    double c[10], p[10];
    int first = 1;
    kepler_cpustat(cur, c);
    for (int i = 0; i < 10; i++)
        first &= prev[i] == 0;
    memcpy(p, prev, sizeof p);
    memcpy(prev, c, sizeof c);
    if (first)
        return 0;
    double d_user = c[0] - p[0], d_nice = c[1] - p[1], d_system = c[2] - p[2];
    double d_idle = c[3] - p[3], d_iowait = c[4] - p[4], d_irq = c[5] - p[5];
    double d_softirq = c[6] - p[6], d_steal = c[7] - p[7];
    double total = d_user + d_nice + d_system + d_idle + d_iowait + d_irq + d_softirq + d_steal;
    if (total == 0)
        return 0;
    double active = total - (d_idle + d_iowait);
    return active / total;
}

/* Kepler's informer Refresh() (informer.go): per-pid Δ against a cache keyed
 * by pid only — the whole lifetime on first sight, negative on PID reuse —
 * the cache replaced by this tick's pids (terminated ones dropped), then
 * refreshNode: D = Σ Δ in scan order and the usage ratio. Returns 1 when
 * /proc/stat was unreadable: the process cache has already moved on but the
 * ratio, D and the previous CPUStat keep their old values, as Kepler's. */
static int kepler_refresh(wc_attrib *a, const wc_attr_tick_in *t)
{
    kepler_state *k = &a->k;
    scratch *s = &a->s;
    for (size_t i = 0; i < t->nprocs; i++) {
        const wc_attr_proc_in *p = &t->procs[i];
        double cpu_s = (double)p->cpu_ticks / WC_USER_HZ;
        size_t j = proc_tab_find(&k->cache, p->pid, 0, 0);
        s->d_s[i] = cpu_s - (j == NPOS ? 0.0 : k->cache.rec[j].cpu_s);
        s->pflags[i] = (j == NPOS ? WC_AF_LIFETIME_DELTA : 0u) |
                       (s->d_s[i] < 0 ? WC_AF_NEGATIVE_SHARE : 0u);
    }
    proc_tab *next = &k->cache_next;
    for (size_t j = 0; j < t->nprocs; j++) {
        const wc_attr_proc_in *p = &t->procs[s->ord[j]];
        next->rec[j] = (proc_rec){p->pid, 0, 0, (double)p->cpu_ticks / WC_USER_HZ};
    }
    next->n = t->nprocs;
    proc_tab_swap(&k->cache, next);
    if (!t->cpu_ok)
        return 1;
    double d_sum_s = 0.0;
    for (size_t i = 0; i < t->nprocs; i++)
        d_sum_s += s->d_s[i];
    k->d_sum_s = d_sum_s;
    k->ratio = kepler_usage_ratio(k->prev_stat, &t->cpu);
    uint64_t busy = 0, total = 0;
    int have = k->have_prev_cpu && cpu_interval(&k->prev_cpu, &t->cpu, 0, &busy, &total);
    k->busy_s = have ? (double)busy / WC_USER_HZ : 0.0;
    k->prev_cpu = t->cpu;
    k->have_prev_cpu = 1;
    return 0;
}

/* Container Δ = Σ Δ of its running processes in scan order, its pod the
 * first pod uid among them; pod Δ = Σ Δ of its containers (informer.go
 * refreshContainers, refreshPods). Runtime monitors (container_id "") are in
 * no container and therefore in no pod. */
static void kepler_group(wc_attrib *a, size_t n)
{
    scratch *s = &a->s;
    group_containers(s, n);
    for (size_t c = 0; c < s->ncont; c++) {
        s->cd_s[c] = 0.0;
        s->cflags[c] = 0;
        s->cpod[c] = "";
    }
    for (size_t i = 0; i < n; i++) {
        size_t c = s->cgrp[i];
        if (c == NPOS)
            continue;
        s->cd_s[c] += s->d_s[i];
        s->cflags[c] |= s->pflags[i] & WC_AF_LIFETIME_DELTA;
        if (!s->cpod[c][0])
            s->cpod[c] = s->pkey[i];
    }
    s->npod = group_by_key(s, s->cpod, s->ncont, s->pgrp, s->pfirst, s->psorted);
    for (size_t p = 0; p < s->npod; p++) {
        s->pd_s[p] = 0.0;
        s->podflags[p] = 0;
    }
    for (size_t c = 0; c < s->ncont; c++) {
        size_t p = s->pgrp[c];
        if (p == NPOS)
            continue;
        s->pd_s[p] += s->cd_s[c];
        s->podflags[p] |= s->cflags[c];
    }
}

/* ---- Kepler: meter and node ------------------------------------------------------ */

/* WC_AF_RATIO_RANGE when Kepler's unclamped usage ratio left [0,1] (a
 * /proc/stat counter went backwards, §3.1): activeE = uint64(ΔE × r) then
 * exceeds ΔE (r > 1) or wraps to ≈2^64 (r < 0), and idleE = ΔE − activeE
 * underflows. The numbers stay Kepler's; the flag says they are meaningless. */
static unsigned kepler_ratio_flag(double ratio)
{
    return ratio >= 0.0 && ratio <= 1.0 ? 0u : WC_AF_RATIO_RANGE;
}

/* AggregatedZone.Energy() (energy_zone.go): per socket Δ with that socket's
 * wrap (uint64 subtraction when its range is 0), a first reading counting
 * whole; the running sum modulo Σmax. An unreadable socket aborts the read
 * after earlier sockets already moved their last reading, so their energy is
 * lost, as in Kepler. Returns 0 or -1. */
static int kepler_read_aggregated(wc_attrib *a, const wc_attr_tick_in *t, size_t z)
{
    kepler_state *k = &a->k;
    uint64_t total = 0;
    for (size_t j = 0; j < a->zone_nsock[z]; j++) {
        size_t s = a->zone_sock[z][j];
        const wc_attr_zone_in *in = &t->zones[s];
        if (!in->ok)
            return -1;
        uint64_t cur = in->energy_uj, last = k->sock_last_uj[s], max = k->sock_max_uj[s];
        if (!k->sock_has_last[s]) {
            total += cur;
        } else if (cur >= last) {
            total += cur - last;
        } else {
            k->pending[z] |= WC_AF_WRAP;
            total += max > 0 ? (max - last) + cur : cur - last;
        }
        k->sock_last_uj[s] = cur;
        k->sock_has_last[s] = 1;
    }
    k->agg_uj[z] += total;
    if (k->max_uj[z] > 0)
        k->agg_uj[z] %= k->max_uj[z];
    k->read_uj[z] = k->agg_uj[z];
    return 0;
}

/* Reads every zone as Kepler's node step does (all of them, even after one
 * failed). A zone fails when a socket is unreadable, or when Kepler would
 * take it for a power gauge (range 0 and reading 0, node.go) and RAPL has no
 * Power(). Failed zones get WC_AF_ZONE_MISSING; returns how many failed. */
static size_t kepler_read_zones(wc_attrib *a, const wc_attr_tick_in *t)
{
    kepler_state *k = &a->k;
    size_t failed = 0;
    for (size_t z = 0; z < a->nzone; z++) {
        int rc;
        if (a->zone_nsock[z] == 1) {
            const wc_attr_zone_in *in = &t->zones[a->zone_sock[z][0]];
            rc = in->ok ? 0 : -1;
            if (!rc)
                k->read_uj[z] = in->energy_uj;
        } else {
            rc = kepler_read_aggregated(a, t, z);
        }
        if (!rc && !(k->max_uj[z] > 0 || k->read_uj[z] > 0))
            rc = -1;
        if (rc) {
            a->zflags[z] |= WC_AF_ZONE_MISSING;
            failed++;
        }
    }
    return failed;
}

/* Kepler's firstNodeRead (node.go): totals start at the counter, active at
 * trunc(E × r) with the informer's current ratio (0: never refreshed), all
 * powers 0. */
static void kepler_node_first(wc_attrib *a, double ratio)
{
    kepler_state *k = &a->k;
    for (size_t z = 0; z < a->nzone; z++) {
        wc_attr_node_out *n = &a->node[z];
        uint64_t e = k->read_uj[z], act = go_f64_to_u64((double)e * ratio);
        n->flags = a->zflags[z] | k->pending[z] | WC_AF_FIRST | kepler_ratio_flag(ratio);
        k->pending[z] = 0;
        n->ratio = ratio;
        n->counter_uj = e;
        n->active_total_uj = act;
        n->idle_total_uj = e - act;
    }
}

/* Kepler's calculateNodePower (node.go) for one energy zone: ΔE with the
 * any-decrease-is-a-wrap rule, P = ΔE/Δt, activeE = uint64(ΔE × r). Flags the
 * zone SKIPPED|TOTALS_RESET when the process pass will skip it, RATIO_RANGE
 * when r is outside [0,1]. */
static void kepler_node_zone(wc_attrib *a, size_t z, double ratio, double dt_s)
{
    kepler_state *k = &a->k;
    wc_attr_node_out *n = &a->node[z];
    n->flags = a->zflags[z] | k->pending[z] | kepler_ratio_flag(ratio);
    k->pending[z] = 0;
    n->ratio = ratio;
    n->interval_s = dt_s;
    n->counter_uj = k->read_uj[z];
    n->delta_uj = kepler_energy_delta(k->read_uj[z], k->snap_counter_uj[z], k->max_uj[z],
                                      &n->flags);
    n->power_uw = (double)n->delta_uj / dt_s;
    n->active_uj = go_f64_to_u64((double)n->delta_uj * ratio);
    n->idle_uj = n->delta_uj - n->active_uj;
    n->active_uw = n->power_uw * ratio;
    n->idle_uw = n->power_uw - n->active_uw;
    n->active_total_uj = k->snap_active_uj[z] + n->active_uj;
    n->idle_total_uj = k->snap_idle_uj[z] + n->idle_uj;
    if (n->active_uw == 0 || n->active_uj == 0 || k->d_sum_s == 0)
        n->flags |= WC_AF_SKIPPED | WC_AF_TOTALS_RESET;
}

/* ---- Kepler: workloads ------------------------------------------------------------ */

/* One Kepler share (process.go, container.go, pod.go): skip — and with it
 * reset the total to 0 — when the zone has no active power (pods: no power),
 * no active energy, or D is 0; else ratio = Δ/D unclamped, energy
 * uint64(ratio × activeE) (pods multiply the other way round, same result)
 * added to the previous snapshot's total, power ratio × activeP. */
static void kepler_share(wc_attr_work_out *w, const wc_attr_node_out *n, double d_sum_s,
                         int pod_rule)
{
    int skip = (pod_rule ? n->power_uw == 0 : n->active_uw == 0) || n->active_uj == 0 ||
               d_sum_s == 0;
    if (skip) {
        w->total_uj = 0;
        w->flags |= WC_AF_SKIPPED | WC_AF_TOTALS_RESET;
        return;
    }
    double ratio = w->cpu_delta_s / d_sum_s;
    w->energy_uj = pod_rule ? go_f64_to_u64((double)n->active_uj * ratio)
                            : go_f64_to_u64(ratio * (double)n->active_uj);
    w->total_uj += w->energy_uj;
    w->power_uw = ratio * n->active_uw;
    if (ratio < 0 || w->cpu_delta_s < 0)
        w->flags |= WC_AF_NEGATIVE_SHARE;
}

/* Rows of one Kepler workload: on the first refresh all zero (Kepler's first
 * pass always skips: no active power yet), else one share per zone. */
static size_t kepler_rows_of(wc_attrib *a, size_t r, wc_attr_level level, size_t proc_index,
                             const char *key, double d_s, unsigned flags,
                             const uint64_t *prev_tot_uj, int first)
{
    if (first)
        return rows_start(a, r, level, proc_index, key, d_s, flags | WC_AF_FIRST, NULL);
    size_t end = rows_start(a, r, level, proc_index, key, d_s, flags, prev_tot_uj);
    for (size_t z = 0; z < a->nzone; z++)
        kepler_share(&a->work[r + z], &a->node[z], a->k.d_sum_s, level == WC_LEVEL_POD);
    return end;
}

/* Previous snapshot's totals of a string-keyed workload, or NULL. */
static const uint64_t *str_prev(const str_tab *t, const char *key, size_t nz)
{
    size_t j = str_tab_find(t, key);
    return j == NPOS ? NULL : &t->tot_uj[j * nz];
}

/* Processes, containers, pods — each from the node independently (§4.2). */
static size_t kepler_rows(wc_attrib *a, const wc_attr_tick_in *t, int first)
{
    kepler_state *k = &a->k;
    const scratch *s = &a->s;
    size_t nz = a->nzone, r = 0;
    for (size_t i = 0; i < t->nprocs; i++) {
        size_t j = proc_tab_find(&k->procs, t->procs[i].pid, 0, 0);
        const uint64_t *prev = j == NPOS ? NULL : &k->procs.tot_uj[j * nz];
        r = kepler_rows_of(a, r, WC_LEVEL_PROCESS, i, s->ckey[i], s->d_s[i], s->pflags[i], prev,
                           first);
    }
    for (size_t c = 0; c < s->ncont; c++) {
        const char *key = s->ckey[s->cfirst[c]];
        r = kepler_rows_of(a, r, WC_LEVEL_CONTAINER, s->cfirst[c], key, s->cd_s[c],
                           s->cflags[c], str_prev(&k->cont, key, nz), first);
    }
    for (size_t p = 0; p < s->npod; p++) {
        size_t c0 = s->pfirst[p];
        const char *key = s->cpod[c0];
        r = kepler_rows_of(a, r, WC_LEVEL_POD, s->cfirst[c0], key, s->pd_s[p], s->podflags[p],
                           str_prev(&k->pod, key, nz), first);
    }
    return r;
}

/* A successful refresh becomes the snapshot the next one differences. */
static void kepler_commit(wc_attrib *a, const wc_attr_tick_in *t)
{
    kepler_state *k = &a->k;
    k->have_snap = 1;
    k->snap_mono_ns = t->mono_ns;
    for (size_t z = 0; z < a->nzone; z++) {
        k->snap_counter_uj[z] = k->read_uj[z];
        k->snap_active_uj[z] = a->node[z].active_total_uj;
        k->snap_idle_uj[z] = a->node[z].idle_total_uj;
    }
    commit_tables(a, t, &k->procs, &k->procs_next, &k->cont, &k->cont_next, &k->pod,
                  &k->pod_next);
}

/* A failed refresh (monitor.go): the new snapshot is discarded, the previous
 * one — and with it every exported total — stays; no workload rows. */
static void kepler_failed(wc_attrib *a, int cpu_failed, wc_attr_out *out)
{
    kepler_state *k = &a->k;
    for (size_t z = 0; z < a->nzone; z++) {
        wc_attr_node_out *n = &a->node[z];
        n->flags = a->zflags[z] | WC_AF_REFRESH_FAILED;
        if (k->have_snap) {
            n->counter_uj = k->snap_counter_uj[z];
            n->active_total_uj = k->snap_active_uj[z];
            n->idle_total_uj = k->snap_idle_uj[z];
        }
    }
    out->flags = WC_AF_REFRESH_FAILED | (cpu_failed ? WC_AF_CPU_MISSING : 0u);
    out->nwork = 0;
}

/* One Kepler refresh in the model's order (monitor.go calculatePower,
 * firstReading; kepler-model.md §1.2). */
static void kepler_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out)
{
    kepler_state *k = &a->k;
    int first = !k->have_snap, zones_failed = 0, cpu_failed = 0;
    double ratio = k->ratio;
    if (a->model == WC_MODEL_KEPLER_HEAD && !first) {
        /* HEAD: informer Refresh() first, so the node splits with the ratio
         * of the same interval. */
        cpu_failed = kepler_refresh(a, t);
        ratio = k->ratio;
        if (!cpu_failed)
            zones_failed = kepler_read_zones(a, t) > 0;
    } else {
        /* v0.10–v0.11.4, and every first refresh: the node first, with the
         * ratio of the previous informer refresh. */
        zones_failed = kepler_read_zones(a, t) > 0;
        if (!zones_failed)
            cpu_failed = kepler_refresh(a, t);
    }
    if (zones_failed || cpu_failed) {
        kepler_failed(a, cpu_failed, out);
        return;
    }
    kepler_group(a, t->nprocs);
    if (first) {
        kepler_node_first(a, ratio);
    } else {
        double dt_s = go_duration_seconds(t->mono_ns - k->snap_mono_ns);
        for (size_t z = 0; z < a->nzone; z++)
            kepler_node_zone(a, z, ratio, dt_s);
    }
    out->nwork = kepler_rows(a, t, first);
    kepler_commit(a, t);
    out->flags = first ? WC_AF_FIRST : 0u;
    out->cpu_delta_sum_s = k->d_sum_s;
    out->node_busy_s = k->busy_s;
}

/* ---- ideal ------------------------------------------------------------------ */

/* True when a process that starttime ticks after boot started after the
 * boot-clock instant boot_ns (starttime × 10 ms > boot_ns). */
static int started_after(uint64_t starttime, int64_t boot_ns)
{
    if (boot_ns < 0)
        return 1;
    return starttime > (uint64_t)(boot_ns / NS_PER_TICK);
}

/* Δ ticks per process under (pid, starttime) identity: a known identity
 * differences its cumulative ticks; a new one counts its whole CPU only when
 * it started after the previous tick (it ran only inside this interval),
 * else 0. Returns D in ticks. */
static uint64_t ideal_proc_deltas(wc_attrib *a, const wc_attr_tick_in *t, int first)
{
    ideal_state *st = &a->i;
    scratch *s = &a->s;
    uint64_t sum = 0;
    for (size_t i = 0; i < t->nprocs; i++) {
        const wc_attr_proc_in *p = &t->procs[i];
        uint64_t d = 0;
        if (!first) {
            size_t j = proc_tab_find(&st->procs, p->pid, p->starttime, 1);
            if (j != NPOS) {
                uint64_t prev = st->procs.rec[j].ticks;
                d = p->cpu_ticks >= prev ? p->cpu_ticks - prev : 0;
            } else if (started_after(p->starttime, st->prev_boot_ns)) {
                d = p->cpu_ticks;
            }
        }
        s->d_ticks[i] = d;
        s->d_s[i] = (double)d / WC_USER_HZ;
        s->pflags[i] = first ? WC_AF_FIRST : 0u;
        sum += d;
    }
    return sum;
}

/* One zone's energy over this tick: the sum of its sockets' intervals, its
 * power and how long the longest of them was. */
typedef struct zone_interval {
    uint64_t sum_uj;     /* Σ usable socket ΔE */
    double power_uw;     /* Σ ΔE/Δt (one division when every Δt is the same) */
    int64_t span_ns;     /* longest usable socket interval; 0 when none */
} zone_interval;

/* One zone's interval from its sockets' counters, each differenced with
 * wattcal's rule (collector/meter/counter.c) over its own interval — the time since
 * that socket's last good reading — before summing. Returns 1 when every
 * socket gave a usable interval. A readable socket's baseline always moves
 * on. An unreadable one keeps its last good reading when the failure was
 * transient, so its next reading spans the gap (the counter's ceiling then
 * applies to the longer interval); one that vanished (ENOENT, cases/B25)
 * loses its baseline, so its next interval is unmeasurable and a new baseline
 * starts. */
static int ideal_zone_delta(wc_attrib *a, const wc_attr_tick_in *t, size_t z, int first,
                            zone_interval *zi, unsigned *flags)
{
    ideal_state *st = &a->i;
    int complete = 1, uniform = 1;
    double power_sum = 0.0;
    *zi = (zone_interval){0, 0.0, 0};
    for (size_t j = 0; j < a->zone_nsock[z]; j++) {
        size_t s = a->zone_sock[z][j];
        const wc_attr_zone_in *in = &t->zones[s];
        if (!in->ok) {
            if (in->vanished)
                st->has_base[s] = 0;
            *flags |= WC_AF_ZONE_MISSING;
            complete = 0;
            continue;
        }
        uint64_t prev = st->base_uj[s], d = 0;
        int had = st->has_base[s];
        int64_t dt_ns = t->mono_ns - st->base_mono_ns[s];
        st->base_uj[s] = in->energy_uj;
        st->base_mono_ns[s] = t->mono_ns;
        st->has_base[s] = 1;
        if (first || !had) {
            complete = 0;
            continue;
        }
        wc_delta_status ds = wc_counter_delta(prev, in->energy_uj, in->max_energy_range_uj,
                                              dt_ns, 0.0, &d);
        if (!wc_delta_usable(ds)) {
            complete = 0;
            continue;
        }
        if (ds == WC_DELTA_WRAPPED)
            *flags |= WC_AF_WRAP;
        if (zi->span_ns && dt_ns != zi->span_ns)
            uniform = 0;
        if (dt_ns > zi->span_ns)
            zi->span_ns = dt_ns;
        zi->sum_uj += d;
        power_sum += (double)d / go_duration_seconds(dt_ns);
    }
    if (zi->span_ns)
        zi->power_uw = uniform ? (double)zi->sum_uj / go_duration_seconds(zi->span_ns) : power_sum;
    if (!complete && !first)
        *flags |= WC_AF_UNMEASURABLE | WC_AF_ZONE_MISSING;
    return complete;
}

/* Node zones under the ideal model: the split only when every socket and
 * /proc/stat gave a usable interval; a zone is attributable when it also has
 * active energy and a non-zero share denominator. A socket recovering from a
 * transient failure brings the energy of the whole gap into this tick, split
 * and shared with this tick's ratio and CPU deltas. */
static void ideal_node(wc_attrib *a, const wc_attr_tick_in *t, int first, int64_t dt_ns,
                       int cpu_valid, double ratio)
{
    ideal_state *st = &a->i;
    double dt_s = first ? 0.0 : go_duration_seconds(dt_ns);
    for (size_t z = 0; z < a->nzone; z++) {
        wc_attr_node_out *n = &a->node[z];
        zone_interval zi;
        int complete = ideal_zone_delta(a, t, z, first, &zi, &n->flags);
        uint64_t sum = zi.sum_uj;
        st->attributable[z] = 0;
        n->ratio = ratio;
        n->interval_s = zi.span_ns ? go_duration_seconds(zi.span_ns) : dt_s;
        if (first) {
            n->flags |= WC_AF_FIRST;
        } else {
            n->delta_uj = sum;
            st->counter_uj[z] += sum;
            n->power_uw = zi.power_uw;
            if (!cpu_valid)
                n->flags |= WC_AF_UNMEASURABLE;
        }
        if (!first && complete && cpu_valid) {
            n->active_uj = ideal_trunc_uj((double)sum * ratio);
            n->idle_uj = sum - n->active_uj;
            n->active_uw = n->power_uw * ratio;
            n->idle_uw = n->power_uw - n->active_uw;
            st->active_total_uj[z] += n->active_uj;
            st->idle_total_uj[z] += n->idle_uj;
            st->attributable[z] = n->active_uj > 0 && st->denom_ticks > 0;
            if (!st->attributable[z])
                n->flags |= WC_AF_SKIPPED;
        }
        n->counter_uj = st->counter_uj[z];
        n->active_total_uj = st->active_total_uj[z];
        n->idle_total_uj = st->idle_total_uj[z];
    }
}

/* Process rows: share = Δ / max(D, busy) of the zone's active energy and
 * power; totals carry on while the identity lives and never reset. */
static size_t ideal_proc_rows(wc_attrib *a, const wc_attr_tick_in *t, int first)
{
    ideal_state *st = &a->i;
    const scratch *s = &a->s;
    size_t nz = a->nzone, r = 0;
    for (size_t i = 0; i < t->nprocs; i++) {
        const wc_attr_proc_in *p = &t->procs[i];
        size_t j = first ? NPOS : proc_tab_find(&st->procs, p->pid, p->starttime, 1);
        const uint64_t *prev = j == NPOS ? NULL : &st->procs.tot_uj[j * nz];
        r = rows_start(a, r, WC_LEVEL_PROCESS, i, s->ckey[i], s->d_s[i], s->pflags[i], prev);
        for (size_t z = 0; z < nz; z++) {
            wc_attr_work_out *w = &a->work[r - nz + z];
            const wc_attr_node_out *n = &a->node[z];
            w->flags |= n->flags & (WC_AF_SKIPPED | WC_AF_UNMEASURABLE);
            if (!st->attributable[z])
                continue;
            double share = (double)s->d_ticks[i] / (double)st->denom_ticks;
            w->energy_uj = ideal_trunc_uj(share * (double)n->active_uj);
            w->power_uw = share * n->active_uw;
            w->total_uj += w->energy_uj;
        }
    }
    return r;
}

/* Rows of ng groups (containers or pods) as exact sums of their processes'
 * rows (grp[i] = group of process i or NPOS); totals from prev_tab. */
static size_t ideal_group_rows(wc_attrib *a, size_t r, wc_attr_level level, size_t n,
                               const size_t *grp, const size_t *first_proc, size_t ng,
                               const char **key, const str_tab *prev_tab)
{
    scratch *s = &a->s;
    size_t nz = a->nzone, base = r;
    for (size_t g = 0; g < ng; g++) {
        size_t i0 = first_proc[g];
        const uint64_t *prev = str_prev(prev_tab, key[i0], nz);
        r = rows_start(a, r, level, i0, key[i0], 0.0, s->pflags[i0], prev);
        for (size_t z = 0; z < nz; z++)
            a->work[r - nz + z].flags |= a->node[z].flags & (WC_AF_SKIPPED | WC_AF_UNMEASURABLE);
        s->g_ticks[g] = 0;
    }
    for (size_t i = 0; i < n; i++) {
        size_t g = grp[i];
        if (g == NPOS)
            continue;
        s->g_ticks[g] += s->d_ticks[i];
        for (size_t z = 0; z < nz; z++) {
            wc_attr_work_out *w = &a->work[base + g * nz + z];
            const wc_attr_work_out *pw = &a->work[i * nz + z];
            w->energy_uj += pw->energy_uj;
            w->total_uj += pw->energy_uj;
            w->power_uw += pw->power_uw;
        }
    }
    for (size_t g = 0; g < ng; g++)
        for (size_t z = 0; z < nz; z++)
            a->work[base + g * nz + z].cpu_delta_s = (double)s->g_ticks[g] / WC_USER_HZ;
    return r;
}

/* /proc/stat unreadable: the tick is ignored and every baseline kept, so the
 * next tick's energy, /proc/stat and process deltas all span both intervals
 * — except that a zone that vanished this tick loses its baseline (its
 * reappearance must not be differenced against the old counter, B25). */
static void ideal_cpu_missing(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out)
{
    ideal_state *st = &a->i;
    for (size_t s = 0; s < a->nsock; s++)
        if (!t->zones[s].ok && t->zones[s].vanished)
            st->has_base[s] = 0;
    for (size_t z = 0; z < a->nzone; z++) {
        wc_attr_node_out *n = &a->node[z];
        n->flags = WC_AF_UNMEASURABLE;
        n->counter_uj = st->counter_uj[z];
        n->active_total_uj = st->active_total_uj[z];
        n->idle_total_uj = st->idle_total_uj[z];
    }
    out->flags = WC_AF_CPU_MISSING;
    out->nwork = 0;
}

/* One tick of wattcal's corrected model. */
static void ideal_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out)
{
    ideal_state *st = &a->i;
    scratch *s = &a->s;
    if (!t->cpu_ok) {
        ideal_cpu_missing(a, t, out);
        return;
    }
    int first = !st->have_prev;
    int64_t dt_ns = first ? 0 : t->mono_ns - st->prev_mono_ns;
    uint64_t busy = 0, total = 0;
    int cpu_valid = !first && cpu_interval(&st->prev_cpu, &t->cpu, 1, &busy, &total);
    if (!cpu_valid)
        busy = 0;
    double ratio = cpu_valid && total > 0 ? (double)busy / (double)total : 0.0;
    uint64_t d_sum = ideal_proc_deltas(a, t, first);
    st->denom_ticks = d_sum > busy ? d_sum : busy;
    ideal_node(a, t, first, dt_ns, cpu_valid, ratio);
    group_containers(s, t->nprocs);
    s->npod = group_by_key(s, s->pkey, t->nprocs, s->pgrp, s->pfirst, s->psorted);
    size_t r = ideal_proc_rows(a, t, first);
    r = ideal_group_rows(a, r, WC_LEVEL_CONTAINER, t->nprocs, s->cgrp, s->cfirst, s->ncont,
                         s->ckey, &st->cont);
    r = ideal_group_rows(a, r, WC_LEVEL_POD, t->nprocs, s->pgrp, s->pfirst, s->npod, s->pkey,
                         &st->pod);
    out->nwork = r;
    commit_tables(a, t, &st->procs, &st->procs_next, &st->cont, &st->cont_next, &st->pod,
                  &st->pod_next);
    st->prev_cpu = t->cpu;
    st->prev_mono_ns = t->mono_ns;
    st->prev_boot_ns = t->boot_ns;
    st->have_prev = 1;
    out->flags = first ? WC_AF_FIRST : 0u;
    out->cpu_delta_sum_s = (double)d_sum / WC_USER_HZ;
    out->node_busy_s = (double)busy / WC_USER_HZ;
}

/* ---- public step --------------------------------------------------------------- */

int wc_attrib_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out, wc_error *err)
{
    if (!a || !t || !out)
        return wc_error_set(err, -EINVAL, "attribution: NULL engine, tick or output");
    int rc = prepare(a, t, err);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    out->node = a->node;
    out->nnode = a->nzone;
    out->work = a->work;
    memset(a->zflags, 0, (a->nzone ? a->nzone : 1) * sizeof *a->zflags);
    node_reset(a);
    if (a->model == WC_MODEL_IDEAL)
        ideal_step(a, t, out);
    else
        kepler_step(a, t, out);
    a->have_mono = 1;
    a->last_mono_ns = t->mono_ns;
    return 0;
}
