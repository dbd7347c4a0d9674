/*
 * store_truth_read.c — the readers of the ground truth a run recorded
 * (store_read.h): its sources, every poll of a source in poll order, and a
 * per-source summary of what was delivered. The writer is store_write.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_internal.h"
#include "collector/store/store_read.h"

int wc_store_truth_sources(wc_store *st, wc_truth_source_row *out, size_t max, size_t *n,
                           wc_error *err)
{
    sqlite3_stmt *s = NULL;
    *n = 0;
    int rc = wc_store_prepare(st, "SELECT id, spec, kind, provenance FROM truth_source ORDER BY id",
                              &s, err, "reading ground-truth sources");
    if (rc)
        return rc;
    int step = SQLITE_DONE;
    while (*n < max && (step = sqlite3_step(s)) == SQLITE_ROW) {
        wc_truth_source_row *t = &out[(*n)++];
        memset(t, 0, sizeof *t);
        t->id = sqlite3_column_int64(s, 0);
        wc_store_col_text(s, 1, t->spec, sizeof t->spec);
        wc_store_col_text(s, 2, t->kind, sizeof t->kind);
        wc_store_col_text(s, 3, t->provenance, sizeof t->provenance);
    }
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE
               ? 0 : wc_store_fail(st, err, "reading ground-truth sources");
}

static void read_poll(sqlite3_stmt *s, wc_truth_poll_row *p)
{
    memset(p, 0, sizeof *p);
    p->t_ns = sqlite3_column_int64(s, 0);
    p->watts = wc_store_col_real(s, 1);
    p->window_s = sqlite3_column_double(s, 2);
    p->window_known = sqlite3_column_int(s, 3);
    wc_store_col_text(s, 4, p->status, sizeof p->status);
    p->device_ts_ns = sqlite3_column_int64(s, 5);
}

int wc_store_truth_polls(wc_store *st, int64_t source_id, wc_truth_poll_row **out, size_t *n,
                         wc_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT poll_mono_ns, watts, COALESCE(window_s, 0),"
                                  " COALESCE(window_known, 0), status, COALESCE(device_ts_ns, 0)"
                                  " FROM truth_sample WHERE source_id = ? ORDER BY poll_mono_ns, rowid",
                              &s, err, "reading ground-truth samples");
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, source_id);
    size_t cap = 0;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        if (wc_store_grow((void **)out, sizeof **out, *n, &cap, 256)) {
            rc = wc_error_set(err, -ENOMEM, "out of memory reading ground truth");
            break;
        }
        read_poll(s, &(*out)[(*n)++]);
    }
    if (!rc && step != SQLITE_DONE)
        rc = wc_store_fail(st, err, "reading ground-truth samples");
    sqlite3_finalize(s);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static void read_summary(sqlite3_stmt *s, wc_truth_summary *t)
{
    memset(t, 0, sizeof *t);
    wc_store_col_text(s, 0, t->spec, sizeof t->spec);
    wc_store_col_text(s, 1, t->kind, sizeof t->kind);
    wc_store_col_text(s, 2, t->provenance, sizeof t->provenance);
    wc_store_col_text(s, 3, t->description, sizeof t->description);
    t->ok = sqlite3_column_int64(s, 4);
    t->stale = sqlite3_column_int64(s, 5);
    t->unavailable = sqlite3_column_int64(s, 6);
    t->error = sqlite3_column_int64(s, 7);
    t->mean_watts = wc_store_col_real(s, 8);
    wc_store_col_text(s, 9, t->last_error, sizeof t->last_error);
}

int wc_store_truth_summaries(wc_store *st, wc_truth_summary *out, size_t max, size_t *n,
                             wc_error *err)
{
    sqlite3_stmt *s = NULL;
    *n = 0;
    int rc = wc_store_prepare(
        st,
        "SELECT ts.spec, ts.kind, ts.provenance, ts.description,"
        " SUM(t.status = 'ok'), SUM(t.status = 'stale'), SUM(t.status = 'unavailable'),"
        " SUM(t.status = 'error'), AVG(CASE WHEN t.status = 'ok' THEN t.watts END),"
        " (SELECT error FROM truth_sample e WHERE e.source_id = ts.id AND e.error != ''"
        "  ORDER BY e.rowid DESC LIMIT 1)"
        " FROM truth_source ts LEFT JOIN truth_sample t ON t.source_id = ts.id"
        " GROUP BY ts.id ORDER BY ts.id",
        &s, err, "reading ground truth");
    if (rc)
        return rc;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW && *n < max)
        read_summary(s, &out[(*n)++]);
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "reading ground truth");
}
