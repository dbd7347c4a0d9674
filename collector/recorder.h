/*
 * recorder.h — the record loop behind `wattcal record`.
 *
 * Each tick, on absolute monotonic deadlines (no drift): read every meter
 * zone, /proc/stat and every process; run the attribution model; write it all
 * in ONE SQLite transaction. Power always divides by monotonic time. A stop
 * request (SIGINT/SIGTERM/SIGHUP) lets the current tick finish, then the run
 * is closed cleanly. On a terminal (unless quiet) one progress line shows the
 * phase, elapsed/total time and ETA, node power and each truth source's
 * readings so far.
 */
#ifndef WC_RECORDER_H
#define WC_RECORDER_H

#include <signal.h>
#include <stdint.h>

#include "collector/exporter/exporter_scrape.h"
#include "collector/meter/meter.h"
#include "collector/model/attribution.h"
#include "collector/model/kepler_config.h"
#include "collector/meter/meter_sim.h"
#include "collector/model/attribution.h"
#include "collector/procfs/proc_scan.h"
#include "collector/truth/truth.h"
#include "collector/truth/truth_poller.h"
#include "common/wc_error.h"

/* What one tick read and attributed, handed to wc_record_opts.on_tick after
 * the tick was committed (or, without a DB, after it was attributed). Every
 * pointer is valid during the call only; nothing may be modified. */
typedef struct wc_record_tick {
    int64_t seq;                 /* tick number, 0.. */
    int64_t mono_ns, wall_ns;    /* when the node was read */
    int64_t dt_ns;               /* monotonic ns since the previous tick; 0 on the first */
    const wc_meter *meter;       /* zones (meter->zones[i] for readings[i]) and provenance */
    const wc_reading *readings;  /* this tick's raw zone readings */
    const wc_reading *prev_readings; /* the previous tick's; NULL on the first */
    double ceiling_watts;        /* the counter plausibility ceiling (wc_counter_delta) */
    const wc_attr_tick_in *in;   /* the model's input: in->procs[i] is snap->samples[i] */
    const wc_attr_out *out;      /* the model's output for this tick */
    const wc_proc_snapshot *snap; /* the processes (comm, cgroup ids) */
    const wc_truth_source *truth; /* polled sources; truth_samples[k].source indexes them */
    size_t ntruth;
    const wc_truth_queued *truth_samples; /* ground-truth samples drained this tick */
    size_t ntruth_samples;
    wc_scrape *const *scrapes;   /* exporter scrapes finished since the previous tick */
    size_t nscrapes;
    const char *const *exporter_specs; /* scrapes[k]->exporter indexes them */
    size_t nexporters;
} wc_record_tick;

/* Options of one recording (CLI flags of `wattcal record`). */
typedef struct wc_record_opts {
    const char *db_path;         /* NULL: nothing stored (serve without --db); file: truth
                                    logs then are refused */
    int64_t interval_ns;         /* > 0 */
    int64_t duration_ns;         /* 0 = until stopped */
    const char *meter;           /* "rapl", "sim", or NULL = detect hardware (no silent fallback) */
    wc_model model;
    const wc_kepler_config *kepler; /* --kepler-config: the deployed exporter's settings (its
                                       terminated trackers); NULL = Kepler's defaults */
    const char *procfs_root;     /* "/proc" */
    const char *sysfs_root;      /* "/sys" */
    int quiet;                   /* no progress line */
    wc_sim_params sim;           /* used when meter is "sim" */
    double ceiling_watts;        /* counter plausibility ceiling per zone, W; <= 0: the meter's
                                    own (the simulated node's model maximum), else
                                    WC_DEFAULT_CEILING_WATTS. The one in force is stored with
                                    the run */
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
    void (*on_tick)(void *ctx, const wc_record_tick *t); /* called after every tick (e.g.
                                         `wattcal serve` publishes it); may be NULL */
    int64_t planned_ns;          /* the length the progress line counts down to (a
                                    scenario's); 0: duration_ns, or none */
    void (*phase_label)(void *ctx, char *buf, size_t cap); /* the phase now running, for
                                    the progress line (called from the recorder's
                                    thread); may be NULL */
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
    int64_t exporter_cancelled;  /* of the error scrapes: cancelled by the run's end, not failed */
    int64_t exporter_dropped;    /* scrapes lost because the sampler fell behind */
    int64_t exporter_samples_dropped; /* samples of stored scrapes never written (queue full) */
    wc_provenance meter_provenance; /* the meter's, once opened (meter.h): SIMULATED for sim */
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
