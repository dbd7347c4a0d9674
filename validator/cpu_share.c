/*
 * cpu_share.c — each pod's share of energy against its share of the CPU the
 * kernel accounts to its cgroup (see cpu_share.h). Everything is read
 * through the store: the ticks' /proc/stat lines, the pod cgroups' reads
 * (store_cgroup_cpu.h), the model's node and pod rows (store_results.h) and
 * the exporter's own series (store_exporter.h). Per-pod series are held on
 * the tick grid (two doubles per pod and tick).
 */
#include "validator/cpu_share.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_cgroup_cpu.h"
#include "collector/store/store_exporter.h"
#include "collector/store/store_read.h"
#include "collector/store/store_results.h"

/* Sums of one pod under one source. */
typedef struct acc {
    double e, a, c, b;           /* pod J, node active J, pod CPU s, node busy s */
    int64_t n;
} acc;

typedef struct pod {
    char uid[72], name[256], ns[128];
    int64_t cgroup_id;
    double *usage_s;             /* per tick: cumulative cgroup CPU (NAN: not read) */
    double *energy_uj;           /* per tick: the model's energy of this interval */
    acc src[2];
} pod;

typedef struct ctx {
    wc_store *st;
    size_t n;                    /* ticks */
    int64_t *tick_id, *mono;
    double *busy_s;              /* cumulative busy CPU seconds (NAN: line unread) */
    double *active_uj;           /* the model's node active energy per tick (zone) */
    pod *pods;                   /* sorted by uid */
    size_t npods;
    const char *zone;
} ctx;

static void ctx_free(ctx *c)
{
    for (size_t i = 0; i < c->npods; i++) {
        free(c->pods[i].usage_s);
        free(c->pods[i].energy_uj);
    }
    free(c->pods);
    free(c->tick_id);
    free(c->mono);
    free(c->busy_s);
    free(c->active_uj);
}

static double *nan_array(size_t n)
{
    double *a = malloc((n ? n : 1) * sizeof *a);
    for (size_t i = 0; a && i < n; i++)
        a[i] = NAN;
    return a;
}

/* Index of a tick id (ids grow with the array), or -1. */
static long tick_index(const ctx *c, int64_t id)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->tick_id[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n && c->tick_id[lo] == id ? (long)lo : -1;
}

static int cmp_pod(const void *a, const void *b)
{
    return strcmp(((const pod *)a)->uid, ((const pod *)b)->uid);
}

static pod *find_pod(const ctx *c, const char *uid)
{
    pod key;
    snprintf(key.uid, sizeof key.uid, "%s", uid ? uid : "");
    return bsearch(&key, c->pods, c->npods, sizeof *c->pods, cmp_pod);
}

/* The ticks, their clocks and the node's busy CPU (Kepler's active time). */
static int load_ticks(ctx *c, wc_error *err)
{
    int64_t count = 0;
    int rc = wc_store_count_rows(c->st, WC_TABLE_TICK, &count, err);
    if (rc)
        return rc;
    size_t cap = (size_t)count;
    c->tick_id = malloc((cap ? cap : 1) * sizeof *c->tick_id);
    c->mono = malloc((cap ? cap : 1) * sizeof *c->mono);
    int64_t *boot = malloc((cap ? cap : 1) * sizeof *boot);
    c->busy_s = nan_array(cap);
    c->active_uj = nan_array(cap);
    if (!c->tick_id || !c->mono || !boot || !c->busy_s || !c->active_uj) {
        free(boot);
        return wc_error_set(err, -ENOMEM, "cpu share: out of memory");
    }
    rc = wc_store_get_ticks(c->st, c->tick_id, c->mono, boot, cap, &c->n, err);
    free(boot);
    wc_store_iter *it = NULL;
    if (!rc)
        rc = wc_store_tick_cpu_open(c->st, &it, err);
    wc_tick_cpu row;
    int step = 0;
    while (!rc && (step = wc_store_tick_cpu_next(it, &row, err)) == 1) {
        long k = tick_index(c, row.tick_id);
        if (k < 0 || !row.cpu_ok)
            continue;
        uint64_t total = 0;
        for (int f = 0; f < 8; f++)
            total += row.field[f];
        c->busy_s[k] = (double)(total - row.field[3] - row.field[4]) / 100.0;
    }
    wc_store_iter_close(it);
    return rc ? rc : (step < 0 ? step : 0);
}

/* The pod cgroups (sorted by uid) and which files accounted them. */
static int load_pods(ctx *c, wc_cpu_share_report *r, wc_error *err)
{
    wc_cgroup_row *rows = NULL;
    size_t n = 0;
    int rc = wc_store_cgroups(c->st, &rows, &n, err);
    if (rc)
        return rc;
    c->pods = calloc(n ? n : 1, sizeof *c->pods);
    if (!c->pods)
        rc = wc_error_set(err, -ENOMEM, "cpu share: out of memory");
    for (size_t i = 0; i < n && !rc; i++) {
        if (strcmp(rows[i].level, "pod") != 0)
            continue;
        pod *p = &c->pods[c->npods++];
        snprintf(p->uid, sizeof p->uid, "%s", rows[i].key);
        p->cgroup_id = rows[i].id;
        p->usage_s = nan_array(c->n);
        p->energy_uj = calloc(c->n ? c->n : 1, sizeof *p->energy_uj);
        if (!p->usage_s || !p->energy_uj)
            rc = wc_error_set(err, -ENOMEM, "cpu share: out of memory");
        const char *a = rows[i].accounting;
        if (*a && !strstr(r->accounting, a))
            snprintf(r->accounting + strlen(r->accounting),
                     sizeof r->accounting - strlen(r->accounting), "%s%s",
                     r->accounting[0] ? " + " : "", a);
    }
    free(rows);
    if (!rc)
        qsort(c->pods, c->npods, sizeof *c->pods, cmp_pod);
    return rc;
}

/* Every pod cgroup read onto the tick grid. */
static int load_usage(ctx *c, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_cgroup_cpu_open(c->st, "pod", &it, err);
    wc_cgroup_cpu_row row;
    pod *p = NULL;
    int step = 0;
    while (!rc && (step = wc_store_cgroup_cpu_next(it, &row, err)) == 1) {
        if (!p || p->cgroup_id != row.cgroup_id) {
            p = NULL;
            for (size_t i = 0; i < c->npods && !p; i++)
                if (c->pods[i].cgroup_id == row.cgroup_id)
                    p = &c->pods[i];
        }
        long k = tick_index(c, row.tick_id);
        if (p && k >= 0 && row.ok)
            p->usage_s[k] = (double)row.usage_ns / 1e9;
    }
    wc_store_iter_close(it);
    return rc ? rc : (step < 0 ? step : 0);
}

/* The model's node active energy and pod energy per tick, in the zone. */
static int load_model(ctx *c, int64_t model_id, wc_error *err)
{
    const char *zones[] = {c->zone, NULL};
    wc_store_iter *it = NULL;
    int rc = wc_store_node_zone_rows_open(c->st, model_id, zones, &it, err);
    wc_node_row nr;
    int step = 0;
    while (!rc && (step = wc_store_node_row_next(it, &nr, err)) == 1) {
        long k = tick_index(c, nr.tick_id);
        if (k >= 0 && !(nr.flags & WC_AF_FIRST))
            c->active_uj[k] = nr.active_uj;
    }
    wc_store_iter_close(it);
    if (!rc && step < 0)
        rc = step;
    it = NULL;
    if (!rc)
        rc = wc_store_tenant_rows_open(c->st, model_id, WC_LEVEL_POD, c->zone,
                                       WC_TENANT_ROWS_ALL, &it, err);
    wc_tenant_row tr;
    while (!rc && (step = wc_store_tenant_next(it, &tr, err)) == 1) {
        long k = tick_index(c, tr.tick_id);
        pod *p = find_pod(c, tr.key);
        if (p && k >= 0)
            p->energy_uj[k] += tr.energy_uj;
    }
    wc_store_iter_close(it);
    return rc ? rc : (step < 0 ? step : 0);
}

/* Adds one interval to a pod's sums when every figure of it is known. */
static int add_interval(acc *a, double e_j, double act_j, double cpu_s, double busy_s)
{
    if (!isfinite(e_j) || !isfinite(act_j) || !isfinite(cpu_s) || !isfinite(busy_s) ||
        e_j < 0 || act_j < 0 || cpu_s < 0 || busy_s <= 0)
        return 0;
    a->e += e_j;
    a->a += act_j;
    a->c += cpu_s;
    a->b += busy_s;
    a->n++;
    return 1;
}

/* The model's source: every tick interval with both clocks' CPU read. */
static int64_t model_intervals(ctx *c)
{
    int64_t most = 0;
    for (size_t i = 0; i < c->npods; i++) {
        pod *p = &c->pods[i];
        for (size_t k = 1; k < c->n; k++)
            add_interval(&p->src[0], p->energy_uj[k] / 1e6, c->active_uj[k] / 1e6,
                         p->usage_s[k] - p->usage_s[k - 1], c->busy_s[k] - c->busy_s[k - 1]);
        if (p->src[0].n > most)
            most = p->src[0].n;
    }
    return most;
}

/* A per-tick cumulative series at monotonic time t, linear between ticks
 * (NAN outside the run or next to an unread tick). */
static double at_time(const ctx *c, const double *v, int64_t t)
{
    if (c->n < 2 || t < c->mono[0] || t > c->mono[c->n - 1])
        return NAN;
    size_t lo = 0, hi = c->n - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (c->mono[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    if (t == c->mono[lo])
        return v[lo]; /* on a tick: its own reading, whatever its neighbour's */
    if (t == c->mono[hi])
        return v[hi];
    double f = (double)(t - c->mono[lo]) / (double)(c->mono[hi] - c->mono[lo]);
    return v[lo] + (v[hi] - v[lo]) * f;
}

/* ---- the exporter's own numbers ----------------------------------------- */

typedef struct id_map {
    int64_t id;
    long v;                      /* scrape index; or series: pod index, -2 node */
} id_map;

typedef struct xp {
    wc_scrape_meta *scrapes;
    size_t nscrapes;
    id_map *sid;                 /* scrape id -> index, sorted by id */
    id_map *series;              /* series id -> pod or node, sorted by id */
    size_t nseries, nnode;
    double *node_j;              /* per scrape: Σ node active joules series */
    size_t *node_n;              /* how many of them were there */
} xp;

static void xp_free(xp *x)
{
    free(x->scrapes);
    free(x->sid);
    free(x->series);
    free(x->node_j);
    free(x->node_n);
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = ((const id_map *)a)->id, y = ((const id_map *)b)->id;
    return x < y ? -1 : x > y;
}

static long map_get(const id_map *m, size_t n, int64_t id)
{
    id_map key = {.id = id};
    const id_map *hit = bsearch(&key, m, n, sizeof *m, cmp_id);
    return hit ? hit->v : -1;
}

/* The exporter's pod joules and node active joules series of the zone. */
static int xp_series(ctx *c, xp *x, int64_t exporter_id, wc_error *err)
{
    wc_exporter_series_row *rows = NULL;
    size_t n = 0;
    int rc = wc_store_exporter_series(c->st, exporter_id, &rows, &n, err);
    if (!rc && !(x->series = malloc((n ? n : 1) * sizeof *x->series)))
        rc = wc_error_set(err, -ENOMEM, "cpu share: out of memory");
    for (size_t i = 0; i < n && !rc; i++) {
        const wc_exporter_series_row *s = &rows[i];
        if (strcmp(s->zone, c->zone) != 0)
            continue;
        if (!strcmp(s->level, "node") && !strcmp(s->quantity, "active_joules")) {
            x->series[x->nseries++] = (id_map){s->id, -2};
            x->nnode++;
        } else if (!strcmp(s->level, "pod") && !strcmp(s->quantity, "joules")) {
            pod *p = find_pod(c, s->key);
            if (!p)
                continue; /* no cgroup accounting for it: no CPU share */
            snprintf(p->name, sizeof p->name, "%s", s->name);
            snprintf(p->ns, sizeof p->ns, "%s", s->ns);
            x->series[x->nseries++] = (id_map){s->id, (long)(p - c->pods)};
        }
    }
    free(rows);
    if (!rc)
        qsort(x->series, x->nseries, sizeof *x->series, cmp_id);
    return rc;
}

/* The scrapes in time order, and their index by id. */
static int xp_scrapes(ctx *c, xp *x, int64_t exporter_id, wc_error *err)
{
    int rc = wc_store_scrapes(c->st, exporter_id, &x->scrapes, &x->nscrapes, err);
    size_t n = x->nscrapes ? x->nscrapes : 1;
    if (!rc) {
        x->sid = malloc(n * sizeof *x->sid);
        x->node_j = calloc(n, sizeof *x->node_j);
        x->node_n = calloc(n, sizeof *x->node_n);
        if (!x->sid || !x->node_j || !x->node_n)
            return wc_error_set(err, -ENOMEM, "cpu share: out of memory");
    }
    for (size_t i = 0; !rc && i < x->nscrapes; i++)
        x->sid[i] = (id_map){x->scrapes[i].id, (long)i};
    if (!rc)
        qsort(x->sid, x->nscrapes, sizeof *x->sid, cmp_id);
    return rc;
}

/* One interval of a pod series between scrapes i and j (values vi, vj). */
static void xp_interval(ctx *c, xp *x, pod *p, size_t i, size_t j, double vi, double vj)
{
    if (vj < vi || x->node_n[i] != x->nnode || x->node_n[j] != x->nnode ||
        x->node_j[j] < x->node_j[i])
        return; /* a reset (exporter restart), or the node figure missing */
    int64_t ta = x->scrapes[i].resp_mono_ns, tb = x->scrapes[j].resp_mono_ns;
    add_interval(&p->src[1], vj - vi, x->node_j[j] - x->node_j[i],
                 at_time(c, p->usage_s, tb) - at_time(c, p->usage_s, ta),
                 at_time(c, c->busy_s, tb) - at_time(c, c->busy_s, ta));
}

/* Streams one kind of series (node active first, then pods). */
static int xp_stream(ctx *c, xp *x, int64_t exporter_id, int node, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_exporter_samples_open(c->st, exporter_id, node ? "node" : "pod",
                                            node ? "active_joules" : "joules", &it, err);
    wc_exporter_sample_row s;
    int64_t cur = -1;
    long target = -1, prev = -1;
    double prev_v = NAN;
    int step = 0;
    while (!rc && (step = wc_store_exporter_sample_next(it, &s, err)) == 1) {
        if (s.series_id != cur) {
            cur = s.series_id;
            target = map_get(x->series, x->nseries, cur);
            prev = -1;
        }
        long k = map_get(x->sid, x->nscrapes, s.scrape_id);
        if (target == -1 || k < 0 || !isfinite(s.value))
            continue;
        if (node && target == -2) {
            x->node_j[k] += s.value;
            x->node_n[k]++;
        } else if (!node && target >= 0) {
            if (prev >= 0)
                xp_interval(c, x, &c->pods[target], (size_t)prev, (size_t)k, prev_v, s.value);
            prev = k;
            prev_v = s.value;
        }
    }
    wc_store_iter_close(it);
    return rc ? rc : (step < 0 ? step : 0);
}

/* The first exporter of the run as source 1; 0 with *have 0 when none. */
static int exporter_intervals(ctx *c, wc_share_source *src, int *have, int64_t *most,
                              wc_error *err)
{
    wc_exporter_info e[4];
    size_t ne = 0;
    *have = 0;
    int rc = wc_store_exporters(c->st, e, 4, &ne, err);
    if (rc || ne == 0)
        return rc;
    xp x;
    memset(&x, 0, sizeof x);
    rc = xp_series(c, &x, e[0].id, err);
    if (!rc)
        rc = xp_scrapes(c, &x, e[0].id, err);
    if (!rc)
        rc = xp_stream(c, &x, e[0].id, 1, err);
    if (!rc)
        rc = xp_stream(c, &x, e[0].id, 0, err);
    xp_free(&x);
    snprintf(src->source, sizeof src->source, "exporter:%.54s", e[0].spec);
    snprintf(src->provenance, sizeof src->provenance, "%s", e[0].provenance);
    *most = 0;
    for (size_t i = 0; i < c->npods; i++)
        if (c->pods[i].src[1].n > *most)
            *most = c->pods[i].src[1].n;
    *have = 1;
    return rc;
}

/* ---- the rows -------------------------------------------------------------- */

static int cmp_row(const void *a, const void *b)
{
    double x = fabs(((const wc_share_row *)a)->diff_pts);
    double y = fabs(((const wc_share_row *)b)->diff_pts);
    if (isnan(x) != isnan(y))
        return isnan(x) ? 1 : -1;
    return x > y ? -1 : x < y;
}

static wc_share_row make_row(const pod *p, const acc *a)
{
    wc_share_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.pod_uid, sizeof r.pod_uid, "%s", p->uid);
    snprintf(r.name, sizeof r.name, "%s", p->name);
    snprintf(r.ns, sizeof r.ns, "%s", p->ns);
    r.energy_j = a->e;
    r.active_j = a->a;
    r.cpu_s = a->c;
    r.busy_s = a->b;
    r.energy_pct = a->a > 0 ? 100.0 * a->e / a->a : NAN;
    r.cpu_pct = a->b > 0 ? 100.0 * a->c / a->b : NAN;
    r.diff_pts = r.energy_pct - r.cpu_pct;
    r.ratio = r.cpu_pct > 0 ? r.energy_pct / r.cpu_pct : NAN;
    r.intervals = a->n;
    return r;
}

/* The rows of source s (index si of every pod's sums), largest disagreement
 * first, the top WC_CPU_SHARE_TOP kept. */
static int finish_source(const ctx *c, size_t si, int64_t intervals, wc_share_source *s,
                         wc_error *err)
{
    wc_share_row *all = malloc((c->npods ? c->npods : 1) * sizeof *all);
    if (!all)
        return wc_error_set(err, -ENOMEM, "cpu share: out of memory");
    s->npods = 0;
    for (size_t i = 0; i < c->npods; i++)
        if (c->pods[i].src[si].n > 0)
            all[s->npods++] = make_row(&c->pods[i], &c->pods[i].src[si]);
    qsort(all, s->npods, sizeof *all, cmp_row);
    s->nrows = s->npods < WC_CPU_SHARE_TOP ? s->npods : WC_CPU_SHARE_TOP;
    memcpy(s->rows, all, s->nrows * sizeof *all);
    free(all);
    s->intervals = intervals;
    s->too_little = intervals < WC_CPU_SHARE_MIN_INTERVALS;
    return 0;
}

/* Loads and compares once the run is known to have pod cgroups. */
static int compute(ctx *c, int64_t model_id, const char *model, wc_cpu_share_report *r,
                   wc_error *err)
{
    int rc = load_usage(c, err);
    if (!rc)
        rc = load_model(c, model_id, err);
    if (rc)
        return rc;
    wc_share_source *m = &r->src[r->nsrc++];
    snprintf(m->source, sizeof m->source, "model:%.50s", model);
    snprintf(m->provenance, sizeof m->provenance, "attributed by model %.60s", model);
    rc = finish_source(c, 0, model_intervals(c), m, err);
    int have = 0;
    int64_t most = 0;
    if (!rc)
        rc = exporter_intervals(c, &r->src[1], &have, &most, err);
    if (!rc && have) {
        r->nsrc++;
        rc = finish_source(c, 1, most, &r->src[1], err);
    }
    return rc;
}

int wc_cpu_share_compute(wc_store *st, int64_t model_id, const char *model, const char *zone,
                         wc_cpu_share_report *r, wc_error *err)
{
    memset(r, 0, sizeof *r);
    snprintf(r->zone, sizeof r->zone, "%s", zone);
    ctx c;
    memset(&c, 0, sizeof c);
    c.st = st;
    c.zone = zone;
    int rc = load_ticks(&c, err);
    if (!rc)
        rc = load_pods(&c, r, err);
    if (!rc && c.npods > 0 && c.n >= 2) {
        r->have = 1;
        r->pods = c.npods;
        rc = compute(&c, model_id, model, r, err);
    }
    ctx_free(&c);
    if (rc)
        memset(r, 0, sizeof *r);
    return rc;
}
