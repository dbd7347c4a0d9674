/*
 * test_align.c — alignment and known answers: synthetic runs with an
 * injected BMC lag, averaging window (stated or not), PSU efficiency and
 * platform power, and a source with an injected bias; the estimates must
 * recover each within their reported 95 % interval. Plus cases/B22 (a BMC's
 * 1-minute average compared over its minute: 0 % error, not −25 %/+50 %),
 * clock steps, a suspend and a gap that must never produce power, and the
 * exclusion and counting of flagged truth samples.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/accuracy.h"
#include "validator/calibration.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"

#define S(x) ((int64_t)((x) * 1000000000LL))
#define RUN_S 600

static const char *db_path(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", wc_test_tmpdir(), name);
    return p;
}

static wc_store *open_ro(const char *path)
{
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    return st;
}

/* Node power (package + dram) of second k, a load that steps every 15-40 s. */
typedef struct load {
    double pkg[RUN_S + 1], dram[RUN_S + 1];
} load;

static void make_load(load *l, unsigned seed)
{
    static const double LEVELS[] = {50, 80, 110, 140, 170};
    unsigned s = seed;
    int next = 0;
    double level = 50;
    for (int k = 0; k <= RUN_S; k++) {
        if (k == next) {
            s = s * 1103515245u + 12345u;
            level = LEVELS[(s >> 16) % 5];
            next = k + 15 + (int)((s >> 8) % 26);
        }
        l->pkg[k] = level;
        l->dram[k] = 4 + 0.05 * level;
    }
}

/* Mean node power over [a, b] seconds (power of interval (k, k+1] is P[k+1]). */
static double node_mean(const load *l, double a, double b)
{
    double e = 0;
    for (int k = (int)floor(a); k < (int)ceil(b); k++) {
        double lo = fmax(a, k), hi = fmin(b, k + 1);
        if (hi > lo && k + 1 <= RUN_S)
            e += (hi - lo) * (l->pkg[k + 1] + l->dram[k + 1]);
    }
    return e / (b - a);
}

/* Gaussian noise from a small seeded generator (Box-Muller). */
static double noise(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    double u1 = ((*s >> 8) + 1.0) / 16777217.0;
    *s = *s * 1664525u + 1013904223u;
    double u2 = (*s >> 8) / 16777216.0;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

typedef struct bmc {
    double lag_s, window_s, eff, base_w, noise_w, period_s;
    int state_window;        /* the device states its window */
    double gauge_bias;       /* an estimated wall gauge biased by this factor (0: none) */
} bmc;

/* A run with package + dram counters (and optionally a biased wall gauge)
 * and one simulated BMC publishing every period, polled every second. */
static void build(const char *path, const load *l, const bmc *b)
{
    trun t;
    trun_zone z[3] = {{"package", 0, WC_KIND_COUNTER_UJ}, {"dram", 0, WC_KIND_COUNTER_UJ},
                      {"wallest", -1, WC_KIND_GAUGE_UW}};
    trun_create(&t, path, z, b->gauge_bias > 0 ? 3 : 2);
    for (int k = 0; k <= RUN_S; k++) {
        double node = l->pkg[k] + l->dram[k];
        double w[3] = {l->pkg[k], l->dram[k], b->gauge_bias * (node + b->base_w) / b->eff};
        trun_tick(&t, S(k), S(k), S(1700000000 + k), w, (l->pkg[k] - 40) / 140.0);
    }
    int64_t src = trun_truth_source(&t, "sim:synthetic", "sim", WC_PROV_SIMULATED);
    unsigned s = 7;
    double published = NAN;
    int64_t pub_ns = 0;
    for (int k = 1; k <= RUN_S; k++) {
        double b1 = k - b->lag_s, a1 = b1 - b->window_s;
        if (fmod(k, b->period_s) == 0 && a1 >= 0) {
            published = (node_mean(l, a1, b1) + b->base_w) / b->eff + b->noise_w * noise(&s);
            published = round(published * 10) / 10;
            pub_ns = S(1700000000 + k);
            trun_truth(&t, src, S(k), published, b->state_window ? b->window_s : 0, b->state_window,
                       pub_ns, "ok");
        } else if (!isnan(published)) {
            trun_truth(&t, src, S(k), published, b->state_window ? b->window_s : 0, b->state_window,
                       pub_ns, "stale");
        } else {
            trun_truth(&t, src, S(k), NAN, 0, 0, 0, "unavailable");
        }
    }
    trun_finish(&t);
}

static void load_and_score(const char *path, wc_accuracy_report *rep, wc_store **st)
{
    *st = open_ro(path);
    wc_acc_opts o;
    memset(&o, 0, sizeof o);
    o.boot.seed = 1;
    wc_error err = {{0}};
    cr_assert_eq(wc_accuracy_load(*st, &o, rep, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_accuracy_score(rep, &err), 0, "%s", err.msg);
}

static size_t source_index(const wc_accuracy_report *r, const char *name)
{
    for (size_t i = 0; i < r->nsources; i++)
        if (!strcmp(r->sources[i].name, name))
            return i;
    cr_assert_fail("no source %s", name);
    return 0;
}

#define COVERS(lo, hi, x) cr_assert((lo) <= (x) + 1e-9 && (hi) >= (x) - 1e-9, \
                                    "%s: [%g, %g] does not cover %g", #x, (double)(lo), (double)(hi), (double)(x))

Test(align, stated_window_recovers_lag_efficiency_platform_power_and_bias)
{
    static load l;
    make_load(&l, 3);
    bmc b = {.lag_s = 4, .window_s = 10, .eff = 0.85, .base_w = 35, .noise_w = 0.3, .period_s = 5,
             .state_window = 1, .gauge_bias = 1.05};
    const char *path = db_path("stated.db");
    build(path, &l, &b);
    wc_accuracy_report *rep = calloc(1, sizeof *rep);
    wc_store *st;
    load_and_score(path, rep, &st);
    cr_assert_eq(rep->ntruth, 1);
    const wc_lagwin *lw = &rep->lag[0];
    cr_assert(lw->identifiable, "%s", lw->note);
    cr_assert(fabs(lw->lag_s - 4) <= 0.25, "lag %.2f", lw->lag_s);
    COVERS(lw->lag_lo_s, lw->lag_hi_s, 4.0);
    cr_assert(isnan(lw->window_s), "the device states its window: nothing to estimate");
    /* repeats are stale and excluded; the warm-up is unavailable */
    cr_assert_eq(rep->truth[0].counts.used, RUN_S / 5 - 2);
    cr_assert(rep->truth[0].counts.stale > 400);
    cr_assert(rep->truth[0].counts.unavailable > 0);
    /* the +5 % biased estimate: bias within its interval */
    size_t g = source_index(rep, "gauge:wallest");
    const wc_acc_cell *c = wc_accuracy_cell(rep, g, 0, 0, -1);
    cr_assert_not_null(c);
    COVERS(c->acc.bias_pct.lo, c->acc.bias_pct.hi, 5.0);
    cr_assert(fabs(c->acc.bias_pct.est - 5.0) < 0.3, "bias %.3f %%", c->acc.bias_pct.est);
    /* the meter (package + dram, RAPL-like) against the wall: its known offset */
    size_t m = source_index(rep, "meter:package+dram");
    const wc_acc_cell *mc = wc_accuracy_cell(rep, m, 0, 60, -1);
    cr_assert_not_null(mc, "60 s windows are scored (longer than the 10 s BMC window)");
    cr_assert(mc->acc.bias_pct.est < -20, "RAPL misses PSU loss and platform power");
    wc_accuracy_free(rep);
    /* calibration: wall = a * meter + b with a = 1/eff, b = base/eff */
    wc_cal_opts co;
    memset(&co, 0, sizeof co);
    co.boot.seed = 1;
    wc_calibration fits[WC_CAL_MAX];
    size_t n = 0;
    char notes[2048];
    wc_error err = {{0}};
    cr_assert_eq(wc_calibrate(st, &co, fits, WC_CAL_MAX, &n, notes, sizeof notes, &err), 0, "%s", err.msg);
    const wc_calibration *tm = NULL;
    for (size_t i = 0; i < n; i++)
        if (fits[i].kind == WC_CAL_TRUTH_METER)
            tm = &fits[i];
    cr_assert_not_null(tm, "%s", notes);
    COVERS(tm->fit.b1_lo, tm->fit.b1_hi, 1 / 0.85);
    COVERS(tm->fit.b0_lo, tm->fit.b0_hi, 35 / 0.85);
    COVERS(tm->fit.t1_lo, tm->fit.t1_hi, 1 / 0.85);
    cr_assert(tm->fit.r2 > 0.999, "R² %.5f", tm->fit.r2);
    cr_assert(fabs(tm->lag_s - 4) <= 0.25);
    for (size_t i = 0; i < n; i++)
        wc_calibration_free(&fits[i]);
    wc_store_close(st);
    free(rep);
}

Test(align, unstated_window_is_estimated_with_the_lag)
{
    static load l;
    make_load(&l, 11);
    bmc b = {.lag_s = 3, .window_s = 15, .eff = 0.9, .base_w = 20, .noise_w = 0.2, .period_s = 5,
             .state_window = 0};
    const char *path = db_path("unstated.db");
    build(path, &l, &b);
    wc_accuracy_report *rep = calloc(1, sizeof *rep);
    wc_store *st;
    load_and_score(path, rep, &st);
    const wc_lagwin *lw = &rep->lag[0];
    cr_assert(lw->identifiable, "%s", lw->note);
    cr_assert(isfinite(lw->window_s), "the window is estimated when the device states none");
    COVERS(lw->window_lo_s, lw->window_hi_s, 15.0);
    COVERS(lw->lag_lo_s, lw->lag_hi_s, 3.0);
    cr_assert(fabs(lw->window_s - 15) <= 1.0 && fabs(lw->lag_s - 3) <= 0.5, "lag %.2f window %.2f",
              lw->lag_s, lw->window_s);
    wc_accuracy_free(rep);
    wc_store_close(st);
    free(rep);
}

Test(align, flat_load_leaves_the_lag_unidentified_not_invented)
{
    static load l;
    for (int k = 0; k <= RUN_S; k++)
        l.pkg[k] = 100, l.dram[k] = 5;
    bmc b = {.lag_s = 4, .window_s = 10, .eff = 0.85, .base_w = 35, .noise_w = 0.3, .period_s = 5,
             .state_window = 1};
    const char *path = db_path("flat.db");
    build(path, &l, &b);
    wc_accuracy_report *rep = calloc(1, sizeof *rep);
    wc_store *st;
    load_and_score(path, rep, &st);
    cr_assert_not(rep->lag[0].identifiable);
    cr_assert_eq(rep->lag[0].lag_s, 0);
    cr_assert(strstr(rep->lag[0].note, "not identifiable"), "%s", rep->lag[0].note);
    wc_accuracy_free(rep);
    wc_store_close(st);
    free(rep);
}

/* cases/B22: reference steps 200 -> 400 W at 30 s and back at 150 s; the BMC
 * publishes at 60, 120, 180 s the mean of the preceding minute. */
static void build_b22(const char *path, const double *ref, int n, const int *pub_s,
                      const double *pub_w, int npub, int poll_every_second)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    /* row t of the reference is the power over [t, t + 1): it feeds the
     * interval ending at the tick of t + 1 */
    double none = 0;
    trun_tick(&t, 0, 0, 0, &none, 0.5);
    for (int k = 0; k < n; k++)
        trun_tick(&t, S(k + 1), S(k + 1), S(k + 1), &ref[k], 0.5);
    int64_t src = trun_truth_source(&t, "redfish:https://bmc.example", "redfish", WC_PROV_GROUND_TRUTH);
    if (!poll_every_second) {
        for (int i = 0; i < npub; i++)
            trun_truth(&t, src, S(pub_s[i]), pub_w[i], 60, 1, 0, "ok");
    } else {
        /* Redfish gives no reading timestamp: the same value is re-served every
         * poll until the next minute (ok samples, no device timestamp). */
        for (int i = 0; i < npub; i++)
            for (int k = pub_s[i]; k < (i + 1 < npub ? pub_s[i + 1] : pub_s[i] + 1); k++)
                trun_truth(&t, src, S(k), pub_w[i], 60, 1, 0, "ok");
    }
    trun_finish(&t);
}

/* Reads shared/fixtures/cases/B22/step_series.csv: t_s, reference_w, bmc_published_w. */
static int read_b22(double *ref, int *pub_s, double *pub_w, int *npub)
{
    const char *p = wc_shared_fixture("cases/B22/step_series.csv");
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f, "%s", p);
    char line[256];
    int n = 0;
    *npub = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        int t;
        double r, b;
        int got = sscanf(line, "%d,%lf,%lf", &t, &r, &b);
        cr_assert(got >= 2, "B22 line: %s", line);
        cr_assert_eq(t, n);
        ref[n++] = r;
        if (got == 3) {
            pub_s[*npub] = t;
            pub_w[(*npub)++] = b;
        }
    }
    fclose(f);
    return n;
}

static void check_b22(const char *path, int npub)
{
    wc_accuracy_report *rep = calloc(1, sizeof *rep);
    wc_store *st;
    load_and_score(path, rep, &st);
    cr_assert_eq(rep->truth[0].n, (size_t)npub, "one reading per published minute");
    cr_assert_eq(rep->truth[0].median_window_s, 60);
    wc_pairs p;
    cr_assert_eq(wc_align_native(&rep->sources[0].series, &rep->truth[0], &rep->lag[0], INT64_MIN,
                                 INT64_MAX, &p), 0);
    cr_assert_eq(p.n, 3);
    for (size_t i = 0; i < p.n; i++)
        cr_assert(fabs(p.source_w[i] - p.truth_w[i]) < 1e-9, "t=%lld s: reference %.6f over the BMC's"
                  " minute vs BMC %.1f", (long long)(p.b_ns[i] / 1000000000LL), p.source_w[i], p.truth_w[i]);
    /* what a naive comparison at the publish instant would have said */
    double at60 = wc_cumseries_rate(&rep->sources[0].series, S(60), S(61));
    double at180 = wc_cumseries_rate(&rep->sources[0].series, S(180), S(181));
    cr_assert(fabs(100 * (300 - at60) / at60 - -25.0) < 1e-9, "instant at 60 s: %.3f W", at60);
    cr_assert(fabs(100 * (300 - at180) / at180 - 50.0) < 1e-9, "instant at 180 s: %.3f W", at180);
    const wc_acc_cell *c = wc_accuracy_cell(rep, 0, 0, 0, -1);
    cr_assert_not_null(c);
    cr_assert(fabs(c->acc.bias_pct.est) < 1e-9 && fabs(c->acc.mae_w.est) < 1e-9,
              "B22 must give 0 %% error, got bias %.6f %%", c->acc.bias_pct.est);
    wc_pairs_free(&p);
    wc_accuracy_free(rep);
    wc_store_close(st);
    free(rep);
}

Test(align, b22_bmc_minute_average_compared_over_its_minute_is_zero_error)
{
    double ref[256];
    int pub_s[8], npub = 0;
    double pub_w[8];
    int n = read_b22(ref, pub_s, pub_w, &npub);
    cr_assert_eq(n, 181);
    cr_assert_eq(npub, 3);
    char once[512], polled[512];
    snprintf(once, sizeof once, "%s", db_path("b22.db"));
    snprintf(polled, sizeof polled, "%s", db_path("b22poll.db"));
    build_b22(once, ref, n, pub_s, pub_w, npub, 0);
    check_b22(once, npub);
    /* polled every second, the BMC re-serves its last minute: folded into one reading */
    build_b22(polled, ref, n, pub_s, pub_w, npub, 1);
    check_b22(polled, npub);
}

Test(align, suspend_clock_steps_and_gaps_never_produce_power)
{
    trun t;
    trun_zone z[2] = {{"package", 0, WC_KIND_COUNTER_UJ}, {"dram", 0, WC_KIND_COUNTER_UJ}};
    const char *path = db_path("clocks.db");
    trun_create(&t, path, z, 2);
    int64_t mono = 0, boot = 0, wall = S(1700000000);
    for (int k = 0; k < 200; k++) {
        double w[2] = {100, 10};
        int64_t step = S(1);
        if (k == 50) {
            boot += S(60);              /* suspended 60 s: the counters kept counting */
            w[0] *= 61, w[1] *= 61;
        }
        if (k == 70)
            wall -= S(3600);            /* NTP steps the wall clock back an hour */
        if (k == 120) {
            wall += S(300);
            step = S(30);               /* nothing sampled for 30 s (same power: only the gap is special) */
        }
        if (k == 150)
            wall += S(86400);           /* and a day forward */
        mono += k ? step : 0;
        boot += k ? step : 0;
        wall += k ? step : 0;
        trun_tick(&t, mono, boot, wall, w, 0.3);
    }
    trun_finish(&t);
    wc_store *st = open_ro(path);
    wc_timebase tb;
    wc_error err = {{0}};
    cr_assert_eq(wc_timebase_load(st, &tb, &err), 0, "%s", err.msg);
    cr_assert_eq(tb.gaps.suspends, 1);
    cr_assert(fabs(tb.gaps.suspended_seconds - 60) < 1e-6);
    cr_assert_eq(tb.gaps.long_gaps, 1);
    cr_assert(fabs(tb.gaps.gap_seconds - 30) < 1e-6);
    static const char *const NODE[] = {"package", "dram", NULL};
    wc_cumseries s;
    size_t nf = 0;
    cr_assert_eq(wc_series_meter(st, &tb, NODE, &s, &nf, &err), 0, "%s", err.msg);
    cr_assert_eq(nf, 2);
    wc_pairs p;
    cr_assert_eq(wc_align_series_windows(&s, NULL, tb.mono_ns[0], S(10), INT64_MIN, INT64_MAX, &p), 0);
    cr_assert(p.n >= 15, "windows away from the suspend and the gap are scored: %zu", p.n);
    for (size_t i = 0; i < p.n; i++)
        cr_assert(fabs(p.source_w[i] - 110) < 1e-6, "window at %lld s: %.3f W (a suspend or clock step"
                  " leaked into power)", (long long)(p.a_ns[i] / 1000000000LL), p.source_w[i]);
    /* a window across the suspend or the gap is not scored */
    for (size_t i = 0; i < p.n; i++) {
        cr_assert(!(p.a_ns[i] < S(50) && p.b_ns[i] > S(49)), "window over the suspend scored");
        cr_assert(!(p.a_ns[i] < S(149) && p.b_ns[i] > S(119)), "window over the gap scored");
    }
    /* the run total still counts the suspend's energy: totals are not windows */
    cr_assert(wc_cumseries_total(&s) > 110 * 200);
    wc_pairs_free(&p);
    wc_cumseries_free(&s);
    wc_timebase_free(&tb);
    wc_store_close(st);
}

Test(align, flagged_truth_samples_are_excluded_and_counted)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    const char *path = db_path("flags.db");
    trun_create(&t, path, z, 1);
    for (int k = 0; k <= 60; k++) {
        double w = 100;
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    }
    int64_t src = trun_truth_source(&t, "ipmi:local", "ipmi", WC_PROV_GROUND_TRUTH);
    for (int k = 2; k <= 60; k++) {
        const char *st = k % 10 == 0 ? "error" : k % 7 == 0 ? "unavailable" : k % 5 == 0 ? "stale" : "ok";
        trun_truth(&t, src, S(k), 150, 0, 0, k * 1000, st);
    }
    trun_finish(&t);
    wc_store *st = open_ro(path);
    wc_truth_series ts[2];
    wc_error err = {{0}};
    wc_timebase tb;
    cr_assert_eq(wc_timebase_load(st, &tb, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_truth_series_load(st, &tb, ts, 2, &err), 1, "%s", err.msg);
    wc_timebase_free(&tb);
    cr_assert_eq(ts[0].counts.polls, 59);
    cr_assert_eq(ts[0].counts.error, 6);
    cr_assert_eq(ts[0].counts.unavailable, 8, "7, 14, ..., 56");
    cr_assert_eq(ts[0].counts.stale, 5, "5, 15, 25, 45, 55");
    cr_assert_eq(ts[0].counts.used, 59 - 6 - 8 - 5);
    for (size_t i = 0; i < ts[0].n; i++)
        cr_assert_eq(ts[0].r[i].watts, 150);
    wc_truth_series_free(&ts[0]);
    wc_store_close(st);
}

/* Regressions from an attack run on the validator. */

Test(align, a_monotonic_clock_going_back_is_refused_not_scored)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    char path[512];
    snprintf(path, sizeof path, "%s", db_path("back.db"));
    trun_create(&t, path, z, 1);
    for (int k = 0; k < 10; k++) {
        double w = 50;
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    }
    trun_finish(&t);
    trun_exec(path, "UPDATE tick SET mono_ns = 9000000000000 - mono_ns;");
    wc_store *st = open_ro(path);
    wc_timebase tb;
    wc_error err = {{0}};
    cr_assert_eq(wc_timebase_load(st, &tb, &err), -EINVAL);
    cr_assert(strstr(err.msg, "monotonic clock is corrupt"), "%s", err.msg);
    wc_store_close(st);
}

Test(align, implausible_truth_and_non_integer_counters_are_excluded)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    char path[512];
    snprintf(path, sizeof path, "%s", db_path("implausible.db"));
    trun_create(&t, path, z, 1);
    for (int k = 0; k <= 20; k++) {
        double w = 100;
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    }
    int64_t src = trun_truth_source(&t, "file:pdu.csv", "file", WC_PROV_GROUND_TRUTH);
    for (int k = 1; k <= 20; k++)
        trun_truth(&t, src, S(k), 150, 0, 0, 0, "ok");
    trun_finish(&t);
    trun_exec(path, "UPDATE truth_sample SET watts = 1e300 WHERE rowid = 3;"
                    "UPDATE truth_sample SET watts = -5 WHERE rowid = 4;"
                    "UPDATE truth_sample SET window_s = 1e12, window_known = 1 WHERE rowid = 5;"
                    "UPDATE truth_sample SET poll_mono_ns = 9000000000000000000 WHERE rowid = 6;"
                    "UPDATE zone_sample SET value = 'abc' WHERE tick_id = 10;");
    wc_store *st = open_ro(path);
    wc_timebase tb;
    wc_error err = {{0}};
    cr_assert_eq(wc_timebase_load(st, &tb, &err), 0, "%s", err.msg);
    wc_truth_series ts[1];
    cr_assert_eq(wc_truth_series_load(st, &tb, ts, 1, &err), 1, "%s", err.msg);
    cr_assert_eq(ts[0].counts.invalid, 4, "1e300 W, -5 W, a 1e12 s window, a poll far outside the run");
    cr_assert_eq(ts[0].counts.used, 16);
    for (size_t i = 0; i < ts[0].n; i++)
        cr_assert_eq(ts[0].r[i].watts, 150);
    /* a TEXT counter value is a failed read: its two intervals are gaps, no
     * phantom wraps, and the run total keeps the energy across the failure */
    static const char *const PKG[] = {"package", NULL};
    wc_cumseries s;
    size_t nf = 0;
    cr_assert_eq(wc_series_meter(st, &tb, PKG, &s, &nf, &err), 0, "%s", err.msg);
    cr_assert(fabs(wc_cumseries_total(&s) - 100 * 20) < 1e-6, "total %.6f J", wc_cumseries_total(&s));
    cr_assert(isnan(wc_cumseries_rate(&s, S(8), S(10))), "an interval next to the failed read is a gap");
    cr_assert(fabs(wc_cumseries_rate(&s, S(11), S(15)) - 100) < 1e-9);
    wc_cumseries_free(&s);
    wc_truth_series_free(&ts[0]);
    wc_timebase_free(&tb);
    wc_store_close(st);
}

Test(align, an_exact_series_without_a_stated_window_gets_lag_zero_not_a_tied_later_point)
{
    /* an imported wall meter: each row's value is the mean over the interval
     * since the previous row, exactly (P + 40) / 0.92 */
    static load l;
    make_load(&l, 5);
    trun t;
    trun_zone z[2] = {{"package", 0, WC_KIND_COUNTER_UJ}, {"dram", 0, WC_KIND_COUNTER_UJ}};
    char path[512];
    snprintf(path, sizeof path, "%s", db_path("exact.db"));
    trun_create(&t, path, z, 2);
    for (int k = 0; k <= 300; k++) {
        double w[2] = {l.pkg[k], l.dram[k]};
        trun_tick(&t, S(k), S(k), S(k), w, 0.5);
    }
    int64_t src = trun_truth_source(&t, "csv:wall", "import", WC_PROV_GROUND_TRUTH);
    for (int k = 1; k <= 300; k++)
        trun_truth(&t, src, S(k), (l.pkg[k] + l.dram[k] + 40) / 0.92, 0, 0, S(k), "ok");
    trun_finish(&t);
    wc_accuracy_report *rep = calloc(1, sizeof *rep);
    wc_store *st;
    load_and_score(path, rep, &st);
    const wc_lagwin *lw = &rep->lag[0];
    cr_assert(lw->identifiable, "%s", lw->note);
    cr_assert_eq(lw->lag_s, 0, "lag %.3f s", lw->lag_s);
    cr_assert(fabs(lw->window_s - 1) < 1e-9, "window %.3f s: the reading covers the second before it",
              lw->window_s);
    wc_accuracy_free(rep);
    wc_store_close(st);
    free(rep);
}
