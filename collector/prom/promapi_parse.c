/*
 * promapi_parse.c — the pure half of the Prometheus API client (promapi.h):
 * an API answer's JSON into series (cJSON), the times the API takes (RFC
 * 3339 or Unix seconds), PromQL string quoting and the chunks of a range
 * query. No I/O: promapi.c sends the requests and calls these.
 */
#include "collector/prom/promapi.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_clock.h"
#include "common/wc_text.h"

/* ================================================================ ranges */

int64_t wc_prom_range_points(const wc_prom_range *r)
{
    if (r->step_ms <= 0 || r->end_ms < r->start_ms)
        return 0;
    return (r->end_ms - r->start_ms) / r->step_ms + 1;
}

static int64_t chunk_points(const wc_prom_range *r)
{
    return r->max_points == 0 || r->max_points > WC_PROM_MAX_POINTS ? WC_PROM_MAX_POINTS
                                                                     : (int64_t)r->max_points;
}

size_t wc_prom_chunk_count(const wc_prom_range *r)
{
    int64_t n = wc_prom_range_points(r), p = chunk_points(r);
    return (size_t)((n + p - 1) / p);
}

void wc_prom_chunk(const wc_prom_range *r, size_t i, int64_t *start_ms, int64_t *end_ms)
{
    int64_t n = wc_prom_range_points(r), p = chunk_points(r);
    int64_t first = (int64_t)i * p, last = first + p - 1;
    if (last > n - 1)
        last = n - 1;
    *start_ms = r->start_ms + first * r->step_ms;
    *end_ms = r->start_ms + last * r->step_ms;
}

/* ================================================================= times */

/* n digits at *p into *v; advances *p. Returns 0 or -EINVAL. */
static int digits(const char **p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (!isdigit((unsigned char)**p))
            return -EINVAL;
        *v = *v * 10 + (**p - '0');
    }
    return 0;
}

/* ".123456" -> ms (rounded down); no fraction -> 0. */
static int fraction_ms(const char **p, int64_t *ms)
{
    *ms = 0;
    if (**p != '.')
        return 0;
    (*p)++;
    if (!isdigit((unsigned char)**p))
        return -EINVAL;
    for (int i = 0; isdigit((unsigned char)**p); i++, (*p)++)
        if (i < 3)
            *ms += (**p - '0') * (i == 0 ? 100 : i == 1 ? 10 : 1);
    return 0;
}

/* "Z" or "+HH:MM" / "-HH:MM" into seconds east of UTC. */
static int zone_offset(const char **p, int64_t *off_s)
{
    int h = 0, m = 0;
    char c = **p;
    if (c == 'Z' || c == 'z') {
        (*p)++;
        *off_s = 0;
        return 0;
    }
    if (c != '+' && c != '-')
        return -EINVAL;
    (*p)++;
    if (digits(p, 2, &h) || **p != ':')
        return -EINVAL;
    (*p)++;
    if (digits(p, 2, &m) || h > 23 || m > 59)
        return -EINVAL;
    *off_s = (c == '-' ? -1 : 1) * (int64_t)(h * 3600 + m * 60);
    return 0;
}

static int days_in_month(int y, int m)
{
    static const int D[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return D[m - 1] + (m == 2 && leap);
}

static int parse_rfc3339(const char *t, int64_t *ms)
{
    const char *p = t;
    int y, mo, d, h, mi, s;
    int64_t frac = 0, off = 0;
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
        digits(&p, 2, &d))
        return -EINVAL;
    if (*p != 'T' && *p != 't' && *p != ' ')
        return -EINVAL;
    p++;
    if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) || *p++ != ':' ||
        digits(&p, 2, &s) || fraction_ms(&p, &frac) || zone_offset(&p, &off) || *p)
        return -EINVAL;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 ||
        mi > 59 || s > 59)
        return -EINVAL;
    int64_t secs = wc_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
                   mi * 60 + s - off;
    if (secs < 0)
        return -EINVAL;
    *ms = secs * 1000 + frac;
    return 0;
}

/* "1764434837" or "1764434837.25" (no sign, no exponent). */
static int parse_unix(const char *t, int64_t *ms)
{
    const char *p = t;
    int64_t secs = 0, frac = 0;
    if (!isdigit((unsigned char)*p))
        return -EINVAL;
    for (; isdigit((unsigned char)*p); p++) {
        if (secs > 253402300799LL / 10) /* beyond 9999-12-31 */
            return -EINVAL;
        secs = secs * 10 + (*p - '0');
    }
    if (fraction_ms(&p, &frac) || *p || secs > 253402300799LL)
        return -EINVAL;
    *ms = secs * 1000 + frac;
    return 0;
}

int wc_prom_parse_time(const char *text, int64_t *ms)
{
    if (!text || !*text)
        return -EINVAL;
    size_t n = strspn(text, "0123456789");
    if (n == 4 && text[4] == '-')
        return parse_rfc3339(text, ms);
    return parse_unix(text, ms);
}

char *wc_prom_format_time(int64_t ms, char *buf, size_t cap)
{
    snprintf(buf, cap, "%lld.%03lld", (long long)(ms / 1000), (long long)(ms % 1000));
    return buf;
}

int wc_prom_quote(const char *value, char *buf, size_t cap)
{
    size_t used = 0;
    if (cap < 3)
        return -ENOSPC;
    buf[used++] = '"';
    for (const char *c = value; *c; c++) {
        int esc = *c == '\\' || *c == '"' || *c == '\n';
        if (used + (esc ? 2 : 1) + 2 > cap)
            return -ENOSPC;
        if (esc)
            buf[used++] = '\\';
        buf[used++] = *c == '\n' ? 'n' : *c;
    }
    buf[used++] = '"';
    buf[used] = '\0';
    return 0;
}

/* ================================================================ answers */

/* A series being handed over: labels and points in arrays reused per series. */
typedef struct conv {
    wc_prom_label *labels;
    size_t nlabels, lcap;
    wc_prom_point *points;
    size_t npoints, pcap;
    const char *what;
} conv;

static int grow(void **arr, size_t size, size_t need, size_t *cap)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*arr, c * size);
    if (!p)
        return -ENOMEM;
    *arr = p;
    *cap = c;
    return 0;
}

/* A printable copy of untrusted text for a message: at most cap - 1 bytes,
 * control bytes (< 0x20, 0x7f) as '?' (an answer may hold terminal escapes).
 * Returns out. */
static const char *excerpt(const char *s, char *out, size_t cap)
{
    size_t k = 0;
    for (; s && s[k] && k + 1 < cap; k++)
        out[k] = (unsigned char)s[k] < 0x20 || s[k] == 0x7f ? '?' : s[k];
    out[k] = '\0';
    return out;
}

static int cmp_label(const void *a, const void *b)
{
    return strcmp(((const wc_prom_label *)a)->name, ((const wc_prom_label *)b)->name);
}

/* A label set object into c->labels (sorted) and *metric (__name__). */
static int labels_of(conv *c, const cJSON *obj, const char **metric, wc_error *err)
{
    *metric = "";
    c->nlabels = 0;
    if (!cJSON_IsObject(obj))
        return wc_error_set(err, -EPROTO, "%s: a series' labels are not a JSON object", c->what);
    if (grow((void **)&c->labels, sizeof *c->labels, (size_t)cJSON_GetArraySize(obj) + 1,
             &c->lcap))
        return wc_error_set(err, -ENOMEM, "%s: out of memory", c->what);
    char name[64];
    int named = 0;
    for (const cJSON *l = obj->child; l; l = l->next) {
        if (!cJSON_IsString(l) || !l->string)
            return wc_error_set(err, -EPROTO, "%s: label %s is not a string", c->what,
                                excerpt(l->string ? l->string : "?", name, sizeof name));
        if (strcmp(l->string, "__name__") == 0 && named++)
            return wc_error_set(err, -EPROTO, "%s: a series names __name__ twice", c->what);
        if (strcmp(l->string, "__name__") == 0)
            *metric = l->valuestring;
        else
            c->labels[c->nlabels++] = (wc_prom_label){l->string, l->valuestring};
    }
    qsort(c->labels, c->nlabels, sizeof *c->labels, cmp_label);
    for (size_t i = 1; i < c->nlabels; i++) /* JSON allows a key twice; a label set does not */
        if (strcmp(c->labels[i - 1].name, c->labels[i].name) == 0)
            return wc_error_set(err, -EPROTO, "%s: a series gives label %s twice", c->what,
                                excerpt(c->labels[i].name, name, sizeof name));
    return 0;
}

/* The last time (s) whose ns since 1970 fit an int64: 2262-04-11. */
#define LAST_TIME_S 9223372036.854

/* One [time, "value"] pair: 0 <= time <= LAST_TIME_S; the value a number,
 * NaN or ±Inf as written (a number beyond a double is refused, not Inf). */
static int point_of(conv *c, const cJSON *pair, wc_prom_point *out, wc_error *err)
{
    const cJSON *t = cJSON_GetArrayItem(pair, 0), *v = cJSON_GetArrayItem(pair, 1);
    char *end = NULL, text[48];
    if (!cJSON_IsArray(pair) || !cJSON_IsNumber(t) || !cJSON_IsString(v) ||
        !isfinite(t->valuedouble) || t->valuedouble < 0)
        return wc_error_set(err, -EPROTO, "%s: a sample is not [time, \"value\"]", c->what);
    if (t->valuedouble > LAST_TIME_S)
        return wc_error_set(err, -EPROTO, "%s: sample time %.17g s is out of range (after "
                            "2262-04-11, the last instant 64-bit ns hold)", c->what,
                            t->valuedouble);
    out->t_ms = (int64_t)llround(t->valuedouble * 1000.0);
    errno = 0;
    out->value = strtod(v->valuestring, &end);
    if (end == v->valuestring || *end || (errno == ERANGE && isinf(out->value)))
        return wc_error_set(err, -EPROTO, "%s: sample value \"%s\" is not a number%s",
                            c->what, excerpt(v->valuestring, text, sizeof text),
                            errno == ERANGE ? " within the range of a double" : "");
    return 0;
}

/* The "values" (matrix) or "value" (vector) of a result item. */
static int points_of(conv *c, const cJSON *item, wc_error *err)
{
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(item, "values");
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(item, "value");
    c->npoints = 0;
    if (!values && !value)
        return 0; /* a series of native histograms only: no float points */
    size_t n = values ? (size_t)cJSON_GetArraySize(values) : 1;
    if ((values && !cJSON_IsArray(values)) ||
        grow((void **)&c->points, sizeof *c->points, n, &c->pcap))
        return values && !cJSON_IsArray(values)
                   ? wc_error_set(err, -EPROTO, "%s: \"values\" is not an array", c->what)
                   : wc_error_set(err, -ENOMEM, "%s: out of memory", c->what);
    if (!values)
        return point_of(c, value, &c->points[c->npoints++], err);
    for (const cJSON *pair = values->child; pair; pair = pair->next) {
        wc_prom_point *pt = &c->points[c->npoints];
        int rc = point_of(c, pair, pt, err);
        if (rc)
            return rc;
        int64_t t = pt->t_ms;
        if (c->npoints && t <= c->points[c->npoints - 1].t_ms)
            return wc_error_set(err, -EPROTO, "%s: a series has %s samples at %lld.%03lld s "
                                "(Prometheus answers one per instant, in time order): refused",
                                c->what, t == c->points[c->npoints - 1].t_ms ? "two" : "unordered",
                                (long long)(t / 1000), (long long)(t % 1000));
        c->npoints++;
    }
    return 0;
}

/* Hands one result item (or series label set) to cb. */
static int deliver(conv *c, const cJSON *labels, const cJSON *item, wc_prom_cb cb, void *ctx,
                   wc_error *err)
{
    const char *metric = "";
    int rc = labels_of(c, labels, &metric, err);
    if (!rc && item)
        rc = points_of(c, item, err);
    else
        c->npoints = 0;
    if (rc)
        return rc;
    wc_prom_series s = {metric, c->labels, c->nlabels, c->points, c->npoints};
    return cb(ctx, &s, err);
}

/* An item's label set as one string: name '\1' value '\1' ..., sorted by
 * name (malloc'd; NULL on -ENOMEM). A non-object gives "". */
static char *label_key(const cJSON *labels)
{
    size_t n = 0, cnt = 0, used = 0;
    for (const cJSON *l = cJSON_IsObject(labels) ? labels->child : NULL; l; l = l->next, cnt++)
        n += strlen(l->string ? l->string : "") +
             strlen(cJSON_IsString(l) ? l->valuestring : "") + 2;
    const cJSON **v = malloc((cnt ? cnt : 1) * sizeof *v);
    char *key = malloc(n + 1);
    if (!v || !key) {
        free(v);
        free(key);
        return NULL;
    }
    size_t k = 0;
    for (const cJSON *l = cJSON_IsObject(labels) ? labels->child : NULL; l; l = l->next)
        v[k++] = l;
    for (size_t i = 1; i < k; i++) /* insertion sort by name: label sets are small */
        for (size_t j = i; j > 0 && strcmp(v[j - 1]->string ? v[j - 1]->string : "",
                                           v[j]->string ? v[j]->string : "") > 0; j--) {
            const cJSON *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    for (size_t i = 0; i < k; i++)
        used += (size_t)sprintf(key + used, "%s\1%s\1", v[i]->string ? v[i]->string : "",
                                cJSON_IsString(v[i]) ? v[i]->valuestring : "");
    key[used] = '\0';
    free(v);
    return key;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Refuses a result holding two series with one label set (Prometheus never
 * answers so; stored, they would merge into one series). */
static int unique_series(conv *c, const cJSON *result, wc_error *err)
{
    size_t n = (size_t)cJSON_GetArraySize(result), k = 0;
    char **keys = calloc(n ? n : 1, sizeof *keys);
    int rc = keys ? 0 : wc_error_set(err, -ENOMEM, "%s: out of memory", c->what);
    for (const cJSON *it = result->child; it && !rc; it = it->next)
        if (!(keys[k++] = label_key(cJSON_GetObjectItemCaseSensitive(it, "metric"))))
            rc = wc_error_set(err, -ENOMEM, "%s: out of memory", c->what);
    if (!rc)
        qsort(keys, k, sizeof *keys, cmp_str);
    for (size_t i = 1; i < k && !rc; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0) {
            char shown[200];
            snprintf(shown, sizeof shown, "%s", keys[i][0] ? keys[i] : "{} (none)");
            int sep = 0;
            for (char *q = shown; *q; q++)
                if ((unsigned char)*q < 0x20)
                    *q = sep++ % 2 ? ',' : '=';
            size_t len = strlen(shown);
            if (len && shown[len - 1] == ',')
                shown[len - 1] = '\0';
            rc = wc_error_set(err, -EPROTO, "%s: two series with the same labels %s in one "
                              "answer (they would merge into one): refused", c->what, shown);
        }
    for (size_t i = 0; i < k; i++)
        free(keys[i]);
    free(keys);
    return rc;
}

/* data of a query / query_range answer (matrix_only: query_range). */
static int walk_result(conv *c, const cJSON *data, int matrix_only, wc_prom_cb cb, void *ctx,
                       wc_error *err)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(data, "resultType");
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(data, "result");
    if (!cJSON_IsString(type) || !result)
        return wc_error_set(err, -EPROTO, "%s: the answer has no data.resultType/result",
                            c->what);
    if (matrix_only && strcmp(type->valuestring, "matrix"))
        return wc_error_set(err, -EPROTO, "%s: result type \"%.20s\" for a range query "
                            "(expected a matrix): refused", c->what, type->valuestring);
    if (strcmp(type->valuestring, "scalar") == 0) { /* [time, "value"], no labels */
        if (grow((void **)&c->points, sizeof *c->points, 1, &c->pcap))
            return wc_error_set(err, -ENOMEM, "%s: out of memory", c->what);
        int rc = point_of(c, result, &c->points[0], err);
        wc_prom_series s = {"", c->labels, 0, c->points, 1};
        return rc ? rc : cb(ctx, &s, err);
    }
    if (strcmp(type->valuestring, "matrix") && strcmp(type->valuestring, "vector"))
        return wc_error_set(err, -EPROTO, "%s: result type \"%s\" (expected a matrix or "
                            "vector of samples)", c->what,
                            excerpt(type->valuestring, (char[24]){0}, 24));
    if (!cJSON_IsArray(result))
        return wc_error_set(err, -EPROTO, "%s: data.result is not an array", c->what);
    int rc0 = unique_series(c, result, err);
    if (rc0)
        return rc0;
    for (const cJSON *item = result->child; item; item = item->next) {
        int rc = deliver(c, cJSON_GetObjectItemCaseSensitive(item, "metric"), item, cb, ctx, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* data of a series answer (an array of label sets) or of a label values
 * answer (an array of strings, each handed as a series' metric). */
static int walk_array(conv *c, const cJSON *data, wc_prom_answer kind, wc_prom_cb cb,
                      void *ctx, wc_error *err)
{
    if (!cJSON_IsArray(data))
        return wc_error_set(err, -EPROTO, "%s: data is not an array", c->what);
    for (const cJSON *item = data->child; item; item = item->next) {
        int rc;
        if (kind == WC_PROM_VALUES) {
            wc_prom_series s = {cJSON_IsString(item) ? item->valuestring : "", NULL, 0, NULL, 0};
            rc = cJSON_IsString(item) ? cb(ctx, &s, err)
                                      : wc_error_set(err, -EPROTO, "%s: a value is not a string",
                                                     c->what);
        } else {
            rc = deliver(c, item, NULL, cb, ctx, err);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* Printable start of a non-JSON body (control characters as '?'). */
static void snippet(const char *body, size_t len, char *out, size_t cap)
{
    size_t n = len < cap - 1 ? len : cap - 1, k = 0;
    for (size_t i = 0; i < n; i++)
        out[k++] = (unsigned char)body[i] < 0x20 || body[i] == 0x7f ? '?' : body[i];
    while (k && (out[k - 1] == '?' || out[k - 1] == ' '))
        k--;
    out[k] = '\0';
}

/* An error answer: the server's errorType and error, or the HTTP status. */
static int error_answer(const cJSON *root, const char *body, size_t len, long http,
                        const char *what, wc_error *err)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "errorType");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(root, "error");
    char text[300];
    if (cJSON_IsString(msg))
        snprintf(text, sizeof text, "%s%s%s", cJSON_IsString(type) ? type->valuestring : "",
                 cJSON_IsString(type) ? ": " : "", msg->valuestring);
    else
        snippet(body, len, text, 200);
    for (char *q = text; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f)
            *q = '?';
    int bad_data = cJSON_IsString(type) && strcmp(type->valuestring, "bad_data") == 0;
    int code = http == 401 || http == 403 ? -EACCES : bad_data ? -EINVAL : -EIO;
    if (http == 401 || http == 403)
        return wc_error_set(err, code, "%s: authentication refused (HTTP %ld%s%s)", what, http,
                            text[0] ? ": " : "", text);
    if (http >= 300)
        return wc_error_set(err, code, "%s: HTTP %ld%s%s", what, http, text[0] ? ": " : "",
                            text);
    return wc_error_set(err, code, "%s: the server answered status \"error\": %s", what, text);
}

static void first_warning(const cJSON *root, char *warning, size_t cap)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "warnings");
    const cJSON *first = cJSON_IsArray(w) ? cJSON_GetArrayItem(w, 0) : NULL;
    if (warning && cap && cJSON_IsString(first))
        excerpt(first->valuestring, warning, cap);
}

int wc_prom_parse_answer(const char *body, size_t len, long http_status, wc_prom_answer kind,
                         const char *what, wc_prom_cb cb, void *ctx, char *warning,
                         size_t cap, wc_error *err)
{
    if (warning && cap)
        warning[0] = '\0';
    cJSON *root = cJSON_ParseWithLength(body, len);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(root, "status");
    int rc;
    if (!root || !cJSON_IsString(status)) {
        char text[220];
        snippet(body, len, text, 200);
        rc = http_status >= 300 ? error_answer(root, body, len, http_status, what, err)
             : wc_error_set(err, -EPROTO, "%s: the answer is not the Prometheus API's JSON "
                            "(HTTP %ld, %zu bytes%s%s)", what, http_status, len,
                            text[0] ? ": " : "", text);
    } else if (strcmp(status->valuestring, "success") || http_status >= 300) {
        rc = error_answer(root, body, len, http_status, what, err);
    } else {
        conv c = {.what = what};
        const cJSON *data = cJSON_GetObjectItemCaseSensitive(root, "data");
        first_warning(root, warning, cap);
        rc = kind == WC_PROM_RESULT || kind == WC_PROM_MATRIX
                 ? walk_result(&c, data, kind == WC_PROM_MATRIX, cb, ctx, err)
                 : walk_array(&c, data, kind, cb, ctx, err);
        free(c.labels);
        free(c.points);
    }
    cJSON_Delete(root);
    return rc;
}
