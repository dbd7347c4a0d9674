/*
 * test_exporter_diff.c — `diff` of two runs on the exporter's own per-pod
 * series (validator/exporter_diff.c), with a known answer: two hand-made
 * runs, 26 scrapes one second apart, two pods matched by uid.
 *  - shop/web (uid p-up): 10 W in A, 12 W in B (+20 %): CHANGED, the
 *    difference's interval excludes 0 and holds +2 W;
 *  - shop/db (uid p-flat): 5 W in both: same (the interval inside ±10 %).
 * Each pod's power wobbles by −0.4..+0.4 W (period 5, mean 0 over the 25
 * windows) so the intervals have a width; B's wobble is shifted. B's db
 * counter falls once (scrape 13): that window is left out of its mean, never
 * read as 0 W (which would show it 4 % down).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"
#include "tests/unit/validator/xp_store.h"
#include "validator/exporter_diff.h"

#define S(k) ((int64_t)(k) * 1000000000LL)
#define NSCRAPES 26

/* The pod's power (W) over the second before scrape k; shift: B's phase. */
static double pod_w(double base, int k, int shift)
{
    return base + 0.2 * (double)((k + shift) % 5 - 2);
}

/* A run whose exporter reports the two pods at up_w and 5 W; the db pod's
 * counter starts again from 0 at scrape reset_at (0: never). */
static void build(const char *path, double up_w, int shift, int reset_at)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    double w = 20;
    for (int k = 0; k <= NSCRAPES + 1; k++)
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    int64_t id = xp_put_exporter(t.st, "kepler:http://127.0.0.1:1/metrics", "n1");
    double up_j = 0, flat_j = 0;
    char text[1024];
    for (int k = 1; k <= NSCRAPES; k++) {
        if (k > 1) {
            up_j += pod_w(up_w, k, shift);
            flat_j = (k == reset_at ? 0 : flat_j) + pod_w(5, k, shift);
        }
        snprintf(text, sizeof text,
                 "kepler_pod_cpu_joules_total{pod_id=\"p-up\",pod_name=\"web\",pod_namespace=\"shop\","
                 "state=\"running\",zone=\"package\"} %.6f\n"
                 "kepler_pod_cpu_joules_total{pod_id=\"p-flat\",pod_name=\"db\",pod_namespace=\"shop\","
                 "state=\"running\",zone=\"package\"} %.6f\n",
                 up_j, flat_j);
        xp_put_scrape(t.st, id, S(k), text);
    }
    trun_finish(&t);
}

static const wc_diff_row *row(const wc_xp_diff_report *r, const char *uid, size_t *at)
{
    for (size_t i = 0; i < r->pods.n; i++)
        if (!strcmp(r->pods.rows[i].key, uid)) {
            *at = i;
            return &r->pods.rows[i];
        }
    cr_assert_fail("no row %s", uid);
    return NULL;
}

Test(exporter_diff, pod_up_20_pct_changed_flat_pod_same)
{
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/a.db", wc_test_tmpdir());
    snprintf(pb, sizeof pb, "%s/b.db", wc_test_tmpdir());
    build(pa, 10, 0, 0);
    build(pb, 12, 2, 13);
    wc_error err = {{0}};
    wc_diff_side a = {0}, b = {0};
    a.st = wc_store_open(pa, WC_STORE_READ, &err);
    b.st = wc_store_open(pb, WC_STORE_READ, &err);
    cr_assert(a.st && b.st, "%s", err.msg);
    wc_diff_opts o = {.window_s = 1, .boot = {.replicates = 1000, .seed = 1}};
    wc_xp_diff_report r;
    cr_assert_eq(wc_xp_diff(&a, &b, &o, &r, &err), 0, "%s", err.msg);
    cr_assert(r.have);
    cr_assert_eq(r.a_windows, NSCRAPES - 1);
    cr_assert_eq(r.pods.n, 2);
    size_t i = 0;
    const wc_diff_row *up = row(&r, "p-up", &i);
    cr_assert_str_eq(r.names[i], "shop/web");
    cr_assert_float_eq(up->a_w.est, 10, 1e-6, "A %g W", up->a_w.est);
    cr_assert_float_eq(up->b_w.est, 12, 1e-6, "B %g W", up->b_w.est);
    cr_assert_float_eq(up->diff_pct, 20, 1e-6, "%g %%", up->diff_pct);
    cr_assert(up->diff_w.lo > 0 && up->diff_w.lo <= 2 && 2 <= up->diff_w.hi, "CI [%g, %g]",
              up->diff_w.lo, up->diff_w.hi);
    cr_assert_eq(up->verdict, WC_DIFF_CHANGED, "%s", wc_diff_verdict_name(up->verdict));
    const wc_diff_row *flat = row(&r, "p-flat", &i);
    cr_assert_float_eq(flat->a_w.est, 5, 1e-6, "A %g W", flat->a_w.est);
    cr_assert_float_eq(flat->b_w.est, 5 + 0.4 / 24, 1e-6, "B %g W: 24 known windows", flat->b_w.est);
    cr_assert(flat->diff_w.lo < 0 && flat->diff_w.hi > 0, "CI [%g, %g]", flat->diff_w.lo,
              flat->diff_w.hi);
    cr_assert_eq(flat->verdict, WC_DIFF_SAME, "%s", wc_diff_verdict_name(flat->verdict));
    cr_assert_eq(r.counts.changed, 1);
    cr_assert_eq(r.counts.same, 1);
    wc_store_close(a.st);
    wc_store_close(b.st);
}
