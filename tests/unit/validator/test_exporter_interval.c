/*
 * test_exporter_interval.c — the exporter's refresh interval learnt from its
 * scrapes (validator/exporter_interval.c): scraped every second, a node
 * whose counters move every 5 s (Kepler's default monitor.interval) reads
 * as 5 s; one whose counters move at every scrape reads as "every scrape"
 * (its own interval is 1 s or shorter); two changes are too few.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector/store/store_exporter.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"
#include "tests/unit/validator/xp_store.h"
#include "validator/exporter_data.h"

#define S(k) ((int64_t)(k) * 1000000000LL)

/* A run whose exporter is scraped at 1..nscrapes s; its counters step by
 * 10 J at every `every`-th scrape. Learns its interval into r. */
static void learn(const char *name, int nscrapes, int every, wc_xp_refresh *r)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.db", wc_test_tmpdir(), name);
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    double w = 20;
    for (int k = 0; k <= nscrapes + 1; k++)
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    int64_t id = xp_put_exporter(t.st, "kepler:http://127.0.0.1:1/metrics", "n1");
    double j = 0;
    char text[512];
    for (int k = 1; k <= nscrapes; k++) {
        j += k % every == 0 ? 10 : 0;
        snprintf(text, sizeof text,
                 "kepler_node_cpu_active_joules_total{path=\"/sys/class/powercap/intel-rapl:0\","
                 "zone=\"package\"} %g\n"
                 "kepler_node_cpu_idle_joules_total{path=\"/sys/class/powercap/intel-rapl:0\","
                 "zone=\"package\"} %g\n", j, j);
        xp_put_scrape(t.st, id, S(k), text);
    }
    trun_finish(&t);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_exporter_info info[1];
    size_t n = 0;
    cr_assert_eq(wc_store_exporters(st, info, 1, &n, &err), 0, "%s", err.msg);
    wc_xp_data d;
    cr_assert_eq(wc_xp_load(st, &info[0], &d, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_xp_refresh_interval(&d, r), 0);
    wc_xp_free(&d);
    wc_store_close(st);
}

Test(exporter_interval, kepler_default_five_seconds)
{
    wc_xp_refresh r;
    learn("five", 21, 5, &r); /* changes at 5, 10, 15, 20 s */
    cr_assert_float_eq(r.interval_s, 5, 1e-9, "%g s", r.interval_s);
    cr_assert_float_eq(r.scrape_s, 1, 1e-9);
    cr_assert_eq(r.changes, 4);
    cr_assert_eq(r.compared, 20);
    cr_assert_not(r.every_scrape);
}

Test(exporter_interval, every_scrape_is_a_bound)
{
    wc_xp_refresh r;
    learn("each", 8, 1, &r);
    cr_assert_float_eq(r.interval_s, 1, 1e-9);
    cr_assert(r.every_scrape);
}

Test(exporter_interval, too_few_changes)
{
    wc_xp_refresh r;
    learn("few", 9, 4, &r); /* changes at 4 and 8 s: one spacing */
    cr_assert_eq(r.changes, 2);
    cr_assert(isnan(r.interval_s));
}
