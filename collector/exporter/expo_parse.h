/*
 * expo_parse.h — the Prometheus text exposition format (version 0.0.4) and
 * OpenMetrics 1.0 text, parsed in one pass into a callback per sample.
 *
 * Follows https://prometheus.io/docs/instrumenting/exposition_formats/ and
 * the OpenMetrics spec: "# HELP"/"# TYPE" lines name a family and its type;
 * a sample line is NAME[{LABEL="VALUE",...}] VALUE [TIMESTAMP]; label values
 * escape \\, \" and \n; values may be NaN, +Inf, -Inf; the timestamp is
 * milliseconds (0.0.4) or seconds with a fraction (OpenMetrics); OpenMetrics
 * adds "# UNIT", "# EOF", exemplars after " # " (ignored) and _total/_created
 * suffixes. Pure: no I/O, no allocation per sample in the steady state.
 *
 * Errors name the source (caller-given), line and column. Limits keep a
 * hostile or broken body from exhausting memory: a cap on distinct series
 * (beyond it samples are dropped and counted, one warning), on the body and
 * on one label value.
 *
 * Where the specs leave a choice (docs/kepler-model.md §11.1): a carriage
 * return before a line feed is an error naming CRLF; a series repeated in
 * one body is a duplicate, except OpenMetrics points with different
 * timestamps; a label with an empty value is the same as no label (for
 * duplicates and the canonical text, as in Prometheus); a backslash not
 * followed by a backslash, a quote or n stands for itself; label values are
 * UTF-8 without NUL bytes; the 0.0.4 text also takes today's quoted UTF-8
 * metric and label names ({"my.name","a.b"="x"}; never empty), OpenMetrics does not;
 * OpenMetrics timestamps become ms from their decimal digits (truncated).
 * Columns count bytes. Implementation: expo_parse.c (lines), expo_lex.c
 * (tokens), expo_series.c (series identity, canonical labels).
 */
#ifndef WC_EXPO_PARSE_H
#define WC_EXPO_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

/* Metric types from "# TYPE" (UNTYPED when none was declared). */
typedef enum wc_expo_type {
    WC_EXPO_UNTYPED = 0, WC_EXPO_COUNTER, WC_EXPO_GAUGE, WC_EXPO_HISTOGRAM, WC_EXPO_SUMMARY,
    WC_EXPO_INFO, WC_EXPO_STATESET, WC_EXPO_GAUGEHISTOGRAM, WC_EXPO_UNKNOWN
} wc_expo_type;

/* The two text formats (OpenMetrics: "application/openmetrics-text"). */
typedef enum wc_expo_format { WC_EXPO_TEXT_004 = 0, WC_EXPO_OPENMETRICS } wc_expo_format;

/* One label, unescaped. Valid only during the callback. */
typedef struct wc_expo_label {
    const char *name;
    const char *value;
} wc_expo_label;

/* One sample. Strings and arrays are valid only during the callback. */
typedef struct wc_expo_sample {
    const char *name;            /* metric name as written ("kepler_node_cpu_joules_total") */
    const char *family;          /* the family its TYPE/HELP named; == name when none */
    wc_expo_type type;
    const wc_expo_label *labels; /* as written (order kept) */
    size_t nlabels;
    double value;                /* NaN and ±Inf as parsed */
    int has_timestamp;
    int64_t timestamp_ms;        /* when has_timestamp */
    size_t line;                 /* 1-based line of the sample */
} wc_expo_sample;

/* Limits (0 = the default given). */
typedef struct wc_expo_limits {
    size_t max_series;           /* distinct name+labels kept (default 100,000) */
    size_t max_body;             /* bytes parsed (default 64 MiB); beyond: -EFBIG */
    size_t max_label_value;      /* bytes of one label value (default 4096); beyond: -EINVAL */
    size_t max_labels;           /* labels of one sample (default 64) */
} wc_expo_limits;

/* What a parse saw. */
typedef struct wc_expo_stats {
    size_t lines, samples;       /* samples passed to the callback */
    size_t series_dropped;       /* samples beyond max_series (not passed on) */
    size_t duplicates;           /* repeated name+labels in one body (first kept) */
    size_t nonfinite;            /* NaN/Inf values passed on */
    int saw_eof;                 /* OpenMetrics "# EOF" seen */
    char warning[256];           /* "SOURCE:LINE: ..." naming the first sample over the
                                    series cap and the count dropped; else the first
                                    duplicate and the count; "" none */
} wc_expo_stats;

/* Called per sample (not for duplicates or samples over the series cap);
 * return 0 to go on, non-zero to stop (returned as is, err untouched). */
typedef int (*wc_expo_cb)(void *ctx, const wc_expo_sample *s);

/* Parses len bytes of buf (need not be NUL-terminated). source names the
 * body in errors ("http://h:28282/metrics"; NULL: "exposition"). lim, cb,
 * st and err may be NULL (defaults; count only). Returns 0; -EINVAL with err
 * "SOURCE:LINE:COL: why" for malformed text (nothing after the error is
 * passed on; samples before it were); -EFBIG beyond max_body (nothing
 * passed on); -ENOMEM; or the callback's non-zero return. A body cut
 * mid-line is an error ("truncated"), and an OpenMetrics body without
 * "# EOF" is reported as truncated too. st is filled in every case. */
int wc_expo_parse(const char *buf, size_t len, wc_expo_format fmt, const char *source,
                  const wc_expo_limits *lim, wc_expo_cb cb, void *ctx, wc_expo_stats *st,
                  wc_error *err);

/* The format named by an HTTP Content-Type ("text/plain; version=0.0.4",
 * "application/openmetrics-text; version=1.0.0"); text 0.0.4 when unknown. */
wc_expo_format wc_expo_format_of(const char *content_type);

/* Writes the canonical label text {a="x",b="y"} (sorted by name, values
 * escaped as the exposition does; a label with an empty value left out; a
 * name that is no legacy identifier quoted: {"a.b"="x"}) into buf. Returns
 * the length, or -ENOSPC when cap is too small (buf then holds a truncated,
 * terminated text when cap > 0). */
int wc_expo_labels_canonical(const wc_expo_label *labels, size_t n, char *buf, size_t cap);

#endif
