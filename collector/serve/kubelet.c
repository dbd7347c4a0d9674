/*
 * kubelet.c — the kubelet's pod list into the serve state (see kubelet.h).
 */
#include "collector/serve/kubelet.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_clock.h"
#include "common/wc_fs.h"
#include "common/wc_http.h"
#include "common/wc_text.h"

#define KUBELET_MAX_BODY (64u << 20)

struct wc_kubelet {
    char url[1024];
    char token[4096];
    int insecure;
    int64_t interval_ns;
    wc_serve_state *st;
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop;
    int64_t failures;
};

int wc_kubelet_parse_pods(const char *json, size_t len, const char *source, wc_serve_state *st,
                          wc_error *err)
{
    cJSON *root = cJSON_ParseWithLength(json, len);
    cJSON *items = root ? cJSON_GetObjectItemCaseSensitive(root, "items") : NULL;
    if (!cJSON_IsArray(items)) {
        cJSON_Delete(root);
        return wc_error_set(err, -EINVAL, "%s: not a pod list (no \"items\" array)", source);
    }
    int n = 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, items) {
        const cJSON *md = cJSON_GetObjectItemCaseSensitive(it, "metadata");
        const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "uid"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "name"));
        const char *ns = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "namespace"));
        if (uid && *uid && wc_serve_state_put_identity(st, uid, name, ns) == 0)
            n++;
    }
    cJSON_Delete(root);
    return n;
}

typedef struct body {
    char *data;
    size_t len;
    int too_big;
} body;

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
    body *b = ctx;
    size_t k = size * n;
    if (b->len + k > KUBELET_MAX_BODY) {
        b->too_big = 1;
        return 0;
    }
    char *d = realloc(b->data, b->len + k + 1);
    if (!d)
        return 0;
    memcpy(d + b->len, p, k);
    b->data = d;
    b->len += k;
    d[b->len] = '\0';
    return k;
}

/* One GET of the pod list into the state. 0 or -errno with err. */
static int read_once(wc_kubelet *k, wc_error *err)
{
    int hrc = wc_http_global_init("--kubelet", err);
    if (hrc)
        return hrc;
    CURL *c = wc_curl()->easy_init();
    if (!c)
        return wc_error_set(err, -ENOMEM, "--kubelet: out of memory");
    body b = {0};
    char errbuf[CURL_ERROR_SIZE] = "";
    wc_curl()->easy_setopt(c, CURLOPT_URL, k->url);
    wc_http_cfg h = {.errbuf = errbuf, .insecure = k->insecure,
                     .connect_timeout_ns = 3 * WC_NS_PER_S, .timeout_ns = 10 * WC_NS_PER_S,
                     .bearer = k->token[0] ? k->token : NULL, .write = on_body, .write_data = &b};
    wc_http_setup(c, &h);
    CURLcode cc = wc_curl()->easy_perform(c);
    long status = 0;
    wc_curl()->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    wc_curl()->easy_cleanup(c);
    int rc = 0;
    if (cc != CURLE_OK)
        rc = wc_error_set(err, -EIO, "--kubelet %s: %s", k->url,
                          b.too_big ? "answer above 64 MiB" : errbuf[0] ? errbuf
                                                                         : wc_curl()->easy_strerror(cc));
    else if (status != 200)
        rc = wc_error_set(err, -EIO, "--kubelet %s: HTTP %ld", k->url, status);
    else
        rc = wc_kubelet_parse_pods(b.data ? b.data : "", b.len, k->url, k->st, err);
    free(b.data);
    return rc < 0 ? rc : 0;
}

static void *loop(void *arg)
{
    wc_kubelet *k = arg;
    pthread_mutex_lock(&k->mu);
    while (!k->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t when = (int64_t)ts.tv_sec * WC_NS_PER_S + ts.tv_nsec + k->interval_ns;
        ts.tv_sec = when / WC_NS_PER_S;
        ts.tv_nsec = when % WC_NS_PER_S;
        while (!k->stop && pthread_cond_timedwait(&k->cv, &k->mu, &ts) == 0)
            ;
        if (k->stop)
            break;
        pthread_mutex_unlock(&k->mu);
        int rc = read_once(k, NULL);
        pthread_mutex_lock(&k->mu);
        k->failures += rc != 0;
    }
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

/* The bearer token: token_file's first line, else WATTCAL_KUBELET_TOKEN. */
static int load_token(wc_kubelet *k, const char *file, wc_error *err)
{
    if (!file) {
        const char *env = getenv("WATTCAL_KUBELET_TOKEN");
        wc_copy_trunc(k->token, sizeof k->token, env ? env : "");
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    int rc = wc_read_all(file, &text, &len, err);
    if (rc)
        return wc_error_set(err, rc, "--kubelet-token-file %s: %s", file, strerror(-rc));
    text[strcspn(text, "\r\n")] = '\0';
    wc_copy_trunc(k->token, sizeof k->token, text);
    explicit_bzero(text, len);
    free(text);
    if (!k->token[0])
        return wc_error_set(err, -EINVAL, "--kubelet-token-file %s: empty", file);
    return 0;
}

/* http[s]:// and no credentials in it. */
static int check_url(const char *url, wc_error *err)
{
    if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
        return wc_error_set(err, -EINVAL, "--kubelet: expected http[s]://HOST:PORT/pods");
    const char *host = strstr(url, "://") + 3;
    const char *at = strchr(host, '@'), *slash = strchr(host, '/');
    if (at && (!slash || at < slash))
        return wc_error_set(err, -EINVAL, "--kubelet: a URL with credentials in it is refused "
                            "(use --kubelet-token-file)");
    if (strlen(url) >= 1024)
        return wc_error_set(err, -EINVAL, "--kubelet: URL too long");
    return 0;
}

static int init_sync(wc_kubelet *k)
{
    pthread_condattr_t a;
    if (pthread_condattr_init(&a) || pthread_condattr_setclock(&a, CLOCK_MONOTONIC))
        return -ENOMEM;
    int rc = pthread_cond_init(&k->cv, &a) || pthread_mutex_init(&k->mu, NULL) ? -ENOMEM : 0;
    pthread_condattr_destroy(&a);
    return rc;
}

wc_kubelet *wc_kubelet_start(const wc_kubelet_config *cfg, wc_serve_state *st, wc_error *err)
{
    if (check_url(cfg->url, err))
        return NULL;
    wc_kubelet *k = calloc(1, sizeof *k);
    if (!k || init_sync(k)) {
        free(k);
        wc_error_set(err, -ENOMEM, "--kubelet: out of memory");
        return NULL;
    }
    wc_copy_trunc(k->url, sizeof k->url, cfg->url);
    k->insecure = cfg->insecure;
    k->interval_ns = cfg->interval_ns >= WC_NS_PER_S ? cfg->interval_ns : WC_NS_PER_S;
    k->st = st;
    int rc = load_token(k, cfg->token_file, err);
    if (!rc)
        rc = read_once(k, err);
    if (!rc && pthread_create(&k->thread, NULL, loop, k) != 0)
        rc = wc_error_set(err, -EAGAIN, "--kubelet: cannot start a thread");
    if (rc) {
        wc_kubelet_stop(k);
        return NULL;
    }
    k->started = 1;
    return k;
}

int64_t wc_kubelet_failures(wc_kubelet *k)
{
    pthread_mutex_lock(&k->mu);
    int64_t n = k->failures;
    pthread_mutex_unlock(&k->mu);
    return n;
}

void wc_kubelet_stop(wc_kubelet *k)
{
    if (!k)
        return;
    if (k->started) {
        pthread_mutex_lock(&k->mu);
        k->stop = 1;
        pthread_cond_signal(&k->cv);
        pthread_mutex_unlock(&k->mu);
        pthread_join(k->thread, NULL);
    }
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->mu);
    explicit_bzero(k->token, sizeof k->token);
    free(k);
}
