/*
 * wc_http.h — the libcurl set-up every wattcal HTTP client shares: the
 * Redfish truth poller (collector/truth/truth_redfish.c), the exporter
 * scraper (collector/exporter/exporter_scrape.c), the Prometheus API client
 * (collector/prom/promapi.c) and serve's kubelet client
 * (collector/serve/kubelet.c). One curl_global_init for the process, and one
 * place that says what every request does: no signals, no redirects, http
 * and https only, TLS verified unless the user opted out, bounded connect
 * and total time, an optional body cap, credentials never in a URL.
 */
#ifndef WC_HTTP_H
#define WC_HTTP_H

#include <curl/curl.h>
#include <stdint.h>

/* Initialises libcurl once per process (thread-safe). Returns 0, or -EIO
 * when curl_global_init failed (every later call says so again). */
int wc_http_global_init(void);

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
