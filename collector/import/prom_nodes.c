/*
 * prom_nodes.c — a Kepler series' node and the node listing of a Prometheus
 * server (prom_nodes.h); used by import_prom.c and validator/fleet.c.
 */
#include "collector/import/prom_nodes.h"

#include <string.h>

#include "collector/exporter/expo_parse.h"

#define MAX_LABELS 64

static const char *label_of(const wc_prom_series *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return "";
}

const char *wc_prom_series_node(const wc_prom_series *s, int use_instance)
{
    const char *n = label_of(s, "node_name");
    if (!*n)
        n = label_of(s, "exported_instance");
    if (!*n && use_instance)
        n = label_of(s, "instance");
    return n;
}

/* The listing in progress. */
typedef struct nodes_ctx {
    wc_prom_node_cb cb;
    void *ctx;
} nodes_ctx;

static int series_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    nodes_ctx *c = ctx;
    wc_expo_label lab[MAX_LABELS];
    size_t nl = s->nlabels < MAX_LABELS ? s->nlabels : MAX_LABELS;
    for (size_t i = 0; i < nl; i++)
        lab[i] = (wc_expo_label){s->labels[i].name, s->labels[i].value};
    wc_expo_sample es = {.name = s->metric, .family = s->metric, .type = WC_EXPO_UNTYPED,
                         .labels = lab, .nlabels = nl};
    wc_kep_fact f;
    if (!wc_kepler_classify(&es, &f) || f.level != WC_KEP_NODE || f.device != WC_KEP_CPU)
        return 0;
    const char *node = wc_prom_series_node(s, f.layout == WC_KEP_LEGACY);
    return *node ? c->cb(c->ctx, node, f.layout, f.meter, err) : 0;
}

int wc_prom_nodes_find(wc_prom *api, int64_t start_ms, int64_t end_ms, wc_prom_node_cb cb,
                       void *ctx, wc_error *err)
{
    const char *m[2] = {WC_PROM_NODES_V010, WC_PROM_NODES_LEGACY};
    nodes_ctx c = {cb, ctx};
    return wc_prom_series_find(api, m, 2, start_ms, end_ms, series_cb, &c, err);
}
