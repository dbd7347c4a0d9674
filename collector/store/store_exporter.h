/*
 * store_exporter.h — the exporter's own numbers in the run database (schema
 * version 5; docs/schema.md "exporter*"): which exporter was read and how
 * (live scrape or Prometheus import), every scrape with its timing and HTTP
 * outcome, every series as reported (metric and canonical labels, with
 * Kepler's meaning from collector/exporter/kepler_metrics.h) and every sample.
 *
 * Writers (the recorder's scraper thread hands scrapes to the sampler, which
 * writes each scrape's row inside its tick transaction and the samples in
 * their own bounded transactions between ticks; `import --prometheus` writes a new
 * run in one transaction) and readers (validator/exporter.c). Series ids are
 * cached by the store, so a scrape of N samples is N inserts, not N lookups.
 */
#ifndef WC_STORE_EXPORTER_H
#define WC_STORE_EXPORTER_H

#include <stddef.h>
#include <stdint.h>

#include "collector/exporter/kepler_metrics.h"
#include "collector/store/store.h"
#include "common/wc_error.h"

/* One exporter of the run (a row of table exporter). */
typedef struct wc_exporter_info {
    int64_t id;                  /* set by wc_store_put_exporter / read back */
    char spec[512];              /* as given (never credentials) */
    char kind[16];               /* "kepler" */
    char origin[16];             /* "live" | "prometheus" */
    char node[128];
    char version[64], revision[64]; /* kepler_build_info; "" unknown */
    char layout[16];             /* "v0.10+" | "legacy" | "" unknown */
    char power_source[16];       /* "measured" | "not measured" | "unknown" */
    char provenance[96];         /* "exporter kepler <version> (<power source>)", or a replay's */
    char description[256];
} wc_exporter_info;

/* Registers an exporter; sets e->id. Returns 0 or -EIO. */
int wc_store_put_exporter(wc_store *st, wc_exporter_info *e, wc_error *err);

/* Rewrites what was learnt after the start (version, layout, power source,
 * provenance, description) of exporter e->id. Returns 0 or -EIO. */
int wc_store_update_exporter(wc_store *st, const wc_exporter_info *e, wc_error *err);

/* One scrape (or one Prometheus evaluation instant). */
typedef struct wc_scrape_meta {
    int64_t id;                  /* set by wc_store_put_scrape / read back */
    int64_t exporter_id;
    int64_t req_mono_ns, req_wall_ns, resp_mono_ns, resp_wall_ns;
    int http_status;             /* 0: none (error before a response, or imported) */
    int64_t duration_ns, bytes, samples;
    char status[16];             /* ok | error | parse_error | capped */
    char error[256];             /* why, when not ok ("" otherwise) */
} wc_scrape_meta;

/* Inserts a scrape; sets m->id. Call inside a transaction. Returns 0, -EIO,
 * -ENOSPC. */
int wc_store_put_scrape(wc_store *st, wc_scrape_meta *m, wc_error *err);

/* Says that only the first `stored` samples of scrape scrape_id are stored
 * (the recorder dropped the rest: its queue of samples waiting to be written
 * was full): its samples column becomes stored and why is appended to its
 * error. Call inside a transaction. Returns 0, -EROFS or -EIO. */
int wc_store_cut_scrape(wc_store *st, int64_t scrape_id, int64_t stored, const char *why,
                        wc_error *err);

/* One sample to store: the series (metric, canonical labels, its meaning)
 * and its value. */
typedef struct wc_exporter_sample_in {
    const char *metric;
    const char *labels;          /* canonical label text (wc_expo_labels_canonical) */
    const wc_kep_fact *fact;     /* NULL: not a Kepler series (stored with level "") */
    double value;                /* NaN/Inf stored as NULL */
    int has_ts;
    int64_t ts_ms;
} wc_exporter_sample_in;

/* Inserts n samples of one scrape, creating their series rows when new.
 * Call inside a transaction. Returns 0, -EIO, -ENOSPC, -ENOMEM. */
int wc_store_put_exporter_samples(wc_store *st, int64_t exporter_id, int64_t scrape_id,
                                  const wc_exporter_sample_in *v, size_t n, wc_error *err);

/* ---- readers ---- */

/* The run's exporters, by id: *n of at most max. Returns 0 or -EIO. A run of
 * schema version 4 has none. */
int wc_store_exporters(wc_store *st, wc_exporter_info *out, size_t max, size_t *n,
                       wc_error *err);

/* Every scrape of an exporter in time order (malloc'd *out, *n rows; free()).
 * Returns 0, -EIO, -ENOMEM. */
int wc_store_scrapes(wc_store *st, int64_t exporter_id, wc_scrape_meta **out, size_t *n,
                     wc_error *err);

/* One series as stored. */
typedef struct wc_exporter_series_row {
    int64_t id;
    char metric[128];
    char labels[1024];
    char level[16], quantity[24], device[8], zone[32];
    char key[160], parent[160], name[256], ns[128], comm[64], state[16], path[256], meter[16];
} wc_exporter_series_row;

/* Every series of an exporter, by id (malloc'd; free()). Returns 0, -EIO,
 * -ENOMEM. */
int wc_store_exporter_series(wc_store *st, int64_t exporter_id, wc_exporter_series_row **out,
                             size_t *n, wc_error *err);

/* How many series an exporter has (0 in a run without the tables). */
int wc_store_exporter_series_count(wc_store *st, int64_t exporter_id, size_t *n, wc_error *err);

/* The series of an exporter, by id, written at first, first + stride, ...
 * (a caller's array of structs holding a row: no second copy of rows of
 * ~2 KB each), at most cap of them; *n filled. More rows than cap (the file
 * changed since the count: read both in one wc_store_read_begin) is -EAGAIN;
 * else 0, -EIO. */
int wc_store_exporter_series_fill(wc_store *st, int64_t exporter_id, wc_exporter_series_row *first,
                                  size_t stride, size_t cap, size_t *n, wc_error *err);

/* One stored sample with its scrape's time. */
typedef struct wc_exporter_sample_row {
    int64_t series_id, scrape_id;
    int64_t mono_ns, wall_ns;    /* the scrape's response time (an import: the instant) */
    double value;                /* NAN when stored as NULL */
    int has_ts;
    int64_t ts_ms;
} wc_exporter_sample_row;

/* Streams an exporter's samples, series by series, each in time order;
 * level/quantity (NULL: any) filter by their names ("pod", "joules").
 * Step with wc_store_exporter_sample_next (1 row, 0 end, <0 error); close
 * with wc_store_iter_close. */
int wc_store_exporter_samples_open(wc_store *st, int64_t exporter_id, const char *level,
                                   const char *quantity, wc_store_iter **it, wc_error *err);
int wc_store_exporter_sample_next(wc_store_iter *it, wc_exporter_sample_row *row,
                                  wc_error *err);

#endif
