/*
 * xp_store.h — test helpers: store an exporter and its scrapes (exposition
 * text parsed by the real parser) into a run database, as record --exporter
 * does. Used by test_exporter_caps.c and test_exporter_diff.c.
 */
#ifndef WC_TEST_XP_STORE_H
#define WC_TEST_XP_STORE_H

#include <stdint.h>

#include "collector/store/store.h"

/* Adds a live Kepler 0.11 exporter of node `node` (power source measured);
 * returns its id. Fails the test on error. */
int64_t xp_put_exporter(wc_store *st, const char *spec, const char *node);

/* Stores one scrape of exporter_id answered at monotonic t_ns with the
 * exposition `text` (Prometheus text 0.0.4). Fails the test on error. */
void xp_put_scrape(wc_store *st, int64_t exporter_id, int64_t t_ns, const char *text);

#endif
