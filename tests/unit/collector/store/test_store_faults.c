/*
 * test_store_faults.c — the run database when things go wrong (issue 16):
 * a failed open says the system's reason (a read-only directory, a path
 * through a file), a store that created its file removes it when discarded
 * and leaves a file it found alone, and finishing a run names the step that
 * failed and keeps the file consistent: the end row, the indexes (all or
 * none) and the journal switch. Disk-full cases on a real small file system
 * are tests/integration/disk_full.sh.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/store/store.h"
#include "collector/store/store_internal.h" /* white-box: the store's own tests read its connection */
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"

static const char *path_in(const char *dir, const char *name)
{
    static char p[2100];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static int64_t count(const char *db, const char *sql)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *s = NULL;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &s, NULL), SQLITE_OK, "%s", sql);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(h);
    return v;
}

Test(store_faults, a_read_only_directory_says_permission_denied)
{
    const char *dir = wc_test_tmpdir();
    char ro[1100];
    snprintf(ro, sizeof ro, "%s/ro", dir);
    cr_assert_eq(mkdir(ro, 0555), 0);
    cr_assert_eq(chmod(dir, 0755), 0);
    pid_t child = fork(); /* root writes anywhere: the check runs as nobody */
    cr_assert(child >= 0);
    if (child == 0) {
        const struct passwd *pw = getpwnam("nobody");
        if (geteuid() == 0 && (!pw || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0))
            _exit(3);
        wc_error err = {{0}};
        wc_store *st = wc_store_open(path_in(ro, "run.db"), WC_STORE_CREATE, &err);
        if (st)
            _exit(4);
        _exit(strstr(err.msg, "cannot open: unable to open database file: Permission denied") &&
                      strstr(err.msg, "writable directory")
                  ? 0
                  : 5);
    }
    int status = 0;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    cr_assert(!exists(path_in(ro, "run.db")));
}

Test(store_faults, a_path_through_a_file_says_not_a_directory)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "plain", "x\n");
    char p[1100];
    snprintf(p, sizeof p, "%s/plain/run.db", dir);
    wc_error err = {{0}};
    cr_assert_null(wc_store_open(p, WC_STORE_CREATE, &err));
    cr_assert(strstr(err.msg, "Not a directory"), "%s", err.msg);
}

Test(store_faults, discard_removes_only_a_file_it_created)
{
    const char *dir = wc_test_tmpdir();
    char made[2100], found[2100];
    snprintf(made, sizeof made, "%s", path_in(dir, "made.db"));
    snprintf(found, sizeof found, "%s", path_in(dir, "found.db"));
    wc_error err = {{0}};
    wc_store *st = wc_store_open(made, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    cr_assert(exists(made));
    cr_assert_eq(wc_store_discard(st), 1);
    cr_assert(!exists(made) && !exists(path_in(dir, "made.db-wal")) &&
              !exists(path_in(dir, "made.db-shm")));
    wc_test_write(dir, "found.db", ""); /* an empty file is a valid new run */
    st = wc_store_open(found, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    cr_assert_eq(wc_store_discard(st), 0);
    cr_assert(exists(found));
    cr_assert_eq(wc_store_discard(NULL), 0);
}

/* A run of 3 ticks, open for writing (not finished). */
static wc_store *three_ticks(const char *db)
{
    static const trun_zone Z[] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun t;
    trun_create(&t, db, Z, 1);
    for (int k = 0; k < 3; k++)
        trun_tick(&t, 1000000000LL * (k + 1), 0, 0, (double[]){10.0}, 0.5);
    return t.st;
}

Test(store_faults, finishing_keeps_the_indexes_all_or_none)
{
    char db[2100];
    snprintf(db, sizeof db, "%s", path_in(wc_test_tmpdir(), "run.db"));
    wc_store *st = three_ticks(db);
    /* a table with the name of the last index makes step 2 fail late */
    cr_assert_eq(sqlite3_exec(st->db, "CREATE TABLE truth_sample_source(x)", NULL, NULL, NULL),
                 SQLITE_OK);
    wc_error err = {{0}};
    cr_assert_eq(wc_store_finish_run(st, 5, 6, 3, 1, &err), -EIO);
    cr_assert(strstr(err.msg, "run.db: finishing the run: step 2 of 3, building the read-side "
                              "indexes failed: ") &&
                  strstr(err.msg, "Kept: every committed tick and the run's end"),
              "%s", err.msg);
    wc_store_close(st);
    cr_assert_eq(count(db, "SELECT COUNT(*) FROM sqlite_master WHERE (type='index' AND name IN "
                           "('zone_sample_tick','proc_sample_process','node_attr_model')) OR "
                           "name = 'process_cpu'"),
                 0, "some indexes were built");
    cr_assert_eq(count(db, "SELECT COUNT(*) FROM tick"), 3);
    cr_assert_eq(count(db, "SELECT ticks FROM run"), 3);
    cr_assert_eq(count(db, "SELECT clean_stop FROM run"), 1);
}

Test(store_faults, finishing_names_the_end_row_step)
{
    char db[2100];
    snprintf(db, sizeof db, "%s", path_in(wc_test_tmpdir(), "run.db"));
    wc_store *st = three_ticks(db);
    cr_assert_eq(sqlite3_exec(st->db,
                              "CREATE TRIGGER no_end BEFORE UPDATE ON run BEGIN "
                              "SELECT RAISE(ABORT, 'end refused'); END",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    wc_error err = {{0}};
    cr_assert_eq(wc_store_finish_run(st, 5, 6, 3, 1, &err), -EIO);
    cr_assert(strstr(err.msg, "step 1 of 3, writing the run's end (end times, tick count, clean "
                              "stop) failed: end refused. Kept: every committed tick"),
              "%s", err.msg);
    wc_store_close(st);
    cr_assert_eq(count(db, "SELECT COUNT(*) FROM tick"), 3);
    cr_assert_eq(count(db, "SELECT clean_stop FROM run"), 0);
}

/* Another connection inside a read transaction on db (a snapshot held). */
typedef struct reader {
    sqlite3 *db;
    sqlite3_stmt *s;
} reader;

static reader hold_read(const char *db)
{
    reader r = {NULL, NULL};
    cr_assert_eq(sqlite3_open_v2(db, &r.db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(r.db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(r.db, "SELECT COUNT(*) FROM tick", -1, &r.s, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(r.s), SQLITE_ROW);
    return r;
}

static void release_read(reader r)
{
    sqlite3_finalize(r.s);
    sqlite3_exec(r.db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(r.db);
}

Test(store_faults, finishing_names_the_journal_step)
{
    char db[2100];
    snprintf(db, sizeof db, "%s", path_in(wc_test_tmpdir(), "run.db"));
    wc_store *st = three_ticks(db);
    reader r = hold_read(db); /* a snapshot held: WAL cannot be switched off */
    sqlite3_busy_timeout(st->db, 10);
    wc_error err = {{0}};
    int rc = wc_store_finish_run(st, 5, 6, 3, 1, &err);
    cr_assert_eq(rc, -EIO, "%s", err.msg);
    cr_assert(strstr(err.msg, "step 3 of 3, moving the WAL journal into the file failed") &&
                  strstr(err.msg, "keep and copy the two files together"),
              "%s", err.msg);
    release_read(r);
    wc_store_close(st);
    cr_assert_eq(count(db, "SELECT COUNT(*) FROM tick"), 3);
    cr_assert_eq(count(db, "SELECT clean_stop FROM run"), 1);
}

Test(store_faults, compacting_behind_a_reader_fails_and_keeps_the_run)
{
    char db[2100];
    snprintf(db, sizeof db, "%s", path_in(wc_test_tmpdir(), "run.db"));
    wc_store *st = three_ticks(db);
    wc_error err = {{0}};
    cr_assert_eq(wc_store_finish_run(st, 5, 6, 3, 1, &err), 0, "%s", err.msg);
    reader r = hold_read(db); /* a read transaction: VACUUM needs the file alone */
    sqlite3_busy_timeout(st->db, 10);
    int rc = wc_store_compact(st, NULL, 0, &err);
    cr_assert_eq(rc, -EBUSY, "%s", err.msg);
    cr_assert(strstr(err.msg, "run.db: compacting the finished run (VACUUM) failed: ") &&
                  strstr(err.msg, "The run is complete and unchanged"),
              "%s", err.msg);
    release_read(r);
    volatile sig_atomic_t signals = 2; /* a second signal before the compaction began */
    cr_assert_eq(wc_store_compact(st, &signals, 1, &err), -EINTR, "%s", err.msg);
    cr_assert(strstr(err.msg, "(VACUUM) stopped by a signal. The run is complete"), "%s", err.msg);
    cr_assert_eq(wc_store_compact(st, NULL, 0, &err), 0, "alone, it compacts: %s", err.msg);
    wc_store_close(st);
    cr_assert_eq(count(db, "SELECT COUNT(*) FROM tick"), 3);
    cr_assert_eq(count(db, "SELECT clean_stop FROM run"), 1);
    cr_assert_eq(count(db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'process_cpu'"), 1);
    cr_assert_eq(count(db, "PRAGMA freelist_count"), 0);
}
