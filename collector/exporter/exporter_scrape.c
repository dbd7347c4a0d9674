/*
 * exporter_scrape.c — one scraping thread per exporter (see
 * exporter_scrape.h): the libcurl GET, the parse of an answer into a
 * wc_scrape, the bounded queue the sampler drains, and the series set that
 * scrapes share.
 *
 * Threads sleep on a condition variable bound to the monotonic clock, and a
 * request in progress watches the stop flag through libcurl's progress
 * callback, so stopping wakes and aborts them at once. The series set is
 * reference-counted: each scrape holds it, and the thread holds the current
 * one; when a set grows past SET_MAX series (a node whose processes churn
 * for days) the thread starts a new one and the old one goes with its last
 * scrape, so memory stays bounded without a scrape ever pointing at a freed
 * series.
 */
#include "collector/exporter/exporter_scrape.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector/exporter/exporter_table.h"
#include "common/wc_clock.h"
#include "common/wc_fs.h"
#include "common/wc_http.h"
#include "common/wc_text.h"

#define MAX_BACKOFF_NS (60 * WC_NS_PER_S)
#define SET_MAX 100000               /* series of one set before the next one starts */
#define LABELS_FIRST (64 * 1024)     /* canonical label text buffer, grown on -ENOSPC */
#define LABELS_MAX (4 * 1024 * 1024)
#define MAX_METERS 256               /* node energy series looked at for the power source */

/* ---- the series set -------------------------------------------------------- */

/* A series' meaning, packed: the enums, then each string field of
 * wc_kep_fact only as long as it is (a wc_kep_fact is ~1.4 KB, mostly empty
 * fixed arrays; 200,000 series of it cost 280 MB). */
struct wc_kep_packed {
    wc_kep_level level;
    wc_kep_quantity quantity;
    wc_kep_device device;
    wc_kep_layout layout;
    wc_kep_meter meter;
    uint32_t off[11];            /* each string's offset in blob (order of FACT_STR) */
    char blob[];
};

/* The string fields of wc_kep_fact, in the packed order. */
static const struct { size_t off, cap; } FACT_STR[] = {
#define FS(f) {offsetof(wc_kep_fact, f), sizeof ((wc_kep_fact *)0)->f}
    FS(zone), FS(key), FS(parent), FS(name), FS(ns), FS(state), FS(path), FS(node),
    FS(version), FS(revision), FS(source)
#undef FS
};
#define NSTR (sizeof FACT_STR / sizeof *FACT_STR)
enum { STR_NODE = 7, STR_VERSION = 8, STR_REVISION = 9 };

/* A malloc'd packed copy of f; NULL on -ENOMEM. */
static struct wc_kep_packed *fact_pack(const wc_kep_fact *f)
{
    size_t len[NSTR], total = 0;
    for (size_t i = 0; i < NSTR; i++) {
        const char *src = (const char *)f + FACT_STR[i].off;
        len[i] = strnlen(src, FACT_STR[i].cap - 1);
        total += len[i] + 1;
    }
    struct wc_kep_packed *p = malloc(sizeof *p + total);
    if (!p)
        return NULL;
    *p = (struct wc_kep_packed){.level = f->level, .quantity = f->quantity,
                                .device = f->device, .layout = f->layout, .meter = f->meter};
    size_t at = 0;
    for (size_t i = 0; i < NSTR; i++) {
        p->off[i] = (uint32_t)at;
        memcpy(p->blob + at, (const char *)f + FACT_STR[i].off, len[i]);
        p->blob[at + len[i]] = '\0';
        at += len[i] + 1;
    }
    return p;
}

int wc_scrape_series_fact(const wc_scrape_series *s, wc_kep_fact *out)
{
    const struct wc_kep_packed *p = s->packed;
    if (!p)
        return 0;
    memset(out, 0, sizeof *out);
    out->level = p->level;
    out->quantity = p->quantity;
    out->device = p->device;
    out->layout = p->layout;
    out->meter = p->meter;
    for (size_t i = 0; i < NSTR; i++)
        wc_copy_trunc((char *)out + FACT_STR[i].off, FACT_STR[i].cap, p->blob + p->off[i]);
    return 1;
}

typedef struct series_entry {
    uint64_t hash;
    size_t klen;                 /* bytes of key: metric '\0' labels '\0' */
    wc_scrape_series pub;        /* pub.packed: NULL when not the exporter's series */
    char key[];
} series_entry;

struct wc_series_set {
    atomic_int refs;
    series_entry **slots;        /* open addressing, cap a power of two */
    size_t cap, n;
};

static struct wc_series_set *set_new(void)
{
    struct wc_series_set *s = calloc(1, sizeof *s);
    if (s)
        atomic_init(&s->refs, 1);
    return s;
}

static void set_unref(struct wc_series_set *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i]) {
            free((void *)s->slots[i]->pub.packed);
            free(s->slots[i]);
        }
    free(s->slots);
    free(s);
}

static uint64_t fnv(const char *k, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)k[i]) * 1099511628211ULL;
    return h;
}

/* The slot holding key, or the empty slot where it goes. */
static series_entry **set_slot(struct wc_series_set *s, uint64_t h, const char *key, size_t len)
{
    for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        series_entry *e = s->slots[i];
        if (!e || (e->hash == h && e->klen == len && memcmp(e->key, key, len) == 0))
            return &s->slots[i];
    }
}

static int set_grow(struct wc_series_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 1024, old_cap = s->cap;
    series_entry **old = s->slots, **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -ENOMEM;
    s->slots = slots;
    s->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            *set_slot(s, old[i]->hash, old[i]->key, old[i]->klen) = old[i];
    free(old);
    return 0;
}

/* A new entry for key (metric, labels), classified. NULL on -ENOMEM. */
static series_entry *entry_new(const char *key, size_t len, size_t mlen, uint64_t h,
                               const wc_expo_sample *smp,
                               int (*classify)(const wc_expo_sample *, wc_kep_fact *))
{
    series_entry *e = malloc(sizeof *e + len);
    if (!e)
        return NULL;
    e->hash = h;
    e->klen = len;
    memcpy(e->key, key, len);
    e->pub.metric = e->key;
    e->pub.labels = e->key + mlen + 1;
    e->pub.packed = NULL;
    wc_kep_fact f; /* on the stack: only its packed copy is kept */
    if (classify && classify(smp, &f) && !(e->pub.packed = fact_pack(&f))) {
        free(e);
        return NULL;
    }
    return e;
}

/* The shared series of (metric, labels); made and classified when new. */
static const wc_scrape_series *set_intern(struct wc_series_set *s, const char *key, size_t len,
                                          size_t mlen, const wc_expo_sample *smp,
                                          int (*classify)(const wc_expo_sample *, wc_kep_fact *))
{
    uint64_t h = fnv(key, len);
    if (s->cap) {
        series_entry *e = *set_slot(s, h, key, len);
        if (e)
            return &e->pub;
    }
    if ((s->n + 1) * 2 > s->cap && set_grow(s) != 0)
        return NULL;
    series_entry *e = entry_new(key, len, mlen, h, smp, classify);
    if (!e)
        return NULL;
    *set_slot(s, h, key, len) = e;
    s->n++;
    return &e->pub;
}

/* ---- parsing one answer ------------------------------------------------------ */

typedef struct parse_ctx {
    wc_scrape *sc;
    struct wc_series_set *set;
    int (*classify)(const wc_expo_sample *, wc_kep_fact *);
    char *key;                   /* metric '\0' canonical labels '\0' */
    size_t key_cap;
    size_t values_cap;
    wc_kep_meter meters[MAX_METERS];
    size_t nmeters;
} parse_ctx;

const char *wc_scrape_status_name(wc_scrape_status s)
{
    static const char *const N[] = {"ok", "error", "parse_error", "capped"};
    return (size_t)s < sizeof N / sizeof *N ? N[s] : "error";
}

void wc_scrape_free(wc_scrape *sc)
{
    if (!sc)
        return;
    free(sc->values);
    set_unref(sc->set);
    free(sc);
}

/* Writes "metric\0{labels}\0" into ctx->key; returns its length or -ENOMEM. */
static long make_key(parse_ctx *c, const wc_expo_sample *s, size_t *mlen)
{
    *mlen = strlen(s->name);
    for (;;) {
        if (c->key_cap < *mlen + 2) {
            c->key_cap = 0;
        } else {
            memcpy(c->key, s->name, *mlen + 1);
            int n = wc_expo_labels_canonical(s->labels, s->nlabels, c->key + *mlen + 1,
                                             c->key_cap - *mlen - 1);
            if (n >= 0)
                return (long)(*mlen + (size_t)n + 2);
        }
        size_t cap = c->key_cap ? c->key_cap * 4 : LABELS_FIRST + *mlen;
        char *k = cap <= LABELS_MAX ? realloc(c->key, cap) : NULL;
        if (!k)
            return -ENOMEM;
        c->key = k;
        c->key_cap = cap;
    }
}

/* What a classified sample tells about the exporter. */
static void learn(parse_ctx *c, const struct wc_kep_packed *f)
{
    wc_exporter_learnt *l = &c->sc->learnt;
    if (f->level == WC_KEP_BUILD_INFO) {
        wc_copy_trunc(l->version, sizeof l->version, f->blob + f->off[STR_VERSION]);
        wc_copy_trunc(l->revision, sizeof l->revision, f->blob + f->off[STR_REVISION]);
        return;
    }
    const char *node = f->blob + f->off[STR_NODE];
    if (!l->node[0] && node[0])
        wc_copy_trunc(l->node, sizeof l->node, node);
    if (f->level < WC_KEP_NODE || f->level > WC_KEP_VM)
        return;
    if (!l->layout[0])
        wc_copy_trunc(l->layout, sizeof l->layout, wc_kep_layout_name(f->layout));
    int energy = f->quantity == WC_KEP_JOULES || f->quantity == WC_KEP_ACTIVE_JOULES ||
                 f->quantity == WC_KEP_IDLE_JOULES || f->quantity == WC_KEP_DYNAMIC_JOULES;
    if (f->level == WC_KEP_NODE && f->device == WC_KEP_CPU && energy && c->nmeters < MAX_METERS)
        c->meters[c->nmeters++] = f->meter;
}

/* The parser's callback: one sample into the scrape. */
static int on_sample(void *ctx, const wc_expo_sample *s)
{
    parse_ctx *c = ctx;
    size_t mlen = 0;
    long len = make_key(c, s, &mlen);
    const wc_scrape_series *ser =
        len < 0 ? NULL : set_intern(c->set, c->key, (size_t)len, mlen, s, c->classify);
    if (!ser)
        return -ENOMEM;
    wc_scrape *sc = c->sc;
    if (sc->nvalues == c->values_cap) {
        size_t cap = c->values_cap ? c->values_cap * 2 : 1024;
        wc_scrape_value *v = realloc(sc->values, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        sc->values = v;
        c->values_cap = cap;
    }
    sc->values[sc->nvalues++] = (wc_scrape_value){.series = ser, .value = s->value,
                                                  .has_ts = s->has_timestamp,
                                                  .ts_ms = s->timestamp_ms};
    if (ser->packed)
        learn(c, ser->packed);
    return 0;
}

/* A failed parse keeps nothing of the body. */
static void discard(wc_scrape *sc, wc_scrape_status status, const char *why)
{
    char msg[sizeof sc->error];
    wc_textf(msg, sizeof msg, "%s (%zu samples before it discarded)", why, sc->nvalues);
    memcpy(sc->error, msg, sizeof msg);
    free(sc->values);
    sc->values = NULL;
    sc->nvalues = 0;
    memset(&sc->learnt, 0, sizeof sc->learnt);
    sc->status = status;
}

int wc_scrape_parse_body(wc_scrape *sc, const char *body, size_t len, const char *content_type,
                         const char *source, int (*classify)(const wc_expo_sample *, wc_kep_fact *),
                         struct wc_series_set *set, size_t max_body)
{
    if (set)
        atomic_fetch_add(&set->refs, 1);
    else if (!(set = set_new()))
        return -ENOMEM;
    set_unref(sc->set);
    sc->set = set;
    parse_ctx c = {.sc = sc, .set = set, .classify = classify};
    wc_expo_limits lim = {.max_body = max_body};
    wc_expo_stats st;
    wc_error perr = {{0}};
    int rc = wc_expo_parse(body ? body : "", len, wc_expo_format_of(content_type), source, &lim,
                           on_sample, &c, &st, &perr);
    free(c.key);
    if (rc == -ENOMEM) {
        discard(sc, WC_SCRAPE_ERROR, "out of memory parsing the answer");
        return -ENOMEM;
    }
    sc->status = WC_SCRAPE_OK;
    if (!rc && sc->nvalues == 0) { /* Kepler always exports its build info */
        wc_textf(perr.msg, sizeof perr.msg, "%.160s: an empty answer (%zu bytes, no sample): "
                 "not an exporter's exposition", source, len);
        rc = -EPROTO;
    }
    if (rc)
        discard(sc, rc == -EFBIG ? WC_SCRAPE_ERROR : WC_SCRAPE_PARSE_ERROR, perr.msg);
    else if (st.series_dropped) {
        sc->status = WC_SCRAPE_CAPPED;
        wc_copy_trunc(sc->error, sizeof sc->error, st.warning);
    }
    if (!rc && c.nmeters)
        wc_copy_trunc(sc->learnt.power_source, sizeof sc->learnt.power_source,
                      wc_kepler_power_source(c.meters, c.nmeters));
    return 0;
}

/* ---- the scraper ------------------------------------------------------------- */

typedef struct worker {
    struct wc_exporter_scraper *owner;
    size_t index;
    const char *url;             /* into the spec, past "kind:" */
    const wc_exporter_kind *kind;
    CURL *curl;
    struct curl_slist *headers;
    char errbuf[CURL_ERROR_SIZE];
    char *body;
    size_t len, cap;
    int overflow;
    struct wc_series_set *set;
    size_t last_n;               /* samples of the last answer parsed */
    pthread_t thread;
    int started;
} worker;

struct wc_exporter_scraper {
    wc_exporter_config cfg;
    worker *workers;
    size_t n;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_int stopping;
    wc_scrape **queue;           /* ring of cfg.queue_max */
    size_t head, count;
    int64_t dropped;
    char auth[4200];             /* "Authorization: Bearer ..." or "" (wiped at free) */
    char user[256], password[256];
};

void wc_exporter_config_defaults(wc_exporter_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->interval_ns = 5 * WC_NS_PER_S;
    cfg->max_body = (size_t)64 << 20;
    cfg->queue_max = 64;
}

int64_t wc_exporter_backoff_ns(int64_t interval_ns, int failures)
{
    int64_t d = interval_ns > 0 ? interval_ns : WC_NS_PER_S;
    for (int k = 0; k < failures && d < MAX_BACKOFF_NS; k++)
        d *= 2;
    return d < MAX_BACKOFF_NS ? d : MAX_BACKOFF_NS;
}

/* Adds a finished scrape; a full queue drops its oldest (counted). */
static void enqueue(wc_exporter_scraper *s, wc_scrape *sc)
{
    pthread_mutex_lock(&s->lock);
    size_t max = s->cfg.queue_max;
    if (s->count == max) {
        wc_scrape_free(s->queue[s->head]);
        s->head = (s->head + 1) % max;
        s->count--;
        s->dropped++;
    }
    s->queue[(s->head + s->count) % max] = sc;
    s->count++;
    pthread_mutex_unlock(&s->lock);
}

size_t wc_exporter_scraper_drain(wc_exporter_scraper *s, wc_scrape ***out)
{
    *out = NULL;
    if (!s)
        return 0;
    pthread_mutex_lock(&s->lock);
    size_t n = s->count;
    wc_scrape **a = n ? malloc(n * sizeof *a) : NULL;
    if (a) {
        for (size_t i = 0; i < n; i++)
            a[i] = s->queue[(s->head + i) % s->cfg.queue_max];
        s->head = s->count = 0;
    }
    pthread_mutex_unlock(&s->lock);
    *out = a;
    return a ? n : 0; /* out of memory: they stay queued for the next tick */
}

int64_t wc_exporter_scraper_dropped(wc_exporter_scraper *s)
{
    if (!s)
        return 0;
    pthread_mutex_lock(&s->lock);
    int64_t d = s->dropped;
    pthread_mutex_unlock(&s->lock);
    return d;
}

/* Waits until the absolute monotonic deadline or stop; 1 when stopping. */
static int wait_until(wc_exporter_scraper *s, int64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = deadline_ns / WC_NS_PER_S,
                          .tv_nsec = deadline_ns % WC_NS_PER_S};
    pthread_mutex_lock(&s->lock);
    while (!atomic_load(&s->stopping) && wc_mono_ns() < deadline_ns)
        if (pthread_cond_timedwait(&s->wake, &s->lock, &ts) == ETIMEDOUT)
            break;
    pthread_mutex_unlock(&s->lock);
    return atomic_load(&s->stopping);
}

/* libcurl body callback: keeps at most max_body bytes, then aborts. */
static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
    worker *w = userp;
    size_t n = size * nmemb;
    if (w->len + n > w->owner->cfg.max_body) {
        w->overflow = 1;
        return 0;
    }
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 65536;
        while (cap < w->len + n + 1)
            cap *= 2;
        char *b = realloc(w->body, cap);
        if (!b)
            return 0;
        w->body = b;
        w->cap = cap;
    }
    memcpy(w->body + w->len, data, n);
    w->len += n;
    w->body[w->len] = '\0';
    return n;
}

/* libcurl progress callback: aborts a request when the run stops. */
static int on_progress(void *userp, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)dn, (void)ut, (void)un;
    worker *w = userp;
    return atomic_load(&w->owner->stopping) ? 1 : 0;
}

/* The reason a transfer failed, naming the URL. */
static void transfer_error(worker *w, CURLcode c, wc_scrape *sc)
{
    const char *detail = w->errbuf[0] ? w->errbuf : wc_curl()->easy_strerror(c);
    const wc_exporter_config *cfg = &w->owner->cfg;
    char *e = sc->error;
    size_t cap = sizeof sc->error;
    sc->cancelled = c == CURLE_ABORTED_BY_CALLBACK;
    if (sc->cancelled)
        wc_textf(e, cap, "%.160s: cancelled: the run ended during the request", w->url);
    else if (c == CURLE_OPERATION_TIMEDOUT)
        wc_textf(e, cap, "%.160s: timed out after %g s (%s)", w->url,
                 (double)cfg->timeout_ns / 1e9, detail);
    else if (c == CURLE_COULDNT_CONNECT)
        wc_textf(e, cap, "%.160s: connection failed (%s)", w->url, detail);
    else if (c == CURLE_PEER_FAILED_VERIFICATION || c == CURLE_SSL_CONNECT_ERROR ||
             c == CURLE_SSL_CERTPROBLEM || c == CURLE_SSL_CACERT_BADFILE)
        wc_textf(e, cap, "%.160s: TLS failed (%s); for a lab exporter with a self-signed "
                 "certificate only, pass --insecure", w->url, detail);
    else if (w->overflow || c == CURLE_FILESIZE_EXCEEDED)
        wc_textf(e, cap, "%.160s: answer larger than %zu bytes: refused", w->url,
                 cfg->max_body);
    else
        wc_textf(e, cap, "%.160s: %s", w->url, detail);
}

/* An HTTP answer other than 200: its status and the start of its body. */
static void http_error(worker *w, wc_scrape *sc)
{
    char excerpt[81];
    size_t n = w->len < sizeof excerpt - 1 ? w->len : sizeof excerpt - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)w->body[i];
        excerpt[i] = ch < 0x20 || ch >= 0x7f ? ' ' : (char)ch;
    }
    while (n > 0 && excerpt[n - 1] == ' ')
        n--;
    excerpt[n] = '\0';
    wc_textf(sc->error, sizeof sc->error, "%.160s: HTTP %d%s%s", w->url, sc->http_status,
             n ? ": " : "", excerpt);
}

/* A series set with room: the worker's, or a new one once it holds more than
 * SET_MAX series and more than twice the last answer's (churn, not a big
 * exporter: 200,000 steady series keep one set instead of a new one each
 * scrape). */
static int worker_set(worker *w)
{
    if (w->set && (w->set->n < SET_MAX || w->set->n < 2 * w->last_n))
        return 0;
    set_unref(w->set);
    w->set = set_new();
    return w->set ? 0 : -ENOMEM;
}

/* The answer of a completed transfer into sc. */
static void answer(worker *w, wc_scrape *sc)
{
    long status = 0;
    wc_curl()->easy_getinfo(w->curl, CURLINFO_RESPONSE_CODE, &status);
    sc->http_status = (int)status;
    if (status != 200) {
        sc->status = WC_SCRAPE_ERROR;
        http_error(w, sc);
        return;
    }
    char *ct = NULL;
    wc_curl()->easy_getinfo(w->curl, CURLINFO_CONTENT_TYPE, &ct);
    if (worker_set(w) != 0 ||
        wc_scrape_parse_body(sc, w->body, w->len, ct, w->url, w->kind->classify, w->set,
                             w->owner->cfg.max_body) != 0) {
        sc->status = WC_SCRAPE_ERROR;
        wc_textf(sc->error, sizeof sc->error, "%.160s: out of memory for the answer", w->url);
    }
    w->last_n = sc->nvalues;
}

/* One GET and its outcome; NULL only when out of memory. */
static wc_scrape *scrape_once(worker *w)
{
    wc_scrape *sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    sc->exporter = w->index;
    w->len = 0;
    w->overflow = 0;
    w->errbuf[0] = '\0';
    sc->req_mono_ns = wc_mono_ns();
    sc->req_wall_ns = wc_wall_ns();
    CURLcode c = wc_curl()->easy_perform(w->curl);
    sc->resp_mono_ns = wc_mono_ns();
    sc->resp_wall_ns = wc_wall_ns();
    sc->bytes = (int64_t)w->len;
    if (c != CURLE_OK) {
        sc->status = WC_SCRAPE_ERROR;
        transfer_error(w, c, sc);
    } else {
        answer(w, sc);
    }
    return sc;
}

static void *scrape_loop(void *arg)
{
    worker *w = arg;
    wc_exporter_scraper *s = w->owner;
    int64_t interval = s->cfg.interval_ns;
    int failures = 0;
    int64_t next = wc_mono_ns();
    while (!wait_until(s, next)) {
        wc_scrape *sc = scrape_once(w);
        int ok = sc && (sc->status == WC_SCRAPE_OK || sc->status == WC_SCRAPE_CAPPED);
        if (sc)
            enqueue(s, sc);
        int64_t now = wc_mono_ns();
        if (!ok) {
            failures++;
            next = now + wc_exporter_backoff_ns(interval, failures);
        } else {
            failures = 0;
            next += interval;
            if (next <= now) /* a slow exporter: keep the grid, skip missed scrapes */
                next = now + interval - (now - next) % interval;
        }
    }
    return NULL;
}

/* ---- setting up -------------------------------------------------------------- */

/* The credentials: a bearer token (file, else environment), else basic auth
 * from the environment, else none. */
static int load_credentials(wc_exporter_scraper *s, wc_error *err)
{
    char token[4096] = "";
    const char *env = getenv("WATTCAL_EXPORTER_TOKEN");
    if (s->cfg.token_file) {
        int rc = wc_read_secret(s->cfg.token_file, token, sizeof token, err);
        if (rc)
            return wc_error_prefix(err, -EINVAL, "--exporter-token-file: ");
    } else if (env && *env) {
        wc_copy_trunc(token, sizeof token, env);
    }
    if (token[0])
        wc_textf(s->auth, sizeof s->auth, "Authorization: Bearer %s", token);
    memset(token, 0, sizeof token);
    const char *user = getenv("WATTCAL_EXPORTER_USER"), *pw = getenv("WATTCAL_EXPORTER_PASSWORD");
    if (!s->auth[0] && user && *user) {
        wc_copy_trunc(s->user, sizeof s->user, user);
        wc_copy_trunc(s->password, sizeof s->password, pw ? pw : "");
    }
    return 0;
}

/* Protocols, timeouts, TLS, size cap, callbacks and credentials of one
 * exporter's handle. */
static void curl_options(worker *w, const wc_exporter_scraper *s)
{
    CURL *c = w->curl;
    const wc_exporter_config *cfg = &s->cfg;
    wc_curl()->easy_setopt(c, CURLOPT_URL, w->url);
    wc_curl()->easy_setopt(c, CURLOPT_HTTPHEADER, w->headers);
    /* a node-local exporter over http: never via a proxy */
    wc_http_cfg h = {.errbuf = w->errbuf, .insecure = cfg->insecure,
                     .no_proxy = strncmp(w->url, "http://", 7) == 0, .accept_encoding = 1,
                     .connect_timeout_ns = cfg->connect_timeout_ns, .timeout_ns = cfg->timeout_ns,
                     .max_body_bytes = (int64_t)cfg->max_body,
                     .user = s->user[0] ? s->user : NULL, .password = s->password,
                     .write = on_body, .write_data = w};
    wc_http_setup(c, &h);
    wc_curl()->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    wc_curl()->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    wc_curl()->easy_setopt(c, CURLOPT_XFERINFODATA, w);
}

/* One exporter's handle and headers. */
static int worker_init(worker *w, wc_exporter_scraper *s, size_t i, const char *spec,
                       wc_error *err)
{
    w->owner = s;
    w->index = i;
    w->kind = wc_exporter_kind_find(spec, &w->url);
    w->curl = wc_curl()->easy_init();
    w->headers = wc_curl()->slist_append(NULL, "Accept: text/plain;version=0.0.4;q=1,"
                                         "application/openmetrics-text;version=1.0.0;q=0.5,"
                                         "*/*;q=0.1");
    if (w->headers && s->auth[0]) {
        struct curl_slist *h = wc_curl()->slist_append(w->headers, s->auth);
        if (!h) { /* the list stays as it was: free it */
            wc_curl()->slist_free_all(w->headers);
            w->headers = NULL;
        }
    }
    if (!w->curl || !w->headers)
        return wc_error_set(err, -ENOMEM, "--exporter: out of memory setting up libcurl");
    curl_options(w, s);
    return 0;
}

void wc_exporter_config_settle(wc_exporter_config *c)
{
    if (c->interval_ns <= 0)
        c->interval_ns = 5 * WC_NS_PER_S;
    if (c->timeout_ns <= 0)
        c->timeout_ns = c->interval_ns < 10 * WC_NS_PER_S ? c->interval_ns : 10 * WC_NS_PER_S;
    if (c->connect_timeout_ns <= 0)
        c->connect_timeout_ns = 3 * WC_NS_PER_S;
    if (c->connect_timeout_ns > c->timeout_ns)
        c->connect_timeout_ns = c->timeout_ns;
    if (!c->max_body)
        c->max_body = (size_t)64 << 20;
    if (!c->queue_max)
        c->queue_max = 64;
}

/* Specs, libcurl, credentials, handles; the scraper is freed by the caller on error. */
static int scraper_init(wc_exporter_scraper *s, const char *const *specs, size_t n, wc_error *err)
{
    if (n > WC_EXPORTER_MAX)
        return wc_error_set(err, -EINVAL, "--exporter: at most %d exporters", WC_EXPORTER_MAX);
    for (size_t i = 0; i < n; i++) {
        int rc = wc_exporter_check_spec(specs[i], err);
        if (rc)
            return rc;
    }
    int hrc = wc_http_global_init("--exporter", err);
    if (hrc)
        return hrc;
    int rc = load_credentials(s, err);
    for (size_t i = 0; i < n && !rc; i++) {
        rc = worker_init(&s->workers[i], s, i, specs[i], err);
        s->n = i + 1; /* counted even on failure so free cleans it up */
    }
    return rc;
}

wc_exporter_scraper *wc_exporter_scraper_new(const char *const *specs, size_t n,
                                             const wc_exporter_config *cfg, wc_error *err)
{
    wc_exporter_scraper *s = calloc(1, sizeof *s);
    if (!s) {
        wc_error_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    if (cfg)
        s->cfg = *cfg;
    else
        wc_exporter_config_defaults(&s->cfg);
    wc_exporter_config_settle(&s->cfg);
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&s->stopping, 0);
    s->workers = calloc(n ? n : 1, sizeof *s->workers);
    s->queue = calloc(s->cfg.queue_max, sizeof *s->queue);
    int rc = !s->workers || !s->queue ? wc_error_set(err, -ENOMEM, "out of memory")
                                      : scraper_init(s, specs, n, err);
    if (rc) {
        wc_exporter_scraper_free(s);
        return NULL;
    }
    return s;
}

int wc_exporter_scraper_start(wc_exporter_scraper *s, wc_error *err)
{
    for (size_t i = 0; s && i < s->n; i++) {
        int rc = pthread_create(&s->workers[i].thread, NULL, scrape_loop, &s->workers[i]);
        if (rc)
            return wc_error_set(err, -rc, "cannot start an exporter scraping thread: %s",
                                strerror(rc));
        s->workers[i].started = 1;
    }
    return 0;
}

void wc_exporter_scraper_stop(wc_exporter_scraper *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    atomic_store(&s->stopping, 1);
    pthread_cond_broadcast(&s->wake);
    pthread_mutex_unlock(&s->lock);
    for (size_t i = 0; i < s->n; i++)
        if (s->workers[i].started) {
            pthread_join(s->workers[i].thread, NULL);
            s->workers[i].started = 0;
        }
}

void wc_exporter_scraper_free(wc_exporter_scraper *s)
{
    if (!s)
        return;
    wc_exporter_scraper_stop(s);
    for (size_t i = 0; i < s->n; i++) {
        worker *w = &s->workers[i];
        if (w->curl)
            wc_curl()->easy_cleanup(w->curl);
        if (w->headers)
            wc_curl()->slist_free_all(w->headers);
        free(w->body);
        set_unref(w->set);
    }
    for (size_t i = 0; i < s->count; i++)
        wc_scrape_free(s->queue[(s->head + i) % s->cfg.queue_max]);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    memset(s->auth, 0, sizeof s->auth);
    memset(s->password, 0, sizeof s->password);
    free(s->queue);
    free(s->workers);
    free(s);
}
