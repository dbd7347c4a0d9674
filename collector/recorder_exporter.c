/*
 * recorder_exporter.c — the recorder's power exporters (see
 * recorder_exporter.h): exporter rows, scrapes drained into the tick's
 * transaction, what each scrape taught written back to the exporter row.
 */
#include "collector/recorder_exporter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/exporter/exporter_table.h"
#include "collector/store/store_exporter.h"
#include "common/wc_text.h"

struct wc_rec_exporters {
    const char *const *specs;
    size_t n;
    wc_exporter_config cfg;
    wc_exporter_scraper *scraper;
    wc_exporter_info info[WC_EXPORTER_MAX]; /* as stored (ids set at register) */
    wc_exporter_sample_in *in;   /* one scrape's samples for the store */
    size_t in_cap;
};

int wc_rec_exporters_open(const char *const *specs, size_t n, const wc_exporter_config *cfg,
                          wc_rec_exporters **out, wc_error *err)
{
    *out = NULL;
    if (n == 0)
        return 0;
    if (n > WC_EXPORTER_MAX)
        return wc_error_set(err, -EINVAL, "--exporter: at most %d exporters", WC_EXPORTER_MAX);
    wc_rec_exporters *x = calloc(1, sizeof *x);
    if (!x)
        return wc_error_set(err, -ENOMEM, "out of memory");
    x->specs = specs;
    x->n = n;
    x->cfg = *cfg;
    wc_exporter_config_settle(&x->cfg);
    x->scraper = wc_exporter_scraper_new(specs, n, cfg, err);
    if (!x->scraper) {
        free(x);
        return -EINVAL;
    }
    *out = x;
    return 0;
}

/* The exporter's description from what is known of it so far. */
static void describe(const wc_rec_exporters *x, wc_exporter_info *e, const char *url)
{
    size_t used = 0;
    e->description[0] = '\0';
    wc_append(e->description, sizeof e->description, &used,
              "%s /metrics at %.120s, scraped live every %g s (timeout %g s)", e->kind, url,
              (double)x->cfg.interval_ns / 1e9, (double)x->cfg.timeout_ns / 1e9);
    if (e->version[0])
        wc_append(e->description, sizeof e->description, &used, "; build %s%s%s", e->version,
                  e->revision[0] ? " revision " : "", e->revision);
    if (e->layout[0])
        wc_append(e->description, sizeof e->description, &used, "; %s metric names", e->layout);
}

int wc_rec_exporters_register(wc_rec_exporters *x, wc_store *st, wc_error *err)
{
    if (!x)
        return 0;
    for (size_t i = 0; i < x->n; i++) {
        wc_exporter_info *e = &x->info[i];
        const char *url = "";
        const wc_exporter_kind *k = wc_exporter_kind_find(x->specs[i], &url);
        memset(e, 0, sizeof *e);
        wc_copy_trunc(e->spec, sizeof e->spec, x->specs[i]);
        wc_copy_trunc(e->kind, sizeof e->kind, k ? k->prefix : "");
        wc_copy_trunc(e->origin, sizeof e->origin, "live");
        wc_copy_trunc(e->power_source, sizeof e->power_source, "unknown");
        wc_exporter_provenance(e->kind, e->version, e->revision, e->power_source, e->provenance,
                               sizeof e->provenance);
        describe(x, e, url);
        int rc = wc_store_put_exporter(st, e, err);
        if (rc)
            return rc;
    }
    return wc_exporter_scraper_start(x->scraper, err);
}

/* Copies a learnt field when the scrape said something new; 1 when changed. */
static int take(char *dst, size_t cap, const char *src)
{
    if (!src[0] || strcmp(dst, src) == 0)
        return 0;
    wc_copy_trunc(dst, cap, src);
    return 1;
}

/* What a scrape taught, into the exporter row (rewritten when it changed). */
static int learn(wc_rec_exporters *x, wc_store *st, size_t i, const wc_exporter_learnt *l,
                 wc_error *err)
{
    wc_exporter_info *e = &x->info[i];
    int changed = take(e->node, sizeof e->node, l->node);
    changed |= take(e->version, sizeof e->version, l->version);
    changed |= take(e->revision, sizeof e->revision, l->revision);
    changed |= take(e->layout, sizeof e->layout, l->layout);
    changed |= take(e->power_source, sizeof e->power_source, l->power_source);
    if (!changed)
        return 0;
    const char *url = "";
    wc_exporter_kind_find(x->specs[i], &url);
    wc_exporter_provenance(e->kind, e->version, e->revision, e->power_source, e->provenance,
                           sizeof e->provenance);
    describe(x, e, url);
    return wc_store_update_exporter(st, e, err);
}

/* One scrape's samples as the store takes them (x->in, grown). */
static int samples_in(wc_rec_exporters *x, const wc_scrape *sc, wc_error *err)
{
    if (sc->nvalues > x->in_cap) {
        wc_exporter_sample_in *in = realloc(x->in, sc->nvalues * sizeof *in);
        if (!in)
            return wc_error_set(err, -ENOMEM, "out of memory");
        x->in = in;
        x->in_cap = sc->nvalues;
    }
    for (size_t i = 0; i < sc->nvalues; i++) {
        const wc_scrape_value *v = &sc->values[i];
        x->in[i] = (wc_exporter_sample_in){.metric = v->series->metric,
                                           .labels = v->series->labels,
                                           .fact = v->series->fact, .value = v->value,
                                           .has_ts = v->has_ts, .ts_ms = v->ts_ms};
    }
    return 0;
}

/* One scrape: its row, its samples, what it taught; counted in res. */
static int write_scrape(wc_rec_exporters *x, wc_store *st, const wc_scrape *sc,
                        wc_record_result *res, wc_error *err)
{
    wc_scrape_meta m;
    memset(&m, 0, sizeof m);
    m.exporter_id = x->info[sc->exporter].id;
    m.req_mono_ns = sc->req_mono_ns;
    m.req_wall_ns = sc->req_wall_ns;
    m.resp_mono_ns = sc->resp_mono_ns;
    m.resp_wall_ns = sc->resp_wall_ns;
    m.http_status = sc->http_status;
    m.duration_ns = sc->resp_mono_ns - sc->req_mono_ns;
    m.bytes = sc->bytes;
    m.samples = (int64_t)sc->nvalues;
    wc_copy_trunc(m.status, sizeof m.status, wc_scrape_status_name(sc->status));
    wc_copy_trunc(m.error, sizeof m.error, sc->error);
    int rc = wc_store_put_scrape(st, &m, err);
    if (!rc)
        rc = samples_in(x, sc, err);
    if (!rc)
        rc = wc_store_put_exporter_samples(st, m.exporter_id, m.id, x->in, sc->nvalues, err);
    if (!rc)
        rc = learn(x, st, sc->exporter, &sc->learnt, err);
    int ok = sc->status == WC_SCRAPE_OK || sc->status == WC_SCRAPE_CAPPED;
    res->exporter_ok += ok;
    res->exporter_failed += !ok;
    return rc;
}

int wc_rec_exporters_write(wc_rec_exporters *x, wc_store *st, wc_record_result *res,
                           wc_error *err)
{
    if (!x)
        return 0;
    wc_scrape **q = NULL;
    size_t n = wc_exporter_scraper_drain(x->scraper, &q);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rc)
            rc = write_scrape(x, st, q[i], res, err);
        wc_scrape_free(q[i]);
    }
    free(q);
    res->exporter_dropped = wc_exporter_scraper_dropped(x->scraper);
    return rc;
}

int wc_rec_exporters_finish(wc_rec_exporters *x, wc_store *st, wc_record_result *res, int rc,
                            wc_error *err)
{
    if (!x)
        return rc;
    wc_exporter_scraper_stop(x->scraper); /* joins the threads; their last scrapes stay queued */
    if (rc)
        return rc;
    rc = wc_store_begin(st, err);
    if (rc)
        return rc;
    rc = wc_rec_exporters_write(x, st, res, err);
    if (rc) {
        wc_store_rollback(st);
        return rc;
    }
    return wc_store_commit(st, err);
}

void wc_rec_exporters_free(wc_rec_exporters *x)
{
    if (!x)
        return;
    wc_exporter_scraper_free(x->scraper);
    free(x->in);
    free(x);
}
