/*
 * counter.h — energy counter arithmetic for one RAPL zone (or any µJ counter).
 *
 * Δ = cur − prev; on a decrease the zone's max_energy_range_uj is added once
 * (one wrap) — unless the max range is unknown, or the implied power is above
 * a ceiling (default 5 kW per zone): then the interval is flagged as a counter
 * reset / unmeasurable and a new baseline starts. Never a spike, never a
 * negative, never a silent 0 (fixtures/cases B01, B02, B03). This is wattcal's
 * own rule; Kepler's (any decrease = one wrap) lives in collector/model/attr_kepler.c.
 */
#ifndef WC_COUNTER_H
#define WC_COUNTER_H

#include <stdint.h>

/* Default plausibility ceiling per zone, watts. */
#define WC_DEFAULT_CEILING_WATTS 5000.0

/* Outcome of one counter interval. */
typedef enum wc_delta_status {
    WC_DELTA_OK = 0,        /* cur >= prev, delta_uj = cur - prev */
    WC_DELTA_WRAPPED,       /* one wrap corrected with max_energy_range_uj */
    WC_DELTA_RESET,         /* decrease with implausible wrap: unmeasurable, re-baseline */
    WC_DELTA_NO_RANGE,      /* decrease with max range unknown (0): unmeasurable, re-baseline */
    WC_DELTA_IMPLAUSIBLE,   /* increase whose implied power exceeds the ceiling: unmeasurable */
    WC_DELTA_NO_BASELINE,   /* first reading (or after a gap): nothing to difference */
    WC_DELTA_AMBIGUOUS      /* wc_counter_delta_checked only: the interval is long enough for
                               a whole wrap to hide in it at the ceiling: unmeasurable */
} wc_delta_status;

/* Computes one interval. prev/cur raw µJ; max_range_uj 0 = unknown; dt_ns the
 * monotonic interval (> 0); ceiling_watts <= 0 means the default. Writes the
 * energy into *delta_uj only for OK and WRAPPED (0 otherwise) and returns the
 * status. In every case the caller's next baseline is `cur`.
 * Details: a wrapped interval is (max_range_uj − prev) + cur (B01); a decrease
 * from prev > max_range_uj is RESET (it cannot be a wrap at that modulus);
 * dt_ns <= 0 is NO_BASELINE (no interval to measure); delta_uj may be NULL. */
wc_delta_status wc_counter_delta(uint64_t prev, uint64_t cur, uint64_t max_range_uj,
                                 int64_t dt_ns, double ceiling_watts, uint64_t *delta_uj);

/* wc_counter_delta, then one more check for every figure reported as
 * measured (the ideal model, the validator, the recorder's progress line):
 * when one more whole wrap could hide in the interval at the ceiling — a
 * usable delta d with d + max_range_uj <= ceiling × dt — the wrap count is
 * ambiguous and the interval is WC_DELTA_AMBIGUOUS (*delta_uj 0, never
 * usable; the caller's next baseline is still `cur`). With the range unknown
 * (0) nothing more can be checked: the result is wc_counter_delta's. So it
 * is with ceiling_watts <= 0 (the run's ceiling is unknown: a run recorded
 * before it was stored): the default ceiling, no hidden-wrap check. */
wc_delta_status wc_counter_delta_checked(uint64_t prev, uint64_t cur, uint64_t max_range_uj,
                                         int64_t dt_ns, double ceiling_watts,
                                         uint64_t *delta_uj);

/* 1 when an interval of dt_ns at ceiling_watts (<= 0: the default) could use
 * a zone's whole max_range_uj, so a wrap could hide inside one interval (the
 * recorder warns at start); 0 when not, or when the range is unknown (0). */
int wc_counter_interval_too_long(uint64_t max_range_uj, int64_t dt_ns, double ceiling_watts);

/* True when the status carries a usable energy (OK or WRAPPED). */
int wc_delta_usable(wc_delta_status st);

/* Stable lower-case name of a status ("ok","wrapped","reset","no_range",
 * "implausible","no_baseline","ambiguous"). */
const char *wc_delta_status_name(wc_delta_status st);

#endif
