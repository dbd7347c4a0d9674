/*
 * serve.h — `wattcal serve`: a second-opinion exporter. The recorder
 * (collector/recorder.h) samples exactly as `wattcal record` does (same
 * meters, /proc, model, truth pollers, optional --exporter scrapes), with or
 * without a run database (--db), and hands every tick to the serve state
 * (serve_state.h), which the HTTP endpoint (serve_http.h) publishes on
 * /metrics as docs/serve-metrics.md describes. Pod names come from the
 * exporter's labels or the kubelet (kubelet.h).
 */
#ifndef WC_SERVE_H
#define WC_SERVE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/recorder.h"
#include "common/wc_error.h"

/* Options of `wattcal serve` (record's, plus the endpoint's). */
typedef struct wc_serve_opts {
    wc_record_opts record;       /* record.db_path NULL: nothing stored */
    const char *listen;          /* "ADDR:PORT"; default WC_SERVE_DEFAULT_LISTEN */
    const char *web_config;      /* exporter-toolkit web config (TLS, basic auth) or NULL */
    const char *node_name;       /* the node_name label; NULL: the host name */
    int64_t expire_ns;           /* terminated workloads kept this long (default 60 s) */
    size_t max_workloads;        /* default 5000 */
    const char *kubelet_url;     /* the kubelet's pod list (https://127.0.0.1:10250/pods) or NULL */
    const char *kubelet_token_file; /* bearer token; NULL: WATTCAL_KUBELET_TOKEN or none */
    int kubelet_insecure;        /* do not verify the kubelet's certificate */
    int64_t kubelet_interval_ns; /* how often the pod list is read (default 30 s) */
    void (*on_listening)(void *ctx, int port); /* once bound (the port actually bound) */
    void *ctx;
} wc_serve_opts;

/* Fills o with the defaults (record's, 127.0.0.1:9877, 60 s, 5000, 30 s). */
void wc_serve_defaults(wc_serve_opts *o);

/* Serves until *stop becomes non-zero (or record.duration_ns elapses).
 * Returns 0; -EINVAL (bad --listen, --web-config, --kubelet), -EADDRINUSE
 * and other -errno of bind with err; otherwise what wc_record returns. */
int wc_serve(const wc_serve_opts *o, volatile sig_atomic_t *stop, wc_record_result *res,
             wc_error *err);

#endif
