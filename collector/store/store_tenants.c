/*
 * store_tenants.c — the attributed energy of tenants and of the node, read
 * back per model and zone (store_results.h): per-key totals and per-tick
 * rows of work_attr for `wattcal diff` (validator/diff.c), the top tenants
 * and their per-tick rows for the report's stacked figure
 * (reports/figures.c), the node_attr rows and zones, and the process names.
 * Each query is the one its reader ran before it moved here, streamed
 * through a wc_store_rows iterator.
 */
#include <errno.h>
#include <stdlib.h>

#include "collector/store/store_internal.h"
#include "collector/store/store_results.h"

/* What an iterator yields: its next function must match. */
typedef enum rows_kind { ROWS_TENANT, ROWS_NODE, ROWS_NAME } rows_kind;

struct wc_store_rows {
    wc_store *st;
    sqlite3_stmt *s;
    rows_kind kind;
    const char *what;             /* for error messages: "reading workload rows" */
};

/* diff: per-tick rows of a level (every row). */
static const char *level_rows_sql(wc_tenant_level l)
{
    switch (l) {
    case WC_TENANT_POD:
        return "SELECT tick_id, key, energy_uj FROM work_attr WHERE model_id = ? AND level = 3 AND zone = ?";
    case WC_TENANT_CONTAINER:
        return "SELECT tick_id, key, energy_uj FROM work_attr WHERE model_id = ? AND level = 2 AND zone = ?";
    default:
        return "SELECT w.tick_id, p.comm, w.energy_uj FROM work_attr w JOIN process p ON"
               " p.id = w.process_id WHERE w.model_id = ? AND w.level = 1 AND w.zone = ?";
    }
}

/* diff: per-key totals of a level. */
static const char *level_totals_sql(wc_tenant_level l)
{
    switch (l) {
    case WC_TENANT_POD:
        return "SELECT key, SUM(energy_uj) FROM work_attr WHERE model_id = ? AND level = 3 AND"
               " zone = ? AND key != '' GROUP BY key";
    case WC_TENANT_CONTAINER:
        return "SELECT key, SUM(energy_uj) FROM work_attr WHERE model_id = ? AND level = 2 AND"
               " zone = ? AND key != '' GROUP BY key";
    default:
        return "SELECT p.comm, SUM(w.energy_uj) FROM work_attr w JOIN process p ON"
               " p.id = w.process_id WHERE w.model_id = ? AND w.level = 1 AND w.zone = ?"
               " GROUP BY p.comm";
    }
}

/* report: the top keys, and per-tick rows with energy (?1 model, ?2 level,
 * ?3 zone, ?4 limit). */
static const char TOTALS_BY_KEY[] =
    "SELECT key, SUM(energy_uj) AS e FROM work_attr WHERE model_id = ?1 AND level = ?2 AND zone = ?3"
    " GROUP BY key HAVING e > 0 ORDER BY e DESC, key LIMIT ?4";
static const char ROWS_BY_KEY[] =
    "SELECT w.tick_id, w.key, w.energy_uj FROM work_attr w"
    " WHERE w.model_id = ?1 AND w.level = ?2 AND w.zone = ?3 AND w.energy_uj > 0";
static const char ROWS_BY_COMM[] =
    "SELECT w.tick_id, p.comm, w.energy_uj FROM work_attr w JOIN process p ON p.id = w.process_id"
    " WHERE w.model_id = ?1 AND w.level = 1 AND w.zone = ?3 AND ?2 = 1 AND w.energy_uj > 0";

/* Prepares sql into a new iterator. Returns 0 or -ENOMEM/-EIO. */
static int rows_open(wc_store *st, const char *sql, rows_kind kind, const char *what,
                     wc_store_rows **out, wc_error *err)
{
    *out = NULL;
    wc_store_rows *r = calloc(1, sizeof *r);
    if (!r)
        return wc_error_set(err, -ENOMEM, "out of memory");
    int rc = wc_store_prepare(st, sql, &r->s, err, what);
    if (rc) {
        free(r);
        return rc;
    }
    r->st = st;
    r->kind = kind;
    r->what = what;
    *out = r;
    return 0;
}

/* Binds model (1), zone (2), and for the report's queries level (2), zone
 * (3) and a positive limit (4). */
static int tenant_open(wc_store *st, const char *sql, int numbered, int64_t model_id,
                       wc_tenant_level level, const char *zone, int limit, const char *what,
                       wc_store_rows **out, wc_error *err)
{
    int rc = rows_open(st, sql, ROWS_TENANT, what, out, err);
    if (rc)
        return rc;
    sqlite3_stmt *s = (*out)->s;
    sqlite3_bind_int64(s, 1, model_id);
    if (!numbered) {
        sqlite3_bind_text(s, 2, zone, -1, SQLITE_TRANSIENT);
        return 0;
    }
    sqlite3_bind_int(s, 2, (int)level);
    sqlite3_bind_text(s, 3, zone, -1, SQLITE_TRANSIENT);
    if (limit > 0)
        sqlite3_bind_int(s, 4, limit);
    return 0;
}

int wc_store_tenant_totals(wc_store *st, int64_t model_id, wc_tenant_level level,
                           const char *zone, wc_store_rows **rows, wc_error *err)
{
    return tenant_open(st, level_totals_sql(level), 0, model_id, level, zone, 0,
                       "reading workload totals", rows, err);
}

int wc_store_tenant_top(wc_store *st, int64_t model_id, wc_tenant_level level,
                        const char *zone, int limit, wc_store_rows **rows, wc_error *err)
{
    return tenant_open(st, TOTALS_BY_KEY, 1, model_id, level, zone, limit,
                       "reading the attributed energy", rows, err);
}

int wc_store_tenant_rows(wc_store *st, int64_t model_id, wc_tenant_level level,
                         const char *zone, wc_tenant_rows_kind kind, wc_store_rows **rows,
                         wc_error *err)
{
    if (kind == WC_TENANT_ROWS_ALL)
        return tenant_open(st, level_rows_sql(level), 0, model_id, level, zone, 0,
                           "reading workload rows", rows, err);
    return tenant_open(st, level == WC_TENANT_PROCESS ? ROWS_BY_COMM : ROWS_BY_KEY, 1, model_id,
                       level, zone, 0, "reading the attributed energy", rows, err);
}

/* Steps r, which must be of kind k: 1 = a row, 0 = done, <0 error. */
static int rows_step(wc_store_rows *r, rows_kind k, wc_error *err)
{
    if (!r || r->kind != k)
        return wc_error_set(err, -EINVAL, "store: a row iterator stepped as another kind");
    int step = sqlite3_step(r->s);
    if (step == SQLITE_ROW)
        return 1;
    return step == SQLITE_DONE ? 0 : wc_store_fail(r->st, err, r->what);
}

/* Columns of totals and top are (key, energy); of per-tick rows (tick, key,
 * energy). */
int wc_store_tenant_next(wc_store_rows *rows, wc_tenant_row *row, wc_error *err)
{
    int rc = rows_step(rows, ROWS_TENANT, err);
    if (rc <= 0)
        return rc;
    sqlite3_stmt *s = rows->s;
    int per_tick = sqlite3_column_count(s) == 3;
    row->tick_id = per_tick ? sqlite3_column_int64(s, 0) : 0;
    row->key = (const char *)sqlite3_column_text(s, per_tick);
    row->energy_uj = sqlite3_column_double(s, per_tick + 1);
    return 1;
}

int wc_store_node_rows(wc_store *st, int64_t model_id, const char *zone, wc_store_rows **rows,
                       wc_error *err)
{
    int rc = rows_open(st, "SELECT tick_id, delta_uj, active_uj FROM node_attr WHERE"
                           " model_id = ? AND zone = ?", ROWS_NODE, "reading node rows", rows, err);
    if (rc)
        return rc;
    sqlite3_bind_int64((*rows)->s, 1, model_id);
    sqlite3_bind_text((*rows)->s, 2, zone, -1, SQLITE_TRANSIENT);
    return 0;
}

int wc_store_node_next(wc_store_rows *rows, wc_node_energy_row *row, wc_error *err)
{
    int rc = rows_step(rows, ROWS_NODE, err);
    if (rc <= 0)
        return rc;
    row->tick_id = sqlite3_column_int64(rows->s, 0);
    row->delta_uj = sqlite3_column_double(rows->s, 1);
    row->active_uj = sqlite3_column_double(rows->s, 2);
    return 1;
}

int wc_store_process_names(wc_store *st, wc_store_rows **rows, wc_error *err)
{
    return rows_open(st, "SELECT id, comm FROM process ORDER BY comm, id", ROWS_NAME,
                     "reading the attributed energy", rows, err);
}

int wc_store_node_zones(wc_store *st, int64_t model_id, wc_store_rows **rows, wc_error *err)
{
    int rc = rows_open(st, "SELECT DISTINCT zone FROM node_attr WHERE model_id = ?", ROWS_NAME,
                       "reading zones", rows, err);
    if (!rc)
        sqlite3_bind_int64((*rows)->s, 1, model_id);
    return rc;
}

/* Columns are (id, name) for processes, (name) for zones. */
int wc_store_name_next(wc_store_rows *rows, wc_name_row *row, wc_error *err)
{
    int rc = rows_step(rows, ROWS_NAME, err);
    if (rc <= 0)
        return rc;
    int with_id = sqlite3_column_count(rows->s) == 2;
    row->id = with_id ? sqlite3_column_int64(rows->s, 0) : 0;
    row->name = (const char *)sqlite3_column_text(rows->s, with_id);
    return 1;
}

void wc_store_rows_close(wc_store_rows *rows)
{
    if (!rows)
        return;
    sqlite3_finalize(rows->s);
    free(rows);
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
