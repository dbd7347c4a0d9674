/*
 * promapi.h — a client of the Prometheus HTTP API (v1), as Prometheus,
 * Thanos, Mimir and VictoriaMetrics serve it: range queries
 * (/api/v1/query_range, matrix results), instant queries (/api/v1/query),
 * series discovery (/api/v1/series) and label values
 * (/api/v1/label/NAME/values), over libcurl, answers parsed with cJSON.
 *
 * Follows https://prometheus.io/docs/prometheus/latest/querying/api/: every
 * answer is {"status":"success"|"error","data":...,"errorType","error",
 * "warnings"}; a sample is [unix_seconds, "value"] with the value a string
 * ("NaN", "+Inf" included). Prometheus refuses a range query whose
 * (end - start) / step exceeds 11,000 points per series, so a range query is
 * split into consecutive chunks of at most WC_PROM_MAX_POINTS instants, one
 * request each; each chunk's answer is parsed, handed series by series to a
 * callback and freed before the next request (memory bounded by one chunk).
 *
 * Credentials never come from argv: a bearer token from a file or
 * PROMETHEUS_TOKEN, or basic auth (user from the config or PROMETHEUS_USER,
 * password from a file or PROMETHEUS_PASSWORD). They are sent only over
 * https or to a loopback host, never follow a redirect and are wiped on
 * close. TLS is verified unless the config opts out.
 *
 * Errors are negative errno with a message naming the server, the request
 * and the query, and the server's own words: "status error" answers
 * (errorType, error), HTTP 4xx/5xx (401/403: which credentials were used), a
 * timeout (connect or whole request), an answer that is not the API's JSON.
 * An empty result is not an error here (the caller says what it means).
 *
 * Layer 3 (collector/README.md): includes only common/.
 */
#ifndef WC_PROMAPI_H
#define WC_PROMAPI_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

/* Prometheus's limit: at most 11,000 points per series in one range query. */
#define WC_PROM_MAX_POINTS 11000
/* Default request timeouts and the largest answer read. */
#define WC_PROM_DEFAULT_TIMEOUT_NS (30LL * 1000000000LL)
#define WC_PROM_DEFAULT_CONNECT_TIMEOUT_NS (5LL * 1000000000LL)
#define WC_PROM_DEFAULT_MAX_BODY ((size_t)256 << 20)

/* Where and how to connect. Strings are borrowed for wc_prom_open only. */
typedef struct wc_prom_config {
    const char *url;            /* http[s]://host[:port][/prefix]: no user:password@, no ?query */
    const char *token_file;     /* bearer token: this file's one line (wc_read_secret) */
    const char *user;           /* basic auth user; NULL: PROMETHEUS_USER */
    const char *password_file;  /* basic auth password: this file's one line */
    int insecure;               /* 1: do not verify the server's TLS certificate */
    int64_t connect_timeout_ns; /* 0: WC_PROM_DEFAULT_CONNECT_TIMEOUT_NS */
    int64_t timeout_ns;         /* one whole request; 0: WC_PROM_DEFAULT_TIMEOUT_NS */
    size_t max_body;            /* bytes of one answer; 0: WC_PROM_DEFAULT_MAX_BODY */
} wc_prom_config;

/* A connection to one server (opaque). */
typedef struct wc_prom wc_prom;

/* Checks the URL, reads the credentials (a token file or PROMETHEUS_TOKEN;
 * a password file or PROMETHEUS_PASSWORD with a user; giving both kinds is
 * refused) and sets up libcurl. No request is sent. Returns 0 with *out set;
 * -EINVAL for a malformed URL, a URL holding credentials, credentials for
 * plain http to a host that is not loopback, an empty secret or both kinds;
 * -ENOENT / -EACCES reading a secret file; -ENOMEM. */
int wc_prom_open(const wc_prom_config *cfg, wc_prom **out, wc_error *err);

/* Closes the connection, wiping the secret. Safe on NULL. */
void wc_prom_close(wc_prom *p);

/* The base URL (no trailing '/') and a one-line description of the
 * connection ("bearer token from FILE; TLS verified; timeout 30 s"). */
const char *wc_prom_url(const wc_prom *p);
const char *wc_prom_describe(const wc_prom *p);

/* What the connection did so far: requests sent, answer bytes, series and
 * points handed to callbacks, and the first warning a server attached to a
 * successful answer (Thanos's partial response, ...; "" none). */
typedef struct wc_prom_counts {
    int64_t requests, bytes, series, points, warnings;
    char warning[256];
} wc_prom_counts;
void wc_prom_get_counts(const wc_prom *p, wc_prom_counts *out);

/* One label (not __name__). Valid only during the callback. */
typedef struct wc_prom_label {
    const char *name, *value;
} wc_prom_label;

/* One point: evaluation time (ms since the epoch) and value (NaN, ±Inf as sent). */
typedef struct wc_prom_point {
    int64_t t_ms;
    double value;
} wc_prom_point;

/* One series of an answer. Valid only during the callback. */
typedef struct wc_prom_series {
    const char *metric;          /* __name__; "" when the result has none (an expression) */
    const wc_prom_label *labels; /* the other labels, sorted by name */
    size_t nlabels;
    const wc_prom_point *points; /* in time order; none for series discovery */
    size_t npoints;
} wc_prom_series;

/* Called per series; return 0 to go on, non-zero (a negative errno, err
 * set) to stop: that value is returned by the call. */
typedef int (*wc_prom_cb)(void *ctx, const wc_prom_series *s, wc_error *err);

/* A range: evaluation instants start, start + step, ... <= end (ms), split
 * into chunks of at most max_points instants (0 or above
 * WC_PROM_MAX_POINTS: WC_PROM_MAX_POINTS). */
typedef struct wc_prom_range {
    int64_t start_ms, end_ms, step_ms;
    size_t max_points;
} wc_prom_range;

/* Instants of a range ((end - start) / step + 1), and its chunks. Return 0
 * for an invalid range (step <= 0 or end < start). */
int64_t wc_prom_range_points(const wc_prom_range *r);
size_t wc_prom_chunk_count(const wc_prom_range *r);

/* Chunk i of a range: its first and last instant (ms). */
void wc_prom_chunk(const wc_prom_range *r, size_t i, int64_t *start_ms, int64_t *end_ms);

/* /api/v1/query_range of query over r, chunk by chunk: cb gets every series
 * of each chunk (the same series again in later chunks, with later
 * points). Returns 0 (also with no series), or an error as above. */
int wc_prom_query_range(wc_prom *p, const char *query, const wc_prom_range *r, wc_prom_cb cb,
                        void *ctx, wc_error *err);

/* /api/v1/query at time_ms: cb gets each series of a vector with its one
 * point (a scalar: one series without labels; a matrix: as returned). */
int wc_prom_query(wc_prom *p, const char *query, int64_t time_ms, wc_prom_cb cb, void *ctx,
                  wc_error *err);

/* /api/v1/series: every series matching any of the n selectors in
 * [start_ms, end_ms]; cb gets their label sets (no points). */
int wc_prom_series_find(wc_prom *p, const char *const *match, size_t n, int64_t start_ms,
                        int64_t end_ms, wc_prom_cb cb, void *ctx, wc_error *err);

/* /api/v1/label/NAME/values in [start_ms, end_ms]: the values, joined with
 * ", " into buf (cut with "..." when full); *count = how many. Returns 0 or
 * an error as above. */
int wc_prom_label_values(wc_prom *p, const char *label, int64_t start_ms, int64_t end_ms,
                         char *buf, size_t cap, size_t *count, wc_error *err);

/* ---- pure helpers (no I/O), public for the tests and the importer ---- */

/* What an answer's data holds. */
typedef enum wc_prom_answer {
    WC_PROM_RESULT = 0,  /* query, query_range: {"resultType", "result"} */
    WC_PROM_SERIES,      /* series: an array of label sets (series without points) */
    WC_PROM_VALUES,      /* label values: an array of strings, each handed as a series
                            whose metric is the value (no labels, no points) */
    WC_PROM_MATRIX       /* query_range: {"resultType": "matrix", "result"}; any other
                            result type is refused */
} wc_prom_answer;

/* Parses one API answer (body of len bytes, HTTP status http_status) and
 * calls cb per series. what names the request in errors ("query_range
 * 'up' (1700000000 .. 1700000060, step 15s)"). Answers Prometheus never
 * gives are refused, before any series is handed over: two series with the
 * same label set (they would merge into one), two samples of a series at the
 * same instant or out of time order, a result type other than a matrix for
 * WC_PROM_MATRIX. Returns 0; -EPROTO for an answer that is not the API's
 * JSON or is one of those; -EACCES for 401/403; -EINVAL for a
 * "bad_data" error (the query); -EIO for the other error answers; -ENOMEM;
 * or cb's value. *warning (may be NULL, cap bytes) receives the first
 * warning of a successful answer. */
int wc_prom_parse_answer(const char *body, size_t len, long http_status, wc_prom_answer kind,
                         const char *what, wc_prom_cb cb, void *ctx, char *warning,
                         size_t cap, wc_error *err);

/* Parses a time as the API takes it: RFC 3339 ("2026-11-29T16:47:17Z",
 * "2026-11-29T17:47:17.250+01:00") or Unix seconds with an optional
 * fraction ("1795970837.25"); into ms since the epoch (a finer fraction is
 * rounded down). Returns 0 or -EINVAL (malformed, out of range, before
 * 1970). */
int wc_prom_parse_time(const char *text, int64_t *ms);

/* Writes ms as the API's Unix seconds ("1795970837.250"); returns buf. */
char *wc_prom_format_time(int64_t ms, char *buf, size_t cap);

/* Quotes a label value as a PromQL string literal ("a\"b" for a"b: \\, \"
 * and \n escaped) into buf. Returns 0 or -ENOSPC. */
int wc_prom_quote(const char *value, char *buf, size_t cap);

#endif
