/*
 * fuzz_prom_api.c — answers of the Prometheus HTTP API (collector/prom/
 * promapi_parse.c, wc_prom_parse_answer; and wc_prom_parse_time on the
 * first line of the body). Options on a first line "#wc: kind=result|series
 * |values http=NNN" (cut off first; default: a query answer, HTTP 200).
 * Contract (promapi.h): returns 0 or -EPROTO / -EACCES (401, 403) / -EINVAL
 * ("bad_data") / -EIO with a printable message naming the request; an HTTP
 * status of 300 or more is never a success; on success the callback got
 * exactly the answer's series (counted here again with cJSON: matrix and
 * vector items, the one scalar, the series' label sets, the values) with
 * every point of each, in strictly increasing time, 0 <= t <= the last ms
 * 64-bit ns hold, a value infinite only when its text said Inf; labels
 * sorted by name, none twice, __name__ not among them; the warning is the
 * answer's first one, its control bytes shown as '?'.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collector/prom/promapi.h"
#include "tests/fuzz/fuzz.h"

#define WHAT "query_range 'fuzz'"
#define MAX_T_MS (INT64_MAX / 1000000)

typedef struct run {
    wc_prom_answer kind;
    size_t series, points;
    const cJSON *root;  /* the harness's own parse (NULL when cJSON refuses) */
} run;

static void check_labels(const wc_prom_series *s)
{
    for (size_t i = 0; i < s->nlabels; i++) {
        FUZZ_CHECK(s->labels[i].name && s->labels[i].value, "label %zu NULL", i);
        FUZZ_CHECK(strcmp(s->labels[i].name, "__name__"), "__name__ among the labels");
        FUZZ_CHECK(i == 0 || strcmp(s->labels[i - 1].name, s->labels[i].name) < 0,
                   "labels '%s' then '%s'", s->labels[i - 1].name, s->labels[i].name);
    }
}

static int series_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    run *r = ctx;
    (void)err;
    r->series++;
    r->points += s->npoints;
    FUZZ_CHECK(s->metric != NULL, "metric NULL");
    check_labels(s);
    FUZZ_CHECK(r->kind == WC_PROM_RESULT || s->npoints == 0, "points in a %d answer", r->kind);
    FUZZ_CHECK(r->kind != WC_PROM_VALUES || s->nlabels == 0, "labels on a label value");
    for (size_t i = 0; i < s->npoints; i++) {
        const wc_prom_point *p = &s->points[i];
        FUZZ_CHECK(p->t_ms >= 0 && p->t_ms <= MAX_T_MS, "time %lld ms", (long long)p->t_ms);
        FUZZ_CHECK(i == 0 || s->points[i - 1].t_ms < p->t_ms, "time %lld ms after %lld ms",
                   (long long)p->t_ms, (long long)s->points[i - 1].t_ms);
    }
    return 0;
}

/* Items and points the answer holds, by the harness's own walk. */
static void expected(const cJSON *root, wc_prom_answer kind, size_t *series, size_t *points)
{
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(root, "data");
    *series = *points = 0;
    if (kind != WC_PROM_RESULT) {
        *series = (size_t)cJSON_GetArraySize(data);
        return;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(data, "resultType");
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(data, "result");
    if (!strcmp(type->valuestring, "scalar")) {
        *series = *points = 1;
        return;
    }
    for (const cJSON *item = result->child; item; item = item->next) {
        const cJSON *values = cJSON_GetObjectItemCaseSensitive(item, "values");
        (*series)++;
        *points += values ? (size_t)cJSON_GetArraySize(values)
                          : cJSON_GetObjectItemCaseSensitive(item, "value") ? 1 : 0;
    }
}

/* Every value the answer's text gives as Inf/NaN, counted to match. */
static void count_words(const cJSON *node, size_t *inf)
{
    for (const cJSON *c = node; c; c = c->next) {
        if (cJSON_IsString(c) && c->valuestring && strcasestr(c->valuestring, "inf"))
            (*inf)++;
        if (c->child)
            count_words(c->child, inf);
    }
}

static void check_success(const run *r, long http, const char *warning)
{
    FUZZ_CHECK(http < 300, "HTTP %ld read as a success", http);
    FUZZ_CHECK(r->root != NULL, "a success from what cJSON refuses");
    size_t series = 0, points = 0;
    expected(r->root, r->kind, &series, &points);
    FUZZ_CHECK(series == r->series && points == r->points,
               "%zu series %zu points delivered, the answer has %zu and %zu", r->series,
               r->points, series, points);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(r->root, "warnings");
    const cJSON *first = cJSON_IsArray(w) ? cJSON_GetArrayItem(w, 0) : NULL;
    FUZZ_CHECK(fuzz_printable(warning), "warning '%s'", warning);
    if (cJSON_IsString(first))
        for (size_t i = 0; warning[i]; i++)
            FUZZ_CHECK(warning[i] == first->valuestring[i] ||
                           (warning[i] == '?' && ((unsigned char)first->valuestring[i] < 0x20 ||
                                                  first->valuestring[i] == 0x7f)),
                       "warning '%s' of '%s'", warning, first->valuestring);
    else
        FUZZ_CHECK(!*warning, "warning '%s' from none", warning);
}

static void check_infinite(const run *r, const char *body, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run r = {0};
    char opt[16];
    fuzz_option(data, size, "kind", opt, sizeof opt);
    r.kind = !strcmp(opt, "series") ? WC_PROM_SERIES
             : !strcmp(opt, "values") ? WC_PROM_VALUES : WC_PROM_RESULT;
    long http = fuzz_option(data, size, "http", opt, sizeof opt) ? strtol(opt, NULL, 10) : 200;
    const char *body = (const char *)data;
    size_t len = size;
    if (size >= 4 && !memcmp(data, "#wc:", 4)) {
        const char *nl = memchr(body, '\n', size);
        len = nl ? size - (size_t)(nl + 1 - body) : 0;
        body = nl ? nl + 1 : body + size;
    }
    cJSON *root = cJSON_ParseWithLength(body, len);
    r.root = root;
    char warning[64];
    wc_error err = {{0}};
    int rc = wc_prom_parse_answer(body, len, http, r.kind, WHAT, series_cb, &r, warning,
                                  sizeof warning, &err);
    FUZZ_CHECK(rc == 0 || rc == -EPROTO || rc == -EACCES || rc == -EINVAL || rc == -EIO,
               "rc %d", rc);
    FUZZ_CHECK(rc == 0 || (!strncmp(err.msg, WHAT, strlen(WHAT)) && fuzz_printable(err.msg)),
               "message '%s'", err.msg);
    FUZZ_CHECK(!(http == 401 || http == 403) || rc == -EACCES, "HTTP %ld: rc %d", http, rc);
    FUZZ_CHECK(memchr(warning, '\0', sizeof warning), "warning not terminated");
    if (rc == 0) {
        check_success(&r, http, warning);
        check_infinite(&r, body, len);
    }
    cJSON_Delete(root);
    char *line = fuzz_cstr((const uint8_t *)body, len);
    line[strcspn(line, "\n")] = '\0';
    int64_t ms = -1;
    if (wc_prom_parse_time(line, &ms) == 0)
        FUZZ_CHECK(ms >= 0, "time '%s' read as %lld ms", line, (long long)ms);
    free(line);
    return 0;
}

/* Infinite values are no more than the strings saying Inf (a number's
 * overflow, "1e999", is no Inf the server sent). */
static size_t ninf;
static int inf_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    (void)ctx;
    (void)err;
    for (size_t i = 0; i < s->npoints; i++)
        ninf += isinf(s->points[i].value) != 0;
    return 0;
}

static void check_infinite(const run *r, const char *body, size_t len)
{
    size_t words = 0;
    count_words(r->root, &words);
    ninf = 0;
    wc_prom_parse_answer(body, len, 200, r->kind, WHAT, inf_cb, NULL, NULL, 0, NULL);
    FUZZ_CHECK(ninf <= words, "%zu infinite values, %zu strings say Inf", ninf, words);
}
