/*
 * store_counts.c — how many rows a table holds and how far the tick table
 * reaches (store_read.h): the ticks validate needs before it starts, the
 * benchmark's row counts, the gap report's run length and the report's
 * default window. Tables are named by a fixed enum, so no name is ever
 * pasted into SQL.
 */
#include <errno.h>

#include "collector/store/store_internal.h"
#include "collector/store/store_read.h"

static const char *const COUNT_SQL[WC_TABLE_COUNT] = {
    [WC_TABLE_TICK] = "SELECT COUNT(*) FROM tick",
    [WC_TABLE_ZONE_SAMPLE] = "SELECT COUNT(*) FROM zone_sample",
    [WC_TABLE_PROCESS] = "SELECT COUNT(*) FROM process",
    [WC_TABLE_PROC_SAMPLE] = "SELECT COUNT(*) FROM proc_sample",
    [WC_TABLE_TRUTH_SAMPLE] = "SELECT COUNT(*) FROM truth_sample",
    [WC_TABLE_NODE_ATTR] = "SELECT COUNT(*) FROM node_attr",
    [WC_TABLE_WORK_ATTR] = "SELECT COUNT(*) FROM work_attr",
};

/* What a failed count says it was doing. */
static const char *const COUNT_WHAT[WC_TABLE_COUNT] = {
    [WC_TABLE_TICK] = "counting ticks",
    [WC_TABLE_ZONE_SAMPLE] = "counting zone samples",
    [WC_TABLE_PROCESS] = "counting processes",
    [WC_TABLE_PROC_SAMPLE] = "counting process samples",
    [WC_TABLE_TRUTH_SAMPLE] = "counting ground-truth samples",
    [WC_TABLE_NODE_ATTR] = "counting node attribution rows",
    [WC_TABLE_WORK_ATTR] = "counting workload attribution rows",
};

int wc_store_count_rows(wc_store *st, wc_store_table table, int64_t *n, wc_error *err)
{
    if ((unsigned)table >= WC_TABLE_COUNT)
        return wc_error_set(err, -EINVAL, "store: no table number %d", (int)table);
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, COUNT_SQL[table], &s, err, COUNT_WHAT[table]);
    if (rc)
        return rc;
    if (sqlite3_step(s) == SQLITE_ROW)
        *n = sqlite3_column_int64(s, 0);
    else
        rc = wc_store_fail(st, err, COUNT_WHAT[table]);
    sqlite3_finalize(s);
    return rc;
}

int wc_store_tick_span(wc_store *st, int64_t *first_mono_ns, int64_t *last_mono_ns,
                       int64_t *count, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT MIN(mono_ns), MAX(mono_ns), COUNT(*) FROM tick", &s, err,
                              "reading ticks");
    if (rc)
        return rc;
    if (sqlite3_step(s) == SQLITE_ROW) {
        *first_mono_ns = sqlite3_column_int64(s, 0);
        *last_mono_ns = sqlite3_column_int64(s, 1);
        *count = sqlite3_column_int64(s, 2);
    } else {
        rc = wc_store_fail(st, err, "reading ticks");
    }
    sqlite3_finalize(s);
    return rc;
}
