/*
 * test_counter.c — wc_counter_delta against the counter cases of the shared
 * fixtures (B01 one wrap, B02 per-socket differencing, B03 unknown range) and
 * the plausibility rules of counter.h (reset, implausible increase, no
 * baseline). Readings are parsed from the fixture CSVs, not retyped.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/counter.h"
#include "common/wc_clock.h"
#include "tests/unit/support/test_support.h"

/* One "t_s, zone, energy_uj[, ...]" row of a fixture CSV. */
typedef struct row {
    double t_s;
    char zone[64];
    uint64_t energy_uj;
} row;

/* Parses the non-comment rows of a readings CSV into rows (max cap). */
static size_t read_rows(const char *path, row *rows, size_t cap)
{
    char *text = wc_test_slurp(path, NULL);
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || line[0] == '\0')
            continue;
        cr_assert_lt(n, cap, "%s: more rows than expected", path);
        int got = sscanf(line, "%lf , %63[^, ] , %" SCNu64, &rows[n].t_s, rows[n].zone,
                         &rows[n].energy_uj);
        cr_assert_eq(got, 3, "%s: cannot parse row \"%s\"", path, line);
        n++;
    }
    free(text);
    return n;
}

/* Seconds between two rows as monotonic ns. */
static int64_t dt_ns(const row *a, const row *b)
{
    return (int64_t)((b->t_s - a->t_s) * (double)WC_NS_PER_S);
}

static double watts(uint64_t delta_uj, int64_t ns) { return (double)delta_uj * 1e3 / (double)ns; }

/* The max range stated in a fixture comment "max_energy_range_uj = N". */
static uint64_t max_from_comment(const char *path)
{
    char *text = wc_test_slurp(path, NULL);
    const char *p = strstr(text, "max_energy_range_uj = ");
    cr_assert_not_null(p, "%s: no max_energy_range_uj in the comments", path);
    uint64_t v = strtoull(p + strlen("max_energy_range_uj = "), NULL, 10);
    free(text);
    return v;
}

Test(counter, b01_one_wrap_then_normal_interval)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", wc_shared_fixture("cases/B01"));
    char path[4200];
    snprintf(path, sizeof path, "%s/max_energy_range_uj", dir);
    char *maxtext = wc_test_slurp(path, NULL);
    uint64_t max_uj = strtoull(maxtext, NULL, 10);
    free(maxtext);
    cr_assert_eq(max_uj, 262143328850ull);

    row r[4];
    snprintf(path, sizeof path, "%s/readings.csv", dir);
    cr_assert_eq(read_rows(path, r, 4), 3);

    uint64_t d = 1;
    wc_delta_status st = wc_counter_delta(r[0].energy_uj, r[1].energy_uj, max_uj,
                                          dt_ns(&r[0], &r[1]), 0, &d);
    cr_assert_eq(st, WC_DELTA_WRAPPED, "got %s", wc_delta_status_name(st));
    cr_assert_eq(d, 1412368671ull, "delta %" PRIu64, d);
    cr_assert_float_eq(watts(d, dt_ns(&r[0], &r[1])), 94.16, 0.01);

    /* The baseline moved to the post-wrap value: the next interval is normal. */
    st = wc_counter_delta(r[1].energy_uj, r[2].energy_uj, max_uj, dt_ns(&r[1], &r[2]), 0, &d);
    cr_assert_eq(st, WC_DELTA_OK);
    cr_assert_eq(d, 1413654922ull);
    cr_assert_float_eq(watts(d, dt_ns(&r[1], &r[2])), 94.24, 0.01);

    /* The numbers asserted are the fixture's own. */
    snprintf(path, sizeof path, "%s/expected.txt", dir);
    char *expected = wc_test_slurp(path, NULL);
    cr_assert_not_null(strstr(expected, "1412368671 uJ"));
    cr_assert_not_null(strstr(expected, "1413654922 uJ"));
    cr_assert_not_null(strstr(expected, "94.16 W"));
    free(expected);
}

Test(counter, b02_difference_each_socket_before_summing)
{
    const char *path = wc_shared_fixture("cases/B02/per_socket_counters.csv");
    char csv[4096];
    snprintf(csv, sizeof csv, "%s", path);
    uint64_t max_uj = max_from_comment(csv);
    cr_assert_eq(max_uj, 262143328850ull);
    row r[8];
    cr_assert_eq(read_rows(csv, r, 8), 4);

    uint64_t total_uj = 0, sum_prev = 0, sum_cur = 0;
    int64_t ns = 0;
    for (int z = 0; z < 2; z++) {
        const row *a = &r[z], *b = &r[z + 2];
        cr_assert_str_eq(a->zone, b->zone);
        ns = dt_ns(a, b);
        uint64_t d = 0;
        wc_delta_status st = wc_counter_delta(a->energy_uj, b->energy_uj, max_uj, ns, 0, &d);
        cr_assert(wc_delta_usable(st), "%s: %s", a->zone, wc_delta_status_name(st));
        cr_assert_eq(st, z == 0 ? WC_DELTA_WRAPPED : WC_DELTA_OK, "%s", a->zone);
        cr_assert_eq(d, 25000000ull, "%s: %" PRIu64 " uJ, want 25.000 J", a->zone, d);
        total_uj += d;
        sum_prev += a->energy_uj;
        sum_cur += b->energy_uj;
    }
    cr_assert_eq(total_uj, 50000000ull);
    cr_assert_float_eq(watts(total_uj, ns), 16.667, 0.001);

    /* Summing sockets first (Kepler#53) makes the sum go down by more than a
     * plausible wrap: flagged, never a 1.8e19 or kilowatt spike. */
    uint64_t d = 7;
    wc_delta_status st = wc_counter_delta(sum_prev, sum_cur, max_uj, ns, 0, &d);
    cr_assert_eq(st, WC_DELTA_RESET, "got %s", wc_delta_status_name(st));
    cr_assert_eq(d, 0);
}

Test(counter, b03_unknown_range_is_unmeasurable_then_rebaseline)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", wc_shared_fixture("cases/B03"));
    char path[4200];
    snprintf(path, sizeof path, "%s/max_energy_range_uj", dir);
    FILE *f = fopen(path, "r");
    cr_assert_null(f, "B03 stands for a missing max_energy_range_uj");
    uint64_t max_uj = 0; /* unknown, as meter_rapl records a missing file */

    row r[4];
    snprintf(path, sizeof path, "%s/readings.csv", dir);
    cr_assert_eq(read_rows(path, r, 4), 2);
    cr_assert_eq(r[0].energy_uj, 4000000000ull);
    cr_assert_eq(r[1].energy_uj, 10000ull);

    uint64_t d = 99;
    wc_delta_status st = wc_counter_delta(r[0].energy_uj, r[1].energy_uj, max_uj,
                                          dt_ns(&r[0], &r[1]), 0, &d);
    cr_assert_eq(st, WC_DELTA_NO_RANGE, "got %s", wc_delta_status_name(st));
    cr_assert_not(wc_delta_usable(st), "no silent 0 W measurement");
    cr_assert_eq(d, 0);
    cr_assert_str_eq(wc_delta_status_name(st), "no_range");

    /* Re-baselined at 10000: a following 10 s at 30 W is an ordinary interval. */
    st = wc_counter_delta(r[1].energy_uj, r[1].energy_uj + 300000000ull, max_uj,
                          10 * WC_NS_PER_S, 0, &d);
    cr_assert_eq(st, WC_DELTA_OK);
    cr_assert_eq(d, 300000000ull);
}

Test(counter, decrease_that_implies_kilowatts_is_a_reset)
{
    /* A driver reload drops the counter from 1 J to 0.5 J: as a wrap that is
     * ≈262 kJ in 5 s = 52 kW (Kepler's spike, kepler-model.md §2.3). */
    uint64_t d = 5;
    wc_delta_status st = wc_counter_delta(1000000, 500000, 262143328850ull, 5 * WC_NS_PER_S,
                                          0, &d);
    cr_assert_eq(st, WC_DELTA_RESET);
    cr_assert_eq(d, 0);
    cr_assert_not(wc_delta_usable(st));
    /* With a 100 kW ceiling the same wrap would be accepted. */
    st = wc_counter_delta(1000000, 500000, 262143328850ull, 5 * WC_NS_PER_S, 100000.0, &d);
    cr_assert_eq(st, WC_DELTA_WRAPPED);
    cr_assert_eq(d, 262143328850ull - 1000000 + 500000);
}

Test(counter, previous_value_above_range_is_a_reset)
{
    uint64_t d = 5;
    cr_assert_eq(wc_counter_delta(70000000, 10, 60000000, WC_NS_PER_S, 0, &d), WC_DELTA_RESET);
    cr_assert_eq(d, 0);
}

Test(counter, increase_above_ceiling_is_implausible)
{
    uint64_t d = 5;
    /* 6 kJ in 1 s = 6 kW > 5 kW default. */
    wc_delta_status st = wc_counter_delta(0, 6000000000ull, 262143328850ull, WC_NS_PER_S, 0, &d);
    cr_assert_eq(st, WC_DELTA_IMPLAUSIBLE);
    cr_assert_eq(d, 0);
    /* 5 kJ in 1 s is exactly at the ceiling: accepted. */
    st = wc_counter_delta(0, 5000000000ull, 262143328850ull, WC_NS_PER_S, 0, &d);
    cr_assert_eq(st, WC_DELTA_OK);
    cr_assert_eq(d, 5000000000ull);
    /* A 500 W custom ceiling rejects 600 W. */
    st = wc_counter_delta(0, 600000000ull, 0, WC_NS_PER_S, 500.0, &d);
    cr_assert_eq(st, WC_DELTA_IMPLAUSIBLE);
}

Test(counter, equal_readings_are_a_real_zero_and_no_interval_is_no_baseline)
{
    uint64_t d = 5;
    cr_assert_eq(wc_counter_delta(1234, 1234, 0, WC_NS_PER_S, 0, &d), WC_DELTA_OK);
    cr_assert_eq(d, 0);
    d = 5;
    cr_assert_eq(wc_counter_delta(1234, 2000, 0, 0, 0, &d), WC_DELTA_NO_BASELINE);
    cr_assert_eq(d, 0);
    cr_assert_eq(wc_counter_delta(1234, 2000, 0, -5, 0, NULL), WC_DELTA_NO_BASELINE);
    cr_assert_eq(wc_counter_delta(1000, 3000, 0, WC_NS_PER_S, 0, NULL), WC_DELTA_OK);
}

Test(counter, status_names_and_usability)
{
    cr_assert_str_eq(wc_delta_status_name(WC_DELTA_OK), "ok");
    cr_assert_str_eq(wc_delta_status_name(WC_DELTA_WRAPPED), "wrapped");
    cr_assert_str_eq(wc_delta_status_name(WC_DELTA_RESET), "reset");
    cr_assert_str_eq(wc_delta_status_name(WC_DELTA_NO_RANGE), "no_range");
    cr_assert_str_eq(wc_delta_status_name(WC_DELTA_IMPLAUSIBLE), "implausible");
    cr_assert_str_eq(wc_delta_status_name(WC_DELTA_NO_BASELINE), "no_baseline");
    cr_assert(wc_delta_usable(WC_DELTA_OK));
    cr_assert(wc_delta_usable(WC_DELTA_WRAPPED));
    cr_assert_not(wc_delta_usable(WC_DELTA_RESET));
    cr_assert_not(wc_delta_usable(WC_DELTA_NO_RANGE));
    cr_assert_not(wc_delta_usable(WC_DELTA_IMPLAUSIBLE));
    cr_assert_not(wc_delta_usable(WC_DELTA_NO_BASELINE));
}
