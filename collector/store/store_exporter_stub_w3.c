/*
 * store_exporter_stub_w3.c — TEMPORARY (workstream W3 only; the lead deletes
 * this file when W2's store_exporter.c and the schema version 5 are merged).
 *
 * The smallest implementation of the writers of store_exporter.h that
 * `import --prometheus` needs on the W3 branch: the four exporter tables of
 * the shared design (i11-design.md "Schema version 5") are created on first
 * use with CREATE TABLE IF NOT EXISTS (no version bump, no indexes beyond
 * the series' UNIQUE key), then the exporter, scrape, series and sample
 * rows are inserted. The readers are W2's.
 */
#include "collector/store/store_exporter.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "collector/store/store_internal.h"

static const char STUB_SCHEMA_SQL[] =
    "CREATE TABLE IF NOT EXISTS exporter(id INTEGER PRIMARY KEY, spec TEXT, kind TEXT,"
    " origin TEXT, node TEXT, version TEXT, revision TEXT, layout TEXT, power_source TEXT,"
    " provenance TEXT, description TEXT);"
    "CREATE TABLE IF NOT EXISTS exporter_scrape(id INTEGER PRIMARY KEY, exporter_id INTEGER,"
    " req_mono_ns INTEGER, req_wall_ns INTEGER, resp_mono_ns INTEGER, resp_wall_ns INTEGER,"
    " http_status INTEGER, duration_ns INTEGER, bytes INTEGER, samples INTEGER, status TEXT,"
    " error TEXT);"
    "CREATE TABLE IF NOT EXISTS exporter_series(id INTEGER PRIMARY KEY, exporter_id INTEGER,"
    " metric TEXT, labels TEXT, level TEXT, quantity TEXT, device TEXT, zone TEXT, key TEXT,"
    " name TEXT, namespace TEXT, comm TEXT, state TEXT, path TEXT, meter TEXT,"
    " UNIQUE(exporter_id, metric, labels));"
    "CREATE TABLE IF NOT EXISTS exporter_sample(scrape_id INTEGER, series_id INTEGER,"
    " value REAL, ts_ms INTEGER);";

static void bind_str(sqlite3_stmt *s, int i, const char *v)
{
    sqlite3_bind_text(s, i, v ? v : "", -1, SQLITE_TRANSIENT);
}

/* Steps a bound statement to its end and finalizes it. */
static int step_done(wc_store *st, sqlite3_stmt *s, wc_error *err, const char *what)
{
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : wc_store_fail(st, err, what);
    sqlite3_finalize(s);
    return rc;
}

/* The exporter row's text columns 1..9 (spec .. description). */
static void bind_exporter(sqlite3_stmt *s, const wc_exporter_info *e)
{
    bind_str(s, 1, e->spec);
    bind_str(s, 2, e->kind);
    bind_str(s, 3, e->origin);
    bind_str(s, 4, e->node);
    bind_str(s, 5, e->version);
    bind_str(s, 6, e->revision);
    bind_str(s, 7, e->layout);
    bind_str(s, 8, e->power_source);
    bind_str(s, 9, e->provenance);
    bind_str(s, 10, e->description);
}

int wc_store_put_exporter(wc_store *st, wc_exporter_info *e, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_exec(st, STUB_SCHEMA_SQL, err);
    if (!rc)
        rc = wc_store_prepare(st,
                              "INSERT INTO exporter(spec,kind,origin,node,version,revision,"
                              "layout,power_source,provenance,description)"
                              " VALUES(?,?,?,?,?,?,?,?,?,?)",
                              &s, err, "writing the exporter");
    if (rc)
        return rc;
    bind_exporter(s, e);
    rc = step_done(st, s, err, "writing the exporter");
    if (!rc)
        e->id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

int wc_store_update_exporter(wc_store *st, const wc_exporter_info *e, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st,
                              "UPDATE exporter SET spec=?1,kind=?2,origin=?3,node=?4,version=?5,"
                              "revision=?6,layout=?7,power_source=?8,provenance=?9,"
                              "description=?10 WHERE id=?11",
                              &s, err, "updating the exporter");
    if (rc)
        return rc;
    bind_exporter(s, e);
    sqlite3_bind_int64(s, 11, e->id);
    return step_done(st, s, err, "updating the exporter");
}

int wc_store_put_scrape(wc_store *st, wc_scrape_meta *m, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st,
                              "INSERT INTO exporter_scrape(exporter_id,req_mono_ns,req_wall_ns,"
                              "resp_mono_ns,resp_wall_ns,http_status,duration_ns,bytes,samples,"
                              "status,error) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                              &s, err, "writing a scrape");
    if (rc)
        return rc;
    int64_t v[] = {m->exporter_id, m->req_mono_ns, m->req_wall_ns, m->resp_mono_ns,
                   m->resp_wall_ns, 0, m->duration_ns, m->bytes, m->samples};
    for (int i = 0; i < 9; i++)
        sqlite3_bind_int64(s, i + 1, v[i]);
    if (m->http_status)
        sqlite3_bind_int(s, 6, m->http_status);
    else
        sqlite3_bind_null(s, 6);
    bind_str(s, 10, m->status);
    bind_str(s, 11, m->error);
    rc = step_done(st, s, err, "writing a scrape");
    if (!rc)
        m->id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

/* The series row's id, inserted when new (UNIQUE(exporter_id,metric,labels)). */
static int series_id(wc_store *st, sqlite3_stmt *q, int64_t exporter_id,
                     const wc_exporter_sample_in *in, int64_t *id, wc_error *err)
{
    const wc_kep_fact *f = in->fact;
    sqlite3_reset(q);
    sqlite3_bind_int64(q, 1, exporter_id);
    bind_str(q, 2, in->metric);
    bind_str(q, 3, in->labels);
    const char *text[] = {
        f ? wc_kep_level_name(f->level) : "", f ? wc_kep_quantity_name(f->quantity) : "",
        f ? wc_kep_device_name(f->device) : "", f ? f->zone : "", f ? f->key : "",
        f ? f->name : "", f ? f->ns : "", f && f->level == WC_KEP_PROCESS ? f->name : "",
        f ? f->state : "", f ? f->path : "", f ? wc_kep_meter_name(f->meter) : ""};
    for (int i = 0; i < 11; i++)
        bind_str(q, i + 4, text[i]);
    if (sqlite3_step(q) != SQLITE_ROW)
        return wc_store_fail(st, err, "writing an exporter series");
    *id = sqlite3_column_int64(q, 0);
    return 0;
}

int wc_store_put_exporter_samples(wc_store *st, int64_t exporter_id, int64_t scrape_id,
                                  const wc_exporter_sample_in *v, size_t n, wc_error *err)
{
    sqlite3_stmt *q = NULL, *ins = NULL;
    int rc = wc_store_prepare(st,
                              "INSERT INTO exporter_series(exporter_id,metric,labels,level,"
                              "quantity,device,zone,key,name,namespace,comm,state,path,meter)"
                              " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO UPDATE SET"
                              " metric=excluded.metric RETURNING id",
                              &q, err, "writing an exporter series");
    if (!rc)
        rc = wc_store_prepare(st,
                              "INSERT INTO exporter_sample(scrape_id,series_id,value,ts_ms)"
                              " VALUES(?,?,?,?)",
                              &ins, err, "writing exporter samples");
    for (size_t i = 0; !rc && i < n; i++) {
        int64_t sid = 0;
        rc = series_id(st, q, exporter_id, &v[i], &sid, err);
        if (rc)
            break;
        sqlite3_reset(ins);
        sqlite3_bind_int64(ins, 1, scrape_id);
        sqlite3_bind_int64(ins, 2, sid);
        wc_store_bind_real(ins, 3, v[i].value);
        if (v[i].has_ts)
            sqlite3_bind_int64(ins, 4, v[i].ts_ms);
        else
            sqlite3_bind_null(ins, 4);
        if (sqlite3_step(ins) != SQLITE_DONE)
            rc = wc_store_fail(st, err, "writing exporter samples");
    }
    sqlite3_finalize(q);
    sqlite3_finalize(ins);
    return rc;
}
