/*
 * exporter_data.h — one exporter's own numbers of a run, in memory, as the
 * validator's exporter analyses read them (exporter_node.c, exporter_check.c,
 * exporter_ref.c, exporter_diff.c): its row, its scrapes in time order, and
 * every series with its samples placed at their scrape's response time
 * (monotonic ns; an import: the evaluation instant).
 *
 * Counters are read as deltas only (docs/kepler-model.md §11, issue 11):
 *  - a RESTART: the scrape at which any node active or idle counter of the
 *    exporter falls (Kepler accumulates them itself: they never wrap). Every
 *    counter's delta into that scrape is a RESET (no energy known for that
 *    interval), never a wrap;
 *  - a WRAP: the raw node counter (kepler_node_cpu_joules_total) falling at
 *    any other scrape (the RAPL counter wrapped at its range; the range is
 *    not exported, so the caller takes Δactive + Δidle of the zone there);
 *  - a DECREASE: any other counter falling outside a restart (not Kepler's
 *    behaviour: counted as an invariant violation, no delta).
 * Reads through collector/store/store_exporter.h only.
 */
#ifndef WC_EXPORTER_DATA_H
#define WC_EXPORTER_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "collector/store/store_exporter.h"
#include "common/wc_error.h"

/* One series with its samples, in time order. */
typedef struct wc_xp_series {
    wc_exporter_series_row row;  /* metric, labels and Kepler's meaning (level, quantity, ...) */
    size_t n;
    int64_t *t_ns;               /* the scrape's response time, monotonic ns */
    size_t *scrape;              /* index into wc_xp_data.scrapes */
    double *v;                   /* as reported (NAN: stored NULL) */
} wc_xp_series;

/* One exporter of a run. */
typedef struct wc_xp_data {
    wc_exporter_info info;
    wc_scrape_meta *scrapes;     /* every scrape, time order */
    size_t nscrapes;
    unsigned char *restart;      /* restart[k]: scrape k follows an exporter restart */
    size_t nrestarts;
    wc_xp_series *series;
    size_t nseries;
} wc_xp_data;

/* Kind of one delta (wc_xp_delta). */
typedef enum wc_xp_dkind {
    WC_XP_D_OK = 0, WC_XP_D_WRAP, WC_XP_D_RESET, WC_XP_D_DECREASE, WC_XP_D_MISSING
} wc_xp_dkind;

/* Loads exporter `info` (a row of wc_store_exporters) with its scrapes,
 * series and samples, and marks the restarts. Returns 0, -EIO/-ENOMEM with
 * err. */
int wc_xp_load(wc_store *st, const wc_exporter_info *info, wc_xp_data *d, wc_error *err);

void wc_xp_free(wc_xp_data *d);

/* The delta of a counter series from its sample i − 1 to sample i (i >= 1,
 * consecutive samples of the series, whatever scrapes failed between): the
 * value (J) for WC_XP_D_OK, NAN otherwise; *kind says why (MISSING: a
 * non-finite value at either end). */
double wc_xp_delta(const wc_xp_data *d, const wc_xp_series *s, size_t i, wc_xp_dkind *kind);

/* Whether s is Kepler's (level, quantity[, zone]) ("node", "joules", "package");
 * zone NULL: any. */
int wc_xp_is(const wc_xp_series *s, const char *level, const char *quantity, const char *zone);

/* The series index of the sample of s at scrape k, or -1 (binary search). */
long wc_xp_at(const wc_xp_series *s, size_t k);

/* The same over any rising scrape-index array of n (a track's): the index
 * holding scrape k, or -1. */
long wc_xp_index_of(const size_t *scrape, size_t n, size_t k);

/* A workload's energy counter in one zone across its states: Kepler exports
 * a process, container or pod as one series while running and another
 * (state="terminated") once it ended; a track merges them by scrape. */
typedef struct wc_xp_track {
    const wc_xp_series *s;       /* its first series (names, labels) */
    size_t n;
    size_t *scrape;              /* scrape indexes, rising */
    double *v;                   /* J as reported */
    unsigned char *terminated;   /* the sample came from a terminated series */
} wc_xp_track;

/* The tracks of a level's ("pod", "container", "process") CPU joules
 * counters, by (key, zone); processes by (pid, comm, zone) (malloc'd;
 * wc_xp_tracks_free). Returns 0 or -ENOMEM. */
int wc_xp_tracks(const wc_xp_data *d, const char *level, wc_xp_track **out, size_t *n);
void wc_xp_tracks_free(wc_xp_track *t, size_t n);

/* The delta of track t from its sample i − 1 to i, as wc_xp_delta. */
double wc_xp_track_delta(const wc_xp_data *d, const wc_xp_track *t, size_t i, wc_xp_dkind *kind);

/* A jump this large (2^63 µJ, in J) is no energy: Kepler's per-pid cache
 * meeting a reused pid (a negative Δ exported through an unsigned counter,
 * docs/kepler-model.md §8 item 10). */
#define WC_XP_PID_REUSE_J 9223372036854.775808

/* Whether a counter going from prev to next (J) is another process under the
 * same labels (a reused pid): it fell (outside a restart), or it jumped by
 * WC_XP_PID_REUSE_J or more. */
int wc_xp_new_incarnation(double prev, double next);

/* The exporter's refresh interval learnt from its scrapes (exporter_interval.c). */
#define WC_XP_REFRESH_MIN 3      /* counter changes needed for an interval */
typedef struct wc_xp_refresh {
    double interval_s;           /* median spacing of the scrapes at which the node active
                                    counters changed; NAN with fewer than WC_XP_REFRESH_MIN */
    double scrape_s;             /* median spacing of consecutive answered scrapes; NAN none */
    size_t compared, changes;    /* scrape pairs compared (no restart), pairs that changed */
    int every_scrape;            /* changed at >= 90 % of the pairs: the interval is bounded
                                    by the scrape interval (the exporter's is that or shorter) */
} wc_xp_refresh;

/* Learns d's refresh interval: Kepler's node counters only move when it
 * recomputes (every monitor.interval, or at a scrape once its snapshot is
 * older than staleness). Returns 0 or -ENOMEM. */
int wc_xp_refresh_interval(const wc_xp_data *d, wc_xp_refresh *out);

#endif
