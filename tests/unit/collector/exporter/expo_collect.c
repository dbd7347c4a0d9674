/*
 * expo_collect.c — see expo_collect.h.
 */
#include "tests/unit/collector/exporter/expo_collect.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/support/test_support.h"

static char *dup_str(const char *s)
{
    char *d = strdup(s);
    cr_assert_not_null(d);
    return d;
}

/* The canonical label text, however long. */
static char *canonical(const wc_expo_sample *s)
{
    size_t cap = 256;
    for (;;) {
        char *buf = malloc(cap);
        cr_assert_not_null(buf);
        int n = wc_expo_labels_canonical(s->labels, s->nlabels, buf, cap);
        if (n >= 0)
            return buf;
        cr_assert_eq(n, -ENOSPC);
        cr_assert_eq(strlen(buf), cap - 1, "a truncated text fills the buffer");
        free(buf);
        cap *= 4;
    }
}

static int keep(void *ctx, const wc_expo_sample *s)
{
    expo_got *g = ctx;
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 64;
        g->r = realloc(g->r, g->cap * sizeof *g->r);
        cr_assert_not_null(g->r);
    }
    expo_rec *r = &g->r[g->n++];
    memset(r, 0, sizeof *r);
    r->name = dup_str(s->name);
    r->family = dup_str(s->family);
    r->labels = canonical(s);
    r->type = s->type;
    r->value = s->value;
    r->has_ts = s->has_timestamp;
    r->ts_ms = s->timestamp_ms;
    r->line = s->line;
    r->nlabels = s->nlabels;
    r->kepler = wc_kepler_classify(s, &r->fact);
    return 0;
}

void expo_collect(const char *text, size_t len, wc_expo_format fmt, const char *source,
                  const wc_expo_limits *lim, expo_got *got)
{
    memset(got, 0, sizeof *got);
    char *exact = malloc(len ? len : 1);
    cr_assert_not_null(exact);
    if (len)
        memcpy(exact, text, len);
    got->rc = wc_expo_parse(exact, len, fmt, source, lim, keep, got, &got->st, &got->err);
    free(exact);
}

void expo_collect_str(const char *text, wc_expo_format fmt, expo_got *got)
{
    expo_collect(text, strlen(text), fmt, "test", NULL, got);
}

void expo_collect_file(const char *path, wc_expo_format fmt, expo_got *got)
{
    size_t n;
    char *text = wc_test_slurp(path, &n);
    const char *base = strrchr(path, '/');
    expo_collect(text, n, fmt, base ? base + 1 : path, NULL, got);
    free(text);
}

const expo_rec *expo_find(const expo_got *g, const char *name, const char *labels)
{
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->r[i].name, name) && !strcmp(g->r[i].labels, labels))
            return &g->r[i];
    return NULL;
}

const expo_rec *expo_first(const expo_got *g, const char *name)
{
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->r[i].name, name))
            return &g->r[i];
    return NULL;
}

void expo_got_free(expo_got *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->r[i].name);
        free(g->r[i].family);
        free(g->r[i].labels);
    }
    free(g->r);
    memset(g, 0, sizeof *g);
}
