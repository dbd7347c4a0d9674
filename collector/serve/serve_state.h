/*
 * serve_state.h — what `wattcal serve` publishes: the latest tick of the
 * recorder (collector/recorder.h's on_tick) folded into the series of
 * docs/serve-metrics.md, and rendered as a Prometheus exposition for
 * /metrics (expo_write.h).
 *
 * The recorder's thread updates the state once per tick; the HTTP server's
 * thread renders it; one mutex between them (a render copies nothing but
 * the text). Cardinality is bounded: a workload (process, container, pod)
 * no longer seen becomes state="terminated" and is removed expire_ns after
 * it was last seen; at most max_workloads workloads are kept, a new one
 * beyond is refused and counted (wattcal_serve_series_dropped_total).
 * Pod names and namespaces come from the exporter's labels (--exporter) or
 * from wc_serve_state_put_identity (the kubelet's pod list).
 */
#ifndef WC_SERVE_STATE_H
#define WC_SERVE_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "collector/model/attribution.h"
#include "collector/recorder.h"
#include "collector/serve/expo_write.h"
#include "common/wc_error.h"

/* How the state is labelled and bounded. Strings are copied. */
typedef struct wc_serve_config {
    const char *node_name;       /* the node_name label (host name) */
    wc_model model;              /* the model label */
    const char *version;         /* wattcal's version (wattcal_build_info) */
    int64_t expire_ns;           /* terminated workloads are kept this long (> 0) */
    size_t max_workloads;        /* processes + containers + pods kept (>= 1) */
} wc_serve_config;

typedef struct wc_serve_state wc_serve_state;

/* A new, empty state. NULL with err (-EINVAL for a bad config, -ENOMEM). */
wc_serve_state *wc_serve_state_new(const wc_serve_config *cfg, wc_error *err);

/* Folds one recorder tick into the state (wc_record_opts.on_tick; ctx is the
 * state). Never fails: what does not fit (a zone beyond the 8th, a workload
 * beyond the cap) is counted or left out, as documented. */
void wc_serve_state_tick(void *state, const wc_record_tick *t);

/* Records a pod's name and namespace for its uid (the kubelet's pod list);
 * later ones replace earlier ones. Returns 0, -EINVAL for an empty uid, or
 * -ENOSPC when max_workloads identities are already known. */
int wc_serve_state_put_identity(wc_serve_state *s, const char *uid, const char *name,
                                const char *ns);

/* The pod's name and namespace into name/ns (cap bytes each); 1 when known,
 * 0 when not (both ""). */
int wc_serve_state_identity(wc_serve_state *s, const char *uid, char *name, char *ns,
                            size_t cap);

/* Calls each(ctx, uid, name, namespace, source) for every known pod
 * identity (source "exporter" or "kubelet") until it returns non-zero;
 * returns how many were visited completely. */
size_t wc_serve_state_each_identity(wc_serve_state *s,
                                    int (*each)(void *ctx, const char *uid, const char *name,
                                                const char *ns, const char *source),
                                    void *ctx);

/* Ticks folded so far and the monotonic ns of the last (0 before the first). */
int64_t wc_serve_state_ticks(wc_serve_state *s, int64_t *last_mono_ns);

/* Appends the whole exposition to out. Returns 0 or -ENOMEM. */
int wc_serve_state_render(wc_serve_state *s, wc_expow_buf *out);

/* Frees the state (NULL is a no-op). */
void wc_serve_state_free(wc_serve_state *s);

#endif
