/*
 * recorder_exporter.h — the recorder's power exporters (`record|run
 * --exporter kepler:URL`): the wiring between the scraper
 * (collector/exporter/exporter_scrape.h, one thread per exporter) and the run
 * database (collector/store/store_exporter.h). Used by recorder.c only.
 *
 * Before the run file exists the specs and credentials are checked; once the
 * run row is written each exporter gets its row and its thread; every tick
 * the finished scrapes' rows are written inside the tick's transaction (every
 * scrape, failed ones too) and their samples are queued; after the tick
 * commits, wc_rec_exporters_flush writes queued samples (every sample as
 * reported) in a transaction of their own within the time the sampler can
 * spare, so a 200,000-series answer never delays a tick; what a scrape
 * taught (build info, layout, node, power source) rewrites the exporter row
 * with its provenance; at the end the threads stop and their last scrapes are
 * written.
 */
#ifndef WC_RECORDER_EXPORTER_H
#define WC_RECORDER_EXPORTER_H

#include <stddef.h>

#include "collector/exporter/exporter_scrape.h"
#include "collector/recorder.h"
#include "collector/store/store.h"
#include "common/wc_error.h"

typedef struct wc_rec_exporters wc_rec_exporters;

/* Checks the n specs and the credentials and sets the scraper up (no thread
 * yet). *out stays NULL when n is 0. Returns 0, or -EINVAL/-ENOMEM with err. */
int wc_rec_exporters_open(const char *const *specs, size_t n, const wc_exporter_config *cfg,
                          wc_rec_exporters **out, wc_error *err);

/* Writes one exporter row each (none when st is NULL: nothing is stored) and
 * starts the scraping threads. Safe on NULL. Returns 0 or -errno with err. */
int wc_rec_exporters_register(wc_rec_exporters *x, wc_store *st, wc_error *err);

/* Writes the rows of the scrapes finished since the last call (call inside
 * the tick's transaction; st NULL: only counted), counts them in res and
 * queues their samples for wc_rec_exporters_flush (a full queue drops the
 * oldest scrape's unwritten samples: counted in res, said in its row); they
 * stay readable through wc_rec_exporters_last until the next write or flush.
 * Safe on NULL. Returns 0 or the store's -errno. */
int wc_rec_exporters_write(wc_rec_exporters *x, wc_store *st, wc_record_result *res,
                           wc_error *err);

/* Writes queued samples in one transaction of its own (call outside any),
 * until none is left or the monotonic clock reaches until_mono_ns (checked
 * every thousand rows; INT64_MAX: all). st NULL:
 * forgets them. Safe on NULL. Returns 0 or the store's -errno. */
int wc_rec_exporters_flush(wc_rec_exporters *x, wc_store *st, int64_t until_mono_ns,
                           wc_error *err);

/* Samples queued and not yet written (0 on NULL). */
size_t wc_rec_exporters_pending(const wc_rec_exporters *x);

/* Stops the threads; unless rc is already an error, writes their last
 * scrapes' rows in one transaction, then every queued sample. Returns rc, or the store's -errno. Safe on
 * NULL (returns rc). */
int wc_rec_exporters_finish(wc_rec_exporters *x, wc_store *st, wc_record_result *res, int rc,
                            wc_error *err);

/* Stops the threads if needed and frees everything. Safe on NULL. */
void wc_rec_exporters_free(wc_rec_exporters *x);

/* The scrapes the last wc_rec_exporters_write drained (*n of them; NULL and
 * 0 on NULL or none), for the recorder's on_tick. Owned by x. */
wc_scrape *const *wc_rec_exporters_last(const wc_rec_exporters *x, size_t *n);

#endif
