/*
 * recorder.h — the record loop behind `wattcal record`.
 *
 * Each tick, on absolute monotonic deadlines (no drift): read every meter
 * zone, /proc/stat and every process; run the attribution model; write it all
 * in ONE SQLite transaction. Power always divides by monotonic time. A stop
 * request (SIGINT/SIGTERM) lets the current tick finish, then the run is
 * closed cleanly.
 */
#ifndef WC_RECORDER_H
#define WC_RECORDER_H

#include <signal.h>
#include <stdint.h>

#include "collector/exporter/exporter_scrape.h"
#include "collector/model/attribution.h"
#include "collector/meter/meter_sim.h"
#include "collector/truth/truth.h"
#include "common/wc_error.h"

/* Options of one recording (CLI flags of `wattcal record`). */
typedef struct wc_record_opts {
    const char *db_path;
    int64_t interval_ns;         /* > 0 */
    int64_t duration_ns;         /* 0 = until stopped */
    const char *meter;           /* "rapl", "sim", or NULL = detect hardware (no silent fallback) */
    wc_model model;
    const char *procfs_root;     /* "/proc" */
    const char *sysfs_root;      /* "/sys" */
    int quiet;                   /* no progress line */
    wc_sim_params sim;           /* used when meter is "sim" */
    double ceiling_watts;        /* counter plausibility ceiling per zone */
    const char *command_line;    /* stored with the run */
    const char *const *truth_specs; /* --truth SPECs: polled on their own threads, except
                                       file:PATH, imported after the run by wall clock */
    size_t ntruth;
    wc_truth_config truth;       /* timeouts, credentials file, --insecure, --truth-format */
    const char *const *exporter_specs; /* --exporter kepler:URL: scraped on their own threads,
                                          every scrape and sample stored (at most
                                          WC_EXPORTER_MAX) */
    size_t nexporter;
    wc_exporter_config exporter; /* --exporter-interval, -timeout, -token-file, --insecure */
    void (*on_first_tick)(void *ctx); /* called once the run row and first tick are
                                         committed (e.g. to start a scenario); may be NULL */
    void *ctx;
} wc_record_opts;

/* Summary of a finished recording. */
typedef struct wc_record_result {
    int64_t ticks;
    int64_t missed_deadlines;    /* ticks that overran the interval */
    int64_t scan_errors;         /* per-process read failures summed over ticks */
    int64_t meter_errors;        /* zone reads that failed */
    int64_t truth_samples;       /* ground-truth samples written (all statuses) */
    int64_t truth_errors;        /* of which error or unavailable */
    int64_t exporter_ok;         /* exporter scrapes stored ok (or capped) */
    int64_t exporter_failed;     /* exporter scrapes stored as error or parse_error */
    int64_t exporter_dropped;    /* scrapes lost because the sampler fell behind */
} wc_record_result;

/* Fills opts with the defaults (1 s, /proc, /sys, kepler-0.11, sim defaults,
 * exporters scraped every 5 s). */
void wc_record_defaults(wc_record_opts *opts);

/* Records until the duration elapses or *stop becomes non-zero. Returns 0;
 * -ENODEV when no hardware meter was found and meter is NULL/"rapl" (err says
 * what was looked for and that `--meter sim` simulates one); -EACCES for an
 * unreadable energy_uj; -EEXIST for a DB that already holds a run; -EIO/-ENOSPC
 * for a store failure (ticks already committed are kept; a run that fails
 * before its first tick leaves no file when record made it; a failed finish
 * names its step, docs/reliability.md). */
int wc_record(const wc_record_opts *opts, volatile sig_atomic_t *stop, wc_record_result *res,
              wc_error *err);

#endif
