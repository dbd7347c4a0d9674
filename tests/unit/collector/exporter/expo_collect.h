/*
 * expo_collect.h — what the exporter room's tests share: parse a body (an
 * exact heap copy without a terminating NUL, so AddressSanitizer catches a
 * read past its length) and keep every sample handed to the callback, with
 * its canonical labels and its Kepler classification, for assertions.
 */
#ifndef WC_TEST_EXPO_COLLECT_H
#define WC_TEST_EXPO_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "collector/exporter/expo_parse.h"
#include "collector/exporter/kepler_metrics.h"

/* One sample as the callback saw it (strings copied). */
typedef struct expo_rec {
    char *name, *family, *labels; /* labels: wc_expo_labels_canonical text */
    wc_expo_type type;
    double value;
    int has_ts;
    int64_t ts_ms;
    size_t line, nlabels;
    int kepler;                   /* wc_kepler_classify's return */
    wc_kep_fact fact;
} expo_rec;

/* A parse: its return, error, stats and samples. */
typedef struct expo_got {
    int rc;
    wc_error err;
    wc_expo_stats st;
    expo_rec *r;
    size_t n, cap;
} expo_got;

/* Parses len bytes of text (copied to an exact-size buffer) into got. */
void expo_collect(const char *text, size_t len, wc_expo_format fmt, const char *source,
                  const wc_expo_limits *lim, expo_got *got);

/* The same for a NUL-terminated string. */
void expo_collect_str(const char *text, wc_expo_format fmt, expo_got *got);

/* The same for a file (source: its path); fails the test when unreadable. */
void expo_collect_file(const char *path, wc_expo_format fmt, expo_got *got);

/* The sample of this name and canonical label text, or NULL. */
const expo_rec *expo_find(const expo_got *g, const char *name, const char *labels);

/* The first sample of this name, or NULL. */
const expo_rec *expo_first(const expo_got *g, const char *name);

void expo_got_free(expo_got *g);

#endif
