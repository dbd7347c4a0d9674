/*
 * wc_clock.h — the three clocks wattcal keeps, all as int64 nanoseconds.
 *
 * Monotonic (CLOCK_MONOTONIC) for every delta and every power division;
 * boot (CLOCK_BOOTTIME) to compare with /proc/<pid>/stat starttime (ticks since
 * boot); wall (CLOCK_REALTIME) only for labels and aligning with external logs.
 */
#ifndef WC_CLOCK_H
#define WC_CLOCK_H

#include <stdint.h>

#define WC_NS_PER_S 1000000000LL

/* Monotonic clock in ns (never steps; use for intervals). */
int64_t wc_mono_ns(void);
/* Boot clock in ns (monotonic including suspend; same origin as /proc starttime). */
int64_t wc_boot_ns(void);
/* Wall clock in ns since the Unix epoch (labels only, may step). */
int64_t wc_wall_ns(void);

/* Parses a duration such as "500ms", "1s", "2.5s", "10m", "1h", "1d", "250us",
 * "100ns", a sum of such parts ("1h30m", "1m30s", "1d12h") or a bare number of
 * seconds into ns (the one duration parser of every duration option and
 * scenario field). Units: WC_DURATION_UNITS. Returns 0, or -EINVAL on a
 * malformed or negative value, an unknown unit, or more than ~292 years. */
#define WC_DURATION_UNITS \
    "ns, us, ms, s, m (or min), h, d; parts add up (1h30m, 1d12h); a bare number is seconds"
int wc_parse_duration_ns(const char *text, int64_t *out_ns);

/* Formats a wall-clock ns timestamp as ISO 8601 UTC with milliseconds
 * ("2026-11-29T16:47:17.123Z") into buf (>= 32 bytes). Returns buf. */
char *wc_format_wall_iso(int64_t wall_ns, char *buf, int cap);

/* Days from 1970-01-01 to the proleptic Gregorian date y-m-d (negative
 * before), exact and locale/TZ-free (H. Hinnant's days_from_civil); m 1..12. */
int64_t wc_days_from_civil(int64_t y, unsigned m, unsigned d);

#endif
