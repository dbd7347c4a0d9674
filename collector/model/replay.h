/*
 * replay.h — re-attribute a recorded run offline under any model.
 *
 * The loop only: raw samples come tick by tick from a source (cumulative
 * /proc/stat, raw zone counters, process CPU with identities) in recording
 * order, go through a fresh attribution engine, and each tick's result goes
 * to a sink. Because attribution is a pure function of the raw samples,
 * replaying the recording model reproduces what `record` wrote, row for row.
 *
 * The model does not know where ticks come from: the run database's source
 * and sink, with the transaction and the clearing of the model's old rows,
 * are collector/store/store_replay.c (wc_store_replay), which callers use.
 */
#ifndef WC_REPLAY_H
#define WC_REPLAY_H

#include <stdint.h>

#include "collector/model/attribution.h"
#include "collector/model/kepler_config.h"
#include "common/wc_error.h"

/* One recorded tick, as a source hands it over. */
typedef struct wc_replay_tick {
    int64_t tick_id;              /* the source's id of the tick, handed back to the sink */
    wc_attr_tick_in in;           /* its inputs; the arrays stay valid until the next tick */
    const int64_t *proc_ids;      /* the source's id of each in.procs[i] (in.nprocs) */
} wc_replay_tick;

/* Where ticks come from. next fills *t with the next tick in recording order
 * and returns 1, returns 0 after the last, or a negative errno with err.
 * ceiling_watts is the counter ceiling per zone the run was recorded with
 * (its stored --ceiling-watts; <= 0 = the default), handed to the engine
 * (wc_attrib_set_ceiling). */
typedef struct wc_replay_source {
    void *ctx;
    int (*next)(void *ctx, wc_replay_tick *t, wc_error *err);
    double ceiling_watts;
    const wc_kepler_config *kepler; /* the deployment's config (--kepler-config), NULL =
                                       Kepler's defaults: the terminated trackers */
} wc_replay_source;

/* Where each tick's attribution goes. put returns 0 or a negative errno with
 * err (the replay stops). */
typedef struct wc_replay_sink {
    void *ctx;
    int (*put)(void *ctx, const wc_replay_tick *t, const wc_attr_out *out, wc_error *err);
} wc_replay_sink;

/* Feeds every tick of src, in order, to a fresh engine of model and each
 * result to sink; *ticks gets the number of ticks read. Returns 0, -ENOMEM,
 * or the first error of the source, the engine or the sink (err set). */
int wc_replay_run(wc_model model, const wc_replay_source *src, const wc_replay_sink *sink,
                  int64_t *ticks, wc_error *err);

#endif
