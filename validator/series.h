/*
 * series.h — the power series of a recorded run, on the run's monotonic clock.
 *
 * Everything the validator scores is read from the store into two shapes:
 *
 *  - a cumulative series (wc_cumseries): a quantity accumulated since the run
 *    began, sampled at the ticks — joules for a meter's counters (per socket
 *    zone differenced with wattcal's counter rule, then summed), for gauges
 *    (µW held over the interval since the previous tick, integrated), for the
 *    model's node energy; or utilisation-seconds for CPU utilisation. A mean
 *    over any [a, b] is (cum(b) − cum(a)) / (b − a) with linear
 *    interpolation inside a tick interval: counters by energy difference,
 *    gauges by time-weighted averaging, with one code path;
 *
 *  - ground-truth readings (wc_truth_reading): one per fresh BMC/wall-meter
 *    value, each with the interval it averages — [t − window, t] when the
 *    window is stated, else the interval since the previous poll (the reading
 *    describes the time since the last one, as a wall meter's log row does).
 *
 * Gaps are gaps: a tick interval is unusable (ok[i] = 0) when a zone read
 * failed or its counter could not be differenced, when the boot clock ran
 * ahead of the monotonic clock by more than a second (a suspend: energy
 * with no monotonic time must never become power), or when it is longer than
 * WC_SERIES_GAP_FACTOR × the median tick spacing (no sample inside: any
 * power there would be invented). Means across an unusable interval are NAN.
 * Wall-clock steps never matter: intervals come from tick.mono_ns only.
 */
#ifndef WC_SERIES_H
#define WC_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "collector/store/store.h"
#include "common/wc_error.h"

/* A tick interval longer than this many median spacings is a gap. */
#define WC_SERIES_GAP_FACTOR 3.0
/* Largest plausible monotonic time (2^62 ns, 146 years of uptime): beyond it
 * a run's clock is corrupt (and differences could overflow). */
#define WC_SERIES_MAX_MONO_NS (INT64_C(1) << 62)
/* Boot clock ahead of monotonic by more than this within one interval = suspend. */
#define WC_SERIES_SUSPEND_NS 1000000000LL
/* Wall clock off the monotonic clock by more than this within one interval = a step. */
#define WC_SERIES_CLOCK_STEP_NS 1000000000LL

/* Why tick intervals were unusable (counts over the run). */
typedef struct wc_series_gaps {
    int64_t long_gaps;      /* intervals longer than the gap factor × median spacing */
    int64_t suspends;       /* boot clock ran ahead of monotonic (suspend/resume) */
    double gap_seconds;     /* monotonic seconds inside those intervals */
    double suspended_seconds; /* boot-clock seconds the node was suspended */
    int64_t clock_steps;    /* intervals where the wall clock moved more than
                               WC_SERIES_CLOCK_STEP_NS off the monotonic clock (NTP, an
                               operator): not unusable (intervals are monotonic), said */
    double clock_step_seconds; /* |wall − monotonic| of those steps, summed */
} wc_series_gaps;

/* The run's ticks: the time base every series is sampled on. */
typedef struct wc_timebase {
    size_t n;
    int64_t *tick_id;       /* store ids, in tick order */
    int64_t *mono_ns;       /* strictly increasing */
    unsigned char *ok;      /* ok[i]: interval (mono[i], mono[i+1]] usable as time */
    int64_t median_spacing_ns;
    wc_series_gaps gaps;
    double ceiling_watts;   /* the run's stored counter ceiling per zone (W) for the counter
                               rule and its hidden-wrap check (counter.h); 0 when the run has
                               none (recorded before it was stored: default, no check) */
} wc_timebase;

/* A cumulative quantity sampled at the ticks (see top of file). */
typedef struct wc_cumseries {
    size_t n;
    const int64_t *t_ns;    /* borrowed from the timebase */
    double *cum;            /* cumulative J (or utilisation-seconds) at t_ns[i] */
    unsigned char *ok;      /* ok[i]: segment (t[i], t[i+1]] usable; ok[n-1] is 0 */
    int64_t unusable;       /* segments marked unusable by this series itself */
} wc_cumseries;

/* Loads the ticks of the run in order, with gap and suspend detection.
 * Returns 0, -ENODATA with fewer than 2 ticks, -EIO/-ENOMEM with err. */
int wc_timebase_load(wc_store *st, wc_timebase *tb, wc_error *err);
void wc_timebase_free(wc_timebase *tb);

/* Index of the tick id in tb (binary search: ids grow with time), or -1. */
long wc_timebase_index(const wc_timebase *tb, int64_t tick_id);

/* Meter energy of the counter zones whose name is in `zones` (NULL-terminated
 * list of zone names, e.g. {"package","dram",NULL}; every socket of each),
 * differenced per zone with the collector's counter rule at the run's
 * ceiling (an interval that could hide a whole wrap is unusable) and summed,
 * joules.
 * A transient read failure keeps the last good baseline (the next reading is
 * differenced across the gap, so run totals keep that energy) but the
 * segments in between are unusable. *nfound gets the number of zones used.
 * Returns 0 (possibly with *nfound 0), -EIO/-ENOMEM with err. */
int wc_series_meter(wc_store *st, const wc_timebase *tb, const char *const *zones,
                    wc_cumseries *out, size_t *nfound, wc_error *err);

/* Gauge zones (kind gauge_uw, e.g. an imported power column) named in zones,
 * each value held over the interval since the previous tick and integrated
 * (time-weighted), joules. *nfound as above. */
int wc_series_gauge(wc_store *st, const wc_timebase *tb, const char *const *zones,
                    wc_cumseries *out, size_t *nfound, wc_error *err);

/* The node energy a model reported (node_attr.delta_uj of the zones named),
 * joules: what the exporter would have shown, its quirks included. Ticks the
 * model flagged FIRST, REFRESH_FAILED or CPU_MISSING, and the tick after a
 * failed refresh (its ΔE spans two intervals), are unusable. *nfound = 0
 * when the model has no rows for those zones. */
int wc_series_model_node(wc_store *st, const wc_timebase *tb, int64_t model_id,
                         const char *const *zones, wc_cumseries *out, size_t *nfound,
                         wc_error *err);

/* CPU utilisation as utilisation-seconds (a mean rate over [a,b] is the
 * node's busy fraction 0..1): from the /proc/stat cpu fields (busy = all of
 * the 8 Kepler fields but idle and iowait, over their total), or from
 * tick.util_pct for imported runs. *found = 0 when the run has neither. */
int wc_series_utilisation(wc_store *st, const wc_timebase *tb, wc_cumseries *out,
                          int *found, wc_error *err);

/* Mean rate over [a_ns, b_ns] (W for a joule series): interpolated at both
 * ends; NAN when either end is outside the series or an unusable segment
 * overlaps [a, b]. a == b gives the rate of the segment holding a. */
double wc_cumseries_rate(const wc_cumseries *s, int64_t a_ns, int64_t b_ns);

/* Total over the usable segments of the whole series (J): unusable segments
 * count too where both ends hold a value (a transient read failure keeps its
 * energy), so this is the run total. */
double wc_cumseries_total(const wc_cumseries *s);

/* A copy of s whose cum is a·s + b·t (b in rate units), e.g. a calibration
 * applied to a meter series: wall = a · P + b. Returns 0 or -ENOMEM. */
int wc_cumseries_affine(const wc_cumseries *s, double a, double b, wc_cumseries *out);

void wc_cumseries_free(wc_cumseries *s);

/* Plausibility limits of a ground-truth sample (as the collector's). */
#define WC_TRUTH_MAX_WATTS 100000.0
#define WC_TRUTH_MAX_WINDOW_S 86400.0
#define WC_TRUTH_MAX_OUTSIDE_NS (86400LL * 1000000000LL)

/* One fresh ground-truth reading and the interval it averages. */
typedef struct wc_truth_reading {
    int64_t t_ns;           /* poll time (monotonic) of the first poll that showed it */
    int64_t a_ns, b_ns;     /* nominal interval averaged, before any lag: [t − w, t] */
    double watts;
    double window_s;        /* stated window; 0 = not stated */
    int window_known;       /* 1 when window_s came from the device or the log */
} wc_truth_reading;

/* How the truth samples of one source were used. */
typedef struct wc_truth_counts {
    int64_t polls;          /* every stored sample */
    int64_t used;           /* fresh readings kept */
    int64_t stale;          /* status stale: same value and device timestamp (repeats) */
    int64_t repeats;        /* ok samples folded into the previous reading: same value, no
                               device timestamp, stated window longer than the poll spacing */
    int64_t unavailable, error;
    int64_t invalid;        /* values no meter can report: watts non-finite, negative or above
                               WC_TRUTH_MAX_WATTS, a window above a day, a poll time more than a
                               day outside the run */
} wc_truth_counts;

/* The fresh readings of one truth source. */
typedef struct wc_truth_series {
    int64_t source_id;
    char spec[128], kind[16], provenance[32];
    size_t n;
    wc_truth_reading *r;
    int any_window_known;   /* some reading states its window */
    double median_window_s; /* of the stated windows; 0 when none */
    double median_spacing_s;/* between fresh readings */
    wc_truth_counts counts;
} wc_truth_series;

/* Loads the truth sources of the run (at most max) with their readings.
 * Flagged (stale), unavailable, error and implausible samples (see
 * wc_truth_counts.invalid; tb gives the run's time range) are excluded and
 * counted.
 * Repeated identical values without a device timestamp whose stated window
 * exceeds the poll spacing are one reading dated at its first poll
 * (cases/B22: a BMC re-serves its last 1-minute average until the next).
 * Returns the number of sources (>= 0) or -EIO/-ENOMEM with err. */
int wc_truth_series_load(wc_store *st, const wc_timebase *tb, wc_truth_series *out,
                         size_t max, wc_error *err);
void wc_truth_series_free(wc_truth_series *t);

#endif
