/*
 * store_replay.c — the run database as the tick source and row sink of the
 * offline re-attribution loop (collector/model/replay.h; API in
 * store_replay.h).
 *
 * The source streams three cursors in step, all in insertion (rowid) order,
 * which is the recording order: tick, zone_sample, and proc_sample joined
 * with process; memory stays proportional to one tick. The sink writes each
 * tick's rows with wc_store_put_attribution inside the one transaction that
 * first cleared the model's old rows.
 */
#include "collector/store/store_replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/replay.h"
#include "collector/store/store_internal.h"

static const char TICKS_SQL[] =
    "SELECT id, mono_ns, boot_ns, cpu_user, cpu_nice, cpu_system, cpu_idle,"
    " cpu_iowait, cpu_irq, cpu_softirq, cpu_steal, cpu_guest,"
    " cpu_guest_nice, cpu_ok FROM tick ORDER BY id";
static const char ZONES_SQL[] =
    "SELECT tick_id, zone_id, value, status FROM zone_sample ORDER BY rowid";
static const char PROCS_SQL[] =
    "SELECT ps.tick_id, p.id, p.pid, p.starttime, ps.utime + ps.stime,"
    " p.container_id, p.pod_uid, p.runtime_monitor, p.vm_id, p.vm_since FROM proc_sample ps"
    " JOIN process p ON p.id = ps.process_id ORDER BY ps.rowid";
/* A run recorded before the VM columns: no process is a VM. */
static const char PROCS_NO_VM_SQL[] =
    "SELECT ps.tick_id, p.id, p.pid, p.starttime, ps.utime + ps.stime,"
    " p.container_id, p.pod_uid, p.runtime_monitor, '', '' FROM proc_sample ps"
    " JOIN process p ON p.id = ps.process_id ORDER BY ps.rowid";

/* A zone of the run the models attribute: its counter zones, or — on a node
 * without any (no RAPL) — its power-gauge zones, as Kepler's preferred
 * meters take RAPL before hwmon (kepler-model.md §2.1, §2.4). */
typedef struct zone_meta {
    char name[32];
    uint64_t max_uj;
    int gauge;
} zone_meta;

/* The source's cursors and the current tick's inputs. */
typedef struct replay_src {
    wc_store *st;
    sqlite3_stmt *t, *z, *p;
    int zrc, prc;                /* last step of the zone and process cursors */
    zone_meta *zones;
    int64_t *zone_ids;           /* zone_meta i is zone row zone_ids[i] */
    size_t nzones;
    wc_attr_zone_in *zone_in;
    wc_attr_proc_in *procs;
    int64_t *proc_ids;
    char (*keys)[3][128];        /* container id, pod uid and vm id per process */
    size_t nprocs, cap;
} replay_src;

/* Room for one more zone. Returns 0 or -ENOMEM. */
static int grow_zones(replay_src *r, size_t *cap, wc_error *err)
{
    if (r->nzones < *cap)
        return 0;
    *cap = *cap ? *cap * 2 : 8;
    zone_meta *z = realloc(r->zones, *cap * sizeof *z);
    if (z)
        r->zones = z;
    int64_t *ids = realloc(r->zone_ids, *cap * sizeof *ids);
    if (ids)
        r->zone_ids = ids;
    return z && ids ? 0 : wc_error_set(err, -ENOMEM, "out of memory");
}

/* The zones the models attribute: the counters (RAPL), or the gauges
 * (hwmon) when there is no counter or the deployment prefers hwmon and has
 * one (?1 = 1). */
static int load_zones(replay_src *r, int prefer_gauges, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(r->st, "SELECT id, name, max_energy_range_uj, kind = 'gauge_uw'"
                                     " FROM zone WHERE kind = (SELECT CASE WHEN ?1 AND EXISTS("
                                     "SELECT 1 FROM zone WHERE kind = 'gauge_uw') THEN 'gauge_uw'"
                                     " WHEN EXISTS(SELECT 1 FROM zone WHERE kind = 'counter_uj')"
                                     " THEN 'counter_uj' ELSE 'gauge_uw' END) ORDER BY id",
                              &s, err, "replay: reading zones");
    if (!rc)
        sqlite3_bind_int(s, 1, prefer_gauges);
    size_t cap = 0;
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW && !(rc = grow_zones(r, &cap, err))) {
        r->zone_ids[r->nzones] = sqlite3_column_int64(s, 0);
        zone_meta *z = &r->zones[r->nzones++];
        wc_store_col_text(s, 1, z->name, sizeof z->name);
        z->max_uj = (uint64_t)sqlite3_column_int64(s, 2);
        z->gauge = sqlite3_column_int(s, 3);
        if (z->gauge)
            z->max_uj = 0;
    }
    if (!rc && step != SQLITE_DONE)
        rc = wc_store_fail(r->st, err, "replay: reading zones");
    sqlite3_finalize(s);
    if (rc)
        return rc;
    if (r->nzones == 0)
        return wc_error_set(err, -EINVAL, "replay: the run has no energy-counter or power-gauge "
                                          "zone to attribute");
    r->zone_in = calloc(r->nzones, sizeof *r->zone_in);
    if (!r->zone_in)
        return wc_error_set(err, -ENOMEM, "out of memory");
    for (size_t i = 0; i < r->nzones; i++) {
        r->zone_in[i].name = r->zones[i].name;
        r->zone_in[i].max_energy_range_uj = r->zones[i].max_uj;
        r->zone_in[i].gauge = r->zones[i].gauge;
    }
    return 0;
}

/* Input index of a zone row id (ids ascend), or -1 for a zone not attributed. */
static int64_t zone_index(const replay_src *r, int64_t zone_id)
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

/* Room for one more process. Returns 0 or -ENOMEM. */
static int grow_procs(replay_src *r, wc_error *err)
{
    if (r->nprocs < r->cap)
        return 0;
    size_t cap = r->cap ? r->cap * 2 : 256;
    wc_attr_proc_in *np = realloc(r->procs, cap * sizeof *np);
    if (np)
        r->procs = np;
    int64_t *ni = realloc(r->proc_ids, cap * sizeof *ni);
    if (ni)
        r->proc_ids = ni;
    char(*nk)[3][128] = realloc(r->keys, cap * sizeof *nk);
    if (nk)
        r->keys = nk;
    if (!np || !ni || !nk)
        return wc_error_set(err, -ENOMEM, "out of memory");
    r->cap = cap;
    return 0;
}

static int push_proc(replay_src *r, sqlite3_stmt *p, wc_error *err)
{
    int rc = grow_procs(r, err);
    if (rc)
        return rc;
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
    const unsigned char *vm = sqlite3_column_text(p, 8);
    snprintf(r->keys[i][2], sizeof r->keys[i][2], "%s", vm ? (const char *)vm : "");
    const unsigned char *since = sqlite3_column_text(p, 9);
    if (wc_vm_since_parse((const char *)since, &r->procs[i].vm_since) != 0)
        return wc_error_set(err, -EINVAL, "%s: process %lld: vm_since \"%s\" is no Kepler "
                            "release", r->st->path, (long long)r->proc_ids[i], since);
    return 0;
}

/* Points the process inputs at their key strings (after reallocs settle). */
static void link_keys(replay_src *r)
{
    for (size_t i = 0; i < r->nprocs; i++) {
        r->procs[i].container_id = r->keys[i][0];
        r->procs[i].pod_uid = r->keys[i][1];
        r->procs[i].vm_id = r->keys[i][2];
    }
}

/* The tick row's times and /proc/stat counters into in. */
static void read_tick(sqlite3_stmt *t, wc_attr_tick_in *in)
{
    memset(in, 0, sizeof *in);
    in->mono_ns = sqlite3_column_int64(t, 1);
    in->boot_ns = sqlite3_column_int64(t, 2);
    uint64_t *f[10] = {&in->cpu.user, &in->cpu.nice, &in->cpu.system, &in->cpu.idle,
                       &in->cpu.iowait, &in->cpu.irq, &in->cpu.softirq, &in->cpu.steal,
                       &in->cpu.guest, &in->cpu.guest_nice};
    for (int i = 0; i < 10; i++)
        *f[i] = (uint64_t)sqlite3_column_int64(t, 3 + i);
    in->cpu.cpu = -1;
    in->cpu.nfields = 10;
    in->cpu_ok = sqlite3_column_int(t, 13);
}

/* The zone readings of tick_id (the zone cursor stops at the next tick). */
static void read_zones(replay_src *r, int64_t tick_id)
{
    sqlite3_stmt *z = r->z;
    for (size_t i = 0; i < r->nzones; i++)
        r->zone_in[i].ok = 0;
    for (; r->zrc == SQLITE_ROW && sqlite3_column_int64(z, 0) == tick_id; r->zrc = sqlite3_step(z)) {
        int64_t idx = zone_index(r, sqlite3_column_int64(z, 1));
        if (idx < 0)
            continue; /* a zone not attributed (a gauge beside counters) */
        wc_attr_zone_in *in = &r->zone_in[idx];
        in->energy_uj = in->gauge ? 0 : (uint64_t)sqlite3_column_int64(z, 2);
        in->power_uw = in->gauge ? sqlite3_column_double(z, 2) : 0.0;
        r->zone_in[idx].ok = sqlite3_column_int(z, 3) == 0 && sqlite3_column_type(z, 2) != SQLITE_NULL;
        r->zone_in[idx].vanished = sqlite3_column_int(z, 3) == -ENOENT;
    }
}

/* wc_replay_source.next over the three cursors. */
static int src_next(void *ctx, wc_replay_tick *out, wc_error *err)
{
    replay_src *r = ctx;
    int step = sqlite3_step(r->t);
    if (step == SQLITE_DONE)
        return 0;
    if (step != SQLITE_ROW)
        return wc_store_fail(r->st, err, "replay: reading ticks");
    out->tick_id = sqlite3_column_int64(r->t, 0);
    read_tick(r->t, &out->in);
    read_zones(r, out->tick_id);
    r->nprocs = 0;
    int rc = 0;
    for (; !rc && r->prc == SQLITE_ROW && sqlite3_column_int64(r->p, 0) == out->tick_id;
         r->prc = sqlite3_step(r->p))
        rc = push_proc(r, r->p, err);
    if (!rc && ((r->zrc != SQLITE_ROW && r->zrc != SQLITE_DONE) ||
                (r->prc != SQLITE_ROW && r->prc != SQLITE_DONE)))
        rc = wc_store_fail(r->st, err, "replay: reading samples");
    if (rc)
        return rc;
    link_keys(r);
    out->in.zones = r->zone_in;
    out->in.nzones = r->nzones;
    out->in.procs = r->procs;
    out->in.nprocs = r->nprocs;
    out->proc_ids = r->proc_ids;
    return 1;
}

/* The sink: one model's rows of a tick. */
typedef struct replay_sink {
    wc_store *st;
    int64_t model_id;
} replay_sink;

static int sink_put(void *ctx, const wc_replay_tick *t, const wc_attr_out *out, wc_error *err)
{
    const replay_sink *k = ctx;
    return wc_store_put_attribution(k->st, k->model_id, t->tick_id, out, t->proc_ids, err);
}

/* Prepares the three cursors and reads the first zone and process rows. */
static int src_open(replay_src *r, wc_error *err)
{
    int rc = wc_store_prepare(r->st, TICKS_SQL, &r->t, err, "replay: preparing queries");
    if (!rc)
        rc = wc_store_prepare(r->st, ZONES_SQL, &r->z, err, "replay: preparing queries");
    int has_vm = rc ? 0 : wc_store_has_column(r->st, "process", "vm_since");
    if (!rc && has_vm < 0)
        rc = wc_store_fail(r->st, err, "replay: reading the columns of table process");
    if (!rc)
        rc = wc_store_prepare(r->st, has_vm ? PROCS_SQL : PROCS_NO_VM_SQL, &r->p, err,
                              "replay: preparing queries");
    if (!rc) {
        r->zrc = sqlite3_step(r->z);
        r->prc = sqlite3_step(r->p);
    }
    return rc;
}

static void src_free(replay_src *r)
{
    sqlite3_finalize(r->t);
    sqlite3_finalize(r->z);
    sqlite3_finalize(r->p);
    free(r->zones);
    free(r->zone_ids);
    free(r->zone_in);
    free(r->procs);
    free(r->proc_ids);
    free(r->keys);
}

/* Clears the model's rows and replays into it (inside the transaction). */
static int replay_into(replay_src *r, wc_model model, const wc_kepler_config *kc,
                       int64_t *ticks, wc_error *err)
{
    replay_sink k = {.st = r->st};
    int rc = wc_store_model_id(r->st, wc_model_name(model), &k.model_id, err);
    if (!rc)
        rc = wc_store_clear_model(r->st, k.model_id, err);
    if (!rc)
        rc = src_open(r, err);
    wc_run_meta m;
    if (!rc)
        rc = wc_store_get_run(r->st, &m, err);
    /* a run without a stored ceiling is replayed as it was recorded: the
     * default ceiling, no hidden-wrap check (counter.h) */
    double ceiling = !rc && m.ceiling_stored ? m.ceiling_watts : 0.0;
    wc_replay_source src = {.ctx = r, .next = src_next, .ceiling_watts = ceiling, .kepler = kc};
    wc_replay_sink sink = {.ctx = &k, .put = sink_put};
    if (!rc)
        rc = wc_replay_run(model, &src, &sink, ticks, err);
    return rc;
}

int wc_store_replay(wc_store *st, wc_model model, int64_t *ticks, wc_error *err)
{
    return wc_store_replay_config(st, model, NULL, ticks, err);
}

int wc_store_replay_config(wc_store *st, wc_model model, const wc_kepler_config *kc,
                           int64_t *ticks, wc_error *err)
{
    replay_src r;
    memset(&r, 0, sizeof r);
    r.st = st;
    *ticks = 0;
    int rc = load_zones(&r, kc && wc_kepler_config_prefers_hwmon(kc), err);
    if (!rc)
        rc = wc_store_begin(st, err);
    if (!rc) {
        rc = replay_into(&r, model, kc, ticks, err);
        if (!rc)
            rc = wc_store_commit(st, err);
        else
            wc_store_rollback(st);
    }
    src_free(&r);
    return rc;
}

int wc_store_has_model_rows(wc_store *st, wc_model model, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT 1 FROM node_attr n JOIN model m ON m.id = n.model_id"
                                  " WHERE m.name IN (?1, ?2) LIMIT 1", &s, err,
                          "reading models");
    if (rc)
        return rc;
    /* a run of an older version holds the model's rows under its old name */
    const char *old = wc_model_old_name(model);
    sqlite3_bind_text(s, 1, wc_model_name(model), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, old ? old : wc_model_name(model), -1, SQLITE_STATIC);
    int step = sqlite3_step(s);
    rc = step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "reading models");
    sqlite3_finalize(s);
    return rc;
}
