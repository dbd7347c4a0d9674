/*
 * replay.c — the offline re-attribution loop (see replay.h): ticks from an
 * abstract source through a fresh attribution engine into a sink. Memory is
 * the engine's plus whatever the source keeps for one tick.
 */
#include "collector/model/replay.h"

#include <errno.h>

int wc_replay_run(wc_model model, const wc_replay_source *src, const wc_replay_sink *sink,
                  int64_t *ticks, wc_error *err)
{
    *ticks = 0;
    wc_attrib *a = wc_attrib_new(model);
    if (!a)
        return wc_error_set(err, -ENOMEM, "out of memory");
    wc_attrib_set_ceiling(a, src->ceiling_watts);
    if (src->kepler)
        wc_kepler_config_apply(src->kepler, a);
    int rc = 0;
    wc_replay_tick t;
    while (!rc && (rc = src->next(src->ctx, &t, err)) == 1) {
        wc_attr_out out;
        rc = wc_attrib_step(a, &t.in, &out, err);
        if (!rc)
            rc = sink->put(sink->ctx, &t, &out, err);
        (*ticks)++;
    }
    wc_attrib_free(a);
    return rc;
}
