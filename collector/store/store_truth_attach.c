/*
 * store_truth_attach.c — a ground-truth source attached to a run after it was
 * recorded (`wattcal import --truth-into`, collector/import/import_truth.c):
 * finding a source of the same spec and what it holds, and removing one the
 * user asked to replace. Only the truth_source and truth_sample rows of that
 * one source are ever touched; store.h declares them.
 */
#include <errno.h>
#include <string.h>

#include "collector/store/store.h"
#include "collector/store/store_internal.h"

int wc_store_find_truth_source(wc_store *st, const char *spec, int64_t *source_id,
                               int64_t *samples, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    *source_id = *samples = 0;
    int rc = wc_store_prepare(st,
                              "SELECT ts.id, (SELECT COUNT(*) FROM truth_sample t"
                              " WHERE t.source_id = ts.id) FROM truth_source ts"
                              " WHERE ts.spec = ? ORDER BY ts.id LIMIT 1",
                              &s, err, "looking up a ground-truth source");
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, spec, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        *source_id = sqlite3_column_int64(s, 0);
        *samples = sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE
               ? 0 : wc_store_fail(st, err, "looking up a ground-truth source");
}

/* Runs one statement binding id. Returns 0 or wc_store_fail. */
static int exec_with_id(wc_store *st, const char *sql, int64_t id, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, sql, &s, err, "removing a ground-truth source");
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, id);
    int step = sqlite3_step(s);
    sqlite3_finalize(s);
    return step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "removing a ground-truth source");
}

int wc_store_delete_truth_source(wc_store *st, int64_t source_id, wc_error *err)
{
    int rc = exec_with_id(st, "DELETE FROM truth_sample WHERE source_id = ?", source_id, err);
    return rc ? rc : exec_with_id(st, "DELETE FROM truth_source WHERE id = ?", source_id, err);
}
