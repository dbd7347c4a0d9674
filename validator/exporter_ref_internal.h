/*
 * exporter_ref_internal.h — what the second opinion's two files share
 * (private to validator/exporter_ref.c and exporter_procs.c): a compared
 * workload's per-interval energy on both sides, the comparison's context,
 * and the scoring that keeps the largest disagreements.
 */
#ifndef WC_EXPORTER_REF_INTERNAL_H
#define WC_EXPORTER_REF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "validator/exporter_report.h"
#include "validator/series.h"

/* One compared workload: its key and exporter/reference energy per interval. */
typedef struct ref_key {
    char key[160], name[128];
    double *exp_j, *ref_j;       /* [nscrapes]: interval k = (k−1, k] */
    unsigned char *known;        /* exporter delta known for interval k */
} ref_key;

/* One level's comparison of one exporter. */
typedef struct ref_ctx {
    const wc_xp_data *d;
    const char *level, *zone;
    int64_t lag_ns;
    size_t *tick_scrape;         /* [timebase ticks]: the interval each tick's energy falls in */
    ref_key *keys;
    size_t nkeys;
} ref_ctx;

/* Whether scrape k answered (ok, or capped: the samples kept are stored). */
int wc_xp_ref_scrape_ok(const wc_xp_data *d, size_t k);

/* Scores every key of c and appends the largest disagreements to x->ref.
 * Returns 0 or -ENOMEM. */
int wc_xp_ref_keep_top(const ref_ctx *c, const wc_boot_cfg *boot, wc_xp_one *x);

/* Frees c's keys (c->keys NULL, c->nkeys 0 after). */
void wc_xp_ref_keys_free(ref_ctx *c);

/* exporter_procs.c: the process level, matched by pid + comm, a reused pid
 * told apart by lifetime. Returns 0, -EIO/-ENOMEM with err. */
int wc_xp_ref_processes(wc_store *st, int64_t model_id, const wc_timebase *tb,
                        const wc_boot_cfg *boot, ref_ctx *c, wc_xp_one *x, wc_error *err);

#endif
