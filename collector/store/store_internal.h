/*
 * store_internal.h — what the files of collector/store/ share, and nothing
 * outside collector/store/ includes (but the store's own unit tests): the
 * wc_store handle itself (the sqlite3 connection and the writer's prepared
 * statements) and the helpers every reader and writer uses to prepare, fail,
 * bind and read columns the same way (store.c).
 *
 * The store is the one owner of the run database: every SQL statement of
 * wattcal lives in a file of this folder, and the rest of the program sees
 * only the typed functions of store.h and the reader headers beside it
 * (collector/store/README.md).
 */
#ifndef WC_STORE_INTERNAL_H
#define WC_STORE_INTERNAL_H

#include <sqlite3.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"

/* The writer's statements, prepared once at open (store_write.c). */
enum {
    Q_TICK, Q_ZONE_SAMPLE, Q_PROC, Q_PROC_SAMPLE, Q_PROC_LAST, Q_CONTAINER, Q_POD,
    Q_NODE_ATTR, Q_WORK_ATTR, Q_TRUTH_SAMPLE, Q_COUNT
};

/* Process samples are inserted PROC_BATCH rows per statement: one VDBE
 * program per batch instead of per row roughly doubles ingest (make bench). */
#define PROC_BATCH 64

struct wc_store {
    sqlite3 *db;
    char path[1024];
    sqlite3_stmt *q[Q_COUNT];
    sqlite3_stmt *proc_batch;    /* PROC_BATCH-row form of Q_PROC_SAMPLE */
    int read_only;               /* opened with WC_STORE_READ: no statements prepared */
    int created;                 /* WC_STORE_CREATE made the file (it was absent) */
    struct wc_exporter_cache *exporter; /* store_exporter.c: its statements and series ids,
                                           made on first use (NULL until then) */
    struct wc_store_delta *delta; /* store_delta.c: which process samples a tick writes */
    struct wc_work_energy *we;   /* store_work_energy.c: the compact workload layout (its
                                    zones, key cache, statements; NULL until first use) */
    int reading;                 /* wc_store_read_begin's read transaction (its depth) */
    int64_t busy_until_ns, busy_last_ns; /* store.c busy_wait: the episode's end, the last call */
    int live;                    /* ... on a file in WAL mode (a recording still writes it) */
    dev_t dev;                   /* the file's (device, inode) when opened: a second */
    ino_t ino;                   /* connection (wc_store_open_reader) must find the same */
};

typedef struct wc_work_energy wc_work_energy;
struct wc_attr_out;

/* store_work_energy.c (schema 6, docs/schema.md "work_energy"). Writes one
 * tick's workload rows of a model in the compact layout (converting a new
 * run's empty work_attr table on its first write). Returns 0, 1 when the run
 * keeps the work_attr table (the caller writes its rows as before), -EINVAL
 * when the zones differ from the run's attribution zones or the rows are not
 * one per zone, or wc_store_fail / -ENOMEM. */
int wc_store_work_energy_put(wc_store *st, int64_t model_id, int64_t tick_id,
                             const struct wc_attr_out *out, const int64_t *proc_ids,
                             wc_error *err);

/* Deletes a model's compact rows: 0, 1 when the run keeps the table, < 0. */
int wc_store_work_energy_clear(wc_store *st, int64_t model_id, wc_error *err);

/* 1 when the run's workload rows are in work_energy (compact), 0 when in the
 * work_attr table, < 0 on error. Loads the attribution zones. */
int wc_store_attr_compact(wc_store *st, wc_error *err);

/* The attribution zones of a compact run (slot order) into zone[0..cap);
 * returns their count (0 for a run that keeps the table). Valid until close. */
size_t wc_store_attr_slots(const wc_store *st, const char **zone, size_t cap);

/* Forgets the key cache and layout after a rollback (ids and a first write's
 * conversion may be gone); frees it all at close. */
void wc_store_work_energy_reset(wc_store *st);
void wc_store_work_energy_free(wc_store *st);

/* store_delta.c (the keyframe rule is in its file comment). Creates the
 * cache of a store opened for writing: 0 or -ENOMEM. */
int wc_store_delta_init(wc_store *st);

/* Frees it (safe when there is none). */
void wc_store_delta_free(wc_store *st);

/* Forgets every written counter and makes the next tick a keyframe: called
 * when a transaction is rolled back (its rows are not in the file). */
void wc_store_delta_reset(wc_store *st);

/* Marks tick_id a delta tick (tick.proc_delta = 1; the statement is
 * prepared on first use: a run opened for writing may predate the column).
 * Returns 0 or wc_store_fail. */
int wc_store_delta_mark(wc_store *st, int64_t tick_id, wc_error *err);

/* Chooses this tick's process rows: forgets snap's gone processes, sets
 * *keyframe (1: every process gets a row) and keeps the rows to write for
 * wc_store_delta_rows. Returns 0 or -ENOMEM. */
int wc_store_delta_select(wc_store *st, const wc_proc_snapshot *snap, int *keyframe);

/* The rows chosen by the last wc_store_delta_select (n of them, scan order). */
const wc_proc_sample *const *wc_store_delta_rows(const wc_store *st, size_t *n);

/* Prepares the writer's statements (q[] and proc_batch) of a store opened
 * for writing (store_write.c). Returns 0 or wc_store_fail. */
int wc_store_prepare_writer(wc_store *st, wc_error *err);

/* Frees the exporter writer's statements and series cache (store_exporter.c;
 * called by wc_store_close). Safe when there is none. */
void wc_store_exporter_free(wc_store *st);

/* Sets err to "<file>: <what>: <sqlite message>" and returns -EIO, or -ENOSPC
 * when the disk is full (saying that committed data is kept). */
int wc_store_fail(wc_store *st, wc_error *err, const char *what);

/* Runs SQL text without results. Returns 0 or -EIO with err naming the file. */
int wc_store_exec(wc_store *st, const char *sql, wc_error *err);

/* Prepares one statement into *out (NULL on failure). Returns 0, or
 * wc_store_fail(st, err, what). */
int wc_store_prepare(wc_store *st, const char *sql, sqlite3_stmt **out, wc_error *err,
                     const char *what);

/* 1 when the schema holds an object (table, index) of that name, or any
 * object when name is ""; 0 when not; -1 when the file cannot be read as a
 * database (err untouched: the caller says what that means). */
int wc_store_has_object(wc_store *st, const char *name);

/* An ended run's process_cpu summary (store_schema.sql.h): none (a run not
 * ended, or of an earlier release: proc_sample's index instead), fresh, or
 * stale (a hand edit since: read the samples). Returns one of these, or
 * -EIO with err. */
enum { WC_PCPU_NONE = 0, WC_PCPU_FRESH = 1, WC_PCPU_STALE = 2 };
int wc_store_process_cpu_state(wc_store *st, wc_error *err);

/* 1 when table has the column (a run of an older schema may lack it), 0
 * when not, -1 when the schema cannot be read. */
int wc_store_has_column(wc_store *st, const char *table, const char *column);

/* Copies a TEXT column into out (cap bytes, always terminated; NULL reads ""). */
void wc_store_col_text(sqlite3_stmt *s, int col, char *out, size_t cap);

/* A REAL column, NAN when it is NULL. */
double wc_store_col_real(sqlite3_stmt *s, int col);

/* Binds a double; NAN and infinities (unknown) as NULL. */
void wc_store_bind_real(sqlite3_stmt *s, int i, double v);

/* Room for one more element in *arr (elements of size, n used, *cap
 * allocated), growing by doubling from first. Returns 0 or -ENOMEM (*arr
 * unchanged). */
int wc_store_grow(void **arr, size_t size, size_t n, size_t *cap, size_t first);

#endif
