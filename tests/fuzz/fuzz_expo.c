/*
 * fuzz_expo.c — the Prometheus exposition text (collector/exporter/
 * expo_parse.c, wc_expo_parse and wc_expo_labels_canonical), in the text
 * 0.0.4 format or, with "#wc: format=om" on the first line, OpenMetrics 1.0.
 * The option line is the harness's, never the parser's: it is cut off first.
 * Options: series=N labels=N value=N (the parser's caps; small by default so
 * that inputs of a few KB reach them).
 * Contract (expo_parse.h): returns 0, or -EINVAL / -EFBIG with a printable
 * "fuzz/metrics:LINE:COL: why"; every sample's metric and label names are
 * identifiers (or, in 0.0.4, quoted UTF-8), label values valid UTF-8 within
 * the value cap, no label name twice, at most the label cap; a value is
 * finite unless its line says NaN or Inf (with the sign it says); lines
 * ascending; the stats count what the callback got; distinct series never
 * exceed the series cap (and reach it when samples were dropped); each
 * sample, printed again as one 0.0.4 line from its canonical label text,
 * parses to the same name, labels, value and timestamp.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collector/exporter/expo_parse.h"
#include "common/wc_text.h"
#include "tests/fuzz/fuzz.h"

#define SOURCE "fuzz/metrics"
#define MAX_KEYS 65

typedef struct run {
    const char *body;          /* the input after the option line */
    size_t len;
    wc_expo_format fmt;
    wc_expo_limits lim;
    size_t calls, nonfinite, last_line;
    const char *line_at;       /* start of line last_line in body */
    char *keys[MAX_KEYS];      /* distinct series seen (name + canonical labels) */
    size_t nkeys;
} run;

/* The number in "#wc: ... key=N" (dflt when absent), at least 1, at most max. */
static size_t option_num(const uint8_t *data, size_t size, const char *key, size_t dflt,
                         size_t max)
{
    char v[24];
    if (!fuzz_option(data, size, key, v, sizeof v))
        return dflt;
    size_t n = (size_t)strtoul(v, NULL, 10);
    return n < 1 ? 1 : n > max ? max : n;
}

static int utf8_ok(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = wc_utf8_len(p);
        if (!n)
            return 0;
        p += n;
    }
    return 1;
}

/* [A-Za-z_:][A-Za-z0-9_:]* (metric) or [A-Za-z_][A-Za-z0-9_]* (label). */
static int identifier(const char *s, int label)
{
    if (!*s || isdigit((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || (!label && *s == ':')) ||
            (unsigned char)*s > 0x7f)
            return 0;
    return 1;
}

static void check_name(const run *r, const char *name, int label)
{
    FUZZ_CHECK(identifier(name, label) ||
                   (r->fmt == WC_EXPO_TEXT_004 && *name && utf8_ok(name)),
               "%s name '%s'", label ? "label" : "metric", name);
}

/* Start and length of line n (1-based, n >= last) of the body. */
static const char *line_of(run *r, size_t n, size_t *len)
{
    const char *p = r->line_at ? r->line_at : r->body, *end = r->body + r->len;
    for (size_t k = r->last_line ? r->last_line : 1; k < n && p < end; k++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    r->line_at = p;
    r->last_line = n;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *len = (size_t)((nl ? nl : end) - p);
    return p;
}

static int line_says(const char *line, size_t len, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= len; i++)
        if (!strncasecmp(line + i, word, w))
            return 1;
    return 0;
}

static void check_value(run *r, const wc_expo_sample *s)
{
    size_t len = 0;
    const char *line = line_of(r, s->line, &len);
    if (isnan(s->value))
        FUZZ_CHECK(line_says(line, len, "nan"), "NaN from line %zu '%.*s'", s->line, (int)len,
                   line);
    if (isinf(s->value))
        FUZZ_CHECK(line_says(line, len, "inf") && (s->value > 0 || memchr(line, '-', len)),
                   "%g from line %zu '%.*s'", s->value, s->line, (int)len, line);
    r->nonfinite += !isfinite(s->value);
}

/* The sample as one 0.0.4 line: NAME{labels} VALUE [TS], or {"NAME",labels}. */
static size_t print_line(const wc_expo_sample *s, const char *canon, char *out, size_t cap)
{
    size_t used = 0;
    const char *inner = canon + 1; /* after '{' */
    if (identifier(s->name, 0)) {
        used = (size_t)snprintf(out, cap, "%s%s", s->name, canon);
    } else {
        used = (size_t)snprintf(out, cap, "{\"");
        for (const char *c = s->name; *c && used + 4 < cap; c++) {
            if (*c == '\\' || *c == '"' || *c == '\n')
                out[used++] = '\\';
            out[used++] = *c == '\n' ? 'n' : *c;
        }
        used += (size_t)snprintf(out + used, cap - used, "\"%s%s", inner[0] == '}' ? "" : ",",
                                 inner);
    }
    if (isnan(s->value))
        used += (size_t)snprintf(out + used, cap - used, " NaN");
    else if (isinf(s->value))
        used += (size_t)snprintf(out + used, cap - used, " %cInf", s->value > 0 ? '+' : '-');
    else
        used += (size_t)snprintf(out + used, cap - used, " %.17g", s->value);
    if (s->has_timestamp)
        used += (size_t)snprintf(out + used, cap - used, " %lld", (long long)s->timestamp_ms);
    used += (size_t)snprintf(out + used, cap - used, "\n");
    FUZZ_CHECK(used < cap, "line of %zu bytes", used);
    return used;
}

typedef struct again {
    const wc_expo_sample *orig;
    const char *canon;
    size_t n;
} again;

static int again_cb(void *ctx, const wc_expo_sample *s)
{
    again *a = ctx;
    char canon[8192];
    a->n++;
    FUZZ_CHECK(wc_expo_labels_canonical(s->labels, s->nlabels, canon, sizeof canon) >= 0,
               "canonical of the reprint");
    FUZZ_CHECK(!strcmp(s->name, a->orig->name) && !strcmp(canon, a->canon),
               "'%s%s' reads back as '%s%s'", a->orig->name, a->canon, s->name, canon);
    FUZZ_CHECK((isnan(s->value) && isnan(a->orig->value)) || s->value == a->orig->value,
               "value %.17g reads back as %.17g", a->orig->value, s->value);
    FUZZ_CHECK(s->has_timestamp == a->orig->has_timestamp &&
                   (!s->has_timestamp || s->timestamp_ms == a->orig->timestamp_ms),
               "timestamp");
    return 0;
}

static void round_trip(const wc_expo_sample *s, const char *canon)
{
    static char line[20000];
    size_t n = print_line(s, canon, line, sizeof line);
    again a = {s, canon, 0};
    wc_error err = {{0}};
    int rc = wc_expo_parse(line, n, WC_EXPO_TEXT_004, "reprint", NULL, again_cb, &a, NULL, &err);
    FUZZ_CHECK(rc == 0 && a.n == 1, "reprint '%.*s' rc %d (%s), %zu samples", (int)n, line, rc,
               err.msg, a.n);
}

/* Distinct series: "name\0canonical labels", kept up to the cap. */
static void count_series(run *r, const char *name, const char *canon)
{
    size_t nl = strlen(name), cl = strlen(canon);
    for (size_t i = 0; i < r->nkeys; i++)
        if (!strcmp(r->keys[i], name) && !strcmp(r->keys[i] + nl + 1, canon))
            return;
    FUZZ_CHECK(r->nkeys < r->lim.max_series, "more than %zu distinct series passed on",
               r->lim.max_series);
    char *k = malloc(nl + cl + 2);
    FUZZ_CHECK(k != NULL, "out of memory");
    memcpy(k, name, nl + 1);
    memcpy(k + nl + 1, canon, cl + 1);
    r->keys[r->nkeys++] = k;
}

static int sample_cb(void *ctx, const wc_expo_sample *s)
{
    run *r = ctx;
    static char canon[8192];
    r->calls++;
    FUZZ_CHECK(s->line >= 1 && s->line >= r->last_line, "line %zu after %zu", s->line,
               r->last_line);
    FUZZ_CHECK(s->family && s->nlabels <= r->lim.max_labels, "%zu labels", s->nlabels);
    check_name(r, s->name, 0);
    for (size_t i = 0; i < s->nlabels; i++) {
        check_name(r, s->labels[i].name, 1);
        FUZZ_CHECK(utf8_ok(s->labels[i].value) &&
                       strlen(s->labels[i].value) <= r->lim.max_label_value,
                   "label value '%s'", s->labels[i].value);
        for (size_t j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(s->labels[i].name, s->labels[j].name), "label '%s' twice",
                       s->labels[i].name);
    }
    check_value(r, s);
    FUZZ_CHECK(wc_expo_labels_canonical(s->labels, s->nlabels, canon, sizeof canon) >= 0,
               "canonical text over %zu bytes", sizeof canon);
    count_series(r, s->name, canon);
    round_trip(s, canon);
    return 0;
}

static void check_result(const run *r, int rc, const wc_expo_stats *st, const wc_error *err)
{
    FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -EFBIG, "rc %d", rc);
    FUZZ_CHECK(rc == 0 || (!strncmp(err->msg, SOURCE ":", sizeof SOURCE) &&
                           fuzz_printable(err->msg)),
               "message '%s'", err->msg);
    FUZZ_CHECK(st->samples == r->calls && st->nonfinite == r->nonfinite,
               "stats %zu samples %zu non-finite, callback %zu / %zu", st->samples,
               st->nonfinite, r->calls, r->nonfinite);
    FUZZ_CHECK(!st->series_dropped || r->nkeys == r->lim.max_series,
               "%zu dropped with %zu of %zu series", st->series_dropped, r->nkeys,
               r->lim.max_series);
    FUZZ_CHECK(memchr(st->warning, '\0', sizeof st->warning) && fuzz_printable(st->warning),
               "warning '%s'", st->warning);
    FUZZ_CHECK(!(st->series_dropped || st->duplicates) || !strncmp(st->warning, SOURCE ":",
                                                                   sizeof SOURCE),
               "warning '%s'", st->warning);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run r;
    memset(&r, 0, sizeof r);
    char fmt[8];
    fuzz_option(data, size, "format", fmt, sizeof fmt);
    r.fmt = !strcmp(fmt, "om") ? WC_EXPO_OPENMETRICS : WC_EXPO_TEXT_004;
    r.lim = (wc_expo_limits){option_num(data, size, "series", 16, MAX_KEYS - 1), 0,
                             option_num(data, size, "value", 256, 4096),
                             option_num(data, size, "labels", 16, 64)};
    r.body = (const char *)data;
    r.len = size;
    if (size >= 4 && !memcmp(data, "#wc:", 4)) {
        const uint8_t *nl = memchr(data, '\n', size);
        r.len = nl ? size - (size_t)(nl + 1 - data) : 0;
        r.body = nl ? (const char *)nl + 1 : r.body + size;
    }
    wc_expo_stats st;
    wc_error err = {{0}};
    int rc = wc_expo_parse(r.body, r.len, r.fmt, SOURCE, &r.lim, sample_cb, &r, &st, &err);
    check_result(&r, rc, &st, &err);
    for (size_t i = 0; i < r.nkeys; i++)
        free(r.keys[i]);
    return 0;
}
