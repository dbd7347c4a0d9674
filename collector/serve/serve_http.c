/*
 * serve_http.c — /metrics and /healthz on libmicrohttpd (see serve_http.h).
 * The socket is bound here (so a bad --listen gets errno's own words) and
 * handed to the daemon. libmicrohttpd (and the TLS libraries it links) is
 * loaded when the endpoint starts (common/wc_dl.h), so a `record` never maps
 * it; every call goes through the mhd table below.
 */
#include "collector/serve/serve_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/wc_clock.h"
#include "common/wc_dl.h"
#include "common/wc_text.h"

/* The soname loaded (the Makefile's WC_MHD_SONAME: the one the build's
 * libmicrohttpd.so names). */
#ifndef WC_MHD_SONAME
#define WC_MHD_SONAME "libmicrohttpd.so.12"
#endif

/* The libmicrohttpd entry points used: field, then the library's name. */
#define MHD_FUNCS(X)                                                                     \
    X(create_response_from_buffer, MHD_create_response_from_buffer)                      \
    X(add_response_header, MHD_add_response_header) X(queue_response, MHD_queue_response) \
    X(destroy_response, MHD_destroy_response)                                             \
    X(basic_auth_get_username_password, MHD_basic_auth_get_username_password)             \
    X(free, MHD_free) X(queue_basic_auth_fail_response, MHD_queue_basic_auth_fail_response) \
    X(start_daemon, MHD_start_daemon) X(stop_daemon, MHD_stop_daemon)                     \
    X(is_feature_supported, MHD_is_feature_supported)

/* libmicrohttpd's functions as loaded, each with its own prototype. */
static struct {
#define MHD_FIELD(field, sym) __typeof__(sym) *field;
    MHD_FUNCS(MHD_FIELD)
#undef MHD_FIELD
} mhd;

static const wc_dl_sym mhd_syms[] = {
#define MHD_SYM(field, sym) {#sym, offsetof(__typeof__(mhd), field)},
    MHD_FUNCS(MHD_SYM)
#undef MHD_SYM
};

static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;
static int mhd_rc = -EIO;
static wc_error mhd_err;

static void mhd_load_once(void)
{
    mhd_rc = wc_dl_load(WC_MHD_SONAME, "the libmicrohttpd runtime (Debian 12 package libmicrohttpd12)",
                        mhd_syms, sizeof mhd_syms / sizeof mhd_syms[0], &mhd,
                        &mhd_err);
}

/* Loads libmicrohttpd once per process. 0, or -EIO with err saying why. */
static int mhd_load(const char *listen_spec, wc_error *err)
{
    pthread_once(&mhd_once, mhd_load_once);
    if (mhd_rc)
        return wc_error_set(err, -EIO, "--listen %s: %s", listen_spec, mhd_err.msg);
    return 0;
}

struct wc_serve_http {
    struct MHD_Daemon *daemon;
    int fd;
    int port;
    const wc_web_config *web;
    wc_serve_state *state;
    int64_t interval_ns;
};

int wc_serve_parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *len,
                          wc_error *err)
{
    char host[128];
    const char *colon = strrchr(listen, ':');
    if (!colon || colon == listen || !colon[1] || (size_t)(colon - listen) >= sizeof host)
        return wc_error_set(err, -EINVAL, "--listen %s: expected ADDR:PORT (e.g. %s, "
                            "0.0.0.0:9877, [::1]:9877)", listen, WC_SERVE_DEFAULT_LISTEN);
    memcpy(host, listen, (size_t)(colon - listen));
    host[colon - listen] = '\0';
    char *h = host;
    size_t hl = strlen(h);
    if (h[0] == '[' && hl > 2 && h[hl - 1] == ']') {
        h[hl - 1] = '\0';
        h++;
    }
    char *end = NULL;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535)
        return wc_error_set(err, -EINVAL, "--listen %s: port must be 0..65535", listen);
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
                             .ai_socktype = SOCK_STREAM}, *ai = NULL;
    int g = getaddrinfo(h, colon + 1, &hints, &ai);
    if (g != 0 || !ai)
        return wc_error_set(err, -EINVAL, "--listen %s: '%s' is not a numeric IPv4 or IPv6 "
                            "address (%s)", listen, h, gai_strerror(g));
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *len = ai->ai_addrlen;
    freeaddrinfo(ai);
    return 0;
}

/* socket, SO_REUSEADDR, bind, listen; the fd or -errno with err. */
static int bind_listen(const char *spec, int *port, wc_error *err)
{
    struct sockaddr_storage ss;
    socklen_t len = 0;
    int rc = wc_serve_parse_listen(spec, &ss, &len, err);
    if (rc)
        return rc;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd < 0)
        return wc_error_set(err, -errno, "--listen %s: socket: %s", spec, strerror(errno));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 64) != 0) {
        int e = errno;
        close(fd);
        return wc_error_set(err, -e, "--listen %s: %s", spec, strerror(e));
    }
    struct sockaddr_storage got;
    socklen_t gl = sizeof got;
    getsockname(fd, (struct sockaddr *)&got, &gl);
    *port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
                                            : ((struct sockaddr_in *)&got)->sin_port);
    return fd;
}

/* Queues a copy of text with status and content type. */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             const char *text)
{
    struct MHD_Response *r =
        mhd.create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    enum MHD_Result ok = mhd.queue_response(c, status, r);
    mhd.destroy_response(r);
    return ok;
}

static enum MHD_Result metrics(wc_serve_http *h, struct MHD_Connection *c)
{
    wc_expow_buf b = {0};
    if (wc_serve_state_render(h->state, &b) != 0 || !b.data) {
        wc_expow_buf_free(&b);
        return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", "out of memory\n");
    }
    struct MHD_Response *r = mhd.create_response_from_buffer(b.len, b.data, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        wc_expow_buf_free(&b);
        return MHD_NO;
    }
    mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8");
    enum MHD_Result ok = mhd.queue_response(c, MHD_HTTP_OK, r);
    mhd.destroy_response(r);
    return ok;
}

static enum MHD_Result healthz(wc_serve_http *h, struct MHD_Connection *c)
{
    int64_t last = 0, n = wc_serve_state_ticks(h->state, &last);
    int64_t age = wc_mono_ns() - last, limit = 3 * h->interval_ns;
    if (limit < 10 * WC_NS_PER_S)
        limit = 10 * WC_NS_PER_S;
    char text[160];
    if (n == 0) {
        wc_textf(text, sizeof text, "not ready: no sample published yet\n");
        return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", text);
    }
    wc_textf(text, sizeof text, "%s: %lld samples, the last %.1f s ago\n",
             age > limit ? "stale" : "ok", (long long)n, (double)age / 1e9);
    return reply(c, age > limit ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_OK, "text/plain", text);
}

/* 1 when the request may go on (no users configured, or valid credentials). */
static int authorised(wc_serve_http *h, struct MHD_Connection *c)
{
    if (!h->web || h->web->nusers == 0)
        return 1;
    char *pass = NULL;
    char *user = mhd.basic_auth_get_username_password(c, &pass);
    int ok = wc_web_config_check(h->web, user, pass);
    if (pass)
        explicit_bzero(pass, strlen(pass));
    mhd.free(user);
    mhd.free(pass);
    return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    (void)version, (void)upload, (void)upload_size, (void)con_cls;
    wc_serve_http *h = cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "only GET and HEAD\n");
    if (!authorised(h, c)) {
        struct MHD_Response *r = mhd.create_response_from_buffer(
            13, (void *)"unauthorized\n", MHD_RESPMEM_PERSISTENT);
        if (!r)
            return MHD_NO;
        enum MHD_Result ok = mhd.queue_basic_auth_fail_response(c, "wattcal", r);
        mhd.destroy_response(r);
        return ok;
    }
    if (strcmp(url, "/metrics") == 0)
        return metrics(h, c);
    if (strcmp(url, "/healthz") == 0)
        return healthz(h, c);
    if (strcmp(url, "/") == 0)
        return reply(c, MHD_HTTP_OK, "text/plain",
                     "wattcal serve: metrics at /metrics, health at /healthz\n");
    return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", "not found\n");
}

static struct MHD_Daemon *start_daemon(wc_serve_http *h)
{
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
    int tls = h->web && h->web->cert_pem;
    if (tls)
        return mhd.start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handle, h,
                                MHD_OPTION_LISTEN_SOCKET, h->fd, MHD_OPTION_CONNECTION_LIMIT,
                                (unsigned)32, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)15,
                                MHD_OPTION_HTTPS_MEM_CERT, h->web->cert_pem,
                                MHD_OPTION_HTTPS_MEM_KEY, h->web->key_pem, MHD_OPTION_END);
    return mhd.start_daemon(flags, 0, NULL, NULL, handle, h, MHD_OPTION_LISTEN_SOCKET, h->fd,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)32,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)15, MHD_OPTION_END);
}

int wc_serve_http_start(const char *listen_spec, const wc_web_config *web, wc_serve_state *state,
                        int64_t interval_ns, wc_serve_http **out, wc_error *err)
{
    *out = NULL;
    int lrc = mhd_load(listen_spec, err);
    if (lrc)
        return lrc;
    if (web && web->cert_pem && mhd.is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
        return wc_error_set(err, -ENOTSUP, "--web-config: this libmicrohttpd has no TLS "
                            "support; terminate TLS in a sidecar instead");
    wc_serve_http *h = calloc(1, sizeof *h);
    if (!h)
        return wc_error_set(err, -ENOMEM, "out of memory");
    h->web = web;
    h->state = state;
    h->interval_ns = interval_ns;
    h->fd = bind_listen(listen_spec, &h->port, err);
    if (h->fd < 0) {
        int rc = h->fd;
        free(h);
        return rc;
    }
    h->daemon = start_daemon(h);
    if (!h->daemon) {
        close(h->fd);
        free(h);
        return wc_error_set(err, -EIO, "--listen %s: libmicrohttpd did not start (a bad TLS "
                            "certificate or key?)", listen_spec);
    }
    *out = h;
    return 0;
}

int wc_serve_http_port(const wc_serve_http *h)
{
    return h->port;
}

void wc_serve_http_stop(wc_serve_http *h)
{
    if (!h)
        return;
    mhd.stop_daemon(h->daemon); /* closes the listening socket it was given */
    free(h);
}
