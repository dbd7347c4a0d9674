/*
 * attr_terminated.c — the Kepler models' terminated-workload trackers
 * (internal/monitor/terminated_resource_tracker.go, process.go,
 * container.go, pod.go; kepler-model.md §4.3).
 *
 * At each refresh after the first, Kepler offers every workload of the
 * previous snapshot that no longer runs — a clone with its last energy total
 * and last power — to a tracker per kind: below minTerminatedEnergyThreshold
 * in the primary zone it is dropped; while fewer than maxTerminated are kept
 * it is pushed on a min-heap of primary-zone energy; when full it replaces the
 * heap's root only if strictly larger. The trackers are cleared at the first
 * refresh after the snapshot was exported. wattcal takes every refresh as
 * scraped before the next (one refresh per recorded tick), so a terminated
 * workload is exported with exactly the refresh that found it gone.
 *
 * The heap is Go's container/heap (Push: append then up; Pop: swap root and
 * last, down, remove last) so that ties evict the same item. Kepler offers
 * terminated workloads in Go map order (random); wattcal offers them in its
 * tables' order (pid, or the key's strcmp order): with equal energies at the
 * boundary the kept set can differ, nothing else.
 *
 * How it fits: attr_kepler.c reserves with attr_term_reserve before a step
 * and calls attr_term_collect after attr_commit_tables, when the *_next
 * tables still hold the previous snapshot (with each workload's last power,
 * attribution.c) and the current tables the workloads running now.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attr_internal.h"

/* One heap entry: a candidate's primary-zone total and its offer index. */
struct term_heap_item {
    uint64_t energy_uj;
    size_t cand;
};

typedef struct term_heap_item heap_item;

/* Go container/heap up() on a min-heap of energy. */
static void heap_up(heap_item *h, size_t j)
{
    while (j > 0) {
        size_t i = (j - 1) / 2;
        if (!(h[j].energy_uj < h[i].energy_uj))
            break;
        heap_item t = h[i];
        h[i] = h[j];
        h[j] = t;
        j = i;
    }
}

/* Go container/heap down() over the first n entries. */
static void heap_down(heap_item *h, size_t i, size_t n)
{
    for (;;) {
        size_t j = 2 * i + 1;
        if (j >= n)
            break;
        if (j + 1 < n && h[j + 1].energy_uj < h[j].energy_uj)
            j = j + 1;
        if (!(h[j].energy_uj < h[i].energy_uj))
            break;
        heap_item t = h[i];
        h[i] = h[j];
        h[j] = t;
        i = j;
    }
}

/* TerminatedResourceTracker.Add for one candidate (its primary-zone total
 * e): the threshold, then push, or replace the root when strictly larger. */
static void tracker_add(const wc_attrib *a, heap_item *h, size_t *n, uint64_t e, size_t cand)
{
    if (a->max_terminated == 0 || e < a->min_terminated_uj)
        return;
    if (a->max_terminated < 0 || *n < (size_t)a->max_terminated) {
        h[*n] = (heap_item){e, cand};
        heap_up(h, (*n)++);
        return;
    }
    if (*n > 0 && e > h[0].energy_uj) {
        h[0] = h[*n - 1]; /* Pop: swap root and last, down over n-1, drop last */
        heap_down(h, 0, *n - 1);
        h[*n - 1] = (heap_item){e, cand};
        heap_up(h, *n - 1);
    }
}

/* Kepler's PrimaryEnergyZone: RAPL psys > package > core > dram > uncore,
 * hwmon package, socket, cpu, core, ppt, ... (rapl_sysfs_power_meter.go,
 * hwmon_power_meter.go); else the first zone. */
static size_t primary_zone(const wc_attrib *a)
{
    static const char *const rapl[] = {"psys", "package", "core", "dram", "uncore"};
    static const char *const hwmon[] = {"package", "socket",     "cpu",      "core",
                                        "ppt",     "ppt0",       "ppt1",     "core_power",
                                        "io_power", "soc",       "platform", "gpu",
                                        "vddgfx"};
    int gauge = a->nzone > 0 && a->k.read_uw && !isnan(a->k.read_uw[0]); /* hwmon meter */
    const char *const *order = gauge ? hwmon : rapl;
    size_t n = gauge ? sizeof hwmon / sizeof *hwmon : sizeof rapl / sizeof *rapl;
    for (size_t p = 0; p < n; p++)
        for (size_t z = 0; z < a->nzone; z++)
            if (strcmp(a->node[z].zone, order[p]) == 0)
                return z;
    return 0;
}

static int by_cand(const void *x, const void *y)
{
    size_t a = ((const heap_item *)x)->cand, b = ((const heap_item *)y)->cand;
    return (a > b) - (a < b);
}

/* Appends the rows of the kept candidates (heap h of n) in offer order,
 * their totals and powers from tot/pw (nz per candidate). Returns the next
 * row index. */
static size_t emit(wc_attrib *a, size_t r, heap_item *h, size_t n, wc_attr_level level,
                   const proc_tab *procs, const str_tab *keys)
{
    size_t nz = a->nzone;
    const uint64_t *tot = procs ? procs->tot_uj : keys->tot_uj;
    const double *pw = procs ? procs->pw_uw : keys->pw_uw;
    if (n > 1)
        qsort(h, n, sizeof *h, by_cand);
    for (size_t k = 0; k < n; k++) {
        size_t c = h[k].cand;
        for (size_t z = 0; z < nz; z++)
            a->k.term[r++] = (wc_attr_term_out){
                .level = level,
                .pid = procs ? procs->rec[c].pid : 0,
                .starttime = procs ? procs->rec[c].start : 0,
                .key = procs ? "" : attr_str_key(keys, c),
                .zone = z,
                .total_uj = tot[c * nz + z],
                .power_uw = pw[c * nz + z]};
    }
    return r;
}

/* The terminated containers or pods: keys of prev absent from now. */
static size_t collect_keys(wc_attrib *a, size_t r, size_t pz, const str_tab *prev,
                           const str_tab *now, wc_attr_level level)
{
    size_t n = 0, nz = a->nzone;
    for (size_t i = 0; i < prev->n; i++)
        if (!attr_str_prev(now, attr_str_key(prev, i), nz))
            tracker_add(a, a->k.heap, &n, prev->tot_uj[i * nz + pz], i);
    return emit(a, r, a->k.heap, n, level, NULL, prev);
}

void attr_term_collect(wc_attrib *a, wc_attr_out *out)
{
    kepler_state *k = &a->k;
    size_t nz = a->nzone, pz = primary_zone(a), n = 0, r = 0;
    out->term = k->term;
    out->nterm = 0;
    if (nz == 0 || a->max_terminated == 0)
        return;
    const proc_tab *prev = &k->procs_next;
    for (size_t i = 0; i < prev->n; i++)
        if (attr_proc_tab_find(&k->procs, prev->rec[i].pid, 0, 0) == NPOS)
            tracker_add(a, k->heap, &n, prev->tot_uj[i * nz + pz], i);
    r = emit(a, r, k->heap, n, WC_LEVEL_PROCESS, prev, NULL);
    r = collect_keys(a, r, pz, &k->cont_next, &k->cont, WC_LEVEL_CONTAINER);
    /* pod.go: with no running pod the pod pass returns before it publishes
     * the terminated ones (and the next refresh clears them) */
    if (k->pod.n > 0)
        r = collect_keys(a, r, pz, &k->pod_next, &k->pod, WC_LEVEL_POD);
    r = collect_keys(a, r, pz, &k->vm_next, &k->vm, WC_LEVEL_VM); /* vm.go: no early return */
    out->nterm = r;
}

int attr_term_reserve(wc_attrib *a)
{
    kepler_state *k = &a->k;
    size_t nz = a->nzone ? a->nzone : 1;
    size_t most = k->procs.n > k->cont.n ? k->procs.n : k->cont.n;
    most = most > k->pod.n ? most : k->pod.n;
    most = most > k->vm.n ? most : k->vm.n;
    size_t rows = (k->procs.n + k->cont.n + k->pod.n + k->vm.n) * nz;
    if (rows > k->term_cap) {
        wc_attr_term_out *t = realloc(k->term, rows * sizeof *t);
        if (!t)
            return -ENOMEM;
        k->term = t;
        k->term_cap = rows;
    }
    if (most > k->heap_cap) {
        heap_item *h = realloc(k->heap, most * sizeof *h);
        if (!h)
            return -ENOMEM;
        k->heap = h;
        k->heap_cap = most;
    }
    return 0;
}

void attr_term_free(wc_attrib *a)
{
    free(a->k.term);
    free(a->k.heap);
    a->k.term = NULL;
    a->k.heap = NULL;
    a->k.term_cap = a->k.heap_cap = 0;
}
