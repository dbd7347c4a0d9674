/*
 * store_schema.sql.h — the SQL text of the wattcal store schema (version 6),
 * included by collector/store/store.c only. docs/schema.md explains every column.
 */
#ifndef WC_STORE_SCHEMA_SQL_H
#define WC_STORE_SCHEMA_SQL_H

static const char WC_SCHEMA_SQL[] =
    "CREATE TABLE run("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " host TEXT, kernel TEXT, cpu_model TEXT, sockets INTEGER, ncpus INTEGER,"
    " wattcal_version TEXT, model TEXT, interval_ns INTEGER,"
    " meter_kind TEXT, provenance TEXT, meter_description TEXT, sim_params_json TEXT,"
    " procfs_root TEXT, sysfs_root TEXT, command_line TEXT,"
    " started_wall_ns INTEGER, started_mono_ns INTEGER,"
    " ended_wall_ns INTEGER, ended_mono_ns INTEGER, ticks INTEGER, clean_stop INTEGER);"
    "CREATE TABLE zone("
    " id INTEGER PRIMARY KEY, meter_kind TEXT, name TEXT, socket INTEGER, zone_index INTEGER,"
    " raw_name TEXT, path TEXT, parent_id INTEGER, enabled INTEGER,"
    " max_energy_range_uj INTEGER, kind TEXT, provenance TEXT);"
    "CREATE TABLE tick("
    " id INTEGER PRIMARY KEY, seq INTEGER, mono_ns INTEGER, boot_ns INTEGER, wall_ns INTEGER,"
    " cpu_user INTEGER, cpu_nice INTEGER, cpu_system INTEGER, cpu_idle INTEGER,"
    " cpu_iowait INTEGER, cpu_irq INTEGER, cpu_softirq INTEGER, cpu_steal INTEGER,"
    " cpu_guest INTEGER, cpu_guest_nice INTEGER, cpu_ok INTEGER, nprocs INTEGER, scan_ns INTEGER,"
    " util_pct REAL, proc_delta INTEGER);"
    "CREATE TABLE zone_sample("
    " tick_id INTEGER, zone_id INTEGER, value INTEGER, status INTEGER);"
    "CREATE TABLE process("
    " id INTEGER PRIMARY KEY, pid INTEGER, starttime INTEGER, ppid INTEGER,"
    " comm TEXT, exe TEXT, cgroup_path TEXT, container_id TEXT, runtime TEXT,"
    " pod_uid TEXT, qos TEXT, runtime_monitor INTEGER,"
    " first_tick_id INTEGER, last_tick_id INTEGER, pgid INTEGER);"
    "CREATE TABLE proc_sample("
    " tick_id INTEGER, process_id INTEGER, utime INTEGER, stime INTEGER, num_threads INTEGER);"
    "CREATE TABLE container("
    " container_id TEXT PRIMARY KEY, runtime TEXT, pod_uid TEXT, first_tick_id INTEGER);"
    "CREATE TABLE pod("
    " pod_uid TEXT PRIMARY KEY, qos TEXT, first_tick_id INTEGER);"
    "CREATE TABLE model(id INTEGER PRIMARY KEY, name TEXT UNIQUE);"
    "CREATE TABLE node_attr("
    " model_id INTEGER, tick_id INTEGER, zone TEXT, delta_uj INTEGER, active_uj INTEGER,"
    " idle_uj INTEGER, power_uw REAL, active_uw REAL, idle_uw REAL, ratio REAL,"
    " interval_s REAL, active_total_uj INTEGER, idle_total_uj INTEGER,"
    " cpu_delta_sum_s REAL, node_busy_s REAL, flags INTEGER);"
    "CREATE TABLE work_attr("
    " model_id INTEGER, tick_id INTEGER, level INTEGER, process_id INTEGER, key TEXT,"
    " zone TEXT, cpu_delta_s REAL, energy_uj INTEGER, total_uj INTEGER, power_uw REAL,"
    " flags INTEGER);"
    "CREATE TABLE truth_source("
    " id INTEGER PRIMARY KEY, spec TEXT, kind TEXT, provenance TEXT, description TEXT);"
    "CREATE TABLE truth_sample("
    " source_id INTEGER, poll_mono_ns INTEGER, poll_wall_ns INTEGER, device_ts_ns INTEGER,"
    " watts REAL, min_watts REAL, max_watts REAL, avg_watts REAL, window_s REAL,"
    " window_known INTEGER, stats_window_s REAL, path TEXT, status TEXT, error TEXT);"
    "CREATE TABLE phase("
    " id INTEGER PRIMARY KEY, name TEXT, class TEXT, start_mono_ns INTEGER, end_mono_ns INTEGER,"
    " start_wall_ns INTEGER, end_wall_ns INTEGER, repetition INTEGER);"
    "CREATE TABLE workload("
    " id INTEGER PRIMARY KEY, phase_id INTEGER, class TEXT, workers INTEGER, duty_pct INTEGER,"
    " pgid INTEGER, leaders TEXT, true_user_ns INTEGER, true_sys_ns INTEGER, crashed INTEGER,"
    " crash_signal INTEGER, failed INTEGER, variant TEXT);";

/* Version 5, issue 14 (field reports), run after WC_SCHEMA_SQL in a new run:
 * the counter ceiling the run was recorded with (record --ceiling-watts;
 * validate, calibrate and attribute use it) and the die layout of a per-die
 * package zone (AMD package-N-die-M: mirrored copies of one counter are one
 * zone, distinct dies stay zones of their socket). A separate hunk on
 * purpose: other version-5 additions sit beside it. Runs of version 3 and 4
 * lack these columns: readers check for them (wc_store_has_column). */
static const char WC_FIELD_REPORT_SQL[] =
    "ALTER TABLE run ADD COLUMN ceiling_watts REAL;"
    "ALTER TABLE zone ADD COLUMN die_count INTEGER;"
    "ALTER TABLE zone ADD COLUMN die_mirrored INTEGER;";

/* Version 5, issue 14 (the VM level), run after WC_SCHEMA_SQL in a new run:
 * the VM identity of a hypervisor process, read from its cmdline at birth
 * (collector/procfs/cmdline.h): Kepler's vm_id and vm_name labels, the
 * hypervisor label, and vm_since, the first Kepler release that sees it
 * ("v0.10.0", "v0.11.0", "v0.11.4", "main"; "" for any other process).
 * Older runs lack them (added on upgrade): replay takes them as no VM. */
static const char WC_VM_SQL[] =
    "ALTER TABLE process ADD COLUMN vm_id TEXT;"
    "ALTER TABLE process ADD COLUMN vm_name TEXT;"
    "ALTER TABLE process ADD COLUMN hypervisor TEXT;"
    "ALTER TABLE process ADD COLUMN vm_since TEXT;";

/* Version 4 adds the calibration tables (written by `wattcal calibrate`); a
 * version-3 or 4 run gets them (with the exporter tables below), and version
 * 5, the first time it is calibrated. */
static const char WC_CALIBRATION_SQL[] =
    "CREATE TABLE IF NOT EXISTS calibration("
    " id INTEGER PRIMARY KEY, created_wall_ns INTEGER, kind TEXT, target TEXT, input TEXT,"
    " window_s REAL, lag_s REAL, n INTEGER, dof INTEGER, c0 REAL, c0_se REAL, c1 REAL,"
    " c1_se REAL, cov01 REAL, c0_lo REAL, c0_hi REAL, c1_lo REAL, c1_hi REAL, r2 REAL,"
    " rmse REAL, fitted_on TEXT, provenance TEXT, note TEXT, fitted_run TEXT);"
    "CREATE TABLE IF NOT EXISTS calibration_residual("
    " calibration_id INTEGER, start_mono_ns INTEGER, end_mono_ns INTEGER, x REAL, y REAL,"
    " fitted REAL, residual REAL, weight REAL);";

/* Version 5 adds the exporter's own numbers (store_exporter.c): which
 * exporter, every scrape (or Prometheus evaluation instant), every series as
 * reported with its Kepler meaning, every sample. A version-3 or 4 run gets
 * the (empty) tables with the calibration tables, so a file that says
 * version 5 always has them; readers of an older run find no exporter. */
static const char WC_EXPORTER_SQL[] =
    "CREATE TABLE IF NOT EXISTS exporter("
    " id INTEGER PRIMARY KEY, spec TEXT, kind TEXT, origin TEXT, node TEXT, version TEXT,"
    " revision TEXT, layout TEXT, power_source TEXT, provenance TEXT, description TEXT);"
    "CREATE TABLE IF NOT EXISTS exporter_scrape("
    " id INTEGER PRIMARY KEY, exporter_id INTEGER, req_mono_ns INTEGER, req_wall_ns INTEGER,"
    " resp_mono_ns INTEGER, resp_wall_ns INTEGER, http_status INTEGER, duration_ns INTEGER,"
    " bytes INTEGER, samples INTEGER, status TEXT, error TEXT);"
    "CREATE TABLE IF NOT EXISTS exporter_series("
    " id INTEGER PRIMARY KEY, exporter_id INTEGER, metric TEXT, labels TEXT, level TEXT,"
    " quantity TEXT, device TEXT, zone TEXT, key TEXT, parent TEXT, name TEXT, namespace TEXT,"
    " comm TEXT, state TEXT, path TEXT, meter TEXT, UNIQUE(exporter_id, metric, labels));"
    "CREATE TABLE IF NOT EXISTS exporter_sample("
    " scrape_id INTEGER, series_id INTEGER, value REAL, ts_ms INTEGER);"
    "CREATE TABLE IF NOT EXISTS pod_identity("
    " pod_uid TEXT PRIMARY KEY, name TEXT, namespace TEXT, source TEXT);";

/* Also version 5: the CPU the kernel accounts to each pod and container
 * cgroup (store_cgroup_cpu.c), read by the recorder every tick beside the
 * energy. Created with the exporter tables; a version-5 run made before them
 * has none, and readers find no cgroup accounting. */
static const char WC_CGROUP_CPU_SQL[] =
    "CREATE TABLE IF NOT EXISTS cgroup("
    " id INTEGER PRIMARY KEY, level TEXT, key TEXT, path TEXT, accounting TEXT);"
    "CREATE TABLE IF NOT EXISTS cgroup_cpu("
    " tick_id INTEGER, cgroup_id INTEGER, usage_ns INTEGER, status INTEGER);";

static const char WC_CGROUP_CPU_INDEX_SQL[] =
    "CREATE INDEX IF NOT EXISTS cgroup_cpu_cgroup ON cgroup_cpu(cgroup_id, tick_id);";

/* The exporter tables' read-side indexes, built at the end like the others
 * (only where the tables exist: wc_store_ensure_indexes also runs on older
 * runs). */
static const char WC_EXPORTER_INDEX_SQL[] =
    "CREATE INDEX IF NOT EXISTS exporter_sample_series ON exporter_sample(series_id, scrape_id);"
    "CREATE INDEX IF NOT EXISTS exporter_scrape_exporter ON exporter_scrape(exporter_id,"
    " resp_mono_ns);";

/* Indexes built when a run finishes (or by readers on a run killed early):
 * keeping them out of the recording path keeps ingest fast. proc_sample has
 * no tick index (replay reads it in rowid order; older runs keep theirs). */
static const char WC_INDEX_SQL[] =
    "CREATE INDEX IF NOT EXISTS zone_sample_tick ON zone_sample(tick_id);"
    "CREATE INDEX IF NOT EXISTS node_attr_model ON node_attr(model_id, tick_id);"
    "CREATE INDEX IF NOT EXISTS truth_sample_source ON truth_sample(source_id, poll_mono_ns);";

/* The one reader of proc_sample by process (the workload coverage table:
 * each process's largest utime + stime, store_phases.c) takes, on a run
 * that has ended, a summary built once from every sample: one row per
 * process instead of an index entry per sample (40 MiB on the 24 h bench
 * run). A run not ended (still recording, or killed) gets the index, which
 * stays right while ticks are added; runs of earlier releases keep theirs. */
/* Triggers keep it honest after any later write to proc_sample (a test's or
 * a user's SQL), at a constant cost per row: an insert raises its process's
 * value; a delete of a process's largest sample, an update of process_id,
 * utime or stime, or an insert over an existing rowid (a REPLACE), marks
 * the summary stale (the one row of
 * process_cpu_stale). A stale summary is not read: readers take the samples
 * themselves until a command that can write rebuilds it, once
 * (wc_store_ensure_indexes). Only integer process ids count: a text or
 * real one matches no process, as in the join it stands for. */
#define PROCESS_CPU_STALE " INSERT OR IGNORE INTO process_cpu_stale(id) VALUES (1); END;"
#define PROCESS_CPU_FILL                                                                       \
    "INSERT INTO process_cpu(process_id, cpu_ticks_max) SELECT process_id,"                   \
    " MAX(utime + stime) FROM proc_sample WHERE typeof(process_id) = 'integer'"               \
    " GROUP BY process_id HAVING MAX(utime + stime) IS NOT NULL;"
static const char WC_PROCESS_CPU_SQL[] =
    "CREATE TABLE process_cpu(process_id INTEGER PRIMARY KEY,"
    " cpu_ticks_max INTEGER NOT NULL);"
    "CREATE TABLE process_cpu_stale(id INTEGER PRIMARY KEY);"
    PROCESS_CPU_FILL
    "CREATE TRIGGER process_cpu_insert AFTER INSERT ON proc_sample"
    " WHEN typeof(NEW.process_id) = 'integer' AND NEW.utime + NEW.stime IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM process_cpu_stale) BEGIN"
    " INSERT INTO process_cpu(process_id, cpu_ticks_max)"
    " VALUES (NEW.process_id, NEW.utime + NEW.stime) ON CONFLICT(process_id) DO UPDATE"
    " SET cpu_ticks_max = MAX(cpu_ticks_max, excluded.cpu_ticks_max); END;"
    "CREATE TRIGGER process_cpu_delete AFTER DELETE ON proc_sample"
    " WHEN OLD.utime + OLD.stime >= (SELECT cpu_ticks_max FROM process_cpu"
    " WHERE process_id = OLD.process_id) BEGIN" PROCESS_CPU_STALE
    "CREATE TRIGGER process_cpu_update AFTER UPDATE OF process_id, utime, stime ON proc_sample"
    " BEGIN" PROCESS_CPU_STALE
    /* INSERT OR REPLACE over an existing rowid deletes that row without a
     * delete trigger (recursive_triggers is off by default): stale too */
    "CREATE TRIGGER process_cpu_replace BEFORE INSERT ON proc_sample"
    " WHEN NEW.rowid >= 0 AND EXISTS (SELECT 1 FROM proc_sample WHERE rowid = NEW.rowid)"
    " BEGIN" PROCESS_CPU_STALE;
/* A stale summary rebuilt (one pass over the samples). */
static const char WC_PROCESS_CPU_REBUILD_SQL[] =
    "BEGIN; DELETE FROM process_cpu;" PROCESS_CPU_FILL "DELETE FROM process_cpu_stale; COMMIT;";
static const char WC_PROC_SAMPLE_INDEX_SQL[] =
    "CREATE INDEX IF NOT EXISTS proc_sample_process ON proc_sample(process_id);";

/* Version 6 (issue 15, the compact workload rows of store_work_energy.c),
 * run after WC_SCHEMA_SQL in a new run: the run's attribution zones (slot
 * order) and the interned container ids, pod uids and VM ids. Their presence
 * marks a run whose first attribution write replaces the empty work_attr
 * table by work_energy and a view; older runs (upgraded to 6 on a write-open)
 * never get them and keep their table. */
static const char WC_COMPACT_ATTR_SQL[] =
    "CREATE TABLE attr_zone(slot INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    "CREATE TABLE work_key(id INTEGER PRIMARY KEY, level INTEGER NOT NULL, key TEXT NOT NULL,"
    " UNIQUE(level, key));";

/* The work_attr table's index, only where work_attr is a table (a compact
 * run's work_energy is its own index). */
static const char WC_WORK_ATTR_INDEX_SQL[] =
    "CREATE INDEX IF NOT EXISTS work_attr_model ON work_attr(model_id, level, tick_id);";

/* ... and in a compact run, the empty table its first write renamed away. */
static const char WC_COMPACT_TIDY_SQL[] = "DROP TABLE IF EXISTS work_attr_empty;";

#endif
