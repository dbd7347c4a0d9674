/*
 * test_exporter_caps.c — the node sources of up to WC_XP_MAX exporters
 * (validator/exporter_node.c, accuracy.c's source array grows): four
 * exporters × (package, package+dram, platform power) beside the meter are
 * 13 sources (the cap was 8, and "not scored (no room)" said so); the
 * platform power (kepler_platform_watts, no device label) is one of them.
 * dram and core alone are no wall estimate: not scored, and the note says so.
 * A last error scrape that the run's end cancelled is counted apart: neither
 * ok nor failed (exporter_report.c).
 * The expositions are generated here: 6 scrapes, one second apart, of a
 * Kepler v0.11 node whose zone z of exporter e draws (10 e + z + 1) W.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"
#include "validator/accuracy.h"
#include "tests/unit/validator/xp_store.h"
#include "validator/exporter_report.h"

#define S(k) ((int64_t)(k) * 1000000000LL)
#define NEXP 4
#define NSCRAPES 6

static const char *const ZONES[] = {"package", "dram", "core"};

/* Scrape k (1..NSCRAPES, at k s) of exporter e as exposition text. */
static void exposition(int e, int k, char *buf, size_t cap)
{
    size_t used = 0;
    for (int z = 0; z < 3; z++) {
        double w = 10.0 * e + z + 1, total = w * k;
        used += (size_t)snprintf(buf + used, cap - used,
                                 "kepler_node_cpu_joules_total{path=\"/sys/class/powercap/intel-rapl:0\","
                                 "zone=\"%s\"} %g\n"
                                 "kepler_node_cpu_active_joules_total{path=\"/sys/class/powercap/"
                                 "intel-rapl:0\",zone=\"%s\"} %g\n"
                                 "kepler_node_cpu_idle_joules_total{path=\"/sys/class/powercap/"
                                 "intel-rapl:0\",zone=\"%s\"} %g\n",
                                 ZONES[z], total, ZONES[z], total / 2, ZONES[z], total / 2);
    }
    snprintf(buf + used, cap - used, "kepler_platform_watts{source=\"acpi\"} %g\n", 100.0 + e);
}

static void put_exporter(wc_store *st, int e)
{
    char spec[64], node[16], text[4096];
    snprintf(spec, sizeof spec, "kepler:http://127.0.0.1:%d/metrics", 1000 + e);
    snprintf(node, sizeof node, "n%d", e);
    int64_t id = xp_put_exporter(st, spec, node);
    for (int k = 1; k <= NSCRAPES; k++) {
        exposition(e, k, text, sizeof text);
        xp_put_scrape(st, id, S(k), text);
    }
    /* the run ended during a last request: stored as an error (exporter_scrape.c) */
    wc_scrape_meta m = {.exporter_id = id, .req_mono_ns = S(NSCRAPES) + S(1) / 2,
                        .resp_mono_ns = S(NSCRAPES + 1)};
    snprintf(m.status, sizeof m.status, "error");
    snprintf(m.error, sizeof m.error, "http://127.0.0.1:%d/metrics: cancelled: the run ended during the request",
             1000 + e);
    wc_error err = {{0}};
    cr_assert_eq(wc_store_begin(st, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_scrape(st, &m, &err), 0, "%s", err.msg);
    /* a failure whose quoted answer carries those words is still a failure */
    m.id = 0;
    snprintf(m.error, sizeof m.error, "http://127.0.0.1:%d/metrics: HTTP 500: x: cancelled: the run"
             " ended during the request", 1000 + e);
    cr_assert_eq(wc_store_put_scrape(st, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_commit(st, &err), 0, "%s", err.msg);
}

Test(exporter_caps, every_zone_of_four_exporters_is_scored)
{
    char path[512];
    snprintf(path, sizeof path, "%s/caps.db", wc_test_tmpdir());
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    double w = 20;
    for (int k = 0; k < 8; k++)
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    for (int e = 0; e < NEXP; e++)
        put_exporter(t.st, e);
    trun_finish(&t);

    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_acc_opts o;
    memset(&o, 0, sizeof o);
    wc_accuracy_report acc;
    cr_assert_eq(wc_accuracy_load(st, &o, &acc, &err), 0, "%s", err.msg);
    size_t before = acc.nsources;
    wc_xp_report *r = calloc(1, sizeof *r);
    cr_assert_eq(wc_xp_report_load(st, &acc, r, &err), 0, "%s", err.msg);
    cr_assert_eq(r->n, NEXP);
    for (int e = 0; e < NEXP; e++) {
        const wc_xp_one *x = &r->x[e];
        cr_assert_eq(x->nsources, 3, "exporter %d: %zu sources", e, x->nsources);
        cr_assert_eq(x->nscrapes, NSCRAPES + 2);
        cr_assert_eq(x->scrapes_ok, NSCRAPES);
        cr_assert_eq(x->scrapes_cancelled, 1);
        cr_assert_str_eq(x->sources_note,
                         "dram, core not scored alone: a part of the node is no wall estimate (package+dram is)");
        /* package: 10 e + 1 W; package+dram: (10 e + 1) + (10 e + 2) W */
        static const char *const want_zone[] = {"package", "package+dram"};
        for (size_t s = 0; s < 2; s++) {
            cr_assert_str_eq(x->source_zone[s], want_zone[s]);
            const wc_acc_source *src = &acc.sources[x->source_index[s]];
            double want_w = s ? 20.0 * e + 3 : 10.0 * e + 1;
            cr_assert_float_eq(src->run_energy_j, want_w * (NSCRAPES - 1), 1e-6, "%s: %g J",
                               src->name, src->run_energy_j);
        }
        char want_name[64];
        snprintf(want_name, sizeof want_name, "exporter#%lld:package+dram", (long long)x->info.id);
        cr_assert_str_eq(acc.sources[x->source_index[1]].name, want_name);
        cr_assert_str_eq(x->source_zone[2], "platform");
        const wc_acc_source *p = &acc.sources[x->source_index[2]];
        cr_assert_float_eq(p->run_energy_j, (100.0 + e) * (NSCRAPES - 1), 1e-6, "%s: %g J", p->name,
                           p->run_energy_j);
        for (size_t i = 0; i < acc.nsources; i++)
            cr_assert(!strstr(acc.sources[i].name, ":dram") && !strstr(acc.sources[i].name, ":core"),
                      "a part of the node scored alone: %s", acc.sources[i].name);
    }
    cr_assert_eq(acc.nsources, before + NEXP * 3, "%zu sources", acc.nsources);
    wc_xp_report_free(r);
    free(r);
    wc_accuracy_free(&acc);
    wc_store_close(st);
}
