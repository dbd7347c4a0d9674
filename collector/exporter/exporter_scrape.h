/*
 * exporter_scrape.h — scrapes power exporters' /metrics live, each on its own
 * thread (the model is collector/truth/truth_poller.h), for `wattcal record
 * --exporter kepler:URL`.
 *
 * Each exporter gets a thread that GETs its URL over libcurl every
 * interval_ns on absolute monotonic deadlines (connect and total timeouts,
 * TLS verified unless insecure, a body cap), parses the answer by its
 * Content-Type (text 0.0.4 or OpenMetrics, expo_parse.h) and gives every
 * series its meaning (the kind's classifier, exporter_table.h). On failure
 * it retries with exponential backoff (interval × 2^k, at most 60 s). Every
 * scrape, failed ones too, becomes a wc_scrape with its request and response
 * times (monotonic and wall), HTTP status, bytes, status and error, and goes
 * into a bounded queue that the recorder's sampler drains once per tick and
 * writes (the scrape rows in its tick transaction, the samples after it: see
 * collector/recorder_exporter.h). A slow or dead exporter never delays
 * the sampler: draining takes the queue under a lock and nothing else; a
 * full queue drops its oldest scrape (counted), it never blocks.
 *
 * Credentials never come from the spec (exporter_table.h refuses them):
 * a bearer token from cfg.token_file (its one line: wc_read_secret) or WATTCAL_EXPORTER_TOKEN,
 * else basic auth from WATTCAL_EXPORTER_USER and WATTCAL_EXPORTER_PASSWORD,
 * else none.
 *
 * Series are shared between scrapes: a wc_scrape_series (metric, canonical
 * labels, meaning) is made once per distinct series and every scrape that
 * reports it points at it, so a scrape costs one small value per sample. A
 * scrape keeps its series alive until wc_scrape_free, also after the scraper
 * is gone.
 */
#ifndef WC_EXPORTER_SCRAPE_H
#define WC_EXPORTER_SCRAPE_H

#include <stddef.h>
#include <stdint.h>

#include "collector/exporter/kepler_metrics.h"
#include "common/wc_error.h"

/* At most this many exporters per run (--exporter is repeatable). */
#define WC_EXPORTER_MAX 4

/* How the exporters are scraped (CLI: --exporter-interval, --exporter-timeout,
 * --exporter-token-file, --insecure). */
typedef struct wc_exporter_config {
    int64_t interval_ns;         /* default 5 s: Kepler's monitor.interval */
    int64_t timeout_ns;          /* whole request; 0 = the interval, at most 10 s */
    int64_t connect_timeout_ns;  /* 0 = 3 s, at most the timeout */
    int insecure;                /* do not verify TLS certificates */
    const char *token_file;      /* bearer token file (one line, wc_read_secret), or NULL */
    size_t max_body;             /* bytes; default 64 MiB: beyond, the scrape fails */
    size_t queue_max;            /* finished scrapes kept for the sampler; default 64 */
} wc_exporter_config;

/* Fills cfg with the defaults above. */
void wc_exporter_config_defaults(wc_exporter_config *cfg);

/* Replaces the zeros of cfg by what they stand for (the timeout: the
 * interval, at most 10 s; the connect timeout: 3 s, at most the timeout) and
 * bounds the rest, as the scraper will use them. */
void wc_exporter_config_settle(wc_exporter_config *cfg);

/* A scrape's outcome (stored as its name: wc_scrape_status_name). */
typedef enum wc_scrape_status {
    WC_SCRAPE_OK = 0,            /* every sample parsed */
    WC_SCRAPE_ERROR,             /* no usable answer: connect, timeout, TLS, HTTP status, cap */
    WC_SCRAPE_PARSE_ERROR,       /* an answer that is not an exposition (no sample kept) */
    WC_SCRAPE_CAPPED             /* parsed, but series beyond the parser's cap were dropped */
} wc_scrape_status;

/* "ok", "error", "parse_error", "capped". */
const char *wc_scrape_status_name(wc_scrape_status s);

/* One distinct series, shared by every scrape that reports it (immutable). */
typedef struct wc_scrape_series {
    const char *metric;          /* as reported */
    const char *labels;          /* canonical text (wc_expo_labels_canonical) */
    const struct wc_kep_packed *packed; /* its meaning, packed (wc_scrape_series_fact);
                                           NULL when it is not the exporter's own */
} wc_scrape_series;

/* The series' meaning unpacked into *out: 1, or 0 (out untouched) when it is
 * not the exporter's own series. A series keeps its meaning packed (a few
 * dozen bytes, not a 1.4 KB wc_kep_fact) so that 200,000 series stay cheap. */
int wc_scrape_series_fact(const wc_scrape_series *s, wc_kep_fact *out);

/* One sample of a scrape. */
typedef struct wc_scrape_value {
    const wc_scrape_series *series;
    double value;                /* NaN and ±Inf as reported */
    int has_ts;
    int64_t ts_ms;               /* the exposition's own timestamp, when has_ts */
} wc_scrape_value;

/* What a scrape told about the exporter; "" where it said nothing. */
typedef struct wc_exporter_learnt {
    char node[128];              /* node_name label */
    char version[64], revision[64]; /* kepler_build_info */
    char layout[16];             /* "v0.10+" | "legacy" */
    char power_source[16];       /* from the node series' path labels (wc_kepler_power_source) */
} wc_exporter_learnt;

/* One finished scrape (wc_scrape_free). */
typedef struct wc_scrape {
    size_t exporter;             /* index of its exporter in the specs given */
    int64_t req_mono_ns, req_wall_ns;   /* just before the request */
    int64_t resp_mono_ns, resp_wall_ns; /* when the answer (or the failure) was complete */
    int http_status;             /* 0: no HTTP answer */
    int64_t bytes;               /* body bytes received (decoded) */
    wc_scrape_status status;
    int cancelled;               /* 1: the run ended during the request (stored as an error,
                                    never counted as the exporter failing) */
    char error[256];             /* why, when not ok; the cap's warning when capped */
    wc_scrape_value *values;     /* none unless ok or capped */
    size_t nvalues;
    wc_exporter_learnt learnt;
    struct wc_series_set *set;   /* private: keeps values[].series alive */
} wc_scrape;

/* Frees a scrape (and its series when it was their last user). Safe on NULL. */
void wc_scrape_free(wc_scrape *sc);

typedef struct wc_exporter_scraper wc_exporter_scraper;

/* Checks the specs (wc_exporter_check_spec) and the credentials, and sets up
 * one libcurl handle per exporter; no request yet and no thread. specs stay
 * owned by the caller and must outlive the scraper. Returns NULL with err
 * (-EINVAL for a bad spec, a token file that cannot be read; -ENOMEM). */
wc_exporter_scraper *wc_exporter_scraper_new(const char *const *specs, size_t n,
                                             const wc_exporter_config *cfg, wc_error *err);

/* Starts one thread per exporter; the first scrape is at once. Returns 0 or
 * -errno with err. */
int wc_exporter_scraper_start(wc_exporter_scraper *s, wc_error *err);

/* Moves the finished scrapes into a malloc'd array of pointers (*out, caller
 * frees the array and each scrape; NULL when none), oldest first, and
 * returns their count. Never waits for a scrape in progress. Safe on NULL. */
size_t wc_exporter_scraper_drain(wc_exporter_scraper *s, wc_scrape ***out);

/* Scrapes dropped because the queue was full (the sampler fell behind). */
int64_t wc_exporter_scraper_dropped(wc_exporter_scraper *s);

/* Stops and joins every thread; a request in progress is aborted (it is
 * queued as an error scrape, "cancelled: the run ended"). Queued scrapes stay
 * drainable. Safe on NULL and when called twice. */
void wc_exporter_scraper_stop(wc_exporter_scraper *s);

/* Stops the scraper if needed and frees it, with the scrapes still queued
 * and the credentials (wiped). Safe on NULL. */
void wc_exporter_scraper_free(wc_exporter_scraper *s);

/* The delay before retry k (k = consecutive failures, 1..) of an exporter
 * scraped every interval_ns: interval × 2^k, capped at 60 s. */
int64_t wc_exporter_backoff_ns(int64_t interval_ns, int failures);

/* Parses one answer body into sc (values, learnt, status and error) as the
 * scraper does after an HTTP 200: content_type picks the format, source names
 * the body in errors, classify gives the series their meaning (NULL: none),
 * set (NULL: a new one) is where series are shared. For the scraper and its
 * tests. Returns 0 (also for a parse error, which sc->status says) or -ENOMEM. */
int wc_scrape_parse_body(wc_scrape *sc, const char *body, size_t len, const char *content_type,
                         const char *source, int (*classify)(const wc_expo_sample *, wc_kep_fact *),
                         struct wc_series_set *set, size_t max_body);

#endif
