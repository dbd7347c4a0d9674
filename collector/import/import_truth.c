/*
 * import_truth.c — a wall-meter log attached to a run that already exists
 * (`wattcal import --truth-into RUN --truth file:PATH`, import.h): the log a
 * recording could not import (or a corrected one) is parsed whole with the
 * `--truth file:` parser (truth_file.h), aligned on the run's clock by wall
 * time exactly as `record` does after a run, and written as ONE new
 * truth_source with its samples in one transaction. Nothing else of the run
 * is written: ticks, zones, processes, attribution, exporter rows stay byte
 * for byte as recorded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/import/import.h"
#include "collector/store/store.h"
#include "collector/truth/truth_file.h"

/* The samples' wall times must meet the run's [start, end] (end 0: a run
 * that was never closed, then only the start is checked). */
static int check_overlap(const char *path, const wc_truth_sample *s, size_t n,
                         const wc_run_meta *m, wc_error *err)
{
    int64_t first = s[0].poll_wall_ns, last = s[n - 1].poll_wall_ns;
    if (last >= m->started_wall_ns && (m->ended_wall_ns <= 0 || first <= m->ended_wall_ns))
        return 0;
    return wc_error_set(err, -EINVAL,
                        "%s: its readings (%.3f .. %.3f s since the epoch) do not overlap the "
                        "run (%.3f .. %.3f s): another run's log, or a wrong zone offset "
                        "(--truth-format csv:OFFSET / ptd:OFFSET)",
                        path, (double)first / 1e9, (double)last / 1e9,
                        (double)m->started_wall_ns / 1e9, (double)m->ended_wall_ns / 1e9);
}

/* A source of the same spec already in the run: refused unless replace, or
 * unless it holds no sample (the "NOT imported" row record leaves behind).
 * Removes it otherwise (inside the transaction); *replaced says so. */
static int make_room(wc_store *st, const wc_truth_attach_opts *o, int *replaced, wc_error *err)
{
    int64_t id = 0, samples = 0;
    int rc = wc_store_find_truth_source(st, o->spec, &id, &samples, err);
    if (rc || !id)
        return rc;
    if (samples && !o->replace)
        return wc_error_set(err, -EEXIST,
                            "%s already holds ground truth %s (%lld samples): give "
                            "--replace-truth to replace it, or attach the log under another path",
                            o->db_path, o->spec, (long long)samples);
    *replaced = 1;
    return wc_store_delete_truth_source(st, id, err);
}

/* Writes the source and its samples in one transaction. */
static int write_source(wc_store *st, const wc_truth_attach_opts *o, const char *format,
                        wc_truth_sample *s, size_t n, wc_truth_attach_result *res, wc_error *err)
{
    char desc[256];
    snprintf(desc, sizeof desc, "%s log %.160s, aligned by wall clock, attached after the run",
             format, o->spec + 5);
    int64_t id = 0;
    int rc = wc_store_begin(st, err);
    if (rc)
        return rc;
    rc = make_room(st, o, &res->replaced, err);
    if (!rc)
        rc = wc_store_put_truth_source(st, o->spec, "file", WC_PROV_GROUND_TRUTH, desc, &id, err);
    for (size_t i = 0; i < n && !rc; i++) {
        rc = wc_store_put_truth_sample(st, id, &s[i], err);
        res->unavailable += s[i].status != WC_TRUTH_OK;
    }
    if (rc) {
        wc_store_rollback(st);
        return rc;
    }
    res->samples = (int64_t)n;
    return wc_store_commit(st, err);
}

int wc_import_truth_into(const wc_truth_attach_opts *o, wc_truth_attach_result *res,
                         wc_error *err)
{
    memset(res, 0, sizeof *res);
    if (strncmp(o->spec, "file:", 5) != 0 || !o->spec[5])
        return wc_error_set(err, -EINVAL, "--truth %s: only a wall-meter log (file:PATH) can be "
                                          "attached to a recorded run", o->spec);
    const char *format = o->format && *o->format ? o->format : "csv";
    wc_truth_sample *s = NULL;
    size_t n = 0;
    int rc = wc_truth_file_parse(o->spec + 5, format, &s, &n, err);
    if (rc)
        return rc;
    wc_store *st = wc_store_open(o->db_path, WC_STORE_WRITE, err);
    wc_run_meta m;
    rc = st ? wc_store_get_run(st, &m, err) : -EIO;
    if (!rc && !m.present)
        rc = wc_error_set(err, -EINVAL, "%s: holds no run to attach ground truth to", o->db_path);
    if (!rc)
        rc = check_overlap(o->spec + 5, s, n, &m, err);
    if (!rc) {
        wc_truth_file_align(s, n, m.started_wall_ns, m.started_mono_ns);
        rc = write_source(st, o, format, s, n, res, err);
    }
    wc_store_close(st);
    free(s);
    return rc;
}
