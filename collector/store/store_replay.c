/*
 * store_replay.c — the run database as the tick source and row sink of the
 * offline re-attribution loop (collector/model/replay.h; API in
 * store_replay.h).
 *
 * The source streams three cursors in step, all in insertion (rowid) order,
 * which is the recording order: tick, zone_sample, and proc_sample joined
 * with process; memory stays proportional to one tick. A delta tick's
 * complete process list is rebuilt from the processes alive before it
 * (collector/store/store_delta.c, docs/schema.md). The sink writes each
 * tick's rows with wc_store_put_attribution inside the one transaction that
 * first cleared the model's old rows.
 */
#include "collector/store/store_replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/replay.h"
#include "collector/store/store_internal.h"

static const char TICKS_SQL[] =
    "SELECT id, mono_ns, boot_ns, cpu_user, cpu_nice, cpu_system, cpu_idle,"
    " cpu_iowait, cpu_irq, cpu_softirq, cpu_steal, cpu_guest,"
    " cpu_guest_nice, cpu_ok, nprocs, %s FROM tick ORDER BY id";
static const char ZONES_SQL[] =
    "SELECT tick_id, zone_id, value, status FROM zone_sample ORDER BY rowid";
static const char PROCS_SQL[] =
    "SELECT ps.tick_id, p.id, p.pid, p.starttime, ps.utime + ps.stime,"
    " p.container_id, p.pod_uid, p.runtime_monitor, p.vm_id, p.vm_since, p.last_tick_id"
    " FROM proc_sample ps"
    " JOIN process p ON p.id = ps.process_id ORDER BY ps.rowid";
/* A run recorded before the VM columns: no process is a VM. */
static const char PROCS_NO_VM_SQL[] =
    "SELECT ps.tick_id, p.id, p.pid, p.starttime, ps.utime + ps.stime,"
    " p.container_id, p.pod_uid, p.runtime_monitor, '', '', p.last_tick_id FROM proc_sample ps"
    " JOIN process p ON p.id = ps.process_id ORDER BY ps.rowid";

/* A zone of the run the models attribute: its counter zones, or — on a node
 * without any (no RAPL) — its power-gauge zones, as Kepler's preferred
 * meters take RAPL before hwmon (kepler-model.md §2.1, §2.4). */
typedef struct zone_meta {
    char name[32];
    uint64_t max_uj;
    int gauge;
} zone_meta;

/* One process as the model sees it on a tick, with its row id and the last
 * tick it was alive (INT64_MAX while it was at the end of the run). */
typedef struct proc_ent {
    wc_attr_proc_in in;
    int64_t id, last_tick;
    char keys[3][128];           /* container id, pod uid and vm id */
} proc_ent;

/* A growable list of processes. */
typedef struct proc_list {
    proc_ent *v;
    size_t n, cap;
} proc_list;

/* The source's cursors and the current tick's inputs. A keyframe tick's
 * processes are its rows in scan order; a delta tick's (tick.proc_delta = 1,
 * store_delta.c) are the live list, in pid order, updated by its rows. */
typedef struct replay_src {
    wc_store *st;
    sqlite3_stmt *t, *z, *p;
    int zrc, prc;                /* last step of the zone and process cursors */
    zone_meta *zones;
    int64_t *zone_ids;           /* zone_meta i is zone row zone_ids[i] */
    size_t nzones;
    wc_attr_zone_in *zone_in;
    proc_list rows, live;        /* this tick's rows; the processes alive (by pid) */
    wc_attr_proc_in *procs;      /* the tick's input ... */
    int64_t *proc_ids;           /* ... and row ids */
    size_t cap;
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

/* Appends the process row under the cursor to the tick's rows. */
static int push_row(replay_src *r, sqlite3_stmt *p, wc_error *err)
{
    proc_list *l = &r->rows;
    if (wc_store_grow((void **)&l->v, sizeof *l->v, l->n, &l->cap, 256))
        return wc_error_set(err, -ENOMEM, "out of memory");
    proc_ent *e = &l->v[l->n++];
    e->id = sqlite3_column_int64(p, 1);
    e->in.pid = sqlite3_column_int(p, 2);
    e->in.starttime = (uint64_t)sqlite3_column_int64(p, 3);
    e->in.cpu_ticks = (uint64_t)sqlite3_column_int64(p, 4);
    const unsigned char *cid = sqlite3_column_text(p, 5);
    const unsigned char *pod = sqlite3_column_text(p, 6);
    int monitor = sqlite3_column_int(p, 7);
    snprintf(e->keys[0], sizeof e->keys[0], "%s", (!monitor && cid) ? (const char *)cid : "");
    snprintf(e->keys[1], sizeof e->keys[1], "%s", pod ? (const char *)pod : "");
    const unsigned char *vm = sqlite3_column_text(p, 8);
    snprintf(e->keys[2], sizeof e->keys[2], "%s", vm ? (const char *)vm : "");
    const unsigned char *since = sqlite3_column_text(p, 9);
    if (wc_vm_since_parse((const char *)since, &e->in.vm_since) != 0)
        return wc_error_set(err, -EINVAL, "%s: process %lld: vm_since \"%s\" is no Kepler "
                            "release", r->st->path, (long long)e->id, since);
    e->last_tick = sqlite3_column_type(p, 10) == SQLITE_NULL ? INT64_MAX
                                                             : sqlite3_column_int64(p, 10);
    return 0;
}

static int cmp_pid(const void *a, const void *b)
{
    const proc_ent *x = a, *y = b;
    return (x->in.pid > y->in.pid) - (x->in.pid < y->in.pid);
}

/* Index of pid in the live list (sorted by pid), or where it would go. */
static size_t live_find(const proc_list *l, int32_t pid)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (l->v[mid].in.pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Room for n processes in l. Returns 0 or -ENOMEM. */
static int list_reserve(proc_list *l, size_t n, wc_error *err)
{
    if (n <= l->cap)
        return 0;
    proc_ent *v = realloc(l->v, n * sizeof *v);
    if (!v)
        return wc_error_set(err, -ENOMEM, "out of memory");
    l->v = v;
    l->cap = n;
    return 0;
}

/* A keyframe: the live list becomes the tick's rows, sorted by pid. */
static int live_from_rows(replay_src *r, wc_error *err)
{
    int rc = list_reserve(&r->live, r->rows.n, err);
    if (rc)
        return rc;
    r->live.n = r->rows.n;
    if (!r->live.n) /* a tick without processes: nothing to copy (memcpy/qsort of NULL is UB) */
        return 0;
    memcpy(r->live.v, r->rows.v, r->rows.n * sizeof *r->rows.v);
    qsort(r->live.v, r->live.n, sizeof *r->live.v, cmp_pid);
    return 0;
}

/* A delta tick: drops the processes that ended before tick_id, then applies
 * the tick's rows (a changed process or a new one). */
static int live_apply(replay_src *r, int64_t tick_id, wc_error *err)
{
    proc_list *l = &r->live;
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].last_tick >= tick_id)
            l->v[k++] = l->v[i];
    l->n = k;
    int rc = list_reserve(l, l->n + r->rows.n, err);
    for (size_t j = 0; !rc && j < r->rows.n; j++) {
        const proc_ent *e = &r->rows.v[j];
        size_t i = live_find(l, e->in.pid);
        if (i < l->n && l->v[i].in.pid == e->in.pid && l->v[i].id != e->id)
            return wc_error_set(err, -EINVAL, "%s: tick %" PRId64 ": pid %d is process rows %" PRId64
                                " and %" PRId64 " at once", r->st->path, tick_id, (int)e->in.pid,
                                l->v[i].id, e->id);
        if (i == l->n || l->v[i].in.pid != e->in.pid) {
            memmove(&l->v[i + 1], &l->v[i], (l->n - i) * sizeof *l->v);
            l->n++;
        }
        l->v[i] = *e;
    }
    return rc;
}

/* The model's input from list l (its keys stay in l until the next tick). */
static int emit(replay_src *r, const proc_list *l, wc_error *err)
{
    if (l->n > r->cap) {
        wc_attr_proc_in *np = realloc(r->procs, l->n * sizeof *np);
        if (np)
            r->procs = np;
        int64_t *ni = realloc(r->proc_ids, l->n * sizeof *ni);
        if (ni)
            r->proc_ids = ni;
        if (!np || !ni)
            return wc_error_set(err, -ENOMEM, "out of memory");
        r->cap = l->n;
    }
    for (size_t i = 0; i < l->n; i++) {
        r->procs[i] = l->v[i].in;
        r->procs[i].container_id = l->v[i].keys[0];
        r->procs[i].pod_uid = l->v[i].keys[1];
        r->procs[i].vm_id = l->v[i].keys[2];
        r->proc_ids[i] = l->v[i].id;
    }
    return 0;
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

/* This tick's processes (rows read up to the next tick) into the input. */
static int read_procs(replay_src *r, int64_t tick_id, size_t *n, wc_error *err)
{
    r->rows.n = 0;
    int rc = 0;
    for (; !rc && r->prc == SQLITE_ROW && sqlite3_column_int64(r->p, 0) == tick_id;
         r->prc = sqlite3_step(r->p))
        rc = push_row(r, r->p, err);
    if (!rc && ((r->zrc != SQLITE_ROW && r->zrc != SQLITE_DONE) ||
                (r->prc != SQLITE_ROW && r->prc != SQLITE_DONE)))
        rc = wc_store_fail(r->st, err, "replay: reading samples");
    if (rc)
        return rc;
    int delta = sqlite3_column_int(r->t, 15) == 1;
    rc = delta ? live_apply(r, tick_id, err) : live_from_rows(r, err);
    const proc_list *l = delta ? &r->live : &r->rows;
    int64_t want = sqlite3_column_int64(r->t, 14);
    if (!rc && delta && want != (int64_t)l->n)
        rc = wc_error_set(err, -EINVAL, "%s: tick %" PRId64 ": %zu processes rebuilt from the"
                          " delta rows, the tick says %" PRId64 " (a damaged run)",
                          r->st->path, tick_id, l->n, want);
    *n = l->n;
    return rc ? rc : emit(r, l, err);
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
    size_t n = 0;
    int rc = read_procs(r, out->tick_id, &n, err);
    if (rc)
        return rc;
    out->in.zones = r->zone_in;
    out->in.nzones = r->nzones;
    out->in.procs = r->procs;
    out->in.nprocs = n;
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
    char sql[512];
    snprintf(sql, sizeof sql, TICKS_SQL, wc_store_has_column(r->st, "tick", "proc_delta") == 1
                                             ? "proc_delta" : "NULL");
    int rc = wc_store_prepare(r->st, sql, &r->t, err, "replay: preparing queries");
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
    free(r->rows.v);
    free(r->live.v);
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

/* Binds ?1 and ?2 to the model's name and its old one (a run of an older
 * version holds the model's rows under its old name; the name twice when
 * it has none). */
static void bind_model_names(sqlite3_stmt *s, wc_model model)
{
    const char *old = wc_model_old_name(model);
    sqlite3_bind_text(s, 1, wc_model_name(model), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, old ? old : wc_model_name(model), -1, SQLITE_STATIC);
}

int wc_store_has_model_rows(wc_store *st, wc_model model, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT 1 FROM node_attr n JOIN model m ON m.id = n.model_id"
                                  " WHERE m.name IN (?1, ?2) LIMIT 1", &s, err,
                          "reading models");
    if (rc)
        return rc;
    bind_model_names(s, model);
    int step = sqlite3_step(s);
    rc = step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "reading models");
    sqlite3_finalize(s);
    return rc;
}

int wc_store_model_coverage(wc_store *st, wc_model model, int64_t *last_attr_tick,
                            int64_t *last_tick, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT (SELECT MAX(n.tick_id) FROM node_attr n JOIN model m"
                                  " ON m.id = n.model_id WHERE m.name IN (?1, ?2)),"
                                  " (SELECT MAX(id) FROM tick)", &s, err, "reading models");
    if (rc)
        return rc;
    bind_model_names(s, model);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        *last_attr_tick = sqlite3_column_int64(s, 0);
        *last_tick = sqlite3_column_int64(s, 1);
    }
    rc = step == SQLITE_ROW ? 0 : wc_store_fail(st, err, "reading models");
    sqlite3_finalize(s);
    return rc;
}
