/*
 * fleet.c — `wattcal fleet`'s library half (fleet.h): the nodes found in
 * Prometheus, then node by node its series, versions, hardware, node power
 * against ground truth, pod gap (energy outside pods) and top pods; a verdict and a risk
 * class; the node's samples freed before the next node. The CLI
 * (cli/cmd_fleet.c) keeps the small per-node results, sorts them by risk and
 * hands them to reports/fleet_report.c and wc_fleet_junit_write
 * (fleet_junit.c).
 */
#include "validator/fleet.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/exporter/expo_parse.h"
#include "collector/exporter/kepler_metrics.h"
#include "collector/import/prom_nodes.h"
#include "common/wc_clock.h"
#include "common/wc_text.h"
#include "validator/align.h"
#include "validator/series.h"
#include "validator/stat_table.h"
#include "validator/validation.h"

#define MAX_TARGETS 8
#define MAX_SERIES 32
#define MAX_LABELS 64
#define KEY_CAP 512
#define MAX_TRUTH_WATTS 100000.0
#define NODE_ZONES "package|dram"

/* A node found (one per node energy series until merged): name, layout,
 * the meters of its node series (prom_nodes.h). */
typedef struct fname {
    char *name;
    wc_kep_layout layout;
    wc_kep_meter meters[4];
    size_t nmeters;
} fname;

/* A scrape target exporting the node. */
typedef struct ftarget {
    char job[256], instance[256];
} ftarget;

/* One node energy counter of the current node: its values on the grid. */
typedef struct fseries {
    char key[KEY_CAP];
    double *v;
} fseries;

/* The fleet run in progress; the node part is reset per node. */
typedef struct fctx {
    const wc_fleet_opts *o;
    wc_fleet_summary *sum;
    wc_prom *api;
    regex_t re;
    int have_re;
    int64_t start_ms, end_ms, npoints;
    fname *names;
    size_t nnames, cap;
    /* the current node */
    wc_fleet_node *n;
    char qnode[400];                      /* the node name as a PromQL string */
    ftarget targets[MAX_TARGETS];
    size_t ntargets;
    wc_kep_meter meters[MAX_SERIES];
    size_t nmeters;
    int64_t vfirst[WC_FLEET_MAX_VERSIONS];
    fseries ser[MAX_SERIES];
    size_t nser;
    double *truth;
    char truth_key[KEY_CAP];
    double active_j[2], pods_j[2];
} fctx;

static const char *const ZONES[2] = {"package", "dram"};

static int oom(wc_error *err) { return wc_error_set(err, -ENOMEM, "fleet: out of memory"); }

static const char *label_of(const wc_prom_series *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return "";
}

/* The HTTP calls, timed (the time the fleet waits on the server). */
static int q_series(fctx *c, const char *sel, wc_prom_cb cb, wc_error *err)
{
    int64_t t0 = wc_mono_ns();
    const char *m[1] = {sel};
    int rc = wc_prom_series_find(c->api, m, 1, c->start_ms, c->end_ms, cb, c, err);
    c->sum->http_s += (double)(wc_mono_ns() - t0) / 1e9;
    return rc;
}

static int q_range(fctx *c, const char *q, wc_prom_cb cb, wc_error *err)
{
    int64_t t0 = wc_mono_ns();
    wc_prom_range r = {c->start_ms, c->end_ms, c->o->step_ms, WC_PROM_MAX_POINTS};
    int rc = wc_prom_query_range(c->api, q, &r, cb, c, err);
    c->sum->http_s += (double)(wc_mono_ns() - t0) / 1e9;
    return rc;
}

static int q_instant(fctx *c, const char *q, wc_prom_cb cb, wc_error *err)
{
    int64_t t0 = wc_mono_ns();
    int rc = wc_prom_query(c->api, q, c->end_ms, cb, c, err);
    c->sum->http_s += (double)(wc_mono_ns() - t0) / 1e9;
    return rc;
}

/* The instant index of a grid time, -1 off the grid. */
static int64_t instant(const fctx *c, int64_t t_ms)
{
    int64_t d = t_ms - c->start_ms;
    if (d < 0 || d % c->o->step_ms || d / c->o->step_ms >= c->npoints)
        return -1;
    return d / c->o->step_ms;
}

/* ============================================================ the nodes */

int wc_fleet_truth_query(const char *tmpl, const char *node, char *buf, size_t cap)
{
    char q[600];
    size_t used = 0;
    if (!strstr(tmpl, "{{node}}"))
        return -EINVAL;
    if (wc_prom_quote(node, q, sizeof q))
        return -ENOSPC;
    q[strlen(q) - 1] = '\0'; /* the quotes off: the template has its own */
    buf[0] = '\0';
    for (const char *t = tmpl; *t;) {
        const char *at = strstr(t, "{{node}}");
        size_t len = at ? (size_t)(at - t) : strlen(t);
        if (used + len + (at ? strlen(q + 1) : 0) + 1 > cap)
            return -ENOSPC;
        memcpy(buf + used, t, len);
        used += len;
        buf[used] = '\0';
        if (!at)
            break;
        wc_append(buf, cap, &used, "%s", q + 1);
        t = at + 8;
    }
    return 0;
}

/* A node energy series of either layout (prom_nodes.h): one entry each. */
static int name_cb(void *ctx, const char *node, wc_kep_layout layout, wc_kep_meter meter,
                   wc_error *err)
{
    fctx *c = ctx;
    if (c->have_re && regexec(&c->re, node, 0, NULL, 0) != 0)
        return 0;
    if (c->nnames == 16 * (size_t)WC_FLEET_MAX_NODES)
        return wc_error_set(err, -E2BIG, "fleet: more than %d nodes: narrow --nodes",
                            WC_FLEET_MAX_NODES);
    if (c->nnames == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        fname *nn2 = realloc(c->names, cap * sizeof *nn2);
        if (!nn2)
            return oom(err);
        c->names = nn2;
        c->cap = cap;
    }
    fname *f = &c->names[c->nnames];
    if (!(f->name = strdup(node)))
        return oom(err);
    f->layout = layout;
    f->meters[0] = meter;
    f->nmeters = 1;
    c->nnames++;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const fname *)a)->name, ((const fname *)b)->name);
}

/* Sorts the entries and merges those of one node (v0.10+ when any series is). */
static void merge_names(fctx *c)
{
    size_t k = 0;
    if (c->nnames)
        qsort(c->names, c->nnames, sizeof *c->names, cmp_name);
    for (size_t i = 0; i < c->nnames; i++) {
        fname *f = &c->names[i], *last = k ? &c->names[k - 1] : NULL;
        if (!last || strcmp(last->name, f->name)) {
            c->names[k++] = *f;
            continue;
        }
        if (f->layout == WC_KEP_V010 && last->layout != WC_KEP_V010)
            last->nmeters = 0;
        if (f->layout == last->layout && last->nmeters < 4)
            last->meters[last->nmeters++] = f->meters[0];
        last->layout = f->layout == WC_KEP_V010 ? WC_KEP_V010 : last->layout;
        free(f->name);
    }
    c->nnames = k;
}

/* Every node of the exporter's node counters, either layout, sorted, unique. */
static int find_nodes(fctx *c, wc_error *err)
{
    int64_t t0 = wc_mono_ns();
    int rc = wc_prom_nodes_find(c->api, c->start_ms, c->end_ms, name_cb, c, err);
    c->sum->http_s += (double)(wc_mono_ns() - t0) / 1e9;
    if (rc)
        return rc;
    merge_names(c);
    if (c->nnames > WC_FLEET_MAX_NODES)
        return wc_error_set(err, -E2BIG, "fleet: more than %d nodes: narrow --nodes",
                            WC_FLEET_MAX_NODES);
    if (!c->nnames) {
        char nodes[300] = "";
        size_t nn = 0;
        wc_error ignored = {{0}};
        wc_prom_label_values(c->api, "node_name", c->start_ms, c->end_ms, nodes, sizeof nodes,
                             &nn, &ignored);
        return wc_error_set(err, -ENOENT, "prometheus %s: no node%s has Kepler node energy "
                            "series in the range (kepler_node_cpu_joules_total, v0.10+, or "
                            "kepler_node_<zone>_joules_total, <= 0.9); node_name values there: %s",
                            wc_prom_url(c->api), c->have_re ? " matching --nodes" : "",
                            nn ? nodes : "none");
    }
    return 0;
}

/* ======================================================= one node: series */

static int add_target(fctx *c, const wc_prom_series *s)
{
    const char *job = label_of(s, "job"), *inst = label_of(s, "instance");
    for (size_t i = 0; i < c->ntargets; i++)
        if (!strcmp(c->targets[i].job, job) && !strcmp(c->targets[i].instance, inst))
            return 0;
    if (c->ntargets == MAX_TARGETS || strlen(job) > 255 || strlen(inst) > 255)
        return 0; /* more are not looked at for versions and hardware */
    snprintf(c->targets[c->ntargets].job, 256, "%s", job);
    snprintf(c->targets[c->ntargets].instance, 256, "%s", inst);
    c->ntargets++;
    return 0;
}

/* A node series: its meter (Kepler's classification of its path), target, zone. */
static int node_series_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    (void)err;
    fctx *c = ctx;
    wc_expo_label lab[MAX_LABELS];
    size_t nl = s->nlabels < MAX_LABELS ? s->nlabels : MAX_LABELS;
    for (size_t i = 0; i < nl; i++)
        lab[i] = (wc_expo_label){s->labels[i].name, s->labels[i].value};
    wc_expo_sample es = {.name = s->metric, .family = s->metric, .type = WC_EXPO_UNTYPED,
                         .labels = lab, .nlabels = nl};
    wc_kep_fact f;
    if (wc_kepler_classify(&es, &f) && c->nmeters < MAX_SERIES)
        c->meters[c->nmeters++] = f.meter;
    return add_target(c, s);
}

static int version_at(fctx *c, const char *v, int64_t t_ms)
{
    wc_fleet_node *n = c->n;
    for (size_t i = 0; i < n->nversions; i++)
        if (!strcmp(n->versions[i], v)) {
            c->vfirst[i] = t_ms < c->vfirst[i] ? t_ms : c->vfirst[i];
            return 0;
        }
    if (n->nversions == WC_FLEET_MAX_VERSIONS)
        return 0;
    wc_copy_trunc(n->versions[n->nversions], sizeof n->versions[0], *v ? v : "(none)");
    c->vfirst[n->nversions++] = t_ms;
    return 0;
}

static int info_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    (void)err;
    fctx *c = ctx;
    if (!s->npoints)
        return 0;
    if (!strcmp(s->metric, "kepler_build_info"))
        return version_at(c, label_of(s, "version"), s->points[0].t_ms);
    if (!strcmp(s->metric, "kepler_node_cpu_info") && !strcmp(c->n->hardware, "unknown") &&
        *label_of(s, "model_name"))
        wc_copy_trunc(c->n->hardware, sizeof c->n->hardware, label_of(s, "model_name"));
    return 0;
}

/* Versions in order of first appearance. */
static void order_versions(fctx *c)
{
    wc_fleet_node *n = c->n;
    for (size_t i = 1; i < n->nversions; i++)
        for (size_t j = i; j > 0 && c->vfirst[j] < c->vfirst[j - 1]; j--) {
            char tmp[48];
            int64_t t = c->vfirst[j];
            memcpy(tmp, n->versions[j], sizeof tmp);
            memcpy(n->versions[j], n->versions[j - 1], sizeof tmp);
            memcpy(n->versions[j - 1], tmp, sizeof tmp);
            c->vfirst[j] = c->vfirst[j - 1];
            c->vfirst[j - 1] = t;
        }
}

/* The node's series, power source, targets; their versions and hardware. */
static int node_identity(fctx *c, wc_error *err)
{
    char sel[1600], qj[600], qi[600];
    snprintf(sel, sizeof sel, "kepler_node_cpu_joules_total{node_name=%s}", c->qnode);
    int rc = q_series(c, sel, node_series_cb, err);
    wc_copy_trunc(c->n->power_source, sizeof c->n->power_source,
                  wc_kepler_power_source(c->meters, c->nmeters));
    for (size_t i = 0; !rc && i < c->ntargets; i++) {
        if (wc_prom_quote(c->targets[i].job, qj, sizeof qj) ||
            wc_prom_quote(c->targets[i].instance, qi, sizeof qi))
            return wc_error_set(err, -EINVAL, "node %s: a job or instance label too long",
                                c->n->node);
        snprintf(sel, sizeof sel, "{__name__=~\"kepler_build_info|kepler_node_cpu_info\","
                 "job=%s,instance=%s}", qj, qi);
        rc = q_range(c, sel, info_cb, err);
    }
    order_versions(c);
    return rc;
}

/* ======================================================== one node: power */

static int counter_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    fctx *c = ctx;
    char key[KEY_CAP];
    size_t used = 0;
    key[0] = '\0';
    for (size_t i = 0; i < s->nlabels; i++)
        wc_append(key, sizeof key, &used, "%s=%s,", s->labels[i].name, s->labels[i].value);
    size_t j = 0;
    while (j < c->nser && strcmp(c->ser[j].key, key))
        j++;
    if (j == c->nser) {
        if (c->nser == MAX_SERIES)
            return wc_error_set(err, -E2BIG, "node %s: more than %d package/dram counters",
                                c->n->node, MAX_SERIES);
        if (!(c->ser[j].v = malloc((size_t)c->npoints * sizeof(double))))
            return oom(err);
        for (int64_t k = 0; k < c->npoints; k++)
            c->ser[j].v[k] = NAN;
        snprintf(c->ser[j].key, KEY_CAP, "%s", key);
        c->nser++;
    }
    for (size_t i = 0; i < s->npoints; i++) {
        int64_t k = instant(c, s->points[i].t_ms);
        if (k >= 0)
            c->ser[j].v[k] = s->points[i].value;
    }
    return 0;
}

static int truth_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    fctx *c = ctx;
    char key[KEY_CAP];
    size_t used = 0;
    key[0] = '\0';
    wc_append(key, sizeof key, &used, "%s{", s->metric);
    for (size_t i = 0; i < s->nlabels; i++)
        wc_append(key, sizeof key, &used, "%s%s=\"%s\"", i ? "," : "", s->labels[i].name,
                  s->labels[i].value);
    wc_append(key, sizeof key, &used, "}");
    if (!c->truth_key[0])
        snprintf(c->truth_key, sizeof c->truth_key, "%s", key);
    else if (strcmp(c->truth_key, key))
        return wc_error_set(err, -EINVAL, "node %s: --truth-query returned more than one series "
                            "(%.150s and %.150s): wrap it in sum(...) or max(...)", c->n->node,
                            c->truth_key, key);
    for (size_t i = 0; i < s->npoints; i++) {
        int64_t k = instant(c, s->points[i].t_ms);
        double w = s->points[i].value;
        if (k >= 0 && isfinite(w) && w >= 0 && w <= MAX_TRUTH_WATTS)
            c->truth[k] = w;
    }
    return 0;
}

/* Node power over interval k (W): Σ over counters of Δ/step; NAN when a
 * counter reset (the interval is void) or no counter spans it. */
static double interval_watts(const fctx *c, int64_t k)
{
    double w = 0, step_s = (double)c->o->step_ms / 1000.0;
    int any = 0;
    for (size_t j = 0; j < c->nser; j++) {
        double a = c->ser[j].v[k], b = c->ser[j].v[k + 1];
        if (!isfinite(a) || !isfinite(b))
            continue;
        if (b < a)
            return NAN;
        w += (b - a) / step_s;
        any = 1;
    }
    return any ? w : NAN;
}

/* The node's package+dram energy as a cumulative series on the grid (J since
 * the start; an interval with a reset or no counter is unusable), times
 * relative to the start as import --prometheus dates its ticks. */
static int node_cumseries(const fctx *c, int64_t *t_ns, wc_cumseries *cs)
{
    size_t m = (size_t)c->npoints;
    double step_s = (double)c->o->step_ms / 1000.0;
    memset(cs, 0, sizeof *cs);
    cs->cum = malloc(m * sizeof *cs->cum);
    cs->ok = malloc(m);
    if (!cs->cum || !cs->ok)
        return -ENOMEM;
    cs->n = m;
    cs->t_ns = t_ns;
    cs->cum[0] = 0;
    for (size_t k = 0; k < m; k++) {
        t_ns[k] = (int64_t)k * c->o->step_ms * 1000000LL;
        if (k + 1 == m)
            break;
        double w = interval_watts(c, (int64_t)k);
        cs->ok[k] = isfinite(w);
        cs->cum[k + 1] = cs->cum[k] + (isfinite(w) ? w * step_s : 0);
        cs->unusable += !isfinite(w);
    }
    cs->ok[m - 1] = 0;
    return 0;
}

/* The truth values as readings, each of the interval since the previous value
 * (at most 3 steps back, else one step), as validator/series.c makes them
 * from an imported run's truth samples. */
static int node_readings(const fctx *c, wc_truth_series *t)
{
    int64_t step_ns = c->o->step_ms * 1000000LL, prev = -1;
    memset(t, 0, sizeof *t);
    if (!(t->r = calloc((size_t)c->npoints, sizeof *t->r)))
        return -ENOMEM;
    snprintf(t->spec, sizeof t->spec, "--truth-query");
    for (int64_t k = 0; k < c->npoints; k++) {
        if (!isfinite(c->truth[k]))
            continue;
        wc_truth_reading *r = &t->r[t->n++];
        r->t_ns = r->b_ns = k * step_ns;
        r->a_ns = r->b_ns - (prev >= 0 && k - prev <= 3 ? (k - prev) * step_ns : step_ns);
        r->watts = c->truth[k];
        prev = k;
    }
    t->median_spacing_s = (double)c->o->step_ms / 1000.0;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* 0.1 x the median truth reading: validate's MAPE floor (accuracy.c). */
static double mape_floor(const wc_truth_series *t)
{
    double *v = malloc(t->n * sizeof *v), m;
    if (!v || !t->n) {
        free(v);
        return 0;
    }
    for (size_t i = 0; i < t->n; i++)
        v[i] = t->r[i].watts;
    qsort(v, t->n, sizeof *v, cmp_double);
    m = t->n % 2 ? v[t->n / 2] : 0.5 * (v[t->n / 2 - 1] + v[t->n / 2]);
    free(v);
    return 0.1 * m;
}

/* Lag, pairs (align.h, native: one per reading) and their statistics. */
static int score_pairs(fctx *c, const wc_cumseries *cs, const wc_truth_series *t, wc_error *err)
{
    wc_lagwin lw;
    wc_lag_search search = {0};
    wc_pairs p = {0};
    wc_fleet_node *n = c->n;
    if (wc_lagwin_estimate(cs, t, &search, &c->o->boot, &lw) ||
        wc_align_native(cs, t, &lw, INT64_MIN, INT64_MAX, &p)) {
        wc_pairs_free(&p);
        return oom(err);
    }
    n->lag_s = lw.lag_s;
    n->lag_identifiable = lw.identifiable;
    n->npairs = p.n;
    for (size_t k = 0; k < p.n; k++) {
        double len = (double)(p.b_ns[k] - p.a_ns[k]) / 1e9;
        n->exporter_joules += p.source_w[k] * len;
        n->truth_joules += p.truth_w[k] * len;
    }
    int rc = 0;
    if (p.n > 0) {
        wc_boot_cfg boot = c->o->boot;
        boot.min_block = p.min_block;
        rc = wc_accuracy_compute(p.source_w, p.truth_w, p.n, mape_floor(t), &boot, &n->acc);
        if (rc)
            wc_error_set(err, rc, "node %s: statistics of %zu pairs", n->node, p.n);
        n->have_accuracy = !rc;
    }
    wc_pairs_free(&p);
    return rc;
}

/* The node's power against its truth, aligned as `validate` aligns them. */
static int score(fctx *c, wc_error *err)
{
    int64_t *t_ns = malloc((size_t)c->npoints * sizeof *t_ns);
    wc_cumseries cs = {0};
    wc_truth_series t = {0};
    int rc = t_ns && !node_cumseries(c, t_ns, &cs) && !node_readings(c, &t) ? 0 : oom(err);
    if (!rc)
        rc = score_pairs(c, &cs, &t, err);
    wc_cumseries_free(&cs);
    wc_truth_series_free(&t);
    free(t_ns);
    return rc;
}

/* The node's package+dram counters and its truth on the grid, then scored. */
static int node_power(fctx *c, wc_error *err)
{
    char q[2048];
    snprintf(q, sizeof q, "kepler_node_cpu_joules_total{node_name=%s,zone=~\"" NODE_ZONES "\"}",
             c->qnode);
    snprintf(c->n->zones, sizeof c->n->zones, "package+dram");
    int rc = q_range(c, q, counter_cb, err);
    if (rc || !c->o->truth_template)
        return rc;
    if (!(c->truth = malloc((size_t)c->npoints * sizeof *c->truth)))
        return oom(err);
    for (int64_t k = 0; k < c->npoints; k++)
        c->truth[k] = NAN;
    if (wc_fleet_truth_query(c->o->truth_template, c->n->node, q, sizeof q))
        return wc_error_set(err, -EINVAL, "node %s: --truth-query longer than %zu bytes with "
                            "the node in it", c->n->node, sizeof q - 1);
    rc = q_range(c, q, truth_cb, err);
    return rc ? rc : score(c, err);
}

/* ==================================================== one node: gap, pods */

static int gap_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    (void)err;
    fctx *c = ctx;
    const char *z = label_of(s, "zone"), *what = label_of(s, "what");
    for (int i = 0; i < 2 && s->npoints; i++)
        if (!strcmp(z, ZONES[i]))
            *(strcmp(what, "pods") ? &c->active_j[i] : &c->pods_j[i]) = s->points[0].value;
    return 0;
}

static int pod_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    (void)err;
    fctx *c = ctx;
    wc_fleet_node *n = c->n;
    if (!s->npoints || !isfinite(s->points[0].value) || n->ntop == WC_FLEET_MAX_TOP)
        return 0;
    wc_fleet_pod *p = &n->top[n->ntop++];
    wc_copy_trunc(p->name, sizeof p->name, label_of(s, "pod_name"));
    wc_copy_trunc(p->ns, sizeof p->ns, label_of(s, "pod_namespace"));
    p->joules = s->points[0].value;
    return 0;
}

static int cmp_pod(const void *a, const void *b)
{
    double x = ((const wc_fleet_pod *)a)->joules, y = ((const wc_fleet_pod *)b)->joules;
    return x < y ? 1 : x > y ? -1 : strcmp(((const wc_fleet_pod *)a)->name,
                                           ((const wc_fleet_pod *)b)->name);
}

/* The exporter's gap per zone and its top pods, increase() over the range. */
static int node_gap(fctx *c, wc_error *err)
{
    char q[2048];
    long long r_s = (c->end_ms - c->start_ms) / 1000;
    snprintf(q, sizeof q,
             "label_replace(sum by (zone) (increase(kepler_node_cpu_active_joules_total{"
             "node_name=%s,zone=~\"" NODE_ZONES "\"}[%llds])), \"what\", \"active\", \"\", \"\") "
             "or label_replace(sum by (zone) (increase(kepler_pod_cpu_joules_total{node_name=%s,"
             "zone=~\"" NODE_ZONES "\"}[%llds])), \"what\", \"pods\", \"\", \"\")",
             c->qnode, r_s, c->qnode, r_s);
    int rc = q_instant(c, q, gap_cb, err);
    for (int i = 0; i < 2; i++)
        c->n->gap_pct[i] = c->active_j[i] > 0 ? 100.0 * (1.0 - c->pods_j[i] / c->active_j[i])
                                              : NAN;
    snprintf(q, sizeof q, "topk(%zu, sum by (pod_name, pod_namespace) (increase("
             "kepler_pod_cpu_joules_total{node_name=%s,zone=~\"" NODE_ZONES "\"}[%llds])))",
             c->o->top_pods, c->qnode, r_s);
    if (!rc)
        rc = q_instant(c, q, pod_cb, err);
    qsort(c->n->top, c->n->ntop, sizeof c->n->top[0], cmp_pod);
    return rc;
}

/* =========================================================== the verdict */

static void reason(wc_fleet_node *n, wc_fleet_risk r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void reason(wc_fleet_node *n, wc_fleet_risk r, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t used = strlen(n->reasons);
    wc_append(n->reasons, sizeof n->reasons, &used, "%s%s", used ? "; " : "", line);
    n->status = WC_CHECK_FAIL;
    n->risk = r < n->risk ? r : n->risk;
}

/* The tolerances of the accuracy statistics, against the node's pairs. */
static void check_accuracy(const wc_fleet_opts *o, wc_fleet_node *n)
{
    for (size_t i = 0; i < o->ntol; i++) {
        const wc_tolerance *t = &o->tol[i];
        wc_check ck = {.value = NAN, .lo = NAN, .hi = NAN};
        if (t->metric != WC_TOL_STAT)
            continue;
        wc_tol_stat_value(t->stat, &n->acc, &ck);
        if (isfinite(ck.value) && ck.value > t->threshold)
            reason(n, WC_FLEET_NODE_ERROR, "%s %.2f%s beyond %s (95%% CI %.2f .. %.2f)",
                   t->stat->tol_what ? t->stat->tol_what : t->stat->key, ck.value,
                   t->stat->unit, t->text, ck.lo, ck.hi);
    }
}

/* Whether the node's accuracy can be judged: as validate, at least
 * WC_CHECK_MIN_N pairs, and a finite 95 % interval of the bias (the block
 * bootstrap gives none on a few pairs: a verdict would rest on one point). */
static int judged(const wc_fleet_node *n)
{
    return n->have_accuracy && n->npairs >= WC_CHECK_MIN_N && isfinite(n->acc.bias_pct.lo) &&
           isfinite(n->acc.bias_pct.hi);
}

static void verdict(const wc_fleet_opts *o, wc_fleet_node *n)
{
    n->status = WC_CHECK_PASS;
    n->risk = WC_FLEET_PASSED;
    if (!strcmp(n->power_source, "not measured"))
        reason(n, WC_FLEET_NOT_MEASURED, "power source not measured (fake meter or estimate): "
               "its pod numbers must not reach showback");
    else if (strcmp(n->power_source, "measured"))
        reason(n, WC_FLEET_UNKNOWN_SOURCE, "power source unknown (path labels wattcal cannot "
               "classify): not a known measurement");
    int enough = judged(n);
    if (enough)
        check_accuracy(o, n);
    if (n->nversions > 1)
        reason(n, WC_FLEET_VERSION_CHANGED, "exporter version changed in the range (%s -> %s): "
               "numbers on either side are not comparable", n->versions[0],
               n->versions[n->nversions - 1]);
    for (size_t i = 0; i < o->ntol; i++)
        for (int z = 0; z < 2 && o->tol[i].metric == WC_TOL_GAP; z++)
            if (isfinite(n->gap_pct[z]) && fabs(n->gap_pct[z]) > o->tol[i].threshold)
                reason(n, WC_FLEET_GAP, "pod gap (energy outside pods) %s %.1f%% beyond %s", ZONES[z],
                       n->gap_pct[z], o->tol[i].text);
    if (n->status == WC_CHECK_PASS && !enough) {
        n->status = WC_CHECK_SKIP;
        n->risk = WC_FLEET_UNCHECKED;
        if (n->have_accuracy)
            snprintf(n->reasons, sizeof n->reasons, "INSUFFICIENT: %zu ground-truth pair(s), no 95 %%"
                     " interval (at least %d and enough for the block bootstrap): node power"
                     " unchecked, no verdict (a longer range or a smaller --step)",
                     n->npairs, WC_CHECK_MIN_N);
        else
            snprintf(n->reasons, sizeof n->reasons, "%s", o->truth_template
                     ? "no ground truth pairs (the truth query returned nothing for this node)"
                     : "no --truth-query: node power unchecked");
    }
}

/* ============================================================ the run */

static void reset_node(fctx *c, wc_fleet_node *n, const char *name)
{
    for (size_t j = 0; j < c->nser; j++)
        free(c->ser[j].v);
    free(c->truth);
    memset(n, 0, sizeof *n);
    wc_copy_trunc(n->node, sizeof n->node, name);
    snprintf(n->hardware, sizeof n->hardware, "unknown");
    c->n = n;
    c->ntargets = c->nmeters = c->nser = 0;
    c->truth = NULL;
    c->truth_key[0] = '\0';
    c->active_j[0] = c->active_j[1] = c->pods_j[0] = c->pods_j[1] = 0;
    n->gap_pct[0] = n->gap_pct[1] = NAN;
}

static void count(wc_fleet_summary *s, const wc_fleet_node *n)
{
    s->errors += n->query_error;
    s->skipped += n->query_error;
    if (n->query_error)
        return; /* its source was not read: not counted as unknown */
    s->measured += !strcmp(n->power_source, "measured");
    s->not_measured += !strcmp(n->power_source, "not measured");
    s->unknown_source += !strcmp(n->power_source, "unknown");
    s->checked += judged(n);
    s->within += n->status == WC_CHECK_PASS;
    s->failed += n->status == WC_CHECK_FAIL;
    s->skipped += n->status == WC_CHECK_SKIP;
    s->legacy += !strcmp(n->layout, "legacy");
}

/* 1 for an error that means the server cannot be used at all (stop the run);
 * any other failure is the node's own (its queries). */
static int fatal(int rc)
{
    return rc == -ENOMEM || rc == -ECONNREFUSED || rc == -EHOSTUNREACH || rc == -EACCES ||
           rc == -EPERM;
}

/* A node whose query failed: NO VERDICT, the reason with the query. */
static void query_error(wc_fleet_node *n, const wc_error *err)
{
    n->query_error = 1;
    n->have_accuracy = 0;
    snprintf(n->power_source, sizeof n->power_source, "not read");
    n->status = WC_CHECK_SKIP;
    n->risk = WC_FLEET_QUERY_ERROR;
    snprintf(n->reasons, sizeof n->reasons, "NO VERDICT: query failed: %.480s", err->msg);
}

/* A Kepler <= 0.9 node: listed with its source, never scored here. */
static void legacy_node(const wc_fleet_opts *o, wc_fleet_node *n, const fname *f)
{
    wc_copy_trunc(n->power_source, sizeof n->power_source,
                  wc_kepler_power_source(f->meters, f->nmeters));
    verdict(o, n);
    if (n->status != WC_CHECK_FAIL) {
        n->status = WC_CHECK_SKIP;
        n->risk = WC_FLEET_UNCHECKED;
        snprintf(n->reasons, sizeof n->reasons, "Kepler <= 0.9 (legacy layout): fleet scores "
                 "v0.10+ nodes only; check it with `wattcal import --prometheus URL --node %.60s` "
                 "then `wattcal validate`", n->node);
    }
}

static int check_node(fctx *c, wc_fleet_node *n, const fname *f, wc_error *err)
{
    reset_node(c, n, f->name);
    snprintf(n->layout, sizeof n->layout, "%s", wc_kep_layout_name(f->layout));
    if (wc_prom_quote(f->name, c->qnode, sizeof c->qnode))
        return wc_error_set(err, -EINVAL, "node name longer than %zu bytes", sizeof c->qnode);
    if (f->layout == WC_KEP_LEGACY) {
        legacy_node(c->o, n, f);
        count(c->sum, n);
        return 0;
    }
    int rc = node_identity(c, err);
    if (!rc)
        rc = node_power(c, err);
    if (!rc)
        rc = node_gap(c, err);
    if (rc && fatal(rc))
        return wc_error_prefix(err, rc, "node %s: ", f->name);
    if (rc)
        query_error(n, err);
    else
        verdict(c->o, n);
    count(c->sum, n);
    return 0;
}

static int each_node(fctx *c, wc_fleet_node_cb cb, void *ctx, wc_error *err)
{
    wc_fleet_node n;
    int rc = 0;
    c->sum->nodes = c->nnames;
    memset(&n, 0, sizeof n);
    for (size_t i = 0; !rc && i < c->nnames; i++) {
        wc_error node_err = {{0}};
        rc = check_node(c, &n, &c->names[i], &node_err);
        if (rc)
            *err = node_err;
        if (!rc)
            rc = cb(ctx, &n, i + 1, c->nnames, err);
    }
    reset_node(c, &n, "");
    return rc;
}

static int setup(fctx *c, const wc_fleet_opts *o, wc_error *err)
{
    char re[600];
    if (o->step_ms < 1 || o->end_ms <= o->start_ms)
        return wc_error_set(err, -EINVAL, "--end must be after --start, --step at least 1 ms");
    c->start_ms = (o->start_ms + o->step_ms - 1) / o->step_ms * o->step_ms;
    c->end_ms = o->end_ms / o->step_ms * o->step_ms;
    c->npoints = c->end_ms >= c->start_ms ? (c->end_ms - c->start_ms) / o->step_ms + 1 : 0;
    if (c->npoints < 2 || c->npoints > 5000000)
        return wc_error_set(err, -EINVAL, "--start .. --end holds %lld instants of the --step "
                            "grid: 2 to 5,000,000 are needed", (long long)c->npoints);
    if (o->top_pods < 1 || o->top_pods > WC_FLEET_MAX_TOP)
        return wc_error_set(err, -EINVAL, "top pods: 1 to %d", WC_FLEET_MAX_TOP);
    if (o->truth_template && !strstr(o->truth_template, "{{node}}"))
        return wc_error_set(err, -EINVAL, "--truth-query: no {{node}} in `%.200s`: every node "
                            "would be scored against the same series", o->truth_template);
    if (o->nodes_regex) {
        if (strlen(o->nodes_regex) > 500)
            return wc_error_set(err, -EINVAL, "--nodes: at most 500 bytes");
        snprintf(re, sizeof re, "^(%s)$", o->nodes_regex);
        if (regcomp(&c->re, re, REG_EXTENDED | REG_NOSUB))
            return wc_error_set(err, -EINVAL, "--nodes: not a regular expression: %.200s",
                                o->nodes_regex);
        c->have_re = 1;
    }
    return 0;
}

int wc_fleet_run(const wc_fleet_opts *o, wc_fleet_node_cb cb, void *ctx,
                 wc_fleet_summary *sum, wc_error *err)
{
    fctx c;
    int64_t t0 = wc_mono_ns();
    memset(&c, 0, sizeof c);
    memset(sum, 0, sizeof *sum);
    c.o = o;
    c.sum = sum;
    int rc = setup(&c, o, err);
    if (!rc)
        rc = wc_prom_open(&o->prom, &c.api, err);
    if (!rc)
        rc = find_nodes(&c, err);
    if (!rc)
        rc = each_node(&c, cb, ctx, err);
    if (c.api) {
        wc_prom_counts pc;
        wc_prom_get_counts(c.api, &pc);
        sum->requests = pc.requests;
        sum->bytes = pc.bytes;
    }
    for (size_t i = 0; i < c.nnames; i++)
        free(c.names[i].name);
    free(c.names);
    if (c.have_re)
        regfree(&c.re);
    wc_prom_close(c.api);
    sum->total_s = (double)(wc_mono_ns() - t0) / 1e9;
    return rc;
}

/* ============================================================ the order */

static int cmp_node(const void *a, const void *b)
{
    const wc_fleet_node *x = a, *y = b;
    if (x->risk != y->risk)
        return (int)x->risk - (int)y->risk;
    double ex = x->have_accuracy ? fabs(x->acc.bias_pct.est) : -1;
    double ey = y->have_accuracy ? fabs(y->acc.bias_pct.est) : -1;
    if (ex != ey)
        return ex < ey ? 1 : -1;
    return strcmp(x->node, y->node);
}

void wc_fleet_sort(wc_fleet_node *nodes, size_t n)
{
    if (n)
        qsort(nodes, n, sizeof *nodes, cmp_node);
}

const char *wc_fleet_risk_name(wc_fleet_risk r)
{
    static const char *const NAMES[] = {"not measured", "unknown source", "node error",
                                        "version changed", "pod gap", "query error",
                                        "unchecked",
                                        "passed"};
    return (unsigned)r <= WC_FLEET_PASSED ? NAMES[r] : "?";
}
