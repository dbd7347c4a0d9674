/*
 * replay.h — re-attribute a recorded run offline under any model.
 *
 * Reads the raw samples of a store tick by tick (cumulative /proc/stat, raw
 * zone counters, process CPU with identities) in recording order, feeds them
 * to a fresh attribution engine and writes that model's rows, replacing any
 * previous rows of the same model. Because attribution is a pure function of
 * the raw samples, replaying the recording model reproduces what `record`
 * wrote, row for row.
 */
#ifndef WC_REPLAY_H
#define WC_REPLAY_H

#include <stdint.h>

#include "collector/model/attribution.h"
#include "collector/store/store.h"

/* Replays every tick of the run in st under model; *ticks gets the count.
 * Returns 0, or -EIO/-ENOMEM/-EINVAL with err (a run with no zones, a store
 * error); rows are written in one transaction, so a failure leaves none. */
int wc_replay(wc_store *st, wc_model model, int64_t *ticks, wc_error *err);

/* Whether the store holds attribution rows for model (1/0), -EIO on error. */
int wc_replay_has_model(wc_store *st, wc_model model, wc_error *err);

#endif
