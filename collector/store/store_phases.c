/*
 * store_phases.c — the readers of a replayed scenario's labels and known
 * answers (store_read.h): phases, workloads with their true CPU time, what
 * /proc sampling saw of a workload's processes and the energy a model gave
 * them (the last in store_results.h). The writers are wc_store_put_phase and
 * wc_store_put_workload (store_write.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_iter.h"
#include "collector/store/store_read.h"
#include "collector/store/store_results.h"

static const char *const PHASE_SQL[] = {
    [WC_PHASES_SPANNING] =
        "SELECT name, class, repetition, start_mono_ns, end_mono_ns FROM phase"
        " WHERE end_mono_ns > start_mono_ns ORDER BY start_mono_ns, id",
    [WC_PHASES_TIMED] =
        "SELECT ph.name, ph.class, ph.repetition, ph.start_mono_ns, ph.end_mono_ns"
        " FROM phase ph WHERE typeof(ph.start_mono_ns) = 'integer' AND"
        " typeof(ph.end_mono_ns) = 'integer' AND ph.end_mono_ns > ph.start_mono_ns"
        " ORDER BY ph.start_mono_ns",
    [WC_PHASES_WITH_TICKS] =
        "SELECT p.id, p.name, p.class, p.repetition, p.start_mono_ns,"
        " p.end_mono_ns, (SELECT MIN(id) FROM tick t WHERE t.mono_ns >"
        " p.start_mono_ns), (SELECT MAX(id) FROM tick t WHERE t.mono_ns <="
        " p.end_mono_ns) FROM phase p WHERE typeof(p.start_mono_ns) = 'integer'"
        " AND typeof(p.end_mono_ns) = 'integer' AND p.end_mono_ns > p.start_mono_ns"
        " ORDER BY p.start_mono_ns, p.id",
};

/* CPU seconds sampled of the processes of process group PGID first seen in
 * [LO, HI] (SQL expressions): Σ of each process's largest cumulative utime +
 * stime, USER_HZ 100. One text for the coverage table (per workload) and
 * wc_store_group_seen_cpu (one group, the caller's window). */
#define SEEN_CPU_SQL(PGID, LO, HI)                                                             \
    "SELECT COALESCE(SUM(mx), 0) / 100.0 FROM (SELECT MAX(ps.utime + ps.stime) AS mx"         \
    " FROM process pr JOIN tick t ON t.id = pr.first_tick_id"                                 \
    " JOIN proc_sample ps ON ps.process_id = pr.id WHERE pr.pgid = " PGID                     \
    " AND t.mono_ns >= " LO " AND t.mono_ns <= " HI " GROUP BY pr.id)"
/* The same sum from an ended run's process_cpu summary (store_schema.sql.h
 * WC_PROCESS_CPU_SQL: the same MAX per process, taken once). */
#define SEEN_CPU_SUMMARY_SQL(PGID, LO, HI)                                                     \
    "SELECT COALESCE(SUM(c.cpu_ticks_max), 0) / 100.0 FROM process pr"                        \
    " JOIN tick t ON t.id = pr.first_tick_id JOIN process_cpu c ON c.process_id = pr.id"      \
    " WHERE pr.pgid = " PGID " AND t.mono_ns >= " LO " AND t.mono_ns <= " HI

/* 1 when the run has a process_cpu summary that no hand edit made stale
 * (store_schema.sql.h), 0 when not (the samples are read), -EIO with err. */
static int has_summary(wc_store *st, wc_error *err)
{
    int state = wc_store_process_cpu_state(st, err);
    return state < 0 ? state : state == WC_PCPU_FRESH;
}

static void read_phase(sqlite3_stmt *s, wc_phase_set set, wc_phase_row *p)
{
    int c = set == WC_PHASES_WITH_TICKS ? 1 : 0;
    memset(p, 0, sizeof *p);
    p->id = c ? sqlite3_column_int64(s, 0) : 0;
    wc_store_col_text(s, c, p->name, sizeof p->name);
    wc_store_col_text(s, c + 1, p->cls, sizeof p->cls);
    p->repetition = sqlite3_column_int(s, c + 2);
    p->start_ns = sqlite3_column_int64(s, c + 3);
    p->end_ns = sqlite3_column_int64(s, c + 4);
    p->tick_lo = c ? sqlite3_column_int64(s, 6) : 0;
    p->tick_hi = c ? sqlite3_column_int64(s, 7) : 0;
}

int wc_store_phases(wc_store *st, wc_phase_set set, size_t max, wc_phase_row **out, size_t *n,
                    wc_error *err)
{
    *out = NULL;
    *n = 0;
    if ((unsigned)set > WC_PHASES_WITH_TICKS)
        return wc_error_set(err, -EINVAL, "%s: reading phases: no such set", st->path);
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, PHASE_SQL[set], &s, err, "reading phases");
    size_t cap = 0;
    int step = SQLITE_DONE;
    while (!rc && (!max || *n < max) && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (wc_store_grow((void **)out, sizeof **out, *n, &cap, 16))
            rc = wc_error_set(err, -ENOMEM, "out of memory reading phases");
        else
            read_phase(s, set, &(*out)[(*n)++]);
    }
    if (!rc && step != SQLITE_ROW && step != SQLITE_DONE)
        rc = wc_store_fail(st, err, "reading phases");
    sqlite3_finalize(s);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static void read_coverage(sqlite3_stmt *s, wc_workload_coverage *w)
{
    memset(w, 0, sizeof *w);
    wc_store_col_text(s, 0, w->phase, sizeof w->phase);
    w->repetition = sqlite3_column_int(s, 1);
    wc_store_col_text(s, 2, w->cls, sizeof w->cls);
    w->workers = sqlite3_column_int(s, 3);
    w->crashed = sqlite3_column_int(s, 4);
    w->true_cpu_s = sqlite3_column_double(s, 5);
    w->seen_cpu_s = sqlite3_column_double(s, 6);
    w->j_per_cpu_s = wc_store_col_real(s, 7);
}

/* The coverage table's query around one SEEN_CPU text. */
#define COVERAGE_SQL(SEEN)                                                                     \
    "SELECT ph.name, ph.repetition, w.class, w.workers, w.crashed,"                           \
    " (w.true_user_ns + w.true_sys_ns) / 1e9,"                                                \
    " (" SEEN("w.pgid", "ph.start_mono_ns - 2000000000", "ph.end_mono_ns + 10000000000") ")"  \
    " , (SELECT SUM(n.active_uj) / 1e6 / NULLIF(SUM(n.node_busy_s), 0) FROM node_attr n"      \
    "    JOIN tick t2 ON t2.id = n.tick_id WHERE n.zone = 'package'"                          \
    "    AND n.model_id = (SELECT MIN(id) FROM model)"                                         \
    "    AND t2.mono_ns > ph.start_mono_ns AND t2.mono_ns <= ph.end_mono_ns)"                 \
    " FROM workload w JOIN phase ph ON ph.id = w.phase_id ORDER BY w.id"

int wc_store_workload_coverage(wc_store *st, wc_workload_coverage *out, size_t max, size_t *n,
                               wc_error *err)
{
    sqlite3_stmt *s = NULL;
    *n = 0;
    int summary = has_summary(st, err);
    if (summary < 0)
        return summary;
    int rc = wc_store_prepare(st, summary ? COVERAGE_SQL(SEEN_CPU_SUMMARY_SQL)
                                          : COVERAGE_SQL(SEEN_CPU_SQL),
                              &s, err, "reading workloads");
    if (rc)
        return rc;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW && *n < max)
        read_coverage(s, &out[(*n)++]);
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "reading workloads");
}

int wc_store_workloads(wc_store *st, wc_workload_row **out, size_t *n, wc_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT phase_id, class, pgid, (true_user_ns + true_sys_ns) / 1e9"
                                  " FROM workload ORDER BY id",
                              &s, err, "reading workloads");
    size_t cap = 0;
    int step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (wc_store_grow((void **)out, sizeof **out, *n, &cap, 16)) {
            rc = wc_error_set(err, -ENOMEM, "out of memory reading workloads");
            break;
        }
        wc_workload_row *w = &(*out)[(*n)++];
        memset(w, 0, sizeof *w);
        w->phase_id = sqlite3_column_int64(s, 0);
        wc_store_col_text(s, 1, w->cls, sizeof w->cls);
        w->pgid = sqlite3_column_int64(s, 2);
        w->true_cpu_s = sqlite3_column_double(s, 3);
    }
    if (!rc && step != SQLITE_DONE)
        rc = wc_store_fail(st, err, "reading workloads");
    sqlite3_finalize(s);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int wc_store_group_seen_cpu(wc_store *st, int64_t pgid, int64_t lo_ns, int64_t hi_ns,
                            double *cpu_s, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    *cpu_s = 0;
    int summary = has_summary(st, err);
    if (summary < 0)
        return summary;
    int rc = wc_store_prepare(st, summary ? SEEN_CPU_SUMMARY_SQL("?1", "?2", "?3")
                                          : SEEN_CPU_SQL("?1", "?2", "?3"),
                              &s, err, "reading workload CPU");
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, pgid);
    sqlite3_bind_int64(s, 2, lo_ns);
    sqlite3_bind_int64(s, 3, hi_ns);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        *cpu_s = sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : wc_store_fail(st, err, "reading workload CPU");
}

int wc_store_group_energy_open(wc_store *st, int64_t model_id, int64_t tick_lo,
                               int64_t tick_hi, int64_t pgid, int64_t lo_ns, int64_t hi_ns,
                               wc_store_iter **it, wc_error *err)
{
    int rc = wc_store_iter_open(st,
                                "SELECT w.zone, SUM(w.energy_uj) FROM work_attr w JOIN process pr ON"
                                " pr.id = w.process_id JOIN tick ft ON ft.id = pr.first_tick_id"
                                " WHERE w.model_id = ?1 AND w.level = 1 AND w.tick_id BETWEEN ?2 AND ?3"
                                " AND pr.pgid = ?4 AND ft.mono_ns >= ?5 AND ft.mono_ns <= ?6"
                                " GROUP BY w.zone",
                                WC_ITER_ZONE_SUM, "reading workload attribution", it, err);
    if (rc)
        return rc;
    sqlite3_stmt *s = (*it)->s;
    sqlite3_bind_int64(s, 1, model_id);
    sqlite3_bind_int64(s, 2, tick_lo);
    sqlite3_bind_int64(s, 3, tick_hi);
    sqlite3_bind_int64(s, 4, pgid);
    sqlite3_bind_int64(s, 5, lo_ns);
    sqlite3_bind_int64(s, 6, hi_ns);
    return 0;
}

int wc_store_zone_sum_next(wc_store_iter *it, const char **zone, double *energy_uj,
                           wc_error *err)
{
    int rc = wc_store_iter_step(it, WC_ITER_ZONE_SUM, err);
    *zone = rc == 1 ? wc_store_col_str(it->s, 0) : NULL;
    *energy_uj = rc == 1 ? sqlite3_column_double(it->s, 1) : 0;
    return rc;
}
