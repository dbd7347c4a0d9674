/*
 * store_work_energy.c — the compact layout of a model's workload rows
 * (schema version 6, docs/schema.md "work_energy"): one WITHOUT ROWID row
 * per (model, tick, level, workload, terminated) with the run's attribution
 * zones in slot columns (e<k> energy, t<k> total, p<k> power, f<k> flags),
 * container ids, pod uids and VM ids interned in work_key, and a view named
 * work_attr with the columns of the old table (with INSTEAD OF triggers) so
 * every SQL reader and the tests' fixtures keep working.
 *
 * A new run is created with attr_zone and work_key (the marker of a run
 * that takes the layout) and a real, empty work_attr table: a run with no
 * attribution, or an imported one, reads as before. The first attribution
 * write of such a run renames the empty table away (work_attr_empty, dropped
 * with the indexes) and creates work_energy (one slot per zone of
 * out->node[]) and the view, inside the tick's transaction. A
 * run whose work_attr table holds rows (every run of schema 5 and older)
 * keeps its table and is written row by row as before (store_write.c).
 *
 * p<k> is NULL when the power equals, bit for bit, Kepler's derivation
 * (cpu_delta_s / cpu_delta_sum_s) × active_uw (attr_kepler.c kepler_share)
 * that the view recomputes from node_attr; SQLite computes the same doubles
 * (x86-64, -std=c17: no FMA contraction; test_store_compact proves it).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "collector/store/store_internal.h"

enum { LAYOUT_UNKNOWN = 0, LAYOUT_TABLE, LAYOUT_PENDING, LAYOUT_COMPACT };

/* One interned key: (level, key) → work_key.id. */
typedef struct key_slot {
    char *key;                   /* NULL: empty slot */
    int level;
    int64_t id;
} key_slot;

struct wc_work_energy {
    int layout;                  /* LAYOUT_*: work_attr a table, pending, or compact */
    size_t nslot;                /* attr_zone rows */
    char (*zone)[WC_ATTR_ZONE_NAME_MAX]; /* their names, slot order */
    key_slot *keys;              /* open addressing, power-of-two capacity */
    size_t nkeys, capkeys;
    int keys_loaded;             /* work_key read into keys[] */
    sqlite3_stmt *ins, *key_ins, *find_proc;
    size_t *map;                 /* the writer's scratch, grown (no allocation per tick in */
    struct slot_val *val;        /* the steady state): node index -> slot; the tick's rows' */
    struct queued *rows;         /* slots (nslot each) and keys, inserted in key order */
    size_t cap_map, cap_val, cap_rows, nrows;
};

/* ---- the key cache ------------------------------------------------------ */

static size_t key_hash(int level, const char *key)
{
    uint64_t h = 1469598103934665603u ^ (uint64_t)level;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    return (size_t)h;
}

static key_slot *key_find(wc_work_energy *we, int level, const char *key)
{
    if (!we->capkeys)
        return NULL;
    size_t m = we->capkeys - 1;
    for (size_t i = key_hash(level, key) & m;; i = (i + 1) & m) {
        key_slot *k = &we->keys[i];
        if (!k->key || (k->level == level && !strcmp(k->key, key)))
            return k;
    }
}

static int key_grow(wc_work_energy *we)
{
    size_t ncap = we->capkeys ? we->capkeys * 2 : 256;
    key_slot *old = we->keys;
    size_t ocap = we->capkeys;
    we->keys = calloc(ncap, sizeof *we->keys);
    if (!we->keys) {
        we->keys = old;
        return -ENOMEM;
    }
    we->capkeys = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].key)
            *key_find(we, old[i].level, old[i].key) = old[i];
    free(old);
    return 0;
}

static int key_put(wc_work_energy *we, int level, const char *key, int64_t id)
{
    if ((we->nkeys + 1) * 2 > we->capkeys && key_grow(we))
        return -ENOMEM;
    key_slot *k = key_find(we, level, key);
    if (!k->key) {
        if (!(k->key = strdup(key)))
            return -ENOMEM;
        we->nkeys++;
    }
    k->level = level;
    k->id = id;
    return 0;
}

static void keys_clear(wc_work_energy *we)
{
    for (size_t i = 0; i < we->capkeys; i++)
        free(we->keys[i].key);
    free(we->keys);
    we->keys = NULL;
    we->nkeys = we->capkeys = 0;
    we->keys_loaded = 0;
}

static int keys_load(wc_store *st, wc_work_energy *we, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT id, level, key FROM work_key", &s, err,
                              "reading interned workload keys");
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const unsigned char *k = sqlite3_column_text(s, 2);
        if (key_put(we, sqlite3_column_int(s, 1), k ? (const char *)k : "",
                    sqlite3_column_int64(s, 0)))
            rc = wc_error_set(err, -ENOMEM, "%s: out of memory reading workload keys", st->path);
    }
    if (!rc && step != SQLITE_DONE)
        rc = wc_store_fail(st, err, "reading interned workload keys");
    sqlite3_finalize(s);
    we->keys_loaded = !rc;
    return rc;
}

/* work_key.id of (level, key), inserted on first sight; the cache makes it
 * one INSERT per new key and no SELECT per row. */
static int key_id(wc_store *st, wc_work_energy *we, int level, const char *key, int64_t *id,
                  wc_error *err)
{
    int rc = we->keys_loaded ? 0 : keys_load(st, we, err);
    key_slot *k = rc ? NULL : key_find(we, level, key);
    if (rc || (k && k->key)) {
        *id = k ? k->id : 0;
        return rc;
    }
    sqlite3_stmt *s = we->key_ins;
    sqlite3_bind_int(s, 1, level);
    sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
    int step = sqlite3_step(s);
    sqlite3_reset(s);
    if (step != SQLITE_DONE)
        return wc_store_fail(st, err, "interning a workload key");
    *id = sqlite3_last_insert_rowid(st->db);
    if (key_put(we, level, key, *id))
        return wc_error_set(err, -ENOMEM, "%s: out of memory interning workload keys", st->path);
    return 0;
}

/* ---- layout, zones and the DDL of the first write ----------------------- */

static wc_work_energy *we_of(wc_store *st)
{
    if (!st->we)
        st->we = calloc(1, sizeof *st->we);
    return st->we;
}

/* -EINVAL naming the file when attr_zone and work_energy disagree (only a
 * hand edit makes them): every reader finds slot k's columns by position. */
static int zones_bad(wc_store *st, const char *why, wc_error *err)
{
    return wc_error_set(err, -EINVAL, "%s: attr_zone / work_energy inconsistent (%s): the file"
                        " was edited by hand; nothing read from it", st->path, why);
}

/* 1 when the query (SELECT 1 ... LIMIT 1) finds a row, 0 when none, < 0 on
 * error (what names the reading in the message). */
static int any_row(wc_store *st, const char *sql, const char *what, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, sql, &s, err, what);
    if (rc)
        return rc;
    int step = sqlite3_step(s);
    sqlite3_finalize(s);
    return step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : wc_store_fail(st, err, what);
}

/* Slots 0 .. n-1 in order, distinct non-empty names, e/t/p/f<k> of every
 * slot in work_energy and none past the last; rows need at least one slot. */
static int zones_check(wc_store *st, const wc_work_energy *we, wc_error *err)
{
    if (!we->nslot) {
        int rows = any_row(st, "SELECT 1 FROM work_energy LIMIT 1", "reading the attribution zones",
                           err);
        if (rows)
            return rows < 0 ? rows : zones_bad(st, "workload rows but no zone", err);
    }
    for (size_t k = 0; k < we->nslot; k++) {
        if (!we->zone[k][0])
            return zones_bad(st, "a zone without a name", err);
        for (size_t j = 0; j < k; j++)
            if (!strcmp(we->zone[j], we->zone[k]))
                return zones_bad(st, "a zone named twice", err);
        static const char *const col[4] = {"e", "t", "p", "f"};
        for (int c = 0; c < 4; c++) {
            char name[32];
            snprintf(name, sizeof name, "%s%zu", col[c], k);
            int has = wc_store_has_column(st, "work_energy", name);
            if (has < 0)
                return wc_store_fail(st, err, "reading the attribution zones");
            if (!has)
                return zones_bad(st, "a slot's column is missing", err);
        }
    }
    char next[32]; /* columns past the last slot: a slot's zone was deleted */
    snprintf(next, sizeof next, "e%zu", we->nslot);
    int more = wc_store_has_column(st, "work_energy", next);
    if (more < 0)
        return wc_store_fail(st, err, "reading the attribution zones");
    return more ? zones_bad(st, "a slot's zone is missing from attr_zone", err) : 0;
}

/* The attr_zone rows into we->zone (slot order), checked (zones_check). */
static int zones_load(wc_store *st, wc_work_energy *we, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT slot, name FROM attr_zone ORDER BY slot", &s, err,
                              "reading the attribution zones");
    int step = SQLITE_DONE;
    we->nslot = 0;
    while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (sqlite3_column_int64(s, 0) != (sqlite3_int64)we->nslot) {
            rc = zones_bad(st, "its slots do not run 0, 1, 2, ...", err);
            break;
        }
        void *p = realloc(we->zone, (we->nslot + 1) * sizeof *we->zone);
        if (!p) {
            rc = wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
            break;
        }
        we->zone = p;
        wc_store_col_text(s, 1, we->zone[we->nslot++], WC_ATTR_ZONE_NAME_MAX);
    }
    if (!rc && step != SQLITE_DONE)
        rc = wc_store_fail(st, err, "reading the attribution zones");
    sqlite3_finalize(s);
    return rc ? rc : zones_check(st, we, err);
}

/* 1 when table work_attr holds no row; 0 when it does; < 0 on error. */
static int table_empty(wc_store *st, wc_error *err)
{
    int any = any_row(st, "SELECT 1 FROM work_attr LIMIT 1", "reading workload attribution", err);
    return any < 0 ? any : !any;
}

/* Finds the layout once per store: compact (work_energy exists), pending
 * (a version-6 run whose work_attr table is still empty), or the table. */
static int layout_of(wc_store *st, wc_error *err)
{
    wc_work_energy *we = we_of(st);
    if (!we)
        return wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
    if (we->layout != LAYOUT_UNKNOWN && we->layout != LAYOUT_PENDING)
        return we->layout;
    int compact = wc_store_has_object(st, "work_energy");
    int marker = wc_store_has_object(st, "attr_zone");
    if (compact < 0 || marker < 0)
        return wc_store_fail(st, err, "reading the schema");
    int rc = compact ? zones_load(st, we, err) : 0;
    if (rc)
        return rc;
    int empty = !compact && marker ? table_empty(st, err) : 0;
    if (empty < 0)
        return empty;
    we->layout = compact ? LAYOUT_COMPACT : empty ? LAYOUT_PENDING : LAYOUT_TABLE;
    return we->layout;
}

int wc_store_attr_compact(wc_store *st, wc_error *err)
{
    int l = layout_of(st, err);
    return l < 0 ? l : l == LAYOUT_COMPACT;
}

size_t wc_store_attr_slots(const wc_store *st, const char **zone, size_t cap)
{
    const wc_work_energy *we = st->we;
    if (!we || we->layout != LAYOUT_COMPACT)
        return 0;
    for (size_t k = 0; k < we->nslot && k < cap; k++)
        zone[k] = we->zone[k];
    return we->nslot;
}

/* The columns of work_energy for n slots. */
static void ddl_table(sqlite3_str *q, size_t n)
{
    sqlite3_str_appendall(q, "CREATE TABLE work_energy(model_id INTEGER NOT NULL,"
                             " tick_id INTEGER NOT NULL, level INTEGER NOT NULL,"
                             " wid INTEGER NOT NULL, term INTEGER NOT NULL, cpu_delta_s");
    for (int k = 0; k < (int)n; k++)
        sqlite3_str_appendf(q, ", e%d INTEGER, t%d INTEGER, p%d REAL, f%d INTEGER", k, k, k,
                            k);
    sqlite3_str_appendall(q, ", PRIMARY KEY(model_id, tick_id, level, wid, term))"
                             " WITHOUT ROWID;");
}

/* cpu_delta_s has no type affinity: an INTEGER there is centiseconds (a
 * clock-tick delta / USER_HZ, exact: put_cpu), 1-2 bytes instead of 8. */
#define CPU_OF(e)                                                                            \
    "(CASE WHEN typeof(" e ".cpu_delta_s) = 'integer' THEN " e ".cpu_delta_s / 100.0 ELSE " e  \
    ".cpu_delta_s END)"

/* The view work_attr: one arm per slot, zone names through attr_zone (a
 * renamed zone is one UPDATE), power_uw derived from node_attr when NULL. */
static void ddl_view(sqlite3_str *q, size_t n)
{
    sqlite3_str_appendall(q, "CREATE VIEW work_attr(model_id, tick_id, level, process_id, key,"
                             " zone, cpu_delta_s, energy_uj, total_uj, power_uw, flags) AS ");
    for (int k = 0; k < (int)n; k++)
        sqlite3_str_appendf(
            q, "%sSELECT e.model_id, e.tick_id, e.level,"
               " CASE WHEN e.level = 1 AND e.wid > 0 THEN e.wid END,"
               " CASE WHEN e.level = 1 THEN '' ELSE (SELECT key FROM work_key WHERE id = e.wid) END,"
               " z.name, " CPU_OF("e") ", e.e%d, e.t%d, COALESCE(e.p%d, (SELECT"
               " (" CPU_OF("e") " / n.cpu_delta_sum_s) * n.active_uw FROM node_attr n WHERE"
               " n.model_id = e.model_id AND n.tick_id = e.tick_id AND n.zone = z.name)), e.f%d"
               " FROM attr_zone z CROSS JOIN work_energy e WHERE z.slot = %d AND e.f%d IS NOT NULL",
            k ? " UNION ALL " : "", k, k, k, k, k, k);
    sqlite3_str_appendall(q, ";");
}

#define SLOT_OF(v) "(SELECT slot FROM attr_zone WHERE name = " v ".zone)"
#define WID_OF(v)                                                                            \
    "CASE WHEN " v ".level = 1 THEN " v ".process_id ELSE (SELECT id FROM work_key WHERE"    \
    " level = " v ".level AND key = COALESCE(" v ".key, '')) END"
#define PK_OF(v)                                                                             \
    " WHERE model_id = " v ".model_id AND tick_id = " v ".tick_id AND level = " v ".level"    \
    " AND wid = " WID_OF(v) " AND term = ((COALESCE(" v ".flags, 0) & 4096) != 0)"

/* INSTEAD OF INSERT: the row goes into its workload's slot (SQL fixtures of
 * the tests; wattcal's writer binds work_energy directly). */
static void ddl_insert_trigger(sqlite3_str *q, size_t n)
{
    sqlite3_str_appendall(
        q, "CREATE TRIGGER work_attr_insert INSTEAD OF INSERT ON work_attr BEGIN"
           " SELECT RAISE(ABORT, 'work_attr: the zone is not one of the run''s attribution zones"
           " (attr_zone)') WHERE " SLOT_OF("NEW") " IS NULL;"
           " SELECT RAISE(ABORT, 'work_attr: model_id, tick_id and level are required')"
           " WHERE NEW.model_id IS NULL OR NEW.tick_id IS NULL OR NEW.level IS NULL;"
           " SELECT RAISE(ABORT, 'work_attr: a process row needs its process_id (a process.id)')"
           " WHERE NEW.level = 1 AND (NEW.process_id IS NULL OR NEW.process_id <= 0);"
           " SELECT RAISE(ABORT, 'work_attr: a workload has one cpu_delta_s per tick in this"
           " layout, and this row gives another') WHERE EXISTS (SELECT 1"
           " FROM work_energy" PK_OF("NEW") " AND " CPU_OF("work_energy")
           " IS NOT CAST(NEW.cpu_delta_s AS REAL));"
           " SELECT RAISE(ABORT, 'work_attr: that workload already has this zone at this tick"
           " (one row per workload, zone and tick: delete it first)') WHERE EXISTS (SELECT 1"
           " FROM work_energy" PK_OF("NEW") " AND CASE " SLOT_OF("NEW"));
    for (int k = 0; k < (int)n; k++)
        sqlite3_str_appendf(q, " WHEN %d THEN f%d", k, k);
    sqlite3_str_appendall(q, " END IS NOT NULL);"
           /* no conflict clause inside: an outer INSERT OR REPLACE would impose its own */
           " INSERT INTO work_key(level, key) SELECT NEW.level, COALESCE(NEW.key, '')"
           " WHERE NEW.level != 1 AND NOT EXISTS (SELECT 1 FROM work_key WHERE level = NEW.level"
           " AND key = COALESCE(NEW.key, ''));"
           " INSERT INTO work_energy(model_id, tick_id, level, wid, term, cpu_delta_s)"
           " SELECT NEW.model_id, NEW.tick_id, NEW.level, " WID_OF("NEW") ","
           " (COALESCE(NEW.flags, 0) & 4096) != 0, CAST(NEW.cpu_delta_s AS REAL)"
           " WHERE NOT EXISTS (SELECT 1 FROM work_energy" PK_OF("NEW") ");"
           " UPDATE work_energy SET ");
    for (int k = 0; k < (int)n; k++)
        sqlite3_str_appendf(q, "%se%d = CASE WHEN " SLOT_OF("NEW") " = %d THEN NEW.energy_uj"
                               " ELSE e%d END, t%d = CASE WHEN " SLOT_OF("NEW") " = %d THEN"
                               " NEW.total_uj ELSE t%d END, p%d = CASE WHEN " SLOT_OF("NEW")
                               " = %d THEN NEW.power_uw ELSE p%d END, f%d = CASE WHEN "
                               SLOT_OF("NEW") " = %d THEN COALESCE(NEW.flags, 0) ELSE f%d END",
                            k ? ", " : "", k, k, k, k, k, k, k, k, k, k, k, k);
    sqlite3_str_appendall(q, PK_OF("NEW") "; END;");
}

/* INSTEAD OF DELETE empties the row's slot, then drops rows left with none;
 * INSTEAD OF UPDATE renames a zone (the only update the view takes). */
static void ddl_other_triggers(sqlite3_str *q, size_t n)
{
    sqlite3_str_appendall(q, "CREATE TRIGGER work_attr_delete INSTEAD OF DELETE ON work_attr"
                             " BEGIN UPDATE work_energy SET ");
    for (int k = 0; k < (int)n; k++)
        sqlite3_str_appendf(q, "%se%d = CASE WHEN " SLOT_OF("OLD") " = %d THEN NULL ELSE e%d"
                               " END, t%d = CASE WHEN " SLOT_OF("OLD") " = %d THEN NULL ELSE"
                               " t%d END, p%d = CASE WHEN " SLOT_OF("OLD") " = %d THEN NULL"
                               " ELSE p%d END, f%d = CASE WHEN " SLOT_OF("OLD") " = %d THEN"
                               " NULL ELSE f%d END",
                            k ? ", " : "", k, k, k, k, k, k, k, k, k, k, k, k);
    sqlite3_str_appendall(q, PK_OF("OLD") "; DELETE FROM work_energy" PK_OF("OLD"));
    for (int k = 0; k < (int)n; k++)
        sqlite3_str_appendf(q, " AND f%d IS NULL", k);
    sqlite3_str_appendall(q, "; END;"
                             "CREATE TRIGGER work_attr_update INSTEAD OF UPDATE ON work_attr"
                             " BEGIN SELECT RAISE(ABORT, 'work_attr: only a zone can be renamed"
                             " in this run''s layout') WHERE NEW.zone IS OLD.zone OR"
                             " NEW.model_id IS NOT OLD.model_id OR NEW.tick_id IS NOT OLD.tick_id"
                             " OR NEW.level IS NOT OLD.level OR NEW.process_id IS NOT"
                             " OLD.process_id OR NEW.key IS NOT OLD.key OR NEW.cpu_delta_s IS NOT"
                             " OLD.cpu_delta_s OR NEW.energy_uj IS NOT OLD.energy_uj OR"
                             " NEW.total_uj IS NOT OLD.total_uj OR NEW.power_uw IS NOT"
                             " OLD.power_uw OR NEW.flags IS NOT OLD.flags;"
                             " SELECT RAISE(ABORT, 'work_attr: that zone name is taken (a"
                             " zone is renamed whole, in every model and tick)') WHERE EXISTS"
                             " (SELECT 1 FROM attr_zone WHERE name = NEW.zone) AND EXISTS"
                             " (SELECT 1 FROM attr_zone WHERE name = OLD.zone);"
                             " UPDATE attr_zone SET name = NEW.zone WHERE name = OLD.zone;"
                             " UPDATE node_attr SET zone = NEW.zone WHERE zone = OLD.zone; END;");
}

/* The view and its triggers for the run's n slots (dropped with the view). */
static int rebuild_view(wc_store *st, size_t n, wc_error *err)
{
    sqlite3_str *q = sqlite3_str_new(st->db);
    sqlite3_str_appendall(q, "DROP VIEW IF EXISTS work_attr;");
    ddl_view(q, n);
    ddl_insert_trigger(q, n);
    ddl_other_triggers(q, n);
    char *sql = sqlite3_str_finish(q);
    if (!sql)
        return wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
    int rc = wc_store_exec(st, sql, err);
    sqlite3_free(sql);
    return rc;
}

/* A zone no model of the run attributed yet: its slot (attr_zone row and
 * four columns; a WITHOUT ROWID table takes ADD COLUMN, old rows read NULL:
 * absent). Another model may attribute other zones (a hwmon-first Kepler
 * config: 'ppt' instead of 'package'); each model's rows leave the slots of
 * zones it does not have absent. */
static int add_slot(wc_store *st, wc_work_energy *we, const char *zone, wc_error *err)
{
    int k = (int)we->nslot;
    char *sql = sqlite3_mprintf("INSERT INTO attr_zone(slot, name) VALUES(%d, %Q);"
                                "ALTER TABLE work_energy ADD COLUMN e%d INTEGER;"
                                "ALTER TABLE work_energy ADD COLUMN t%d INTEGER;"
                                "ALTER TABLE work_energy ADD COLUMN p%d REAL;"
                                "ALTER TABLE work_energy ADD COLUMN f%d INTEGER;",
                                k, zone, k, k, k, k);
    if (!sql)
        return wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
    int rc = wc_store_exec(st, sql, err);
    sqlite3_free(sql);
    if (!rc)
        rc = zones_load(st, we, err);
    sqlite3_finalize(we->ins); /* its column list grew */
    we->ins = NULL;
    return rc;
}

/* Maps out->node[j] to its slot (map[j]), adding the slots of new zones and
 * rebuilding the view when any was added. -EINVAL for a zone named twice. */
static int map_zones(wc_store *st, wc_work_energy *we, const wc_attr_out *out, size_t *map,
                     wc_error *err)
{
    int added = 0, rc = 0;
    for (size_t j = 0; j < out->nnode && !rc; j++) {
        size_t k = 0;
        while (k < we->nslot && strcmp(we->zone[k], out->node[j].zone))
            k++;
        for (size_t i = 0; i < j && !rc; i++)
            if (map[i] == k)
                rc = wc_error_set(err, -EINVAL, "%s: writing workload attribution: zone '%s'"
                                  " given twice", st->path, out->node[j].zone);
        if (!rc && k == we->nslot) {
            rc = add_slot(st, we, out->node[j].zone, err);
            added = 1;
        }
        map[j] = k;
    }
    return !rc && added ? rebuild_view(st, we->nslot, err) : rc;
}

/* A pending run's first write: the empty work_attr table renamed away and
 * work_energy created without slots (map_zones adds them). In the caller's
 * transaction. */
static int convert(wc_store *st, wc_work_energy *we, wc_error *err)
{
    sqlite3_str *q = sqlite3_str_new(st->db);
    /* renamed, not dropped: SQLite refuses to drop a table while the replay
     * source's statements read (SQLITE_LOCKED); the empty table goes when
     * the run's indexes are built (WC_COMPACT_TIDY_SQL) */
    sqlite3_str_appendall(q, "ALTER TABLE work_attr RENAME TO work_attr_empty;");
    ddl_table(q, 0);
    char *sql = sqlite3_str_finish(q);
    if (!sql)
        return wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
    int rc = wc_store_exec(st, sql, err);
    sqlite3_free(sql);
    if (!rc)
        rc = zones_load(st, we, err);
    if (!rc)
        we->layout = LAYOUT_COMPACT;
    return rc;
}

static int prepare_writer(wc_store *st, wc_work_energy *we, wc_error *err)
{
    if (we->ins)
        return 0;
    sqlite3_str *q = sqlite3_str_new(st->db);
    sqlite3_str_appendall(q, "INSERT INTO work_energy(model_id, tick_id, level, wid, term,"
                             " cpu_delta_s");
    for (int k = 0; k < (int)we->nslot; k++)
        sqlite3_str_appendf(q, ", e%d, t%d, p%d, f%d", k, k, k, k);
    sqlite3_str_appendall(q, ") VALUES(?, ?, ?, ?, ?, ?");
    for (int k = 0; k < (int)we->nslot; k++)
        sqlite3_str_appendall(q, ", ?, ?, ?, ?");
    sqlite3_str_appendall(q, ")");
    char *sql = sqlite3_str_finish(q);
    if (!sql)
        return wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
    int rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &we->ins, NULL);
    sqlite3_free(sql);
    if (rc == SQLITE_OK && !we->key_ins) /* kept when a new slot re-prepares ins */
        rc = sqlite3_prepare_v3(st->db, "INSERT INTO work_key(level, key) VALUES(?, ?)", -1,
                                SQLITE_PREPARE_PERSISTENT, &we->key_ins, NULL);
    if (rc == SQLITE_OK && !we->find_proc)
        rc = sqlite3_prepare_v3(st->db, "SELECT id FROM process WHERE pid = ? AND starttime = ?"
                                " ORDER BY id DESC LIMIT 1", -1, SQLITE_PREPARE_PERSISTENT,
                                &we->find_proc, NULL);
    return rc == SQLITE_OK ? 0 : wc_store_fail(st, err, "preparing the workload writer");
}

/* Binds an unsigned value; above INT64_MAX as REAL (as store_write.c). */
static void bind_u64(sqlite3_stmt *s, int i, uint64_t v)
{
    if (v > (uint64_t)INT64_MAX)
        sqlite3_bind_double(s, i, (double)v);
    else
        sqlite3_bind_int64(s, i, (sqlite3_int64)v);
}

/* 1 when p is, bit for bit, what the view derives: (cpu / D) × activeP,
 * finite and non-zero (a zero is stored: it costs no byte, and SQLite
 * would turn a stored -0.0 into 0). */
static int power_derivable(double cpu, double d, double active, double p)
{
    if (!isfinite(cpu) || !isfinite(d) || !isfinite(active) || d == 0.0)
        return 0;
    double q = (cpu / d) * active;
    return isfinite(q) && q != 0.0 && memcmp(&q, &p, sizeof q) == 0;
}

/* Binds a CPU delta: as integer centiseconds when that is exact, bit for
 * bit, after the view's division (every clock-tick delta / USER_HZ 100),
 * else as REAL (NaN: NULL, as the table stored it). */
static void put_cpu(sqlite3_stmt *s, int i, double cpu)
{
    if (isfinite(cpu) && fabs(cpu) < 1e12) {
        double c = nearbyint(cpu * 100.0);
        double back = c / 100.0;
        if (memcmp(&back, &cpu, sizeof cpu) == 0) {
            sqlite3_bind_int64(s, i, (sqlite3_int64)c);
            return;
        }
    }
    sqlite3_bind_double(s, i, cpu);
}

/* One zone's values of a row (what the old table held in one row). */
typedef struct slot_val slot_val;
struct slot_val {
    int present;
    uint64_t energy_uj, total_uj;
    double power_uw, cpu_delta_s;
    unsigned flags;
    double active_uw;            /* the zone's node active power (the derivation) */
};

/* One row of the tick waiting for its insert: key = model_id, tick_id,
 * level, wid, term; its slots at val[at .. at + nslot). */
typedef struct queued {
    int64_t key[5];
    size_t at;
} queued;

static int room(void **arr, size_t size, size_t n, size_t *cap);

/* The next queued row's slots, cleared; the scratch grows with the rows a
 * tick writes (the workloads with a present zone), not with every workload
 * the model saw: NULL out of memory. */
static slot_val *queue_row(wc_work_energy *we, const int64_t key[5])
{
    /* map_zones gave every tick's zone a slot before any row is queued */
    if (!we->nslot || room((void **)&we->rows, sizeof *we->rows, we->nrows, &we->cap_rows) ||
        room((void **)&we->val, sizeof *we->val, (we->nrows + 1) * we->nslot - 1, &we->cap_val))
        return NULL;
    queued *q = &we->rows[we->nrows];
    memcpy(q->key, key, sizeof q->key);
    q->at = we->nrows++ * we->nslot;
    memset(&we->val[q->at], 0, we->nslot * sizeof *we->val);
    return &we->val[q->at];
}

/* Orders rows by (level, wid, term): the tick's rows go into the B-tree in
 * key order, appended at its right edge, so its pages stay full (in scan
 * order they left ~12 % of every page empty: make bench). */
static int queued_cmp(const void *a, const void *b)
{
    const queued *x = a, *y = b;
    for (int i = 2; i < 5; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i] ? -1 : 1;
    return 0;
}

/* Binds and inserts one work_energy row: key = model_id, tick_id, level,
 * wid, term; v = its nslot zones. */
static int put_row(wc_store *st, wc_work_energy *we, const int64_t key[5], const slot_val *v,
                   const wc_attr_out *out, wc_error *err)
{
    size_t first = we->nslot;
    for (size_t k = 0; k < we->nslot && first == we->nslot; k++)
        if (v[k].present)
            first = k;
    if (first == we->nslot)
        return 0; /* every zone absent: no row, as the table had none */
    sqlite3_stmt *s = we->ins;
    double cpu = v[first].cpu_delta_s;
    for (int i = 0; i < 5; i++)
        sqlite3_bind_int64(s, i + 1, key[i]);
    put_cpu(s, 6, cpu);
    for (size_t k = 0; k < we->nslot; k++) {
        int b = 7 + 4 * (int)k;
        if (!v[k].present) {
            for (int j = 0; j < 4; j++)
                sqlite3_bind_null(s, b + j);
            continue;
        }
        if (memcmp(&v[k].cpu_delta_s, &cpu, sizeof cpu))
            return wc_error_set(err, -EINVAL, "%s: writing workload attribution: a workload's"
                                " CPU delta differs between zones (%.17g, %.17g): not storable"
                                " in one row", st->path, cpu, v[k].cpu_delta_s);
        bind_u64(s, b, v[k].energy_uj);
        bind_u64(s, b + 1, v[k].total_uj);
        if (power_derivable(cpu, out->cpu_delta_sum_s, v[k].active_uw, v[k].power_uw))
            sqlite3_bind_null(s, b + 2);
        else
            sqlite3_bind_double(s, b + 2, v[k].power_uw);
        sqlite3_bind_int(s, b + 3, (int)v[k].flags);
    }
    int step = sqlite3_step(s);
    sqlite3_reset(s);
    return step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "writing workload attribution");
}

/* A level-1 workload with no process row (a terminated process not found,
 * or a writer given no process ids): a negative wid, -work_key.id of a
 * level-1 key naming it, so two such rows never share a primary key; the
 * view shows process_id NULL as the table did. */
static int orphan_wid(wc_store *st, wc_work_energy *we, const char *name, int64_t *wid,
                      wc_error *err)
{
    int64_t id = 0;
    int rc = key_id(st, we, WC_LEVEL_PROCESS, name, &id, err);
    *wid = -id;
    return rc;
}

/* wid of a running workload's rows (proc_ids: the tick's process row ids). */
static int work_wid(wc_store *st, wc_work_energy *we, const wc_attr_work_out *w,
                    const int64_t *proc_ids, int64_t *wid, wc_error *err)
{
    if (w->level != WC_LEVEL_PROCESS)
        return key_id(st, we, (int)w->level, w->key ? w->key : "", wid, err);
    if (proc_ids && proc_ids[w->proc_index] > 0) {
        *wid = proc_ids[w->proc_index];
        return 0;
    }
    char name[64];
    snprintf(name, sizeof name, "row:%zu", w->proc_index);
    return orphan_wid(st, we, name, wid, err);
}

/* wid of a terminated workload (a process by pid and starttime). */
static int term_wid(wc_store *st, wc_work_energy *we, const wc_attr_term_out *t, int64_t *wid,
                    wc_error *err)
{
    if (t->level != WC_LEVEL_PROCESS)
        return key_id(st, we, (int)t->level, t->key ? t->key : "", wid, err);
    sqlite3_stmt *f = we->find_proc;
    sqlite3_bind_int64(f, 1, t->pid);
    bind_u64(f, 2, t->starttime);
    int step = sqlite3_step(f);
    *wid = step == SQLITE_ROW ? sqlite3_column_int64(f, 0) : 0;
    sqlite3_reset(f);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return wc_store_fail(st, err, "writing terminated workloads");
    if (*wid > 0)
        return 0;
    char name[64];
    snprintf(name, sizeof name, "pid:%" PRId32 ":%" PRIu64, t->pid, t->starttime);
    return orphan_wid(st, we, name, wid, err);
}

static int bad_order(wc_store *st, wc_error *err)
{
    return wc_error_set(err, -EINVAL, "%s: writing workload attribution: the rows of a workload"
                        " are not one per zone in zone order", st->path);
}

static int flush_rows(wc_store *st, wc_work_energy *we, const wc_attr_out *out, wc_error *err);

/* Rows queued before the queue is written out (sorted, inserted): a tick
 * with more (a first tick charges every process its lifetime CPU) is
 * written in runs of this many, so the writer's memory stays bounded. */
#define QUEUE_MAX 1024

/* The next queued row's slots into *v, the queue written out first when
 * full: 0, or < 0 with err. */
static int queue_next(wc_store *st, wc_work_energy *we, const int64_t key[5],
                      const wc_attr_out *out, slot_val **v, wc_error *err)
{
    int rc = we->nrows == QUEUE_MAX ? flush_rows(st, we, out, err) : 0;
    if (rc)
        return rc;
    *v = queue_row(we, key);
    return *v ? 0 : wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
}

/* A running workload's zone row is stored exactly when the table's writer
 * stored it: anything but all zero. */
static int work_present(const wc_attr_work_out *x)
{
    return !(x->cpu_delta_s == 0.0 && x->energy_uj == 0 && x->power_uw == 0.0 && x->flags == 0);
}

/* The running workloads: nslot consecutive rows each (attribution.h). */
static int put_work(wc_store *st, wc_work_energy *we, int64_t model_id, int64_t tick_id,
                    const wc_attr_out *out, const int64_t *proc_ids, const size_t *map,
                    wc_error *err)
{
    size_t n = out->nnode;
    for (size_t i = 0; i < out->nwork; i += n) {
        const wc_attr_work_out *w = &out->work[i];
        int any = 0;
        for (size_t j = 0; j < n; j++) {
            const wc_attr_work_out *x = &w[j];
            if (x->zone != j || x->level != w->level || x->proc_index != w->proc_index)
                return bad_order(st, err);
            any |= work_present(x);
        }
        if (!any)
            continue; /* no zone present: no row (put_row would write none) */
        int64_t key[5] = {model_id, tick_id, (int64_t)w->level, 0, 0};
        int rc = work_wid(st, we, w, proc_ids, &key[3], err);
        if (rc)
            return rc;
        slot_val *v = NULL;
        if ((rc = queue_next(st, we, key, out, &v, err)))
            return rc;
        for (size_t j = 0; j < n; j++) {
            const wc_attr_work_out *x = &w[j];
            v[map[j]] = (slot_val){work_present(x), x->energy_uj, x->total_uj, x->power_uw,
                                   x->cpu_delta_s, x->flags, out->node[j].active_uw};
        }
    }
    return 0;
}

/* The Kepler models' terminated workloads (store_write.c put_term_attr:
 * cpu and energy 0, flags TERMINATED, the frozen total and last power). */
static int put_term(wc_store *st, wc_work_energy *we, int64_t model_id, int64_t tick_id,
                    const wc_attr_out *out, const size_t *map, wc_error *err)
{
    size_t n = out->nnode;
    for (size_t i = 0; i < out->nterm; i += n) {
        const wc_attr_term_out *t = &out->term[i];
        int64_t key[5] = {model_id, tick_id, (int64_t)t->level, 0, 1};
        int rc = term_wid(st, we, t, &key[3], err);
        if (rc)
            return rc;
        slot_val *v = NULL;
        if ((rc = queue_next(st, we, key, out, &v, err)))
            return rc;
        for (size_t j = 0; j < n; j++) {
            if (t[j].zone != j || t[j].level != t->level || t[j].pid != t->pid)
                return bad_order(st, err);
            v[map[j]] = (slot_val){1, 0, t[j].total_uj, t[j].power_uw, 0.0, WC_AF_TERMINATED,
                                   out->node[j].active_uw};
        }
    }
    return 0;
}

/* Room for n + 1 elements in *arr (wc_store_grow, doubling): 0 or -ENOMEM. */
static int room(void **arr, size_t size, size_t n, size_t *cap)
{
    while (n >= *cap)
        if (wc_store_grow(arr, size, n, cap, n + 8))
            return -ENOMEM;
    return 0;
}

/* A new tick's queue; -EINVAL when the rows are not one per zone. */
static int make_room(wc_store *st, wc_work_energy *we, const wc_attr_out *out, wc_error *err)
{
    size_t n = out->nnode;
    if ((out->nwork || out->nterm) && (n == 0 || out->nwork % n || out->nterm % n))
        return bad_order(st, err);
    we->nrows = 0;
    return 0;
}

/* Inserts the queued rows in key order and empties the queue. */
static int flush_rows(wc_store *st, wc_work_energy *we, const wc_attr_out *out, wc_error *err)
{
    if (we->nrows) /* an empty queue may have no array yet */
        qsort(we->rows, we->nrows, sizeof *we->rows, queued_cmp);
    int rc = 0;
    for (size_t i = 0; i < we->nrows && !rc; i++)
        rc = put_row(st, we, we->rows[i].key, &we->val[we->rows[i].at], out, err);
    we->nrows = 0;
    return rc;
}

int wc_store_work_energy_put(wc_store *st, int64_t model_id, int64_t tick_id,
                             const wc_attr_out *out, const int64_t *proc_ids, wc_error *err)
{
    int layout = layout_of(st, err);
    if (layout < 0 || layout == LAYOUT_TABLE || (layout == LAYOUT_PENDING && out->nnode == 0))
        return layout < 0 ? layout : 1; /* no zone yet: the empty table stays */
    wc_work_energy *we = st->we;
    int rc = layout == LAYOUT_PENDING ? convert(st, we, err) : 0;
    if (!rc && room((void **)&we->map, sizeof *we->map, out->nnode, &we->cap_map))
        rc = wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
    if (!rc)
        rc = map_zones(st, we, out, we->map, err);
    if (!rc)
        rc = prepare_writer(st, we, err);
    if (!rc)
        rc = make_room(st, we, out, err);
    if (!rc)
        rc = put_work(st, we, model_id, tick_id, out, proc_ids, we->map, err);
    if (!rc)
        rc = put_term(st, we, model_id, tick_id, out, we->map, err);
    return rc ? rc : flush_rows(st, we, out, err);
}

int wc_store_work_energy_clear(wc_store *st, int64_t model_id, wc_error *err)
{
    int layout = layout_of(st, err);
    if (layout != LAYOUT_COMPACT)
        return layout < 0 ? layout : 1;
    char sql[96];
    snprintf(sql, sizeof sql, "DELETE FROM work_energy WHERE model_id=%lld;", (long long)model_id);
    return wc_store_exec(st, sql, err);
}

void wc_store_work_energy_reset(wc_store *st)
{
    if (!st->we)
        return;
    keys_clear(st->we);
    if (st->we->layout == LAYOUT_COMPACT || st->we->layout == LAYOUT_PENDING)
        st->we->layout = LAYOUT_UNKNOWN; /* a rolled-back first write leaves the table */
}

void wc_store_work_energy_free(wc_store *st)
{
    wc_work_energy *we = st->we;
    if (!we)
        return;
    keys_clear(we);
    sqlite3_finalize(we->ins);
    sqlite3_finalize(we->key_ins);
    sqlite3_finalize(we->find_proc);
    free(we->zone);
    free(we->map);
    free(we->val);
    free(we->rows);
    free(we);
    st->we = NULL;
}
