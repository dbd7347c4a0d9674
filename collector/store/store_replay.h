/*
 * store_replay.h — re-attributing a recorded run in its own database: the
 * run's raw samples as the tick source of collector/model/replay.h and its
 * node_attr/work_attr tables as the sink (store_replay.c). `wattcal
 * attribute`, the analysis commands (a model not attributed yet) and the
 * benchmark call these; the model room itself never sees the store.
 */
#ifndef WC_STORE_REPLAY_H
#define WC_STORE_REPLAY_H

#include <stdint.h>

#include "collector/model/attribution.h"
#include "collector/model/kepler_config.h"
#include "collector/store/store.h"
#include "common/wc_error.h"

/* Replays every tick of the run in st, in recording order, under model and
 * writes that model's rows, replacing its previous rows; *ticks gets the
 * count. The store must be writable. Returns 0, or -EIO/-ENOMEM/-EINVAL with
 * err (a run with no energy-counter zone, a store error); the rows are
 * written in one transaction, so a failure leaves the old ones. */
int wc_store_replay(wc_store *st, wc_model model, int64_t *ticks, wc_error *err);

/* wc_store_replay with the deployed exporter's configuration kc (NULL:
 * Kepler's defaults): its terminated-workload trackers, and its meter: a run
 * holding both counters and power gauges is attributed on the gauges when kc
 * prefers hwmon (wc_kepler_config_prefers_hwmon), else on the counters. */
int wc_store_replay_config(wc_store *st, wc_model model, const wc_kepler_config *kc,
                           int64_t *ticks, wc_error *err);

/* Whether the store holds attribution rows of model: 1, 0, or -EIO. */
int wc_store_has_model_rows(wc_store *st, wc_model model, wc_error *err);

/* How far the model's rows reach: the last tick id holding its node rows
 * (0 when none) and the run's last tick id. A model attributed while the
 * run was still recording stops short of it. Returns 0 or -EIO. */
int wc_store_model_coverage(wc_store *st, wc_model model, int64_t *last_attr_tick,
                            int64_t *last_tick, wc_error *err);

#endif
