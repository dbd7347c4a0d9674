/*
 * serve_state.c — folds each recorder tick into what `wattcal serve`
 * publishes (serve_state.h): the model's node zones and their gap per level,
 * the meter's zones by wattcal's counter rule, the ground-truth sources, the
 * exporters' last scrapes and the pod identities. Workloads are folded by
 * serve_workloads.c, the exposition written by serve_render.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/counter.h"
#include "collector/serve/serve_internal.h"
#include "common/wc_text.h"

const char *const wc_serve_level_names[SV_LEVELS] = {"process", "container", "pod"};
const char *const wc_serve_kind_names[SV_KINDS] = {"idle", "unattributed", "over"};

wc_serve_state *wc_serve_state_new(const wc_serve_config *cfg, wc_error *err)
{
    if (cfg->expire_ns <= 0 || cfg->max_workloads < 1) {
        wc_error_set(err, -EINVAL, "serve: --expire must be positive and --max-workloads >= 1");
        return NULL;
    }
    wc_serve_state *s = calloc(1, sizeof *s);
    if (!s || pthread_mutex_init(&s->mu, NULL) != 0) {
        free(s);
        wc_error_set(err, -ENOMEM, "serve: out of memory");
        return NULL;
    }
    wc_copy_trunc(s->node_name, sizeof s->node_name, cfg->node_name ? cfg->node_name : "");
    wc_copy_trunc(s->version, sizeof s->version, cfg->version ? cfg->version : "");
    wc_copy_trunc(s->model, sizeof s->model, wc_model_name(cfg->model));
    s->expire_ns = cfg->expire_ns;
    s->max_workloads = cfg->max_workloads;
    s->provenance = "measured";
    return s;
}

void wc_serve_state_free(wc_serve_state *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < WC_EXPORTER_MAX; i++)
        free(s->xp[i].pods);
    free(s->meter);
    free(s->truth);
    free(s->wl);
    free(s->ident);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* A provenance as a label value: "ground truth" has no space there. */
static const char *prov_label(wc_provenance p)
{
    return p == WC_PROV_GROUND_TRUTH ? "ground_truth" : wc_provenance_name(p);
}

int wc_serve_zone_index(const wc_serve_state *s, const char *zone)
{
    for (size_t i = 0; i < s->nnode; i++)
        if (strcmp(s->node[i].zone, zone) == 0)
            return (int)i;
    return -1;
}

/* The first tick sizes the meter and truth tables (the recorder's zone and
 * source lists never change). 0 or -ENOMEM. */
static int first_tick(wc_serve_state *s, const wc_record_tick *t)
{
    s->meter = calloc(t->meter->nzones ? t->meter->nzones : 1, sizeof *s->meter);
    s->truth = calloc(t->ntruth ? t->ntruth : 1, sizeof *s->truth);
    if (!s->meter || !s->truth) {
        free(s->meter);
        free(s->truth);
        s->meter = NULL;
        s->truth = NULL;
        return -ENOMEM;
    }
    s->nmeter = t->meter->nzones;
    for (size_t i = 0; i < s->nmeter; i++) {
        const wc_zone *z = &t->meter->zones[i];
        wc_copy_trunc(s->meter[i].zone, sizeof s->meter[i].zone, z->name);
        wc_textf(s->meter[i].socket, sizeof s->meter[i].socket, "%d", z->socket);
        s->meter[i].watts = NAN;
    }
    s->ntruth = t->ntruth;
    for (size_t i = 0; i < s->ntruth; i++) {
        serve_truth *u = &s->truth[i];
        wc_copy_trunc(u->spec, sizeof u->spec, t->truth[i].spec);
        wc_copy_trunc(u->kind, sizeof u->kind, t->truth[i].ops->kind);
        u->provenance = prov_label(t->truth[i].provenance);
        u->watts = NAN;
    }
    s->nxp = t->nexporters < WC_EXPORTER_MAX ? t->nexporters : WC_EXPORTER_MAX;
    for (size_t i = 0; i < s->nxp; i++)
        wc_copy_trunc(s->xspec[i], sizeof s->xspec[i], t->exporter_specs[i]);
    wc_copy_trunc(s->meter_kind, sizeof s->meter_kind, t->meter->ops->kind);
    s->provenance = prov_label(t->meter->provenance);
    return 0;
}

/* The meter zones: raw counters differenced with wattcal's counter rule. */
static void fold_meter(wc_serve_state *s, const wc_record_tick *t)
{
    for (size_t i = 0; i < s->nmeter; i++) {
        serve_meter *m = &s->meter[i];
        const wc_reading *cur = &t->readings[i];
        m->watts = NAN;
        if (!t->prev_readings || t->dt_ns <= 0 || cur->status || t->prev_readings[i].status)
            continue;
        if (t->meter->zones[i].kind == WC_KIND_GAUGE_UW) {
            m->watts = (double)cur->value / 1e6;
            m->energy_j += m->watts * (double)t->dt_ns / 1e9;
            continue;
        }
        uint64_t d = 0;
        wc_delta_status st = wc_counter_delta(t->prev_readings[i].value, cur->value,
                                              t->meter->zones[i].max_energy_range_uj, t->dt_ns,
                                              t->ceiling_watts, &d);
        if (!wc_delta_usable(st))
            continue;
        m->energy_j += (double)d / 1e6;
        m->watts = (double)d / 1e6 / ((double)t->dt_ns / 1e9);
    }
}

/* Σ energy of each level per node zone this tick, µJ. */
static void level_sums(const wc_record_tick *t, double sum[SV_LEVELS][SERVE_ZONES])
{
    memset(sum, 0, sizeof(double) * SV_LEVELS * SERVE_ZONES);
    for (size_t i = 0; i < t->out->nwork; i++) {
        const wc_attr_work_out *w = &t->out->work[i];
        if (w->level == WC_LEVEL_VM)
            continue; /* VMs are not a level serve publishes (nor part of the pods' sum) */
        int lv = w->level == WC_LEVEL_PROCESS ? SV_PROCESS
                 : w->level == WC_LEVEL_CONTAINER ? SV_CONTAINER : SV_POD;
        if (w->zone < SERVE_ZONES)
            sum[lv][w->zone] += (double)w->energy_uj;
    }
}

/* One node zone's gap per level: idle, unattributed, over (µJ → J, W).
 * Watts are in the node's own power terms: the model's zone power is ΔE over
 * the zone's reading span, which under load can differ from the tick's
 * interval, and every workload's watts are its share of that power; so the
 * unattributed and over µJ are converted at the zone's active W per active
 * µJ (idle: the model's idle watts), and active − Σ workloads = unattributed
 * − over holds in watts as it does in joules. With no active energy, µJ over
 * the tick's interval. */
static void fold_gap(serve_node *n, const wc_attr_node_out *o, const double *sum_by_level,
                     size_t stride)
{
    double active = (double)o->active_uj;
    double w_per_uj = active > 0             ? o->active_uw / 1e6 / active
                      : o->interval_s > 0    ? 1e-6 / o->interval_s
                                             : NAN;
    for (int lv = 0; lv < SV_LEVELS; lv++) {
        double attributed = sum_by_level[(size_t)lv * stride];
        double uj[SV_KINDS] = {(double)o->idle_uj, active > attributed ? active - attributed : 0,
                               attributed > active ? attributed - active : 0};
        for (int k = 0; k < SV_KINDS; k++) {
            n->gap_j[lv][k] += uj[k] / 1e6;
            n->gap_w[lv][k] = k == 0 ? o->idle_uw / 1e6 : uj[k] * w_per_uj;
        }
    }
}

/* The model's node zones (not on its first tick: no interval yet). */
static void fold_node(wc_serve_state *s, const wc_record_tick *t)
{
    if (t->out->flags & WC_AF_FIRST)
        return;
    double sum[SV_LEVELS][SERVE_ZONES];
    level_sums(t, sum);
    s->nnode = t->out->nnode < SERVE_ZONES ? t->out->nnode : SERVE_ZONES;
    for (size_t i = 0; i < s->nnode; i++) {
        const wc_attr_node_out *o = &t->out->node[i];
        serve_node *n = &s->node[i];
        wc_copy_trunc(n->zone, sizeof n->zone, o->zone);
        n->counter_j = (double)o->counter_uj / 1e6;
        n->active_j = (double)o->active_total_uj / 1e6;
        n->idle_j = (double)o->idle_total_uj / 1e6;
        n->watts = o->power_uw / 1e6;
        n->active_w = o->active_uw / 1e6;
        n->idle_w = o->idle_uw / 1e6;
        fold_gap(n, o, &sum[0][i], SERVE_ZONES);
        s->ratio = o->ratio;
    }
    s->have_node = 1;
}

static void fold_truth(wc_serve_state *s, const wc_record_tick *t)
{
    for (size_t i = 0; i < t->ntruth_samples; i++) {
        const wc_truth_queued *q = &t->truth_samples[i];
        if (q->source >= s->ntruth)
            continue;
        serve_truth *u = &s->truth[q->source];
        if ((unsigned)q->sample.status < 4)
            u->count[q->sample.status]++;
        if (q->sample.status == WC_TRUTH_OK && isfinite(q->sample.watts)) {
            u->watts = q->sample.watts;
            u->have = 1;
        }
    }
}

static int ident_cmp(const void *a, const void *b)
{
    return strcmp(((const serve_ident *)a)->uid, ((const serve_ident *)b)->uid);
}

const serve_ident *wc_serve_find_ident(const wc_serve_state *s, const char *uid)
{
    serve_ident key;
    wc_copy_trunc(key.uid, sizeof key.uid, uid);
    return s->nident ? bsearch(&key, s->ident, s->nident, sizeof key, ident_cmp) : NULL;
}

/* wc_serve_state_put_identity with the lock held. */
static int put_ident(wc_serve_state *s, const char *uid, const char *name, const char *ns,
                     const char *source)
{
    if (!uid || !*uid)
        return -EINVAL;
    serve_ident *e = (serve_ident *)wc_serve_find_ident(s, uid);
    if (!e) {
        if (s->nident >= s->max_workloads)
            return -ENOSPC;
        serve_ident *grown = realloc(s->ident, (s->nident + 1) * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        s->ident = grown;
        e = &s->ident[s->nident++];
        memset(e, 0, sizeof *e);
        wc_copy_trunc(e->uid, sizeof e->uid, uid);
    }
    wc_copy_trunc(e->name, sizeof e->name, name ? name : "");
    wc_copy_trunc(e->ns, sizeof e->ns, ns ? ns : "");
    e->source = source;
    qsort(s->ident, s->nident, sizeof *s->ident, ident_cmp);
    return 0;
}

int wc_serve_state_put_identity(wc_serve_state *s, const char *uid, const char *name,
                                const char *ns)
{
    pthread_mutex_lock(&s->mu);
    int rc = put_ident(s, uid, name, ns, "kubelet");
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int wc_serve_state_identity(wc_serve_state *s, const char *uid, char *name, char *ns,
                            size_t cap)
{
    pthread_mutex_lock(&s->mu);
    const serve_ident *e = wc_serve_find_ident(s, uid);
    wc_copy_trunc(name, cap, e ? e->name : "");
    wc_copy_trunc(ns, cap, e ? e->ns : "");
    pthread_mutex_unlock(&s->mu);
    return e != NULL;
}

size_t wc_serve_state_each_identity(wc_serve_state *s,
                                    int (*each)(void *ctx, const char *uid, const char *name,
                                                const char *ns, const char *source),
                                    void *ctx)
{
    pthread_mutex_lock(&s->mu);
    size_t n = 0;
    for (; n < s->nident; n++)
        if (each(ctx, s->ident[n].uid, s->ident[n].name, s->ident[n].ns, s->ident[n].source))
            break;
    pthread_mutex_unlock(&s->mu);
    return n;
}

int64_t wc_serve_state_ticks(wc_serve_state *s, int64_t *last_mono_ns)
{
    pthread_mutex_lock(&s->mu);
    int64_t n = s->ticks;
    if (last_mono_ns)
        *last_mono_ns = s->last_mono_ns;
    pthread_mutex_unlock(&s->mu);
    return n;
}

/* One sample of an exporter's scrape: node and pod CPU watts; pod labels
 * teach identities. */
static void fold_exporter_value(wc_serve_state *s, serve_exporter *e, const wc_scrape_value *v)
{
    wc_kep_fact fact;
    const wc_kep_fact *f = &fact;
    if (!wc_scrape_series_fact(v->series, &fact) || f->device != WC_KEP_CPU)
        return;
    if (f->level == WC_KEP_POD && f->key[0] && (f->name[0] || f->ns[0]))
        put_ident(s, f->key, f->name, f->ns, "exporter");
    if (f->quantity != WC_KEP_WATTS)
        return;
    if (f->level == WC_KEP_NODE && e->nnode < SERVE_ZONES) {
        wc_copy_trunc(e->zone[e->nnode], sizeof e->zone[0], f->zone);
        e->node_w[e->nnode++] = v->value;
    } else if (f->level == WC_KEP_POD && e->npods < s->max_workloads) {
        serve_xpod *p = &e->pods[e->npods++];
        wc_copy_trunc(p->pod_id, sizeof p->pod_id, f->key);
        wc_copy_trunc(p->zone, sizeof p->zone, f->zone);
        p->watts = v->value;
    }
}

static void fold_exporters(wc_serve_state *s, const wc_record_tick *t)
{
    for (size_t k = 0; k < t->nscrapes; k++) {
        const wc_scrape *sc = t->scrapes[k];
        if (sc->exporter >= s->nxp)
            continue;
        serve_exporter *e = &s->xp[sc->exporter];
        e->seen = 1;
        e->up = sc->status == WC_SCRAPE_OK || sc->status == WC_SCRAPE_CAPPED;
        if (sc->learnt.power_source[0])
            wc_copy_trunc(e->source, sizeof e->source, sc->learnt.power_source);
        if (!e->up)
            continue;
        serve_xpod *pods = realloc(e->pods, (sc->nvalues ? sc->nvalues : 1) * sizeof *pods);
        if (!pods)
            continue; /* keeps the previous scrape's figures */
        e->pods = pods;
        e->nnode = e->npods = 0;
        for (size_t i = 0; i < sc->nvalues; i++)
            fold_exporter_value(s, e, &sc->values[i]);
    }
}

void wc_serve_state_tick(void *state, const wc_record_tick *t)
{
    wc_serve_state *s = state;
    pthread_mutex_lock(&s->mu);
    if (s->ticks == 0 && first_tick(s, t) != 0) {
        pthread_mutex_unlock(&s->mu);
        return; /* out of memory: nothing published; /healthz says so */
    }
    fold_meter(s, t);
    fold_node(s, t);
    fold_truth(s, t);
    fold_exporters(s, t);
    wc_serve_fold_workloads(s, t); /* -ENOMEM: the previous workloads stay */
    s->ticks++;
    s->last_mono_ns = t->mono_ns;
    pthread_mutex_unlock(&s->mu);
}
