/*
 * attribution.c — the attribution engine (see attribution.h): the checks a
 * tick must pass, the zone layout learnt from the first tick, the per-tick
 * memory, the keyed tables of running totals, grouping into containers and
 * pods, and the public step that hands each tick to its model.
 *
 * How it fits: the recorder (collector/recorder.c) and the offline replay
 * (collector/model/replay.c) hand one wc_attr_tick_in per tick to wc_attrib_step —
 * raw per-socket zone counters, the cumulative /proc/stat cpu line, every
 * process's cumulative CPU ticks — and store what it returns. The models
 * themselves live beside this file: attr_kepler.c (kepler-0.10, kepler-0.11,
 * kepler-main, and their terminated trackers in attr_terminated.c:
 * Kepler's code paths replayed float64 for float64, kepler-model.md §1.2,
 * §2.3, §3.1–3.5, §4, §5), attr_ideal.c (wattcal's corrected model,
 * kepler-model.md §5.4), and the table naming them, attr_models.c; what they
 * share with this file is attr_internal.h. Nothing here reads a file or a
 * clock: the same ticks under the same model give the same numbers, bit for
 * bit.
 *
 * Memory: everything a step needs is reserved before any state changes, so a
 * step either fails with the state untouched or runs to the end.
 */
#include "collector/model/attribution.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attr_internal.h"

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

/* The capacity a table grows to when n no longer fits: 1/8 more, so that a
 * few births do not reallocate every per-process array each tick (issue 15:
 * no per-tick allocation in the steady state). */
static size_t roomy(size_t n) { return n + n / 8 + 16; }

/* a × b into *out; 0, or -ENOMEM when it overflows. */
static int mul_size(size_t a, size_t b, size_t *out)
{
    if (b && a > SIZE_MAX / b)
        return -ENOMEM;
    *out = a * b;
    return 0;
}

/* ---- keyed tables of per-zone running totals ------------------------------ */

int attr_proc_tab_reserve(proc_tab *t, size_t n, size_t nz)
{
    if (n <= t->cap && t->rec)
        return 0;
    n = roomy(n);
    size_t ntot;
    if (mul_size(n, nz, &ntot))
        return -ENOMEM;
    GROW_OR_FAIL(t->rec, n);
    GROW_OR_FAIL(t->tot_uj, ntot);
    GROW_OR_FAIL(t->pw_uw, ntot);
    t->cap = n;
    return 0;
}

void attr_proc_tab_free(proc_tab *t)
{
    free(t->rec);
    free(t->tot_uj);
    free(t->pw_uw);
}

/* Index of pid (and start when by_start) or NPOS; binary search. */
size_t attr_proc_tab_find(const proc_tab *t, int32_t pid, uint64_t start, int by_start)
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

int attr_str_tab_reserve(str_tab *t, size_t n, size_t nz, size_t pool_bytes)
{
    if (n > t->cap || !t->off) {
        n = roomy(n);
        size_t ntot;
        if (mul_size(n, nz, &ntot))
            return -ENOMEM;
        GROW_OR_FAIL(t->off, n);
        GROW_OR_FAIL(t->tot_uj, ntot);
        GROW_OR_FAIL(t->pw_uw, ntot);
        t->cap = n;
    }
    if (pool_bytes > t->pool_cap || !t->pool) {
        pool_bytes = roomy(pool_bytes);
        GROW_OR_FAIL(t->pool, pool_bytes);
        t->pool_cap = pool_bytes;
    }
    return 0;
}

void attr_str_tab_free(str_tab *t)
{
    free(t->off);
    free(t->tot_uj);
    free(t->pw_uw);
    free(t->pool);
}

static const char *str_tab_key(const str_tab *t, size_t i)
{
    return t->pool + t->off[i];
}

const char *attr_str_key(const str_tab *t, size_t i)
{
    return str_tab_key(t, i);
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

void attr_proc_tab_swap(proc_tab *a, proc_tab *b)
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

/* The nz totals of key in t, or NULL. */
const uint64_t *attr_str_prev(const str_tab *t, const char *key, size_t nz)
{
    size_t j = str_tab_find(t, key);
    return j == NPOS ? NULL : &t->tot_uj[j * nz];
}

/* ---- engine ------------------------------------------------------------- */

wc_attrib *wc_attrib_new(wc_model model)
{
    const attr_model *def = attr_model_find(model);
    if (!def)
        return NULL;
    wc_attrib *a = calloc(1, sizeof *a);
    if (a) {
        a->model = model;
        a->def = def;
        a->max_terminated = WC_KEPLER_MAX_TERMINATED;
        a->min_terminated_uj = WC_KEPLER_MIN_TERMINATED_UJ;
    }
    return a;
}

void wc_attrib_set_terminated(wc_attrib *a, int max_terminated, uint64_t min_energy_uj)
{
    if (a) {
        a->max_terminated = max_terminated;
        a->min_terminated_uj = min_energy_uj;
    }
}

void wc_attrib_set_ceiling(wc_attrib *a, double watts)
{
    if (a)
        a->ceiling_watts = watts > 0 ? watts : 0.0;
}

static void scratch_free(scratch *s)
{
    void *p[] = {s->pk,    s->ord,     s->d_s,     s->d_ticks, s->pflags,  (void *)s->ckey,
                 (void *)s->pkey, s->kidx, s->prov, s->map,     s->cgrp,    s->cfirst,
                 s->csorted, s->cd_s,   s->cflags,  (void *)s->cpod, s->pgrp, s->pfirst,
                 s->psorted, s->pd_s,   s->podflags, s->g_ticks, (void *)s->vkey, s->vgrp,
                 s->vfirst, s->vsorted, s->vlast};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
}

/* Frees what the zone layout sized (groups, per-zone outputs and the
 * model's per-socket and per-zone state) and forgets the layout. */
static void layout_release(wc_attrib *a)
{
    for (size_t z = 0; a->zone_sock && z < a->nzone; z++)
        free(a->zone_sock[z]);
    void *p[] = {a->zone_sock, a->zone_nsock, a->sock_name, a->zflags, a->node};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
    a->zone_sock = NULL;
    a->zone_nsock = NULL;
    a->sock_name = NULL;
    a->zflags = NULL;
    a->node = NULL;
    a->def->state->release(a);
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
    a->def->state->free(a);
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

/* The per-zone outputs, then the model's own per-socket and per-zone state. */
static int layout_arrays(wc_attrib *a, const wc_attr_tick_in *t)
{
    size_t nz = a->nzone ? a->nzone : 1;
    a->zflags = calloc(nz, sizeof *a->zflags);
    a->node = calloc(nz, sizeof *a->node);
    if (!a->zflags || !a->node)
        return -ENOMEM;
    return a->def->state->layout(a, t);
}

/* Learns the zone layout from the first tick. */
static int layout_init(wc_attrib *a, const wc_attr_tick_in *t, wc_error *err)
{
    layout_release(a);
    int rc = layout_groups(a, t);
    if (!rc)
        rc = layout_arrays(a, t);
    if (rc) {
        layout_release(a);
        return wc_error_set(err, rc, "attribution: out of memory");
    }
    for (size_t z = 0; z < a->nzone; z++)
        memcpy(a->node[z].zone, a->sock_name[a->zone_sock[z][0]], WC_ATTR_ZONE_NAME_MAX);
    a->have_layout = 1;
    return 0;
}

/* ---- per-tick preparation ---------------------------------------------------- */

static int scratch_reserve(scratch *s, size_t n)
{
    if (n <= s->cap && s->pk)
        return 0;
    n = roomy(n);
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
    GROW_OR_FAIL(s->vkey, n);
    GROW_OR_FAIL(s->vgrp, n);
    GROW_OR_FAIL(s->vfirst, n);
    GROW_OR_FAIL(s->vsorted, n);
    GROW_OR_FAIL(s->vlast, n);
    s->cap = n;
    return 0;
}

/* Rows: at most (processes + containers + pods + VMs) × zones = 4n × zones. */
static int work_reserve(wc_attrib *a, size_t n)
{
    size_t rows;
    if (mul_size(n, 4, &rows) || mul_size(rows, a->nzone, &rows))
        return -ENOMEM;
    if (rows <= a->work_cap && a->work)
        return 0;
    rows = roomy(rows);
    GROW_OR_FAIL(a->work, rows);
    a->work_cap = rows;
    return 0;
}

/* Reserves the tables the model's step will build (next snapshot, next
 * cache), sized for this tick's processes and their keys. */
static int tables_reserve(wc_attrib *a, const wc_attr_tick_in *t)
{
    size_t n = t->nprocs, cbytes = 1, pbytes = 1, vbytes = 1;
    for (size_t i = 0; i < n; i++) {
        cbytes += strlen(str_or_empty(t->procs[i].container_id)) + 1;
        pbytes += strlen(str_or_empty(t->procs[i].pod_uid)) + 1;
        vbytes += strlen(str_or_empty(t->procs[i].vm_id)) + 1;
    }
    return a->def->state->reserve(a, n, cbytes, pbytes, vbytes);
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
size_t attr_group_by_key(scratch *s, const char **key, size_t n, size_t *grp, size_t *first,
                         size_t *sorted)
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
void attr_group_containers(scratch *s, size_t n)
{
    s->ncont = attr_group_by_key(s, s->ckey, n, s->cgrp, s->cfirst, s->csorted);
}

/* VMs: every process the model sees as one (vm_since set and at most the
 * model's release, no container: Kepler tests the container first), keyed by
 * vm_id; s->vlast[g] is the VM's last process in input (scan) order. */
void attr_group_vms(wc_attrib *a, const wc_attr_tick_in *t)
{
    scratch *s = &a->s;
    wc_vm_since upto = a->def->vm_upto;
    for (size_t i = 0; i < t->nprocs; i++) {
        const wc_attr_proc_in *p = &t->procs[i];
        int vm = p->vm_since != WC_VM_NONE && p->vm_since <= upto && !s->ckey[i][0];
        s->vkey[i] = vm ? str_or_empty(p->vm_id) : "";
    }
    s->nvm = attr_group_by_key(s, s->vkey, t->nprocs, s->vgrp, s->vfirst, s->vsorted);
    for (size_t i = 0; i < t->nprocs; i++)
        if (s->vgrp[i] != NPOS)
            s->vlast[s->vgrp[i]] = i;
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
int attr_cpu_interval(const wc_cpu_times *prev, const wc_cpu_times *cur, int clamp_iowait,
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
size_t attr_rows_start(wc_attrib *a, size_t r, wc_attr_level level, size_t proc_index,
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
        for (size_t z = 0; z < nz; z++) {
            next->tot_uj[k * nz + z] = w[z].total_uj;
            next->pw_uw[k * nz + z] = w[z].power_uw;
        }
    }
}

/* The tick's workloads and their totals become the previous snapshot. */
void attr_commit_tables(wc_attrib *a, const wc_attr_tick_in *t, proc_tab *procs,
                        proc_tab *pnext, str_tab *cont, str_tab *cnext, str_tab *pod,
                        str_tab *dnext)
{
    const scratch *s = &a->s;
    size_t n = t->nprocs, nz = a->nzone;
    for (size_t j = 0; j < n; j++) {
        size_t i = s->ord[j];
        const wc_attr_proc_in *p = &t->procs[i];
        pnext->rec[j] = (proc_rec){p->pid, p->starttime, p->cpu_ticks, 0.0};
        for (size_t z = 0; z < nz; z++) {
            pnext->tot_uj[j * nz + z] = a->work[i * nz + z].total_uj;
            pnext->pw_uw[j * nz + z] = a->work[i * nz + z].power_uw;
        }
    }
    pnext->n = n;
    attr_proc_tab_swap(procs, pnext);
    commit_str(cnext, a->work + n * nz, s->csorted, s->ncont, nz);
    str_tab_swap(cont, cnext);
    commit_str(dnext, a->work + (n + s->ncont) * nz, s->psorted, s->npod, nz);
    str_tab_swap(pod, dnext);
}

/* The tick's VMs (rows after the pods) become the previous snapshot. */
void attr_commit_vms(wc_attrib *a, const wc_attr_tick_in *t, str_tab *vm, str_tab *vnext)
{
    const scratch *s = &a->s;
    size_t nz = a->nzone, base = t->nprocs + s->ncont + s->npod;
    commit_str(vnext, a->work + base * nz, s->vsorted, s->nvm, nz);
    str_tab_swap(vm, vnext);
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
    a->def->step(a, t, out);
    a->have_mono = 1;
    a->last_mono_ns = t->mono_ns;
    return 0;
}
