/*
 * import_prom.c — `wattcal import --prometheus`: one node's exporter series
 * (Kepler's own numbers, as a Prometheus server kept them) and ground truth
 * given as PromQL into a NEW run database, so validate, diff and report read
 * the deployed exporter like a live scrape (import.h says which series are
 * the node's and what lands where).
 *
 * Order: the client is opened (credentials, URL) and the node's targets and
 * series found (/api/v1/series) before the DB is created; then, in ONE
 * transaction, the ticks of the evaluation grid, the exporter row, every
 * time chunk of the range (each selector one query_range request of at most
 * 11,000 instants and a bounded number of samples: parsed, its samples
 * grouped per instant into scrape rows and written, then freed), every
 * truth query, the exporter's version and power source, the run row. Any
 * error rolls back and removes the new file. The exporter tables are
 * written through collector/store/store_exporter.h, the meaning of each
 * series comes from collector/exporter/kepler_metrics.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/exporter/expo_parse.h"
#include "collector/exporter/kepler_metrics.h"
#include "collector/import/import.h"
#include "collector/import/prom_nodes.h"
#include "collector/store/store.h"
#include "collector/store/store_exporter.h"
#include "common/wc_clock.h"
#include "common/wc_text.h"

#define MAX_TARGETS 16
#define LABELS_CAP 4096
#define MAX_INSTANTS 5000000LL
#define MAX_TRUTH_WATTS 100000.0
#define MS_NS 1000000LL

/* A scrape target (Prometheus's job and instance labels) exporting the node. */
typedef struct target {
    char job[256], instance[256];
} target;

/* One exporter series of the node. */
typedef struct pseries {
    char *metric, *labels;   /* labels: canonical text of every label but __name__ */
    wc_kep_fact fact;
    int kepler;              /* fact holds Kepler's meaning */
    int64_t last_k;          /* last instant with a value, -1 none */
    int zone;                /* the run zone it feeds (node energy counter), -1 none */
} pseries;

/* One value of the current chunk: instant index, series index, value. */
typedef struct csample {
    int64_t k;
    size_t series;
    double value;
} csample;

/* The import in progress. */
typedef struct pimp {
    const wc_import_prom_opts *o;
    const wc_import_target *t;
    wc_import_summary *sum;
    size_t notes_used;
    wc_prom *api;
    wc_store *st;
    target targets[MAX_TARGETS];
    size_t ntargets;
    char *sel[MAX_TARGETS + 1];   /* the data selectors */
    size_t nsel, found;           /* found: series discovery kept */
    pseries *series;
    size_t nseries, scap;
    size_t *slots, nslots;        /* hash of series: index + 1, 0 empty */
    csample *cs;
    size_t ncs, cscap;
    wc_expo_label *lab;
    size_t labcap;
    int64_t chunk_first, chunk_last, npoints;
    wc_exporter_info ex;
    wc_zone zones[WC_IMPORT_MAX_COLS]; /* the node's energy counters as run zones */
    wc_reading *zrd[WC_IMPORT_MAX_COLS]; /* per zone, one reading per instant */
    size_t nzones;
    char truth_labels[LABELS_CAP]; /* the truth query's one series */
    int64_t truth_id;
} pimp;

static void note(pimp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(pimp *p, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    wc_append(p->sum->notes, sizeof p->sum->notes, &p->notes_used, "%s\n", line);
}

static int oom(wc_error *err) { return wc_error_set(err, -ENOMEM, "out of memory importing"); }

static const char *label_of(const wc_prom_series *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return "";
}

/* The node's own series: no other node named (prom_nodes.h's rule, the one
 * fleet lists nodes by; a target's instance is not a node name here). */
static int keep(const pimp *p, const wc_prom_series *s)
{
    const char *n = wc_prom_series_node(s, 0);
    return !*n || strcmp(n, p->o->node) == 0;
}

/* "A .. B" of the range, for messages. */
static void range_text(const pimp *p, char *buf, size_t cap)
{
    char a[40], b[40];
    wc_format_wall_iso(p->o->start_ms * MS_NS, a, sizeof a);
    wc_format_wall_iso(p->o->end_ms * MS_NS, b, sizeof b);
    wc_textf(buf, cap, "%s .. %s", a, b);
}

/* ============================================================== options */

static int check_opts(const wc_import_prom_opts *o, wc_error *err)
{
    wc_prom_range r = {o->start_ms, o->end_ms, o->step_ms, 0};
    if (!o->node || !*o->node || strlen(o->node) > 200)
        return wc_error_set(err, -EINVAL, "--node: a node name of 1 to 200 bytes is required");
    if (o->step_ms < 1)
        return wc_error_set(err, -EINVAL, "--step: at least 1 ms");
    if (o->end_ms <= o->start_ms)
        return wc_error_set(err, -EINVAL, "--end must be after --start");
    if (wc_prom_range_points(&r) > MAX_INSTANTS)
        return wc_error_set(err, -EINVAL, "--start .. --end at --step is %lld instants: at most "
                            "%lld per run (a larger --step, or a shorter range)",
                            (long long)wc_prom_range_points(&r), MAX_INSTANTS);
    if (o->ntruth > WC_IMPORT_MAX_TRUTH_QUERIES)
        return wc_error_set(err, -EINVAL, "--truth-query: at most %d",
                            WC_IMPORT_MAX_TRUTH_QUERIES);
    for (size_t i = 0; i < o->ntruth; i++)
        if (!o->truth_queries[i][0] || strlen(o->truth_queries[i]) > 511)
            return wc_error_set(err, -EINVAL, "--truth-query: a PromQL expression of 1 to 511 "
                                "bytes (it is the truth source's spec)");
    return 0;
}

/* ============================================================ discovery */

static int add_target(pimp *p, const wc_prom_series *s, wc_error *err)
{
    const char *job = label_of(s, "job"), *inst = label_of(s, "instance");
    for (size_t i = 0; i < p->ntargets; i++)
        if (!strcmp(p->targets[i].job, job) && !strcmp(p->targets[i].instance, inst))
            return 0;
    if (p->ntargets == MAX_TARGETS)
        return wc_error_set(err, -EINVAL, "node %s: more than %d scrape targets (job, instance) "
                            "export it: import a shorter range", p->o->node, MAX_TARGETS);
    if (strlen(job) >= sizeof p->targets[0].job || strlen(inst) >= sizeof p->targets[0].instance)
        return wc_error_set(err, -EINVAL, "node %s: a job or instance label longer than 255 "
                            "bytes", p->o->node);
    snprintf(p->targets[p->ntargets].job, sizeof p->targets[0].job, "%s", job);
    snprintf(p->targets[p->ntargets].instance, sizeof p->targets[0].instance, "%s", inst);
    p->ntargets++;
    return 0;
}

static int target_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    pimp *p = ctx;
    return keep(p, s) ? add_target(p, s, err) : 0;
}

static int count_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    (void)err;
    pimp *p = ctx;
    p->found += keep(p, s) != 0;
    return 0;
}

/* "{__name__=~"kepler_.+",NAME="VALUE"}" (malloc'd). */
static char *selector(const char *name, const char *value, const target *t)
{
    char qv[600], qj[600], qi[600], buf[2048];
    if (wc_prom_quote(value, qv, sizeof qv) ||
        (t && (wc_prom_quote(t->job, qj, sizeof qj) || wc_prom_quote(t->instance, qi, sizeof qi))))
        return NULL;
    if (t)
        snprintf(buf, sizeof buf, "{__name__=~\"kepler_.+\",job=%s,instance=%s,node_name=\"\"}",
                 qj, qi);
    else
        snprintf(buf, sizeof buf, "{__name__=~\"kepler_.+\",%s=%s}", name, qv);
    return strdup(buf);
}

/* The node is unknown there: say which nodes are. */
static int not_found(pimp *p, const char *const *sel, wc_error *err)
{
    char nodes[300] = "", insts[300] = "", span[100];
    size_t nn = 0, ni = 0;
    wc_error ignored = {{0}};
    wc_prom_label_values(p->api, "node_name", p->o->start_ms, p->o->end_ms, nodes, sizeof nodes,
                         &nn, &ignored);
    wc_prom_label_values(p->api, "instance", p->o->start_ms, p->o->end_ms, insts, sizeof insts,
                         &ni, &ignored);
    range_text(p, span, sizeof span);
    return wc_error_set(err, -ENOENT, "prometheus %s: node %s: no Kepler series between %s "
                        "(series `%.150s` or `%.150s` or `%.150s` matched none); node_name "
                        "values there: %s; instance values: %s",
                        wc_prom_url(p->api), p->o->node, span, sel[0], sel[1], sel[2],
                        nn ? nodes : "none", ni ? insts : "none");
}

/* The targets exporting the node, then the data selectors and a count. */
static int discover(pimp *p, wc_error *err)
{
    char *find[3] = {selector("node_name", p->o->node, NULL),
                     selector("exported_instance", p->o->node, NULL),
                     selector("instance", p->o->node, NULL)};
    int rc = find[0] && find[1] && find[2] ? 0 : oom(err);
    if (!rc)
        rc = wc_prom_series_find(p->api, (const char *const *)find, 3, p->o->start_ms,
                                 p->o->end_ms, target_cb, p, err);
    if (!rc && p->ntargets == 0)
        rc = not_found(p, (const char *const *)find, err);
    p->sel[p->nsel++] = find[0];
    free(find[1]);
    free(find[2]);
    for (size_t i = 0; !rc && i < p->ntargets; i++)
        if (!(p->sel[p->nsel++] = selector("", "", &p->targets[i])))
            rc = oom(err);
    if (!rc)
        rc = wc_prom_series_find(p->api, (const char *const *)p->sel, p->nsel, p->o->start_ms,
                                 p->o->end_ms, count_cb, p, err);
    return rc;
}

/* ============================================================ the series */

static size_t hash(const char *metric, const char *labels)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = metric; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (const char *c = labels; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    return (size_t)h;
}

/* Rebuilds the hash with room for twice the series. */
static int rehash(pimp *p)
{
    size_t n = p->nslots ? p->nslots * 2 : 1024;
    size_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < p->nseries; i++) {
        size_t h = hash(p->series[i].metric, p->series[i].labels) & (n - 1);
        while (slots[h])
            h = (h + 1) & (n - 1);
        slots[h] = i + 1;
    }
    free(p->slots);
    p->slots = slots;
    p->nslots = n;
    return 0;
}

/* Socket of a node series' path: N of ".../intel-rapl:N[:M]", -1 for psys,
 * else 0 (an aggregated or unknown path). */
static int socket_of(const wc_kep_fact *f)
{
    const char *r = strstr(f->path, "intel-rapl:");
    if (!strcmp(f->zone, "psys"))
        return -1;
    return r ? atoi(r + 11) : 0;
}

/* A node energy counter of the v0.10+ layout (kepler_node_cpu_joules_total,
 * the raw meter counter) becomes a counter_uj zone of the run, so validate
 * scores it against ground truth like any imported meter. */
static int add_zone(pimp *p, pseries *ps)
{
    const wc_kep_fact *f = &ps->fact;
    if (!ps->kepler || f->level != WC_KEP_NODE || f->quantity != WC_KEP_JOULES ||
        f->device != WC_KEP_CPU || f->layout != WC_KEP_V010 || !f->zone[0])
        return 0;
    if (p->nzones == WC_IMPORT_MAX_COLS) {
        note(p, "more than %d node energy counters: %s%s is not a zone of the run",
             WC_IMPORT_MAX_COLS, ps->metric, ps->labels);
        return 0;
    }
    wc_zone *z = &p->zones[p->nzones];
    memset(z, 0, sizeof *z);
    snprintf(z->name, sizeof z->name, "%s", f->zone);
    snprintf(z->raw_name, sizeof z->raw_name, "%s", f->zone);
    snprintf(z->path, sizeof z->path, "%s", f->path);
    z->socket = socket_of(f);
    z->parent = -1;
    z->enabled = 1;
    z->kind = WC_KIND_COUNTER_UJ;
    for (size_t i = 0; i < p->nzones; i++)
        z->index += !strcmp(p->zones[i].name, z->name) && p->zones[i].socket == z->socket;
    p->zrd[p->nzones] = malloc((size_t)p->npoints * sizeof **p->zrd);
    if (!p->zrd[p->nzones])
        return -ENOMEM;
    for (int64_t k = 0; k < p->npoints; k++)
        p->zrd[p->nzones][k] = (wc_reading){.mono_ns = k * p->o->step_ms * MS_NS,
                                            .status = -ENODATA};
    ps->zone = (int)p->nzones++;
    return 0;
}

/* Adds a series (metric, canonical labels) with its Kepler meaning. */
static int add_series(pimp *p, const wc_prom_series *s, const char *labels, size_t slot,
                      size_t *idx)
{
    if (p->nseries == p->scap) {
        size_t cap = p->scap ? p->scap * 2 : 256;
        pseries *ns = realloc(p->series, cap * sizeof *ns);
        if (!ns)
            return -ENOMEM;
        p->series = ns;
        p->scap = cap;
    }
    pseries *ps = &p->series[p->nseries];
    memset(ps, 0, sizeof *ps);
    ps->metric = strdup(s->metric);
    ps->labels = strdup(labels);
    if (!ps->metric || !ps->labels) {
        free(ps->metric);
        free(ps->labels);
        return -ENOMEM;
    }
    wc_expo_sample es = {.name = s->metric, .family = s->metric, .type = WC_EXPO_UNTYPED,
                         .labels = p->lab, .nlabels = s->nlabels};
    ps->kepler = wc_kepler_classify(&es, &ps->fact);
    ps->last_k = -1;
    ps->zone = -1;
    p->slots[slot] = ++p->nseries;
    *idx = p->nseries - 1;
    return add_zone(p, ps);
}

/* Refuses a zone label longer than wattcal keeps (wc_kep_fact.zone): cut,
 * two long zones sharing their first 31 bytes would merge. */
static int zone_fits(const pimp *p, const wc_prom_series *s, wc_error *err)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (!strcmp(p->lab[i].name, "zone") &&
            strlen(p->lab[i].value) >= sizeof ((wc_kep_fact *)0)->zone)
            return wc_error_set(err, -EINVAL, "series %.100s: zone label \"%.80s\" is %zu "
                                "bytes; wattcal keeps zone names up to %zu bytes (cut, two "
                                "zones would merge): refused", s->metric, p->lab[i].value,
                                strlen(p->lab[i].value), sizeof ((wc_kep_fact *)0)->zone - 1);
    return 0;
}

/* The index of a series, added when new; p->lab holds its labels. */
static int series_index(pimp *p, const wc_prom_series *s, size_t *idx, wc_error *err)
{
    char labels[LABELS_CAP];
    if (zone_fits(p, s, err))
        return -EINVAL;
    if (wc_expo_labels_canonical(p->lab, s->nlabels, labels, sizeof labels) < 0)
        return wc_error_set(err, -EINVAL, "series %.100s: labels longer than %d bytes",
                            s->metric, LABELS_CAP - 1);
    if ((p->nseries + 1) * 2 > p->nslots && rehash(p))
        return oom(err);
    size_t h = hash(s->metric, labels) & (p->nslots - 1);
    for (; p->slots[h]; h = (h + 1) & (p->nslots - 1)) {
        const pseries *ps = &p->series[p->slots[h] - 1];
        if (!strcmp(ps->metric, s->metric) && !strcmp(ps->labels, labels)) {
            *idx = p->slots[h] - 1;
            return 0;
        }
    }
    return add_series(p, s, labels, h, idx) ? oom(err) : 0;
}

/* ============================================================ the chunks */

/* The instant index of a point on the grid of the current chunk. */
static int instant_of(const pimp *p, const wc_prom_series *s, int64_t t_ms, int64_t *k,
                      wc_error *err)
{
    int64_t d = t_ms - p->o->start_ms;
    *k = d >= 0 ? d / p->o->step_ms : -1;
    if (d < 0 || d % p->o->step_ms || *k < p->chunk_first || *k > p->chunk_last)
        return wc_error_set(err, -EPROTO, "prometheus %s: series %.100s: a value at %lld ms, "
                            "not an instant of the requested chunk", wc_prom_url(p->api),
                            s->metric, (long long)t_ms);
    return 0;
}

static int data_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    pimp *p = ctx;
    size_t idx = 0;
    if (!keep(p, s) || !s->npoints)
        return 0;
    if (s->nlabels > p->labcap) {
        wc_expo_label *l = realloc(p->lab, s->nlabels * sizeof *l);
        if (!l)
            return oom(err);
        p->lab = l;
        p->labcap = s->nlabels;
    }
    for (size_t i = 0; i < s->nlabels; i++)
        p->lab[i] = (wc_expo_label){s->labels[i].name, s->labels[i].value};
    int rc = series_index(p, s, &idx, err);
    for (size_t i = 0; !rc && i < s->npoints; i++) {
        int64_t k = 0;
        rc = instant_of(p, s, s->points[i].t_ms, &k, err);
        if (!rc && p->ncs == p->cscap) {
            size_t cap = p->cscap ? p->cscap * 2 : 4096;
            csample *nc = realloc(p->cs, cap * sizeof *nc);
            rc = nc ? 0 : oom(err);
            if (nc)
                p->cs = nc, p->cscap = cap;
        }
        if (!rc) {
            double v = s->points[i].value;
            pseries *ps = &p->series[idx];
            p->cs[p->ncs++] = (csample){k, idx, v};
            ps->last_k = k > ps->last_k ? k : ps->last_k;
            if (ps->zone >= 0 && isfinite(v) && v >= 0 && v < 1.8e13) {
                p->zrd[ps->zone][k].value = (uint64_t)llround(v * 1e6);
                p->zrd[ps->zone][k].status = 0;
            }
        }
    }
    return rc;
}

/* One scrape row (an evaluation instant) and its samples. */
static int put_instant(pimp *p, int64_t k, const size_t *order, size_t n,
                       wc_exporter_sample_in *in, wc_error *err)
{
    int64_t t = (p->o->start_ms + k * p->o->step_ms) * MS_NS;
    int64_t mono = k * p->o->step_ms * MS_NS;
    wc_scrape_meta m = {.exporter_id = p->ex.id, .req_mono_ns = mono, .req_wall_ns = t,
                        .resp_mono_ns = mono, .resp_wall_ns = t, .samples = (int64_t)n};
    snprintf(m.status, sizeof m.status, "%s", n ? "ok" : "error");
    if (!n)
        snprintf(m.error, sizeof m.error, "no value of the node's series in Prometheus at "
                 "this instant (the exporter was not scraped, or down)");
    p->sum->empty_instants += !n;
    int rc = wc_store_put_scrape(p->st, &m, err);
    for (size_t i = 0; !rc && i < n; i++) {
        const csample *c = &p->cs[order[i]];
        const pseries *ps = &p->series[c->series];
        in[i] = (wc_exporter_sample_in){ps->metric, ps->labels, ps->kepler ? &ps->fact : NULL,
                                        c->value, 0, 0};
    }
    if (!rc && n)
        rc = wc_store_put_exporter_samples(p->st, p->ex.id, m.id, in, n, err);
    p->sum->exporter_samples += (int64_t)n;
    return rc;
}

/* Groups the chunk's values by instant (counting sort) and writes them. */
static int write_chunk(pimp *p, wc_error *err)
{
    size_t nk = (size_t)(p->chunk_last - p->chunk_first + 1);
    size_t *start = calloc(nk + 1, sizeof *start);
    size_t *order = malloc((p->ncs ? p->ncs : 1) * sizeof *order);
    wc_exporter_sample_in *in = malloc((p->ncs ? p->ncs : 1) * sizeof *in);
    int rc = start && order && in ? 0 : oom(err);
    for (size_t i = 0; !rc && i < p->ncs; i++)
        start[p->cs[i].k - p->chunk_first + 1]++;
    for (size_t k = 0; !rc && k < nk; k++)
        start[k + 1] += start[k];
    for (size_t i = 0; !rc && i < p->ncs; i++) /* start[k] moves to the end of instant k */
        order[start[p->cs[i].k - p->chunk_first]++] = i;
    for (size_t k = 0, from = 0; !rc && k < nk; k++) {
        rc = put_instant(p, p->chunk_first + (int64_t)k, order + from, start[k] - from, in, err);
        from = start[k];
    }
    free(start);
    free(order);
    free(in);
    p->ncs = 0;
    return rc;
}

/* Pulls and writes every chunk of the range, every selector each. */
static int pull_exporter(pimp *p, wc_error *err)
{
    size_t budget = p->o->max_samples ? p->o->max_samples : WC_IMPORT_PROM_MAX_SAMPLES;
    size_t per = budget / (p->found ? p->found : 1);
    wc_prom_range all = {p->o->start_ms, p->o->end_ms, p->o->step_ms, per ? per : 1};
    size_t n = wc_prom_chunk_count(&all);
    for (size_t i = 0; i < n; i++) {
        wc_prom_range c = all;
        wc_prom_chunk(&all, i, &c.start_ms, &c.end_ms);
        p->chunk_first = (c.start_ms - all.start_ms) / all.step_ms;
        p->chunk_last = (c.end_ms - all.start_ms) / all.step_ms;
        for (size_t s = 0; s < p->nsel; s++) {
            int rc = wc_prom_query_range(p->api, p->sel[s], &c, data_cb, p, err);
            if (rc)
                return rc;
        }
        int rc = write_chunk(p, err);
        if (rc)
            return rc;
    }
    p->sum->exporter_series = (int64_t)p->nseries;
    if (p->sum->exporter_samples == 0) {
        char span[100];
        range_text(p, span, sizeof span);
        return wc_error_set(err, -ENODATA, "prometheus %s: empty result: query_range `%.200s`%s "
                            "returned no sample between %s (step %g s): nothing imported",
                            wc_prom_url(p->api), p->sel[0], p->nsel > 1 ? " and the targets'" : "",
                            span, (double)p->o->step_ms / 1000.0);
    }
    return 0;
}

/* ============================================================== truth */

static int truth_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    pimp *p = ctx;
    char labels[LABELS_CAP];
    size_t used = 0;
    labels[0] = '\0';
    wc_append(labels, sizeof labels, &used, "%s{", s->metric);
    for (size_t i = 0; i < s->nlabels; i++)
        wc_append(labels, sizeof labels, &used, "%s%s=\"%s\"", i ? "," : "", s->labels[i].name,
                  s->labels[i].value);
    wc_append(labels, sizeof labels, &used, "}");
    if (!p->truth_labels[0])
        snprintf(p->truth_labels, sizeof p->truth_labels, "%s", labels);
    else if (strcmp(p->truth_labels, labels))
        return wc_error_set(err, -EINVAL, "returned more than one series (%.150s and %.150s): a "
                            "truth source is one series of watts; wrap the query in sum(...) or "
                            "max(...), or narrow its labels", p->truth_labels, labels);
    int rc = 0;
    for (size_t i = 0; !rc && i < s->npoints; i++) {
        const wc_prom_point *pt = &s->points[i];
        double w = pt->value;
        int ok = isfinite(w) && w >= 0 && w <= MAX_TRUTH_WATTS;
        wc_truth_sample ts = {.poll_mono_ns = (pt->t_ms - p->o->start_ms) * MS_NS,
                              .poll_wall_ns = pt->t_ms * MS_NS, .device_ts_ns = pt->t_ms * MS_NS,
                              .watts = ok ? w : NAN, .min_watts = NAN, .max_watts = NAN,
                              .avg_watts = NAN,
                              .status = ok ? WC_TRUTH_OK : WC_TRUTH_UNAVAILABLE};
        snprintf(ts.path, sizeof ts.path, "promql");
        if (!ok)
            snprintf(ts.error, sizeof ts.error, "no power reading: %g W from the query (not "
                     "finite, negative or above %.0f W)", w, MAX_TRUTH_WATTS);
        rc = wc_store_put_truth_sample(p->st, p->truth_id, &ts, err);
        p->sum->truth_samples++;
        p->sum->truth_unavailable += !ok;
    }
    return rc;
}

/* One --truth-query: a truth source and its samples. */
static int pull_truth(pimp *p, const char *q, wc_error *err)
{
    char desc[256], span[100];
    wc_textf(desc, sizeof desc, "PromQL on %s, step %g s (watts as the query returns them)",
             wc_prom_url(p->api), (double)p->o->step_ms / 1000.0);
    int64_t before = p->sum->truth_samples;
    p->truth_labels[0] = '\0';
    wc_prom_range r = {p->o->start_ms, p->o->end_ms, p->o->step_ms, WC_PROM_MAX_POINTS};
    int rc = wc_store_put_truth_source(p->st, q, "prometheus", WC_PROV_GROUND_TRUTH, desc,
                                       &p->truth_id, err);
    if (!rc)
        rc = wc_prom_query_range(p->api, q, &r, truth_cb, p, err);
    if (rc == -EINVAL && strncmp(err->msg, "returned", 8) == 0)
        wc_error_prefix(err, rc, "--truth-query `%.300s`: ", q);
    if (!rc && p->sum->truth_samples == before) {
        range_text(p, span, sizeof span);
        rc = wc_error_set(err, -ENODATA, "prometheus %s: --truth-query `%.300s`: empty result "
                          "between %s: no sample (is the expression's metric scraped there?)",
                          wc_prom_url(p->api), q, span);
    }
    p->sum->truth_sources += !rc;
    return rc;
}

/* ============================================================== the run */

/* Version, layout and power source from the series seen. */
static void finish_exporter(pimp *p)
{
    wc_exporter_info *e = &p->ex;
    int64_t best = -1;
    size_t legacy = 0, v010 = 0, nm = 0;
    wc_kep_meter *m = malloc((p->nseries ? p->nseries : 1) * sizeof *m);
    for (size_t i = 0; i < p->nseries; i++) {
        const pseries *s = &p->series[i];
        const wc_kep_fact *f = &s->fact;
        if (!s->kepler)
            continue;
        if (f->level == WC_KEP_BUILD_INFO && s->last_k > best) {
            best = s->last_k;
            snprintf(e->version, sizeof e->version, "%s", f->version);
            snprintf(e->revision, sizeof e->revision, "%s", f->revision);
        }
        if (f->level >= WC_KEP_NODE && f->level <= WC_KEP_VM) {
            legacy += f->layout == WC_KEP_LEGACY;
            v010 += f->layout != WC_KEP_LEGACY;
        }
        if (m && f->level == WC_KEP_NODE && f->device == WC_KEP_CPU &&
            (f->quantity == WC_KEP_JOULES || f->quantity == WC_KEP_ACTIVE_JOULES ||
             f->quantity == WC_KEP_IDLE_JOULES))
            m[nm++] = f->meter;
    }
    snprintf(e->layout, sizeof e->layout, "%s", v010 || legacy ? (v010 ? "v0.10+" : "legacy") : "");
    snprintf(e->power_source, sizeof e->power_source, "%s", wc_kepler_power_source(m, m ? nm : 0));
    free(m);
    if (v010 && legacy)
        note(p, "the node has series of both layouts (%zu v0.10+, %zu legacy): an upgrade in the "
             "range? the exporter row says v0.10+", v010, legacy);
    if (strcmp(e->version, "replay") == 0)
        snprintf(e->provenance, sizeof e->provenance, "replay");
    else
        wc_textf(e->provenance, sizeof e->provenance, "exporter kepler %s (%s)",
                 e->version[0] ? e->version : "unknown version", e->power_source);
    wc_textf(p->sum->exporter, sizeof p->sum->exporter, "%s, layout %s", e->provenance,
             e->layout[0] ? e->layout : "unknown");
}

/* The exporter row as known before the data. */
static void init_exporter(pimp *p)
{
    wc_exporter_info *e = &p->ex;
    size_t used = 0;
    memset(e, 0, sizeof *e);
    wc_textf(e->spec, sizeof e->spec, "prometheus:%s node=%s", wc_prom_url(p->api), p->o->node);
    snprintf(e->kind, sizeof e->kind, "kepler");
    snprintf(e->origin, sizeof e->origin, "prometheus");
    snprintf(e->node, sizeof e->node, "%s", p->o->node);
    wc_append(e->description, sizeof e->description, &used, "Prometheus %s, step %g s; target%s",
              wc_prom_url(p->api), (double)p->o->step_ms / 1000.0, p->ntargets == 1 ? "" : "s");
    for (size_t i = 0; i < p->ntargets; i++)
        wc_append(e->description, sizeof e->description, &used, "%s job=%s instance=%s",
                  i ? ";" : "", p->targets[i].job, p->targets[i].instance);
    if (p->ntargets > 1)
        note(p, "node %s is exported by %zu targets (%s): their series are kept apart by their "
             "job and instance labels", p->o->node, p->ntargets, e->description);
}

/* The run row's provenance: measured for a measured power source, simulated
 * for a replay or a fake meter (not measured), estimated when unknown. */
static wc_provenance run_provenance(const wc_exporter_info *e)
{
    if (!strcmp(e->provenance, "replay") || !strcmp(e->power_source, "not measured"))
        return WC_PROV_SIMULATED;
    return strcmp(e->power_source, "measured") ? WC_PROV_ESTIMATED : WC_PROV_MEASURED;
}

static int put_run_row(pimp *p, wc_error *err)
{
    wc_run_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.host, sizeof info.host, "%s",
             p->t->host && *p->t->host ? p->t->host : p->o->node);
    info.interval_ns = p->o->step_ms * MS_NS;
    info.started_wall_ns = p->o->start_ms * MS_NS;
    snprintf(info.meter_kind, sizeof info.meter_kind, "prometheus");
    info.provenance = run_provenance(&p->ex);
    wc_textf(info.meter_description, sizeof info.meter_description,
             "%s, node %s, read from Prometheus %s", p->ex.provenance, p->o->node,
             wc_prom_url(p->api));
    snprintf(info.command_line, sizeof info.command_line, "%s",
             p->t->command_line ? p->t->command_line : "");
    return wc_store_put_run(p->st, &info, err);
}

/* The zones (node energy counters), then one tick per evaluation instant
 * with their readings (no /proc/stat: cpu_ok 0). */
static int put_ticks(pimp *p, wc_error *err)
{
    static const wc_cpu_times no_cpu;
    static const wc_meter_ops PROM_OPS = {.kind = "prometheus"};
    wc_meter m = {.ops = &PROM_OPS, .provenance = run_provenance(&p->ex), .zones = p->zones,
                  .nzones = p->nzones};
    wc_reading rd[WC_IMPORT_MAX_COLS];
    int64_t first_zone = 0;
    int rc = p->nzones ? wc_store_put_zones(p->st, &m, &first_zone, err) : 0;
    for (int64_t k = 0; !rc && k < p->npoints; k++) {
        int64_t id = 0, mono = k * p->o->step_ms * MS_NS;
        rc = wc_store_put_tick(p->st, k, mono, 0, p->o->start_ms * MS_NS + mono, &no_cpu, 0, 0,
                               0, &id, err);
        for (size_t z = 0; z < p->nzones; z++)
            rd[z] = p->zrd[z][k];
        if (!rc && p->nzones)
            rc = wc_store_put_zone_samples(p->st, id, first_zone, rd, p->nzones, err);
    }
    p->sum->ticks = p->npoints;
    p->sum->zones = (int64_t)p->nzones;
    return rc;
}

/* Everything inside one transaction, then the run's end. */
static int write_all(pimp *p, wc_error *err)
{
    int rc = wc_store_begin(p->st, err);
    if (rc)
        return rc;
    init_exporter(p);
    rc = wc_store_put_exporter(p->st, &p->ex, err);
    if (!rc)
        rc = pull_exporter(p, err);
    for (size_t i = 0; !rc && i < p->o->ntruth; i++)
        rc = pull_truth(p, p->o->truth_queries[i], err);
    if (!rc)
        finish_exporter(p);
    if (!rc)
        rc = wc_store_update_exporter(p->st, &p->ex, err);
    if (!rc)
        rc = put_ticks(p, err);
    if (!rc)
        rc = put_run_row(p, err);
    if (!rc)
        rc = wc_store_commit(p->st, err);
    else
        wc_store_rollback(p->st);
    if (!rc)
        rc = wc_store_finish_run(p->st, p->o->end_ms * MS_NS,
                                 (p->npoints - 1) * p->o->step_ms * MS_NS, p->npoints, 1, err);
    return rc;
}

static void remove_db(const char *path)
{
    char f[1100];
    unlink(path);
    snprintf(f, sizeof f, "%s-wal", path);
    unlink(f);
    snprintf(f, sizeof f, "%s-shm", path);
    unlink(f);
    snprintf(f, sizeof f, "%s-journal", path);
    unlink(f);
}

/* Creates the DB and writes; on failure removes a file this call created. */
static int write_run(pimp *p, wc_error *err)
{
    struct stat sb;
    int existed = stat(p->t->db_path, &sb) == 0;
    p->st = wc_store_open(p->t->db_path, WC_STORE_CREATE, err);
    if (!p->st)
        return -EIO;
    int rc = write_all(p, err);
    wc_store_close(p->st);
    p->st = NULL;
    if (rc && !existed)
        remove_db(p->t->db_path);
    return rc;
}

static void free_pimp(pimp *p)
{
    for (size_t i = 0; i < p->nseries; i++) {
        free(p->series[i].metric);
        free(p->series[i].labels);
    }
    for (size_t i = 0; i < p->nsel; i++)
        free(p->sel[i]);
    for (size_t z = 0; z < p->nzones; z++)
        free(p->zrd[z]);
    free(p->series);
    free(p->slots);
    free(p->cs);
    free(p->lab);
    wc_prom_close(p->api);
}

static void fill_summary(pimp *p)
{
    wc_prom_counts c;
    wc_prom_get_counts(p->api, &c);
    p->sum->requests = c.requests;
    p->sum->bytes = c.bytes;
    p->sum->first_wall_ns = p->o->start_ms * MS_NS;
    p->sum->last_wall_ns = (p->o->start_ms + (p->npoints - 1) * p->o->step_ms) * MS_NS;
    p->sum->interval_ns = p->o->step_ms * MS_NS;
    if (c.warnings)
        note(p, "the server warned %lld time%s, first: %s", (long long)c.warnings,
             c.warnings == 1 ? "" : "s", c.warning);
    if (p->sum->empty_instants)
        note(p, "%lld of %lld instants have no value of the node's series (scrape rows with "
             "status error)", (long long)p->sum->empty_instants, (long long)p->npoints);
}

/* The grid: multiples of the step since the epoch inside [start, end] (as
 * VictoriaMetrics and Thanos's query frontend align a range query), at
 * least 2 instants. */
static int align(wc_import_prom_opts *o, int64_t *npoints, wc_error *err)
{
    int64_t s = (o->start_ms + o->step_ms - 1) / o->step_ms * o->step_ms;
    int64_t e = o->end_ms / o->step_ms * o->step_ms;
    wc_prom_range r = {s, e, o->step_ms, 0};
    *npoints = wc_prom_range_points(&r);
    if (*npoints < 2)
        return wc_error_set(err, -ENODATA, "--start .. --end holds %lld instant%s of the --step "
                            "grid (multiples of the step since the epoch): at least 2 are needed "
                            "to measure an interval; nothing imported", (long long)*npoints,
                            *npoints == 1 ? "" : "s");
    o->start_ms = s;
    o->end_ms = e;
    return 0;
}

int wc_import_prometheus(const wc_import_prom_opts *o, const wc_import_target *t,
                         wc_import_summary *sum, wc_error *err)
{
    pimp p;
    wc_import_prom_opts grid = *o;
    memset(&p, 0, sizeof p);
    memset(sum, 0, sizeof *sum);
    p.o = &grid;
    p.t = t;
    p.sum = sum;
    int rc = check_opts(o, err);
    if (!rc)
        rc = align(&grid, &p.npoints, err);
    if (!rc)
        rc = wc_prom_open(&o->prom, &p.api, err);
    if (!rc)
        rc = discover(&p, err);
    if (!rc)
        rc = write_run(&p, err);
    if (!rc)
        fill_summary(&p);
    free_pimp(&p);
    return rc;
}
