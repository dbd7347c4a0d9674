/*
 * replay.c — offline re-attribution of a recorded run (see replay.h).
 *
 * Streams three cursors in step, all in insertion (rowid) order, which is the
 * recording order: tick, zone_sample and proc_sample joined with process.
 * Memory stays proportional to one tick.
 */
#include "collector/model/replay.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A counter zone of the run (gauge zones are not attributed). */
typedef struct zone_meta {
    char name[32];
    uint64_t max_uj;
} zone_meta;

typedef struct replay {
    wc_store *st;
    sqlite3 *db;
    zone_meta *zones;
    int64_t *zone_ids;           /* zone_meta i is zone row zone_ids[i] */
    size_t nzones;
    wc_attr_zone_in *zone_in;
    wc_attr_proc_in *procs;
    int64_t *proc_ids;
    char (*keys)[2][65];         /* container id and pod uid per process */
    size_t nprocs, cap;
} replay;

static int fail(replay *r, wc_error *err, const char *what)
{
    return wc_error_set(err, -EIO, "replay: %s: %s", what, sqlite3_errmsg(r->db));
}

static int load_zones(replay *r, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT id, name, max_energy_range_uj FROM zone WHERE kind = 'counter_uj'"
                           " ORDER BY id",
                           -1, &s, NULL) != SQLITE_OK)
        return fail(r, err, "reading zones");
    size_t cap = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (r->nzones == cap) {
            cap = cap ? cap * 2 : 8;
            zone_meta *z = realloc(r->zones, cap * sizeof *z);
            if (z)
                r->zones = z;
            int64_t *ids = realloc(r->zone_ids, cap * sizeof *ids);
            if (ids)
                r->zone_ids = ids;
            if (!z || !ids) {
                sqlite3_finalize(s);
                return wc_error_set(err, -ENOMEM, "out of memory");
            }
        }
        r->zone_ids[r->nzones] = sqlite3_column_int64(s, 0);
        zone_meta *z = &r->zones[r->nzones++];
        const unsigned char *name = sqlite3_column_text(s, 1);
        strncpy(z->name, name ? (const char *)name : "", sizeof z->name - 1);
        z->name[sizeof z->name - 1] = '\0';
        z->max_uj = (uint64_t)sqlite3_column_int64(s, 2);
    }
    sqlite3_finalize(s);
    if (r->nzones == 0)
        return wc_error_set(err, -EINVAL, "replay: the run has no energy-counter zone to attribute");
    r->zone_in = calloc(r->nzones, sizeof *r->zone_in);
    if (!r->zone_in)
        return wc_error_set(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < r->nzones; i++) {
        r->zone_in[i].name = r->zones[i].name;
        r->zone_in[i].max_energy_range_uj = r->zones[i].max_uj;
    }
    return 0;
}

/* Input index of a zone row id (ids ascend), or -1 for a zone not attributed. */
static int64_t zone_index(const replay *r, int64_t zone_id)
{
    size_t lo = 0, hi = r->nzones;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->zone_ids[mid] < zone_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nzones && r->zone_ids[lo] == zone_id ? (int64_t)lo : -1;
}

static int push_proc(replay *r, sqlite3_stmt *p, wc_error *err)
{
    if (r->nprocs == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 256;
        wc_attr_proc_in *np = realloc(r->procs, cap * sizeof *np);
        if (np)
            r->procs = np;
        int64_t *ni = realloc(r->proc_ids, cap * sizeof *ni);
        if (ni)
            r->proc_ids = ni;
        char(*nk)[2][65] = realloc(r->keys, cap * sizeof *nk);
        if (nk)
            r->keys = nk;
        if (!np || !ni || !nk)
            return wc_error_set(err, -ENOMEM, "out of memory");
        r->cap = cap;
    }
    size_t i = r->nprocs++;
    r->proc_ids[i] = sqlite3_column_int64(p, 1);
    r->procs[i].pid = sqlite3_column_int(p, 2);
    r->procs[i].starttime = (uint64_t)sqlite3_column_int64(p, 3);
    r->procs[i].cpu_ticks = (uint64_t)sqlite3_column_int64(p, 4);
    const unsigned char *cid = sqlite3_column_text(p, 5);
    const unsigned char *pod = sqlite3_column_text(p, 6);
    int monitor = sqlite3_column_int(p, 7);
    snprintf(r->keys[i][0], 65, "%s", (!monitor && cid) ? (const char *)cid : "");
    snprintf(r->keys[i][1], 65, "%s", pod ? (const char *)pod : "");
    return 0;
}

/* Points the process inputs at their key strings (after reallocs settle). */
static void link_keys(replay *r)
{
    for (size_t i = 0; i < r->nprocs; i++) {
        r->procs[i].container_id = r->keys[i][0];
        r->procs[i].pod_uid = r->keys[i][1];
    }
}

static int run_replay(replay *r, wc_attrib *a, int64_t model_id, int64_t *ticks, wc_error *err)
{
    sqlite3_stmt *t = NULL, *z = NULL, *p = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(r->db,
                           "SELECT id, mono_ns, boot_ns, cpu_user, cpu_nice, cpu_system, cpu_idle,"
                           " cpu_iowait, cpu_irq, cpu_softirq, cpu_steal, cpu_guest,"
                           " cpu_guest_nice, cpu_ok FROM tick ORDER BY id",
                           -1, &t, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(r->db,
                           "SELECT tick_id, zone_id, value, status FROM zone_sample ORDER BY rowid",
                           -1, &z, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(r->db,
                           "SELECT ps.tick_id, p.id, p.pid, p.starttime, ps.utime + ps.stime,"
                           " p.container_id, p.pod_uid, p.runtime_monitor FROM proc_sample ps"
                           " JOIN process p ON p.id = ps.process_id ORDER BY ps.rowid",
                           -1, &p, NULL) != SQLITE_OK) {
        rc = fail(r, err, "preparing queries");
        goto out;
    }
    int zrc = sqlite3_step(z), prc = sqlite3_step(p);
    while (!rc && sqlite3_step(t) == SQLITE_ROW) {
        int64_t tick_id = sqlite3_column_int64(t, 0);
        wc_attr_tick_in in;
        memset(&in, 0, sizeof in);
        in.mono_ns = sqlite3_column_int64(t, 1);
        in.boot_ns = sqlite3_column_int64(t, 2);
        uint64_t *f[10] = {&in.cpu.user, &in.cpu.nice,   &in.cpu.system, &in.cpu.idle,
                           &in.cpu.iowait, &in.cpu.irq, &in.cpu.softirq, &in.cpu.steal,
                           &in.cpu.guest, &in.cpu.guest_nice};
        for (int i = 0; i < 10; i++)
            *f[i] = (uint64_t)sqlite3_column_int64(t, 3 + i);
        in.cpu.cpu = -1;
        in.cpu.nfields = 10;
        in.cpu_ok = sqlite3_column_int(t, 13);
        for (size_t i = 0; i < r->nzones; i++)
            r->zone_in[i].ok = 0;
        for (; zrc == SQLITE_ROW && sqlite3_column_int64(z, 0) == tick_id; zrc = sqlite3_step(z)) {
            int64_t idx = zone_index(r, sqlite3_column_int64(z, 1));
            if (idx < 0)
                continue; /* a gauge zone */
            r->zone_in[idx].energy_uj = (uint64_t)sqlite3_column_int64(z, 2);
            r->zone_in[idx].ok = sqlite3_column_int(z, 3) == 0 &&
                                 sqlite3_column_type(z, 2) != SQLITE_NULL;
            r->zone_in[idx].vanished = sqlite3_column_int(z, 3) == -ENOENT;
        }
        r->nprocs = 0;
        for (; !rc && prc == SQLITE_ROW && sqlite3_column_int64(p, 0) == tick_id;
             prc = sqlite3_step(p))
            rc = push_proc(r, p, err);
        if (rc)
            break;
        link_keys(r);
        in.zones = r->zone_in;
        in.nzones = r->nzones;
        in.procs = r->procs;
        in.nprocs = r->nprocs;
        wc_attr_out out;
        rc = wc_attrib_step(a, &in, &out, err);
        if (!rc)
            rc = wc_store_put_attribution(r->st, model_id, tick_id, &out, r->proc_ids, err);
        (*ticks)++;
    }
out:
    sqlite3_finalize(t);
    sqlite3_finalize(z);
    sqlite3_finalize(p);
    return rc;
}

int wc_replay(wc_store *st, wc_model model, int64_t *ticks, wc_error *err)
{
    replay r;
    memset(&r, 0, sizeof r);
    r.st = st;
    r.db = wc_store_db(st);
    *ticks = 0;
    int64_t model_id = 0;
    wc_attrib *a = wc_attrib_new(model);
    int rc = a ? 0 : wc_error_set(err, -ENOMEM, "out of memory");
    if (!rc)
        rc = load_zones(&r, err);
    if (!rc)
        rc = wc_store_begin(st, err);
    if (!rc) {
        rc = wc_store_model_id(st, wc_model_name(model), &model_id, err);
        if (!rc)
            rc = wc_store_clear_model(st, model_id, err);
        if (!rc)
            rc = run_replay(&r, a, model_id, ticks, err);
        if (!rc)
            rc = wc_store_commit(st, err);
        else
            sqlite3_exec(r.db, "ROLLBACK", NULL, NULL, NULL);
    }
    wc_attrib_free(a);
    free(r.zones);
    free(r.zone_ids);
    free(r.zone_in);
    free(r.procs);
    free(r.proc_ids);
    free(r.keys);
    return rc;
}

int wc_replay_has_model(wc_store *st, wc_model model, wc_error *err)
{
    sqlite3 *db = wc_store_db(st);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM node_attr n JOIN model m ON m.id = n.model_id"
                           " WHERE m.name = ? LIMIT 1",
                           -1, &s, NULL) != SQLITE_OK)
        return wc_error_set(err, -EIO, "%s", sqlite3_errmsg(db));
    sqlite3_bind_text(s, 1, wc_model_name(model), -1, SQLITE_STATIC);
    int found = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    return found;
}
