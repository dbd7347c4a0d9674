/*
 * test_rundb.h — builds synthetic run databases for the validator's tests
 * through the store API: ticks with chosen clocks, counter and gauge zones
 * fed with chosen powers, ground-truth samples, phases. Runs built here are
 * tagged simulated; every figure they give is a known answer.
 */
#ifndef WC_TEST_RUNDB_H
#define WC_TEST_RUNDB_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"

#define TR_MAX_ZONES 8

/* A run under construction. */
typedef struct trun {
    wc_store *st;
    size_t nzones;
    wc_zone zones[TR_MAX_ZONES];
    int64_t first_zone_id;
    double cum_uj[TR_MAX_ZONES];   /* counters, µJ */
    int64_t seq, last_tick_id;
    int64_t last_mono_ns;
    wc_cpu_times cpu;              /* cumulative /proc/stat fields */
} trun;

/* One zone: name, socket, kind. */
typedef struct trun_zone {
    const char *name;
    int socket;
    wc_reading_kind kind;
} trun_zone;

/* Creates a run at path (must not exist) with the zones given. */
void trun_create(trun *t, const char *path, const trun_zone *zones, size_t nzones);

/* Adds a tick at mono_ns (boot_ns, wall_ns as given). watts[z]: the power of
 * zone z over the interval since the previous tick (counters accumulate it;
 * gauges store it); busy_frac: CPU utilisation over that interval (0..1,
 * < 0 = /proc/stat unreadable). Returns the tick id. */
int64_t trun_tick(trun *t, int64_t mono_ns, int64_t boot_ns, int64_t wall_ns, const double *watts,
                  double busy_frac);

/* Adds a ground-truth source; returns its id. */
int64_t trun_truth_source(trun *t, const char *spec, const char *kind, wc_provenance prov);

/* Adds one ground-truth sample (status "ok", "stale", "unavailable", "error"). */
void trun_truth(trun *t, int64_t source_id, int64_t poll_mono_ns, double watts, double window_s,
                int window_known, int64_t device_ts_ns, const char *status);

/* Adds a phase (monotonic bounds). Returns its id. */
int64_t trun_phase(trun *t, const char *name, const char *cls, int64_t start_ns, int64_t end_ns,
                   int repetition);

/* Finishes the run (clean stop) and closes the store. */
void trun_finish(trun *t);

/* Runs one SQL statement on an open (read-write) sqlite3 file; fails the test on error. */
void trun_exec(const char *path, const char *sql);

#endif
