/*
 * serve_render.c — the exposition of `wattcal serve`'s state (serve_state.h):
 * every family of docs/serve-metrics.md, its samples together, each with
 * node_name and provenance (and model where attributed), through
 * expo_write.h. Called with nothing locked; takes the state's lock.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector/serve/serve_internal.h"
#include "common/wc_text.h"

/* Labels of one sample: node_name, provenance, then up to 10 more pairs. */
typedef struct labels {
    const char *kv[2 * 14 + 1];
    size_t n;
} labels;

static void lb_start(labels *l, const wc_serve_state *s, const char *prov, int with_model)
{
    l->n = 0;
    l->kv[l->n++] = "node_name";
    l->kv[l->n++] = s->node_name;
    l->kv[l->n++] = "provenance";
    l->kv[l->n++] = prov;
    if (with_model) {
        l->kv[l->n++] = "model";
        l->kv[l->n++] = s->model;
    }
    l->kv[l->n] = NULL;
}

static void lb_add(labels *l, const char *k, const char *v)
{
    if (l->n + 2 >= sizeof l->kv / sizeof l->kv[0])
        return;
    l->kv[l->n++] = k;
    l->kv[l->n++] = v;
    l->kv[l->n] = NULL;
}

static void fam(wc_expow_buf *b, const char *name, const char *type, const char *help)
{
    wc_expow_family(b, name, type, help);
}

/* wattcal_build_info and serve's own counts. */
static void render_self(const wc_serve_state *s, wc_expow_buf *b)
{
    labels l;
    fam(b, "wattcal_build_info", "gauge", "What is serving: wattcal's version, model and meter (always 1).");
    lb_start(&l, s, s->provenance, 1); /* the meter's: build_info names it */
    lb_add(&l, "version", s->version);
    lb_add(&l, "meter", s->meter_kind);
    wc_expow_sample(b, "wattcal_build_info", l.kv, 1);
    fam(b, "wattcal_serve_ticks_total", "counter", "Samples taken by wattcal serve.");
    lb_start(&l, s, "measured", 0);
    wc_expow_sample(b, "wattcal_serve_ticks_total", l.kv, (double)s->ticks);
    size_t count[SV_LEVELS] = {0};
    for (size_t i = 0; i < s->nwl; i++)
        count[s->wl[i].level]++;
    static const struct { const char *name, *type, *help; } F[3] = {
        {"wattcal_serve_workloads", "gauge", "Workloads currently exposed, per level."},
        {"wattcal_serve_workloads_expired_total", "counter",
         "Terminated workloads removed after --expire, per level."},
        {"wattcal_serve_series_dropped_total", "counter",
         "Workloads refused because --max-workloads was reached, counted on every tick they are refused."},
    };
    for (int f = 0; f < 3; f++) {
        fam(b, F[f].name, F[f].type, F[f].help);
        for (int lv = 0; lv < SV_LEVELS; lv++) {
            lb_start(&l, s, "measured", 0);
            lb_add(&l, "level", wc_serve_level_names[lv]);
            double v = f == 0 ? (double)count[lv] : f == 1 ? (double)s->expired[lv]
                                                            : (double)s->dropped[lv];
            wc_expow_sample(b, F[f].name, l.kv, v);
        }
    }
}

/* The model's node zones (Kepler's node layout). */
static void render_node(const wc_serve_state *s, wc_expow_buf *b)
{
    static const struct { const char *name, *type, *help; } F[6] = {
        {"wattcal_node_cpu_joules_total", "counter", "Node energy counter as the reference model exports it, joules."},
        {"wattcal_node_cpu_active_joules_total", "counter", "Node active energy total as the reference model exports it, joules."},
        {"wattcal_node_cpu_idle_joules_total", "counter", "Node idle energy total as the reference model exports it, joules."},
        {"wattcal_node_cpu_watts", "gauge", "Node power over the last interval, watts."},
        {"wattcal_node_cpu_active_watts", "gauge", "Node active power (power x usage ratio), watts."},
        {"wattcal_node_cpu_idle_watts", "gauge", "Node idle power, watts."},
    };
    labels l;
    for (int f = 0; f < 6; f++) {
        fam(b, F[f].name, F[f].type, F[f].help);
        for (size_t i = 0; s->have_node && i < s->nnode; i++) {
            const serve_node *n = &s->node[i];
            double v[6] = {n->counter_j, n->active_j, n->idle_j, n->watts, n->active_w, n->idle_w};
            lb_start(&l, s, s->provenance, 1);
            lb_add(&l, "zone", n->zone);
            wc_expow_sample(b, F[f].name, l.kv, v[f]);
        }
    }
    fam(b, "wattcal_node_cpu_usage_ratio", "gauge", "Usage ratio the reference model split active and idle with.");
    lb_start(&l, s, s->provenance, 1);
    if (s->have_node)
        wc_expow_sample(b, "wattcal_node_cpu_usage_ratio", l.kv, s->ratio);
}

/* The labels of one workload (Kepler's per level). */
static void wl_labels(const wc_serve_state *s, const serve_wl *w, const char *zone, labels *l)
{
    lb_start(l, s, s->provenance, 1);
    if (w->level == SV_PROCESS) {
        lb_add(l, "pid", w->pid);
        lb_add(l, "comm", w->comm);
    }
    if (w->level != SV_POD)
        lb_add(l, "container_id", w->container_id);
    lb_add(l, "pod_id", w->pod_id);
    if (w->level == SV_POD) {
        const serve_ident *id = wc_serve_find_ident(s, w->pod_id);
        lb_add(l, "pod_name", id ? id->name : "");
        lb_add(l, "pod_namespace", id ? id->ns : "");
    }
    lb_add(l, "state", w->running ? "running" : "terminated");
    lb_add(l, "zone", zone);
}

static void render_workloads(const wc_serve_state *s, wc_expow_buf *b)
{
    static const char *const what[SV_LEVELS] = {"A process's", "A container's", "A pod's"};
    labels l;
    for (int lv = 0; lv < SV_LEVELS; lv++) {
        for (int watts = 0; watts < 2; watts++) {
            char name[64], help[160];
            wc_textf(name, sizeof name, "wattcal_%s_cpu_%s", wc_serve_level_names[lv],
                     watts ? "watts" : "joules_total");
            wc_textf(help, sizeof help, "%s %s as the reference model attributes it.", what[lv],
                     watts ? "power over the last interval, watts," : "energy total, joules,");
            fam(b, name, watts ? "gauge" : "counter", help);
            for (size_t i = 0; i < s->nwl; i++) {
                const serve_wl *w = &s->wl[i];
                for (size_t z = 0; w->level == lv && z < s->nnode; z++) {
                    wl_labels(s, w, s->node[z].zone, &l);
                    wc_expow_sample(b, name, l.kv, watts ? w->watts[z] : w->total_j[z]);
                }
            }
        }
    }
}

static void render_truth(const wc_serve_state *s, wc_expow_buf *b)
{
    static const char *const status[4] = {"ok", "stale", "unavailable", "error"};
    labels l;
    fam(b, "wattcal_truth_watts", "gauge", "Last good ground-truth reading per source, watts.");
    for (size_t i = 0; i < s->ntruth; i++) {
        if (!s->truth[i].have)
            continue;
        lb_start(&l, s, s->truth[i].provenance, 0);
        lb_add(&l, "source", s->truth[i].spec);
        lb_add(&l, "kind", s->truth[i].kind);
        wc_expow_sample(b, "wattcal_truth_watts", l.kv, s->truth[i].watts);
    }
    fam(b, "wattcal_truth_samples_total", "counter", "Polls of each ground-truth source by status.");
    for (size_t i = 0; i < s->ntruth; i++)
        for (int k = 0; k < 4; k++) {
            lb_start(&l, s, s->truth[i].provenance, 0);
            lb_add(&l, "source", s->truth[i].spec);
            lb_add(&l, "kind", s->truth[i].kind);
            lb_add(&l, "status", status[k]);
            wc_expow_sample(b, "wattcal_truth_samples_total", l.kv, (double)s->truth[i].count[k]);
        }
}

static void render_meter(const wc_serve_state *s, wc_expow_buf *b)
{
    labels l;
    for (int watts = 0; watts < 2; watts++) {
        const char *name = watts ? "wattcal_meter_watts" : "wattcal_meter_energy_joules_total";
        fam(b, name, watts ? "gauge" : "counter",
            watts ? "Node meter power per zone and socket over the last interval (no model), watts."
                  : "Node meter energy per zone and socket since serve started, raw counters "
                    "differenced with wattcal's counter rule (no model), joules.");
        for (size_t i = 0; i < s->nmeter; i++) {
            lb_start(&l, s, s->provenance, 0);
            lb_add(&l, "zone", s->meter[i].zone);
            lb_add(&l, "socket", s->meter[i].socket);
            wc_expow_sample(b, name, l.kv, watts ? s->meter[i].watts : s->meter[i].energy_j);
        }
    }
}

static void render_gap(const wc_serve_state *s, wc_expow_buf *b)
{
    labels l;
    for (int watts = 0; watts < 2; watts++) {
        const char *name = watts ? "wattcal_attribution_gap_watts"
                                 : "wattcal_attribution_gap_joules_total";
        fam(b, name, watts ? "gauge" : "counter",
            "Node energy the level did not receive, by kind: idle (by design), unattributed, "
            "over (received beyond the active energy); gap = idle + unattributed - over.");
        for (size_t z = 0; s->have_node && z < s->nnode; z++)
            for (int lv = 0; lv < SV_LEVELS; lv++)
                for (int k = 0; k < SV_KINDS; k++) {
                    lb_start(&l, s, s->provenance, 1);
                    lb_add(&l, "zone", s->node[z].zone);
                    lb_add(&l, "level", wc_serve_level_names[lv]);
                    lb_add(&l, "kind", wc_serve_kind_names[k]);
                    wc_expow_sample(b, name, l.kv,
                                   watts ? s->node[z].gap_w[lv][k] : s->node[z].gap_j[lv][k]);
                }
    }
}

/* Our pod's watts in zone z (index), or NaN when we do not expose it. */
static double our_pod_watts(const wc_serve_state *s, const char *pod_id, int z)
{
    serve_wl key;
    memset(&key, 0, sizeof key);
    key.level = SV_POD;
    wc_copy_trunc(key.key, sizeof key.key, pod_id);
    for (size_t lo = 0, hi = s->nwl; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;
        const serve_wl *w = &s->wl[mid];
        int c = w->level != SV_POD ? (w->level < SV_POD ? -1 : 1) : strcmp(w->key, key.key);
        if (c == 0)
            return w->running ? w->watts[z] : NAN;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NAN;
}

static void render_exporter_pods(const wc_serve_state *s, wc_expow_buf *b)
{
    labels l;
    const char *name = "wattcal_exporter_pod_minus_reference_watts";
    fam(b, name, "gauge", "The exporter's pod power minus the reference model's, watts "
                          "(its last scrape against the last tick).");
    for (size_t x = 0; x < s->nxp; x++) {
        const serve_exporter *e = &s->xp[x];
        for (size_t i = 0; e->up && s->have_node && i < e->npods; i++) {
            int z = wc_serve_zone_index(s, e->pods[i].zone);
            double ours = z < 0 ? NAN : our_pod_watts(s, e->pods[i].pod_id, z);
            if (isnan(ours))
                continue;
            const serve_ident *id = wc_serve_find_ident(s, e->pods[i].pod_id);
            lb_start(&l, s, s->provenance, 1);
            lb_add(&l, "exporter", s->xspec[x]);
            lb_add(&l, "pod_id", e->pods[i].pod_id);
            lb_add(&l, "pod_name", id ? id->name : "");
            lb_add(&l, "pod_namespace", id ? id->ns : "");
            lb_add(&l, "zone", e->pods[i].zone);
            wc_expow_sample(b, name, l.kv, e->pods[i].watts - ours);
        }
    }
}

static void render_exporters(const wc_serve_state *s, wc_expow_buf *b)
{
    labels l;
    fam(b, "wattcal_exporter_up", "gauge", "1 when the exporter's last scrape succeeded.");
    for (size_t x = 0; x < s->nxp; x++) {
        lb_start(&l, s, "measured", 0);
        lb_add(&l, "exporter", s->xspec[x]);
        lb_add(&l, "source", s->xp[x].source[0] ? s->xp[x].source : "unknown");
        wc_expow_sample(b, "wattcal_exporter_up", l.kv, s->xp[x].up);
    }
    const char *name = "wattcal_exporter_node_minus_reference_watts";
    fam(b, name, "gauge", "The exporter's node power minus the reference model's, watts "
                          "(its last scrape against the last tick).");
    for (size_t x = 0; x < s->nxp; x++)
        for (size_t i = 0; s->xp[x].up && s->have_node && i < s->xp[x].nnode; i++) {
            int z = wc_serve_zone_index(s, s->xp[x].zone[i]);
            if (z < 0)
                continue;
            lb_start(&l, s, s->provenance, 1);
            lb_add(&l, "exporter", s->xspec[x]);
            lb_add(&l, "zone", s->xp[x].zone[i]);
            wc_expow_sample(b, name, l.kv, s->xp[x].node_w[i] - s->node[z].watts);
        }
    render_exporter_pods(s, b);
}

int wc_serve_state_render(wc_serve_state *s, wc_expow_buf *out)
{
    pthread_mutex_lock(&s->mu);
    render_self(s, out);
    render_node(s, out);
    render_workloads(s, out);
    render_truth(s, out);
    render_meter(s, out);
    render_gap(s, out);
    render_exporters(s, out);
    pthread_mutex_unlock(&s->mu);
    return out->failed;
}
