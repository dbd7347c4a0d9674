/*
 * wc_http.h — the libcurl set-up every wattcal HTTP client shares: the
 * Redfish truth poller (collector/truth/truth_redfish.c), the exporter
 * scraper (collector/exporter/exporter_scrape.c), the Prometheus API client
 * (collector/prom/promapi.c) and serve's kubelet client
 * (collector/serve/kubelet.c). libcurl is loaded the first time a client
 * needs it (common/wc_dl.h: a run without HTTP never maps its TLS libraries),
 * every call goes through wc_curl()'s table, and curl_global_init runs once
 * for the process. One place says what every request does: no signals, no
 * redirects, http and https only, TLS verified unless the user opted out,
 * bounded connect and total time, an optional body cap, credentials never in
 * a URL.
 */
#ifndef WC_HTTP_H
#define WC_HTTP_H

#include <curl/curl.h>
#include <stdint.h>

#include "common/wc_error.h"

/* The libcurl entry points wattcal calls: field, then libcurl's name. */
#define WC_CURL_FUNCS(X)                                                                 \
    X(global_init, curl_global_init) X(easy_init, curl_easy_init)                        \
    X(easy_setopt, curl_easy_setopt) X(easy_perform, curl_easy_perform)                  \
    X(easy_getinfo, curl_easy_getinfo) X(easy_cleanup, curl_easy_cleanup)                \
    X(easy_strerror, curl_easy_strerror) X(easy_escape, curl_easy_escape)                \
    X(free, curl_free) X(slist_append, curl_slist_append)                                \
    X(slist_free_all, curl_slist_free_all)

/* libcurl's functions as loaded: each field has its libcurl prototype
 * (`wc_curl()->easy_setopt(c, CURLOPT_URL, url)` is curl_easy_setopt). */
typedef struct wc_curl_api {
#define WC_CURL_FIELD(field, sym) __typeof__(sym) *field;
    WC_CURL_FUNCS(WC_CURL_FIELD)
#undef WC_CURL_FIELD
} wc_curl_api;

/* The soname loaded (the Makefile's WC_CURL_SONAME: the one the build's
 * libcurl.so names, "libcurl.so.4" by default). */
#ifndef WC_CURL_SONAME
#define WC_CURL_SONAME "libcurl.so.4"
#endif

/* Loads libcurl and runs curl_global_init, once per process (thread-safe).
 * Returns 0, or -EIO with err saying "who: ..." and why: the library could
 * not be loaded (its path and dlerror's text) or curl_global_init failed.
 * Every later call says the same again. */
int wc_http_global_init(const char *who, wc_error *err);

/* libcurl's table; only after wc_http_global_init returned 0. */
const wc_curl_api *wc_curl(void);

/* What one client asks of its handle. */
typedef struct wc_http_cfg {
    char *errbuf;                /* CURL_ERROR_SIZE bytes for libcurl's message */
    const char *user_agent;      /* NULL: "wattcal" */
    int insecure;                /* 1: TLS certificate and host not verified (the user's opt-out) */
    int no_proxy;                /* 1: never through a proxy (clear-text or loopback requests) */
    int accept_encoding;         /* 1: offer every encoding libcurl decodes (gzip, ...) */
    int64_t connect_timeout_ns;  /* > 0; rounded to whole ms, at least 1 ms */
    int64_t timeout_ns;          /* the whole request; > 0, as above */
    int64_t max_body_bytes;      /* larger bodies are refused; 0: no cap */
    const char *bearer;          /* a bearer token, or NULL */
    const char *user, *password; /* basic auth when user is not NULL (and no bearer) */
    curl_write_callback write;   /* the body sink, and its user data */
    void *write_data;
} wc_http_cfg;

/* Sets c up as cfg says (every option above; the URL and headers stay the
 * caller's). Never fails: every option set is one libcurl has had since
 * 7.55 (the Debian minimum for CURLOPT_PROTOCOLS_STR is handled inside). */
void wc_http_setup(CURL *c, const wc_http_cfg *cfg);

/* ns as whole milliseconds for a libcurl timeout, at least 1. */
long wc_http_ms(int64_t ns);

#endif
