/*
 * store_exporter.c — the exporter's own numbers in the run (store_exporter.h;
 * docs/schema.md "exporter*", schema version 5): the exporter rows, every
 * scrape, every series with its Kepler meaning, every sample; and their
 * readers.
 *
 * A scrape of N samples is N inserts: the series ids are cached in a hash map
 * (exporter id, metric, canonical labels) -> id, so only a series never seen
 * before costs an INSERT of its row. The cache is a cache: when it grows past
 * CACHE_MAX entries (a node whose processes churn for days) it is emptied and
 * refilled from the UNIQUE index on a miss, so memory stays bounded. Its
 * statements are prepared on first use (a version-4 run opened for writing
 * has no exporter tables, and never needs them). Strings are bound as
 * parameters: labels, names and errors come from the exporter.
 */
#include "collector/store/store_exporter.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_internal.h"
#include "collector/store/store_iter.h"

/* Entries the series cache holds before it is emptied and refilled. */
#define CACHE_MAX 262144

typedef struct cache_entry {
    uint64_t hash;               /* 0: empty slot */
    int64_t exporter_id, id;
    char *key;                   /* metric '\0' labels */
    size_t len;                  /* bytes of key, both NULs included */
} cache_entry;

struct wc_exporter_cache {
    sqlite3_stmt *put_scrape, *put_series, *find_series, *put_sample;
    cache_entry *slots;
    size_t cap, n;               /* cap a power of two, n <= cap / 2 */
};

static const char *const SQL_PUT_SCRAPE =
    "INSERT INTO exporter_scrape(exporter_id,req_mono_ns,req_wall_ns,resp_mono_ns,resp_wall_ns,"
    "http_status,duration_ns,bytes,samples,status,error) VALUES(?,?,?,?,?,?,?,?,?,?,?)";
static const char *const SQL_PUT_SERIES =
    "INSERT OR IGNORE INTO exporter_series(exporter_id,metric,labels,level,quantity,device,zone,"
    "key,parent,name,namespace,comm,state,path,meter) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
static const char *const SQL_FIND_SERIES =
    "SELECT id FROM exporter_series WHERE exporter_id=? AND metric=? AND labels=?";
static const char *const SQL_PUT_SAMPLE =
    "INSERT INTO exporter_sample(scrape_id,series_id,value,ts_ms) VALUES(?,?,?,?)";

/* ---- the series cache ---------------------------------------------------- */

static void cache_clear(struct wc_exporter_cache *c)
{
    for (size_t i = 0; i < c->cap; i++)
        free(c->slots[i].key);
    free(c->slots);
    c->slots = NULL;
    c->cap = c->n = 0;
}

void wc_store_exporter_free(wc_store *st)
{
    struct wc_exporter_cache *c = st->exporter;
    if (!c)
        return;
    sqlite3_finalize(c->put_scrape);
    sqlite3_finalize(c->put_series);
    sqlite3_finalize(c->find_series);
    sqlite3_finalize(c->put_sample);
    cache_clear(c);
    free(c);
    st->exporter = NULL;
}

/* FNV-1a over the exporter id and the key; never 0 (0 marks an empty slot). */
static uint64_t key_hash(int64_t exporter_id, const char *key, size_t len)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)exporter_id;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)key[i]) * 1099511628211ULL;
    return h ? h : 1;
}

/* The slot of (exporter_id, key): the entry's, or the empty one to fill. */
static cache_entry *cache_slot(struct wc_exporter_cache *c, uint64_t h, int64_t exporter_id,
                               const char *key, size_t len)
{
    for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        cache_entry *e = &c->slots[i];
        if (!e->hash || (e->hash == h && e->exporter_id == exporter_id && e->len == len &&
                         memcmp(e->key, key, len) == 0))
            return e;
    }
}

/* Doubles the table (or starts it), rehashing the entries. -ENOMEM. */
static int cache_grow(struct wc_exporter_cache *c)
{
    size_t cap = c->cap ? c->cap * 2 : 1024;
    cache_entry *old = c->slots, *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -ENOMEM;
    size_t old_cap = c->cap;
    c->slots = slots;
    c->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].hash)
            *cache_slot(c, old[i].hash, old[i].exporter_id, old[i].key, old[i].len) = old[i];
    free(old);
    return 0;
}

/* Remembers key -> id (emptying the cache first when it is full). */
static int cache_put(struct wc_exporter_cache *c, uint64_t h, int64_t exporter_id,
                     const char *key, size_t len, int64_t id)
{
    if (c->n >= CACHE_MAX)
        cache_clear(c);
    if ((c->n + 1) * 2 > c->cap && cache_grow(c) != 0)
        return -ENOMEM;
    char *copy = malloc(len);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, key, len);
    cache_entry *e = cache_slot(c, h, exporter_id, key, len);
    *e = (cache_entry){.hash = h, .exporter_id = exporter_id, .id = id, .key = copy, .len = len};
    c->n++;
    return 0;
}

/* The cache and its statements, made on first use. -EIO naming the file
 * when the run has no exporter tables. */
static int writer(wc_store *st, struct wc_exporter_cache **out, wc_error *err)
{
    if (st->read_only)
        return wc_error_set(err, -EROFS, "%s: opened read-only", st->path);
    if (!st->exporter) {
        struct wc_exporter_cache *c = calloc(1, sizeof *c);
        if (!c)
            return wc_error_set(err, -ENOMEM, "out of memory");
        st->exporter = c;
        int rc = wc_store_prepare(st, SQL_PUT_SCRAPE, &c->put_scrape, err, "preparing exporter writes");
        if (!rc)
            rc = wc_store_prepare(st, SQL_PUT_SERIES, &c->put_series, err, "preparing exporter writes");
        if (!rc)
            rc = wc_store_prepare(st, SQL_FIND_SERIES, &c->find_series, err, "preparing exporter writes");
        if (!rc)
            rc = wc_store_prepare(st, SQL_PUT_SAMPLE, &c->put_sample, err, "preparing exporter writes");
        if (rc) {
            wc_store_exporter_free(st);
            return rc;
        }
    }
    *out = st->exporter;
    return 0;
}

/* ---- writes -------------------------------------------------------------- */

static void bind_text(sqlite3_stmt *s, int i, const char *t)
{
    sqlite3_bind_text(s, i, t ? t : "", -1, SQLITE_TRANSIENT);
}

/* Binds text, or NULL for an empty string. */
static void bind_text_or_null(sqlite3_stmt *s, int i, const char *t)
{
    if (t && *t)
        sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

/* Steps a write statement and resets it. */
static int step_done(wc_store *st, sqlite3_stmt *s, wc_error *err, const char *what)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, what);
}

/* The exporter's learnt columns, bound from parameter first on. */
static void bind_learnt(sqlite3_stmt *s, int first, const wc_exporter_info *e)
{
    bind_text(s, first, e->node);
    bind_text(s, first + 1, e->version);
    bind_text(s, first + 2, e->revision);
    bind_text(s, first + 3, e->layout);
    bind_text(s, first + 4, e->power_source);
    bind_text(s, first + 5, e->provenance);
    bind_text(s, first + 6, e->description);
}

int wc_store_put_exporter(wc_store *st, wc_exporter_info *e, wc_error *err)
{
    struct wc_exporter_cache *c = NULL;
    int rc = writer(st, &c, err); /* fails early on a run without the tables */
    sqlite3_stmt *s = NULL;
    if (!rc)
        rc = wc_store_prepare(st,
                              "INSERT INTO exporter(spec,kind,origin,node,version,revision,layout,"
                              "power_source,provenance,description) VALUES(?,?,?,?,?,?,?,?,?,?)",
                              &s, err, "writing exporter");
    if (rc)
        return rc;
    bind_text(s, 1, e->spec);
    bind_text(s, 2, e->kind);
    bind_text(s, 3, e->origin);
    bind_learnt(s, 4, e);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return wc_store_fail(st, err, "writing exporter");
    e->id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

int wc_store_update_exporter(wc_store *st, const wc_exporter_info *e, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st,
                              "UPDATE exporter SET node=?,version=?,revision=?,layout=?,"
                              "power_source=?,provenance=?,description=? WHERE id=?",
                              &s, err, "updating exporter");
    if (rc)
        return rc;
    bind_learnt(s, 1, e);
    sqlite3_bind_int64(s, 8, e->id);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, "updating exporter");
}

int wc_store_put_scrape(wc_store *st, wc_scrape_meta *m, wc_error *err)
{
    struct wc_exporter_cache *c = NULL;
    int rc = writer(st, &c, err);
    if (rc)
        return rc;
    sqlite3_stmt *s = c->put_scrape;
    sqlite3_bind_int64(s, 1, m->exporter_id);
    sqlite3_bind_int64(s, 2, m->req_mono_ns);
    sqlite3_bind_int64(s, 3, m->req_wall_ns);
    sqlite3_bind_int64(s, 4, m->resp_mono_ns);
    sqlite3_bind_int64(s, 5, m->resp_wall_ns);
    if (m->http_status)
        sqlite3_bind_int(s, 6, m->http_status);
    sqlite3_bind_int64(s, 7, m->duration_ns);
    sqlite3_bind_int64(s, 8, m->bytes);
    sqlite3_bind_int64(s, 9, m->samples);
    bind_text(s, 10, m->status);
    bind_text_or_null(s, 11, m->error);
    rc = step_done(st, s, err, "writing exporter scrape");
    if (!rc)
        m->id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

int wc_store_cut_scrape(wc_store *st, int64_t scrape_id, int64_t stored, const char *why,
                        wc_error *err)
{
    if (st->read_only)
        return wc_error_set(err, -EROFS, "%s: opened read-only", st->path);
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st,
                              "UPDATE exporter_scrape SET samples = ?2, error = CASE WHEN "
                              "error IS NULL OR error = '' THEN ?3 ELSE error || '; ' || ?3 "
                              "END WHERE id = ?1",
                              &s, err, "cutting an exporter scrape");
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, scrape_id);
    sqlite3_bind_int64(s, 2, stored);
    bind_text(s, 3, why);
    rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, "cutting an exporter scrape");
}

/* The Kepler meaning of a new series (all "" when fact is NULL). */
static void bind_fact(sqlite3_stmt *s, const wc_kep_fact *f)
{
    static const wc_kep_fact none;
    const wc_kep_fact *g = f ? f : &none;
    bind_text(s, 4, f ? wc_kep_level_name(g->level) : "");
    bind_text(s, 5, f ? wc_kep_quantity_name(g->quantity) : "");
    int workload = g->level >= WC_KEP_NODE && g->level <= WC_KEP_VM; /* has a device */
    bind_text(s, 6, f && workload ? wc_kep_device_name(g->device) : "");
    bind_text(s, 7, g->zone);
    bind_text(s, 8, g->key);
    bind_text(s, 9, g->parent);
    bind_text(s, 10, g->name);
    bind_text(s, 11, g->ns);
    bind_text(s, 12, f && g->level == WC_KEP_PROCESS ? g->name : "");
    bind_text(s, 13, g->state);
    bind_text(s, 14, g->path);
    bind_text(s, 15, f ? wc_kep_meter_name(g->meter) : "");
}

/* The id of a series row: inserted when new, else found by the UNIQUE key. */
static int series_row(wc_store *st, struct wc_exporter_cache *c, int64_t exporter_id,
                      const wc_exporter_sample_in *v, int64_t *id, wc_error *err)
{
    sqlite3_stmt *s = c->put_series;
    sqlite3_bind_int64(s, 1, exporter_id);
    bind_text(s, 2, v->metric);
    bind_text(s, 3, v->labels);
    bind_fact(s, v->fact);
    int rc = step_done(st, s, err, "writing exporter series");
    if (rc)
        return rc;
    if (sqlite3_changes(st->db) == 1) {
        *id = sqlite3_last_insert_rowid(st->db);
        return 0;
    }
    s = c->find_series;
    sqlite3_bind_int64(s, 1, exporter_id);
    bind_text(s, 2, v->metric);
    bind_text(s, 3, v->labels);
    int step = sqlite3_step(s);
    *id = step == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return step == SQLITE_ROW ? 0 : wc_store_fail(st, err, "finding exporter series");
}

/* The series id of one sample: from the cache, else from the table. */
static int series_id(wc_store *st, struct wc_exporter_cache *c, int64_t exporter_id,
                     const wc_exporter_sample_in *v, char **key, size_t *key_cap, int64_t *id,
                     wc_error *err)
{
    size_t ml = strlen(v->metric), ll = strlen(v->labels ? v->labels : ""), len = ml + ll + 2;
    if (len > *key_cap) {
        char *k = realloc(*key, len);
        if (!k)
            return wc_error_set(err, -ENOMEM, "out of memory");
        *key = k;
        *key_cap = len;
    }
    memcpy(*key, v->metric, ml + 1);
    memcpy(*key + ml + 1, v->labels ? v->labels : "", ll + 1);
    uint64_t h = key_hash(exporter_id, *key, len);
    if (c->cap) {
        const cache_entry *e = cache_slot(c, h, exporter_id, *key, len);
        if (e->hash) {
            *id = e->id;
            return 0;
        }
    }
    int rc = series_row(st, c, exporter_id, v, id, err);
    if (!rc && cache_put(c, h, exporter_id, *key, len, *id) != 0)
        rc = wc_error_set(err, -ENOMEM, "out of memory");
    return rc;
}

int wc_store_put_exporter_samples(wc_store *st, int64_t exporter_id, int64_t scrape_id,
                                  const wc_exporter_sample_in *v, size_t n, wc_error *err)
{
    struct wc_exporter_cache *c = NULL;
    int rc = writer(st, &c, err);
    char *key = NULL;
    size_t key_cap = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        int64_t id = 0;
        rc = series_id(st, c, exporter_id, &v[i], &key, &key_cap, &id, err);
        if (rc)
            break;
        sqlite3_stmt *s = c->put_sample;
        sqlite3_bind_int64(s, 1, scrape_id);
        sqlite3_bind_int64(s, 2, id);
        wc_store_bind_real(s, 3, v[i].value); /* NaN and ±Inf: NULL */
        if (v[i].has_ts)
            sqlite3_bind_int64(s, 4, v[i].ts_ms);
        rc = step_done(st, s, err, "writing exporter sample");
    }
    free(key);
    return rc;
}

/* ---- readers ------------------------------------------------------------- */

/* 1 when the run has the exporter tables (schema version 5), 0 when not. */
static int has_tables(wc_store *st)
{
    return wc_store_has_object(st, "exporter_sample") == 1;
}

static void read_exporter(sqlite3_stmt *s, wc_exporter_info *e)
{
    memset(e, 0, sizeof *e);
    e->id = sqlite3_column_int64(s, 0);
    wc_store_col_text(s, 1, e->spec, sizeof e->spec);
    wc_store_col_text(s, 2, e->kind, sizeof e->kind);
    wc_store_col_text(s, 3, e->origin, sizeof e->origin);
    wc_store_col_text(s, 4, e->node, sizeof e->node);
    wc_store_col_text(s, 5, e->version, sizeof e->version);
    wc_store_col_text(s, 6, e->revision, sizeof e->revision);
    wc_store_col_text(s, 7, e->layout, sizeof e->layout);
    wc_store_col_text(s, 8, e->power_source, sizeof e->power_source);
    wc_store_col_text(s, 9, e->provenance, sizeof e->provenance);
    wc_store_col_text(s, 10, e->description, sizeof e->description);
}

int wc_store_exporters(wc_store *st, wc_exporter_info *out, size_t max, size_t *n,
                       wc_error *err)
{
    *n = 0;
    if (!has_tables(st))
        return 0;
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st,
                              "SELECT id,spec,kind,origin,node,version,revision,layout,"
                              "power_source,provenance,description FROM exporter ORDER BY id",
                              &s, err, "reading exporters");
    if (rc)
        return rc;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW && *n < max)
        read_exporter(s, &out[(*n)++]);
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "reading exporters");
}

static void read_scrape(sqlite3_stmt *s, wc_scrape_meta *m)
{
    memset(m, 0, sizeof *m);
    m->id = sqlite3_column_int64(s, 0);
    m->exporter_id = sqlite3_column_int64(s, 1);
    m->req_mono_ns = sqlite3_column_int64(s, 2);
    m->req_wall_ns = sqlite3_column_int64(s, 3);
    m->resp_mono_ns = sqlite3_column_int64(s, 4);
    m->resp_wall_ns = sqlite3_column_int64(s, 5);
    m->http_status = sqlite3_column_int(s, 6);
    m->duration_ns = sqlite3_column_int64(s, 7);
    m->bytes = sqlite3_column_int64(s, 8);
    m->samples = sqlite3_column_int64(s, 9);
    wc_store_col_text(s, 10, m->status, sizeof m->status);
    wc_store_col_text(s, 11, m->error, sizeof m->error);
}

int wc_store_scrapes(wc_store *st, int64_t exporter_id, wc_scrape_meta **out, size_t *n,
                     wc_error *err)
{
    *out = NULL;
    *n = 0;
    if (!has_tables(st))
        return 0;
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st,
                              "SELECT id,exporter_id,req_mono_ns,req_wall_ns,resp_mono_ns,"
                              "resp_wall_ns,http_status,duration_ns,bytes,samples,status,error"
                              " FROM exporter_scrape WHERE exporter_id=? ORDER BY req_mono_ns,id",
                              &s, err, "reading exporter scrapes");
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, exporter_id);
    size_t cap = 0;
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (wc_store_grow((void **)out, sizeof **out, *n, &cap, 256) != 0)
            rc = wc_error_set(err, -ENOMEM, "%s: reading exporter scrapes: out of memory", st->path);
        else
            read_scrape(s, &(*out)[(*n)++]);
    }
    if (!rc && step != SQLITE_DONE)
        rc = wc_store_fail(st, err, "reading exporter scrapes");
    sqlite3_finalize(s);
    return rc;
}

static void read_series(sqlite3_stmt *s, wc_exporter_series_row *r)
{
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(s, 0);
    wc_store_col_text(s, 1, r->metric, sizeof r->metric);
    wc_store_col_text(s, 2, r->labels, sizeof r->labels);
    wc_store_col_text(s, 3, r->level, sizeof r->level);
    wc_store_col_text(s, 4, r->quantity, sizeof r->quantity);
    wc_store_col_text(s, 5, r->device, sizeof r->device);
    wc_store_col_text(s, 6, r->zone, sizeof r->zone);
    wc_store_col_text(s, 7, r->key, sizeof r->key);
    wc_store_col_text(s, 8, r->parent, sizeof r->parent);
    wc_store_col_text(s, 9, r->name, sizeof r->name);
    wc_store_col_text(s, 10, r->ns, sizeof r->ns);
    wc_store_col_text(s, 11, r->comm, sizeof r->comm);
    wc_store_col_text(s, 12, r->state, sizeof r->state);
    wc_store_col_text(s, 13, r->path, sizeof r->path);
    wc_store_col_text(s, 14, r->meter, sizeof r->meter);
}

int wc_store_exporter_series_count(wc_store *st, int64_t exporter_id, size_t *n, wc_error *err)
{
    *n = 0;
    if (!has_tables(st))
        return 0;
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT COUNT(*) FROM exporter_series WHERE exporter_id=?", &s,
                              err, "counting exporter series");
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, exporter_id);
    if (sqlite3_step(s) == SQLITE_ROW)
        *n = (size_t)sqlite3_column_int64(s, 0);
    else
        rc = wc_store_fail(st, err, "counting exporter series");
    sqlite3_finalize(s);
    return rc;
}

int wc_store_exporter_series_fill(wc_store *st, int64_t exporter_id, wc_exporter_series_row *first,
                                  size_t stride, size_t cap, size_t *n, wc_error *err)
{
    *n = 0;
    if (!has_tables(st))
        return 0;
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st,
                              "SELECT id,metric,labels,level,quantity,device,zone,key,parent,name,"
                              "namespace,comm,state,path,meter FROM exporter_series"
                              " WHERE exporter_id=? ORDER BY id",
                              &s, err, "reading exporter series");
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, exporter_id);
    int step = SQLITE_DONE;
    while (*n < cap && (step = sqlite3_step(s)) == SQLITE_ROW)
        read_series(s, (wc_exporter_series_row *)((char *)first + (*n)++ * stride));
    if (*n == cap && cap && (step = sqlite3_step(s)) == SQLITE_ROW)
        rc = wc_error_set(err, -EAGAIN, "%s: reading exporter series: more rows than counted (the"
                          " file changed while it was read)", st->path);
    else if (step != SQLITE_DONE && step != SQLITE_ROW)
        rc = wc_store_fail(st, err, "reading exporter series");
    sqlite3_finalize(s);
    return rc;
}

int wc_store_exporter_series(wc_store *st, int64_t exporter_id, wc_exporter_series_row **out,
                             size_t *n, wc_error *err)
{
    size_t count = 0;
    *out = NULL;
    *n = 0;
    int rc = wc_store_exporter_series_count(st, exporter_id, &count, err);
    if (rc || !count)
        return rc;
    *out = malloc(count * sizeof **out);
    if (!*out)
        return wc_error_set(err, -ENOMEM, "%s: reading exporter series: out of memory", st->path);
    rc = wc_store_exporter_series_fill(st, exporter_id, *out, sizeof **out, count, n, err);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int wc_store_exporter_samples_open(wc_store *st, int64_t exporter_id, const char *level,
                                   const char *quantity, wc_store_iter **it, wc_error *err)
{
    *it = NULL;
    /* A run without the tables streams nothing: the same query over an empty set. */
    const char *sql =
        has_tables(st)
            ? "SELECT s.series_id, s.scrape_id, c.resp_mono_ns, c.resp_wall_ns, s.value, s.ts_ms"
              " FROM exporter_sample s JOIN exporter_series e ON e.id = s.series_id"
              " JOIN exporter_scrape c ON c.id = s.scrape_id"
              " WHERE e.exporter_id = ?1 AND (?2 IS NULL OR e.level = ?2)"
              " AND (?3 IS NULL OR e.quantity = ?3)"
              " ORDER BY s.series_id, c.resp_mono_ns, s.scrape_id"
            : "SELECT 0,0,0,0,0,0 WHERE ?1 IS NULL AND ?2 IS NULL AND ?3 IS NULL AND 0";
    int rc = wc_store_iter_open(st, sql, WC_ITER_EXPORTER_SAMPLE, "reading exporter samples",
                                it, err);
    if (rc)
        return rc;
    sqlite3_bind_int64((*it)->s, 1, exporter_id);
    if (level)
        sqlite3_bind_text((*it)->s, 2, level, -1, SQLITE_TRANSIENT);
    if (quantity)
        sqlite3_bind_text((*it)->s, 3, quantity, -1, SQLITE_TRANSIENT);
    return 0;
}

int wc_store_exporter_sample_next(wc_store_iter *it, wc_exporter_sample_row *row,
                                  wc_error *err)
{
    int rc = wc_store_iter_step(it, WC_ITER_EXPORTER_SAMPLE, err);
    if (rc != 1)
        return rc;
    sqlite3_stmt *s = it->s;
    row->series_id = sqlite3_column_int64(s, 0);
    row->scrape_id = sqlite3_column_int64(s, 1);
    row->mono_ns = sqlite3_column_int64(s, 2);
    row->wall_ns = sqlite3_column_int64(s, 3);
    row->value = wc_store_col_real(s, 4);
    row->has_ts = sqlite3_column_type(s, 5) != SQLITE_NULL;
    row->ts_ms = row->has_ts ? sqlite3_column_int64(s, 5) : 0;
    return 1;
}
