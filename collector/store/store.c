/*
 * store.c — the run database itself (see store.h, docs/schema.md): opening a
 * file (creating the schema of a new run, checking the version of an
 * existing one), closing it, the transactions, the schema's later additions
 * (calibration tables, read-side indexes), finishing a run, and the helpers
 * of store_internal.h that every reader and writer of collector/store/ uses.
 * The writes themselves are store_write.c; the readers are the store_*.c
 * files behind store_read.h and store_results.h.
 */
#include "collector/store/store.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/store/store_internal.h"
#include "common/wc_clock.h"
#include "collector/store/store_schema.sql.h"

/* ---- the helpers of store_internal.h ------------------------------------ */

/* What a lock held too long says (wc_store_fail, wc_store_exec). */
#define BUSY_HINT                                                                                \
    " (another process held the file for 5 s: a validate or report reading it holds it until" \
    " it ends; nothing was written, run again when it has)"

int wc_store_fail(wc_store *st, wc_error *err, const char *what)
{
    int code = sqlite3_errcode(st->db);
    int busy = code == SQLITE_BUSY || code == SQLITE_LOCKED;
    int rc = code == SQLITE_FULL ? -ENOSPC : busy ? -EBUSY : -EIO;
    return wc_error_set(err, rc, "%s: %s: %s%s", st->path, what, sqlite3_errmsg(st->db),
                        code == SQLITE_FULL ? " (disk full: nothing already committed to the file is lost)"
                        : busy ? BUSY_HINT
                               : "");
}

/* SQLite's busy handler: waits for a lock in 10 ms steps, at most 5 s in
 * all per episode of waiting. Calls less than 1 s apart are one episode: a
 * writer whose page cache spills retries its lock at every spill, and with
 * a plain busy timeout each retry waited anew, so a writer behind a reader
 * that never ends (a stopped validate) waited for ever. The end of a
 * transaction (busy_reset) starts a new episode. Returns 1 to retry, 0 to
 * give up (the statement then fails with SQLITE_BUSY). */
static int busy_wait(void *arg, int count)
{
    wc_store *st = arg;
    int64_t now = wc_mono_ns();
    if (count == 0 && (!st->busy_last_ns || now - st->busy_last_ns > 1000000000LL))
        st->busy_until_ns = now + 5000000000LL;
    st->busy_last_ns = now;
    if (now >= st->busy_until_ns)
        return 0;
    usleep(10000);
    st->busy_last_ns = wc_mono_ns();
    return 1;
}

/* A transaction ended (committed or rolled back): the next wait is a new
 * episode of busy_wait. As a commit hook it returns 0 (let it commit). */
static int busy_reset(void *arg)
{
    ((wc_store *)arg)->busy_last_ns = 0;
    return 0;
}

static void busy_reset_rollback(void *arg)
{
    busy_reset(arg);
}

int wc_store_exec(wc_store *st, const char *sql, wc_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int code = sqlite3_errcode(st->db);
        int busy = code == SQLITE_BUSY || code == SQLITE_LOCKED;
        int rc = wc_error_set(err, busy ? -EBUSY : -EIO, "%s: %s%s", st->path,
                              msg ? msg : "SQL error", busy ? BUSY_HINT : "");
        sqlite3_free(msg);
        return rc;
    }
    return 0;
}

int wc_store_prepare(wc_store *st, const char *sql, sqlite3_stmt **out, wc_error *err,
                     const char *what)
{
    *out = NULL;
    if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK)
        return wc_store_fail(st, err, what);
    return 0;
}

int wc_store_has_object(wc_store *st, const char *name)
{
    sqlite3_stmt *s = NULL;
    int found = -1;
    if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM sqlite_master WHERE ?1 = '' OR name = ?1",
                           -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
        found = sqlite3_step(s) == SQLITE_ROW;
    }
    sqlite3_finalize(s);
    return found;
}

int wc_store_has_column(wc_store *st, const char *table, const char *column)
{
    sqlite3_stmt *s = NULL;
    int found = -1;
    if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &s,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, column, -1, SQLITE_STATIC);
        int step = sqlite3_step(s);
        found = step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_finalize(s);
    return found;
}

void wc_store_col_text(sqlite3_stmt *s, int col, char *out, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    snprintf(out, cap, "%s", t ? (const char *)t : "");
}

double wc_store_col_real(sqlite3_stmt *s, int col)
{
    return sqlite3_column_type(s, col) == SQLITE_NULL ? NAN : sqlite3_column_double(s, col);
}

void wc_store_bind_real(sqlite3_stmt *s, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(s, i, v);
    else
        sqlite3_bind_null(s, i);
}

int wc_store_grow(void **arr, size_t size, size_t n, size_t *cap, size_t first)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : first;
    void *p = realloc(*arr, ncap * size);
    if (!p)
        return -ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* ---- opening and closing ------------------------------------------------ */

/* Appends to err why a readable file may still not open: a hot rollback
 * journal (a writer was killed mid-transaction) that this open cannot roll
 * back (read-only, or a read-only directory). */
static void journal_hint(const char *path, wc_error *err)
{
    char journal[4200];
    struct stat sb;
    snprintf(journal, sizeof journal, "%s-journal", path);
    size_t used = err ? strlen(err->msg) : 0;
    if (err && stat(journal, &sb) == 0 && sb.st_size > 0)
        snprintf(err->msg + used, sizeof err->msg - used,
                 "; its rollback journal %s is hot (a writer was killed mid-write): open the run"
                 " once where it can be written (e.g. `sqlite3 FILE 'PRAGMA quick_check'` in a"
                 " writable directory) to roll it back; nothing committed is lost", journal);
}

/* PRAGMA user_version of an existing file (0 when it holds no database). */
static int read_user_version(wc_store *st, int *version, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL);
    int step = rc == SQLITE_OK ? sqlite3_step(s) : rc;
    *version = step == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
    sqlite3_finalize(s);
    if ((step & 0xff) == SQLITE_BUSY || (step & 0xff) == SQLITE_LOCKED)
        return wc_error_set(err, -EBUSY, "%s: the database is locked by another process (still "
                            "busy after 5 s): wait for it to finish, or give another --db",
                            st->path);
    if (rc == SQLITE_OK && step != SQLITE_ROW && step != SQLITE_DONE) {
        /* an intact file SQLite cannot read as it stands: say why, never "not a run" */
        rc = wc_store_fail(st, err, "reading the schema version");
        journal_hint(st->path, err);
        return rc;
    }
    return rc == SQLITE_OK ? 0 : wc_store_fail(st, err, "reading user_version");
}

/* Refuses up front a path that is there but is no regular file: a directory
 * (SQLite would say "disk I/O error"), a FIFO (reading it would block), a
 * device or a socket. A missing file is left to SQLite (created or refused). */
static int regular_or_missing(const char *path, wc_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0;
    if (S_ISDIR(sb.st_mode))
        return wc_error_set(err, -EISDIR, "%s: is a directory, not a run database file", path);
    if (!S_ISREG(sb.st_mode))
        return wc_error_set(err, -EINVAL, "%s: not a regular file (%s): refused, reading it "
                            "could block", path, S_ISFIFO(sb.st_mode) ? "a FIFO"
                            : S_ISSOCK(sb.st_mode) ? "a socket" : "a device");
    return 0;
}

/* The schema of a new run, refusing a file that holds any table already. */
static int create_schema(wc_store *st, wc_error *err)
{
    if (wc_store_has_object(st, "run") == 1)
        return wc_error_set(err, -EEXIST,
                            "%s already holds a recorded run; choose a new --db file", st->path);
    if (wc_store_has_object(st, "") == 1)
        return wc_error_set(err, -EEXIST,
                            "%s is a SQLite database of another application (it has tables); "
                            "wattcal never writes into it: choose a new --db file", st->path);
    /* WAL only once the file is known to be ours: a refused file keeps its
     * journal mode and its bytes */
    int rc = wc_store_exec(st, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", err);
    if (!rc)
        rc = wc_store_exec(st, "BEGIN", err);
    if (!rc)
        rc = wc_store_exec(st, WC_SCHEMA_SQL, err);
    if (!rc)
        rc = wc_store_exec(st, WC_FIELD_REPORT_SQL, err);
    if (!rc)
        rc = wc_store_exec(st, WC_VM_SQL, err);
    if (!rc)
        rc = wc_store_exec(st, WC_CALIBRATION_SQL, err);
    if (!rc)
        rc = wc_store_exec(st, WC_EXPORTER_SQL, err);
    if (!rc)
        rc = wc_store_exec(st, WC_CGROUP_CPU_SQL, err);
    if (!rc)
        rc = wc_store_exec(st, WC_COMPACT_ATTR_SQL, err);
    if (!rc) {
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d", WC_STORE_SCHEMA_VERSION);
        rc = wc_store_exec(st, pragma, err);
    }
    if (!rc)
        rc = wc_store_exec(st, "COMMIT", err);
    if (rc && sqlite3_errcode(st->db) == SQLITE_FULL)
        rc = -ENOSPC; /* before ROLLBACK resets the error code */
    if (rc)
        wc_store_exec(st, "ROLLBACK", NULL);
    return rc;
}

/* Why a file that should hold a run does not read as one, when its bytes say:
 * shorter than SQLite's 100-byte header (a cut copy), or in WAL mode (header
 * bytes 18-19 are 2) with no PATH-wal beside it: a run copied while it was
 * recorded, or whose recorder was killed, keeps its data in that file.
 * Appends the hint to err; nothing when neither holds. */
static void missing_wal_hint(const char *path, wc_error *err)
{
    unsigned char head[100];
    char wal[4200];
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f || !err)
        goto out;
    size_t n = fread(head, 1, sizeof head, f);
    snprintf(wal, sizeof wal, "%s-wal", path);
    size_t used = strlen(err->msg);
    if (n > 0 && n < sizeof head)
        snprintf(err->msg + used, sizeof err->msg - used,
                 "; the file is %zu bytes, shorter than SQLite's 100-byte header: a cut copy", n);
    else if (n == sizeof head && head[18] == 2 && head[19] == 2 &&
             (stat(wal, &st) != 0 || st.st_size == 0)) /* SQLite may create it empty */
        snprintf(err->msg + used, sizeof err->msg - used,
                 "; it was written in WAL mode and its -wal file %s is missing or empty: a run copied while "
                 "it was recorded (or whose recorder was killed) keeps its data in that -wal "
                 "file: copy it too, next to the file", wal);
out:
    if (f)
        fclose(f);
}

/* The errno of the failed open: SQLite's last system error is the one of its
 * read-only retry (ENOENT for a file it could not create), so a new file's
 * directory is asked first (EACCES, EROFS). 0 when none is known. */
static int open_errno(const wc_store *st)
{
    if (st->created) {
        char dir[sizeof st->path];
        snprintf(dir, sizeof dir, "%s", st->path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
        struct stat sb;
        if (stat(slash ? dir : ".", &sb) != 0)
            return errno;
        if (!S_ISDIR(sb.st_mode))
            return ENOTDIR;
        if (access(slash ? dir : ".", W_OK | X_OK) != 0)
            return errno;
    }
    return st->db ? sqlite3_system_errno(st->db) : 0;
}

/* Why sqlite3_open_v2 failed, with the system's reason ("unable to open
 * database file: Permission denied": a read-only directory) when there is one. */
static void open_failed(wc_store *st, wc_error *err)
{
    int sys = open_errno(st);
    const char *dir_hint = sys == EACCES || sys == EROFS || sys == EPERM
                               ? " (wattcal needs a writable directory for the file and the "
                                 "journal SQLite keeps beside it)"
                               : "";
    if (sys)
        wc_error_set(err, -sys, "%s: cannot open: %s: %s%s", st->path,
                     st->db ? sqlite3_errmsg(st->db) : "out of memory", strerror(sys), dir_hint);
    else
        wc_error_set(err, -EIO, "%s: cannot open: %s", st->path,
                     st->db ? sqlite3_errmsg(st->db) : "out of memory");
}

/* A new run: the schema (create_schema switches to WAL once the file is
 * known to be ours). A full disk is named as such: the run could not start,
 * nothing was recorded (and wc_store_open removes a file it created). */
static int start_new_run(wc_store *st, wc_error *err)
{
    int rc = create_schema(st, err);
    if (rc == -ENOSPC)
        rc = wc_error_set(err, -ENOSPC, "%s: starting a new run: database or disk is full (disk "
                          "full before the first tick: nothing was recorded%s)", st->path,
                          st->created ? "; the file is removed" : "");
    return rc;
}

static int upgrade_schema(wc_store *st, wc_error *err);

wc_store *wc_store_open(const char *path, wc_store_mode mode, wc_error *err)
{
    if (!path || !*path) {
        wc_error_set(err, -EINVAL, "--db: empty file name");
        return NULL;
    }
    if (regular_or_missing(path, err))
        return NULL;
    wc_store *st = calloc(1, sizeof *st);
    if (!st) {
        wc_error_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    snprintf(st->path, sizeof st->path, "%s", path);
    st->read_only = mode == WC_STORE_READ;
    struct stat sb;
    st->created = mode == WC_STORE_CREATE && lstat(path, &sb) != 0 && errno == ENOENT;
    int flags = st->read_only ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
                              : SQLITE_OPEN_READWRITE | (mode == WC_STORE_CREATE ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
        open_failed(st, err);
        wc_store_discard(st);
        return NULL;
    }
    sqlite3_busy_handler(st->db, busy_wait, st);
    sqlite3_commit_hook(st->db, busy_reset, st);
    sqlite3_rollback_hook(st->db, busy_reset_rollback, st);
    if (stat(path, &sb) == 0)
        st->dev = sb.st_dev, st->ino = sb.st_ino;
    int rc = 0;
    /* SQLite silently falls back to read-only on read-only media. */
    if (!st->read_only && sqlite3_db_readonly(st->db, "main") == 1)
        rc = wc_error_set(err, -EROFS, "%s: the file or its medium is read-only", path);
    int version = 0;
    if (!rc)
        rc = mode == WC_STORE_CREATE ? start_new_run(st, err) : read_user_version(st, &version, err);
    if (!rc && mode != WC_STORE_CREATE && version > WC_STORE_SCHEMA_VERSION)
        rc = wc_error_set(err, -EINVAL, "%s: a run of schema version %d, written by a newer"
                          " wattcal (this one reads %d to %d): read it with that release or newer",
                          path, version, WC_STORE_SCHEMA_MIN_VERSION, WC_STORE_SCHEMA_VERSION);
    else if (!rc && mode != WC_STORE_CREATE && version < WC_STORE_SCHEMA_MIN_VERSION)
        rc = wc_error_set(err, -EINVAL,
                          "%s: not a wattcal run (schema version %d, expected %d to %d)%s", path,
                          version, WC_STORE_SCHEMA_MIN_VERSION, WC_STORE_SCHEMA_VERSION,
                          version == 0 ? "; a truncated or corrupt copy reads like this too" : "");
    if (rc && mode != WC_STORE_CREATE && version == 0)
        missing_wal_hint(path, err);
    if (!rc && !st->read_only && mode != WC_STORE_CREATE)
        rc = upgrade_schema(st, err); /* a version-3/4 run (or an early 5) gains the columns */
    if (!rc && !st->read_only)
        rc = wc_store_prepare_writer(st, err);
    if (rc) {
        wc_store_discard(st); /* a file this call created goes too: no empty run left */
        return NULL;
    }
    return st;
}

const char *wc_store_path(const wc_store *st)
{
    return st->path;
}

wc_store *wc_store_open_reader(const wc_store *st, wc_error *err)
{
    if (!wc_store_readers_agree(st)) {
        wc_error_set(err, -EBUSY, "%s: a second connection would not read what this one reads"
                     " (no read transaction held, or the file is being written in WAL mode)",
                     st->path);
        return NULL;
    }
    wc_store *r = wc_store_open(st->path, WC_STORE_READ, err);
    if (r && (r->dev != st->dev || r->ino != st->ino)) {
        wc_error_set(err, -ESTALE, "%s: the file was replaced while it was being read: run again"
                     " on the file as it is now", st->path);
        wc_store_close(r);
        return NULL;
    }
    return r;
}

void wc_store_remove_files(const char *path)
{
    static const char *const SUFFIX[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof SUFFIX / sizeof *SUFFIX; i++) {
        char p[1100];
        snprintf(p, sizeof p, "%s%s", path, SUFFIX[i]);
        unlink(p);
    }
}

int wc_store_discard(wc_store *st)
{
    if (!st)
        return 0;
    int created = st->created;
    char path[sizeof st->path];
    memcpy(path, st->path, sizeof path);
    wc_store_close(st);
    if (created)
        wc_store_remove_files(path);
    return created;
}

void wc_store_close(wc_store *st)
{
    if (!st)
        return;
    for (int i = 0; i < Q_COUNT; i++)
        sqlite3_finalize(st->q[i]);
    sqlite3_finalize(st->proc_batch);
    wc_store_exporter_free(st);
    wc_store_delta_free(st);
    wc_store_work_energy_free(st);
    if (st->db)
        sqlite3_close(st->db);
    free(st);
}

/* ---- transactions, schema additions, the end of a run ------------------- */

int wc_store_begin(wc_store *st, wc_error *err) { return wc_store_exec(st, "BEGIN", err); }

int wc_store_read_begin(wc_store *st, wc_error *err)
{
    if (st->reading) { /* nested: the outer transaction's moment holds */
        st->reading++;
        return 0;
    }
    sqlite3_stmt *s = NULL;
    int rc = wc_store_exec(st, "BEGIN", err);
    if (!rc)
        rc = wc_store_prepare(st, "PRAGMA journal_mode", &s, err, "starting a read");
    int step = rc ? SQLITE_ERROR : sqlite3_step(s);
    const unsigned char *mode = step == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
    st->live = mode && !strcmp((const char *)mode, "wal");
    sqlite3_finalize(s);
    if (!rc && step != SQLITE_ROW)
        rc = wc_store_fail(st, err, "starting a read");
    /* a read makes the transaction hold its snapshot (and, in rollback
     * mode, the shared lock no writer commits past) from here on */
    if (!rc)
        rc = wc_store_exec(st, "SELECT COUNT(*) FROM sqlite_schema", err);
    st->reading = rc == 0;
    if (rc)
        wc_store_exec(st, "ROLLBACK", NULL);
    return rc;
}

void wc_store_read_end(wc_store *st)
{
    if (st && st->reading && --st->reading == 0) {
        wc_store_exec(st, "COMMIT", NULL);
        busy_reset(st); /* a read-only commit calls no commit hook */
    }
}

int wc_store_readers_agree(const wc_store *st)
{
    return st->reading && !st->live;
}

int wc_store_commit(wc_store *st, wc_error *err)
{
    int rc = wc_store_exec(st, "COMMIT", err);
    if (rc) {
        if (sqlite3_errcode(st->db) == SQLITE_FULL)
            rc = wc_store_fail(st, err, "committing tick");
        wc_store_exec(st, "ROLLBACK", NULL);
        wc_store_delta_reset(st);
        wc_store_work_energy_reset(st);
    }
    return rc;
}

int wc_store_rollback(wc_store *st)
{
    wc_store_delta_reset(st);
    wc_store_work_energy_reset(st);
    return sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
}

/* Version 5's field-report columns (WC_FIELD_REPORT_SQL) on a version-3 or 4
 * file being upgraded: each added only when absent, NULL in the old rows
 * (readers take NULL as "not stored"). 0 or a negative errno. */
static const char *const FIELD_REPORT_COLS[][3] = {{"run", "ceiling_watts", "REAL"},
                                                   {"zone", "die_count", "INTEGER"},
                                                   {"zone", "die_mirrored", "INTEGER"},
                                                   {"process", "vm_id", "TEXT"},
                                                   {"process", "vm_name", "TEXT"},
                                                   {"process", "hypervisor", "TEXT"},
                                                   {"process", "vm_since", "TEXT"},
                                                   {"tick", "proc_delta", "INTEGER"},
                                                   {"calibration", "fitted_run", "TEXT"}};
#define N_FIELD_REPORT_COLS (sizeof FIELD_REPORT_COLS / sizeof FIELD_REPORT_COLS[0])

static int add_field_report_columns(wc_store *st, wc_error *err)
{
    const char *const(*cols)[3] = FIELD_REPORT_COLS;
    for (size_t i = 0; i < N_FIELD_REPORT_COLS; i++) {
        int has = wc_store_has_column(st, cols[i][0], cols[i][1]);
        if (has < 0)
            return wc_store_fail(st, err, "reading the columns of table run/zone");
        char sql[128];
        snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", cols[i][0], cols[i][1],
                 cols[i][2]);
        int rc = has ? 0 : wc_store_exec(st, sql, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* An older run opened for writing becomes version 5 whole (the calibration,
 * exporter and cgroup tables, the field-report columns, NULL in old rows):
 * the writer's statements name them. It stays version 5, not 6: version 6
 * is a run created with the compact workload rows (store_work_energy.c),
 * and an old run keeps its work_attr table, so a release that reads 3 to 5
 * still reads it after this one wrote to it. Idempotent; 0 or a negative
 * errno. */
/* 1 when the file is version 5 or 6 whole already (nothing to write), else 0. */
static int schema_complete(wc_store *st)
{
    int version = 0;
    if (read_user_version(st, &version, NULL) || version < 5)
        return 0;
    static const char *const tables[][2] = {{"calibration", "id"}, {"exporter", "id"},
                                            {"cgroup_cpu", "tick_id"}, {"pod_identity", "pod_uid"}};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (wc_store_has_column(st, tables[i][0], tables[i][1]) != 1)
            return 0;
    for (size_t i = 0; i < N_FIELD_REPORT_COLS; i++)
        if (wc_store_has_column(st, FIELD_REPORT_COLS[i][0], FIELD_REPORT_COLS[i][1]) != 1)
            return 0;
    return 1;
}

/* The upgrade's statements (upgrade_schema holds the write lock). */
static int upgrade_steps(wc_store *st, wc_error *err)
{
    /* a file gaining the calibration tables becomes version 5 whole: the
     * exporter tables and the field-report columns come with them */
    int version = 0;
    int rc = read_user_version(st, &version, err);
    if (rc)
        return rc;
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d", version > 5 ? version : 5);
    rc = wc_store_exec(st, WC_CALIBRATION_SQL, err);
    if (!rc) /* version 5 promises the exporter tables too (empty here) */
        rc = wc_store_exec(st, WC_EXPORTER_SQL, err);
    if (!rc)
        rc = wc_store_exec(st, WC_CGROUP_CPU_SQL, err);
    if (!rc) /* ... and the field-report columns (NULL: not stored) */
        rc = add_field_report_columns(st, err);
    return rc ? rc : wc_store_exec(st, pragma, err);
}

static int upgrade_schema(wc_store *st, wc_error *err)
{
    if (schema_complete(st))
        return 0; /* nothing written: a write-open that fails later leaves the file as it was */
    /* one transaction with the write lock: two writers upgrading one old run
     * at once must not both see a column missing and both add it */
    int own = sqlite3_get_autocommit(st->db);
    int rc = own ? wc_store_exec(st, "BEGIN IMMEDIATE", err) : 0;
    if (!rc)
        rc = upgrade_steps(st, err);
    if (own && !rc)
        rc = wc_store_exec(st, "COMMIT", err);
    else if (own && rc)
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int wc_store_ensure_calibration(wc_store *st, wc_error *err)
{
    if (st->read_only)
        return wc_error_set(err, -EROFS, "%s: opened read-only", st->path);
    return upgrade_schema(st, err);
}

/* 1 when the run has its end row (wc_store_finish_run step 1), 0 when not
 * (recording, or killed), -EIO with err. */
static int run_ended(wc_store *st, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT ended_mono_ns IS NOT NULL FROM run WHERE id = 1", &s,
                              err, "reading the run's end");
    if (rc)
        return rc;
    int step = sqlite3_step(s);
    int ended = step == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
    sqlite3_finalize(s);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return wc_store_fail(st, err, "reading the run's end");
    return ended;
}

int wc_store_process_cpu_state(wc_store *st, wc_error *err)
{
    int have = wc_store_has_object(st, "process_cpu");
    if (have > 0)
        have = wc_store_has_object(st, "process_cpu_stale");
    if (have <= 0)
        return have < 0 ? wc_store_fail(st, err, "looking for process_cpu") : WC_PCPU_NONE;
    sqlite3_stmt *s = NULL;
    int rc = wc_store_prepare(st, "SELECT EXISTS (SELECT 1 FROM process_cpu_stale)", &s, err,
                              "reading process_cpu_stale");
    if (rc)
        return rc;
    int step = sqlite3_step(s), stale = step == SQLITE_ROW && sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    if (step != SQLITE_ROW)
        return wc_store_fail(st, err, "reading process_cpu_stale");
    return stale ? WC_PCPU_STALE : WC_PCPU_FRESH;
}

/* Rebuilds a process_cpu summary a hand edit marked stale (schema.sql.h). */
static int rebuild_if_stale(wc_store *st, wc_error *err)
{
    int state = wc_store_process_cpu_state(st, err);
    if (state != WC_PCPU_STALE)
        return state < 0 ? state : 0;
    int rc = wc_store_exec(st, WC_PROCESS_CPU_REBUILD_SQL, err);
    if (rc && !sqlite3_get_autocommit(st->db))
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* An ended run's process_cpu summary (built once), else proc_sample's
 * process index (WC_PROCESS_CPU_SQL says why). Finishing, the summary
 * replaces an index a reader built while the run was recorded; a reader
 * leaves an ended run that has the index as it is (a run of an earlier
 * release: not rewritten, nor slowed by a scan). 0 or -EIO with err. */
static int ensure_process_cpu(wc_store *st, int finishing, wc_error *err)
{
    int ended = run_ended(st, err);
    if (ended < 0)
        return ended;
    if (!ended)
        return wc_store_exec(st, WC_PROC_SAMPLE_INDEX_SQL, err);
    int have = wc_store_has_object(st, "process_cpu");
    int indexed = have ? 0 : wc_store_has_object(st, "proc_sample_process");
    if (have < 0 || indexed < 0)
        return wc_store_fail(st, err, "looking for process_cpu");
    if (have)
        return rebuild_if_stale(st, err);
    if (indexed && !finishing)
        return 0;
    int rc = wc_store_exec(st, WC_PROCESS_CPU_SQL, err);
    return rc || !indexed ? rc : wc_store_exec(st, "DROP INDEX proc_sample_process", err);
}

int wc_store_ensure_indexes(wc_store *st, wc_error *err)
{
    if (st->read_only)
        return 0; /* queries still work, only slower */
    int rc = wc_store_exec(st, WC_INDEX_SQL, err);
    if (!rc)
        rc = ensure_process_cpu(st, 0, err);
    int compact = rc ? 0 : wc_store_attr_compact(st, err); /* the view, or a work_attr table */
    if (compact < 0)
        return compact;
    if (!rc)
        rc = wc_store_exec(st, compact ? WC_COMPACT_TIDY_SQL : WC_WORK_ATTR_INDEX_SQL, err);
    if (!rc && wc_store_has_object(st, "exporter_sample") == 1) /* version 5 */
        rc = wc_store_exec(st, WC_EXPORTER_INDEX_SQL, err);
    if (!rc && wc_store_has_object(st, "cgroup_cpu") == 1)
        rc = wc_store_exec(st, WC_CGROUP_CPU_INDEX_SQL, err);
    return rc;
}

/* The steps of wc_store_finish_run, as its messages name them, each with
 * what the file keeps when it fails. */
static const char *const FINISH_STEP[3] = {
    "step 1 of 3, writing the run's end (end times, tick count, clean stop)",
    "step 2 of 3, building the read-side indexes",
    "step 3 of 3, moving the WAL journal into the file",
};
static const char *const FINISH_KEPT[3] = {
    "every committed tick; the file is consistent and the run reads as not ended cleanly",
    "every committed tick and the run's end; the file is consistent, without the read-side "
    "indexes (validate builds them when it can write, and reads without them otherwise)",
    "everything (ticks, end, indexes), partly still in the -wal file beside it: keep and copy "
    "the two files together; opening the run with write access completes the move",
};

/* err = "<file>: finishing the run: <step> failed: <why>. Kept: ..." (why:
 * SQLite's message, unless given). */
static int finish_failed(wc_store *st, int step, const char *why, wc_error *err)
{
    int full = sqlite3_errcode(st->db) == SQLITE_FULL;
    return wc_error_set(err, full ? -ENOSPC : -EIO, "%s: finishing the run: %s failed: %s%s. "
                        "Kept: %s", st->path, FINISH_STEP[step],
                        why ? why : sqlite3_errmsg(st->db), full ? " (disk full)" : "",
                        FINISH_KEPT[step]);
}

static int finish_end_row(wc_store *st, int64_t ended_wall_ns, int64_t ended_mono_ns,
                          int64_t ticks, int clean, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db,
                           "UPDATE run SET ended_wall_ns=?, ended_mono_ns=?, ticks=?,"
                           " clean_stop=? WHERE id=1",
                           -1, &s, NULL) != SQLITE_OK)
        return finish_failed(st, 0, NULL, err);
    sqlite3_bind_int64(s, 1, ended_wall_ns);
    sqlite3_bind_int64(s, 2, ended_mono_ns);
    sqlite3_bind_int64(s, 3, ticks);
    sqlite3_bind_int(s, 4, clean);
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : finish_failed(st, 0, NULL, err);
    sqlite3_finalize(s);
    return rc;
}

/* Every index or none: one transaction (rolled back on failure); the
 * exporter tables' indexes with the others where those tables exist. */
static int finish_indexes(wc_store *st, wc_error *err)
{
    if (sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return finish_failed(st, 1, NULL, err);
    int has_exporter = wc_store_has_object(st, "exporter_sample");
    int compact = wc_store_attr_compact(st, NULL);
    const char *attr_sql = compact ? WC_COMPACT_TIDY_SQL : WC_WORK_ATTR_INDEX_SQL;
    if (has_exporter >= 0 && compact >= 0 &&
        sqlite3_exec(st->db, WC_INDEX_SQL, NULL, NULL, NULL) == SQLITE_OK &&
        ensure_process_cpu(st, 1, NULL) == 0 &&
        sqlite3_exec(st->db, attr_sql, NULL, NULL, NULL) == SQLITE_OK &&
        (has_exporter == 0 ||
         sqlite3_exec(st->db, WC_EXPORTER_INDEX_SQL, NULL, NULL, NULL) == SQLITE_OK) &&
        sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    int rc = finish_failed(st, 1, NULL, err); /* before ROLLBACK resets the error */
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* WAL to a rollback journal; 0 only when the file says "delete" after it
 * (SQLite keeps WAL without an error when it cannot switch). */
static int finish_journal(wc_store *st, wc_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode=DELETE", -1, &s, NULL) != SQLITE_OK)
        return finish_failed(st, 2, NULL, err);
    int rc = 0;
    if (sqlite3_step(s) != SQLITE_ROW) {
        rc = finish_failed(st, 2, NULL, err);
    } else {
        const unsigned char *mode = sqlite3_column_text(s, 0);
        if (!mode || strcmp((const char *)mode, "delete") != 0)
            rc = finish_failed(st, 2, "the journal stayed in WAL mode", err);
    }
    sqlite3_finalize(s);
    return rc;
}

int wc_store_finish_run(wc_store *st, int64_t ended_wall_ns, int64_t ended_mono_ns,
                        int64_t ticks, int clean, wc_error *err)
{
    int rc = finish_end_row(st, ended_wall_ns, ended_mono_ns, ticks, clean, err);
    if (!rc)
        rc = finish_indexes(st, err);
    if (!rc)
        rc = finish_journal(st, err);
    return rc;
}

/* The progress handler of a compaction: stop when the signal count moved. */
typedef struct compact_watch {
    volatile sig_atomic_t *stop;
    sig_atomic_t at_start;
} compact_watch;

static int compact_progress(void *arg)
{
    const compact_watch *w = arg;
    return *w->stop != w->at_start;
}

int wc_store_compact(wc_store *st, volatile sig_atomic_t *stop, sig_atomic_t stop_at,
                     wc_error *err)
{
    compact_watch w = {stop, stop_at};
    if (stop)
        sqlite3_progress_handler(st->db, 10000, compact_progress, &w);
    int ok = stop && *stop != stop_at ? 0 /* a signal already came: not started */
             : sqlite3_exec(st->db, "VACUUM", NULL, NULL, NULL) == SQLITE_OK;
    int code = stop && *stop != stop_at ? SQLITE_INTERRUPT : sqlite3_errcode(st->db);
    sqlite3_progress_handler(st->db, 0, NULL, NULL);
    if (ok)
        return 0;
    int rc = code == SQLITE_FULL ? -ENOSPC : code == SQLITE_BUSY ? -EBUSY
             : code == SQLITE_INTERRUPT ? -EINTR : -EIO;
    return wc_error_set(err, rc, "%s: compacting the finished run (VACUUM) %s%s. The run is "
                        "complete and unchanged, only larger (the free space inside its pages "
                        "stays); `sqlite3 %s VACUUM` compacts it later, when no other process "
                        "reads it and the disk has room for a copy", st->path,
                        rc == -EINTR ? "stopped by a signal" : "failed: ",
                        rc == -EINTR ? "" : rc == -ENOSPC ? "database or disk is full (disk full)"
                                                           : sqlite3_errstr(code), st->path);
}

int wc_store_set_cache_kib(wc_store *st, int kib, wc_error *err)
{
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA cache_size=-%d", kib > 0 ? kib : 1);
    return wc_store_exec(st, pragma, err);
}
