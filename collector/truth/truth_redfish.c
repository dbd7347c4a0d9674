/*
 * truth_redfish.c — the Redfish ground-truth source (`--truth
 * redfish:https://HOST[:PORT]`): a libcurl client with basic auth, and the
 * walk of the service that finds the node's wall power (order of preference
 * and error rules in redfish_parse.h, part 2).
 *
 * The walk reaches the service only through a fetch function pointer, so the
 * unit tests run the whole discovery over a mockup directory
 * (wc_truth_redfish_init_fetcher). Credentials: user from REDFISH_USER,
 * password from --truth-password-file or REDFISH_PASSWORD (wc_truth_secret);
 * never from the URL, never in a message; an empty password (empty first
 * line of the file, empty REDFISH_PASSWORD) is refused at open. TLS is
 * verified unless --insecure; redirects are not followed, so credentials
 * never leave the service host. Plain http:// is accepted only for a
 * loopback host (127.0.0.0/8, ::1, localhost: test services) and then
 * never through a proxy: basic auth over plain HTTP would send the BMC
 * password in clear text.
 */
#include "collector/truth/redfish_parse.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/truth/truth_table.h"
#include "common/wc_http.h"
#include "common/wc_text.h"

#define CHASSIS_COLLECTION "/redfish/v1/Chassis"

/* ---- walk helpers -------------------------------------------------------- */

static int is_unavailable(int rc)
{
    return rc == -ENOENT || rc == -ENODATA;
}

static void response_free(wc_redfish_response *r)
{
    free(r->body);
    r->body = NULL;
    r->len = 0;
}

/* The shared "/redfish/v1/" prefix dropped, for compact reasons. */
static const char *short_path(const char *path)
{
    return strncmp(path, "/redfish/v1/", 12) == 0 ? path + 12 : path;
}

/* Appends one reason to a "; "-separated list, without the "/redfish/v1/"
 * prefix every service path shares. */
static void append_reason(char *why, size_t cap, size_t *used, const char *msg)
{
    wc_append(why, cap, used, "%s%s", *used ? "; " : "", short_path(msg));
}

/* Turns a non-2xx HTTP status into the walk's error: -ENOENT (404/410, the
 * resource is not there: unavailable) or a fatal -EACCES / -EIO naming the
 * full URL. */
static int status_error(const wc_redfish_walker *w, const char *path,
                        const wc_redfish_response *r, wc_error *err)
{
    long st = r->http_status;
    if (st == 404 || st == 410)
        return wc_error_set(err, -ENOENT, "%s: HTTP %ld (not found)", path, st);
    char msg[112] = "";
    wc_redfish_error_message(r->body, r->len, msg, sizeof msg);
    const char *sep = msg[0] ? ": " : "";
    if (st == 401)
        return wc_error_set(err, -EACCES, "%s%s: HTTP 401 authentication failed: %s",
                            w->service, path, w->auth_hint);
    if (st == 403)
        return wc_error_set(err, -EACCES,
                            "%s%s: HTTP 403 forbidden (authentication failed or the account "
                            "lacks Login privilege): %s",
                            w->service, path, w->auth_hint);
    if (st >= 500 && st <= 599)
        return wc_error_set(err, -EIO, "%s%s: HTTP %ld server error%s%s", w->service, path, st,
                            sep, msg);
    return wc_error_set(err, -EIO, "%s%s: unexpected HTTP %ld%s%s", w->service, path, st, sep,
                        msg);
}

/* GETs a service path. Returns 0 with a 2xx body in *resp (caller frees),
 * -ENOENT when not found, or a fatal -errno with err naming the URL. */
static int get_resource(wc_redfish_walker *w, const char *path, wc_redfish_response *resp,
                        wc_error *err)
{
    memset(resp, 0, sizeof *resp);
    w->requests++;
    int rc = w->fetch(w->ctx, path, resp, err);
    if (rc) {
        response_free(resp);
        return rc == -ENOENT || rc == -ENODATA ? -EIO : rc; /* transport: always fatal */
    }
    if (resp->http_status >= 200 && resp->http_status <= 299)
        return 0;
    rc = status_error(w, path, resp, err);
    response_free(resp);
    return rc;
}

/* After a parse function: invalid JSON is fatal and gets the full URL. */
static int parsed(const wc_redfish_walker *w, int rc, wc_error *err)
{
    if (rc == -EBADMSG)
        return wc_error_prefix(err, rc, "%s", w->service);
    return rc;
}

/* ---- reading one resource of a plan --------------------------------------- */

static int read_environment(wc_redfish_walker *w, const wc_redfish_plan *p, wc_truth_sample *out,
                            wc_error *err)
{
    wc_redfish_response r;
    int rc = get_resource(w, p->resource, &r, err);
    if (rc)
        return rc;
    wc_redfish_power pw;
    rc = parsed(w, wc_redfish_parse_environment_metrics(p->resource, r.body, r.len, &pw, err), err);
    response_free(&r);
    if (rc)
        return rc;
    out->watts = pw.watts;
    snprintf(out->path, sizeof out->path, "redfish:%s:EnvironmentMetrics.PowerWatts", p->chassis);
    return 0;
}

static int read_supplies(wc_redfish_walker *w, const wc_redfish_plan *p, wc_truth_sample *out,
                         wc_error *err)
{
    double sum_w = 0;
    for (size_t i = 0; i < p->nsupplies; i++) {
        wc_redfish_response r;
        int rc = get_resource(w, p->supply_metrics[i], &r, err);
        if (rc)
            return rc;
        double w_in = NAN;
        rc = parsed(w, wc_redfish_parse_supply_metrics(p->supply_metrics[i], r.body, r.len, &w_in, err),
                    err);
        response_free(&r);
        if (rc)
            return rc;
        sum_w += w_in;
    }
    if (!(sum_w > 0))
        return wc_error_set(err, -ENODATA,
                            "Chassis/%s: InputPowerWatts of %zu supplies sum to 0 W (not a reading)",
                            p->chassis, p->nsupplies);
    if (!(sum_w <= WC_REDFISH_MAX_NODE_WATTS))
        return wc_error_set(err, -ENODATA,
                            "Chassis/%s: implausible reading %g W (sum of %zu supplies; over the "
                            "plausibility ceiling 100 kW per node)",
                            p->chassis, sum_w, p->nsupplies);
    out->watts = sum_w;
    snprintf(out->path, sizeof out->path, "redfish:%s:PowerSupplies.InputPowerWatts(sum of %zu)",
             p->chassis, p->nsupplies);
    return 0;
}

static int read_power_control(wc_redfish_walker *w, const wc_redfish_plan *p,
                              wc_truth_sample *out, wc_error *err)
{
    wc_redfish_response r;
    int rc = get_resource(w, p->resource, &r, err);
    if (rc)
        return rc;
    wc_redfish_power pw;
    rc = parsed(w, wc_redfish_parse_power_control(p->resource, r.body, r.len, &pw, err), err);
    response_free(&r);
    if (rc)
        return rc;
    out->watts = pw.watts;
    out->avg_watts = pw.avg_watts;
    out->min_watts = pw.min_watts;
    out->max_watts = pw.max_watts;
    out->window_s = pw.window_s;
    out->window_known = pw.window_known;
    out->stats_window_s = pw.stats_window_s;
    snprintf(out->path, sizeof out->path, "redfish:%s:Power.PowerControl[%d].PowerConsumedWatts",
             p->chassis, pw.member);
    return 0;
}

/* Reads a plan into *out. 0, unavailable (-ENOENT/-ENODATA) or fatal. */
static int execute_plan(wc_redfish_walker *w, const wc_redfish_plan *p, wc_truth_sample *out,
                        wc_error *err)
{
    switch (p->kind) {
    case WC_REDFISH_PLAN_ENVIRONMENT:
        return read_environment(w, p, out, err);
    case WC_REDFISH_PLAN_SUPPLIES:
        return read_supplies(w, p, out, err);
    case WC_REDFISH_PLAN_POWER_CONTROL:
        return read_power_control(w, p, out, err);
    case WC_REDFISH_PLAN_NONE:
        break;
    }
    return wc_error_set(err, -ENODATA, "no reading plan");
}

/* ---- discovery ------------------------------------------------------------ */

/* GETs path and takes the link of its property prop into out. */
static int follow_link(wc_redfish_walker *w, const char *path, const char *prop, char *out,
                       size_t cap, wc_error *err)
{
    wc_redfish_response r;
    int rc = get_resource(w, path, &r, err);
    if (rc)
        return rc;
    rc = parsed(w, wc_redfish_parse_link(path, r.body, r.len, prop, out, cap, err), err);
    response_free(&r);
    return rc;
}

/* GETs a collection's members into *m (heap, caller frees). */
static int get_members(wc_redfish_walker *w, const char *path, wc_redfish_members **m,
                       wc_error *err)
{
    *m = NULL;
    wc_redfish_response r;
    int rc = get_resource(w, path, &r, err);
    if (rc)
        return rc;
    *m = malloc(sizeof **m);
    if (!*m) {
        response_free(&r);
        return wc_error_set(err, -ENOMEM, "%s: out of memory", path);
    }
    rc = parsed(w, wc_redfish_parse_members(path, r.body, r.len, *m, err), err);
    response_free(&r);
    return rc;
}

/* Adds one supply to the plan: skipped when Absent; a present supply without
 * Metrics makes the sum incomplete, hence unavailable. */
static int plan_one_supply(wc_redfish_walker *w, const char *path, wc_redfish_plan *p,
                           wc_error *err)
{
    wc_redfish_response r;
    int rc = get_resource(w, path, &r, err);
    if (rc)
        return rc;
    wc_redfish_supply s;
    rc = parsed(w, wc_redfish_parse_supply(path, r.body, r.len, &s, err), err);
    response_free(&r);
    if (rc || s.absent)
        return rc;
    if (!s.metrics[0])
        return wc_error_set(err, -ENODATA, "%s: no Metrics link (input power of a present "
                                           "supply not reported)", path);
    if (p->nsupplies >= WC_REDFISH_MAX_SUPPLIES)
        return wc_error_set(err, -ENODATA, "%s: more than %d power supplies", path,
                            WC_REDFISH_MAX_SUPPLIES);
    memcpy(p->supply_metrics[p->nsupplies++], s.metrics, sizeof s.metrics);
    return 0;
}

/* PowerSubsystem -> PowerSupplies -> each supply's Metrics link. */
static int plan_supplies(wc_redfish_walker *w, const wc_redfish_chassis *ch, wc_redfish_plan *p,
                         wc_error *err)
{
    char coll[WC_REDFISH_PATH_MAX];
    int rc = follow_link(w, ch->power_subsystem, "PowerSupplies", coll, sizeof coll, err);
    if (rc)
        return rc;
    wc_redfish_members *m;
    rc = get_members(w, coll, &m, err);
    p->kind = WC_REDFISH_PLAN_SUPPLIES;
    p->nsupplies = 0;
    for (size_t i = 0; rc == 0 && i < m->n; i++)
        rc = plan_one_supply(w, m->path[i], p, err);
    if (rc == 0 && m->n == 0)
        rc = wc_error_set(err, -ENODATA, "%s: no power supplies listed", coll);
    else if (rc == 0 && p->nsupplies == 0)
        rc = wc_error_set(err, -ENODATA, "%s: every power supply is Absent", coll);
    free(m);
    return rc;
}

/* One step of the order of preference: runs the plan unless building it
 * already failed (plan_rc). 0 done, unavailable (reason appended to why), or
 * fatal. */
static int try_plan(wc_redfish_walker *w, const wc_redfish_plan *p, int plan_rc,
                    wc_truth_sample *out, char *why, size_t cap, size_t *used, wc_error *err)
{
    int rc = plan_rc ? plan_rc : execute_plan(w, p, out, err);
    if (rc && is_unavailable(rc))
        append_reason(why, cap, used, err->msg);
    return rc;
}

/* Reads one chassis through the order of preference; *p gets the plan that
 * worked. */
static int try_chassis(wc_redfish_walker *w, const char *path, wc_redfish_plan *p,
                       wc_truth_sample *out, wc_error *err)
{
    wc_redfish_response r;
    int rc = get_resource(w, path, &r, err);
    if (rc)
        return rc;
    wc_redfish_chassis ch;
    rc = parsed(w, wc_redfish_parse_chassis(path, r.body, r.len, &ch, err), err);
    response_free(&r);
    if (rc)
        return rc;
    if (!ch.environment_metrics[0] && !ch.power_subsystem[0] && !ch.power[0])
        return wc_error_set(err, -ENODATA, "%s: no EnvironmentMetrics, PowerSubsystem or Power link",
                            path);
    char why[640] = "";
    size_t used = 0;
    memset(p, 0, sizeof *p);
    snprintf(p->chassis, sizeof p->chassis, "%s", ch.id);
    if (ch.environment_metrics[0]) {
        p->kind = WC_REDFISH_PLAN_ENVIRONMENT;
        snprintf(p->resource, sizeof p->resource, "%s", ch.environment_metrics);
        rc = try_plan(w, p, 0, out, why, sizeof why, &used, err);
        if (!is_unavailable(rc))
            return rc;
    } else {
        wc_append(why, sizeof why, &used, "%s: no EnvironmentMetrics link", short_path(path));
    }
    if (ch.power_subsystem[0]) {
        rc = try_plan(w, p, plan_supplies(w, &ch, p, err), out, why, sizeof why, &used, err);
        if (!is_unavailable(rc))
            return rc;
    } else {
        wc_append(why, sizeof why, &used, "; no PowerSubsystem link");
    }
    if (ch.power[0]) {
        p->kind = WC_REDFISH_PLAN_POWER_CONTROL;
        snprintf(p->resource, sizeof p->resource, "%s", ch.power);
        rc = try_plan(w, p, 0, out, why, sizeof why, &used, err);
        if (!is_unavailable(rc))
            return rc;
    } else {
        wc_append(why, sizeof why, &used, "; no Power link");
    }
    return wc_error_set(err, -ENODATA, "%s", why);
}

/* Walks /redfish/v1/Chassis: the first chassis that yields a reading wins. */
static int discover(wc_redfish_walker *w, wc_truth_sample *out, wc_error *err)
{
    wc_redfish_members *m;
    int rc = get_members(w, CHASSIS_COLLECTION, &m, err);
    if (rc) {
        free(m);
        return rc;
    }
    if (m->n == 0) {
        free(m);
        return wc_error_set(err, -ENODATA, "%s: no chassis listed", CHASSIS_COLLECTION);
    }
    char why[768] = "";
    size_t used = 0;
    wc_redfish_plan *p = malloc(sizeof *p);
    rc = p ? -ENODATA : wc_error_set(err, -ENOMEM, "out of memory");
    for (size_t i = 0; p && i < m->n && is_unavailable(rc); i++) {
        rc = try_chassis(w, m->path[i], p, out, err);
        if (rc == 0)
            w->plan = *p;
        else if (is_unavailable(rc))
            append_reason(why, sizeof why, &used, err->msg);
    }
    if (is_unavailable(rc))
        wc_error_set(err, -ENODATA, "%s", why);
    free(p);
    free(m);
    return rc;
}

/* Turns the walk's result into the sample's status. */
static int finish(wc_truth_sample *out, int rc, const wc_error *err)
{
    if (rc == 0) {
        out->status = WC_TRUTH_OK;
        out->error[0] = '\0';
        return 0;
    }
    out->watts = out->avg_watts = out->min_watts = out->max_watts = NAN;
    out->window_s = 0;
    out->window_known = 0;
    size_t used = 0;
    out->error[0] = '\0';
    wc_append(out->error, sizeof out->error, &used, "%s%s",
              is_unavailable(rc) ? "no power reading: " : "", err->msg);
    if (is_unavailable(rc)) {
        out->status = WC_TRUTH_UNAVAILABLE;
        return 0;
    }
    out->status = WC_TRUTH_ERROR;
    return rc;
}

int wc_redfish_walk_poll(wc_redfish_walker *w, wc_truth_sample *out)
{
    wc_error err = {{0}};
    out->device_ts_ns = 0; /* Redfish power resources carry no reading timestamp */
    int rc = w->plan.kind != WC_REDFISH_PLAN_NONE ? execute_plan(w, &w->plan, out, &err)
                                                    : discover(w, out, &err);
    if (rc)
        w->plan.kind = WC_REDFISH_PLAN_NONE; /* rediscover at the next poll */
    return finish(out, rc, &err);
}

int wc_redfish_walk_chassis(wc_redfish_walker *w, const char *chassis_path, wc_truth_sample *out)
{
    wc_error err = {{0}};
    out->device_ts_ns = 0;
    wc_redfish_plan *p = malloc(sizeof *p);
    int rc = p ? try_chassis(w, chassis_path, p, out, &err)
               : wc_error_set(&err, -ENOMEM, "out of memory");
    free(p);
    return finish(out, rc, &err);
}

/* ---- libcurl fetcher ------------------------------------------------------ */

/* The source's private state. */
typedef struct redfish_priv {
    wc_redfish_walker walker;
    char base[256];             /* scheme://host[:port], no credentials */
    int plain_http;
    CURL *curl;
    struct curl_slist *headers;
    char user[128];
    char password[256];         /* wiped on close */
    char errbuf[CURL_ERROR_SIZE];
    double timeout_s, connect_timeout_s;
    struct {
        char *buf;
        size_t len, cap;
        int overflow;
    } body;
} redfish_priv;

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
    redfish_priv *p = userp;
    size_t n = size * nmemb;
    if (p->body.len + n > WC_REDFISH_MAX_BODY_BYTES) {
        p->body.overflow = 1;
        return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
    }
    if (p->body.len + n + 1 > p->body.cap) {
        size_t cap = p->body.cap ? p->body.cap : 16384;
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

/* Maps a failed transfer to -errno and a message naming the URL. */
static int transfer_error(redfish_priv *p, CURLcode c, const char *url, wc_error *err)
{
    const char *detail = p->errbuf[0] ? p->errbuf : wc_curl()->easy_strerror(c);
    switch (c) {
    case CURLE_OPERATION_TIMEDOUT: {
        curl_off_t connect_us = 0;
        wc_curl()->easy_getinfo(p->curl, CURLINFO_CONNECT_TIME_T, &connect_us);
        if (connect_us == 0)
            return wc_error_set(err, -ETIMEDOUT, "%s: connect timed out after %g s", url,
                                p->connect_timeout_s);
        return wc_error_set(err, -ETIMEDOUT, "%s: timed out after %g s (no complete answer)", url,
                            p->timeout_s);
    }
    case CURLE_COULDNT_CONNECT: {
        long os_errno = 0;
        wc_curl()->easy_getinfo(p->curl, CURLINFO_OS_ERRNO, &os_errno);
        if (os_errno == ECONNREFUSED || os_errno == 0)
            return wc_error_set(err, -ECONNREFUSED, "%s: connection refused (%s)", url, detail);
        return wc_error_set(err, -(int)os_errno, "%s: connection failed: %s (%s)", url,
                            strerror((int)os_errno), detail);
    }
    case CURLE_COULDNT_RESOLVE_HOST:
        return wc_error_set(err, -EHOSTUNREACH, "%s: cannot resolve host (%s)", url, detail);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
        return wc_error_set(err, -EPROTO,
                            "%s: TLS failed (%s); for a lab BMC with a self-signed certificate "
                            "only, pass --insecure",
                            url, detail);
    case CURLE_FILESIZE_EXCEEDED:
        return wc_error_set(err, -EFBIG, "%s: answer larger than %u bytes: refused", url,
                            WC_REDFISH_MAX_BODY_BYTES);
    case CURLE_WRITE_ERROR:
        if (p->body.overflow)
            return wc_error_set(err, -EFBIG, "%s: answer larger than %u bytes: refused", url,
                                WC_REDFISH_MAX_BODY_BYTES);
        return wc_error_set(err, -ENOMEM, "%s: out of memory for the answer", url);
    default:
        return wc_error_set(err, -EIO, "%s: %s", url, detail);
    }
}

static int http_fetch(void *ctx, const char *path, wc_redfish_response *resp, wc_error *err)
{
    redfish_priv *p = ctx;
    char url[sizeof p->base + WC_REDFISH_PATH_MAX];
    if ((size_t)snprintf(url, sizeof url, "%s%s", p->base, path) >= sizeof url)
        return wc_error_set(err, -ENAMETOOLONG, "%s%s: URL too long", p->base, path);
    p->body.buf = NULL;
    p->body.len = p->body.cap = 0;
    p->body.overflow = 0;
    p->errbuf[0] = '\0';
    wc_curl()->easy_setopt(p->curl, CURLOPT_URL, url);
    CURLcode c = wc_curl()->easy_perform(p->curl);
    if (c != CURLE_OK) {
        free(p->body.buf);
        p->body.buf = NULL;
        return transfer_error(p, c, url, err);
    }
    long status = 0;
    wc_curl()->easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status);
    resp->http_status = status;
    resp->body = p->body.buf;
    resp->len = p->body.len;
    p->body.buf = NULL;
    return 0;
}

/* Options that stay the same for every request of this source. */
static int curl_setup(wc_truth_source *s, redfish_priv *p, wc_error *err)
{
    int hrc = wc_http_global_init("redfish", err);
    if (hrc)
        return hrc;
    p->curl = wc_curl()->easy_init();
    p->headers = wc_curl()->slist_append(NULL, "Accept: application/json");
    p->headers = p->headers ? wc_curl()->slist_append(p->headers, "OData-Version: 4.0") : NULL;
    if (!p->curl || !p->headers)
        return wc_error_set(err, -ENOMEM, "redfish: out of memory setting up libcurl");
    CURL *c = p->curl;
    wc_curl()->easy_setopt(c, CURLOPT_HTTPHEADER, p->headers);
    /* plain http is loopback only: never hand the clear-text request to a proxy */
    wc_http_cfg h = {.errbuf = p->errbuf, .insecure = s->cfg.insecure, .no_proxy = p->plain_http,
                     .connect_timeout_ns = s->cfg.connect_timeout_ns,
                     .timeout_ns = s->cfg.timeout_ns, .max_body_bytes = WC_REDFISH_MAX_BODY_BYTES,
                     .user = p->user, .password = p->password, .write = on_body, .write_data = p};
    wc_http_setup(c, &h);
    p->timeout_s = (double)wc_http_ms(s->cfg.timeout_ns) / 1000.0;
    p->connect_timeout_s = (double)wc_http_ms(s->cfg.connect_timeout_ns) / 1000.0;
    return 0;
}

/* ---- the source ----------------------------------------------------------- */

/* 0 when the --truth-password-file path is a regular file that can be
 * opened for reading; else an error naming it (a directory, a FIFO, a
 * device, missing, no permission). Reads nothing. */
static int password_file_regular(const char *file, wc_error *err)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        return wc_error_set(err, -e, "--truth-password-file %s: %s", file, strerror(e));
    }
    struct stat st;
    int rc = fstat(fd, &st);
    int e = errno;
    close(fd);
    if (rc != 0)
        return wc_error_set(err, -e, "--truth-password-file %s: %s", file, strerror(e));
    if (S_ISDIR(st.st_mode))
        return wc_error_set(err, -EISDIR,
                            "--truth-password-file %s: is a directory (expected a file whose "
                            "first line is the password)", file);
    if (!S_ISREG(st.st_mode))
        return wc_error_set(err, -EINVAL,
                            "--truth-password-file %s: not a regular file (expected a file whose "
                            "first line is the password)", file);
    return 0;
}

/* REDFISH_USER and the password; the hint for 401 names where they came from. */
static int read_credentials(wc_truth_source *s, redfish_priv *p, wc_error *err)
{
    const char *user = getenv("REDFISH_USER");
    if (!user || !*user)
        return wc_error_set(err, -ENOENT,
                            "--truth redfish:%s: no user: set REDFISH_USER (the password goes in "
                            "REDFISH_PASSWORD or --truth-password-file FILE, never on the "
                            "command line)",
                            p->base);
    if (strlen(user) >= sizeof p->user)
        return wc_error_set(err, -EINVAL, "REDFISH_USER: longer than %zu bytes",
                            sizeof p->user - 1);
    snprintf(p->user, sizeof p->user, "%s", user);
    const char *file = s->cfg.password_file && *s->cfg.password_file ? s->cfg.password_file : NULL;
    int rc = file ? password_file_regular(file, err) : 0;
    if (rc == 0)
        rc = wc_truth_secret(&s->cfg, "REDFISH_PASSWORD", p->password, sizeof p->password, err);
    if (rc == 0 && !p->password[0])
        rc = file ? wc_error_set(err, -EINVAL,
                                 "--truth-password-file %s: empty first line (no password)", file)
                  : wc_error_set(err, -EINVAL,
                                 "REDFISH_PASSWORD is empty (no password): set it, or pass "
                                 "--truth-password-file FILE");
    if (rc) {
        explicit_bzero(p->password, sizeof p->password);
        return wc_error_prefix(err, rc, "--truth redfish:%s: ", p->base);
    }
    if (file)
        snprintf(p->walker.auth_hint, sizeof p->walker.auth_hint,
                 "check REDFISH_USER (%.32s) and --truth-password-file %.96s",
                 p->user, s->cfg.password_file);
    else
        snprintf(p->walker.auth_hint, sizeof p->walker.auth_hint,
                 "check REDFISH_USER (%.32s) and REDFISH_PASSWORD", p->user);
    return 0;
}

static void redfish_close(wc_truth_source *s);

static int redfish_open(wc_truth_source *s, wc_error *err)
{
    redfish_priv *p = s->priv;
    int rc = read_credentials(s, p, err);
    if (rc == 0)
        rc = curl_setup(s, p, err);
    if (rc == 0) {
        size_t used = 0;
        s->description[0] = '\0';
        wc_append(s->description, sizeof s->description, &used,
                  "Redfish %s as %s (basic auth; %s; timeout %g s)", p->base, p->user,
                  p->plain_http ? "plain HTTP to a loopback host, test use only"
                  : s->cfg.insecure ? "TLS NOT verified: --insecure"
                                    : "TLS verified",
                  p->timeout_s);
    }
    if (rc) /* wc_truth_open does not close a source that failed to open */
        redfish_close(s);
    return rc;
}

static int redfish_poll(wc_truth_source *s, wc_truth_sample *out)
{
    redfish_priv *p = s->priv;
    return wc_redfish_walk_poll(&p->walker, out);
}

static void redfish_close(wc_truth_source *s)
{
    redfish_priv *p = s->priv;
    if (!p)
        return;
    if (p->curl)
        wc_curl()->easy_cleanup(p->curl);
    if (p->headers)
        wc_curl()->slist_free_all(p->headers);
    free(p->body.buf);
    explicit_bzero(p->password, sizeof p->password);
    free(p);
    s->priv = NULL;
}

static const wc_truth_ops redfish_http_ops = {"redfish", redfish_open, redfish_poll,
                                              redfish_close};
static const wc_truth_ops redfish_fetcher_ops = {"redfish", NULL, redfish_poll, redfish_close};

/* Is the host of an authority (a bracketed IPv6 literal or a name/IPv4,
 * without the port) a loopback host: 127.0.0.0/8 in dotted-quad form, ::1
 * (or ::ffff:127.x.y.z), or "localhost"? */
static int loopback_host(const char *a, size_t alen)
{
    char host[64];
    size_t hlen;
    if (a[0] == '[') {
        const char *close = memchr(a, ']', alen);
        if (!close)
            return 0;
        a++;
        hlen = (size_t)(close - a);
    } else {
        const char *colon = memchr(a, ':', alen);
        hlen = colon ? (size_t)(colon - a) : alen;
    }
    if (hlen == 0 || hlen >= sizeof host)
        return 0;
    memcpy(host, a, hlen);
    host[hlen] = '\0';
    if (strcasecmp(host, "localhost") == 0)
        return 1;
    struct in_addr v4;
    if (inet_pton(AF_INET, host, &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    struct in6_addr v6;
    if (inet_pton(AF_INET6, host, &v6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&v6) || (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
    return 0;
}

/* Splits "https://HOST[:PORT][/redfish/v1[/]]" into base (scheme://authority). */
static int parse_service_url(const char *url, char *base, size_t cap, int *plain, wc_error *err)
{
    size_t scheme = 0;
    if (strncasecmp(url, "https://", 8) == 0)
        scheme = 8;
    else if (strncasecmp(url, "http://", 7) == 0)
        scheme = 7;
    else
        return wc_error_set(err, -EINVAL,
                            "--truth redfish:%.64s: expected redfish:https://HOST[:PORT]", url);
    *plain = scheme == 7;
    const char *a = url + scheme;
    size_t alen = strcspn(a, "/?#");
    if (memchr(a, '@', alen))
        return wc_error_set(err, -EINVAL,
                            "--truth redfish:...: credentials must not be in the URL (the "
                            "command line is visible to every user): set REDFISH_USER and "
                            "REDFISH_PASSWORD, or --truth-password-file FILE");
    if (alen == 0 || wc_url_authority_len(a) != alen)
        return wc_error_set(err, -EINVAL,
                            "--truth redfish:%.64s: bad host or port (expected HOST[:PORT], "
                            "port 1..65535)", url);
    if (*plain && !loopback_host(a, alen))
        return wc_error_set(err, -EINVAL,
                            "--truth redfish:%.64s: plain HTTP would send the BMC password in "
                            "clear text: use https:// (http:// is accepted only for a loopback "
                            "test service: 127.0.0.0/8, ::1, localhost)",
                            url);
    const char *rest = a + alen;
    if (*rest && strcmp(rest, "/") != 0 && strcmp(rest, "/redfish/v1") != 0 &&
        strcmp(rest, "/redfish/v1/") != 0)
        return wc_error_set(err, -EINVAL,
                            "--truth redfish:%.64s: give only the service address "
                            "(https://HOST[:PORT]); the walk starts at /redfish/v1/Chassis",
                            url);
    if (scheme + alen >= cap)
        return wc_error_set(err, -EINVAL, "--truth redfish:%.64s...: URL too long", url);
    snprintf(base, cap, "%s%.*s", *plain ? "http://" : "https://", (int)alen, a);
    return 0;
}

int wc_truth_redfish_init(wc_truth_source *s, const char *url, wc_error *err)
{
    redfish_priv *p = calloc(1, sizeof *p);
    if (!p)
        return wc_error_set(err, -ENOMEM, "redfish: out of memory");
    int rc = parse_service_url(url, p->base, sizeof p->base, &p->plain_http, err);
    if (rc) {
        if (strchr(url, '@'))
            explicit_bzero(s->spec, sizeof s->spec); /* it held credentials */
        free(p);
        return rc;
    }
    p->walker.fetch = http_fetch;
    p->walker.ctx = p;
    snprintf(p->walker.service, sizeof p->walker.service, "%s", p->base);
    s->ops = &redfish_http_ops;
    s->priv = p;
    snprintf(s->description, sizeof s->description, "Redfish %.200s", p->base);
    return 0;
}

int wc_truth_redfish_init_fetcher(wc_truth_source *s, const char *service,
                                  wc_redfish_fetch_fn fetch, void *ctx, wc_error *err)
{
    redfish_priv *p = calloc(1, sizeof *p);
    if (!p)
        return wc_error_set(err, -ENOMEM, "redfish: out of memory");
    p->walker.fetch = fetch;
    p->walker.ctx = ctx;
    snprintf(p->walker.service, sizeof p->walker.service, "%s", service);
    snprintf(p->walker.auth_hint, sizeof p->walker.auth_hint,
             "check REDFISH_USER and REDFISH_PASSWORD");
    s->ops = &redfish_fetcher_ops;
    s->priv = p;
    s->provenance = WC_PROV_GROUND_TRUTH;
    snprintf(s->description, sizeof s->description, "Redfish %.200s (custom fetcher)", service);
    return 0;
}

wc_redfish_walker *wc_truth_redfish_walker(wc_truth_source *s)
{
    if (!s || !s->priv || (s->ops != &redfish_http_ops && s->ops != &redfish_fetcher_ops))
        return NULL;
    return &((redfish_priv *)s->priv)->walker;
}
