/*
 * store_series.c — the readers behind the validator's series (store_read.h):
 * ticks (ids and clocks, the ids inside a time window, cpu lines), zone
 * names and the raw zone samples of counters and gauges. The zone-sample
 * statements stream by zone then tick, one pass however long the run.
 */
#include <string.h>

#include "collector/store/store_iter.h"
#include "collector/store/store_read.h"

int wc_store_get_ticks(wc_store *st, int64_t *id, int64_t *mono_ns, int64_t *boot_ns,
                       size_t cap, size_t *n, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    *n = 0;
    int rc = wc_store_prepare(st, "SELECT id, mono_ns, COALESCE(boot_ns, 0) FROM tick ORDER BY id",
                              &s, err, "reading ticks");
    if (rc)
        return rc;
    int step = SQLITE_DONE;
    while (*n < cap && (step = sqlite3_step(s)) == SQLITE_ROW) {
        id[*n] = sqlite3_column_int64(s, 0);
        mono_ns[*n] = sqlite3_column_int64(s, 1);
        boot_ns[*n] = sqlite3_column_int64(s, 2);
        (*n)++;
    }
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "reading ticks");
}

int wc_store_get_tick_walls(wc_store *st, int64_t *wall_ns, size_t cap, size_t *n, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    *n = 0;
    int rc = wc_store_prepare(st, "SELECT COALESCE(wall_ns, 0) FROM tick ORDER BY id", &s, err,
                              "reading ticks");
    if (rc)
        return rc;
    int step = SQLITE_DONE;
    while (*n < cap && (step = sqlite3_step(s)) == SQLITE_ROW)
        wall_ns[(*n)++] = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "reading ticks");
}

int wc_store_tick_ids_between(wc_store *st, int64_t t0_ns, int64_t t1_ns, int64_t *first,
                              int64_t *last, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    *first = 0;
    *last = -1;
    int rc = wc_store_prepare(st, "SELECT MIN(id), MAX(id) FROM tick WHERE mono_ns >= ? AND mono_ns <= ?",
                              &s, err, "reading ticks");
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, t0_ns);
    sqlite3_bind_int64(s, 2, t1_ns);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
        *first = sqlite3_column_int64(s, 0);
        *last = sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
    return step == SQLITE_ROW ? 0 : wc_store_fail(st, err, "reading ticks");
}

int wc_store_tick_cpu_open(wc_store *st, wc_store_iter **it, wc_error *err)
{
    return wc_store_iter_open(st,
                              "SELECT id, cpu_user, cpu_nice, cpu_system, cpu_idle, cpu_iowait, cpu_irq,"
                              " cpu_softirq, cpu_steal, cpu_ok, util_pct FROM tick ORDER BY id",
                              WC_ITER_TICK_CPU, "reading CPU utilisation", it, err);
}

int wc_store_tick_cpu_next(wc_store_iter *it, wc_tick_cpu *row, wc_error *err)
{
    int rc = wc_store_iter_step(it, WC_ITER_TICK_CPU, err);
    if (rc != 1)
        return rc;
    sqlite3_stmt *s = it->s;
    row->tick_id = sqlite3_column_int64(s, 0);
    for (int k = 0; k < 8; k++)
        row->field[k] = (uint64_t)sqlite3_column_int64(s, 1 + k);
    row->cpu_ok = sqlite3_column_int(s, 9);
    row->has_util = sqlite3_column_type(s, 10) != SQLITE_NULL;
    row->util_pct = row->has_util ? sqlite3_column_double(s, 10) : 0;
    return 1;
}

static const char *kind_text(wc_reading_kind kind)
{
    return kind == WC_KIND_GAUGE_UW ? "gauge_uw" : "counter_uj";
}

int wc_store_zone_names_open(wc_store *st, wc_reading_kind kind, wc_store_iter **it,
                             wc_error *err)
{
    int rc = wc_store_iter_open(st, "SELECT name FROM zone WHERE kind = ? GROUP BY name ORDER BY MIN(id)",
                                WC_ITER_TEXT, "reading zones", it, err);
    if (!rc)
        sqlite3_bind_text((*it)->s, 1, kind_text(kind), -1, SQLITE_STATIC);
    return rc;
}

int wc_store_zone_samples_open(wc_store *st, wc_reading_kind kind, const char *const *names,
                               wc_store_iter **it, wc_error *err)
{
    if (kind == WC_KIND_GAUGE_UW)
        return wc_store_open_in_list(st,
                                     "SELECT zs.zone_id, zs.tick_id, zs.value, zs.status,"
                                     " z.max_energy_range_uj FROM zone_sample zs JOIN zone z ON"
                                     " z.id = zs.zone_id WHERE z.kind = 'gauge_uw' AND z.name",
                                     " ORDER BY zs.zone_id, zs.tick_id", names, 1,
                                     WC_ITER_ZONE_BY_NAME, "reading gauge zones", it, err);
    return wc_store_open_in_list(st,
                                 "SELECT zs.zone_id, zs.tick_id, zs.value, zs.status,"
                                 " z.max_energy_range_uj FROM zone_sample zs JOIN zone z ON"
                                 " z.id = zs.zone_id WHERE z.kind = 'counter_uj' AND z.name",
                                 " ORDER BY zs.tick_id", names, 1,
                                 WC_ITER_ZONE_BY_NAME, "reading meter zones", it, err);
}

int wc_store_counter_samples_open(wc_store *st, wc_store_iter **it, wc_error *err)
{
    return wc_store_iter_open(st,
                              "SELECT zs.zone_id, z.name, z.max_energy_range_uj, zs.value,"
                              " zs.status, t.mono_ns FROM zone_sample zs"
                              " JOIN zone z ON z.id = zs.zone_id JOIN tick t ON t.id = zs.tick_id"
                              " WHERE z.kind = 'counter_uj' ORDER BY zs.tick_id",
                              WC_ITER_ZONE_COUNTERS, "reading zone samples", it, err);
}

int wc_store_node_counters_open(wc_store *st, int64_t first_tick, int64_t last_tick,
                                wc_store_iter **it, wc_error *err)
{
    int rc = wc_store_iter_open(st,
                                "SELECT zs.zone_id, z.max_energy_range_uj, zs.value, zs.status, t.mono_ns"
                                " FROM zone_sample zs JOIN zone z ON z.id = zs.zone_id"
                                " JOIN tick t ON t.id = zs.tick_id WHERE z.kind = 'counter_uj'"
                                " AND z.name IN ('package', 'dram') AND zs.tick_id BETWEEN ? AND ?"
                                " ORDER BY zs.tick_id",
                                WC_ITER_ZONE_NODE_WINDOW, "reading phase energy", it, err);
    if (!rc) {
        sqlite3_bind_int64((*it)->s, 1, first_tick);
        sqlite3_bind_int64((*it)->s, 2, last_tick);
    }
    return rc;
}

/* The value column of a zone sample. */
static void read_value(sqlite3_stmt *s, int col, wc_zone_sample *row)
{
    int type = sqlite3_column_type(s, col);
    row->type = type == SQLITE_INTEGER ? WC_VALUE_INTEGER
                : type == SQLITE_FLOAT ? WC_VALUE_REAL : WC_VALUE_OTHER;
    row->value = type == SQLITE_INTEGER ? sqlite3_column_int64(s, col) : 0;
    row->value_real = row->type != WC_VALUE_OTHER ? sqlite3_column_double(s, col) : 0;
}

/* Column positions of zone_id, tick_id, name, max_range, value, status, mono
 * per statement shape (-1: not selected). */
static const int ZONE_COLS[3][7] = {
    {0, 1, -1, 4, 2, 3, -1}, /* WC_ITER_ZONE_BY_NAME */
    {0, -1, 1, 2, 3, 4, 5},  /* WC_ITER_ZONE_COUNTERS */
    {0, -1, -1, 1, 2, 3, 4}, /* WC_ITER_ZONE_NODE_WINDOW */
};

int wc_store_zone_sample_next(wc_store_iter *it, wc_zone_sample *row, wc_error *err)
{
    int shape = !it ? -1 : it->kind == WC_ITER_ZONE_BY_NAME ? 0
                         : it->kind == WC_ITER_ZONE_COUNTERS ? 1
                         : it->kind == WC_ITER_ZONE_NODE_WINDOW ? 2 : -1;
    int rc = wc_store_iter_step(it, shape < 0 ? WC_ITER_ZONE_BY_NAME : it->kind, err);
    if (rc != 1)
        return rc;
    const int *c = ZONE_COLS[shape];
    sqlite3_stmt *s = it->s;
    memset(row, 0, sizeof *row);
    row->zone_id = sqlite3_column_int64(s, c[0]);
    row->tick_id = c[1] >= 0 ? sqlite3_column_int64(s, c[1]) : 0;
    row->name = c[2] >= 0 ? wc_store_col_str(s, c[2]) : NULL;
    row->max_range_uj = (uint64_t)sqlite3_column_int64(s, c[3]);
    read_value(s, c[4], row);
    row->status = sqlite3_column_int(s, c[5]);
    row->mono_ns = c[6] >= 0 ? sqlite3_column_int64(s, c[6]) : 0;
    return 1;
}
