/*
 * store_borrow.c — TRANSITIONAL (issue 10): a wc_store over a connection the
 * caller already holds (store_read.h), so code that still receives only the
 * raw handle of wc_store_db() can call the typed readers. It goes, with
 * wc_store_db, once every caller holds the wc_store itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "collector/store/store_internal.h"
#include "collector/store/store_read.h"

wc_store *wc_store_borrow(struct sqlite3 *db, wc_error *err)
{
    wc_store *st = calloc(1, sizeof *st);
    if (!st) {
        wc_error_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    const char *path = db ? sqlite3_db_filename(db, "main") : NULL;
    snprintf(st->path, sizeof st->path, "%s", path ? path : "run database");
    st->db = db;
    st->read_only = 1;
    return st;
}

void wc_store_unborrow(wc_store *st)
{
    free(st);
}
