/*
 * store.h — the SQLite record of a run (schema in docs/schema.md): opening
 * it, every write, the run row, and the convention every reader follows.
 *
 * One file per run: run metadata, meters and zones, raw node counters and
 * /proc/stat per tick, processes by (pid, starttime) with their identity,
 * per-tick cumulative process CPU, and the attribution of each model. Raw
 * counters are kept so power and attribution are derived in analysis and a
 * run can be re-attributed offline. WAL journal, prepared statements, every
 * string bound as a parameter, PRAGMA user_version = WC_STORE_SCHEMA_VERSION.
 * The recorder writes one transaction per tick, so a kill -9 loses at most
 * the tick in progress and the file always passes integrity_check.
 *
 * The store is the one owner of the run database (collector/store/README.md):
 * the readers are store_read.h (what was recorded: ticks, zone samples,
 * processes, ground truth, phases and workloads) and store_results.h (what
 * analysis derived: attribution rows, tenant energy, calibration fits);
 * re-attribution is store_replay.h.
 */
#ifndef WC_STORE_H
#define WC_STORE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "collector/meter/meter.h"
#include "collector/procfs/proc_scan.h"
#include "collector/procfs/procstat.h"
#include "collector/truth/truth.h"
#include "common/wc_error.h"

/* Version 6 (issue 15): a new run keeps its workload rows compact
 * (work_energy, store_work_energy.c; work_attr a view); older runs keep the
 * work_attr table, read and written as before. */
#define WC_STORE_SCHEMA_VERSION 6
/* Oldest schema still read: version 3 lacks the calibration tables, 3 and 4
 * the exporter tables (store_exporter.h: such runs have no exporter) and
 * the run's ceiling and the zones' die layout (readers check the columns).
 * Calibrating a version-3 or 4 run makes it version 6 whole (tables and
 * columns; its work_attr stays a table). */
#define WC_STORE_SCHEMA_MIN_VERSION 3

typedef struct wc_store wc_store;

/* ---- opening, transactions, schema (store.c) ----------------------------- */

/* How a store is opened. */
typedef enum wc_store_mode {
    WC_STORE_WRITE = 0,  /* an existing run, read-write (replay adds models) */
    WC_STORE_CREATE = 1, /* a new run: the file must be absent, empty, or an empty SQLite DB */
    WC_STORE_READ = 2    /* an existing run, read-only (works on read-only media) */
} wc_store_mode;

/* Opens a store. CREATE makes the schema and fails with -EEXIST when the file
 * already holds a run or any other SQLite data (never writes into another
 * application's database), -EINVAL for an empty path or a path that is no
 * regular file (a FIFO, device, socket: refused before any read, never a
 * hang), -EISDIR for a directory; WRITE and READ check user_version (-EBUSY
 * when another process holds the database locked for 5 s). Returns NULL with
 * err naming the file and, when the system gave one, its reason ("Permission
 * denied": a read-only directory); a file a failed CREATE made is removed. */
wc_store *wc_store_open(const char *path, wc_store_mode mode, wc_error *err);

/* Holds one read transaction on st until wc_store_read_end: every read of
 * st in between sees the file as it was at the call (WAL: one snapshot;
 * rollback journal: a shared lock no writer commits past: a writer waits
 * for it at most 5 s in all, then fails with -EBUSY, store.c busy_wait).
 * Calls nest: an inner one keeps the outer moment. Returns 0 or < 0 with
 * err. */
int wc_store_read_begin(wc_store *st, wc_error *err);

/* Ends one wc_store_read_begin; the outermost ends the transaction (safe
 * when none is held). */
void wc_store_read_end(wc_store *st);

/* 1 when a second connection (wc_store_open_reader) reads exactly what st
 * reads: st holds a read transaction on a file not in WAL mode (in WAL mode
 * a recording may commit between the two connections' snapshots). */
int wc_store_readers_agree(const wc_store *st);

/* A second, read-only connection to st's file for a reader on another
 * thread (one connection serves one thread at a time; SQLite is built
 * thread-safe). Only when wc_store_readers_agree(st): else NULL with -EBUSY.
 * The file must still be the one st opened (same device and inode): else
 * NULL with -ESTALE in err; NULL with err as wc_store_open otherwise. The
 * caller closes it. */
wc_store *wc_store_open_reader(const wc_store *st, wc_error *err);

/* The file name the store was opened with (for messages). */
const char *wc_store_path(const wc_store *st);

/* Closes the store (checkpoints WAL). Safe on NULL. */
void wc_store_close(wc_store *st);

/* Closes the store and, when it created its file (WC_STORE_CREATE on an
 * absent path), removes the file with its -wal, -shm and -journal: a run
 * that failed before anything worth keeping (a start that failed) leaves no
 * empty file behind. A failed wc_store_open does this itself. Returns 1 when
 * the file was removed, 0 otherwise. Safe on NULL. */
int wc_store_discard(wc_store *st);

/* Unlinks path and its -wal, -shm and -journal files (those that exist). */
void wc_store_remove_files(const char *path);

/* Begins/commits the per-tick transaction. Returns 0 or -EIO (-ENOSPC for a
 * full disk: the previous ticks stay intact). */
int wc_store_begin(wc_store *st, wc_error *err);
int wc_store_commit(wc_store *st, wc_error *err);

/* Rolls back the open transaction (after a failed tick or replay). Returns 0
 * or -EIO. */
int wc_store_rollback(wc_store *st);

/* Creates the calibration tables if missing, with the exporter tables (a
 * version-3 or 4 run becomes version 5). Returns 0, -EROFS on a read-only
 * store, -EIO with err. */
int wc_store_ensure_calibration(wc_store *st, wc_error *err);

/* Builds the read-side indexes if missing (done by wc_store_finish_run; readers
 * call it on runs that were killed before finishing). Returns 0 or -EIO. */
int wc_store_ensure_indexes(wc_store *st, wc_error *err);

/* Marks the run's end (wall and monotonic ns, ticks, clean=1 for a clean stop),
 * builds the indexes (all or none, one transaction) and switches the file from
 * WAL to a rollback journal so it can later be read from read-only media
 * without -wal/-shm files. Returns 0, or -ENOSPC (disk full) / -EIO with err
 * naming the step that failed (1 the end row, 2 the indexes, 3 the journal)
 * and what the file keeps: it is consistent and readable after any of them. */
int wc_store_finish_run(wc_store *st, int64_t ended_wall_ns, int64_t ended_mono_ns,
                        int64_t ticks, int clean, wc_error *err);

/* Rewrites a finished run's file without the free space its pages gained
 * while it was written (SQLite's VACUUM: a workload row appended in key
 * order leaves its B-tree pages about 88 % full; 0.55 -> 0.51 GiB on the
 * 24 h bench run). Needs the rollback journal (after wc_store_finish_run),
 * room for a copy of the file in SQLite's temporary directory, and no other
 * connection reading. Row ids are kept (SQLite's transfer of an empty
 * table's rows), so readers' rowid order is unchanged. stop (or NULL): a
 * signal counter; the compaction does not start, or stops, once it differs
 * from stop_at (its value when the run's recording ended: a second Ctrl-C).
 * Returns 0, or -ENOSPC / -EBUSY / -EINTR / -EIO with err saying the run is
 * complete and unchanged (a failed or stopped VACUUM rolls back). */
int wc_store_compact(wc_store *st, volatile sig_atomic_t *stop, sig_atomic_t stop_at,
                     wc_error *err);

/* ---- the run row (store_run.c) ------------------------------------------ */

/* The run row as stored, for readers (validate, report, diff, calibrate).
 * Text is as stored (provenance: "measured", "simulated", ...); a run killed
 * before its end has ended_* 0 and clean_stop 0. What the tick table holds
 * is wc_store_tick_span (store_read.h). */
typedef struct wc_run_meta {
    int present;                  /* 0 when the file has no run row (everything else zero) */
    char host[256], kernel[256], cpu_model[256];
    int sockets, ncpus;
    char wattcal_version[32], model[32];
    int64_t interval_ns;
    char meter_kind[16], provenance[32], meter_description[256];
    char sim_params_json[1024], procfs_root[256], sysfs_root[256], command_line[512];
    int64_t started_wall_ns, started_mono_ns, ended_wall_ns, ended_mono_ns;
    int64_t ticks;                /* as written at the end (0 for a killed run) */
    int clean_stop;
    double ceiling_watts;         /* counter plausibility ceiling per zone the run was recorded
                                     with (W); WC_DEFAULT_CEILING_WATTS when not stored */
    int ceiling_stored;           /* 1 when ceiling_watts is the run's own; 0 for a run recorded
                                     before it was stored (schema < 5) or an import */
} wc_run_meta;

/* Reads the run row into *m (zeroed first). Returns 0 (m->present says whether
 * there was a row) or -EIO with err naming the file. */
int wc_store_get_run(wc_store *st, wc_run_meta *m, wc_error *err);

/* A run's identity from its data, not its run row: the first tick's clocks,
 * the first zone sample, the first truth reading and the zone count, as
 * text in buf. A byte copy gives the same; two runs, even two imports
 * with one host and zero start times, differ. For calibrate --apply-from
 * (a fit is never copied into the run it was fitted on). 0 or -EIO. */
int wc_store_run_fingerprint(wc_store *st, char *buf, size_t cap, wc_error *err);

/* Id of an existing model in the model table, without inserting (readers;
 * wc_store_model_id below inserts). Returns 0 with *model_id set, -ENOENT
 * when the model table has no such name (err: "no attribution rows of model
 * M"), -EIO. A model renamed since (wc_model_old_name) is found under its
 * old name when the run has no rows under the new one. Whether a model has
 * rows: wc_store_has_model_rows (which looks under both names too). */
int wc_store_find_model(wc_store *st, const char *model_name, int64_t *model_id,
                        wc_error *err);

/* ---- writes: the recorder's per-run and per-tick rows (store_write.c) ---- */

/* Run metadata written once at the start of a recording. */
typedef struct wc_run_info {
    char host[256], kernel[256], cpu_model[256];
    int sockets, ncpus;
    int64_t interval_ns;
    int64_t started_wall_ns, started_mono_ns;
    char model[32];               /* attribution model used while recording */
    char meter_kind[16];          /* "rapl", "sim" */
    wc_provenance provenance;
    char meter_description[256];
    char sim_params_json[1024];   /* "" unless simulated */
    char procfs_root[256], sysfs_root[256];
    char command_line[512];       /* argv as run (never contains credentials) */
    double ceiling_watts;         /* counter ceiling per zone used while recording (W);
                                     <= 0: not stored (NULL: readers use the default) */
} wc_run_info;

/* Writes the run row. Returns 0 or -EIO with err. */
int wc_store_put_run(wc_store *st, const wc_run_info *info, wc_error *err);

/* Writes the meter's zones; zone i gets id first_zone_id + i (stored in
 * *first_zone_id). Returns 0 or -EIO. */
int wc_store_put_zones(wc_store *st, const wc_meter *m, int64_t *first_zone_id, wc_error *err);

/* Rewrites the path and max_energy_range_uj of every zone row from m (zone
 * i is row first_zone_id + i): a zone that vanished and came back was
 * re-read (m->layout_version changed, cases/B25). Returns 0 or -EIO. */
int wc_store_update_zones(wc_store *st, const wc_meter *m, int64_t first_zone_id, wc_error *err);

/* Inserts one tick (times ns, the aggregate cpu line, process count, scan
 * cost) and returns its id in *tick_id. */
int wc_store_put_tick(wc_store *st, int64_t seq, int64_t mono_ns, int64_t boot_ns,
                      int64_t wall_ns, const wc_cpu_times *cpu, int cpu_ok, size_t nprocs,
                      int64_t scan_ns, int64_t *tick_id, wc_error *err);

/* Inserts the raw readings of every zone (n = meter zones, same order). */
int wc_store_put_zone_samples(wc_store *st, int64_t tick_id, int64_t first_zone_id,
                              const wc_reading *r, size_t n, wc_error *err);

/* Keyframe period of the process samples: a complete tick every this many
 * ticks (store_delta.c); 1 writes every tick complete (the format before
 * version 5's delta ticks; tests compare the two). */
#define WC_STORE_KEYFRAME_TICKS 3600
void wc_store_set_keyframe_every(wc_store *st, int64_t ticks);

/* Caps this connection's SQLite page cache at kib KiB (PRAGMA cache_size;
 * SQLite's default is 2,000 KiB). A recorder only appends: each tick touches
 * the rightmost pages of a few tables, so a small cache writes the same file
 * (issue 15: record's RSS); the index sort at the end of the run uses the
 * larger of this and 250 pages. Returns 0 or -EIO with err naming the file. */
#define WC_STORE_WRITER_CACHE_KIB 256
int wc_store_set_cache_kib(wc_store *st, int kib, wc_error *err);

/* Inserts the processes new in this snapshot (setting their store_id) and
 * their cumulative CPU rows: on a keyframe one per process, else only those
 * whose counters changed (store_delta.c; docs/schema.md); marks gone
 * processes' last tick. */
int wc_store_put_processes(wc_store *st, int64_t tick_id, const wc_proc_snapshot *snap,
                           wc_error *err);

/* Id of a model in the model table (inserted when new). */
int wc_store_model_id(wc_store *st, const char *model_name, int64_t *model_id, wc_error *err);

/* Inserts one attribution step: node rows per zone and workload rows (only
 * rows with a non-zero CPU delta, energy or power, or a flag; a missing row
 * means 0 this tick). proc_ids[i] is the process row id of the tick's i-th
 * attribution input process. The Kepler models' terminated workloads
 * (out->term) become rows flagged WC_AF_TERMINATED (energy 0, their frozen
 * total and last power; a process row found by pid and starttime). */
int wc_store_put_attribution(wc_store *st, int64_t model_id, int64_t tick_id,
                             const wc_attr_out *out, const int64_t *proc_ids,
                             wc_error *err);

/* Deletes every attribution row of a model (before re-attributing). */
int wc_store_clear_model(wc_store *st, int64_t model_id, wc_error *err);

/* Registers a ground-truth source; *source_id receives its id. kind: "ipmi",
 * "redfish", "sim", "file", "import". Returns 0 or -EIO. */
int wc_store_put_truth_source(wc_store *st, const char *spec, const char *kind,
                              wc_provenance provenance, const char *description,
                              int64_t *source_id, wc_error *err);

/* The first source whose spec is spec (store_truth_attach.c): *source_id
 * (0 when none) and how many samples it holds. Returns 0 or -EIO. */
int wc_store_find_truth_source(wc_store *st, const char *spec, int64_t *source_id,
                               int64_t *samples, wc_error *err);

/* Removes one source and its samples, nothing else (inside the caller's
 * transaction; `import --truth-into --replace-truth`). Returns 0 or -EIO. */
int wc_store_delete_truth_source(wc_store *st, int64_t source_id, wc_error *err);

/* Inserts one ground-truth sample (NAN values stored as NULL). Call inside a
 * transaction (wc_store_begin/commit) when writing many. Returns 0 or -EIO. */
int wc_store_put_truth_sample(wc_store *st, int64_t source_id, const wc_truth_sample *t,
                              wc_error *err);

/* Inserts one labelled phase (times ns; end 0 when still open). Returns 0 or -EIO. */
int wc_store_put_phase(wc_store *st, const char *name, const char *phase_class,
                       int64_t start_mono_ns, int64_t end_mono_ns, int64_t start_wall_ns,
                       int64_t end_wall_ns, int repetition, wc_error *err);

/* Row id of the last row this connection inserted (e.g. a phase). */
int64_t wc_store_last_insert_id(wc_store *st);

/* The known answer of one replayed workload: its class and shape, its process
 * group and leaders ("pid:starttime,..."), its TRUE CPU time from wait4
 * rusage of the whole subtree (ns), crashes and failures, and the code path it
 * ran (e.g. the avx variant). Returns 0 or -EIO. */
int wc_store_put_workload(wc_store *st, int64_t phase_id, const char *cls, int workers,
                          int duty_pct, int64_t pgid, const char *leaders, int64_t user_ns,
                          int64_t sys_ns, int crashed, int crash_signal, int failed,
                          const char *variant, wc_error *err);

/* Sets the CPU utilisation (percent of all CPUs) of a tick, for imported runs
 * that have a utilisation column instead of /proc/stat counters. */
int wc_store_set_tick_util(wc_store *st, int64_t tick_id, double util_pct, wc_error *err);

/* ---- reading: the convention of store_read.h and store_results.h --------
 * Small sets come back filled in one call (an array and its count); large
 * ones stream through an iterator: open it with a reader's _open function,
 * call the _next function that reader names until it returns 0 (1 is a row,
 * < 0 an error with err set), then wc_store_iter_close (also after an
 * error). A _next function given an iterator of another reader returns
 * -EINVAL. Text in an iterator's row (const char *) points into the
 * statement: NULL for a NULL column, valid until the next call on that
 * iterator. Every reader returns 0 or a negative errno with err naming the
 * file and what was being read (-EIO, -ENOSPC), -ENOMEM, or -EINVAL for a
 * bad argument. */

/* A stream of rows of one reader. */
typedef struct wc_store_iter wc_store_iter;

/* Finalizes the statement and frees the iterator. Safe on NULL. */
void wc_store_iter_close(wc_store_iter *it);

/* Next row of a text iterator (zone names, container ids, pod uids, a
 * model's zones) into *text (NULL for a NULL value). Returns 1, 0 at the
 * end, or < 0 with err. */
int wc_store_text_next(wc_store_iter *it, const char **text, wc_error *err);

/* Copies a text field of a reader's row (char array) into a caller's field
 * of the same size (checked at compile time; the row's text is always
 * terminated). */
#define WC_STORE_COPY_TEXT(dst, src)                                                           \
    do {                                                                                       \
        _Static_assert(sizeof(dst) == sizeof(src), "text fields of one size");                 \
        memcpy((dst), (src), sizeof(dst));                                                     \
    } while (0)

#endif
