/*
 * serve.c — `wattcal serve` (see serve.h): the web config, the serve state,
 * the HTTP endpoint and the kubelet poller around one recording whose
 * on_tick feeds the state.
 */
#include "collector/serve/serve.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "collector/serve/kubelet.h"
#include "collector/serve/serve_http.h"
#include "collector/serve/serve_state.h"
#include "collector/serve/web_config.h"
#include "collector/store/store.h"
#include "collector/store/store_pod_identity.h"
#include "common/wc_clock.h"

#ifndef WATTCAL_VERSION
#define WATTCAL_VERSION "unknown"
#endif

void wc_serve_defaults(wc_serve_opts *o)
{
    memset(o, 0, sizeof *o);
    wc_record_defaults(&o->record);
    o->listen = WC_SERVE_DEFAULT_LISTEN;
    o->expire_ns = 60 * WC_NS_PER_S;
    o->max_workloads = 5000;
    o->kubelet_interval_ns = 30 * WC_NS_PER_S;
}

/* The state, labelled with the node's name. NULL with err. */
static wc_serve_state *new_state(const wc_serve_opts *o, wc_error *err)
{
    char host[128] = "";
    if (!o->node_name && gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    wc_serve_config cfg = {.node_name = o->node_name ? o->node_name : host,
                           .model = o->record.model, .version = WATTCAL_VERSION,
                           .expire_ns = o->expire_ns, .max_workloads = o->max_workloads};
    return wc_serve_state_new(&cfg, err);
}

typedef struct ident_sink {
    wc_store *st;
    wc_error *err;
    int rc;
} ident_sink;

static int put_one(void *ctx, const char *uid, const char *name, const char *ns,
                   const char *source)
{
    ident_sink *k = ctx;
    k->rc = wc_store_put_pod_identity(k->st, uid, name, ns, source, k->err);
    return k->rc;
}

/* With --db: the pod identities learnt while serving, into the run (one
 * transaction, after the run is closed). */
static int store_identities(const wc_serve_opts *o, wc_serve_state *st, wc_error *err)
{
    if (!o->record.db_path)
        return 0;
    ident_sink k = {.st = wc_store_open(o->record.db_path, WC_STORE_WRITE, err), .err = err};
    if (!k.st)
        return -EIO;
    k.rc = wc_store_begin(k.st, err);
    if (!k.rc)
        wc_serve_state_each_identity(st, put_one, &k);
    if (!k.rc)
        k.rc = wc_store_commit(k.st, err);
    else
        wc_store_rollback(k.st);
    wc_store_close(k.st);
    return k.rc;
}

/* Everything around the recording; the recording itself. */
static int run(const wc_serve_opts *o, const wc_web_config *web, wc_serve_state *st,
               volatile sig_atomic_t *stop, wc_record_result *res, wc_error *err)
{
    wc_kubelet *kl = NULL;
    if (o->kubelet_url) {
        wc_kubelet_config kc = {.url = o->kubelet_url, .token_file = o->kubelet_token_file,
                                .insecure = o->kubelet_insecure,
                                .interval_ns = o->kubelet_interval_ns};
        kl = wc_kubelet_start(&kc, st, err);
        if (!kl)
            return -EINVAL;
    }
    wc_serve_http *h = NULL;
    int rc = wc_serve_http_start(o->listen, web, st, o->record.interval_ns, &h, err);
    if (rc) {
        wc_kubelet_stop(kl);
        return rc;
    }
    if (o->on_listening)
        o->on_listening(o->ctx, wc_serve_http_port(h));
    wc_record_opts rec = o->record;
    rec.on_tick = wc_serve_state_tick;
    rec.ctx = st;
    rc = wc_record(&rec, stop, res, err);
    wc_serve_http_stop(h);
    wc_kubelet_stop(kl);
    return rc ? rc : store_identities(o, st, err);
}

int wc_serve(const wc_serve_opts *o, volatile sig_atomic_t *stop, wc_record_result *res,
             wc_error *err)
{
    memset(res, 0, sizeof *res);
    wc_web_config web;
    memset(&web, 0, sizeof web);
    if (o->web_config) {
        int rc = wc_web_config_load(o->web_config, &web, err);
        if (rc)
            return rc;
    }
    wc_serve_state *st = new_state(o, err);
    if (!st) {
        wc_web_config_free(&web);
        return -EINVAL;
    }
    int rc = run(o, o->web_config ? &web : NULL, st, stop, res, err);
    wc_serve_state_free(st);
    wc_web_config_free(&web);
    return rc;
}
