/*
 * test_align_cases.c — the validator's alignment of a BMC's one-minute mean
 * (cases/B22) on the project's own step series,
 * tests/fixtures/align/bmc-minute-average.csv: each reading compared with the
 * reference's mean over its own minute gives 0 % error, where a comparison at
 * the publish instant would give -37.5 % and +25 %; the same when the BMC is
 * polled every second and re-serves its last minute. test_align.c proves the
 * same on the shared cases/B22/step_series.csv.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/accuracy.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"

#define S(x) ((int64_t)((x) * 1000000000LL))
#define MAX_S 256

typedef struct series {
    double ref[MAX_S];
    int n;                 /* seconds of reference */
    int pub_s[8], npub;
    double pub_w[8];
} series;

/* Reads the fixture's "ref" spans and "bmc" publications. */
static void read_series(series *s)
{
    memset(s, 0, sizeof *s);
    char *text = wc_test_slurp(wc_own_fixture("align/bmc-minute-average.csv"), NULL);
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        int a, b;
        double w;
        if (sscanf(l, "ref,%d,%d,%lf", &a, &b, &w) == 3) {
            cr_assert(a == s->n && b <= MAX_S, "spans must follow each other: %s", l);
            for (int k = a; k < b; k++)
                s->ref[k] = w;
            s->n = b;
        } else if (sscanf(l, "bmc,%d,%lf", &a, &w) == 2) {
            cr_assert_lt(s->npub, 8);
            s->pub_s[s->npub] = a;
            s->pub_w[s->npub++] = w;
        } else {
            cr_assert_eq(l[0], '#', "unexpected line: %s", l);
        }
    }
    free(text);
}

/* A run: the reference as a package counter (second k feeds the tick of
 * k + 1), the BMC readings with their 60 s window, once or every second. */
static void build(const char *path, const series *s, int poll_every_second)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    double none = 0;
    trun_tick(&t, 0, 0, 0, &none, 0.5);
    for (int k = 0; k < s->n; k++)
        trun_tick(&t, S(k + 1), S(k + 1), S(k + 1), &s->ref[k], 0.5);
    int64_t src = trun_truth_source(&t, "redfish:https://bmc.example", "redfish",
                                    WC_PROV_GROUND_TRUTH);
    for (int i = 0; i < s->npub; i++) {
        int until = !poll_every_second ? s->pub_s[i] + 1
                    : i + 1 < s->npub  ? s->pub_s[i + 1]
                                       : s->pub_s[i] + 1;
        for (int k = s->pub_s[i]; k < until; k++)
            trun_truth(&t, src, S(k), s->pub_w[i], 60, 1, 0, "ok");
    }
    trun_finish(&t);
}

static void check(const char *path, const series *s)
{
    wc_error oerr = {{0}};
    wc_store *db = wc_store_open(path, WC_STORE_READ, &oerr);
    cr_assert_not_null(db, "%s", oerr.msg);
    wc_accuracy_report *rep = calloc(1, sizeof *rep);
    wc_acc_opts o;
    memset(&o, 0, sizeof o);
    o.boot.seed = 1;
    wc_error err = {{0}};
    cr_assert_eq(wc_accuracy_load(db, &o, rep, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_accuracy_score(rep, &err), 0, "%s", err.msg);
    cr_assert_eq(rep->truth[0].n, (size_t)s->npub, "one reading per published minute");
    cr_assert_eq(rep->truth[0].median_window_s, 60);
    wc_pairs p;
    cr_assert_eq(wc_align_native(&rep->sources[0].series, &rep->truth[0], &rep->lag[0], INT64_MIN,
                                 INT64_MAX, &p), 0);
    cr_assert_eq(p.n, 3);
    for (size_t i = 0; i < p.n; i++)
        cr_assert(fabs(p.source_w[i] - p.truth_w[i]) < 1e-9,
                  "t=%lld s: reference %.6f over the BMC's minute vs BMC %.1f",
                  (long long)(p.b_ns[i] / 1000000000LL), p.source_w[i], p.truth_w[i]);
    /* what a naive comparison at the publish instant would have said */
    double at60 = wc_cumseries_rate(&rep->sources[0].series, S(60), S(61));
    double at180 = wc_cumseries_rate(&rep->sources[0].series, S(180), S(181));
    cr_assert(fabs(100 * (300 - at60) / at60 - -37.5) < 1e-9, "instant at 60 s: %.3f W", at60);
    cr_assert(fabs(100 * (300 - at180) / at180 - 25.0) < 1e-9, "instant at 180 s: %.3f W", at180);
    const wc_acc_cell *c = wc_accuracy_cell(rep, 0, 0, 0, -1);
    cr_assert_not_null(c);
    cr_assert(fabs(c->acc.bias_pct.est) < 1e-9 && fabs(c->acc.mae_w.est) < 1e-9,
              "a minute mean compared over its minute: 0 %% error, got bias %.6f %%",
              c->acc.bias_pct.est);
    wc_pairs_free(&p);
    wc_accuracy_free(rep);
    wc_store_close(db);
    free(rep);
}

Test(align_cases, bmc_minute_average_compared_over_its_minute_is_zero_error)
{
    series s;
    read_series(&s);
    cr_assert_eq(s.n, 181);
    cr_assert_eq(s.npub, 3);
    const char *dir = wc_test_tmpdir();
    char once[512], polled[512];
    snprintf(once, sizeof once, "%s/once.db", dir);
    snprintf(polled, sizeof polled, "%s/polled.db", dir);
    build(once, &s, 0);
    check(once, &s);
    /* polled every second, the BMC re-serves its last minute: folded into one reading */
    build(polled, &s, 1);
    check(polled, &s);
}
