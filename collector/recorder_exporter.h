/*
 * recorder_exporter.h — the recorder's power exporters (`record|run
 * --exporter kepler:URL`): the wiring between the scraper
 * (collector/exporter/exporter_scrape.h, one thread per exporter) and the run
 * database (collector/store/store_exporter.h). Used by recorder.c only.
 *
 * Before the run file exists the specs and credentials are checked; once the
 * run row is written each exporter gets its row and its thread; every tick
 * the finished scrapes are written inside the tick's transaction (every
 * scrape, failed ones too, and every sample as reported), and what a scrape
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

/* Writes one exporter row each and starts the scraping threads. Safe on
 * NULL. Returns 0 or -errno with err. */
int wc_rec_exporters_register(wc_rec_exporters *x, wc_store *st, wc_error *err);

/* Writes the scrapes finished since the last call (call inside the tick's
 * transaction) and counts them in res. Safe on NULL. Returns 0 or the
 * store's -errno. */
int wc_rec_exporters_write(wc_rec_exporters *x, wc_store *st, wc_record_result *res,
                           wc_error *err);

/* Stops the threads; unless rc is already an error, writes their last
 * scrapes in one transaction. Returns rc, or the store's -errno. Safe on
 * NULL (returns rc). */
int wc_rec_exporters_finish(wc_rec_exporters *x, wc_store *st, wc_record_result *res, int rc,
                            wc_error *err);

/* Stops the threads if needed and frees everything. Safe on NULL. */
void wc_rec_exporters_free(wc_rec_exporters *x);

#endif
