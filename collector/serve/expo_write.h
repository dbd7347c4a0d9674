/*
 * expo_write.h — writes the Prometheus text exposition format 0.0.4 (the
 * writer side of collector/exporter/expo_parse.h), for `wattcal serve`'s
 * /metrics (serve_state.c renders its series through it).
 *
 * The format (prometheus/docs exposition_formats.md, what `promtool check
 * metrics` checks): one "# HELP name text" and "# TYPE name type" per family,
 * then its samples together, "name{label="value",...} value\n". HELP text
 * escapes '\' and newline; label values escape '\', '"' and newline, and
 * must be UTF-8 (an invalid byte is written as U+FFFD); values are Go's
 * float forms: "NaN", "+Inf", "-Inf", else the shortest decimal that reads
 * back to the same double.
 *
 * The buffer grows on the heap; a failed allocation marks it failed (every
 * later call is a no-op) so a caller checks once, at the end.
 */
#ifndef WC_EXPO_WRITE_H
#define WC_EXPO_WRITE_H

#include <stddef.h>

/* A growing text buffer; zero-initialise, wc_expow_buf_free when done. */
typedef struct wc_expow_buf {
    char *data;                  /* NUL-terminated once anything was written */
    size_t len, cap;
    int failed;                  /* -ENOMEM once an allocation failed */
} wc_expow_buf;

/* Frees the text (the struct is reusable after). */
void wc_expow_buf_free(wc_expow_buf *b);

/* 1 when name is a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), else 0. */
int wc_expow_metric_name_ok(const char *name);

/* 1 when name is a valid label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting
 * with the reserved "__"), else 0. */
int wc_expow_label_name_ok(const char *name);

/* A sample value as the format writes it ("NaN", "+Inf", "-Inf", "0.25",
 * "1e+21") into out (cap >= 32). */
void wc_expow_format_value(double v, char *out, size_t cap);

/* "# HELP name help\n# TYPE name type\n" (type: counter, gauge, untyped...).
 * Returns 0, -EINVAL for an invalid name (nothing written), or -ENOMEM. */
int wc_expow_family(wc_expow_buf *b, const char *name, const char *type, const char *help);

/* One sample line. labels: NULL, or name/value pairs ending with a NULL name
 * ({"zone", "package", "model", "ideal", NULL}); a NULL value is written as
 * "". Returns 0, -EINVAL for an invalid metric or label name (nothing
 * written), or -ENOMEM. */
int wc_expow_sample(wc_expow_buf *b, const char *name, const char *const *labels, double value);

#endif
