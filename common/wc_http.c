/*
 * wc_http.c — the libcurl set-up every wattcal HTTP client shares
 * (wc_http.h): libcurl loaded on first use and one process-wide
 * curl_global_init, and one function that sets
 * the options every request carries, so a TLS or redirect rule is changed
 * in one place for the Redfish poller, the exporter scraper, the Prometheus
 * client and serve's kubelet client alike.
 */
#include "common/wc_http.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "common/wc_dl.h"

static pthread_once_t http_once = PTHREAD_ONCE_INIT;
static wc_curl_api curl_api;
static int http_init_rc = -EIO;
static wc_error http_init_err; /* why loading or initialising failed */

static const wc_dl_sym curl_syms[] = {
#define WC_CURL_SYM(field, sym) {#sym, offsetof(wc_curl_api, field)},
    WC_CURL_FUNCS(WC_CURL_SYM)
#undef WC_CURL_SYM
};

static void http_global(void)
{
    if (wc_dl_load(WC_CURL_SONAME, "the libcurl runtime (Debian 12 package libcurl4)", curl_syms,
                   sizeof curl_syms / sizeof curl_syms[0], &curl_api, &http_init_err))
        return;
    CURLcode c = curl_api.global_init(CURL_GLOBAL_DEFAULT);
    if (c != CURLE_OK) {
        wc_error_set(&http_init_err, -EIO, "libcurl's curl_global_init failed: %s",
                     curl_api.easy_strerror(c));
        return;
    }
    http_init_rc = 0;
}

int wc_http_global_init(const char *who, wc_error *err)
{
    pthread_once(&http_once, http_global);
    if (http_init_rc)
        return wc_error_set(err, -EIO, "%s: %s", who, http_init_err.msg);
    return 0;
}

const wc_curl_api *wc_curl(void)
{
    return &curl_api;
}

long wc_http_ms(int64_t ns)
{
    long ms = (long)(ns / 1000000);
    return ms > 0 ? ms : 1;
}

/* Credentials: a bearer token, else basic auth, else none. */
static void http_auth(CURL *c, const wc_http_cfg *cfg)
{
    if (cfg->bearer && cfg->bearer[0]) {
        curl_api.easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
        curl_api.easy_setopt(c, CURLOPT_XOAUTH2_BEARER, cfg->bearer);
    } else if (cfg->user) {
        curl_api.easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_api.easy_setopt(c, CURLOPT_USERNAME, cfg->user);
        curl_api.easy_setopt(c, CURLOPT_PASSWORD, cfg->password ? cfg->password : "");
    }
}

void wc_http_setup(CURL *c, const wc_http_cfg *cfg)
{
    curl_api.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_api.easy_setopt(c, CURLOPT_ERRORBUFFER, cfg->errbuf);
    curl_api.easy_setopt(c, CURLOPT_USERAGENT, cfg->user_agent ? cfg->user_agent : "wattcal");
    curl_api.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_api.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_api.easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    if (cfg->no_proxy)
        curl_api.easy_setopt(c, CURLOPT_PROXY, "");
    http_auth(c, cfg);
    curl_api.easy_setopt(c, CURLOPT_SSL_VERIFYPEER, cfg->insecure ? 0L : 1L);
    curl_api.easy_setopt(c, CURLOPT_SSL_VERIFYHOST, cfg->insecure ? 0L : 2L);
    curl_api.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, wc_http_ms(cfg->connect_timeout_ns));
    curl_api.easy_setopt(c, CURLOPT_TIMEOUT_MS, wc_http_ms(cfg->timeout_ns));
    if (cfg->max_body_bytes > 0)
        curl_api.easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)cfg->max_body_bytes);
    if (cfg->accept_encoding)
        curl_api.easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    curl_api.easy_setopt(c, CURLOPT_WRITEFUNCTION, cfg->write);
    curl_api.easy_setopt(c, CURLOPT_WRITEDATA, cfg->write_data);
}
