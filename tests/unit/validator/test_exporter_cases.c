/*
 * test_exporter_cases.c — the validator's reading of an exporter's own
 * numbers (validator/exporter_*.c) on the project's own fixture
 * tests/fixtures/exporter/faults-6scrapes.prom: six Kepler v0.11 scrapes of a
 * node, one second apart, with known answers (the fixture's README.md): a
 * raw counter wrap bridged by active+idle, an exporter restart (a reset, not
 * a wrap), a pod reported at 1.5 × its container, a usage ratio of 1.2 and a
 * pod exported once as terminated.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store.h"
#include "collector/store/store_exporter.h"
#include "tests/unit/collector/exporter/expo_collect.h"
#include "tests/unit/support/test_rundb.h"
#include "tests/unit/support/test_support.h"
#include "validator/exporter_report.h"
#include "validator/validation.h"

#define S(k) ((int64_t)(k) * 1000000000LL)

/* Stores one scrape (its exposition text) at t_ms. */
static void put_scrape(wc_store *st, int64_t exporter_id, int64_t t_ms, const char *text)
{
    expo_got g;
    expo_collect_str(text, WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    wc_error err = {{0}};
    wc_scrape_meta m = {.exporter_id = exporter_id, .req_mono_ns = t_ms * 1000000, .resp_mono_ns = t_ms * 1000000,
                        .http_status = 200, .samples = (int64_t)g.n};
    snprintf(m.status, sizeof m.status, "ok");
    wc_exporter_sample_in *in = calloc(g.n, sizeof *in);
    for (size_t i = 0; i < g.n; i++)
        in[i] = (wc_exporter_sample_in){.metric = g.r[i].name, .labels = g.r[i].labels,
                                        .fact = g.r[i].kepler ? &g.r[i].fact : NULL, .value = g.r[i].value};
    cr_assert_eq(wc_store_begin(st, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_scrape(st, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_exporter_samples(st, exporter_id, m.id, in, g.n, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_commit(st, &err), 0, "%s", err.msg);
    free(in);
    expo_got_free(&g);
}

/* A run of 8 ticks with the scrapes of fixture (tests/fixtures/exporter/)
 * stored as exporter 1. */
static void build_from(const char *path, const char *fixture)
{
    trun t;
    trun_zone z[1] = {{"package", 0, WC_KIND_COUNTER_UJ}};
    trun_create(&t, path, z, 1);
    double w = 20;
    for (int k = 0; k < 8; k++)
        trun_tick(&t, S(k), S(k), S(k), &w, 0.5);
    wc_error err = {{0}};
    wc_exporter_info e = {0};
    snprintf(e.spec, sizeof e.spec, "kepler:http://127.0.0.1:1/metrics");
    snprintf(e.kind, sizeof e.kind, "kepler");
    snprintf(e.origin, sizeof e.origin, "live");
    snprintf(e.node, sizeof e.node, "n1");
    snprintf(e.version, sizeof e.version, "0.11.0");
    snprintf(e.power_source, sizeof e.power_source, "measured");
    snprintf(e.provenance, sizeof e.provenance, "exporter kepler 0.11.0 (measured)");
    cr_assert_eq(wc_store_put_exporter(t.st, &e, &err), 0, "%s", err.msg);
    size_t len = 0;
    char *body = wc_test_slurp(wc_own_fixture(fixture), &len);
    for (char *p = strstr(body, "# --- scrape "); p;) {
        long t_ms = strtol(p + 13, NULL, 10);
        char *next = strstr(p + 1, "# --- scrape ");
        char save = next ? *next : 0;
        if (next)
            *next = '\0';
        put_scrape(t.st, e.id, t_ms, p);
        if (next)
            *next = save;
        p = next;
    }
    free(body);
    trun_finish(&t);
}

/* The fixture loaded and checked. */
static void load_from(wc_xp_data *d, wc_xp_one *x, const char *fixture, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", wc_test_tmpdir(), name);
    build_from(path, fixture);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_READ, &err);
    cr_assert_not_null(st, "%s", err.msg);
    wc_exporter_info info[2];
    size_t n = 0;
    cr_assert_eq(wc_store_exporters(st, info, 2, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1);
    cr_assert_eq(wc_xp_load(st, &info[0], d, &err), 0, "%s", err.msg);
    wc_store_close(st);
    memset(x, 0, sizeof *x);
    x->info = info[0];
    cr_assert_eq(wc_xp_check(d, x), 0);
    cr_assert_eq(wc_xp_showback(d, NULL, NAN, x), 0);
}

static void load(wc_xp_data *d, wc_xp_one *x)
{
    load_from(d, x, "exporter/faults-6scrapes.prom", "x.db");
}

static const wc_xp_invariant *inv(const wc_xp_one *x, const char *name)
{
    for (size_t i = 0; i < x->ninv; i++)
        if (!strcmp(x->inv[i].name, name))
            return &x->inv[i];
    cr_assert_fail("no invariant %s", name);
    return NULL;
}

Test(exporter_cases, wrap_bridged_restart_is_a_reset)
{
    wc_xp_data d;
    wc_xp_one x;
    load(&d, &x);
    cr_assert_eq(d.nscrapes, 6);
    cr_assert_eq(d.nrestarts, 1, "the scrape where active and idle fall");
    cr_assert(d.restart[4]);
    double cum[6];
    unsigned char ok[6];
    size_t wraps = 0, resets = 0;
    cr_assert_eq(wc_xp_zone_energy(&d, "package", cum, ok, &wraps, &resets), 0);
    cr_assert_eq(wraps, 1);
    cr_assert_eq(resets, 1);
    const double want[6] = {0, 20, 40, 60, 60, 80}; /* the wrap's 20 J from active + idle */
    const unsigned char want_ok[6] = {1, 1, 1, 0, 1, 0};
    for (int k = 0; k < 6; k++) {
        cr_assert_float_eq(cum[k], want[k], 1e-9, "cum[%d] = %g", k, cum[k]);
        cr_assert_eq(ok[k], want_ok[k], "okseg[%d]", k);
    }
    const wc_xp_invariant *m = inv(&x, "counters monotonic except resets");
    cr_assert_eq(m->verdict, WC_XP_PASS);
    cr_assert_eq(m->violations, 0);
    cr_assert_eq(wc_xp_zone_energy(&d, "dram", cum, ok, &wraps, &resets), -ENOENT);
    wc_xp_free(&d);
}

Test(exporter_cases, invariants_find_the_planted_faults)
{
    wc_xp_data d;
    wc_xp_one x;
    load(&d, &x);
    const wc_xp_invariant *t = inv(&x, "total = active + idle");
    cr_assert_eq(t->checked, 3, "wrap and restart intervals left out: %zu", t->checked);
    cr_assert_eq(t->verdict, WC_XP_PASS);
    const wc_xp_invariant *p = inv(&x, "pod = sum(containers)");
    cr_assert_eq(p->checked, 10, "%zu", p->checked); /* p1, p2: 4 intervals each; p3: 2 */
    cr_assert_eq(p->violations, 4);
    cr_assert_float_eq(p->worst, 50.0, 1e-9);
    cr_assert(strstr(p->worst_at, "db-0"), "%s", p->worst_at);
    cr_assert_eq(p->verdict, WC_XP_FAIL);
    const wc_xp_invariant *s = inv(&x, "sum(processes) <= node active");
    cr_assert_eq(s->verdict, WC_XP_PASS);
    const wc_xp_invariant *r = inv(&x, "usage ratio in [0, 1]");
    cr_assert_eq(r->checked, 6);
    cr_assert_eq(r->violations, 1);
    cr_assert_float_eq(r->worst, 0.2, 1e-9);
    cr_assert_eq(r->verdict, WC_XP_FAIL);
    const wc_xp_invariant *g = inv(&x, "terminated workloads vanish");
    cr_assert_eq(g->checked, 3, "pod, container and process p3");
    cr_assert_eq(g->violations, 0);
    cr_assert_eq(g->verdict, WC_XP_PASS);
    wc_xp_free(&d);
}

Test(exporter_cases, gap_split_and_showback)
{
    wc_xp_data d;
    wc_xp_one x;
    load(&d, &x);
    cr_assert_eq(x.ngap, 1);
    const wc_xp_gap *g = &x.gap[0];
    cr_assert_eq(g->intervals, 4);
    cr_assert_float_eq(g->active_j, 32, 1e-9);
    cr_assert_float_eq(g->idle_j, 48, 1e-9);
    cr_assert_float_eq(g->pods_j, 21.5, 1e-9);
    cr_assert_float_eq(g->outside_j, 10.5, 1e-9);
    cr_assert_eq(x.nshow, 3);
    cr_assert_str_eq(x.show[0].name, "db-0");
    cr_assert_str_eq(x.show[0].ns, "shop");
    cr_assert_float_eq(x.show[0].joules, 15, 1e-9, "3 J x 4 intervals, 3 J after the restart");
    cr_assert_float_eq(x.show[0].share_pct, 100.0 * 15 / 80, 1e-9);
    cr_assert_float_eq(x.show[1].joules, 10, 1e-9);
    cr_assert_float_eq(x.show[2].joules, 1.5, 1e-9);
    cr_assert(isnan(x.show_err_pct), "no accuracy: no error bar");
    wc_xp_free(&d);
}

Test(exporter_cases, source_tolerance_parses)
{
    wc_tolerance tol[WC_TOL_MAX];
    size_t n = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_tolerance_parse("source=measured", tol, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(tol[0].metric, WC_TOL_SOURCE);
    cr_assert_str_eq(wc_tolerance_name(&tol[0]), "source");
    cr_assert_eq(wc_tolerance_parse("source=unknown", tol, &n, &err), -EINVAL);
    cr_assert(strstr(err.msg, "source takes measured"), "%s", err.msg);
}

/* exporter-invariants=N: a whole count of violations allowed per invariant. */
Test(exporter_cases, exporter_invariants_tolerance_parses)
{
    wc_tolerance tol[WC_TOL_MAX];
    size_t n = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_tolerance_parse("exporter-invariants=0,invariants=2", tol, &n, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(n, 2);
    cr_assert_eq(tol[0].metric, WC_TOL_XP_INVARIANTS);
    cr_assert_float_eq(tol[0].threshold, 0, 1e-12);
    cr_assert_str_eq(wc_tolerance_name(&tol[0]), "exporter-invariants");
    cr_assert_eq(tol[1].metric, WC_TOL_INVARIANTS, "invariants= is still the zone's own");
    cr_assert_eq(wc_tolerance_parse("exporter-invariants=1.5", tol, &n, &err), -EINVAL);
    cr_assert(strstr(err.msg, "exporter-invariants takes a whole count"), "%s", err.msg);
    cr_assert_eq(wc_tolerance_parse("exporter-invariants=2%", tol, &n, &err), -EINVAL);
}

/* Workload totals that all drop to no more than the node's active energy of
 * the same scrapes were reset to zero together (Kepler's zero-active rule)
 * and grew again: no violation, counted in the note; a drop while another
 * workload of the zone keeps more is a real decrease
 * (tests/fixtures/exporter/README.md, zero-reset-6scrapes). */
Test(exporter_cases, a_total_reset_to_zero_is_no_decrease)
{
    wc_xp_data d;
    wc_xp_one x;
    load_from(&d, &x, "exporter/zero-reset-6scrapes.prom", "z.db");
    const wc_xp_invariant *m = inv(&x, "counters monotonic except resets");
    cr_assert_eq(m->violations, 2, "app 5 -> 2 and db 20 -> 12 J (db kept more than 8 J): %s",
                 m->note);
    cr_assert_float_eq(m->worst, -8, 1e-9);
    cr_assert(strstr(m->worst_at, "db"), "%s", m->worst_at);
    cr_assert(strstr(m->note, "2 totals reset to 0"), "the whole zone zeroed at 5000: %s", m->note);
    wc_xp_free(&d);
}

/* A fall from Kepler's pid-reuse wrap (~2^64 µJ) is a violation but never a
 * worst figure in joules: validate printed -18446744073709.535 J (the
 * new-user run; tests/fixtures/exporter/README.md, pid-reuse-wrap-6scrapes). */
Test(exporter_cases, a_fall_from_a_wrap_is_counted_not_shown_in_joules)
{
    wc_xp_data d;
    wc_xp_one x;
    load_from(&d, &x, "exporter/pid-reuse-wrap-6scrapes.prom", "w.db");
    const wc_xp_invariant *m = inv(&x, "counters monotonic except resets");
    cr_assert_eq(m->verdict, WC_XP_FAIL, "%s", m->note);
    cr_assert(isfinite(m->worst) && fabs(m->worst) < 1e6, "worst %g at %s", m->worst, m->worst_at);
    cr_assert(strstr(m->note, "1 ~2^64 uJ wraps"), "%s", m->note);
    wc_xp_free(&d);
}

/* An error bar whose class bias comes from phases below the idle baseline
 * says so in its basis; no error bar: nothing said (the new-user run saw
 * +-739 % beside a class-bias table marked not trustworthy, unwarned). */
Test(exporter_cases, an_error_bar_on_untrusted_class_bias_says_so)
{
    wc_xp_one x;
    memset(&x, 0, sizeof x);
    x.show_err_pct = 739.0;
    snprintf(x.show_err_basis, sizeof x.show_err_basis,
             "+-739.0 %% = sqrt(node platform vs truth 4.0 %%^2 + class bias 739.0 %%^2)");
    wc_xp_showback_untrusted(&x, 2);
    cr_assert(strstr(x.show_err_basis, "class bias 739.0 %^2); NOT TRUSTWORTHY: its class bias comes"
                                       " from a replay where 2 phase(s) drew less than the idle"
                                       " baseline (replay on a quiet node)"), "%s", x.show_err_basis);
    memset(&x, 0, sizeof x);
    x.show_err_pct = NAN;
    snprintf(x.show_err_basis, sizeof x.show_err_basis, "no error bar");
    wc_xp_showback_untrusted(&x, 2);
    cr_assert_str_eq(x.show_err_basis, "no error bar");
}
