/*
 * expo_write.c — the Prometheus text format writer (see expo_write.h).
 */
#include "collector/serve/expo_write.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_text.h"

void wc_expow_buf_free(wc_expow_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* Makes room for n more bytes plus the NUL; 0 or -ENOMEM (then failed). */
static int reserve(wc_expow_buf *b, size_t n)
{
    if (b->failed)
        return b->failed;
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d)
        return b->failed = -ENOMEM;
    b->data = d;
    b->cap = cap;
    return 0;
}

static void put(wc_expow_buf *b, const char *s, size_t n)
{
    if (reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void puts_(wc_expow_buf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* Writes s escaped: '\' and '\n' always, '"' when quote; invalid UTF-8 as
 * U+FFFD; other control bytes as they are (the format allows them). */
static void put_escaped(wc_expow_buf *b, const char *s, int quote)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = wc_utf8_len(p);
        if (n == 0) {
            puts_(b, "\xEF\xBF\xBD");
            p++;
        } else if (*p == '\\') {
            puts_(b, "\\\\"), p++;
        } else if (*p == '\n') {
            puts_(b, "\\n"), p++;
        } else if (*p == '"' && quote) {
            puts_(b, "\\\""), p++;
        } else {
            put(b, (const char *)p, n);
            p += n;
        }
    }
}

int wc_expow_metric_name_ok(const char *name)
{
    if (!name || !*name || (*name >= '0' && *name <= '9'))
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == ':'))
            return 0;
    return 1;
}

int wc_expow_label_name_ok(const char *name)
{
    if (!wc_expow_metric_name_ok(name) || strchr(name, ':') || strncmp(name, "__", 2) == 0)
        return 0;
    return 1;
}

void wc_expow_format_value(double v, char *out, size_t cap)
{
    if (isnan(v)) {
        snprintf(out, cap, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(out, cap, "%s", v > 0 ? "+Inf" : "-Inf");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, cap, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

int wc_expow_family(wc_expow_buf *b, const char *name, const char *type, const char *help)
{
    if (!wc_expow_metric_name_ok(name))
        return -EINVAL;
    puts_(b, "# HELP ");
    puts_(b, name);
    puts_(b, " ");
    put_escaped(b, help ? help : "", 0);
    puts_(b, "\n# TYPE ");
    puts_(b, name);
    puts_(b, " ");
    puts_(b, type);
    puts_(b, "\n");
    return b->failed;
}

int wc_expow_sample(wc_expow_buf *b, const char *name, const char *const *labels, double value)
{
    if (!wc_expow_metric_name_ok(name))
        return -EINVAL;
    for (size_t i = 0; labels && labels[i]; i += 2)
        if (!wc_expow_label_name_ok(labels[i]))
            return -EINVAL;
    puts_(b, name);
    for (size_t i = 0; labels && labels[i]; i += 2) {
        puts_(b, i ? "," : "{");
        puts_(b, labels[i]);
        puts_(b, "=\"");
        put_escaped(b, labels[i + 1] ? labels[i + 1] : "", 1);
        puts_(b, "\"");
    }
    if (labels && labels[0])
        puts_(b, "}");
    char v[40];
    wc_expow_format_value(value, v, sizeof v);
    puts_(b, " ");
    puts_(b, v);
    puts_(b, "\n");
    return b->failed;
}
