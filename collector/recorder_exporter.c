/*
 * recorder_exporter.c — the recorder's power exporters (see
 * recorder_exporter.h): exporter rows, scrape rows drained into the tick's
 * transaction, their samples queued and written between ticks in one
 * transaction of chunks of CHUNK_ROWS until the sampler's time budget is
 * spent (one commit per tick: few WAL checkpoints), what each scrape taught written back to the exporter row.
 *
 * The queue is bounded (PEND_MAX_SAMPLES samples waiting, the newest scrape
 * always kept): past it the oldest scrape's unwritten samples are dropped,
 * counted (wc_record_result.exporter_samples_dropped) and said in its stored
 * row (wc_store_cut_scrape). The queue owns the scrapes; a scrape is freed
 * once its samples are written.
 */
#include "collector/recorder_exporter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/exporter/exporter_table.h"
#include "collector/store/store_exporter.h"
#include "common/wc_clock.h"
#include "common/wc_text.h"

#define CHUNK_ROWS 1024             /* samples written between two looks at the clock */
#define PEND_MAX_SAMPLES 2000000    /* samples waiting to be written (64 MB of values) */

/* A scrape whose row is stored and whose samples wait to be written. */
typedef struct pending {
    wc_scrape *sc;
    int64_t scrape_id;
    size_t done;                 /* samples written so far */
} pending;

struct wc_rec_exporters {
    const char *const *specs;
    size_t n;
    wc_exporter_config cfg;
    wc_exporter_scraper *scraper;
    wc_exporter_info info[WC_EXPORTER_MAX]; /* as stored (ids set at register) */
    wc_exporter_sample_in in[CHUNK_ROWS]; /* one chunk's samples for the store */
    wc_kep_fact facts[CHUNK_ROWS];        /* their meanings, unpacked */
    wc_scrape **last;            /* the scrapes drained by the last write (wc_rec_exporters_last) */
    size_t nlast;
    pending *pend;               /* FIFO, oldest first; owns the scrapes */
    size_t npend, pend_cap, pend_samples;
};

/* Forgets the last write's array (the scrapes are the queue's). */
static void drop_last(wc_rec_exporters *x)
{
    free(x->last);
    x->last = NULL;
    x->nlast = 0;
}

/* Removes the oldest pending scrape and frees it. */
static void pend_pop(wc_rec_exporters *x)
{
    pending *p = &x->pend[0];
    x->pend_samples -= p->sc->nvalues - p->done;
    wc_scrape_free(p->sc);
    memmove(x->pend, x->pend + 1, (x->npend - 1) * sizeof *x->pend);
    x->npend--;
}

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
        int rc = st ? wc_store_put_exporter(st, e, err) : 0;
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
    return st ? wc_store_update_exporter(st, e, err) : 0;
}

/* Samples [from, from + n) of a scrape as the store takes them (x->in). */
static void samples_in(wc_rec_exporters *x, const wc_scrape *sc, size_t from, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const wc_scrape_value *v = &sc->values[from + i];
        int kepler = wc_scrape_series_fact(v->series, &x->facts[i]);
        x->in[i] = (wc_exporter_sample_in){.metric = v->series->metric,
                                           .labels = v->series->labels,
                                           .fact = kepler ? &x->facts[i] : NULL,
                                           .value = v->value, .has_ts = v->has_ts,
                                           .ts_ms = v->ts_ms};
    }
}

/* Drops the oldest pending scrape's unwritten samples (counted, and said in
 * its row) until sc's fit below PEND_MAX_SAMPLES; the newest always fits. */
static int pend_make_room(wc_rec_exporters *x, wc_store *st, size_t need, wc_record_result *res,
                          wc_error *err)
{
    while (x->npend && x->pend_samples + need > PEND_MAX_SAMPLES) {
        pending *p = &x->pend[0];
        size_t lost = p->sc->nvalues - p->done;
        char why[160];
        snprintf(why, sizeof why, "%zu of %zu samples not stored: the recorder's queue of "
                 "samples to write was full (%d)", lost, p->sc->nvalues, PEND_MAX_SAMPLES);
        int rc = st && lost ? wc_store_cut_scrape(st, p->scrape_id, (int64_t)p->done, why, err) : 0;
        if (rc)
            return rc;
        res->exporter_samples_dropped += (int64_t)lost;
        pend_pop(x);
    }
    return 0;
}

/* Queues a scrape whose row is stored (id) for its samples. */
static int pend_push(wc_rec_exporters *x, wc_store *st, wc_scrape *sc, int64_t id,
                     wc_record_result *res, wc_error *err)
{
    int rc = pend_make_room(x, st, sc->nvalues, res, err);
    if (!rc && x->npend == x->pend_cap) {
        size_t cap = x->pend_cap ? x->pend_cap * 2 : 16;
        pending *p = realloc(x->pend, cap * sizeof *p);
        if (!p)
            rc = wc_error_set(err, -ENOMEM, "out of memory");
        else {
            x->pend = p;
            x->pend_cap = cap;
        }
    }
    if (rc) {
        wc_scrape_free(sc);
        return rc;
    }
    x->pend[x->npend++] = (pending){.sc = sc, .scrape_id = id};
    x->pend_samples += sc->nvalues;
    return 0;
}

/* One scrape: its row and what it taught (its samples queued); counted in
 * res. The queue takes sc (freed on error too). */
static int write_scrape(wc_rec_exporters *x, wc_store *st, wc_scrape *sc,
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
    int ok = sc->status == WC_SCRAPE_OK || sc->status == WC_SCRAPE_CAPPED;
    res->exporter_ok += ok;
    res->exporter_failed += !ok && !sc->cancelled; /* the run's end is no failure */
    res->exporter_cancelled += !ok && sc->cancelled;
    int rc = st ? wc_store_put_scrape(st, &m, err) : 0;
    if (!rc)
        rc = learn(x, st, sc->exporter, &sc->learnt, err);
    if (rc) {
        wc_scrape_free(sc);
        return rc;
    }
    return pend_push(x, st, sc, m.id, res, err);
}

int wc_rec_exporters_write(wc_rec_exporters *x, wc_store *st, wc_record_result *res,
                           wc_error *err)
{
    if (!x)
        return 0;
    drop_last(x);
    wc_scrape **q = NULL;
    size_t n = wc_exporter_scraper_drain(x->scraper, &q);
    int rc = 0;
    size_t i = 0;
    while (i < n && !rc)
        rc = write_scrape(x, st, q[i++], res, err);
    while (i < n)
        wc_scrape_free(q[i++]); /* after an error: not queued */
    x->last = q; /* kept for wc_rec_exporters_last until the next write or flush */
    x->nlast = rc ? 0 : n;
    res->exporter_dropped = wc_exporter_scraper_dropped(x->scraper);
    return rc;
}

/* Writes up to CHUNK_ROWS queued samples (st NULL: forgets them); the
 * scrapes whose samples are all written leave the queue. */
static int write_chunk(wc_rec_exporters *x, wc_store *st, wc_error *err)
{
    size_t rows = 0;
    while (x->npend && rows < CHUNK_ROWS) {
        pending *p = &x->pend[0];
        size_t n = p->sc->nvalues - p->done;
        if (n > CHUNK_ROWS - rows)
            n = CHUNK_ROWS - rows;
        int rc = 0;
        if (st && n) {
            samples_in(x, p->sc, p->done, n);
            rc = wc_store_put_exporter_samples(st, x->info[p->sc->exporter].id, p->scrape_id,
                                               x->in, n, err);
        }
        if (rc)
            return rc;
        p->done += n;
        x->pend_samples -= n;
        rows += n;
        if (p->done == p->sc->nvalues)
            pend_pop(x);
    }
    return 0;
}

int wc_rec_exporters_flush(wc_rec_exporters *x, wc_store *st, int64_t until_mono_ns,
                           wc_error *err)
{
    if (!x)
        return 0;
    drop_last(x);
    if (!x->npend || wc_mono_ns() >= until_mono_ns)
        return 0;
    int rc = st ? wc_store_begin(st, err) : 0; /* one commit per flush: WAL checkpoints */
    while (!rc && x->npend && wc_mono_ns() < until_mono_ns)
        rc = write_chunk(x, st, err);
    if (rc) {
        if (st)
            wc_store_rollback(st);
        return rc;
    }
    return st ? wc_store_commit(st, err) : 0;
}

size_t wc_rec_exporters_pending(const wc_rec_exporters *x)
{
    return x ? x->pend_samples : 0;
}

int wc_rec_exporters_finish(wc_rec_exporters *x, wc_store *st, wc_record_result *res, int rc,
                            wc_error *err)
{
    if (!x)
        return rc;
    wc_exporter_scraper_stop(x->scraper); /* joins the threads; their last scrapes stay queued */
    if (rc)
        return rc;
    if (!st) { /* counted, nothing stored */
        rc = wc_rec_exporters_write(x, NULL, res, err);
        return rc ? rc : wc_rec_exporters_flush(x, NULL, INT64_MAX, err);
    }
    rc = wc_store_begin(st, err);
    if (rc)
        return rc;
    rc = wc_rec_exporters_write(x, st, res, err);
    if (rc) {
        wc_store_rollback(st);
        return rc;
    }
    rc = wc_store_commit(st, err);
    return rc ? rc : wc_rec_exporters_flush(x, st, INT64_MAX, err);
}

void wc_rec_exporters_free(wc_rec_exporters *x)
{
    if (!x)
        return;
    wc_exporter_scraper_free(x->scraper);
    drop_last(x);
    while (x->npend)
        pend_pop(x);
    free(x->pend);
    free(x);
}

wc_scrape *const *wc_rec_exporters_last(const wc_rec_exporters *x, size_t *n)
{
    *n = x ? x->nlast : 0;
    return x ? x->last : NULL;
}
