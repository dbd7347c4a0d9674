/*
 * store_write.c — every write of a run (see store.h): the run row and the
 * meter's zones once per recording, then per tick the tick row, the zone
 * samples, new processes with their containers and pods, process samples and
 * one model's attribution rows; ground-truth sources and samples, phases and
 * workloads of a replayed scenario, imported utilisation, and a model's rows
 * cleared before re-attribution.
 *
 * The per-tick statements are prepared once at open (wc_store_prepare_writer)
 * and reused; the once-per-run ones are prepared where they run. Every string
 * is bound as a parameter (process names and cgroup paths are untrusted).
 * Unsigned 64-bit values above INT64_MAX (only Kepler's negative-share quirk
 * produces them) are stored as REAL so the row still says "≈1.8e19 µJ".
 */
#include "collector/store/store.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "collector/store/store_internal.h"

static const char *const QUERIES[Q_COUNT] = {
    [Q_TICK] = "INSERT INTO tick(seq,mono_ns,boot_ns,wall_ns,cpu_user,cpu_nice,cpu_system,"
               "cpu_idle,cpu_iowait,cpu_irq,cpu_softirq,cpu_steal,cpu_guest,cpu_guest_nice,"
               "cpu_ok,nprocs,scan_ns) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [Q_ZONE_SAMPLE] = "INSERT INTO zone_sample(tick_id,zone_id,value,status) VALUES(?,?,?,?)",
    [Q_PROC] = "INSERT INTO process(pid,starttime,ppid,comm,exe,cgroup_path,container_id,"
               "runtime,pod_uid,qos,runtime_monitor,first_tick_id,last_tick_id,pgid,"
               "vm_id,vm_name,hypervisor,vm_since) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [Q_PROC_SAMPLE] = "INSERT INTO proc_sample(tick_id,process_id,utime,stime,num_threads)"
                      " VALUES(?,?,?,?,?)",
    [Q_PROC_LAST] = "UPDATE process SET last_tick_id=? WHERE id=?",
    [Q_CONTAINER] = "INSERT OR IGNORE INTO container(container_id,runtime,pod_uid,first_tick_id)"
                    " VALUES(?,?,?,?)",
    [Q_POD] = "INSERT OR IGNORE INTO pod(pod_uid,qos,first_tick_id) VALUES(?,?,?)",
    [Q_NODE_ATTR] = "INSERT INTO node_attr(model_id,tick_id,zone,delta_uj,active_uj,idle_uj,"
                    "power_uw,active_uw,idle_uw,ratio,interval_s,active_total_uj,idle_total_uj,"
                    "cpu_delta_sum_s,node_busy_s,flags) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [Q_WORK_ATTR] = "INSERT INTO work_attr(model_id,tick_id,level,process_id,key,zone,"
                    "cpu_delta_s,energy_uj,total_uj,power_uw,flags) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
    [Q_TRUTH_SAMPLE] = "INSERT INTO truth_sample(source_id,poll_mono_ns,poll_wall_ns,device_ts_ns,"
                       "watts,min_watts,max_watts,avg_watts,window_s,window_known,stats_window_s,path,"
                       "status,error) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
};

int wc_store_prepare_writer(wc_store *st, wc_error *err)
{
    if (wc_store_delta_init(st))
        return wc_error_set(err, -ENOMEM, "%s: out of memory", st->path);
    for (int i = 0; i < Q_COUNT; i++)
        if (sqlite3_prepare_v3(st->db, QUERIES[i], -1, SQLITE_PREPARE_PERSISTENT, &st->q[i],
                               NULL) != SQLITE_OK)
            return wc_store_fail(st, err, "preparing statements");
    char sql[128 + PROC_BATCH * 12];
    int n = snprintf(sql, sizeof sql,
                     "INSERT INTO proc_sample(tick_id,process_id,utime,stime,num_threads) VALUES");
    for (int i = 0; i < PROC_BATCH; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, "%s(?,?,?,?,?)", i ? "," : "");
    if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->proc_batch, NULL) !=
        SQLITE_OK)
        return wc_store_fail(st, err, "preparing statements");
    return 0;
}

static void bind_text(sqlite3_stmt *s, int i, const char *t)
{
    sqlite3_bind_text(s, i, t ? t : "", -1, SQLITE_TRANSIENT);
}

/* Binds an unsigned value; above INT64_MAX as REAL (see file comment). */
static void bind_u64(sqlite3_stmt *s, int i, uint64_t v)
{
    if (v > (uint64_t)INT64_MAX)
        sqlite3_bind_double(s, i, (double)v);
    else
        sqlite3_bind_int64(s, i, (sqlite3_int64)v);
}

/* Binds a raw unsigned value (counter, CPU ticks) with its bits unchanged:
 * readers turn a negative INTEGER back into the uint64 it was. */
static void bind_raw_u64(sqlite3_stmt *s, int i, uint64_t v)
{
    sqlite3_bind_int64(s, i, (sqlite3_int64)v);
}

/* Steps a write statement and resets it for the next row. */
static int step_reset(wc_store *st, sqlite3_stmt *s, wc_error *err, const char *what)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return wc_store_fail(st, err, what);
    return 0;
}

int wc_store_put_run(wc_store *st, const wc_run_info *in, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    const char *sql =
        "INSERT INTO run(id,host,kernel,cpu_model,sockets,ncpus,wattcal_version,model,"
        "interval_ns,meter_kind,provenance,meter_description,sim_params_json,procfs_root,"
        "sysfs_root,command_line,started_wall_ns,started_mono_ns,clean_stop,ticks,"
        "ceiling_watts)"
        " VALUES(1,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,0,0,?)";
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return wc_store_fail(st, err, "writing run metadata");
    bind_text(s, 1, in->host);
    bind_text(s, 2, in->kernel);
    bind_text(s, 3, in->cpu_model);
    sqlite3_bind_int(s, 4, in->sockets);
    sqlite3_bind_int(s, 5, in->ncpus);
    bind_text(s, 6, WATTCAL_VERSION);
    bind_text(s, 7, in->model);
    sqlite3_bind_int64(s, 8, in->interval_ns);
    bind_text(s, 9, in->meter_kind);
    bind_text(s, 10, wc_provenance_name(in->provenance));
    bind_text(s, 11, in->meter_description);
    bind_text(s, 12, in->sim_params_json);
    bind_text(s, 13, in->procfs_root);
    bind_text(s, 14, in->sysfs_root);
    bind_text(s, 15, in->command_line);
    sqlite3_bind_int64(s, 16, in->started_wall_ns);
    sqlite3_bind_int64(s, 17, in->started_mono_ns);
    wc_store_bind_real(s, 18, in->ceiling_watts > 0 ? in->ceiling_watts : NAN);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, "writing run metadata");
}

/* die_count and die_mirrored of a per-die package zone (NULL for any other
 * zone) at columns i, i + 1. */
static void bind_dies(sqlite3_stmt *s, int i, const wc_zone *z)
{
    if (z->dies > 0) {
        sqlite3_bind_int(s, i, z->dies);
        sqlite3_bind_int(s, i + 1, z->dies_mirrored);
    } else {
        sqlite3_bind_null(s, i);
        sqlite3_bind_null(s, i + 1);
    }
}

int wc_store_put_zones(wc_store *st, const wc_meter *m, int64_t *first_zone_id, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    const char *sql = "INSERT INTO zone(meter_kind,name,socket,zone_index,raw_name,path,"
                      "parent_id,enabled,max_energy_range_uj,kind,provenance,die_count,"
                      "die_mirrored) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)";
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
        return wc_store_fail(st, err, "writing zones");
    int64_t first = -1;
    for (size_t i = 0; i < m->nzones; i++) {
        const wc_zone *z = &m->zones[i];
        bind_text(s, 1, m->ops ? m->ops->kind : "");
        bind_text(s, 2, z->name);
        sqlite3_bind_int(s, 3, z->socket);
        sqlite3_bind_int(s, 4, z->index);
        bind_text(s, 5, z->raw_name);
        bind_text(s, 6, z->path);
        if (z->parent >= 0 && first >= 0)
            sqlite3_bind_int64(s, 7, first + z->parent);
        else
            sqlite3_bind_null(s, 7);
        sqlite3_bind_int(s, 8, z->enabled);
        bind_raw_u64(s, 9, z->max_energy_range_uj);
        bind_text(s, 10, z->kind == WC_KIND_COUNTER_UJ ? "counter_uj" : "gauge_uw");
        bind_text(s, 11, wc_provenance_name(m->provenance));
        bind_dies(s, 12, z);
        int rc = sqlite3_step(s);
        sqlite3_reset(s);
        if (rc != SQLITE_DONE) {
            sqlite3_finalize(s);
            return wc_store_fail(st, err, "writing zones");
        }
        if (i == 0)
            first = sqlite3_last_insert_rowid(st->db);
    }
    sqlite3_finalize(s);
    *first_zone_id = first;
    return 0;
}

int wc_store_update_zones(wc_store *st, const wc_meter *m, int64_t first_zone_id, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, "UPDATE zone SET path=?, max_energy_range_uj=? WHERE id=?", -1,
                           &s, NULL) != SQLITE_OK)
        return wc_store_fail(st, err, "updating zones");
    int rc = SQLITE_DONE;
    for (size_t i = 0; i < m->nzones && rc == SQLITE_DONE; i++) {
        bind_text(s, 1, m->zones[i].path);
        bind_raw_u64(s, 2, m->zones[i].max_energy_range_uj);
        sqlite3_bind_int64(s, 3, first_zone_id + (int64_t)i);
        rc = sqlite3_step(s);
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, "updating zones");
}

int wc_store_put_tick(wc_store *st, int64_t seq, int64_t mono_ns, int64_t boot_ns,
                      int64_t wall_ns, const wc_cpu_times *c, int cpu_ok, size_t nprocs,
                      int64_t scan_ns, int64_t *tick_id, wc_error *err)
{
    sqlite3_stmt *s = st->q[Q_TICK];
    sqlite3_bind_int64(s, 1, seq);
    sqlite3_bind_int64(s, 2, mono_ns);
    sqlite3_bind_int64(s, 3, boot_ns);
    sqlite3_bind_int64(s, 4, wall_ns);
    const uint64_t f[10] = {c->user,   c->nice, c->system,  c->idle,  c->iowait,
                            c->irq,    c->softirq, c->steal, c->guest, c->guest_nice};
    for (int i = 0; i < 10; i++)
        bind_raw_u64(s, 5 + i, f[i]);
    sqlite3_bind_int(s, 15, cpu_ok);
    sqlite3_bind_int64(s, 16, (sqlite3_int64)nprocs);
    sqlite3_bind_int64(s, 17, scan_ns);
    int rc = step_reset(st, s, err, "writing tick");
    if (rc)
        return rc;
    *tick_id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

int wc_store_put_zone_samples(wc_store *st, int64_t tick_id, int64_t first_zone_id,
                              const wc_reading *r, size_t n, wc_error *err)
{
    sqlite3_stmt *s = st->q[Q_ZONE_SAMPLE];
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(s, 1, tick_id);
        sqlite3_bind_int64(s, 2, first_zone_id + (int64_t)i);
        if (r[i].status == 0)
            bind_raw_u64(s, 3, r[i].value);
        else
            sqlite3_bind_null(s, 3);
        sqlite3_bind_int(s, 4, r[i].status);
        int rc = step_reset(st, s, err, "writing zone samples");
        if (rc)
            return rc;
    }
    return 0;
}

static int put_container_and_pod(wc_store *st, int64_t tick_id, const wc_cgroup_ids *cg,
                                 wc_error *err)
{
    if (cg->container_id[0] && !cg->is_runtime_monitor) {
        sqlite3_stmt *s = st->q[Q_CONTAINER];
        bind_text(s, 1, cg->container_id);
        bind_text(s, 2, cg->runtime);
        bind_text(s, 3, cg->pod_uid);
        sqlite3_bind_int64(s, 4, tick_id);
        int rc = step_reset(st, s, err, "writing container");
        if (rc)
            return rc;
    }
    if (cg->pod_uid[0]) {
        sqlite3_stmt *s = st->q[Q_POD];
        bind_text(s, 1, cg->pod_uid);
        bind_text(s, 2, cg->qos);
        sqlite3_bind_int64(s, 3, tick_id);
        return step_reset(st, s, err, "writing pod");
    }
    return 0;
}

static int put_identity(wc_store *st, int64_t tick_id, wc_proc_identity *id, wc_error *err)
{
    sqlite3_stmt *s = st->q[Q_PROC];
    sqlite3_bind_int(s, 1, id->pid);
    bind_raw_u64(s, 2, id->starttime);
    sqlite3_bind_int(s, 3, id->ppid);
    bind_text(s, 4, id->comm);
    bind_text(s, 5, id->exe);
    bind_text(s, 6, id->cgroup_path);
    bind_text(s, 7, id->cgroup.container_id);
    bind_text(s, 8, id->cgroup.runtime);
    bind_text(s, 9, id->cgroup.pod_uid);
    bind_text(s, 10, id->cgroup.qos);
    sqlite3_bind_int(s, 11, id->cgroup.is_runtime_monitor);
    sqlite3_bind_int64(s, 12, tick_id);
    sqlite3_bind_null(s, 13);
    sqlite3_bind_int(s, 14, id->pgid);
    bind_text(s, 15, id->vm.id);
    bind_text(s, 16, id->vm.name);
    bind_text(s, 17, id->vm.hypervisor);
    bind_text(s, 18, wc_vm_since_name(id->vm.since));
    int rc = step_reset(st, s, err, "writing process");
    if (rc)
        return rc;
    id->store_id = sqlite3_last_insert_rowid(st->db);
    return put_container_and_pod(st, tick_id, &id->cgroup, err);
}

/* Binds the 5 columns of one process sample at parameter offset `base`. */
static void bind_proc_sample(sqlite3_stmt *s, int base, int64_t tick_id, const wc_proc_sample *p)
{
    sqlite3_bind_int64(s, base + 1, tick_id);
    sqlite3_bind_int64(s, base + 2, p->id->store_id);
    bind_raw_u64(s, base + 3, p->utime);
    bind_raw_u64(s, base + 4, p->stime);
    sqlite3_bind_int64(s, base + 5, p->num_threads);
}

static int put_new_identities(wc_store *st, int64_t tick_id, const wc_proc_snapshot *snap,
                              wc_error *err)
{
    for (size_t i = 0; i < snap->count; i++) {
        /* The scanner owns identities; store_id is the consumer's field. */
        wc_proc_identity *id = (wc_proc_identity *)snap->samples[i].id;
        if (id->store_id < 0) {
            int rc = put_identity(st, tick_id, id, err);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* Writes the rows store_delta.c chose (all, or the changed ones) and marks
 * a delta tick as one. */
static int put_samples(wc_store *st, int64_t tick_id, const wc_proc_snapshot *snap,
                       wc_error *err)
{
    int keyframe = 1;
    if (wc_store_delta_select(st, snap, &keyframe))
        return wc_error_set(err, -ENOMEM, "%s: out of memory writing process samples", st->path);
    size_t n = 0, i = 0;
    const wc_proc_sample *const *rows = wc_store_delta_rows(st, &n);
    for (; i + PROC_BATCH <= n; i += PROC_BATCH) {
        for (int j = 0; j < PROC_BATCH; j++)
            bind_proc_sample(st->proc_batch, j * 5, tick_id, rows[i + (size_t)j]);
        int rc = step_reset(st, st->proc_batch, err, "writing process samples");
        if (rc)
            return rc;
    }
    for (; i < n; i++) {
        bind_proc_sample(st->q[Q_PROC_SAMPLE], 0, tick_id, rows[i]);
        int rc = step_reset(st, st->q[Q_PROC_SAMPLE], err, "writing process samples");
        if (rc)
            return rc;
    }
    return keyframe ? 0 : wc_store_delta_mark(st, tick_id, err);
}

int wc_store_put_processes(wc_store *st, int64_t tick_id, const wc_proc_snapshot *snap,
                           wc_error *err)
{
    int rc = put_new_identities(st, tick_id, snap, err);
    if (!rc)
        rc = put_samples(st, tick_id, snap, err);
    if (rc)
        return rc;
    sqlite3_stmt *u = st->q[Q_PROC_LAST];
    for (size_t i = 0; i < snap->gone_count; i++) {
        if (snap->gone[i]->store_id < 0)
            continue;
        sqlite3_bind_int64(u, 1, tick_id - 1);
        sqlite3_bind_int64(u, 2, snap->gone[i]->store_id);
        rc = step_reset(st, u, err, "marking process end");
        if (rc)
            return rc;
    }
    return 0;
}

int wc_store_model_id(wc_store *st, const char *model_name, int64_t *model_id, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, "INSERT OR IGNORE INTO model(name) VALUES(?)", -1, &s,
                           NULL) != SQLITE_OK)
        return wc_store_fail(st, err, "writing model");
    bind_text(s, 1, model_name);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return wc_store_fail(st, err, "writing model");
    return wc_store_find_model(st, model_name ? model_name : "", model_id, err);
}

static int put_node_attr(wc_store *st, int64_t model_id, int64_t tick_id,
                         const wc_attr_out *out, wc_error *err)
{
    sqlite3_stmt *s = st->q[Q_NODE_ATTR];
    for (size_t i = 0; i < out->nnode; i++) {
        const wc_attr_node_out *n = &out->node[i];
        sqlite3_bind_int64(s, 1, model_id);
        sqlite3_bind_int64(s, 2, tick_id);
        bind_text(s, 3, n->zone);
        bind_u64(s, 4, n->delta_uj);
        bind_u64(s, 5, n->active_uj);
        bind_u64(s, 6, n->idle_uj);
        sqlite3_bind_double(s, 7, n->power_uw);
        sqlite3_bind_double(s, 8, n->active_uw);
        sqlite3_bind_double(s, 9, n->idle_uw);
        sqlite3_bind_double(s, 10, n->ratio);
        sqlite3_bind_double(s, 11, n->interval_s);
        bind_u64(s, 12, n->active_total_uj);
        bind_u64(s, 13, n->idle_total_uj);
        sqlite3_bind_double(s, 14, out->cpu_delta_sum_s);
        sqlite3_bind_double(s, 15, out->node_busy_s);
        sqlite3_bind_int(s, 16, (int)(n->flags | out->flags));
        int rc = step_reset(st, s, err, "writing node attribution");
        if (rc)
            return rc;
    }
    return 0;
}

/* The process row of a terminated process, by (pid, starttime); NULL when
 * the run holds none (it cannot happen for a recorded one). */
static void bind_term_process(sqlite3_stmt *w, sqlite3_stmt *find, const wc_attr_term_out *t)
{
    sqlite3_bind_null(w, 4);
    if (t->level != WC_LEVEL_PROCESS || !find)
        return;
    sqlite3_bind_int64(find, 1, t->pid);
    bind_u64(find, 2, t->starttime);
    if (sqlite3_step(find) == SQLITE_ROW)
        sqlite3_bind_int64(w, 4, sqlite3_column_int64(find, 0));
    sqlite3_reset(find);
}

/* The Kepler models' terminated workloads of the tick (out->term): work_attr
 * rows flagged WC_AF_TERMINATED with their frozen total and last power, no
 * interval energy or CPU (readers of interval energy skip them). */
static int put_term_attr(wc_store *st, int64_t model_id, int64_t tick_id,
                         const wc_attr_out *out, wc_error *err)
{
    sqlite3_stmt *s = st->q[Q_WORK_ATTR], *find = NULL;
    if (out->nterm == 0)
        return 0;
    if (sqlite3_prepare_v2(st->db, "SELECT id FROM process WHERE pid = ? AND starttime = ?"
                                   " ORDER BY id DESC LIMIT 1", -1, &find, NULL) != SQLITE_OK)
        return wc_store_fail(st, err, "writing terminated workloads");
    int rc = 0;
    for (size_t i = 0; i < out->nterm && !rc; i++) {
        const wc_attr_term_out *t = &out->term[i];
        sqlite3_bind_int64(s, 1, model_id);
        sqlite3_bind_int64(s, 2, tick_id);
        sqlite3_bind_int(s, 3, (int)t->level);
        bind_term_process(s, find, t);
        bind_text(s, 5, t->key);
        bind_text(s, 6, t->zone < out->nnode ? out->node[t->zone].zone : "");
        sqlite3_bind_double(s, 7, 0.0);
        bind_u64(s, 8, 0);
        bind_u64(s, 9, t->total_uj);
        sqlite3_bind_double(s, 10, t->power_uw);
        sqlite3_bind_int(s, 11, (int)WC_AF_TERMINATED);
        rc = step_reset(st, s, err, "writing terminated workloads");
    }
    sqlite3_finalize(find);
    return rc;
}

int wc_store_put_attribution(wc_store *st, int64_t model_id, int64_t tick_id,
                             const wc_attr_out *out, const int64_t *proc_ids, wc_error *err)
{
    int rc = put_node_attr(st, model_id, tick_id, out, err);
    if (!rc) /* a version-6 run: the compact rows (store_work_energy.c); 1: the table */
        rc = wc_store_work_energy_put(st, model_id, tick_id, out, proc_ids, err);
    if (rc <= 0)
        return rc;
    sqlite3_stmt *s = st->q[Q_WORK_ATTR];
    for (size_t i = 0; i < out->nwork; i++) {
        const wc_attr_work_out *w = &out->work[i];
        if (w->cpu_delta_s == 0.0 && w->energy_uj == 0 && w->power_uw == 0.0 && w->flags == 0)
            continue;
        sqlite3_bind_int64(s, 1, model_id);
        sqlite3_bind_int64(s, 2, tick_id);
        sqlite3_bind_int(s, 3, (int)w->level);
        if (w->level == WC_LEVEL_PROCESS && proc_ids)
            sqlite3_bind_int64(s, 4, proc_ids[w->proc_index]);
        else
            sqlite3_bind_null(s, 4);
        bind_text(s, 5, w->level == WC_LEVEL_PROCESS ? "" : w->key);
        bind_text(s, 6, w->zone < out->nnode ? out->node[w->zone].zone : "");
        sqlite3_bind_double(s, 7, w->cpu_delta_s);
        bind_u64(s, 8, w->energy_uj);
        bind_u64(s, 9, w->total_uj);
        sqlite3_bind_double(s, 10, w->power_uw);
        sqlite3_bind_int(s, 11, (int)w->flags);
        rc = step_reset(st, s, err, "writing workload attribution");
        if (rc)
            return rc;
    }
    return put_term_attr(st, model_id, tick_id, out, err);
}

int wc_store_put_truth_source(wc_store *st, const char *spec, const char *kind,
                              wc_provenance provenance, const char *description,
                              int64_t *source_id, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db,
                           "INSERT INTO truth_source(spec,kind,provenance,description)"
                           " VALUES(?,?,?,?)",
                           -1, &s, NULL) != SQLITE_OK)
        return wc_store_fail(st, err, "writing truth source");
    bind_text(s, 1, spec);
    bind_text(s, 2, kind);
    bind_text(s, 3, wc_provenance_name(provenance));
    bind_text(s, 4, description);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return wc_store_fail(st, err, "writing truth source");
    *source_id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

int wc_store_put_truth_sample(wc_store *st, int64_t source_id, const wc_truth_sample *t,
                              wc_error *err)
{
    sqlite3_stmt *s = st->q[Q_TRUTH_SAMPLE];
    sqlite3_bind_int64(s, 1, source_id);
    sqlite3_bind_int64(s, 2, t->poll_mono_ns);
    sqlite3_bind_int64(s, 3, t->poll_wall_ns);
    if (t->device_ts_ns)
        sqlite3_bind_int64(s, 4, t->device_ts_ns);
    else
        sqlite3_bind_null(s, 4);
    /* Only an ok or stale sample carries watts: never a 0 W stand-in. */
    int has_value = t->status == WC_TRUTH_OK || t->status == WC_TRUTH_STALE;
    wc_store_bind_real(s, 5, has_value ? t->watts : NAN);
    wc_store_bind_real(s, 6, t->min_watts);
    wc_store_bind_real(s, 7, t->max_watts);
    wc_store_bind_real(s, 8, t->avg_watts);
    wc_store_bind_real(s, 9, t->window_s);
    sqlite3_bind_int(s, 10, t->window_known);
    wc_store_bind_real(s, 11, t->stats_window_s > 0 ? t->stats_window_s : NAN);
    bind_text(s, 12, t->path);
    bind_text(s, 13, wc_truth_status_name(t->status));
    bind_text(s, 14, t->error);
    return step_reset(st, s, err, "writing truth sample");
}

int wc_store_put_phase(wc_store *st, const char *name, const char *phase_class,
                       int64_t start_mono_ns, int64_t end_mono_ns, int64_t start_wall_ns,
                       int64_t end_wall_ns, int repetition, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db,
                           "INSERT INTO phase(name,class,start_mono_ns,end_mono_ns,start_wall_ns,"
                           "end_wall_ns,repetition) VALUES(?,?,?,?,?,?,?)",
                           -1, &s, NULL) != SQLITE_OK)
        return wc_store_fail(st, err, "writing phase");
    bind_text(s, 1, name);
    bind_text(s, 2, phase_class);
    sqlite3_bind_int64(s, 3, start_mono_ns);
    sqlite3_bind_int64(s, 4, end_mono_ns);
    sqlite3_bind_int64(s, 5, start_wall_ns);
    sqlite3_bind_int64(s, 6, end_wall_ns);
    sqlite3_bind_int(s, 7, repetition);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, "writing phase");
}

int64_t wc_store_last_insert_id(wc_store *st) { return sqlite3_last_insert_rowid(st->db); }

int wc_store_put_workload(wc_store *st, int64_t phase_id, const char *cls, int workers,
                          int duty_pct, int64_t pgid, const char *leaders, int64_t user_ns,
                          int64_t sys_ns, int crashed, int crash_signal, int failed,
                          const char *variant, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db,
                           "INSERT INTO workload(phase_id,class,workers,duty_pct,pgid,leaders,"
                           "true_user_ns,true_sys_ns,crashed,crash_signal,failed,variant)"
                           " VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &s, NULL) != SQLITE_OK)
        return wc_store_fail(st, err, "writing workload");
    sqlite3_bind_int64(s, 1, phase_id);
    bind_text(s, 2, cls);
    sqlite3_bind_int(s, 3, workers);
    sqlite3_bind_int(s, 4, duty_pct);
    sqlite3_bind_int64(s, 5, pgid);
    bind_text(s, 6, leaders);
    sqlite3_bind_int64(s, 7, user_ns);
    sqlite3_bind_int64(s, 8, sys_ns);
    sqlite3_bind_int(s, 9, crashed);
    sqlite3_bind_int(s, 10, crash_signal);
    sqlite3_bind_int(s, 11, failed);
    bind_text(s, 12, variant);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, "writing workload");
}

int wc_store_set_tick_util(wc_store *st, int64_t tick_id, double util_pct, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, "UPDATE tick SET util_pct=? WHERE id=?", -1, &s, NULL) !=
        SQLITE_OK)
        return wc_store_fail(st, err, "writing utilisation");
    wc_store_bind_real(s, 1, util_pct);
    sqlite3_bind_int64(s, 2, tick_id);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, "writing utilisation");
}

int wc_store_clear_model(wc_store *st, int64_t model_id, wc_error *err)
{
    /* a compact run's workload rows go first (store_work_energy.c); 1: the table's */
    int table = wc_store_work_energy_clear(st, model_id, err);
    if (table < 0)
        return table;
    char sql[160];
    int n = snprintf(sql, sizeof sql, "DELETE FROM node_attr WHERE model_id=%lld;",
                     (long long)model_id);
    if (table)
        snprintf(sql + n, sizeof sql - (size_t)n, " DELETE FROM work_attr WHERE model_id=%lld;",
                 (long long)model_id);
    return wc_store_exec(st, sql, err);
}
