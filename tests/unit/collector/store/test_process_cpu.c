/*
 * test_process_cpu.c — the process_cpu summary an ended run keeps instead of
 * proc_sample's process index (collector/store/store_schema.sql.h
 * WC_PROCESS_CPU_SQL): built when the run finishes, the index on a run not
 * ended, and the summary equal to MAX(utime + stime) per process after any
 * later insert, update or delete, so the workload coverage
 * (wc_store_group_seen_cpu) reads the same CPU either way.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "collector/store/store.h"
#include "collector/store/store_read.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"

/* A run with one phase window and processes 1..3 of process group 77 (tick
 * ids 1..10, a second apart), finished or left as if killed. */
static void run_with_samples(const char *path, int finish)
{
    trun t;
    trun_create(&t, path, NULL, 0);
    for (int k = 0; k < 10; k++)
        trun_tick(&t, (int64_t)(k + 1) * 1000000000, 0, 0, NULL, 0.5);
    if (finish)
        trun_finish(&t);
    else
        wc_store_close(t.st);
    trun_exec(path,
              "INSERT INTO process(id, pid, starttime, comm, container_id, pod_uid,"
              " first_tick_id, pgid) VALUES (1, 100, 1, 'a', '', '', 2, 77),"
              " (2, 101, 1, 'b', '', '', 3, 77), (3, 102, 1, 'c', '', '', 4, 77);"
              "INSERT INTO proc_sample VALUES (2, 1, 100, 20, 1), (5, 1, 300, 40, 1),"
              " (3, 2, 50, 0, 1), (4, 3, 7, 3, 1);");
}

static double seen_cpu(const char *path)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    double cpu = -1;
    cr_assert_eq(wc_store_group_seen_cpu(st, 77, 0, 100000000000, &cpu, &err), 0, "%s", err.msg);
    wc_store_close(st);
    return cpu;
}

/* The integer a one-value query gives on the file. */
static int64_t sql_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* 1 when the file has an object of that name. */
static int has(const char *path, const char *name)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM sqlite_master WHERE name = '%s'", name);
    return sql_int(path, sql) == 1;
}

/* Rows in which the summary and a GROUP BY of the samples differ (samples
 * whose process_id is an integer: no other can join a process). */
static int64_t stale_rows(const char *path)
{
    return sql_int(path, "WITH g AS (SELECT process_id, MAX(utime + stime) AS m FROM proc_sample"
                         " WHERE typeof(process_id) = 'integer'"
                         " GROUP BY process_id HAVING m IS NOT NULL), c AS (SELECT process_id,"
                         " cpu_ticks_max AS m FROM process_cpu) SELECT (SELECT COUNT(*) FROM"
                         " (SELECT * FROM g EXCEPT SELECT * FROM c)) + (SELECT COUNT(*) FROM"
                         " (SELECT * FROM c EXCEPT SELECT * FROM g))");
}

/* What a reader that can write does first (validate): wc_store_ensure_indexes. */
static void ensure_indexes(const char *path)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_WRITE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    cr_assert_eq(wc_store_ensure_indexes(st, &err), 0, "%s", err.msg);
    wc_store_close(st);
}

Test(process_cpu, an_ended_run_has_the_summary_and_no_process_index)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pcpu_ended.db", wc_test_tmpdir());
    run_with_samples(path, 1);
    cr_assert(has(path, "process_cpu"));
    cr_assert(!has(path, "proc_sample_process"));
    cr_assert_eq(stale_rows(path), 0);
    cr_assert_float_eq(seen_cpu(path), (340 + 50 + 10) / 100.0, 1e-12);
}

static int64_t stale(const char *path)
{
    return sql_int(path, "SELECT COUNT(*) FROM process_cpu_stale");
}

Test(process_cpu, later_writes_raise_it_or_mark_it_stale_and_coverage_stays_right)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pcpu_edits.db", wc_test_tmpdir());
    run_with_samples(path, 1);
    trun_exec(path, "INSERT INTO proc_sample VALUES (6, 1, 500, 0, 1), (6, 2, 1, 1, 1),"
                    " (7, NULL, 900, 0, 1), (7, 'x', 900, 0, 1), (7, 3, NULL, 0, 1);");
    cr_assert_eq(stale(path), 0, "inserts keep it current");
    cr_assert_eq(stale_rows(path), 0, "after inserts");
    cr_assert_float_eq(seen_cpu(path), (500 + 50 + 10) / 100.0, 1e-12);
    trun_exec(path, "DELETE FROM proc_sample WHERE tick_id = 2 AND process_id = 1;"
                    "UPDATE proc_sample SET num_threads = 9;");
    cr_assert_eq(stale(path), 0, "a smaller sample deleted, a thread count changed: still current");
    trun_exec(path, "DELETE FROM proc_sample WHERE tick_id = 6 AND process_id = 1;");
    cr_assert_eq(stale(path), 1, "a largest sample deleted: stale");
    /* a stale summary is not read: the samples are, with the same answer */
    cr_assert_float_eq(seen_cpu(path), (340 + 50 + 10) / 100.0, 1e-12);
    trun_exec(path, "UPDATE proc_sample SET utime = 900 WHERE process_id = 2 AND tick_id = 3;");
    cr_assert_float_eq(seen_cpu(path), (340 + 900 + 10) / 100.0, 1e-12);
    ensure_indexes(path); /* a command that can write rebuilds it once */
    cr_assert_eq(stale(path), 0);
    cr_assert_eq(stale_rows(path), 0, "after the rebuild");
    cr_assert_float_eq(seen_cpu(path), (340 + 900 + 10) / 100.0, 1e-12);
    /* a REPLACE over a process's largest sample deletes it without a delete
     * trigger (the re-attack): stale as well */
    trun_exec(path, "INSERT OR REPLACE INTO proc_sample(rowid, tick_id, process_id, utime, stime,"
                    " num_threads) SELECT rowid, tick_id, process_id, 0, 0, num_threads FROM"
                    " proc_sample WHERE process_id = 2;");
    cr_assert_eq(stale(path), 1, "a REPLACE left the summary current");
    cr_assert_float_eq(seen_cpu(path), (340 + 0 + 10) / 100.0, 1e-12);
    ensure_indexes(path);
    cr_assert_eq(stale_rows(path), 0, "after the second rebuild");
}

Test(process_cpu, a_run_not_ended_gets_the_index_and_reads_the_same)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pcpu_killed.db", wc_test_tmpdir());
    run_with_samples(path, 0);
    ensure_indexes(path);
    cr_assert(has(path, "proc_sample_process"));
    cr_assert(!has(path, "process_cpu"));
    cr_assert_float_eq(seen_cpu(path), (340 + 50 + 10) / 100.0, 1e-12);
}

Test(process_cpu, an_earlier_release_s_ended_run_keeps_its_index_untouched)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pcpu_old.db", wc_test_tmpdir());
    run_with_samples(path, 1);
    /* as an earlier release finished it: the index, no summary */
    trun_exec(path, "DROP TRIGGER process_cpu_insert; DROP TRIGGER process_cpu_delete;"
                    " DROP TRIGGER process_cpu_update; DROP TRIGGER process_cpu_replace;"
                    " DROP TABLE process_cpu;"
                    " DROP TABLE process_cpu_stale;"
                    " CREATE INDEX proc_sample_process ON proc_sample(process_id);");
    ensure_indexes(path);
    cr_assert(has(path, "proc_sample_process"));
    cr_assert(!has(path, "process_cpu"), "a reader rewrote an earlier release's run");
    cr_assert_float_eq(seen_cpu(path), (340 + 50 + 10) / 100.0, 1e-12);
}

Test(process_cpu, an_index_built_while_recording_gives_way_at_the_finish)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pcpu_live.db", wc_test_tmpdir());
    trun t;
    trun_create(&t, path, NULL, 0);
    for (int k = 0; k < 4; k++)
        trun_tick(&t, (int64_t)(k + 1) * 1000000000, 0, 0, NULL, 0.5);
    wc_error err = {{0}};
    cr_assert_eq(wc_store_ensure_indexes(t.st, &err), 0, "%s", err.msg); /* a live validate */
    cr_assert(has(path, "proc_sample_process"));
    trun_exec(path, "INSERT INTO process(id, pid, starttime, comm, container_id, pod_uid,"
                    " first_tick_id, pgid) VALUES (1, 100, 1, 'a', '', '', 2, 77);"
                    "INSERT INTO proc_sample VALUES (2, 1, 100, 20, 1), (3, 1, 130, 20, 1);");
    trun_finish(&t);
    cr_assert(has(path, "process_cpu"));
    cr_assert(!has(path, "proc_sample_process"), "the finished run kept the index");
    cr_assert_eq(stale_rows(path), 0);
    cr_assert_float_eq(seen_cpu(path), 150 / 100.0, 1e-12);
}
