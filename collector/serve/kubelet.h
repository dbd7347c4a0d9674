/*
 * kubelet.h — pod names and namespaces for pod uids from the kubelet's
 * read-only pod list (`wattcal serve --kubelet https://127.0.0.1:10250/pods`),
 * for nodes whose exporter does not label pods (or without --exporter).
 *
 * A thread GETs the URL every interval over libcurl (TLS verified unless
 * insecure; a bearer token from token_file's first line, else the
 * environment's WATTCAL_KUBELET_TOKEN, else none; a URL with user:password@
 * is refused) and hands every item's metadata {uid, name, namespace} to the
 * serve state (wc_serve_state_put_identity). The first read happens before
 * wc_kubelet_start returns, so a wrong URL or token fails at start; later
 * failures are counted (wc_kubelet_failures) and the last good names stay.
 */
#ifndef WC_KUBELET_H
#define WC_KUBELET_H

#include <stddef.h>
#include <stdint.h>

#include "collector/serve/serve_state.h"
#include "common/wc_error.h"

typedef struct wc_kubelet_config {
    const char *url;             /* http[s]://HOST:PORT/pods */
    const char *token_file;      /* NULL: WATTCAL_KUBELET_TOKEN or none */
    int insecure;                /* do not verify TLS */
    int64_t interval_ns;         /* between reads (>= 1 s) */
} wc_kubelet_config;

typedef struct wc_kubelet wc_kubelet;

/* Parses a pod list (JSON: {"items":[{"metadata":{"uid","name","namespace"}}]})
 * into st; returns the number of pods taken, or -EINVAL with err (source
 * names the text) when it is not a pod list. */
int wc_kubelet_parse_pods(const char *json, size_t len, const char *source, wc_serve_state *st,
                          wc_error *err);

/* Reads the pod list once, then starts the thread. NULL with err: -EINVAL
 * for a bad URL, an unreadable token file or a failed first read. */
wc_kubelet *wc_kubelet_start(const wc_kubelet_config *cfg, wc_serve_state *st, wc_error *err);

/* Reads that failed since the start. */
int64_t wc_kubelet_failures(wc_kubelet *k);

/* Stops the thread and frees (the token wiped). NULL is a no-op. */
void wc_kubelet_stop(wc_kubelet *k);

#endif
