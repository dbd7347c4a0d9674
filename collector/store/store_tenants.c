/*
 * store_tenants.c — the attributed energy of tenants (pods, containers,
 * process names) read back per model and zone (store_results.h): per-key
 * totals and per-tick rows of work_attr for `wattcal diff`
 * (validator/diff.c), and the top tenants and their per-tick rows for the
 * report's stacked figure (reports/figures.c). Each query is the one its
 * reader ran before it moved here, streamed through a wc_store_iter; and
 * each VM's total with its labels (validate's levels, `wattcal attribute`).
 * No reader here sees a row flagged NEGATIVE_SHARE (64): Kepler's share
 * wrapped to ~2^64 µJ by pid reuse is no energy (validator/levels.h counts
 * and reports those rows instead).
 */
#include <errno.h>
#include <sqlite3.h>
#include <string.h>

#include "collector/store/store_iter.h"
#include "collector/store/store_results.h"

/* diff, exporter second opinion: per-tick rows of a level (every row but the Kepler models'
 * terminated workloads, flag 4096: they hold no interval energy). */
static const char *level_rows_sql(wc_attr_level l)
{
    switch (l) {
    case WC_LEVEL_POD:
        return "SELECT tick_id, key, energy_uj FROM work_attr WHERE model_id = ? AND level = 3 AND"
               " zone = ? AND (COALESCE(flags, 0) & 4160) = 0";
    case WC_LEVEL_CONTAINER:
        return "SELECT tick_id, key, energy_uj FROM work_attr WHERE model_id = ? AND level = 2 AND"
               " zone = ? AND (COALESCE(flags, 0) & 4160) = 0";
    case WC_LEVEL_VM:
        return "SELECT tick_id, key, energy_uj FROM work_attr WHERE model_id = ? AND level = 4 AND"
               " zone = ? AND (COALESCE(flags, 0) & 4160) = 0";
    default:
        return "SELECT w.tick_id, p.comm, w.energy_uj FROM work_attr w JOIN process p ON"
               " p.id = w.process_id WHERE w.model_id = ? AND w.level = 1 AND w.zone = ?"
               " AND (COALESCE(w.flags, 0) & 4160) = 0";
    }
}

/* second opinion: the NEGATIVE_SHARE rows (flag 64) of a level, pods,
 * containers and VMs by key (processes are read by validator/levels.c's
 * reader, wc_store_work_rows_open). */
static const char NEGATIVE_ROWS[] =
    "SELECT tick_id, key, energy_uj FROM work_attr WHERE model_id = ?1 AND level = ?2 AND"
    " zone = ?3 AND (COALESCE(flags, 0) & 64) != 0";

/* diff: per-key totals of a level. */
static const char *level_totals_sql(wc_attr_level l)
{
    switch (l) {
    case WC_LEVEL_POD:
        return "SELECT key, SUM(energy_uj) FROM work_attr WHERE model_id = ? AND level = 3 AND"
               " zone = ? AND key != '' AND (COALESCE(flags, 0) & 64) = 0 GROUP BY key";
    case WC_LEVEL_CONTAINER:
        return "SELECT key, SUM(energy_uj) FROM work_attr WHERE model_id = ? AND level = 2 AND"
               " zone = ? AND key != '' AND (COALESCE(flags, 0) & 64) = 0 GROUP BY key";
    case WC_LEVEL_VM:
        return "SELECT key, SUM(energy_uj) FROM work_attr WHERE model_id = ? AND level = 4 AND"
               " zone = ? AND key != '' AND (COALESCE(flags, 0) & 64) = 0 GROUP BY key";
    default:
        return "SELECT p.comm, SUM(w.energy_uj) FROM work_attr w JOIN process p ON"
               " p.id = w.process_id WHERE w.model_id = ? AND w.level = 1 AND w.zone = ?"
               " AND (COALESCE(w.flags, 0) & 64) = 0 GROUP BY p.comm";
    }
}

/* report: the top keys, and per-tick rows with energy (?1 model, ?2 level,
 * ?3 zone, ?4 limit). */
static const char TOTALS_BY_KEY[] =
    "SELECT key, SUM(energy_uj) AS e FROM work_attr WHERE model_id = ?1 AND level = ?2 AND zone = ?3"
    " AND (COALESCE(flags, 0) & 64) = 0 GROUP BY key HAVING e > 0 ORDER BY e DESC, key LIMIT ?4";
static const char ROWS_BY_KEY[] =
    "SELECT w.tick_id, w.key, w.energy_uj FROM work_attr w"
    " WHERE w.model_id = ?1 AND w.level = ?2 AND w.zone = ?3 AND w.energy_uj > 0"
    " AND (COALESCE(w.flags, 0) & 64) = 0";
static const char ROWS_BY_COMM[] =
    "SELECT w.tick_id, p.comm, w.energy_uj FROM work_attr w JOIN process p ON p.id = w.process_id"
    " WHERE w.model_id = ?1 AND w.level = 1 AND w.zone = ?3 AND ?2 = 1 AND w.energy_uj > 0"
    " AND (COALESCE(w.flags, 0) & 64) = 0";

/* What compact_sql reads as the key of a row whose key id work_key lacks
 * (a hand-edited file): wc_store_tenant_next refuses it. */
#define MISSING_KEY "\001missing:"

/* A compact run (schema 6, store_work_energy.c): sql with "FROM work_attr"
 * read from the zone's slot of work_energy directly, a subquery SQLite
 * flattens — through the view (one UNION arm per zone) a query is about
 * twice as slow (make bench, 24 h run). NULL when sql is to run as it is
 * (a table run, a zone the run never attributed); *rc -ENOMEM or < 0. */
static char *compact_sql(wc_store *st, const char *sql, const char *zone, int *rc,
                         wc_error *err)
{
    const char *names[64];
    *rc = wc_store_attr_compact(st, err);
    size_t n = *rc == 1 ? wc_store_attr_slots(st, names, 64) : 0, k = 0;
    while (k < n && k < 64 && strcmp(names[k], zone ? zone : ""))
        k++;
    const char *from = strstr(sql, "FROM work_attr");
    if (*rc < 0 || k >= n || k >= 64 || !from)
        return *rc < 0 ? NULL : (*rc = 0, NULL);
    char *out = sqlite3_mprintf(
        "%.*sFROM (SELECT e.model_id AS model_id, e.tick_id AS tick_id, e.level AS level,"
        " CASE WHEN e.level = 1 AND e.wid > 0 THEN e.wid END AS process_id,"
        " CASE WHEN e.level = 1 THEN '' ELSE COALESCE((SELECT key FROM work_key WHERE id = e.wid),"
        " char(1) || 'missing:' || e.wid) END AS key, %Q AS zone, e.e%d AS energy_uj, e.f%d AS flags FROM work_energy e"
        " WHERE e.f%d IS NOT NULL)%s", (int)(from - sql), sql, zone, (int)k, (int)k, (int)k,
        from + strlen("FROM work_attr"));
    *rc = out ? 0 : wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
    return out;
}

/* Opens sql as kind and binds model (1), zone (2), and for the report's
 * queries level (2), zone (3) and a positive limit (4). */
static int tenant_open(wc_store *st, const char *sql, wc_iter_kind kind, int numbered,
                       int64_t model_id, wc_attr_level level, const char *zone, int limit,
                       const char *what, wc_store_iter **it, wc_error *err)
{
    int rc = 0;
    char *direct = compact_sql(st, sql, zone, &rc, err);
    if (!rc)
        rc = wc_store_iter_open(st, direct ? direct : sql, kind, what, it, err);
    sqlite3_free(direct);
    if (rc)
        return rc;
    sqlite3_stmt *s = (*it)->s;
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

int wc_store_tenant_totals_open(wc_store *st, int64_t model_id, wc_attr_level level,
                                const char *zone, wc_store_iter **it, wc_error *err)
{
    return tenant_open(st, level_totals_sql(level), WC_ITER_TENANT_TOTALS, 0, model_id, level,
                       zone, 0, "reading workload totals", it, err);
}

int wc_store_tenant_top_open(wc_store *st, int64_t model_id, wc_attr_level level,
                             const char *zone, int limit, wc_store_iter **it, wc_error *err)
{
    return tenant_open(st, TOTALS_BY_KEY, WC_ITER_TENANT_TOTALS, 1, model_id, level, zone, limit,
                       "reading the attributed energy", it, err);
}

int wc_store_tenant_rows_open(wc_store *st, int64_t model_id, wc_attr_level level,
                              const char *zone, wc_tenant_rows_kind kind, wc_store_iter **it,
                              wc_error *err)
{
    if (kind == WC_TENANT_ROWS_ALL)
        return tenant_open(st, level_rows_sql(level), WC_ITER_TENANT_ROWS, 0, model_id, level,
                           zone, 0, "reading workload rows", it, err);
    if (kind == WC_TENANT_ROWS_NEGATIVE_SHARE)
        return tenant_open(st, NEGATIVE_ROWS, WC_ITER_TENANT_ROWS, 1, model_id, level, zone, 0,
                           "reading the negative-share rows", it, err);
    return tenant_open(st, level == WC_LEVEL_PROCESS ? ROWS_BY_COMM : ROWS_BY_KEY,
                       WC_ITER_TENANT_ROWS, 1, model_id, level, zone, 0,
                       "reading the attributed energy", it, err);
}

/* Columns of totals and top are (key, energy); of per-tick rows (tick, key,
 * energy). */
int wc_store_tenant_next(wc_store_iter *it, wc_tenant_row *row, wc_error *err)
{
    int per_tick = it && it->kind == WC_ITER_TENANT_ROWS;
    int rc = wc_store_iter_step(it, per_tick ? WC_ITER_TENANT_ROWS : WC_ITER_TENANT_TOTALS, err);
    if (rc != 1)
        return rc;
    sqlite3_stmt *s = it->s;
    row->tick_id = per_tick ? sqlite3_column_int64(s, 0) : 0;
    row->key = wc_store_col_str(s, per_tick);
    row->energy_uj = sqlite3_column_double(s, per_tick + 1);
    if (!strncmp(row->key, MISSING_KEY, strlen(MISSING_KEY))) /* only a hand edit */
        return wc_error_set(err, -EINVAL, "%s: a workload row names key %s, which work_key lacks:"
                            " the file was edited by hand; nothing read from it", it->st->path,
                            row->key + strlen(MISSING_KEY));
    return 1;
}

/* VMs: per (zone, vm_id) totals, labels from the latest process with that
 * vm_id (the same VM keeps one name; a later one wins if it changed). Zones
 * come in the order of their first VM row: the table's rowid, or in a
 * compact run (a view has no rowid) the first tick, then the zone's slot. */
#define VM_TOTALS_SUMS(first)                                                              \
    "WITH v AS (SELECT zone, key, SUM(energy_uj) AS e, SUM(cpu_delta_s) AS c, MIN(" first  \
    ") AS r FROM work_attr WHERE model_id = ?1 AND level = 4 AND (COALESCE(flags, 0) & 4160) = 0" \
    " GROUP BY zone, key),"                                                                     \
    " z AS (SELECT zone, MIN(r) AS zr FROM v GROUP BY zone)"
#define VM_FIRST_COMPACT "tick_id * 4096 + (SELECT slot FROM attr_zone a WHERE a.name = zone)"
#define VM_TOTALS_ORDER " FROM v JOIN z ON z.zone = v.zone ORDER BY z.zr, v.e DESC, v.key"
#define VM_TOTALS_LABELLED                                                                   \
    " SELECT v.zone, v.key,"                                                                 \
    " COALESCE((SELECT vm_name FROM process WHERE vm_id = v.key ORDER BY id DESC LIMIT 1), ''),"   \
    " COALESCE((SELECT hypervisor FROM process WHERE vm_id = v.key ORDER BY id DESC LIMIT 1), ''),"\
    " v.e, v.c, (SELECT COUNT(*) FROM process WHERE vm_id = v.key)" VM_TOTALS_ORDER
static const char VM_TOTALS[] = VM_TOTALS_SUMS("rowid") VM_TOTALS_LABELLED;
static const char VM_TOTALS_COMPACT[] = VM_TOTALS_SUMS(VM_FIRST_COMPACT) VM_TOTALS_LABELLED;
/* a compact run with no VM key interned has no VM row: no scan of every row
 * (three through the view) to find none */
static const char VM_TOTALS_NONE[] = "SELECT '', '', '', '', 0, 0, 0 WHERE 0";
static const char HAS_VM_KEY[] = "SELECT 1 FROM work_key WHERE level = 4 LIMIT 1";
/* a run recorded before the VM columns (schema 3 and 4, or an early 5): no labels */
static const char VM_TOTALS_UNLABELLED[] =
    VM_TOTALS_SUMS("rowid") " SELECT v.zone, v.key, '', '', v.e, v.c, 0" VM_TOTALS_ORDER;

int wc_store_vm_totals_open(wc_store *st, int64_t model_id, wc_store_iter **it, wc_error *err)
{
    int labelled = wc_store_has_column(st, "process", "vm_id");
    if (labelled < 0)
        return wc_store_fail(st, err, "reading VM attribution");
    int compact = wc_store_attr_compact(st, err); /* version 6: always labelled */
    if (compact < 0)
        return compact;
    sqlite3_stmt *s = NULL;
    int has_vm = 0;
    if (compact) {
        int rc = wc_store_prepare(st, HAS_VM_KEY, &s, err, "reading VM attribution");
        if (rc)
            return rc;
        int step = sqlite3_step(s);
        sqlite3_finalize(s);
        if (step != SQLITE_ROW && step != SQLITE_DONE)
            return wc_store_fail(st, err, "reading VM attribution");
        has_vm = step == SQLITE_ROW;
    }
    const char *sql = compact ? (has_vm ? VM_TOTALS_COMPACT : VM_TOTALS_NONE)
                              : labelled ? VM_TOTALS : VM_TOTALS_UNLABELLED;
    int rc = wc_store_iter_open(st, sql, WC_ITER_VM_TOTALS, "reading VM attribution", it, err);
    if (!rc && sql != VM_TOTALS_NONE)
        sqlite3_bind_int64((*it)->s, 1, model_id);
    return rc;
}

int wc_store_vm_total_next(wc_store_iter *it, wc_vm_total *row, wc_error *err)
{
    int rc = wc_store_iter_step(it, WC_ITER_VM_TOTALS, err);
    if (rc != 1)
        return rc;
    sqlite3_stmt *s = it->s;
    row->zone = wc_store_col_str(s, 0);
    row->vm_id = wc_store_col_str(s, 1);
    row->vm_name = wc_store_col_str(s, 2);
    row->hypervisor = wc_store_col_str(s, 3);
    row->energy_uj = sqlite3_column_double(s, 4);
    row->cpu_s = sqlite3_column_double(s, 5);
    row->processes = sqlite3_column_int64(s, 6);
    return 1;
}
