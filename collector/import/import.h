/*
 * import.h — brings a run recorded by another tool into a NEW wattcal run
 * database, so `wattcal validate` and reports work on it (`wattcal import`).
 *
 * Two sources:
 *
 *  - a generic CSV, one row per sample instant, whose columns are mapped by
 *    options: a time column; cumulative energy counters and per-row energies
 *    (zones of kind counter_uj), power columns (zones of kind gauge_uw), wall
 *    power ground truth (a truth source), the node's CPU utilisation (tick
 *    util_pct) and a phase label (contiguous rows with one label = one phase).
 *    At least one counter, energy or power column is required (a run without
 *    zones cannot be replayed); a column may be mapped once, a zone (name and
 *    socket) fed by one counter/energy column and one power column at most, and
 *    the header may not name two columns alike;
 *
 *  - a Green Metrics Tool (GMT) measurement folder: the RAPL component log
 *    (cpu_energy_rapl_msr_component.log, "<unix_us> <µJ in the interval>
 *    <Package_N|DRAM_N|PSYS_N>": accumulated into one counter zone per detail
 *    name; required, it is the run's energy series), the MCP39F511 AC log
 *    (psu_energy_ac_mcp_machine.log, "<unix_us> <power>": ground truth), the
 *    system utilisation (cpu_utilization_procfs_system.log,
 *    "<unix_us> <ratio x 10000>") and phases.json. Every log line has exactly
 *    its fields and ends in a newline: a last line without one (the logger was
 *    still writing, or the copy was cut) is refused.
 *
 * What lands in the DB: run.meter_kind "import", run.provenance as given
 * (default "measured"), run.host from --host or the data, else "imported";
 * one tick per sample instant with wall_ns from the data and mono_ns =
 * wall_ns − origin, where origin = the earliest time of anything imported
 * (ticks, truth samples, phases; run.started_wall_ns, started_mono_ns 0);
 * tick.cpu_ok 0 (no /proc/stat), no process rows, empty attribution tables.
 * zone_sample.status: 0, -ENODATA (empty cell / no value at that instant) or
 * -ERANGE (a GMT interval refused as implausible: resolution underflow <= 1 µJ
 * or above the ceiling; it is left out of the counter, so a refused interval is
 * never a negative step nor a spike). Truth samples: poll_wall_ns =
 * device_ts_ns = the sample time, poll_mono_ns on the ticks' clock, empty,
 * 0 W or exactly 65535 W (a BMC's "no reading" marker) cells unavailable
 * (never 0 W); a reading above 100 kW is refused as an implausible wall
 * power (FILE:LINE:COLUMN). Phases: name, class ("csv"; GMT:
 * "gmt" for its [BRACKETED] flow phases, "runtime" for user phases, "hidden"
 * for hidden ones), repetition = 1 + earlier phases of that name. A CSV phase
 * of rows i..j spans (t[i-1], t[j]] — a row's values describe the interval
 * since the previous row — so a phase of the first row alone spans nothing
 * and, like a GMT phase without duration, is not stored (a note says so).
 * CSV rows must be in strictly increasing time order, at or after 2000-01-01.
 *
 * Everything is parsed and checked before the DB is created: a bad file
 * leaves no DB behind. Errors name FILE:LINE:COLUMN; cells they quote show
 * control characters as '?'.
 *
 * A third source, a Prometheus server (import_prom.c, through the API
 * client collector/prom/promapi.h), brings the deployed exporter's OWN
 * numbers for one node and ground truth given as PromQL:
 *
 *  - which series are the node's: every kepler_* series whose node_name
 *    label (Kepler >= 0.10) is the node; the targets (job, instance) that
 *    export them, or whose legacy (<= 0.9) node series carry the node in
 *    exported_instance (instance in the exposition, renamed by Prometheus)
 *    or whose instance label is the node (a relabelled scrape); then every
 *    kepler_* series of those targets WITHOUT node_name (kepler_build_info,
 *    kepler_node_cpu_info, the legacy process/container/vm series), less
 *    those whose exported_instance names another node. Found with
 *    /api/v1/series over the range, pulled with /api/v1/query_range on the
 *    grid of the multiples of step (since the epoch) from start to end, as
 *    VictoriaMetrics and Thanos align range queries (at least 2 instants),
 *    in chunks of at most 11,000 instants and a bounded number of samples
 *    per request;
 *  - what lands: run.meter_kind "prometheus", run.host the node, run.provenance
 *    measured / simulated / estimated for the exporter's power source
 *    measured / a replay or not measured / unknown, run.meter_description
 *    where the numbers came from; one tick per evaluation instant (wall_ns
 *    the instant, mono_ns = instant - start, cpu_ok 0), no zones, no
 *    processes; one exporter row (kind "kepler", origin "prometheus", spec
 *    "prometheus:URL node=NODE", version and revision from kepler_build_info,
 *    layout, power source from the node series' path labels, provenance
 *    "exporter kepler VERSION (POWER SOURCE)", or "replay" for a replay); one
 *    exporter_scrape row per instant (request = response = the instant,
 *    http_status NULL, samples = how many series had a value then; status
 *    "ok", or "error" with 0 samples: no value in Prometheus at that instant);
 *    one exporter_series row per series (labels = every label Prometheus
 *    returned but __name__, so job and instance too, in canonical text) and
 *    one exporter_sample per value (ts_ms NULL); per --truth-query one truth
 *    source (kind "prometheus", spec = the query) whose samples are its
 *    values at the instants (NaN: unavailable). A truth query must return
 *    ONE series over the whole range (wrap several in sum() or max()).
 *  - everything is written in one transaction after every chunk was pulled;
 *    any error (HTTP, timeout, refused credentials, an empty result, a node
 *    with no series) removes the new DB: nothing half-written.
 */
#ifndef WC_IMPORT_H
#define WC_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "collector/meter/meter.h"
#include "collector/prom/promapi.h"
#include "common/wc_error.h"

#define WC_IMPORT_MAX_COLS 32

/* What a mapped CSV column holds. */
typedef enum wc_import_col_kind {
    WC_IMPORT_COUNTER = 0, /* cumulative energy counter (µJ after scaling) -> counter_uj zone */
    WC_IMPORT_ENERGY,      /* energy used since the previous row -> accumulated counter_uj zone */
    WC_IMPORT_POWER,       /* power (µW after scaling) -> gauge_uw zone */
    WC_IMPORT_TRUTH        /* wall power ground truth (W after scaling) -> truth source */
} wc_import_col_kind;

/* One mapped CSV column. */
typedef struct wc_import_col {
    wc_import_col_kind kind;
    char column[128];      /* header name, exact (case-sensitive) */
    char zone[32];         /* zone name (package, core, uncore, dram, psys, ...); "" for truth */
    int socket;            /* from a "-N" suffix of the zone ("package-1"); 0, -1 for psys */
    char unit[8];          /* as given, lower case */
    double scale;          /* cell x scale = µJ (counter, energy), µW (power), W (truth) */
} wc_import_col;

/* Parses a column mapping. kind COUNTER/ENERGY: "NAME:ZONE:UNIT", UNIT
 * uj|mj|j|wh|kwh; POWER: "NAME:ZONE:UNIT", UNIT uw|mw|w|kw; TRUTH:
 * "NAME:UNIT", UNIT uw|mw|w|kw. NAME may itself contain ':' (split from the
 * right). Returns 0 or -EINVAL with err saying which part is wrong. */
int wc_import_parse_col(const char *arg, wc_import_col_kind kind, wc_import_col *out,
                        wc_error *err);

/* The generic CSV mapping. */
typedef struct wc_import_csv_opts {
    const char *path;
    char delimiter;                 /* ',' default; ';' or '\t' */
    const char *time_col;           /* required */
    int64_t time_unit_ns;           /* epoch in s (1e9), ms (1e6), us (1e3), ns (1); 0 = ISO 8601 */
    int time_monotonic;             /* 1: the time column is a monotonic clock in time_unit_ns
                                       (CLOCK_MONOTONIC, uptime: any origin, no date): not refused
                                       as "before 2000"; the run has no wall clock, its wall
                                       times are those values (issue 14 item 9). Not with ISO */
    const int *iso_offset_s;        /* zone for ISO times written without one; NULL: refuse them */
    wc_import_col cols[WC_IMPORT_MAX_COLS];
    size_t ncols;
    const char *util_col;           /* node CPU utilisation, NULL none */
    double util_scale;              /* cell x util_scale = percent: 1 (percent) or 100 (ratio) */
    const char *phase_col;          /* phase label, NULL none */
    const char *host_col;           /* host name from the first row, NULL none */
    const char *cpu_model_col;      /* CPU model from the first row, NULL none */
} wc_import_csv_opts;

/* Scale of the GMT MCP39F511 AC log's value column (no unit in the file). */
typedef enum wc_gmt_psu_unit {
    WC_GMT_PSU_AUTO = 0, /* decide from the magnitudes; refuse when both are plausible */
    WC_GMT_PSU_UW,       /* microwatts: GMT since 2026-04 ("high resolution" MCP output) */
    WC_GMT_PSU_CW        /* centiwatts (10 mW steps): GMT before 2026-04 */
} wc_gmt_psu_unit;

#define WC_GMT_DEFAULT_CEILING_WATTS 1000.0

/* A GMT measurement folder. Each *_path: NULL = DIR/<standard name> when it
 * exists, "" = do not import that series, else that file. */
typedef struct wc_import_gmt_opts {
    const char *dir;
    const char *rapl_path;    /* cpu_energy_rapl_msr_component.log */
    const char *psu_path;     /* psu_energy_ac_mcp_machine.log */
    const char *util_path;    /* cpu_utilization_procfs_system.log */
    const char *phases_path;  /* phases.json */
    wc_gmt_psu_unit psu_unit;
    double ceiling_watts;     /* per RAPL zone interval; <= 0: WC_GMT_DEFAULT_CEILING_WATTS */
} wc_import_gmt_opts;

/* Settings of the new run. */
typedef struct wc_import_target {
    const char *db_path;       /* must not exist yet, or be empty (WC_STORE_CREATE); NULL:
                                  parse and check only, fill the summary, write nothing */
    const char *host;          /* NULL: from the data, else "imported" */
    wc_provenance provenance;  /* of the zones: measured (default), estimated, simulated */
    const char *command_line;  /* stored in run.command_line */
} wc_import_target;

/* What an import wrote, for the command's report. */
typedef struct wc_import_summary {
    int64_t ticks, zones, truth_sources, truth_samples, truth_unavailable, phases, util_ticks;
    int64_t rejected_samples;          /* zone samples stored with status -ERANGE */
    int64_t missing_samples;           /* zone samples stored with status -ENODATA */
    int64_t first_wall_ns, last_wall_ns;  /* a monotonic time column's values when monotonic */
    int monotonic;                     /* the time column was a monotonic clock: no wall clock */
    int64_t interval_ns;               /* median tick spacing */
    char notes[2048];                  /* decisions taken (units inferred, samples refused), one per line */
    /* --prometheus only: the exporter's series and samples, instants without
     * a sample, requests sent and answer bytes; its version and provenance */
    int64_t exporter_series, exporter_samples, empty_instants, requests, bytes;
    char exporter[160];
} wc_import_summary;

/* Imports a generic CSV into a new run. Returns 0; -EINVAL for a bad mapping
 * (no counter/energy/power column, a column or zone mapped twice), an empty
 * file or a malformed row (err "FILE:LINE:COLUMN: ..."); -ENODATA when fewer
 * than 2 rows (no interval to measure); -EIO when the DB cannot be created or
 * written (err says why, e.g. the file already holds a run). */
int wc_import_csv(const wc_import_csv_opts *o, const wc_import_target *t,
                  wc_import_summary *sum, wc_error *err);

#define WC_IMPORT_MAX_TRUTH_QUERIES 8
/* Default samples per range request (bounds the memory of one answer). */
#define WC_IMPORT_PROM_MAX_SAMPLES 200000

/* One node's exporter series and ground truth from a Prometheus server. */
typedef struct wc_import_prom_opts {
    wc_prom_config prom;          /* server, credentials, TLS, timeouts */
    const char *node;             /* node_name (v0.10+), instance / exported_instance (legacy) */
    int64_t start_ms, end_ms;     /* first and last evaluation instant (ms since the epoch) */
    int64_t step_ms;              /* between instants, >= 1 ms */
    const char *truth_queries[WC_IMPORT_MAX_TRUTH_QUERIES]; /* PromQL, watts; each one series */
    size_t ntruth;
    size_t max_samples;           /* samples per request; 0: WC_IMPORT_PROM_MAX_SAMPLES */
} wc_import_prom_opts;

/* Imports a node's exporter series and truth queries into a new run (see
 * the top of this file). Returns 0; -EINVAL for bad options or an answer
 * the import cannot use (a truth query of several series, labels too long);
 * -ENODATA for fewer than 2 instants or a query without a sample in the
 * range (err names the query); -ENOENT for a node without series (err names
 * the queries and the nodes there);
 * the client's errors (promapi.h: -EACCES, -ETIMEDOUT, -EIO, -EPROTO, ...)
 * with err naming the request; -EIO from the DB. Nothing is left on error. */
int wc_import_prometheus(const wc_import_prom_opts *o, const wc_import_target *t,
                         wc_import_summary *sum, wc_error *err);

/* Imports a GMT folder into a new run. Returns 0; -EINVAL for a malformed or
 * truncated log or an undeclared ambiguous PSU scale (err names both
 * plausible readings and --gmt-psu-unit); -ENOENT when there is no RAPL log;
 * -ENODATA when the tick series has fewer than 2 instants; -EIO from the DB as
 * for wc_import_csv. */
int wc_import_gmt(const wc_import_gmt_opts *o, const wc_import_target *t,
                  wc_import_summary *sum, wc_error *err);

/* A wall-meter log attached to an EXISTING run (import_truth.c). */
typedef struct wc_truth_attach_opts {
    const char *db_path;   /* the run (written by record, run or import) */
    const char *spec;      /* "file:PATH": stored as the source's spec */
    const char *format;    /* --truth-format: csv (NULL/""), csv:OFFSET, ptd:OFFSET */
    int replace;           /* --replace-truth: replace a source of the same spec */
} wc_truth_attach_opts;

typedef struct wc_truth_attach_result {
    int64_t samples, unavailable;
    int replaced;          /* a source of the same spec was removed first */
} wc_truth_attach_result;

/* Parses the log whole (truth_file.h rules), aligns it on the run's clock by
 * wall time (as record does after a run) and writes one new truth_source
 * (kind "file") with its samples in one transaction; no other row of the run
 * is written. A source of the same spec holding samples is refused (-EEXIST)
 * unless replace; one holding none (record's "NOT imported" row) is replaced.
 * Returns 0; -EINVAL for a spec other than file:PATH, a malformed log (err
 * "FILE:LINE:COLUMN: ...") or readings outside the run's time span; -ENODATA
 * for a log without a reading; -EIO for the DB (err says why). */
int wc_import_truth_into(const wc_truth_attach_opts *o, wc_truth_attach_result *res,
                         wc_error *err);

#endif
