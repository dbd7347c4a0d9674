/*
 * test_cal_refuse.c — `wattcal calibrate` refuses fits whose coefficients are
 * not identified (task NU2: `P_idle_W -18010421032741.6 ± 154888590265424.6`,
 * R² 0.001, was stored and validate scored an estimate from it). Our own
 * fixtures tests/fixtures/calibrate/flat-util.csv (utilisation never moved)
 * and noise-only.csv (package power unrelated to utilisation) are imported
 * into real run databases and calibrated: the zone fit is marked unusable
 * with the numbers, cannot be stored, and gives no estimate:util; the truth
 * fit of the same run stays usable. validator/calibration.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/import/import.h"
#include "collector/truth/truth_table.h"
#include "validator/calibration.h"
#include "tests/unit/support/test_support.h"

/* Imports fixture calibrate/NAME.csv into a fresh DB; returns its path. */
static const char *import_fixture(const char *name, char *db, size_t cap)
{
    char csv[512];
    snprintf(csv, sizeof csv, "%s", wc_own_fixture(name));
    snprintf(db, cap, "%s/%s.db", wc_test_tmpdir(), strrchr(name, '/') + 1);
    wc_import_csv_opts o;
    memset(&o, 0, sizeof o);
    o.path = csv;
    o.time_col = "time_s";
    o.time_unit_ns = 1000000000LL;
    o.util_col = "util_pct";
    o.util_scale = 1;
    wc_error err = {{0}};
    cr_assert_eq(wc_import_parse_col("pkg_j:package:j", WC_IMPORT_ENERGY, &o.cols[0], &err), 0, "%s", err.msg);
    cr_assert_eq(wc_import_parse_col("wall_w:w", WC_IMPORT_TRUTH, &o.cols[1], &err), 0, "%s", err.msg);
    o.ncols = 2;
    wc_import_target t = {.db_path = db, .provenance = WC_PROV_MEASURED};
    wc_import_summary sum;
    memset(&sum, 0, sizeof sum);
    cr_assert_eq(wc_import_csv(&o, &t, &sum, &err), 0, "%s", err.msg);
    cr_assert_eq(sum.ticks, 120);
    return db;
}

/* Calibrates the fixture; asserts the package zone fit is refused with a
 * reason containing `reason`, and that nothing it gives is stored or scored. */
static void assert_refused(const char *fixture, const char *reason)
{
    char db[600];
    import_fixture(fixture, db, sizeof db);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(db, WC_STORE_WRITE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_cal_opts o;
    memset(&o, 0, sizeof o);
    o.window_s = 1;
    o.boot = (wc_boot_cfg){.replicates = 200, .seed = 1};
    wc_calibration fits[WC_CAL_MAX];
    size_t n = 0;
    char notes[4096];
    cr_assert_eq(wc_calibrate(st, &o, fits, WC_CAL_MAX, &n, notes, sizeof notes, &err), 0, "%s", err.msg);
    wc_calibration *zone = NULL, *wall = NULL;
    for (size_t i = 0; i < n; i++)
        *(fits[i].kind == WC_CAL_ZONE_UTIL ? &zone : &wall) = &fits[i];
    cr_assert_not_null(zone, "%s", notes);
    cr_assert_not_null(wall, "%s", notes);
    cr_assert(zone->unusable, "%s: zone fit accepted: %s", fixture, notes);
    cr_assert_not_null(strstr(zone->why, reason), "why: %s", zone->why);
    cr_assert_not_null(strstr(notes, "zone_utilisation package: NOT STORED, not identified"), "%s", notes);
    cr_assert_not_null(strstr(notes, "P_idle "), "the numbers are shown: %s", notes);
    cr_assert_eq(wc_calibration_store(st, zone, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "not stored"), "%s", err.msg);
    /* the truth fit of the same run is sound and stored */
    cr_assert_not(wall->unusable, "%s", wall->why);
    cr_assert(fabs(wall->fit.c1 - 1 / 0.92) < 0.1, "a %.4f", wall->fit.c1);
    cr_assert_eq(wc_calibration_store(st, wall, &err), 0, "%s", err.msg);
    wc_calibration back[WC_CAL_MAX];
    size_t nb = 0;
    cr_assert_eq(wc_calibration_load(st, back, WC_CAL_MAX, &nb, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(nb, 1, "only the truth fit is in the run");
    cr_assert_eq(back[0].kind, WC_CAL_TRUTH_METER);
    /* a stored row like the field report's (stored before this check) gives no
     * estimate: the loaded zone fit is refused at apply time */
    wc_calibration bad = *zone;
    bad.unusable = 0, bad.nres = 0, bad.x = NULL;
    bad.fit.c0 = -18010421032741.6172, bad.fit.se0 = 154888590265424.5938, bad.fit.r2 = 0.001;
    bad.fit.t0_lo = bad.fit.t0_hi = 0; /* as loaded: no t interval */
    char why[320];
    cr_assert_eq(wc_calibration_usable(&bad, 0, why, sizeof why), 0);
    for (size_t i = 0; i < n; i++)
        wc_calibration_free(&fits[i]);
    wc_store_close(st);
}

Test(cal_refuse, flat_utilisation_is_refused_for_its_spread)
{
    assert_refused("calibrate/flat-util.csv", "utilisation spans only 0.000");
}

Test(cal_refuse, noise_only_is_refused_for_its_r2)
{
    assert_refused("calibrate/noise-only.csv", "R^2 0.0");
}

Test(cal_refuse, absurd_intercepts_and_intervals_are_refused_with_numbers)
{
    wc_calibration c;
    memset(&c, 0, sizeof c);
    c.kind = WC_CAL_ZONE_UTIL;
    /* the field report: P_idle -1.8e13 ± 1.5e14 W but a good-looking R² */
    c.fit = (wc_linfit){.n = 30, .c0 = -18010421032741.6172, .c1 = 40, .se0 = 154888590265424.5938,
                        .se1 = 1, .t0_lo = -3.3e14, .t0_hi = 2.9e14, .t1_lo = 38, .t1_hi = 42,
                        .r2 = 0.9};
    char why[320];
    cr_assert_eq(wc_calibration_usable(&c, 400, why, sizeof why), 0);
    cr_assert_not_null(strstr(why, "interval of P_idle is 6.2e+14 W wide, beyond 400 W (the run's ceiling)"),
                       "%s", why);
    /* negative beyond its interval */
    c.fit.c0 = -20, c.fit.t0_lo = -25, c.fit.t0_hi = -15;
    cr_assert_eq(wc_calibration_usable(&c, 400, why, sizeof why), 0);
    cr_assert_not_null(strstr(why, "P_idle = -20.0000 W is negative"), "%s", why);
    /* beyond the ceiling */
    c.fit.c0 = 450, c.fit.t0_lo = 449, c.fit.t0_hi = 451;
    cr_assert_eq(wc_calibration_usable(&c, 400, why, sizeof why), 0);
    cr_assert_not_null(strstr(why, "P_idle = 450.0000 W is beyond 400 W (the run's ceiling)"), "%s", why);
    /* a sound fit: 60 W idle, 40 W per busy fraction */
    c.fit.c0 = 60, c.fit.t0_lo = 59, c.fit.t0_hi = 61;
    cr_assert_eq(wc_calibration_usable(&c, 400, why, sizeof why), 1, "%s", why);
    cr_assert_str_eq(why, "");
}

/* A truth fit on a flat load (a new-user run: utilisation spanning 0.001
 * while other work kept the node busy): a = -1.362 ± 0.81, R² 0.29. Its b
 * was within bounds, so it was stored, copied and gated a node PASS; a wall
 * fit whose a does not stay above 0 across its interval proves nothing. */
Test(cal_refuse, a_wall_fit_whose_a_is_not_above_zero_is_refused)
{
    wc_calibration c;
    memset(&c, 0, sizeof c);
    c.kind = WC_CAL_TRUTH_METER;
    c.fit = (wc_linfit){.n = 9, .c0 = 250, .c1 = -1.362, .se0 = 60, .se1 = 0.81, .r2 = 0.29};
    char why[320];
    cr_assert_eq(wc_calibration_usable(&c, 400, why, sizeof why), 0);
    cr_assert_not_null(strstr(why, "a = -1.3620: its 95 % interval [-2.9496, 0.2256] does not stay"
                                   " above 0 (wall power must rise with the meter)"), "%s", why);
    /* positive but its interval reaches 0: refused too */
    c.fit.c1 = 0.6, c.fit.se1 = 0.4;
    cr_assert_eq(wc_calibration_usable(&c, 400, why, sizeof why), 0, "%s", why);
    /* the simulated BMC's 1/eff = 1.25 with a tight interval: usable */
    c.fit.c1 = 1.25, c.fit.se1 = 0.05, c.fit.c0 = 37.5, c.fit.se0 = 2, c.fit.r2 = 0.95;
    cr_assert_eq(wc_calibration_usable(&c, 400, why, sizeof why), 1, "%s", why);
}

/* NU2 item 2: how long a simulated recording must last, from the sim BMC's
 * own parameters (collector/truth/truth_sim.c) and WC_CHECK_MIN_N. */
Test(cal_refuse, sim_bmc_timing_says_how_long_to_record)
{
    double warm, min;
    cr_assert_eq(wc_truth_sim_timing("sim", 5, &warm, &min), 1);
    cr_assert_float_eq(warm, 12.0, 1e-9); /* lag 2 + window 10 */
    cr_assert_float_eq(min, 37.0, 1e-9);  /* + 5 readings x period 5 */
    cr_assert_eq(wc_truth_sim_timing("sim:lag=1,window=4,period=2", 5, &warm, &min), 1);
    cr_assert_float_eq(warm, 5.0, 1e-9);
    cr_assert_float_eq(min, 15.0, 1e-9);
    cr_assert_eq(wc_truth_sim_timing("ipmi:local", 5, &warm, &min), 0);
    cr_assert_eq(wc_truth_sim_timing("simx", 5, &warm, &min), 0);
    cr_assert_eq(wc_truth_sim_timing("sim:lag=-1", 5, &warm, &min), 0, "bad parameters: no advice");
    char msg[300] = "INSUFFICIENT: n=4 < 5 pairs";
    wc_truth_sim_record_hint("sim", 5, msg, sizeof msg);
    cr_assert_str_eq(msg, "INSUFFICIENT: n=4 < 5 pairs; the simulated BMC's first reading comes after"
                          " ~12 s, then one every 5 s: record at least 37 s for 5 readings");
    char other[64] = "unchanged";
    wc_truth_sim_record_hint("redfish:https://bmc", 5, other, sizeof other);
    cr_assert_str_eq(other, "unchanged");
}
