/*
 * store_iter.c — the iterator of the streaming readers (store_iter.h,
 * store_read.h): open, step with one error convention, close.
 */
#include "collector/store/store_iter.h"

#include <errno.h>
#include <stdlib.h>

int wc_store_iter_open(wc_store *st, const char *sql, wc_iter_kind kind, const char *what,
                       wc_store_iter **it, wc_error *err)
{
    *it = calloc(1, sizeof **it);
    if (!*it)
        return wc_error_set(err, -ENOMEM, "%s: %s: out of memory", st->path, what);
    (*it)->st = st;
    (*it)->kind = kind;
    (*it)->what = what;
    int rc = wc_store_prepare(st, sql, &(*it)->s, err, what);
    if (rc) {
        free(*it);
        *it = NULL;
    }
    return rc;
}

int wc_store_iter_step(wc_store_iter *it, wc_iter_kind kind, wc_error *err)
{
    if (!it || it->kind != kind)
        return wc_error_set(err, -EINVAL, "store iterator: rows of another kind asked for");
    int step = sqlite3_step(it->s);
    if (step == SQLITE_ROW)
        return 1;
    return step == SQLITE_DONE ? 0 : wc_store_fail(it->st, err, it->what);
}

void wc_store_iter_close(wc_store_iter *it)
{
    if (!it)
        return;
    sqlite3_finalize(it->s);
    free(it);
}

const char *wc_store_col_str(sqlite3_stmt *s, int col)
{
    return (const char *)sqlite3_column_text(s, col);
}

int wc_store_text_next(wc_store_iter *it, const char **text, wc_error *err)
{
    int rc = wc_store_iter_step(it, WC_ITER_TEXT, err);
    *text = rc == 1 ? wc_store_col_str(it->s, 0) : NULL;
    return rc;
}
