/*
 * levels.c — attribution gap per level, its split and the Σ children ≤
 * parent invariants, in one pass over a model's workload rows (levels.h).
 *
 * Rows are read in rowid order, which is tick order for every writer
 * (record and replay insert one tick at a time), by a plain table scan (NOT
 * INDEXED: through the model index SQLite would sort every row by rowid in a
 * temporary B-tree, several times slower); if a run ever breaks that order,
 * the pass restarts with an explicit ORDER BY tick_id.
 */
#include "validator/levels.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attribution.h"
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
    }
    return "?";
}

static int sql_fail(sqlite3 *db, wc_error *err, const char *what)
{
    return wc_error_set(err, -EIO, "validate: %s: %s", what, sqlite3_errmsg(db));
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

/* Loads the distinct non-empty values of one column. */
static int keyset_load(sqlite3 *db, const char *sql, keyset *k, wc_error *err)
{
    memset(k, 0, sizeof *k);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading containers and pods");
    size_t cap = 0;
    int rc = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 0);
        if (!t || !*t)
            continue;
        if (k->n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **nk = realloc(k->key, ncap * sizeof *nk);
            if (!nk) {
                rc = -ENOMEM;
                break;
            }
            k->key = nk;
            cap = ncap;
        }
        if (!(k->key[k->n] = strdup((const char *)t))) {
            rc = -ENOMEM;
            break;
        }
        k->n++;
    }
    sqlite3_finalize(s);
    if (!rc) {
        if (k->n)
            qsort(k->key, k->n, sizeof *k->key, cmp_str);
        k->parent = malloc((k->n ? k->n : 1) * sizeof *k->parent);
        if (!k->parent)
            rc = -ENOMEM;
        for (size_t i = 0; !rc && i < k->n; i++)
            k->parent[i] = -1;
    }
    if (rc) {
        keyset_free(k);
        return wc_error_set(err, rc, "out of memory reading containers and pods");
    }
    return 0;
}

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
    double *sum_proc, *sum_cont, *sum_pod, *sum_cont_procs;
    double *cont_parent, *cont_child, *pod_parent, *pod_child;
    uint32_t *cont_nchild, *pod_nchild;
    unsigned char *cont_touched, *pod_touched;
    long *touched_c, *touched_p;
    size_t ntouched_c, ntouched_p;
    int64_t window_ns;
} pass;

static long zone_index(wc_levels_report *r, const char *name)
{
    for (size_t i = 0; i < r->nzones; i++)
        if (!strcmp(r->zones[i].zone, name))
            return (long)i;
    if (r->nzones == WC_LEVELS_MAX_ZONES)
        return -1;
    snprintf(r->zones[r->nzones].zone, sizeof r->zones[r->nzones].zone, "%s", name);
    return (long)r->nzones++;
}

static int load_node_rows(sqlite3 *db, int64_t model_id, pass *p, wc_error *err)
{
    /* zone names first, so the per-tick arrays have their final width */
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT zone FROM node_attr WHERE model_id = ? GROUP BY zone"
                               " ORDER BY MIN(rowid)", -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading node attribution");
    sqlite3_bind_int64(s, 1, model_id);
    while (sqlite3_step(s) == SQLITE_ROW)
        if (sqlite3_column_text(s, 0))
            zone_index(p->rep, (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    p->nz = p->rep->nzones;
    if (!p->nz)
        return -ENOENT;
    size_t cells = p->tb.n * p->nz;
    p->node_delta = calloc(cells, sizeof *p->node_delta);
    p->node_active = calloc(cells, sizeof *p->node_active);
    p->node_idle = calloc(cells, sizeof *p->node_idle);
    p->node_flags = calloc(cells, sizeof *p->node_flags);
    p->node_have = calloc(cells, 1);
    if (!p->node_delta || !p->node_active || !p->node_idle || !p->node_flags || !p->node_have)
        return wc_error_set(err, -ENOMEM, "out of memory for node rows");
    if (sqlite3_prepare_v2(db, "SELECT tick_id, zone, delta_uj, active_uj, idle_uj, flags FROM"
                               " node_attr WHERE model_id = ?", -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading node attribution");
    sqlite3_bind_int64(s, 1, model_id);
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        long i = wc_timebase_index(&p->tb, sqlite3_column_int64(s, 0));
        long z = sqlite3_column_text(s, 1) ? zone_index(p->rep, (const char *)sqlite3_column_text(s, 1)) : -1;
        if (i < 0 || z < 0 || (size_t)z >= p->nz)
            continue;
        size_t c = (size_t)i * p->nz + (size_t)z;
        p->node_delta[c] = sqlite3_column_double(s, 2);
        p->node_active[c] = sqlite3_column_double(s, 3);
        p->node_idle[c] = sqlite3_column_double(s, 4);
        p->node_flags[c] = (unsigned)sqlite3_column_int(s, 5);
        p->node_have[c] = 1;
    }
    sqlite3_finalize(s);
    return step == SQLITE_DONE ? 0 : sql_fail(db, err, "reading node attribution");
}

static int load_identities(sqlite3 *db, pass *p, wc_error *err)
{
    int rc = keyset_load(db, "SELECT container_id FROM container UNION SELECT container_id FROM"
                             " process WHERE container_id != ''", &p->containers, err);
    if (!rc)
        rc = keyset_load(db, "SELECT pod_uid FROM pod UNION SELECT pod_uid FROM process"
                             " WHERE pod_uid != ''", &p->pods, err);
    if (rc)
        return rc;
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT COALESCE(MAX(id), 0), COUNT(*), COALESCE(MIN(id), 0) FROM process",
                           -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading processes");
    int64_t nproc = 0, min_id = 0;
    if (sqlite3_step(s) == SQLITE_ROW) {
        p->max_proc_id = sqlite3_column_int64(s, 0);
        nproc = sqlite3_column_int64(s, 1);
        min_id = sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
    /* per-process totals are indexed by the row id, which the recorder
     * hands out densely (1, 2, ...): far sparser ids are not a wattcal run */
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
    if (sqlite3_prepare_v2(db, "SELECT id, container_id, pod_uid FROM process", -1, &s, NULL) !=
        SQLITE_OK)
        return sql_fail(db, err, "reading processes");
    while (sqlite3_step(s) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(s, 0);
        long c = key_index(&p->containers, (const char *)sqlite3_column_text(s, 1));
        if (id < 0 || id > p->max_proc_id)
            continue;
        p->proc_container[id] = c;
        long pod = key_index(&p->pods, (const char *)sqlite3_column_text(s, 2));
        if (c >= 0 && pod >= 0)
            p->containers.parent[c] = pod;
    }
    sqlite3_finalize(s);
    /* containers seen without processes carry their pod in the container table */
    if (sqlite3_prepare_v2(db, "SELECT container_id, pod_uid FROM container", -1, &s, NULL) !=
        SQLITE_OK)
        return sql_fail(db, err, "reading containers");
    while (sqlite3_step(s) == SQLITE_ROW) {
        long c = key_index(&p->containers, (const char *)sqlite3_column_text(s, 0));
        long pod = key_index(&p->pods, (const char *)sqlite3_column_text(s, 1));
        if (c >= 0 && pod >= 0 && p->containers.parent[c] < 0)
            p->containers.parent[c] = pod;
    }
    sqlite3_finalize(s);
    return 0;
}

static int alloc_scratch(pass *p)
{
    size_t nz = p->nz, nc = p->containers.n ? p->containers.n : 1, np = p->pods.n ? p->pods.n : 1;
    p->sum_proc = calloc(nz, sizeof(double));
    p->sum_cont = calloc(nz, sizeof(double));
    p->sum_pod = calloc(nz, sizeof(double));
    p->sum_cont_procs = calloc(nz, sizeof(double));
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
    return (p->sum_proc && p->sum_cont && p->sum_pod && p->sum_cont_procs && p->cont_parent &&
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

/* Closes tick index i: invariants, totals and the window it falls in. The
 * totals accumulate integer µJ (exact in a double up to 2^53 µJ) and are
 * turned into joules once, at the end (to_joules), so sums that must agree
 * (unattributed against active energy) agree exactly. */
static void close_tick(pass *p, long i)
{
    wc_levels_report *r = p->rep;
    int64_t tick_id = p->tb.tick_id[i];
    long w = p->window_ns > 0 ? (long)((p->tb.mono_ns[i] - p->tb.mono_ns[0] - 1) / p->window_ns) : 0;
    for (size_t z = 0; z < p->nz; z++) {
        size_t c = (size_t)i * p->nz + z;
        if (!p->node_have[c])
            continue;
        wc_level_zone *lz = &r->zones[z];
        double active = p->node_active[c];
        check(&lz->inv[WC_INV_PROCS_LE_NODE], p->sum_proc[z], active, 1, tick_id);
        check(&lz->inv[WC_INV_CONTAINERS_LE_NODE], p->sum_cont[z], active, 1, tick_id);
        check(&lz->inv[WC_INV_PODS_LE_NODE], p->sum_pod[z], active, 1, tick_id);
        double unattr = active > p->sum_proc[z] ? active - p->sum_proc[z] : 0;
        double over = p->sum_proc[z] > active ? p->sum_proc[z] - active : 0;
        lz->node_j += p->node_delta[c];
        lz->active_j += active;
        lz->idle_j += p->node_idle[c];
        lz->process_j += p->sum_proc[z];
        lz->container_j += p->sum_cont[z];
        lz->pod_j += p->sum_pod[z];
        lz->containerised_process_j += p->sum_cont_procs[z];
        if (p->node_flags[c] & SKIP_FLAGS)
            lz->unattr_skipped_j += unattr;
        else
            lz->unattr_missed_j += unattr;
        lz->over_j += over;
        if (w >= 0 && (size_t)w < lz->nwindows && i > 0) {
            wc_level_window *win = &lz->windows[w];
            win->node_j += p->node_delta[c];
            win->idle_j += p->node_idle[c];
            win->active_j += active;
            win->process_j += p->sum_proc[z];
            win->container_j += p->sum_cont[z];
            win->pod_j += p->sum_pod[z];
            win->unattributed_j += unattr;
            win->over_j += over;
        }
    }
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
    memset(p->sum_proc, 0, p->nz * sizeof(double));
    memset(p->sum_cont, 0, p->nz * sizeof(double));
    memset(p->sum_pod, 0, p->nz * sizeof(double));
    memset(p->sum_cont_procs, 0, p->nz * sizeof(double));
}

/* One workload row into the tick's scratch and the run totals. */
static void add_row(pass *p, int level, int64_t process_id, const char *key, long z, double e,
                    double cpu_s, unsigned flags)
{
    size_t nz = p->nz;
    wc_level_zone *lz = &p->rep->zones[z];
    if (level == WC_LEVEL_PROCESS) {
        p->sum_proc[z] += e;
        if (process_id >= 0 && process_id <= p->max_proc_id) {
            lz->per_process_j[process_id] += e;
            lz->per_process_cpu_s[process_id] += cpu_s;
        }
        if (e != 0 && (flags & WC_AF_NEGATIVE_SHARE))
            p->rep->negative_share_rows++;
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
        long c = key_index(&p->containers, key);
        if (c >= 0) {
            lz->per_container_j[c] += e;
            lz->per_container_cpu_s[c] += cpu_s;
            p->cont_parent[(size_t)c * nz + (size_t)z] += e;
            touch_container(p, c);
            long q = p->containers.parent[c];
            if (q >= 0) {
                p->pod_child[(size_t)q * nz + (size_t)z] += e;
                p->pod_nchild[(size_t)q * nz + (size_t)z]++;
                touch_pod(p, q);
            }
        }
    } else if (level == WC_LEVEL_POD) {
        p->sum_pod[z] += e;
        long q = key_index(&p->pods, key);
        if (q >= 0) {
            p->pod_parent[(size_t)q * nz + (size_t)z] += e;
            touch_pod(p, q);
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

/* Streams the rows; returns 1 when rowid order turned out not to be tick
 * order (the caller retries ordered), 0 done, <0 error. Every tick of the
 * run is closed exactly once, in order, rows or not. */
static int stream_rows(sqlite3 *db, int64_t model_id, int ordered, pass *p, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    const char *sql = ordered
                          ? "SELECT tick_id, level, process_id, key, zone, energy_uj, cpu_delta_s,"
                            " flags FROM work_attr WHERE model_id = ? ORDER BY tick_id"
                          : "SELECT tick_id, level, process_id, key, zone, energy_uj, cpu_delta_s,"
                            " flags FROM work_attr NOT INDEXED WHERE model_id = ? ORDER BY rowid";
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return sql_fail(db, err, "reading workload attribution");
    sqlite3_bind_int64(s, 1, model_id);
    int64_t cur_tick = INT64_MIN;
    long cur_i = -1, next = 0, lastz = 0; /* next: first tick index not closed yet */
    int step, rc = 0;
    p->rep->rows = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t tick = sqlite3_column_int64(s, 0);
        if (tick != cur_tick) {
            if (tick < cur_tick) {
                rc = 1;
                break;
            }
            long i = wc_timebase_index(&p->tb, tick);
            if (cur_i >= 0) {
                close_tick(p, cur_i);
                next = cur_i + 1;
            }
            cur_tick = tick;
            cur_i = i >= next ? i : -1;
            if (cur_i >= 0) {
                close_empty(p, next, cur_i);
                next = cur_i;
            }
        }
        p->rep->rows++;
        if (cur_i < 0)
            continue;
        const char *zn = (const char *)sqlite3_column_text(s, 4);
        if (!zn)
            continue;
        long z = (size_t)lastz < p->nz && !strcmp(p->rep->zones[lastz].zone, zn) ? lastz : -1;
        for (size_t k = 0; z < 0 && k < p->nz; k++)
            if (!strcmp(p->rep->zones[k].zone, zn))
                z = (long)k;
        if (z < 0)
            continue;
        lastz = z;
        /* only the columns the level uses: this loop runs once per stored row */
        int level = sqlite3_column_int(s, 1);
        int is_proc = level == WC_LEVEL_PROCESS;
        add_row(p, level, is_proc ? sqlite3_column_int64(s, 2) : -1,
                is_proc ? NULL : (const char *)sqlite3_column_text(s, 3), z,
                sqlite3_column_double(s, 5), level == WC_LEVEL_POD ? 0 : sqlite3_column_double(s, 6),
                is_proc ? (unsigned)sqlite3_column_int(s, 7) : 0u);
    }
    if (!rc && step != SQLITE_DONE)
        rc = sql_fail(db, err, "reading workload attribution");
    sqlite3_finalize(s);
    if (!rc) {
        if (cur_i >= 0) {
            close_tick(p, cur_i);
            next = cur_i + 1;
        }
        close_empty(p, next, (long)p->tb.n);
    }
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
               *cc = lz->per_container_cpu_s;
        char name[32];
        snprintf(name, sizeof name, "%s", lz->zone);
        memset(lz, 0, sizeof *lz);
        snprintf(lz->zone, sizeof lz->zone, "%s", name);
        lz->windows = w;
        lz->nwindows = nw;
        size_t np = (size_t)(p->max_proc_id + 1), nc = p->containers.n ? p->containers.n : 1;
        memset(pj, 0, np * sizeof *pj), memset(pc, 0, np * sizeof *pc);
        memset(cj, 0, nc * sizeof *cj), memset(cc, 0, nc * sizeof *cc);
        lz->per_process_j = pj, lz->per_process_cpu_s = pc;
        lz->per_container_j = cj, lz->per_container_cpu_s = cc;
    }
    p->rep->negative_share_rows = p->rep->lifetime_delta_rows = 0;
    memset(p->sum_proc, 0, p->nz * sizeof(double));
    memset(p->sum_cont, 0, p->nz * sizeof(double));
    memset(p->sum_pod, 0, p->nz * sizeof(double));
    memset(p->sum_cont_procs, 0, p->nz * sizeof(double));
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
}

static int walk_all(sqlite3 *db, int64_t model_id, pass *p, wc_error *err)
{
    int rc = stream_rows(db, model_id, 0, p, err);
    if (rc == 1) {
        reset_totals(p);
        rc = stream_rows(db, model_id, 1, p, err);
    }
    return rc;
}

static void pass_free(pass *p)
{
    wc_timebase_free(&p->tb);
    keyset_free(&p->containers);
    keyset_free(&p->pods);
    free(p->proc_container);
    free(p->node_delta), free(p->node_active), free(p->node_idle), free(p->node_flags);
    free(p->node_have);
    free(p->sum_proc), free(p->sum_cont), free(p->sum_pod), free(p->sum_cont_procs);
    free(p->cont_parent), free(p->cont_child), free(p->pod_parent), free(p->pod_child);
    free(p->cont_nchild), free(p->pod_nchild), free(p->cont_touched), free(p->pod_touched);
    free(p->touched_c), free(p->touched_p);
}

/* µJ → J for every total, window and per-workload sum of the report. */
static void to_joules(wc_levels_report *r)
{
    for (size_t i = 0; i < r->nzones; i++) {
        wc_level_zone *z = &r->zones[i];
        double *tot[] = {&z->node_j, &z->idle_j, &z->active_j, &z->process_j, &z->container_j,
                         &z->pod_j, &z->unattr_skipped_j, &z->unattr_missed_j, &z->over_j,
                         &z->containerised_process_j};
        for (size_t k = 0; k < sizeof tot / sizeof *tot; k++)
            *tot[k] /= 1e6;
        for (size_t k = 0; k < z->nwindows; k++) {
            wc_level_window *w = &z->windows[k];
            w->node_j /= 1e6, w->idle_j /= 1e6, w->active_j /= 1e6, w->process_j /= 1e6;
            w->container_j /= 1e6, w->pod_j /= 1e6, w->unattributed_j /= 1e6, w->over_j /= 1e6;
        }
        for (int64_t k = 0; k <= r->max_process_id; k++)
            z->per_process_j[k] /= 1e6;
        for (size_t k = 0; k < r->ncontainers; k++)
            z->per_container_j[k] /= 1e6;
    }
}

int wc_levels_compute(sqlite3 *db, int64_t model_id, double window_s, wc_levels_report *out,
                      wc_error *err)
{
    memset(out, 0, sizeof *out);
    out->window_s = window_s;
    pass p;
    memset(&p, 0, sizeof p);
    p.rep = out;
    p.window_ns = (int64_t)llround(window_s * 1e9);
    int rc = wc_timebase_load(db, &p.tb, err);
    if (!rc && p.window_ns < p.tb.median_spacing_ns) {
        /* a window shorter than the sample spacing would only repeat ticks */
        p.window_ns = p.tb.median_spacing_ns;
        out->window_s = (double)p.window_ns / 1e9;
    }
    if (!rc)
        rc = load_node_rows(db, model_id, &p, err);
    if (rc == -ENOENT)
        wc_error_set(err, rc, "the run has no node attribution for this model");
    if (!rc)
        rc = load_identities(db, &p, err);
    if (!rc && alloc_scratch(&p))
        rc = wc_error_set(err, -ENOMEM, "out of memory");
    size_t nw = p.window_ns > 0 && p.tb.n > 1
                    ? (size_t)((p.tb.mono_ns[p.tb.n - 1] - p.tb.mono_ns[0] + p.window_ns - 1) /
                               p.window_ns)
                    : 0;
    for (size_t z = 0; !rc && z < p.nz; z++) {
        size_t np = (size_t)(p.max_proc_id + 1), nc = p.containers.n ? p.containers.n : 1;
        wc_level_zone *lz = &out->zones[z];
        lz->per_process_j = calloc(np, sizeof(double));
        lz->per_process_cpu_s = calloc(np, sizeof(double));
        lz->per_container_j = calloc(nc, sizeof(double));
        lz->per_container_cpu_s = calloc(nc, sizeof(double));
        out->zones[z].windows = calloc(nw ? nw : 1, sizeof(wc_level_window));
        if (!out->zones[z].windows || !lz->per_process_j || !lz->per_process_cpu_s ||
            !lz->per_container_j || !lz->per_container_cpu_s) {
            rc = wc_error_set(err, -ENOMEM, "out of memory");
            break;
        }
        out->zones[z].nwindows = nw;
        for (size_t k = 0; k < nw; k++) {
            out->zones[z].windows[k].start_ns = p.tb.mono_ns[0] + (int64_t)k * p.window_ns;
            out->zones[z].windows[k].end_ns = out->zones[z].windows[k].start_ns + p.window_ns;
        }
    }
    if (!rc)
        rc = walk_all(db, model_id, &p, err);
    if (!rc) { /* the identities go with the report */
        out->max_process_id = p.max_proc_id;
        out->ncontainers = p.containers.n;
        out->container_ids = p.containers.key;
        out->container_pod = p.containers.parent;
        out->npods = p.pods.n;
        out->pod_uids = p.pods.key;
        free(p.pods.parent); /* pods have no parent */
        memset(&p.containers, 0, sizeof p.containers);
        memset(&p.pods, 0, sizeof p.pods);
        to_joules(out);
    }
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
        free(z->per_container_j), free(z->per_container_cpu_s);
    }
    keyset c = {.n = r->ncontainers, .key = r->container_ids, .parent = r->container_pod};
    keyset q = {.n = r->npods, .key = r->pod_uids, .parent = NULL};
    keyset_free(&c);
    keyset_free(&q);
    memset(r, 0, sizeof *r);
}
