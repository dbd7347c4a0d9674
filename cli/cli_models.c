/*
 * cli_models.c — opening a run for analysis under a given model, shared by
 * `validate`, `calibrate` and `diff`: read-only by default; only when the
 * model's rows must first be computed from the raw samples (collector/
 * store/store_replay.c) is the file reopened read-write.
 */
#include <errno.h>
#include <stdio.h>

#include "cli/cli.h"
#include "collector/store/store_replay.h"

/* The model the run was recorded with; an imported run (no attribution at
 * record time) defaults to the ideal model. Returns 0, -ENOENT (no run row,
 * or it cannot be read), or -EINVAL for an unknown model. */
static int recorded_model(wc_store *st, wc_model *m)
{
    wc_run_meta run;
    if (wc_store_get_run(st, &run, NULL) || !run.present)
        return -ENOENT;
    return run.model[0] ? wc_model_parse(run.model, m) : (*m = WC_MODEL_IDEAL, 0);
}

/* Whether a model's rows reach the run's last tick: 1, or 0 when they stop
 * short (it was attributed — by `attribute`, or by a validate or diff that
 * needed it — while the run was still recording: its totals would cover
 * part of the run) and it must be attributed again; -EIO. The recorded
 * model is written with every tick: always 1. */
static int covers_run(wc_store *st, wc_model model, wc_error *err)
{
    wc_model rec;
    if (!recorded_model(st, &rec) && rec == model)
        return 1;
    int64_t last_attr = 0, last = 0;
    int rc = wc_store_model_coverage(st, model, &last_attr, &last, err);
    if (rc)
        return rc;
    if (last_attr >= last)
        return 1;
    fprintf(stderr, "wattcal: model %s covers ticks up to %lld of the run's %lld (attributed while"
                    " it was recording): it must be attributed again\n", wc_model_name(model),
            (long long)last_attr, (long long)last);
    return 0;
}

wc_store *wc_cli_open_model(const char *path, const char *model_name, wc_model *model,
                            wc_error *err)
{
    wc_store *st = wc_store_open(path, WC_STORE_READ, err);
    if (!st)
        return NULL;
    int rc = model_name ? wc_model_parse(model_name, model) : recorded_model(st, model);
    if (rc == -ENOENT) {
        wc_error_set(err, -ENOENT, "%s: holds no recorded run (its run table is empty)", path);
        wc_store_close(st);
        return NULL;
    }
    if (rc) {
        char names[128];
        wc_error_set(err, -EINVAL, "%s: unknown model '%s' (%s)", path,
                     model_name ? model_name : "(none recorded)",
                     wc_cli_model_names(names, sizeof names));
        wc_store_close(st);
        return NULL;
    }
    rc = wc_store_has_model_rows(st, *model, err);
    if (rc > 0)
        rc = covers_run(st, *model, err); /* 1 complete, 0 stale: attributed again */
    if (rc < 0) {
        wc_store_close(st);
        return NULL;
    }
    if (rc > 0)
        return st;
    wc_store_close(st);
    st = wc_store_open(path, WC_STORE_WRITE, err);
    if (!st) {
        wc_error_prefix(err, -EIO,
                        "model %s must be computed from the raw samples first, which needs write "
                        "access (copy the file, or run `wattcal attribute`): ",
                        wc_model_name(*model));
        return NULL;
    }
    int64_t ticks = 0;
    rc = wc_store_ensure_indexes(st, err);
    if (!rc)
        rc = wc_store_replay(st, *model, &ticks, err);
    if (rc) {
        wc_store_close(st);
        return NULL;
    }
    return st;
}
