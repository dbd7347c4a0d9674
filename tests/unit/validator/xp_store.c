/*
 * xp_store.c — test helpers storing an exporter's scrapes (xp_store.h).
 */
#include "tests/unit/validator/xp_store.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "collector/store/store_exporter.h"
#include "tests/unit/collector/exporter/expo_collect.h"

int64_t xp_put_exporter(wc_store *st, const char *spec, const char *node)
{
    wc_error err = {{0}};
    wc_exporter_info x = {0};
    snprintf(x.spec, sizeof x.spec, "%s", spec);
    snprintf(x.kind, sizeof x.kind, "kepler");
    snprintf(x.origin, sizeof x.origin, "live");
    snprintf(x.node, sizeof x.node, "%s", node);
    snprintf(x.version, sizeof x.version, "0.11.0");
    snprintf(x.power_source, sizeof x.power_source, "measured");
    snprintf(x.provenance, sizeof x.provenance, "exporter kepler 0.11.0 (measured)");
    cr_assert_eq(wc_store_put_exporter(st, &x, &err), 0, "%s", err.msg);
    return x.id;
}

void xp_put_scrape(wc_store *st, int64_t exporter_id, int64_t t_ns, const char *text)
{
    expo_got g;
    expo_collect_str(text, WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    wc_error err = {{0}};
    wc_scrape_meta m = {.exporter_id = exporter_id, .req_mono_ns = t_ns, .resp_mono_ns = t_ns,
                        .http_status = 200, .samples = (int64_t)g.n};
    snprintf(m.status, sizeof m.status, "ok");
    wc_exporter_sample_in *in = calloc(g.n ? g.n : 1, sizeof *in);
    cr_assert_not_null(in);
    for (size_t i = 0; i < g.n; i++)
        in[i] = (wc_exporter_sample_in){.metric = g.r[i].name, .labels = g.r[i].labels,
                                        .fact = g.r[i].kepler ? &g.r[i].fact : NULL,
                                        .value = g.r[i].value};
    cr_assert_eq(wc_store_begin(st, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_scrape(st, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_exporter_samples(st, exporter_id, m.id, in, g.n, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(wc_store_commit(st, &err), 0, "%s", err.msg);
    free(in);
    expo_got_free(&g);
}
