/*
 * truth_poller.h — polls ground-truth sources on their own threads.
 *
 * BMCs answer in 0.1–10 s; the /proc sampler must never wait for them. Each
 * source gets a thread that polls it every poll_interval_ns (absolute
 * monotonic deadlines), and on failure retries with exponential backoff
 * (interval × 2^k, at most 60 s) while the run goes on; every failed poll is
 * still delivered as an error sample, so gaps are visible in the DB. The
 * recorder drains the samples once per tick into the tick's transaction.
 */
#ifndef WC_TRUTH_POLLER_H
#define WC_TRUTH_POLLER_H

#include <stddef.h>

#include "collector/truth/truth.h"
#include "common/wc_error.h"

/* A sample with the index of the source it came from. */
typedef struct wc_truth_queued {
    size_t source;
    wc_truth_sample sample;
} wc_truth_queued;

typedef struct wc_truth_poller wc_truth_poller;

/* Starts one thread per source (the sources stay owned by the caller and must
 * outlive the poller). Returns NULL with err on failure to start. */
wc_truth_poller *wc_truth_poller_start(wc_truth_source *sources, size_t n, wc_error *err);

/* Moves the samples gathered since the last call into a malloc'd array
 * (*out, caller frees; NULL when none) and returns their count. */
size_t wc_truth_poller_drain(wc_truth_poller *p, wc_truth_queued **out);

/* Stops and joins every thread (a poll in progress finishes first: at most
 * the source's timeout). Samples already queued stay drainable. Safe on NULL
 * and when called twice. */
void wc_truth_poller_stop(wc_truth_poller *p);

/* Stops the poller if needed and frees it. Safe on NULL. */
void wc_truth_poller_free(wc_truth_poller *p);

/* The delay before retry k (k = consecutive failures, 1..) for a source
 * polled every interval_ns: interval × 2^k, capped at 60 s. */
int64_t wc_truth_backoff_ns(int64_t interval_ns, int failures);

#endif
