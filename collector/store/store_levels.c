/*
 * store_levels.c — the readers of a model's attribution rows
 * (store_results.h): the zones it attributed, node rows per tick and zone,
 * their per-zone totals, and the workload rows that validate's levels pass
 * streams once in tick order.
 *
 * The workload stream reads the rows in rowid order by a plain table scan
 * (NOT INDEXED: through the model index SQLite would sort every row by rowid
 * in a temporary B-tree, several times slower); rowid order is tick order for
 * every writer (record and replay insert one tick at a time), and a reader
 * that finds otherwise reopens the stream ordered by tick_id. A compact run
 * (schema 6, store_work_energy.c) is read from work_energy in primary-key
 * order (tick order), one statement row handing out its present zones.
 */
#include <errno.h>
#include <stdint.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "collector/store/store_iter.h"
#include "collector/store/store_results.h"
#include "common/wc_sorted.h"

int wc_store_node_zones_open(wc_store *st, int64_t model_id, wc_store_iter **it,
                             wc_error *err)
{
    int rc = wc_store_iter_open(st, "SELECT zone FROM node_attr WHERE model_id = ? GROUP BY zone"
                                    " ORDER BY MIN(rowid)",
                                WC_ITER_TEXT, "reading node attribution", it, err);
    if (!rc)
        sqlite3_bind_int64((*it)->s, 1, model_id);
    return rc;
}

int wc_store_node_has_zone(wc_store *st, int64_t model_id, const char *zone, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT 1 FROM node_attr WHERE model_id = ? AND zone = ? LIMIT 1",
                              &s, err, "reading zones");
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, model_id);
    sqlite3_bind_text(s, 2, zone, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(s);
    rc = step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "reading zones");
    sqlite3_finalize(s);
    return rc;
}

int wc_store_node_rows_open(wc_store *st, int64_t model_id, wc_store_iter **it, wc_error *err)
{
    int rc = wc_store_iter_open(st, "SELECT tick_id, zone, delta_uj, active_uj, idle_uj, flags FROM"
                                    " node_attr WHERE model_id = ?",
                                WC_ITER_NODE_ROWS, "reading node attribution", it, err);
    if (!rc)
        sqlite3_bind_int64((*it)->s, 1, model_id);
    return rc;
}

int wc_store_node_zone_rows_open(wc_store *st, int64_t model_id, const char *const *zones,
                                 wc_store_iter **it, wc_error *err)
{
    int rc = wc_store_open_in_list(st, "SELECT tick_id, delta_uj, flags, zone, active_uj FROM node_attr z"
                                       " WHERE model_id = ?1 AND z.zone",
                                   " ORDER BY tick_id", zones, 2, WC_ITER_NODE_ZONE_ROWS,
                                   "reading the model's node energy", it, err);
    if (!rc)
        sqlite3_bind_int64((*it)->s, 1, model_id);
    return rc;
}

int wc_store_node_row_next(wc_store_iter *it, wc_node_row *row, wc_error *err)
{
    int all = it && it->kind == WC_ITER_NODE_ROWS;
    int rc = wc_store_iter_step(it, all ? WC_ITER_NODE_ROWS : WC_ITER_NODE_ZONE_ROWS, err);
    if (rc != 1)
        return rc;
    sqlite3_stmt *s = it->s;
    row->tick_id = sqlite3_column_int64(s, 0);
    if (all) {
        row->zone = wc_store_col_str(s, 1);
        row->delta_uj = sqlite3_column_double(s, 2);
        row->active_uj = sqlite3_column_double(s, 3);
        row->idle_uj = sqlite3_column_double(s, 4);
        row->flags = (unsigned)sqlite3_column_int(s, 5);
    } else {
        row->delta_uj = sqlite3_column_double(s, 1);
        row->flags = (unsigned)sqlite3_column_int(s, 2);
        row->zone = wc_store_col_str(s, 3);
        row->active_uj = sqlite3_column_double(s, 4);
        row->idle_uj = 0;
    }
    return 1;
}

int wc_store_node_totals_open(wc_store *st, int64_t model_id, wc_store_iter **it,
                              wc_error *err)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT zone, SUM(delta_uj), SUM(active_uj), SUM(idle_uj),"
             " SUM((flags & %u) = 0), SUM((flags & %u) != 0), SUM((flags & %u) != 0),"
             " SUM((flags & %u) != 0), SUM((flags & %u) != 0), SUM((flags & %u) != 0),"
             " SUM((flags & %u) != 0)"
             " FROM node_attr WHERE model_id = ? GROUP BY zone ORDER BY MIN(rowid)",
             WC_AF_FIRST, WC_AF_SKIPPED, WC_AF_TOTALS_RESET, WC_AF_WRAP, WC_AF_UNMEASURABLE,
             WC_AF_REFRESH_FAILED, WC_AF_RATIO_RANGE);
    int rc = wc_store_iter_open(st, sql, WC_ITER_NODE_TOTALS, "reading node attribution", it, err);
    if (!rc)
        sqlite3_bind_int64((*it)->s, 1, model_id);
    return rc;
}

int wc_store_node_totals_next(wc_store_iter *it, wc_node_totals *row, wc_error *err)
{
    int rc = wc_store_iter_step(it, WC_ITER_NODE_TOTALS, err);
    if (rc != 1)
        return rc;
    sqlite3_stmt *s = it->s;
    row->zone = wc_store_col_str(s, 0);
    row->delta_uj = sqlite3_column_double(s, 1);
    row->active_uj = sqlite3_column_double(s, 2);
    row->idle_uj = sqlite3_column_double(s, 3);
    row->intervals = sqlite3_column_int64(s, 4);
    row->skipped = sqlite3_column_int64(s, 5);
    row->totals_reset = sqlite3_column_int64(s, 6);
    row->wraps = sqlite3_column_int64(s, 7);
    row->unmeasurable = sqlite3_column_int64(s, 8);
    row->refresh_failed = sqlite3_column_int64(s, 9);
    row->ratio_range = sqlite3_column_int64(s, 10);
    return 1;
}

/* work_key's (id, key) rows into the iterator, ids ascending, so a row's
 * key is found by its id in memory instead of a join on every row. */
static int load_keys(wc_store_iter *it, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(it->st, "SELECT id, key FROM work_key ORDER BY id", &s, err,
                              "reading work_key");
    size_t cap = 0;
    while (!rc && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        rc = 0;
        if (it->nkeys == cap) {
            cap = cap ? cap * 2 : 64;
            int64_t *ni = realloc(it->key_id, cap * sizeof *ni);
            it->key_id = ni ? ni : it->key_id;
            char **nk = ni ? realloc(it->key, cap * sizeof *nk) : NULL;
            it->key = nk ? nk : it->key;
            if (!nk)
                rc = -ENOMEM;
        }
        const char *k = rc ? NULL : wc_store_col_str(s, 1);
        if (!rc && !(it->key[it->nkeys] = strdup(k ? k : "")))
            rc = -ENOMEM;
        if (!rc)
            it->key_id[it->nkeys++] = sqlite3_column_int64(s, 0);
    }
    if (rc == SQLITE_DONE)
        rc = 0;
    else if (rc > 0)
        rc = wc_store_fail(it->st, err, "reading work_key");
    else if (rc == -ENOMEM)
        wc_error_set(err, rc, "%s: out of memory reading work_key", it->st->path);
    sqlite3_finalize(s);
    return rc;
}

/* A compact run (store_work_energy.c): one statement row per work_energy
 * row, in primary-key order (model, tick, level, workload: tick order with
 * no sort), its zones handed out one by one by wc_store_work_row_next. */
static int compact_rows_open(wc_store *st, int64_t model_id, int64_t tick_lo, int64_t tick_hi,
                             wc_store_iter **it, wc_error *err)
{
    const char *zone[1];
    size_t n = wc_store_attr_slots(st, zone, 0);
    sqlite3_str *q = sqlite3_str_new(NULL);
    sqlite3_str_appendall(q, "SELECT e.tick_id, e.level, e.wid, NULL, e.cpu_delta_s");
    for (int k = 0; k < (int)n; k++)
        sqlite3_str_appendf(q, ", e.e%d, e.f%d", k, k);
    sqlite3_str_appendall(q, " FROM work_energy e WHERE e.model_id = ?1 AND e.term = 0"
                             " AND e.tick_id >= ?2 AND e.tick_id < ?3"
                             " ORDER BY e.model_id, e.tick_id");
    char *sql = sqlite3_str_finish(q);
    if (!sql)
        return wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
    int rc = wc_store_iter_open(st, sql, WC_ITER_WORK_ROWS, "reading workload attribution", it,
                                err);
    sqlite3_free(sql);
    if (!rc && !((*it)->zone = malloc((n ? n : 1) * sizeof *(*it)->zone)))
        rc = wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
    if (!rc)
        wc_store_attr_slots(st, (*it)->zone, n);
    if (!rc)
        rc = load_keys(*it, err);
    if (rc && *it) {
        wc_store_iter_close(*it);
        *it = NULL;
    }
    if (rc)
        return rc;
    sqlite3_bind_int64((*it)->s, 1, model_id);
    sqlite3_bind_int64((*it)->s, 2, tick_lo);
    sqlite3_bind_int64((*it)->s, 3, tick_hi);
    (*it)->nslot = (*it)->slot = n;
    return 0;
}

int wc_store_work_rows_open_range(wc_store *st, int64_t model_id, int64_t tick_lo,
                                  int64_t tick_hi, wc_store_iter **it, wc_error *err)
{
    int compact = wc_store_attr_compact(st, err);
    if (compact <= 0)
        return compact < 0 ? compact : -ENOTSUP;
    return compact_rows_open(st, model_id, tick_lo, tick_hi, it, err);
}

int wc_store_work_keys_open(wc_store *st, int level, wc_store_iter **it, wc_error *err)
{
    int compact = wc_store_attr_compact(st, err);
    if (compact <= 0)
        return compact < 0 ? compact : -ENOTSUP;
    int rc = wc_store_iter_open(st, "SELECT key FROM work_key WHERE level = ? ORDER BY id",
                                WC_ITER_TEXT, "reading work_key", it, err);
    if (!rc)
        sqlite3_bind_int((*it)->s, 1, level);
    return rc;
}

size_t wc_store_work_rows_nkeys(const wc_store_iter *it)
{
    return it ? it->nkeys : 0;
}

/* Index of work_key id wid among the iterator's keys, -1 when it has none. */
static long key_slot(const wc_store_iter *it, int64_t wid)
{
    return wc_sorted_find_i64(it->key_id, it->nkeys, wid);
}

int wc_store_work_rows_open(wc_store *st, int64_t model_id, int tick_ordered,
                            wc_store_iter **it, wc_error *err)
{
    int compact = wc_store_attr_compact(st, err);
    if (compact < 0)
        return compact;
    if (compact)
        return compact_rows_open(st, model_id, INT64_MIN, INT64_MAX, it, err);
    /* terminated workloads (flag 4096, WC_AF_TERMINATED) hold no interval
     * energy or CPU: the levels never see them */
    const char *sql = tick_ordered
                          ? "SELECT tick_id, level, process_id, key, zone, energy_uj, cpu_delta_s,"
                            " flags FROM work_attr WHERE model_id = ?"
                            " AND (COALESCE(flags, 0) & 4096) = 0 ORDER BY tick_id"
                          : "SELECT tick_id, level, process_id, key, zone, energy_uj, cpu_delta_s,"
                            " flags FROM work_attr NOT INDEXED WHERE model_id = ?"
                            " AND (COALESCE(flags, 0) & 4096) = 0 ORDER BY rowid";
    int rc = wc_store_iter_open(st, sql, WC_ITER_WORK_ROWS, "reading workload attribution", it, err);
    if (!rc)
        sqlite3_bind_int64((*it)->s, 1, model_id);
    return rc;
}

/* Steps a compact stream to its next statement row and reads the columns
 * all of its zones share: 1 a row, 0 the end, < 0 an error. */
static int compact_step(wc_store_iter *it, wc_error *err)
{
    int rc = wc_store_iter_step(it, WC_ITER_WORK_ROWS, err);
    if (rc != 1)
        return rc;
    sqlite3_stmt *s = it->s;
    it->slot = 0;
    it->cur_tick = sqlite3_column_int64(s, 0);
    it->cur_level = sqlite3_column_int(s, 1);
    int is_proc = it->cur_level == WC_LEVEL_PROCESS;
    int64_t wid = sqlite3_column_int64(s, 2);
    it->cur_pid = is_proc ? (wid > 0 ? wid : 0) : -1;
    it->cur_slot = is_proc ? -1 : key_slot(it, wid);
    if (!is_proc && it->cur_slot < 0) /* only a hand edit */
        return wc_error_set(err, -EINVAL, "%s: a workload row of tick %lld names key %lld, which"
                            " work_key lacks: the file was edited by hand; nothing read from it",
                            it->st->path, (long long)it->cur_tick, (long long)wid);
    /* an INTEGER CPU delta is centiseconds (store_work_energy.c put_cpu) */
    it->cur_cpu = sqlite3_column_double(s, 4);
    if (sqlite3_column_type(s, 4) == SQLITE_INTEGER)
        it->cur_cpu /= 100.0;
    if (it->cur_level == WC_LEVEL_POD)
        it->cur_cpu = 0;
    return 1;
}

/* The next present zone of a compact row (stepping to the next row when
 * the current one has no more): 1 a row, 0 the end, < 0 an error. */
static int compact_row_next(wc_store_iter *it, wc_work_row *row, wc_error *err)
{
    sqlite3_stmt *s = it->s;
    for (;;) {
        while (it->slot < it->nslot && sqlite3_column_type(s, 6 + 2 * (int)it->slot) == SQLITE_NULL)
            it->slot++;
        if (it->slot < it->nslot)
            break;
        int rc = compact_step(it, err);
        if (rc != 1)
            return rc;
    }
    int k = (int)it->slot++;
    row->tick_id = it->cur_tick;
    row->zone = it->zone[k];
    row->zone_slot = k < 64 ? k : -1;
    row->level = it->cur_level;
    row->process_id = it->cur_pid;
    row->key_slot = it->cur_slot;
    row->key = it->cur_slot >= 0 ? it->key[it->cur_slot] : NULL;
    row->energy_uj = sqlite3_column_double(s, 5 + 2 * k);
    row->cpu_delta_s = it->cur_cpu;
    row->flags = (unsigned)sqlite3_column_int(s, 6 + 2 * k);
    return 1;
}

int wc_store_work_row_next(wc_store_iter *it, wc_work_row *row, wc_error *err)
{
    if (it && it->kind == WC_ITER_WORK_ROWS && it->nslot)
        return compact_row_next(it, row, err);
    int rc = wc_store_iter_step(it, WC_ITER_WORK_ROWS, err);
    if (rc != 1)
        return rc;
    sqlite3_stmt *s = it->s;
    row->tick_id = sqlite3_column_int64(s, 0);
    row->zone = wc_store_col_str(s, 4);
    /* only the columns the level uses: this runs once per stored row */
    row->level = sqlite3_column_int(s, 1);
    int is_proc = row->level == WC_LEVEL_PROCESS;
    row->process_id = is_proc ? sqlite3_column_int64(s, 2) : -1;
    row->key = is_proc ? NULL : wc_store_col_str(s, 3);
    row->key_slot = -1;
    row->zone_slot = -1;
    row->energy_uj = sqlite3_column_double(s, 5);
    row->cpu_delta_s = row->level == WC_LEVEL_POD ? 0 : sqlite3_column_double(s, 6);
    /* every level: a container's or pod's NEGATIVE_SHARE row is excluded too */
    row->flags = (unsigned)sqlite3_column_int(s, 7);
    return 1;
}
