/*
 * truth_poller.c — one polling thread per ground-truth source (see
 * truth_poller.h). Threads sleep on a condition variable bound to the
 * monotonic clock, so stopping wakes them at once.
 */
#include "collector/truth/truth_poller.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/wc_clock.h"

#define MAX_BACKOFF_NS (60 * WC_NS_PER_S)

typedef struct worker {
    struct wc_truth_poller *poller;
    size_t index;
    pthread_t thread;
    int started;
} worker;

struct wc_truth_poller {
    wc_truth_source *sources;
    size_t n;
    worker *workers;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stopping;
    wc_truth_queued *queue;
    size_t count, cap;
};

int64_t wc_truth_backoff_ns(int64_t interval_ns, int failures)
{
    int64_t d = interval_ns > 0 ? interval_ns : WC_NS_PER_S;
    for (int k = 0; k < failures && d < MAX_BACKOFF_NS; k++)
        d *= 2;
    return d < MAX_BACKOFF_NS ? d : MAX_BACKOFF_NS;
}

static void enqueue(wc_truth_poller *p, size_t source, const wc_truth_sample *s)
{
    pthread_mutex_lock(&p->lock);
    if (p->count == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        wc_truth_queued *q = realloc(p->queue, cap * sizeof *q);
        if (!q) { /* drop the sample rather than the run; counted nowhere else */
            pthread_mutex_unlock(&p->lock);
            return;
        }
        p->queue = q;
        p->cap = cap;
    }
    p->queue[p->count].source = source;
    p->queue[p->count].sample = *s;
    p->count++;
    pthread_mutex_unlock(&p->lock);
}

/* Waits until the absolute monotonic deadline or stop; returns 1 when stopping. */
static int wait_until(wc_truth_poller *p, int64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = deadline_ns / WC_NS_PER_S,
                          .tv_nsec = deadline_ns % WC_NS_PER_S};
    pthread_mutex_lock(&p->lock);
    while (!p->stopping && wc_mono_ns() < deadline_ns)
        if (pthread_cond_timedwait(&p->wake, &p->lock, &ts) == ETIMEDOUT)
            break;
    int stopping = p->stopping;
    pthread_mutex_unlock(&p->lock);
    return stopping;
}

static void *poll_loop(void *arg)
{
    worker *w = arg;
    wc_truth_poller *p = w->poller;
    wc_truth_source *src = &p->sources[w->index];
    int failures = 0;
    int64_t next = wc_mono_ns();
    for (;;) {
        if (wait_until(p, next))
            break;
        wc_truth_sample s;
        int rc = wc_truth_poll(src, &s);
        enqueue(p, w->index, &s);
        int64_t now = wc_mono_ns();
        if (rc != 0 || s.status == WC_TRUTH_ERROR) {
            failures++;
            next = now + wc_truth_backoff_ns(src->poll_interval_ns, failures);
        } else {
            failures = 0;
            next += src->poll_interval_ns;
            if (next <= now) /* a slow device: keep the grid, skip missed polls */
                next = now + src->poll_interval_ns - (now - next) % src->poll_interval_ns;
        }
    }
    return NULL;
}

wc_truth_poller *wc_truth_poller_start(wc_truth_source *sources, size_t n, wc_error *err)
{
    wc_truth_poller *p = calloc(1, sizeof *p);
    worker *ws = calloc(n ? n : 1, sizeof *ws);
    if (!p || !ws) {
        free(p);
        free(ws);
        wc_error_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    p->sources = sources;
    p->n = n;
    p->workers = ws;
    pthread_mutex_init(&p->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->wake, &ca);
    pthread_condattr_destroy(&ca);
    for (size_t i = 0; i < n; i++) {
        ws[i].poller = p;
        ws[i].index = i;
        int rc = pthread_create(&ws[i].thread, NULL, poll_loop, &ws[i]);
        if (rc) {
            wc_error_set(err, -rc, "cannot start a ground-truth polling thread: %s", strerror(rc));
            wc_truth_poller_free(p);
            return NULL;
        }
        ws[i].started = 1;
    }
    return p;
}

size_t wc_truth_poller_drain(wc_truth_poller *p, wc_truth_queued **out)
{
    *out = NULL;
    if (!p)
        return 0;
    pthread_mutex_lock(&p->lock);
    size_t n = p->count;
    if (n) {
        *out = p->queue;
        p->queue = NULL;
        p->count = p->cap = 0;
    }
    pthread_mutex_unlock(&p->lock);
    return n;
}

void wc_truth_poller_stop(wc_truth_poller *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (size_t i = 0; i < p->n; i++)
        if (p->workers[i].started) {
            pthread_join(p->workers[i].thread, NULL);
            p->workers[i].started = 0;
        }
}

void wc_truth_poller_free(wc_truth_poller *p)
{
    if (!p)
        return;
    wc_truth_poller_stop(p);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p->queue);
    free(p->workers);
    free(p);
}
