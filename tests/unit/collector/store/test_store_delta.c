/*
 * test_store_delta.c — the delta ticks of proc_sample (collector/store/
 * store_delta.c, issue 15): the same input recorded in the old format (every
 * tick complete) and in the new one (keyframes + rows only for changed
 * processes) re-attributes to IDENTICAL node_attr and work_attr rows under
 * every model; a version-4 run (no tick.proc_delta column) reads the same; a rolled-back tick makes the next a
 * keyframe; a damaged delta run is refused, naming the tick.
 *
 * The input (made here, deterministic): 400 ticks of 48 process slots with
 * births, exits, pid reuse (same pid, new starttime), most counters
 * unchanged from tick to tick, containers and pods, a runtime monitor, and
 * 12 ticks whose scan order is not ascending pid (as a fixture tree's).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "collector/store/store_internal.h" /* white-box: reads the connection */
#include "collector/store/store_replay.h"
#include "tests/unit/support/test_support.h"

#define NT 400
#define NSLOT 48

static wc_zone ZONES[2] = {
    {.name = "package", .socket = 0, .raw_name = "package-0", .path = "/x/intel-rapl:0",
     .parent = -1, .enabled = 1, .max_energy_range_uj = 1000000000, .kind = WC_KIND_COUNTER_UJ},
    {.name = "dram", .socket = 0, .raw_name = "dram", .path = "/x/intel-rapl:0:0", .parent = 0,
     .enabled = 1, .max_energy_range_uj = 1000000000, .kind = WC_KIND_COUNTER_UJ},
};

/* One process slot: its current life (identity) and counters. */
typedef struct slot {
    wc_proc_identity *id;       /* NULL while the slot is empty */
    uint64_t utime, stime;
    int64_t threads;
} slot;

/* The generator's state; the same seed gives the same input. */
typedef struct gen {
    uint64_t rng;
    slot s[NSLOT];
    wc_proc_identity *dead[4 * NSLOT]; /* gone in the last tick: freed at the next */
    size_t ndead;
    wc_proc_identity *all[4096];      /* every identity made (freed at the end) */
    size_t nall;
    uint64_t starttime;
} gen;

static uint64_t rnd(gen *g, uint64_t n)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng % n;
}

static void birth(gen *g, int k)
{
    wc_proc_identity *id = calloc(1, sizeof *id);
    cr_assert_not_null(id);
    g->all[g->nall++] = id;
    id->pid = 1000 + k; /* a slot keeps its pid: a new life is pid reuse */
    id->starttime = ++g->starttime * 3;
    id->store_id = -1;
    snprintf(id->comm, sizeof id->comm, "p%d", k);
    if (k % 4 == 1) {
        snprintf(id->cgroup.container_id, sizeof id->cgroup.container_id, "%064d", k / 8);
        snprintf(id->cgroup.pod_uid, sizeof id->cgroup.pod_uid, "pod-%d", k / 16);
        id->cgroup.is_runtime_monitor = k == 17;
    }
    g->s[k] = (slot){.id = id, .utime = rnd(g, 50), .stime = 0, .threads = 1};
}

/* One tick's snapshot: churn, then ~1 in 6 processes busy. */
static void step(gen *g, int t, wc_proc_snapshot *snap)
{
    snap->count = snap->gone_count = 0;
    for (int k = 0; k < NSLOT; k++) {
        slot *s = &g->s[k];
        if (s->id && t > 0 && rnd(g, 60) == 0) {
            snap->gone[snap->gone_count++] = s->id; /* exited (the slot may be reborn below) */
            s->id = NULL;
        }
        if (!s->id && (t == 0 || rnd(g, 8) == 0))
            birth(g, k);
        if (!s->id)
            continue;
        if (rnd(g, 6) == 0)
            s->utime += 1 + rnd(g, 90);
        if (rnd(g, 20) == 0)
            s->stime += 1 + rnd(g, 5);
        if (rnd(g, 50) == 0)
            s->threads++;
        snap->samples[snap->count++] =
            (wc_proc_sample){.id = s->id, .utime = s->utime, .stime = s->stime,
                             .num_threads = s->threads, .is_new = 0};
    }
    if (t >= 200 && t < 212) /* a readdir order that is not ascending pid */
        for (size_t i = 0; i + 1 < snap->count; i += 2) {
            wc_proc_sample x = snap->samples[i];
            snap->samples[i] = snap->samples[i + 1];
            snap->samples[i + 1] = x;
        }
}

static wc_store *new_run(const char *name, int64_t every)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", wc_test_tmpdir(), name);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(p, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_run_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.model, sizeof info.model, "kepler-0.11");
    snprintf(info.meter_kind, sizeof info.meter_kind, "rapl");
    info.provenance = WC_PROV_SIMULATED;
    cr_assert_eq(wc_store_put_run(st, &info, &err), 0, "%s", err.msg);
    static const wc_meter_ops ops = {.kind = "rapl"};
    wc_meter m = {.ops = &ops, .provenance = WC_PROV_SIMULATED, .zones = ZONES, .nzones = 2};
    int64_t first = 0;
    cr_assert_eq(wc_store_put_zones(st, &m, &first, &err), 0, "%s", err.msg);
    wc_store_set_keyframe_every(st, every);
    return st;
}

/* Records the generated input into st (identities get this store's ids). */
static void record(wc_store *st)
{
    gen g;
    memset(&g, 0, sizeof g);
    g.rng = 88172645463325252ull;
    wc_proc_sample samples[NSLOT];
    const wc_proc_identity *gone[NSLOT];
    wc_proc_snapshot snap = {.samples = samples, .gone = gone, .cap = NSLOT, .gone_cap = NSLOT};
    wc_error err = {{0}};
    uint64_t busy = 0;
    for (int t = 0; t < NT; t++) {
        step(&g, t, &snap);
        busy += 20 + (uint64_t)(t % 7);
        wc_cpu_times cpu = {.cpu = -1, .nfields = 10, .user = busy, .idle = 400u * (uint64_t)t};
        wc_reading rd[2] = {{.value = 3000000u * (uint64_t)t + (uint64_t)(t % 5) * 77777u},
                            {.value = 700000u * (uint64_t)t}};
        int64_t tick = 0;
        cr_assert_eq(wc_store_begin(st, &err), 0);
        cr_assert_eq(wc_store_put_tick(st, t, (int64_t)t * 1000000000, (int64_t)t * 1000000000 + 5,
                                       t, &cpu, 1, snap.count, 0, &tick, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_store_put_zone_samples(st, tick, 1, rd, 2, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_store_put_processes(st, tick, &snap, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_store_commit(st, &err), 0, "%s", err.msg);
    }
    for (size_t i = 0; i < g.nall; i++)
        free(g.all[i]);
}

static int64_t query_i64(wc_store *st, const char *sql)
{
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), SQLITE_OK, "%s", sql);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* Every attribution row of every model, as text (quote() keeps REAL bits). */
static char *dump(wc_store *st)
{
    static const char *sql =
        "SELECT group_concat(r, char(10)) FROM (SELECT m.name || '|' || n.tick_id || '|' ||"
        " n.zone || '|' || quote(n.delta_uj) || quote(n.active_uj) || quote(n.idle_uj) ||"
        " quote(n.power_uw) || quote(n.ratio) || quote(n.cpu_delta_sum_s) || quote(n.flags) AS r"
        " FROM node_attr n JOIN model m ON m.id = n.model_id ORDER BY m.name, n.rowid)"
        " UNION ALL SELECT group_concat(r, char(10)) FROM (SELECT m.name || '|' || w.tick_id ||"
        " '|' || w.level || '|' || quote(w.process_id) || w.key || '|' || w.zone ||"
        " quote(w.cpu_delta_s) || quote(w.energy_uj) || quote(w.total_uj) || quote(w.power_uw)"
        " || quote(w.flags) AS r FROM work_attr w JOIN model m ON m.id = w.model_id"
        " ORDER BY m.name, w.rowid)";
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), SQLITE_OK);
    size_t cap = 1 << 20, n = 0;
    char *out = calloc(1, cap);
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        size_t len = t ? strlen(t) : 0;
        while (n + len + 2 > cap)
            out = realloc(out, cap *= 2);
        memcpy(out + n, t ? t : "", len);
        n += len;
        out[n++] = '\n';
        out[n] = '\0';
    }
    sqlite3_finalize(s);
    return out;
}

static void replay_all(wc_store *st)
{
    const wc_model models[] = {WC_MODEL_KEPLER_011, WC_MODEL_KEPLER_HEAD, WC_MODEL_IDEAL};
    for (size_t i = 0; i < 3; i++) {
        wc_error err = {{0}};
        int64_t ticks = 0;
        cr_assert_eq(wc_store_replay(st, models[i], &ticks, &err), 0, "%s", err.msg);
        cr_assert_eq(ticks, NT);
    }
}

Test(store_delta, old_and_new_format_attribute_identically)
{
    wc_store *full = new_run("delta-full.db", 1);
    wc_store *delta = new_run("delta-new.db", WC_STORE_KEYFRAME_TICKS);
    wc_store *often = new_run("delta-often.db", 50);
    record(full);
    record(delta);
    record(often);
    int64_t nfull = query_i64(full, "SELECT COUNT(*) FROM proc_sample");
    int64_t ndelta = query_i64(delta, "SELECT COUNT(*) FROM proc_sample");
    cr_assert_eq(nfull, query_i64(full, "SELECT SUM(nprocs) FROM tick"));
    cr_assert_lt(ndelta * 3, nfull, "delta rows %ld of %ld", (long)ndelta, (long)nfull);
    cr_assert_eq(query_i64(full, "SELECT COUNT(*) FROM tick WHERE proc_delta IS NOT NULL"), 0);
    /* keyframes: tick 1 and the 12 out-of-order ticks (and every 50th in `often`) */
    cr_assert_eq(query_i64(delta, "SELECT COUNT(*) FROM tick WHERE proc_delta IS NULL"), 13);
    cr_assert_gt(query_i64(often, "SELECT COUNT(*) FROM tick WHERE proc_delta IS NULL"), 13);
    replay_all(full);
    replay_all(delta);
    replay_all(often);
    char *a = dump(full), *b = dump(delta), *c = dump(often);
    cr_assert_gt(strlen(a), 10000, "the input attributes energy");
    cr_assert(strcmp(a, b) == 0, "delta run re-attributes differently");
    cr_assert(strcmp(a, c) == 0, "periodic keyframes re-attribute differently");
    /* a version-4 run (none of version 5's columns: tick.proc_delta, the VM
     * labels, the ceiling, the die layout) opened again for writing gains
     * them, NULL in its rows, and reads as before */
    cr_assert_eq(sqlite3_exec(full->db, "ALTER TABLE tick DROP COLUMN proc_delta;"
                              " ALTER TABLE process DROP COLUMN vm_id;"
                              " ALTER TABLE process DROP COLUMN vm_name;"
                              " ALTER TABLE process DROP COLUMN hypervisor;"
                              " ALTER TABLE process DROP COLUMN vm_since;"
                              " ALTER TABLE run DROP COLUMN ceiling_watts;"
                              " ALTER TABLE zone DROP COLUMN die_count;"
                              " ALTER TABLE zone DROP COLUMN die_mirrored;"
                              " PRAGMA user_version=4;", NULL, NULL, NULL), SQLITE_OK);
    char path[sizeof full->path];
    memcpy(path, full->path, sizeof path);
    wc_store_close(full);
    wc_error err = {{0}};
    full = wc_store_open(path, WC_STORE_WRITE, &err);
    cr_assert_not_null(full, "%s", err.msg);
    cr_assert_eq(query_i64(full, "PRAGMA user_version"), 5); /* an old run keeps its table: 5, not 6 */
    cr_assert_eq(query_i64(full, "SELECT COUNT(*) FROM process WHERE vm_id IS NOT NULL"), 0);
    cr_assert_eq(query_i64(full, "SELECT COUNT(*) FROM tick WHERE proc_delta IS NOT NULL"), 0);
    replay_all(full);
    char *d = dump(full);
    cr_assert(strcmp(a, d) == 0, "a run without the column re-attributes differently");
    free(a);
    free(b);
    free(c);
    free(d);
    wc_store_close(full);
    wc_store_close(delta);
    wc_store_close(often);
}

Test(store_delta, damaged_delta_run_is_refused)
{
    wc_store *st = new_run("delta-damaged.db", WC_STORE_KEYFRAME_TICKS);
    record(st);
    /* a new process's first row lost: the rebuilt list no longer matches tick.nprocs */
    int64_t t = query_i64(st, "SELECT MIN(first_tick_id) FROM process WHERE first_tick_id >= 30");
    cr_assert_lt(t, 200, "a birth on a delta tick");
    char sql[256], want[32];
    snprintf(sql, sizeof sql, "DELETE FROM proc_sample WHERE tick_id = %ld AND process_id ="
             " (SELECT MIN(id) FROM process WHERE first_tick_id = %ld)", (long)t, (long)t);
    cr_assert_eq(sqlite3_exec(st->db, sql, NULL, NULL, NULL), SQLITE_OK);
    wc_error err = {{0}};
    int64_t ticks = 0;
    cr_assert_eq(wc_store_replay(st, WC_MODEL_KEPLER_011, &ticks, &err), -EINVAL);
    snprintf(want, sizeof want, "tick %ld:", (long)t);
    cr_assert(strstr(err.msg, want) && strstr(err.msg, "delta"), "%s", err.msg);
    wc_store_close(st);
}

Test(store_delta, rollback_makes_the_next_tick_a_keyframe)
{
    wc_store *st = new_run("delta-rollback.db", WC_STORE_KEYFRAME_TICKS);
    wc_proc_identity id = {.pid = 7, .starttime = 1, .store_id = -1};
    wc_proc_sample smp = {.id = &id, .utime = 5, .num_threads = 1};
    wc_proc_snapshot snap = {.samples = &smp, .count = 1};
    wc_cpu_times cpu = {.cpu = -1};
    wc_error err = {{0}};
    int64_t tick = 0;
    for (int t = 0; t < 4; t++) {
        smp.utime = t == 1 ? 9 : smp.utime; /* tick 1 changes, then is rolled back */
        cr_assert_eq(wc_store_begin(st, &err), 0);
        cr_assert_eq(wc_store_put_tick(st, t, t, t, t, &cpu, 1, 1, 0, &tick, &err), 0);
        cr_assert_eq(wc_store_put_processes(st, tick, &snap, &err), 0, "%s", err.msg);
        if (t == 1)
            cr_assert_eq(wc_store_rollback(st), 0);
        else
            cr_assert_eq(wc_store_commit(st, &err), 0);
    }
    /* ticks kept: 0 (keyframe), 2 (keyframe after the rollback: utime 9 is in the
     * file only from it on), 3 (delta, unchanged: no row) */
    cr_assert_eq(query_i64(st, "SELECT COUNT(*) FROM tick"), 3);
    cr_assert_eq(query_i64(st, "SELECT COUNT(*) FROM tick WHERE proc_delta IS NULL"), 2);
    cr_assert_eq(query_i64(st, "SELECT COUNT(*) FROM proc_sample"), 2);
    cr_assert_eq(query_i64(st, "SELECT SUM(utime) FROM proc_sample"), 14);
    wc_store_close(st);
}
