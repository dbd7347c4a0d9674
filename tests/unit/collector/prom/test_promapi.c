/*
 * test_promapi.c — the Prometheus API client without a server: the times the
 * API takes (RFC 3339, Unix seconds), PromQL quoting, the chunks of a range
 * query (Prometheus's 11,000-point limit), every answer shape (matrix,
 * vector, scalar, series, label values, NaN/±Inf values, warnings) and every
 * error answer (bad_data, 401, 500 with and without JSON, a cut body, an
 * unexpected result type), and what wc_prom_open refuses (credentials in the
 * URL or over plain http to a remote host, two kinds of credentials, empty
 * secrets, a user without a password). The HTTP path itself is exercised by
 * tests/integration/prometheus_import.sh against a real Prometheus.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/prom/promapi.h"
#include "tests/unit/support/test_support.h"

/* ---- times ---------------------------------------------------------------- */

Test(promapi_time, rfc3339_forms)
{
    int64_t ms = 0;
    cr_assert_eq(wc_prom_parse_time("2026-11-29T16:47:17Z", &ms), 0);
    cr_assert_eq(ms, 1795970837000LL);
    cr_assert_eq(wc_prom_parse_time("2026-11-29T16:47:17.25Z", &ms), 0);
    cr_assert_eq(ms, 1795970837250LL);
    cr_assert_eq(wc_prom_parse_time("2026-11-29T17:47:17.123456+01:00", &ms), 0);
    cr_assert_eq(ms, 1795970837123LL, "a finer fraction is rounded down: %lld", (long long)ms);
    cr_assert_eq(wc_prom_parse_time("2026-11-29t11:17:17-05:30", &ms), 0);
    cr_assert_eq(ms, 1795970837000LL);
    cr_assert_eq(wc_prom_parse_time("1970-01-01T00:00:00Z", &ms), 0);
    cr_assert_eq(ms, 0);
    cr_assert_eq(wc_prom_parse_time("2024-02-29T00:00:00Z", &ms), 0, "a leap day");
}

Test(promapi_time, unix_seconds)
{
    int64_t ms = 0;
    cr_assert_eq(wc_prom_parse_time("1795970837", &ms), 0);
    cr_assert_eq(ms, 1795970837000LL);
    cr_assert_eq(wc_prom_parse_time("1795970837.5", &ms), 0);
    cr_assert_eq(ms, 1795970837500LL);
    cr_assert_eq(wc_prom_parse_time("0.001", &ms), 0);
    cr_assert_eq(ms, 1);
}

Test(promapi_time, refused)
{
    static const char *const BAD[] = {
        "", "now", "-5", "1e9", "17644348 37", "1795970837.", "2026-13-01T00:00:00Z",
        "2023-02-29T00:00:00Z", "2026-11-31T00:00:00Z", "2026-11-29T24:00:00Z",
        "2026-11-29T16:60:00Z", "2026-11-29T16:47:17", "2026-11-29 16:47:17+1:00",
        "1969-12-31T23:59:59Z", "1970-01-01T00:30:00+01:00", "99999999999999999999"};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        int64_t ms = 42;
        cr_assert_eq(wc_prom_parse_time(BAD[i], &ms), -EINVAL, "'%s' accepted", BAD[i]);
    }
}

Test(promapi_time, format)
{
    char buf[32];
    cr_assert_str_eq(wc_prom_format_time(1795970837250LL, buf, sizeof buf), "1795970837.250");
    cr_assert_str_eq(wc_prom_format_time(5, buf, sizeof buf), "0.005");
}

Test(promapi_quote, escapes_and_space)
{
    char buf[32];
    cr_assert_eq(wc_prom_quote("a\"b\\c\nd", buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "\"a\\\"b\\\\c\\nd\"");
    cr_assert_eq(wc_prom_quote("", buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "\"\"");
    cr_assert_eq(wc_prom_quote("0123456789", buf, 13), 0);
    cr_assert_eq(wc_prom_quote("0123456789", buf, 12), -ENOSPC);
}

/* ---- chunks ---------------------------------------------------------------- */

Test(promapi_range, chunks_below_the_limit)
{
    wc_prom_range r = {1000, 1000 + 11500, 1, 0}; /* 11,501 instants */
    int64_t a = 0, b = 0;
    cr_assert_eq(wc_prom_range_points(&r), 11501);
    cr_assert_eq(wc_prom_chunk_count(&r), 2);
    wc_prom_chunk(&r, 0, &a, &b);
    cr_assert_eq(a, 1000);
    cr_assert_eq(b, 1000 + 10999, "11,000 instants: (end - start) / step = 10,999");
    wc_prom_chunk(&r, 1, &a, &b);
    cr_assert_eq(a, 1000 + 11000);
    cr_assert_eq(b, 1000 + 11500);
    r.max_points = 50000; /* above the limit: the limit */
    cr_assert_eq(wc_prom_chunk_count(&r), 2);
}

Test(promapi_range, smaller_chunks_and_edges)
{
    wc_prom_range r = {0, 86400000, 5000, 1000}; /* 24 h at 5 s: 17,281 instants */
    int64_t a = 0, b = 0;
    cr_assert_eq(wc_prom_range_points(&r), 17281);
    cr_assert_eq(wc_prom_chunk_count(&r), 18);
    wc_prom_chunk(&r, 17, &a, &b);
    cr_assert_eq(a, 17000LL * 5000);
    cr_assert_eq(b, 86400000);
    wc_prom_range one = {7, 7, 1000, 0};
    cr_assert_eq(wc_prom_range_points(&one), 1);
    cr_assert_eq(wc_prom_chunk_count(&one), 1);
    wc_prom_range bad = {10, 5, 1000, 0}, nostep = {0, 5, 0, 0};
    cr_assert_eq(wc_prom_range_points(&bad), 0);
    cr_assert_eq(wc_prom_range_points(&nostep), 0);
    cr_assert_eq(wc_prom_chunk_count(&bad), 0);
}

/* ---- answers --------------------------------------------------------------- */

/* What the callback saw. */
typedef struct seen {
    int n;
    char metric[4][64], labels[4][256];
    size_t npoints[4];
    wc_prom_point points[4][4];
    int stop_at;
} seen;

static int record(void *ctx, const wc_prom_series *s, wc_error *err)
{
    seen *v = ctx;
    if (v->stop_at && v->n + 1 == v->stop_at)
        return wc_error_set(err, -ECANCELED, "stopped");
    if (v->n >= 4)
        return 0;
    snprintf(v->metric[v->n], sizeof v->metric[0], "%s", s->metric);
    size_t used = 0;
    v->labels[v->n][0] = '\0';
    for (size_t i = 0; i < s->nlabels; i++)
        used += (size_t)snprintf(v->labels[v->n] + used, sizeof v->labels[0] - used, "%s=%s;",
                                 s->labels[i].name, s->labels[i].value);
    v->npoints[v->n] = s->npoints;
    for (size_t i = 0; i < s->npoints && i < 4; i++)
        v->points[v->n][i] = s->points[i];
    v->n++;
    return 0;
}

static int parse(const char *body, long status, wc_prom_answer kind, seen *v, char *warning,
                 wc_error *err)
{
    memset(v, 0, sizeof *v);
    return wc_prom_parse_answer(body, strlen(body), status, kind, "query_range `up`", record, v,
                                warning, warning ? 128 : 0, err);
}

Test(promapi_answer, matrix)
{
    seen v;
    wc_error err = {{0}};
    const char *body =
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
        "{\"metric\":{\"zone\":\"package\",\"__name__\":\"kepler_node_cpu_joules_total\","
        "\"node_name\":\"n1\"},\"values\":[[1764434837,\"1.5\"],[1764434838.25,\"NaN\"],"
        "[1764434839,\"+Inf\"],[1764434840,\"-Inf\"]]},"
        "{\"metric\":{},\"values\":[[1795970837,\"2e3\"]]}]}}";
    cr_assert_eq(parse(body, 200, WC_PROM_RESULT, &v, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(v.n, 2);
    cr_assert_str_eq(v.metric[0], "kepler_node_cpu_joules_total");
    cr_assert_str_eq(v.labels[0], "node_name=n1;zone=package;", "sorted, __name__ apart");
    cr_assert_eq(v.npoints[0], 4);
    cr_assert_eq(v.points[0][0].t_ms, 1764434837000LL);
    cr_assert_eq(v.points[0][0].value, 1.5);
    cr_assert_eq(v.points[0][1].t_ms, 1764434838250LL);
    cr_assert(isnan(v.points[0][1].value));
    cr_assert(isinf(v.points[0][2].value) && v.points[0][2].value > 0);
    cr_assert(isinf(v.points[0][3].value) && v.points[0][3].value < 0);
    cr_assert_str_eq(v.metric[1], "", "an expression's result has no name");
    cr_assert_eq(v.points[1][0].value, 2000.0);
}

Test(promapi_answer, vector_scalar_series_values_and_warnings)
{
    seen v;
    wc_error err = {{0}};
    char warning[128];
    cr_assert_eq(parse("{\"status\":\"success\",\"warnings\":[\"partial response\"],\"data\":"
                       "{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"a\":\"b\"},"
                       "\"value\":[10,\"3\"]}]}}", 200, WC_PROM_RESULT, &v, warning, &err), 0);
    cr_assert_eq(v.n, 1);
    cr_assert_eq(v.npoints[0], 1);
    cr_assert_eq(v.points[0][0].value, 3.0);
    cr_assert_str_eq(warning, "partial response");
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\","
                       "\"result\":[10,\"4.5\"]}}", 200, WC_PROM_RESULT, &v, NULL, &err), 0);
    cr_assert_eq(v.n, 1);
    cr_assert_eq(v.points[0][0].value, 4.5);
    cr_assert_str_eq(v.labels[0], "");
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":[{\"__name__\":\"up\",\"job\":\"k\"},"
                       "{\"__name__\":\"x\"}]}", 200, WC_PROM_SERIES, &v, NULL, &err), 0);
    cr_assert_eq(v.n, 2);
    cr_assert_str_eq(v.metric[0], "up");
    cr_assert_str_eq(v.labels[0], "job=k;");
    cr_assert_eq(v.npoints[0], 0);
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":[\"n1\",\"n2\"]}", 200, WC_PROM_VALUES,
                       &v, NULL, &err), 0);
    cr_assert_eq(v.n, 2);
    cr_assert_str_eq(v.metric[1], "n2");
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
                       "\"result\":[]}}", 200, WC_PROM_RESULT, &v, NULL, &err), 0,
                 "an empty result is not an error here");
    cr_assert_eq(v.n, 0);
}

Test(promapi_answer, answers_prometheus_never_gives_are_refused)
{
    seen v;
    wc_error err = {{0}};
    /* two samples at one instant: refused, naming the query and the instant */
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":"
                       "[{\"metric\":{\"a\":\"1\"},\"values\":[[10,\"1\"],[11,\"2\"],[11,\"2\"]]}]}}",
                       200, WC_PROM_MATRIX, &v, NULL, &err), -EPROTO);
    cr_assert(strstr(err.msg, "query_range `up`: a series has two samples at 11.000 s"), "%s",
              err.msg);
    cr_assert_eq(v.n, 0, "nothing handed over");
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":"
                       "[{\"metric\":{},\"values\":[[12,\"1\"],[11,\"2\"]]}]}}",
                       200, WC_PROM_MATRIX, &v, NULL, &err), -EPROTO);
    cr_assert(strstr(err.msg, "unordered samples at 11.000 s"), "%s", err.msg);
    /* series with one label set (here: none) would merge: refused before any is handed */
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":"
                       "[{\"metric\":{},\"values\":[[1,\"1\"]]},{\"metric\":{},\"values\":"
                       "[[1,\"2\"]]}]}}", 200, WC_PROM_MATRIX, &v, NULL, &err), -EPROTO);
    cr_assert(strstr(err.msg, "two series with the same labels {} (none)"), "%s", err.msg);
    cr_assert_eq(v.n, 0);
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
                       "[{\"metric\":{\"b\":\"2\",\"a\":\"1\"},\"value\":[1,\"1\"]},"
                       "{\"metric\":{\"a\":\"1\",\"b\":\"2\"},\"value\":[1,\"2\"]},"
                       "{\"metric\":{\"a\":\"1\"},\"value\":[1,\"2\"]}]}}",
                       200, WC_PROM_RESULT, &v, NULL, &err), -EPROTO);
    cr_assert(strstr(err.msg, "same labels a=1,b=2 in one answer"), "%s", err.msg);
    /* distinct label sets pass */
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
                       "[{\"metric\":{\"a\":\"1\"},\"value\":[1,\"1\"]},"
                       "{\"metric\":{\"a\":\"2\"},\"value\":[1,\"2\"]}]}}",
                       200, WC_PROM_RESULT, &v, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(v.n, 2);
    /* a range query answers a matrix: a scalar (or a vector, a string) is refused */
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\","
                       "\"result\":[10,\"4.5\"]}}", 200, WC_PROM_MATRIX, &v, NULL, &err), -EPROTO);
    cr_assert(strstr(err.msg, "result type \"scalar\" for a range query"), "%s", err.msg);
    cr_assert_eq(v.n, 0);
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\","
                       "\"result\":[]}}", 200, WC_PROM_MATRIX, &v, NULL, &err), -EPROTO);
}

Test(promapi_answer, error_answers_name_the_query_and_the_server)
{
    seen v;
    wc_error err = {{0}};
    cr_assert_eq(parse("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:5: parse "
                       "error: unclosed left parenthesis\"}", 400, WC_PROM_RESULT, &v, NULL, &err),
                 -EINVAL);
    cr_assert(strstr(err.msg, "query_range `up`: HTTP 400: bad_data: 1:5: parse error"), "%s",
              err.msg);
    cr_assert_eq(parse("Unauthorized\n", 401, WC_PROM_RESULT, &v, NULL, &err), -EACCES);
    cr_assert(strstr(err.msg, "authentication refused (HTTP 401: Unauthorized)"), "%s", err.msg);
    cr_assert_eq(parse("<html>bad gateway</html>", 502, WC_PROM_RESULT, &v, NULL, &err), -EIO);
    cr_assert(strstr(err.msg, "HTTP 502: <html>bad gateway</html>"), "%s", err.msg);
    cr_assert_eq(parse("{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed "
                       "out\"}", 503, WC_PROM_RESULT, &v, NULL, &err), -EIO);
    cr_assert(strstr(err.msg, "HTTP 503: timeout: query timed out"), "%s", err.msg);
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"matr", 200,
                       WC_PROM_RESULT, &v, NULL, &err), -EPROTO);
    cr_assert(strstr(err.msg, "not the Prometheus API's JSON (HTTP 200"), "%s", err.msg);
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"string\","
                       "\"result\":[1,\"x\"]}}", 200, WC_PROM_RESULT, &v, NULL, &err), -EPROTO);
    cr_assert(strstr(err.msg, "result type \"string\""), "%s", err.msg);
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
                       "[{\"metric\":{},\"value\":[1,\"abc\"]}]}}", 200, WC_PROM_RESULT, &v, NULL,
                       &err), -EPROTO);
    cr_assert(strstr(err.msg, "\"abc\" is not a number"), "%s", err.msg);
    cr_assert_eq(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
                       "[{\"metric\":{\"a\":1},\"value\":[1,\"1\"]}]}}", 200, WC_PROM_RESULT, &v,
                       NULL, &err), -EPROTO);
}

Test(promapi_answer, callback_stops_the_walk)
{
    seen v;
    wc_error err = {{0}};
    memset(&v, 0, sizeof v);
    v.stop_at = 2;
    const char *body = "{\"status\":\"success\",\"data\":[{\"a\":\"1\"},{\"a\":\"2\"},{\"a\":\"3\"}]}";
    cr_assert_eq(wc_prom_parse_answer(body, strlen(body), 200, WC_PROM_SERIES, "series", record,
                                      &v, NULL, 0, &err), -ECANCELED);
    cr_assert_eq(v.n, 1);
    cr_assert_str_eq(err.msg, "stopped");
}

/* What the fuzzer of tests/fuzz/fuzz_prom_api.c found (issue 16): answers a
 * server must not be believed on. */
Test(promapi_answer, refuses_what_a_series_cannot_be)
{
    seen v;
    wc_error err = {{0}};
    static const struct {
        const char *result, *why;
    } bad[] = {
        {"{\"metric\":{},\"values\":[[20,\"1\"],[10,\"2\"]]}",
         "has unordered samples at 10.000 s"},
        {"{\"metric\":{},\"values\":[[10,\"1\"],[10,\"2\"]]}",
         "has two samples at 10.000 s"},
        {"{\"metric\":{\"a\":\"1\",\"a\":\"2\"},\"value\":[1,\"1\"]}", "gives label a twice"},
        {"{\"metric\":{\"__name__\":\"x\",\"__name__\":\"y\"},\"value\":[1,\"1\"]}",
         "__name__ twice"},
        {"{\"metric\":{},\"value\":[1e300,\"1\"]}", "is out of range (after 2262-04-11"},
        {"{\"metric\":{},\"value\":[1,\"1e999\"]}", "\"1e999\" is not a number within the range"},
        {"{\"metric\":{\"b\\u001b[2J\":1},\"value\":[1,\"1\"]}", "label b?[2J is not a string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char body[512];
        snprintf(body, sizeof body, "{\"status\":\"success\",\"data\":{\"resultType\":"
                 "\"matrix\",\"result\":[%s]}}", bad[i].result);
        cr_assert_eq(parse(body, 200, WC_PROM_RESULT, &v, NULL, &err), -EPROTO, "%s", body);
        cr_assert(strstr(err.msg, bad[i].why), "%s: %s", body, err.msg);
        cr_assert_eq(v.n, 0, "nothing handed on");
    }
    char warning[128];
    cr_assert_eq(parse("{\"status\":\"success\",\"warnings\":[\"store \\u001b[2J down\"],"
                       "\"data\":{\"resultType\":\"vector\",\"result\":[]}}", 200,
                       WC_PROM_RESULT, &v, warning, &err), 0);
    cr_assert_str_eq(warning, "store ?[2J down", "a warning's control bytes shown as '?'");
}

/* ---- opening: URLs and credentials (no request is sent) -------------------- */

static int open_with(const char *url, const char *token_file, const char *user,
                     const char *password_file, wc_error *err, char *desc, size_t cap)
{
    wc_prom_config cfg = {.url = url, .token_file = token_file, .user = user,
                          .password_file = password_file};
    wc_prom *p = NULL;
    int rc = wc_prom_open(&cfg, &p, err);
    if (!rc && desc)
        snprintf(desc, cap, "%s|%s", wc_prom_url(p), wc_prom_describe(p));
    wc_prom_close(p);
    return rc;
}

static void clean_env(void)
{
    unsetenv("PROMETHEUS_TOKEN");
    unsetenv("PROMETHEUS_USER");
    unsetenv("PROMETHEUS_PASSWORD");
}

Test(promapi_open, urls)
{
    wc_error err = {{0}};
    char d[512];
    clean_env();
    cr_assert_eq(open_with("http://127.0.0.1:9090/", NULL, NULL, NULL, &err, d, sizeof d), 0);
    cr_assert(strstr(d, "http://127.0.0.1:9090|no credentials; plain HTTP"), "%s", d);
    cr_assert_eq(open_with("https://thanos.example/prometheus//", NULL, NULL, NULL, &err, d,
                           sizeof d), 0);
    cr_assert(strstr(d, "https://thanos.example/prometheus|no credentials; TLS verified"), "%s", d);
    cr_assert_eq(open_with("https://u:pw@prom.example", NULL, NULL, NULL, &err, NULL, 0), -EINVAL);
    cr_assert(strstr(err.msg, "holds credentials"), "%s", err.msg);
    cr_assert(!strstr(err.msg, "pw"), "the password is not repeated: %s", err.msg);
    cr_assert_eq(open_with("ftp://prom", NULL, NULL, NULL, &err, NULL, 0), -EINVAL);
    cr_assert_eq(open_with("http://prom:9090/?x=1", NULL, NULL, NULL, &err, NULL, 0), -EINVAL);
    cr_assert_eq(open_with("http://", NULL, NULL, NULL, &err, NULL, 0), -EINVAL);
}

Test(promapi_open, credentials)
{
    wc_error err = {{0}};
    char d[512];
    const char *dir = wc_test_tmpdir();
    char tok[512], pw[512], empty[512];
    wc_test_write(dir, "tok", "bearer-secret\n");
    wc_test_write(dir, "pw", "basic-secret\n");
    wc_test_write(dir, "empty", "\n");
    snprintf(tok, sizeof tok, "%s/tok", dir);
    snprintf(pw, sizeof pw, "%s/pw", dir);
    snprintf(empty, sizeof empty, "%s/empty", dir);
    clean_env();
    cr_assert_eq(open_with("https://p.example", tok, NULL, NULL, &err, d, sizeof d), 0, "%s", err.msg);
    cr_assert(strstr(d, "bearer token from ") && !strstr(d, "bearer-secret"), "%s", d);
    cr_assert_eq(open_with("https://p.example", NULL, "alice", pw, &err, d, sizeof d), 0, "%s", err.msg);
    cr_assert(strstr(d, "basic auth as alice, password from ") && !strstr(d, "basic-secret"), "%s", d);
    cr_assert_eq(open_with("https://p.example", tok, "alice", pw, &err, NULL, 0), -EINVAL);
    cr_assert(strstr(err.msg, "one kind of credentials"), "%s", err.msg);
    cr_assert_eq(open_with("https://p.example", NULL, NULL, pw, &err, NULL, 0), -EINVAL);
    cr_assert(strstr(err.msg, "needs a user"), "%s", err.msg);
    cr_assert_eq(open_with("https://p.example", NULL, "alice", NULL, &err, NULL, 0), -EINVAL);
    cr_assert(strstr(err.msg, "--prometheus-user needs a password"), "%s", err.msg);
    cr_assert_eq(open_with("https://p.example", empty, NULL, NULL, &err, NULL, 0), -EINVAL);
    cr_assert(strstr(err.msg, "is empty (no secret)") && strstr(err.msg, empty), "%s", err.msg);
    /* a token with a space inside is refused, not cut (naming the file, never the token) */
    wc_test_write(dir, "spaced", "sec ret\n");
    char spaced[512];
    snprintf(spaced, sizeof spaced, "%s/spaced", dir);
    cr_assert_eq(open_with("https://p.example", spaced, NULL, NULL, &err, NULL, 0), -EINVAL);
    cr_assert(strstr(err.msg, "whitespace") && strstr(err.msg, spaced) && !strstr(err.msg, "sec ret"),
              "%s", err.msg);
    /* a token in the URL's query: refused without echoing it */
    cr_assert_eq(open_with("https://p.example/?token=abc123", NULL, NULL, NULL, &err, NULL, 0),
                 -EINVAL);
    cr_assert(!strstr(err.msg, "abc123") && strstr(err.msg, "without a query"), "%s", err.msg);
    cr_assert_lt(open_with("https://p.example", "/nonexistent/tok", NULL, NULL, &err, NULL, 0), 0);
    cr_assert(strstr(err.msg, "--prometheus-token-file"), "%s", err.msg);
    cr_assert_eq(open_with("http://prom.example:9090", tok, NULL, NULL, &err, NULL, 0), -EINVAL);
    cr_assert(strstr(err.msg, "only over https://"), "%s", err.msg);
    cr_assert_eq(open_with("http://localhost:9090", tok, NULL, NULL, &err, NULL, 0), 0,
                 "loopback may be plain http: %s", err.msg);
}

Test(promapi_open, environment)
{
    wc_error err = {{0}};
    char d[512];
    clean_env();
    setenv("PROMETHEUS_TOKEN", "env-token", 1);
    cr_assert_eq(open_with("https://p.example", NULL, NULL, NULL, &err, d, sizeof d), 0);
    cr_assert(strstr(d, "bearer token from PROMETHEUS_TOKEN"), "%s", d);
    setenv("PROMETHEUS_PASSWORD", "env-pw", 1);
    cr_assert_eq(open_with("https://p.example", NULL, NULL, NULL, &err, NULL, 0), -EINVAL);
    cr_assert(strstr(err.msg, "both set"), "%s", err.msg);
    unsetenv("PROMETHEUS_TOKEN");
    setenv("PROMETHEUS_USER", "bob", 1);
    cr_assert_eq(open_with("https://p.example", NULL, NULL, NULL, &err, d, sizeof d), 0);
    cr_assert(strstr(d, "basic auth as bob, password from PROMETHEUS_PASSWORD"), "%s", d);
    setenv("PROMETHEUS_PASSWORD", "", 1);
    cr_assert_eq(open_with("https://p.example", NULL, NULL, NULL, &err, NULL, 0), -EINVAL);
    cr_assert(strstr(err.msg, "PROMETHEUS_PASSWORD is empty"), "%s", err.msg);
    clean_env();
}
