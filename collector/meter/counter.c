/*
 * counter.c — differencing of one µJ energy counter (see counter.h).
 *
 * Used for every RAPL zone, per socket, BEFORE anything is summed (B02): the
 * sampler and the "ideal" attribution model call wc_counter_delta on each
 * zone's raw (prev, cur) pair and only add usable intervals. The rule is
 * wattcal's own: a decrease is one wrap by max_energy_range_uj when that is
 * plausible; otherwise the interval is flagged and the caller re-baselines at
 * cur (B01: baseline always advances; B03: unknown range is unmeasurable, not
 * a negative, an abs() or a silent 0). wc_counter_delta_checked adds the
 * hidden-wrap check (issue 14 item 3): an interval long enough, at the
 * ceiling, to hold one more whole range is ambiguous, never measured. Kepler's unconditional rule
 * (kepler-model.md §2.3) is reproduced separately in collector/model/attr_kepler.c.
 */
#include "collector/meter/counter.h"

#include <stddef.h>

/* Largest energy, µJ, a zone may plausibly use over dt_ns at ceiling_watts:
 * W × s × 1e6 = W × dt_ns / 1e3. */
static double ceiling_uj(int64_t dt_ns, double ceiling_watts)
{
    double watts = ceiling_watts > 0 ? ceiling_watts : WC_DEFAULT_CEILING_WATTS;
    return watts * (double)dt_ns / 1e3;
}

/* Stores v into *out when out is non-NULL and returns st. */
static wc_delta_status finish(wc_delta_status st, uint64_t v, uint64_t *out)
{
    if (out)
        *out = v;
    return st;
}

wc_delta_status wc_counter_delta(uint64_t prev, uint64_t cur, uint64_t max_range_uj,
                                 int64_t dt_ns, double ceiling_watts, uint64_t *delta_uj)
{
    if (dt_ns <= 0)
        return finish(WC_DELTA_NO_BASELINE, 0, delta_uj);
    double limit_uj = ceiling_uj(dt_ns, ceiling_watts);
    if (cur >= prev) {
        uint64_t d = cur - prev;
        if ((double)d > limit_uj)
            return finish(WC_DELTA_IMPLAUSIBLE, 0, delta_uj);
        return finish(WC_DELTA_OK, d, delta_uj);
    }
    if (max_range_uj == 0)
        return finish(WC_DELTA_NO_RANGE, 0, delta_uj);
    /* A previous value at or above the modulus cannot have wrapped at it:
     * the counter was reset (or the range is wrong). */
    if (prev > max_range_uj)
        return finish(WC_DELTA_RESET, 0, delta_uj);
    /* The kernel counter runs 0..max_range_uj and then restarts from 0 (the
     * powercap convention the fixtures use: B01 delta = (max − prev) + cur). */
    uint64_t d = (max_range_uj - prev) + cur;
    if ((double)d > limit_uj)
        return finish(WC_DELTA_RESET, 0, delta_uj);
    return finish(WC_DELTA_WRAPPED, d, delta_uj);
}

wc_delta_status wc_counter_delta_checked(uint64_t prev, uint64_t cur, uint64_t max_range_uj,
                                         int64_t dt_ns, double ceiling_watts,
                                         uint64_t *delta_uj)
{
    uint64_t d = 0;
    wc_delta_status st = wc_counter_delta(prev, cur, max_range_uj, dt_ns, ceiling_watts, &d);
    if (wc_delta_usable(st) && max_range_uj > 0 && ceiling_watts > 0 &&
        (double)d + (double)max_range_uj <= ceiling_uj(dt_ns, ceiling_watts))
        return finish(WC_DELTA_AMBIGUOUS, 0, delta_uj);
    return finish(st, d, delta_uj);
}

int wc_counter_interval_too_long(uint64_t max_range_uj, int64_t dt_ns, double ceiling_watts)
{
    return max_range_uj > 0 && dt_ns > 0 && (double)max_range_uj <= ceiling_uj(dt_ns, ceiling_watts);
}

int wc_delta_usable(wc_delta_status st)
{
    return st == WC_DELTA_OK || st == WC_DELTA_WRAPPED;
}

const char *wc_delta_status_name(wc_delta_status st)
{
    switch (st) {
    case WC_DELTA_OK:
        return "ok";
    case WC_DELTA_WRAPPED:
        return "wrapped";
    case WC_DELTA_RESET:
        return "reset";
    case WC_DELTA_NO_RANGE:
        return "no_range";
    case WC_DELTA_IMPLAUSIBLE:
        return "implausible";
    case WC_DELTA_NO_BASELINE:
        return "no_baseline";
    case WC_DELTA_AMBIGUOUS:
        return "ambiguous";
    }
    return "unknown";
}
