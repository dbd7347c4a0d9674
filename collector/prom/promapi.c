/*
 * promapi.c — the network half of the Prometheus API client (promapi.h):
 * the base URL and credentials checked at open, one libcurl handle reused
 * for every request (keep-alive), GET requests with percent-encoded
 * parameters, transfer errors (timeouts, refused connections, TLS) named
 * with the request, and the range query's chunks one request each. The
 * answers are parsed by promapi_parse.c.
 */
#include "collector/prom/promapi.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_clock.h"
#include "common/wc_http.h"
#include "common/wc_fs.h"
#include "common/wc_text.h"

struct wc_prom {
    char base[512];              /* scheme://host[:port][/prefix], no trailing '/' */
    int plain_http, loopback;
    CURL *curl;
    char user[128];
    char secret[1024];           /* token or password; wiped on close */
    int bearer;                  /* secret is a bearer token (else a password, or none) */
    char auth_desc[200];         /* where the credentials came from (never the secret) */
    char desc[400];
    char errbuf[CURL_ERROR_SIZE];
    double timeout_s, connect_timeout_s;
    size_t max_body;
    struct {
        char *buf;
        size_t len, cap;
        int overflow;
    } body;
    wc_prom_counts counts;
};

/* ================================================================ opening */

/* Host of an authority ("h:9090", "[::1]:9090") is loopback. */
static int is_loopback(const char *host, size_t n)
{
    if ((n == 9 && strncmp(host, "localhost", 9) == 0) || (n == 5 && strncmp(host, "[::1]", 5) == 0))
        return 1;
    return n >= 4 && strncmp(host, "127.", 4) == 0 && strspn(host, "0123456789.") == n;
}

/* Checks and copies the base URL (see wc_prom_config.url). */
static int check_url(wc_prom *p, const char *url, wc_error *err)
{
    const char *rest = NULL;
    if (!url || !*url)
        return wc_error_set(err, -EINVAL, "--prometheus: empty URL (http://HOST:9090)");
    if (strncmp(url, "http://", 7) == 0)
        rest = url + 7, p->plain_http = 1;
    else if (strncmp(url, "https://", 8) == 0)
        rest = url + 8;
    else
        return wc_error_set(err, -EINVAL, "--prometheus %.200s: not an http:// or https:// URL",
                            url);
    size_t auth = strcspn(rest, "/?#");
    if (memchr(rest, '@', auth))
        return wc_error_set(err, -EINVAL,
                            "--prometheus: the URL holds credentials (user:password@): they "
                            "would be stored with the run and shown in process lists; use "
                            "PROMETHEUS_USER with --prometheus-password-file or "
                            "PROMETHEUS_PASSWORD, or a bearer token file");
    if (auth == 0 || strpbrk(rest, "?# \t\r\n"))
        return wc_error_set(err, -EINVAL, /* shown up to the query: it may hold a token */
                            "--prometheus %.*s: expected http[s]://HOST[:PORT][/PATH] "
                            "without a query or fragment", (int)strcspn(url, "?# \t\r\n"),
                            url);
    size_t host = rest[0] == '[' ? strcspn(rest, "]") + 1 : strcspn(rest, ":/");
    p->loopback = is_loopback(rest, host);
    if (strlen(url) >= sizeof p->base)
        return wc_error_set(err, -EINVAL, "--prometheus: URL longer than %zu bytes",
                            sizeof p->base - 1);
    snprintf(p->base, sizeof p->base, "%s", url);
    size_t n = strlen(p->base);
    while (n > (size_t)(rest - url) + auth && p->base[n - 1] == '/')
        p->base[--n] = '\0';
    return 0;
}

/* The secret of a file (wc_read_secret; option names it in errors). */
static int secret_from_file(wc_prom *p, const char *opt, const char *file, wc_error *err)
{
    int rc = wc_read_secret(file, p->secret, sizeof p->secret, err);
    return rc ? wc_error_prefix(err, rc, "%s: ", opt) : 0;
}

static int secret_from_env(wc_prom *p, const char *name, wc_error *err)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return wc_error_set(err, -EINVAL, "%s is empty (no secret)", name);
    if (strlen(v) >= sizeof p->secret)
        return wc_error_set(err, -EINVAL, "%s: longer than %zu bytes", name,
                            sizeof p->secret - 1);
    snprintf(p->secret, sizeof p->secret, "%s", v);
    return 0;
}

/* The basic auth user: the config's, else PROMETHEUS_USER. */
static int basic_user(wc_prom *p, const wc_prom_config *cfg, wc_error *err)
{
    const char *u = cfg->user && *cfg->user ? cfg->user : getenv("PROMETHEUS_USER");
    if (!u || !*u)
        return wc_error_set(err, -EINVAL, "basic auth needs a user: --prometheus-user NAME or "
                            "PROMETHEUS_USER");
    if (strlen(u) >= sizeof p->user || strchr(u, ':'))
        return wc_error_set(err, -EINVAL, "the basic auth user is longer than %zu bytes or "
                            "holds ':'", sizeof p->user - 1);
    snprintf(p->user, sizeof p->user, "%s", u);
    return 0;
}

/* Which secret to use: files first, then the environment (see promapi.h). */
static int load_auth(wc_prom *p, const wc_prom_config *cfg, wc_error *err)
{
    const char *tf = cfg->token_file && *cfg->token_file ? cfg->token_file : NULL;
    const char *pf = cfg->password_file && *cfg->password_file ? cfg->password_file : NULL;
    const char *te = getenv("PROMETHEUS_TOKEN"), *pe = getenv("PROMETHEUS_PASSWORD");
    if (tf && pf)
        return wc_error_set(err, -EINVAL, "--prometheus-token-file and "
                            "--prometheus-password-file: give one kind of credentials");
    if (!tf && !pf && te && pe)
        return wc_error_set(err, -EINVAL, "PROMETHEUS_TOKEN and PROMETHEUS_PASSWORD are both "
                            "set: unset one (one kind of credentials)");
    int rc = 0;
    if (tf || (!pf && te)) {
        p->bearer = 1;
        rc = tf ? secret_from_file(p, "--prometheus-token-file", tf, err)
                : secret_from_env(p, "PROMETHEUS_TOKEN", err);
        snprintf(p->auth_desc, sizeof p->auth_desc, "bearer token from %.150s",
                 tf ? tf : "PROMETHEUS_TOKEN");
    } else if (pf || pe) {
        rc = basic_user(p, cfg, err);
        if (!rc)
            rc = pf ? secret_from_file(p, "--prometheus-password-file", pf, err)
                    : secret_from_env(p, "PROMETHEUS_PASSWORD", err);
        snprintf(p->auth_desc, sizeof p->auth_desc, "basic auth as %.60s, password from %.100s",
                 p->user, pf ? pf : "PROMETHEUS_PASSWORD");
    } else if (cfg->user && *cfg->user) {
        return wc_error_set(err, -EINVAL, "--prometheus-user needs a password: "
                            "--prometheus-password-file FILE or PROMETHEUS_PASSWORD");
    } else {
        snprintf(p->auth_desc, sizeof p->auth_desc, "no credentials");
    }
    if (!rc && p->secret[0] && p->plain_http && !p->loopback)
        rc = wc_error_set(err, -EINVAL, "--prometheus %.200s: credentials are sent only over "
                          "https:// (or to a loopback host), never in clear text", p->base);
    return rc;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
    wc_prom *p = userp;
    size_t n = size * nmemb;
    if (p->body.len + n > p->max_body) {
        p->body.overflow = 1;
        return 0; /* CURLE_WRITE_ERROR */
    }
    if (p->body.len + n + 1 > p->body.cap) {
        size_t cap = p->body.cap ? p->body.cap : 65536;
        while (cap < p->body.len + n + 1)
            cap *= 2;
        char *nb = realloc(p->body.buf, cap);
        if (!nb)
            return 0;
        p->body.buf = nb;
        p->body.cap = cap;
    }
    memcpy(p->body.buf + p->body.len, data, n);
    p->body.len += n;
    p->body.buf[p->body.len] = '\0';
    return n;
}

/* The options every request shares. */
static int curl_setup(wc_prom *p, const wc_prom_config *cfg, wc_error *err)
{
    int hrc = wc_http_global_init("prometheus", err);
    if (hrc)
        return hrc;
    CURL *c = p->curl = wc_curl()->easy_init();
    if (!c)
        return wc_error_set(err, -ENOMEM, "prometheus: out of memory setting up libcurl");
    int64_t to = cfg->timeout_ns > 0 ? cfg->timeout_ns : WC_PROM_DEFAULT_TIMEOUT_NS;
    int64_t cto = cfg->connect_timeout_ns > 0 ? cfg->connect_timeout_ns
                                              : WC_PROM_DEFAULT_CONNECT_TIMEOUT_NS;
    cto = cto < to ? cto : to;
    wc_http_cfg h = {.errbuf = p->errbuf, .user_agent = "wattcal/" WATTCAL_VERSION,
                     .insecure = cfg->insecure, .no_proxy = p->loopback, /* loopback: no proxy */
                     .accept_encoding = 1, .connect_timeout_ns = cto, .timeout_ns = to,
                     .bearer = p->bearer ? p->secret : NULL,
                     .user = !p->bearer && p->secret[0] ? p->user : NULL, .password = p->secret,
                     .write = on_body, .write_data = p};
    wc_http_setup(c, &h);
    p->timeout_s = (double)wc_http_ms(to) / 1000.0;
    p->connect_timeout_s = (double)wc_http_ms(cto) / 1000.0;
    return 0;
}

int wc_prom_open(const wc_prom_config *cfg, wc_prom **out, wc_error *err)
{
    *out = NULL;
    wc_prom *p = calloc(1, sizeof *p);
    if (!p)
        return wc_error_set(err, -ENOMEM, "prometheus: out of memory");
    p->max_body = cfg->max_body ? cfg->max_body : WC_PROM_DEFAULT_MAX_BODY;
    int rc = check_url(p, cfg->url, err);
    if (!rc)
        rc = load_auth(p, cfg, err);
    if (!rc)
        rc = curl_setup(p, cfg, err);
    if (rc) {
        wc_prom_close(p);
        return rc;
    }
    wc_textf(p->desc, sizeof p->desc, "%s; %s; timeout %g s", p->auth_desc,
             p->plain_http ? "plain HTTP" : cfg->insecure ? "TLS NOT verified (--insecure)"
                                                          : "TLS verified",
             p->timeout_s);
    *out = p;
    return 0;
}

void wc_prom_close(wc_prom *p)
{
    if (!p)
        return;
    if (p->curl)
        wc_curl()->easy_cleanup(p->curl);
    free(p->body.buf);
    explicit_bzero(p->secret, sizeof p->secret);
    free(p);
}

const char *wc_prom_url(const wc_prom *p) { return p->base; }
const char *wc_prom_describe(const wc_prom *p) { return p->desc; }
void wc_prom_get_counts(const wc_prom *p, wc_prom_counts *out) { *out = p->counts; }

/* =============================================================== requests */

/* A failed transfer as -errno and a message naming the request. */
static int transfer_error(wc_prom *p, CURLcode c, const char *what, wc_error *err)
{
    const char *detail = p->errbuf[0] ? p->errbuf : wc_curl()->easy_strerror(c);
    long sent = 0; /* bytes of the request sent: 0 while still connecting */
    switch (c) {
    case CURLE_OPERATION_TIMEDOUT:
        wc_curl()->easy_getinfo(p->curl, CURLINFO_REQUEST_SIZE, &sent);
        if (sent == 0)
            return wc_error_set(err, -ETIMEDOUT, "%s: connect timed out after %g s", what,
                                p->connect_timeout_s);
        return wc_error_set(err, -ETIMEDOUT, "%s: no complete answer within the %g s timeout "
                            "(--prometheus-timeout)", what, p->timeout_s);
    case CURLE_COULDNT_CONNECT:
        return wc_error_set(err, -ECONNREFUSED, "%s: cannot connect (%s)", what, detail);
    case CURLE_COULDNT_RESOLVE_HOST:
        return wc_error_set(err, -EHOSTUNREACH, "%s: cannot resolve host (%s)", what, detail);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
        return wc_error_set(err, -EPROTO, "%s: TLS failed (%s); for a server with a "
                            "self-signed certificate only, pass --insecure", what, detail);
    case CURLE_WRITE_ERROR:
        if (p->body.overflow)
            return wc_error_set(err, -EFBIG, "%s: answer larger than %zu bytes: refused", what,
                                p->max_body);
        return wc_error_set(err, -ENOMEM, "%s: out of memory for the answer", what);
    default:
        return wc_error_set(err, -EIO, "%s: %s", what, detail);
    }
}

/* GET base + path + "?" + params into p->body; *status the HTTP status. */
static int http_get(wc_prom *p, const char *path, const char *params, const char *what,
                    long *status, wc_error *err)
{
    size_t n = strlen(p->base) + strlen(path) + strlen(params) + 2;
    char *url = malloc(n);
    if (!url)
        return wc_error_set(err, -ENOMEM, "%s: out of memory", what);
    snprintf(url, n, "%s%s%s%s", p->base, path, params[0] ? "?" : "", params);
    p->body.len = 0;
    p->body.overflow = 0;
    p->errbuf[0] = '\0';
    wc_curl()->easy_setopt(p->curl, CURLOPT_URL, url);
    wc_curl()->easy_setopt(p->curl, CURLOPT_HTTPGET, 1L);
    CURLcode c = wc_curl()->easy_perform(p->curl);
    free(url);
    p->counts.requests++;
    if (c != CURLE_OK)
        return transfer_error(p, c, what, err);
    p->counts.bytes += (int64_t)p->body.len;
    *status = 0;
    wc_curl()->easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, status);
    if (!p->body.buf && !(p->body.buf = calloc(1, 1)))
        return wc_error_set(err, -ENOMEM, "%s: out of memory", what);
    return 0;
}

/* Counts what is handed on, then calls the caller's callback. */
typedef struct counted {
    wc_prom *p;
    wc_prom_cb cb;
    void *ctx;
} counted;

static int count_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    counted *c = ctx;
    c->p->counts.series++;
    c->p->counts.points += (int64_t)s->npoints;
    return c->cb(c->ctx, s, err);
}

/* One request and its answer, handed to cb. */
static int request(wc_prom *p, const char *path, const char *params, wc_prom_answer kind,
                   const char *what, wc_prom_cb cb, void *ctx, wc_error *err)
{
    long status = 0;
    int rc = http_get(p, path, params, what, &status, err);
    if (rc)
        return rc;
    counted c = {p, cb, ctx};
    char warning[256];
    rc = wc_prom_parse_answer(p->body.buf, p->body.len, status, kind, what, count_cb, &c,
                              warning, sizeof warning, err);
    if (!rc && warning[0] && p->counts.warnings++ == 0)
        wc_textf(p->counts.warning, sizeof p->counts.warning, "%s", warning);
    if (rc == -EACCES) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        wc_error_set(err, rc, "%.500s; credentials sent: %s", msg, p->auth_desc);
    }
    return rc;
}

/* Appends "&name=<escaped value>" (or without '&' first) to a growing text. */
static int add_param(wc_prom *p, char **params, size_t *len, const char *name, const char *value)
{
    char *esc = wc_curl()->easy_escape(p->curl, value, 0);
    if (!esc)
        return -ENOMEM;
    size_t n = *len + strlen(name) + strlen(esc) + 3;
    char *np = realloc(*params, n);
    if (np) {
        snprintf(np + *len, n - *len, "%s%s=%s", *len ? "&" : "", name, esc);
        *len += strlen(np + *len);
        *params = np;
    }
    wc_curl()->free(esc);
    return np ? 0 : -ENOMEM;
}

/* "query_range `Q` (FROM .. TO, step S) at URL" (what names the request). */
static void describe_range(const wc_prom *p, const char *query, int64_t from, int64_t to,
                           int64_t step, char *what, size_t cap)
{
    char a[40], b[40];
    wc_format_wall_iso(from * 1000000, a, sizeof a);
    wc_format_wall_iso(to * 1000000, b, sizeof b);
    wc_textf(what, cap, "prometheus %s: query_range `%.600s` (%s .. %s, step %g s)", p->base,
             query, a, b, (double)step / 1000.0);
}

/* The parameters of one range request. */
static int range_params(wc_prom *p, const char *query, int64_t from, int64_t to, int64_t step,
                        char **params)
{
    char a[32], b[32], s[32];
    size_t len = 0;
    *params = NULL;
    wc_prom_format_time(from, a, sizeof a);
    wc_prom_format_time(to, b, sizeof b);
    wc_prom_format_time(step, s, sizeof s);
    int rc = add_param(p, params, &len, "query", query);
    if (!rc)
        rc = add_param(p, params, &len, "start", a);
    if (!rc)
        rc = add_param(p, params, &len, "end", b);
    if (!rc)
        rc = add_param(p, params, &len, "step", s);
    return rc;
}

int wc_prom_query_range(wc_prom *p, const char *query, const wc_prom_range *r, wc_prom_cb cb,
                        void *ctx, wc_error *err)
{
    char what[900];
    describe_range(p, query, r->start_ms, r->end_ms, r->step_ms, what, sizeof what);
    if (wc_prom_range_points(r) == 0)
        return wc_error_set(err, -EINVAL, "%s: empty range or step <= 0", what);
    size_t n = wc_prom_chunk_count(r);
    for (size_t i = 0; i < n; i++) {
        int64_t from = 0, to = 0;
        char *params = NULL;
        wc_prom_chunk(r, i, &from, &to);
        describe_range(p, query, from, to, r->step_ms, what, sizeof what);
        int rc = range_params(p, query, from, to, r->step_ms, &params);
        rc = rc ? wc_error_set(err, rc, "%s: out of memory", what)
                : request(p, "/api/v1/query_range", params, WC_PROM_MATRIX, what, cb, ctx, err);
        free(params);
        if (rc)
            return rc;
    }
    return 0;
}

int wc_prom_query(wc_prom *p, const char *query, int64_t time_ms, wc_prom_cb cb, void *ctx,
                  wc_error *err)
{
    char what[900], t[32], iso[40];
    char *params = NULL;
    size_t len = 0;
    wc_format_wall_iso(time_ms * 1000000, iso, sizeof iso);
    wc_textf(what, sizeof what, "prometheus %s: query `%.600s` (at %s)", p->base, query, iso);
    wc_prom_format_time(time_ms, t, sizeof t);
    int rc = add_param(p, &params, &len, "query", query);
    if (!rc)
        rc = add_param(p, &params, &len, "time", t);
    rc = rc ? wc_error_set(err, rc, "%s: out of memory", what)
            : request(p, "/api/v1/query", params, WC_PROM_RESULT, what, cb, ctx, err);
    free(params);
    return rc;
}

/* "start=..&end=.." appended to params. */
static int span_params(wc_prom *p, char **params, size_t *len, int64_t start_ms, int64_t end_ms)
{
    char a[32], b[32];
    int rc = add_param(p, params, len, "start", wc_prom_format_time(start_ms, a, sizeof a));
    return rc ? rc : add_param(p, params, len, "end", wc_prom_format_time(end_ms, b, sizeof b));
}

int wc_prom_series_find(wc_prom *p, const char *const *match, size_t n, int64_t start_ms,
                        int64_t end_ms, wc_prom_cb cb, void *ctx, wc_error *err)
{
    char what[1200];
    char *params = NULL;
    size_t len = 0, used = 0;
    int rc = 0;
    what[0] = '\0';
    wc_append(what, sizeof what, &used, "prometheus %s: series", p->base);
    for (size_t i = 0; i < n && !rc; i++) {
        wc_append(what, sizeof what, &used, "%s`%.300s`", i ? " or " : " ", match[i]);
        rc = add_param(p, &params, &len, "match[]", match[i]);
    }
    if (!rc)
        rc = span_params(p, &params, &len, start_ms, end_ms);
    rc = rc ? wc_error_set(err, rc, "%s: out of memory", what)
            : request(p, "/api/v1/series", params, WC_PROM_SERIES, what, cb, ctx, err);
    free(params);
    return rc;
}

/* Joins label values into a text (see wc_prom_label_values). */
typedef struct joined {
    char *buf;
    size_t cap, used, count;
} joined;

static int join_cb(void *ctx, const wc_prom_series *s, wc_error *err)
{
    (void)err;
    joined *j = ctx;
    if (j->used + strlen(s->metric) + 6 < j->cap)
        wc_append(j->buf, j->cap, &j->used, "%s%s", j->count ? ", " : "", s->metric);
    else if (j->used + 4 < j->cap && (j->used < 3 || strcmp(j->buf + j->used - 3, "...")))
        wc_append(j->buf, j->cap, &j->used, "...");
    j->count++;
    return 0;
}

int wc_prom_label_values(wc_prom *p, const char *label, int64_t start_ms, int64_t end_ms,
                         char *buf, size_t cap, size_t *count, wc_error *err)
{
    char what[400], path[200];
    char *params = NULL;
    size_t len = 0;
    joined j = {buf, cap, 0, 0};
    buf[0] = '\0';
    wc_textf(what, sizeof what, "prometheus %s: values of label %.100s", p->base, label);
    if (!*label || strspn(label, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
                       strlen(label) || strlen(label) > 100)
        return wc_error_set(err, -EINVAL, "%s: not a label name", what);
    snprintf(path, sizeof path, "/api/v1/label/%s/values", label);
    int rc = span_params(p, &params, &len, start_ms, end_ms);
    rc = rc ? wc_error_set(err, rc, "%s: out of memory", what)
            : request(p, path, params, WC_PROM_VALUES, what, join_cb, &j, err);
    free(params);
    *count = j.count;
    return rc;
}
