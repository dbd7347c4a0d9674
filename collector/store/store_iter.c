/*
 * store_iter.c — the iterator of the streaming readers (store_iter.h; the
 * convention is in store.h): open, open with a list of names bound, step
 * with one error convention, close, and the text rows every text iterator
 * yields.
 */
#include "collector/store/store_iter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    for (size_t i = 0; i < it->nkeys; i++)
        free(it->key[i]);
    free(it->key);
    free(it->key_id);
    free(it->zone);
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

/* " IN (?,?,...)" for n names. */
static void in_list(char *buf, size_t cap, size_t n)
{
    size_t used = (size_t)snprintf(buf, cap, " IN (");
    for (size_t i = 0; i < n && used + 3 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, i ? ",?" : "?");
    snprintf(buf + used, cap - used, ")");
}

/* Names before the NULL that ends the list (none for a NULL list). */
static size_t count_names(const char *const *names)
{
    size_t n = 0;
    while (names && names[n])
        n++;
    return n;
}

/* Opens "<head> IN (...) <tail>" with the names bound from parameter first. */
int wc_store_open_in_list(wc_store *st, const char *head, const char *tail,
                          const char *const *names, int first, wc_iter_kind kind,
                          const char *what, wc_store_iter **it, wc_error *err)
{
    char in[512], sql[1536];
    size_t n = count_names(names);
    if (n > 200)
        return wc_error_set(err, -EINVAL, "%s: %s: more than 200 names", st->path, what);
    in_list(in, sizeof in, n);
    snprintf(sql, sizeof sql, "%s%s%s", head, in, tail);
    int rc = wc_store_iter_open(st, sql, kind, what, it, err);
    for (size_t i = 0; !rc && i < n; i++)
        sqlite3_bind_text((*it)->s, first + (int)i, names[i], -1, SQLITE_TRANSIENT);
    return rc;
}
