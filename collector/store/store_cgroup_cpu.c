/*
 * store_cgroup_cpu.c — the pods' and containers' CPU accounting in the run
 * (store_cgroup_cpu.h; docs/schema.md "cgroup", "cgroup_cpu", schema version
 * 5): the cgroup rows, the per-tick reads, and their readers. Statements are
 * prepared per call (a tick's reads are one batch), so a run made before the
 * tables existed is never asked for them at open. Keys and paths come from
 * /proc: bound as parameters.
 */
#include "collector/store/store_cgroup_cpu.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_internal.h"
#include "collector/store/store_iter.h"

/* 1 when the run has the cgroup tables, 0 when not. */
static int has_tables(wc_store *st)
{
    return wc_store_has_object(st, "cgroup_cpu") == 1;
}

int wc_store_put_cgroup(wc_store *st, const char *level, const char *key, const char *path,
                        int64_t *id, wc_error *err)
{
    if (st->read_only)
        return wc_error_set(err, -EROFS, "%s: opened read-only", st->path);
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "INSERT INTO cgroup(level,key,path,accounting) VALUES(?,?,?,'')",
                              &s, err, "writing cgroup");
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, level, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, path, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return wc_store_fail(st, err, "writing cgroup");
    *id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

int wc_store_set_cgroup_accounting(wc_store *st, int64_t id, const char *accounting,
                                   wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "UPDATE cgroup SET accounting=? WHERE id=?", &s, err,
                              "writing cgroup accounting");
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, accounting, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, id);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, "writing cgroup accounting");
}

int wc_store_put_cgroup_cpu(wc_store *st, int64_t tick_id, const wc_cgroup_cpu_in *v, size_t n,
                            wc_error *err)
{
    if (n == 0)
        return 0;
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st,
                              "INSERT INTO cgroup_cpu(tick_id,cgroup_id,usage_ns,status)"
                              " VALUES(?,?,?,?)",
                              &s, err, "writing cgroup cpu");
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_bind_int64(s, 1, tick_id);
        sqlite3_bind_int64(s, 2, v[i].cgroup_id);
        if (v[i].status == 0)
            sqlite3_bind_int64(s, 3, (int64_t)v[i].usage_ns); /* bits kept (schema.md) */
        else
            sqlite3_bind_null(s, 3);
        sqlite3_bind_int(s, 4, v[i].status);
        int step = sqlite3_step(s);
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
        if (step != SQLITE_DONE)
            rc = wc_store_fail(st, err, "writing cgroup cpu");
    }
    sqlite3_finalize(s);
    return rc;
}

static void read_cgroup(sqlite3_stmt *s, wc_cgroup_row *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(s, 0);
    wc_store_col_text(s, 1, r->level, sizeof r->level);
    wc_store_col_text(s, 2, r->key, sizeof r->key);
    wc_store_col_text(s, 3, r->path, sizeof r->path);
    wc_store_col_text(s, 4, r->accounting, sizeof r->accounting);
}

int wc_store_cgroups(wc_store *st, wc_cgroup_row **out, size_t *n, wc_error *err)
{
    *out = NULL;
    *n = 0;
    if (!has_tables(st))
        return 0;
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT id,level,key,path,accounting FROM cgroup ORDER BY id",
                              &s, err, "reading cgroups");
    if (rc)
        return rc;
    size_t cap = 0;
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (wc_store_grow((void **)out, sizeof **out, *n, &cap, 64) != 0)
            rc = wc_error_set(err, -ENOMEM, "%s: reading cgroups: out of memory", st->path);
        else
            read_cgroup(s, &(*out)[(*n)++]);
    }
    if (!rc && step != SQLITE_DONE)
        rc = wc_store_fail(st, err, "reading cgroups");
    sqlite3_finalize(s);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int wc_store_cgroup_cpu_open(wc_store *st, const char *level, wc_store_iter **it,
                             wc_error *err)
{
    *it = NULL;
    /* A run without the tables streams nothing: the same shape over an empty set. */
    const char *sql = has_tables(st)
                          ? "SELECT c.cgroup_id, c.tick_id, t.mono_ns, c.usage_ns, c.status"
                            " FROM cgroup_cpu c JOIN cgroup g ON g.id = c.cgroup_id"
                            " JOIN tick t ON t.id = c.tick_id"
                            " WHERE ?1 IS NULL OR g.level = ?1 ORDER BY c.cgroup_id, c.tick_id"
                          : "SELECT 0,0,0,0,0 WHERE ?1 IS NULL AND 0";
    int rc = wc_store_iter_open(st, sql, WC_ITER_CGROUP_CPU, "reading cgroup cpu", it, err);
    if (!rc && level)
        sqlite3_bind_text((*it)->s, 1, level, -1, SQLITE_TRANSIENT);
    return rc;
}

int wc_store_cgroup_cpu_next(wc_store_iter *it, wc_cgroup_cpu_row *row, wc_error *err)
{
    int rc = wc_store_iter_step(it, WC_ITER_CGROUP_CPU, err);
    if (rc != 1)
        return rc;
    sqlite3_stmt *s = it->s;
    row->cgroup_id = sqlite3_column_int64(s, 0);
    row->tick_id = sqlite3_column_int64(s, 1);
    row->mono_ns = sqlite3_column_int64(s, 2);
    row->ok = sqlite3_column_type(s, 3) != SQLITE_NULL;
    row->usage_ns = row->ok ? (uint64_t)sqlite3_column_int64(s, 3) : 0;
    row->status = sqlite3_column_int(s, 4);
    return 1;
}
