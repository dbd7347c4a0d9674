/*
 * test_gate_msgs.c — what validate says beside its gate, found by the
 * new-user acceptance run (runbook.md section 1 on a simulated node):
 * the JUnit file's counts are the terminal's closing line (the demo printed
 * "6 passed, 2 failed, 1 no verdict, 4 insufficient" while validate.xml said
 * failures="3" of 25 tests: the exporter's 12 invariants, one failing, were
 * added to the totals without the terminal saying so), the gate's provenance
 * when meter or truth is SIMULATED, and the note when the node is gated on
 * the raw meter for want of a calibration (validator/junit.c, gate_notes.c).
 * The CLI side is tests/integration/new_user_messages.sh.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/support/test_support.h"
#include "validator/gate_notes.h"
#include "validator/junit.h"

/* A validation holding the demo's mix of checks: 6 PASS, 2 FAIL, 1 NO
 * VERDICT, 4 INSUFFICIENT; and one exporter with 12 invariants, 1 failing,
 * 1 NO VERDICT (xp_gated: the last check is exporter-invariants). */
static wc_validation *demo_mix(int xp_gated)
{
    wc_validation *v = calloc(1, sizeof *v);
    cr_assert_not_null(v);
    static const wc_check_status ST[] = {WC_CHECK_PASS, WC_CHECK_PASS, WC_CHECK_PASS, WC_CHECK_PASS,
                                         WC_CHECK_PASS, WC_CHECK_PASS, WC_CHECK_FAIL, WC_CHECK_FAIL,
                                         WC_CHECK_SKIP, WC_CHECK_INSUFFICIENT, WC_CHECK_INSUFFICIENT,
                                         WC_CHECK_INSUFFICIENT, WC_CHECK_INSUFFICIENT};
    v->nchecks = sizeof ST / sizeof ST[0];
    v->checks = calloc(v->nchecks, sizeof *v->checks);
    cr_assert_not_null(v->checks);
    for (size_t i = 0; i < v->nchecks; i++) {
        wc_check *c = &v->checks[i];
        snprintf(c->phase, sizeof c->phase, "all");
        snprintf(c->metric, sizeof c->metric, "%s", xp_gated && i == 8 ? "exporter-invariants" : "node");
        snprintf(c->subject, sizeof c->subject, "check %zu", i);
        snprintf(c->message, sizeof c->message, "message %zu", i);
        c->status = ST[i];
        v->passed += ST[i] == WC_CHECK_PASS, v->failed += ST[i] == WC_CHECK_FAIL;
        v->skipped += ST[i] == WC_CHECK_SKIP, v->insufficient += ST[i] == WC_CHECK_INSUFFICIENT;
    }
    v->outcome = WC_GATE_FAIL;
    snprintf(v->model, sizeof v->model, "kepler-0.11");
    v->xp = calloc(1, sizeof *v->xp);
    cr_assert_not_null(v->xp);
    v->xp->n = 1;
    v->xp->x[0].ninv = 12;
    for (size_t j = 0; j < 12; j++) {
        snprintf(v->xp->x[0].inv[j].name, sizeof v->xp->x[0].inv[j].name, "invariant %zu", j);
        v->xp->x[0].inv[j].verdict = j == 3 ? WC_XP_FAIL : j == 5 ? WC_XP_NO_VERDICT : WC_XP_PASS;
    }
    v->gated_source = -1;
    return v;
}

static void free_mix(wc_validation *v)
{
    free(v->checks);
    free(v->xp);
    free(v->acc.sources);
    free(v);
}

/* The integer value of attr="N" after the first occurrence of tag in s. */
static long attr_after(const char *s, const char *tag, const char *attr)
{
    const char *p = strstr(s, tag);
    cr_assert_not_null(p, "no %s", tag);
    char key[64];
    snprintf(key, sizeof key, " %s=\"", attr);
    const char *end = strchr(p, '>');
    const char *a = strstr(p, key);
    cr_assert(a && a < end, "no %s in %s", attr, tag);
    return strtol(a + strlen(key), NULL, 10);
}

static char *write_junit(const wc_validation *v, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", wc_test_tmpdir(), name);
    wc_error err = {{0}};
    cr_assert_eq(wc_junit_write(path, v, "run.db", &err), 0, "%s", err.msg);
    char *text = wc_test_slurp(path, NULL);
    cr_assert_not_null(text);
    return text;
}

Test(gate_msgs, junit_gate_suite_counts_are_the_closing_line)
{
    wc_validation *v = demo_mix(0);
    char *x = write_junit(v, "mix.xml");
    /* the gate's suite: 13 checks, 2 failures, 1 + 4 errors, never skipped */
    const char *suite = "<testsuite name=\"wattcal validate run.db";
    cr_assert_eq(attr_after(x, suite, "tests"), 13);
    cr_assert_eq(attr_after(x, suite, "failures"), 2);
    cr_assert_eq(attr_after(x, suite, "errors"), 5);
    cr_assert_eq(attr_after(x, suite, "skipped"), 0);
    cr_assert(strstr(x, "<property name=\"passed\" value=\"6\"/>"));
    cr_assert(strstr(x, "<property name=\"failed\" value=\"2\"/>"));
    cr_assert(strstr(x, "<property name=\"no_verdict\" value=\"1\"/>"));
    cr_assert(strstr(x, "<property name=\"insufficient\" value=\"4\"/>"));
    cr_assert(strstr(x, "<!-- the gate: 13 checks, 6 passed, 2 failed, 1 no verdict, 4 insufficient"));
    /* the exporter's invariants, a suite of their own, and the totals their sum */
    const char *xs = "<testsuite name=\"wattcal validate: the exporter's invariants\"";
    cr_assert_eq(attr_after(x, xs, "tests"), 12);
    cr_assert_eq(attr_after(x, xs, "failures"), 1);
    cr_assert_eq(attr_after(x, xs, "skipped"), 1);
    cr_assert_eq(attr_after(x, "<testsuites", "tests"), 25);
    cr_assert_eq(attr_after(x, "<testsuites", "failures"), 3);
    cr_assert_eq(attr_after(x, "<testsuites", "errors"), 5);
    cr_assert_eq(attr_after(x, "<testsuites", "skipped"), 1);
    /* the terminal prints the exporter's counts the file carries */
    size_t t, f, s;
    cr_assert_eq(wc_junit_xp_suite(v, &t, &f, &s), 1);
    cr_assert_eq(t, 12);
    cr_assert_eq(f, 1);
    cr_assert_eq(s, 1);
    free(x);
    free_mix(v);
}

Test(gate_msgs, junit_gated_exporter_invariants_not_counted_twice)
{
    wc_validation *v = demo_mix(1);
    char *x = write_junit(v, "gated.xml");
    cr_assert_null(strstr(x, "the exporter's invariants\""), "a second suite of the gated invariants");
    cr_assert_eq(attr_after(x, "<testsuites", "tests"), 13);
    cr_assert_eq(attr_after(x, "<testsuites", "failures"), 2);
    cr_assert_eq(attr_after(x, "<testsuites", "errors"), 5);
    size_t t, f, s;
    cr_assert_eq(wc_junit_xp_suite(v, &t, &f, &s), 0);
    cr_assert_eq(t + f + s, 0);
    free(x);
    free_mix(v);
}

/* One node source and ntruth truth sources of the given provenances. */
static void sources(wc_validation *v, const char *meter_prov, const char *truth_prov, size_t ntruth)
{
    v->have_accuracy = 1;
    v->acc.sources = calloc(1, sizeof *v->acc.sources);
    cr_assert_not_null(v->acc.sources);
    v->acc.nsources = 1;
    snprintf(v->acc.sources[0].name, sizeof v->acc.sources[0].name, "meter:package+dram");
    snprintf(v->acc.sources[0].provenance, sizeof v->acc.sources[0].provenance, "%s", meter_prov);
    snprintf(v->acc.run_provenance, sizeof v->acc.run_provenance, "%s", meter_prov);
    v->acc.ntruth = ntruth;
    for (size_t t = 0; t < ntruth; t++)
        v->acc.truth[t].n = 10;
    for (size_t t = 0; t < ntruth; t++)
        snprintf(v->acc.truth[t].provenance, sizeof v->acc.truth[t].provenance, "%s",
                 t == 0 ? truth_prov : "ground truth");
    v->gated_source = 0;
}

Test(gate_msgs, gate_provenance_when_simulated)
{
    wc_validation *v = demo_mix(0);
    v->outcome = WC_GATE_PASS;
    sources(v, "simulated", "simulated", 1);
    cr_assert_str_eq(wc_gate_provenance(v), "SIMULATED meter and truth: a rehearsal, validates nothing");
    snprintf(v->acc.truth[0].provenance, sizeof v->acc.truth[0].provenance, "ground truth");
    cr_assert_str_eq(wc_gate_provenance(v), "SIMULATED meter: validates nothing about this node's hardware");
    snprintf(v->acc.sources[0].provenance, sizeof v->acc.sources[0].provenance, "measured");
    snprintf(v->acc.run_provenance, sizeof v->acc.run_provenance, "measured");
    cr_assert_str_eq(wc_gate_provenance(v), "");
    snprintf(v->acc.truth[0].provenance, sizeof v->acc.truth[0].provenance, "simulated");
    cr_assert_str_eq(wc_gate_provenance(v),
                     "SIMULATED truth: checked against no real wall power, validates nothing");
    v->outcome = WC_GATE_NONE; /* no gate, no gate line */
    cr_assert_str_eq(wc_gate_provenance(v), "");
    free_mix(v);
}

Test(gate_msgs, uncalibrated_note_only_without_a_wall_fit)
{
    wc_validation *v = demo_mix(0);
    sources(v, "measured", "ground truth", 1);
    char note[600];
    cr_assert_eq(wc_gate_uncalibrated_note(v, note, sizeof note), 1);
    cr_assert_str_eq(note, "no calibration in this run: the node checks read the raw meter"
                           " (meter:package+dram) against the wall, which misses PSU loss and"
                           " platform power; calibrate this run, or copy a fit with `wattcal"
                           " calibrate --apply-from`, and judge the node on estimate:wall#N");
    v->nfits = 1; /* a zone fit only: still no wall estimate */
    v->fits[0].kind = WC_CAL_ZONE_UTIL;
    cr_assert_eq(wc_gate_uncalibrated_note(v, note, sizeof note), 1);
    cr_assert(strstr(note, "no wall-power calibration (only zone fits) in this run"));
    v->fits[0].kind = WC_CAL_TRUTH_METER; /* a wall fit: the note would be wrong */
    cr_assert_eq(wc_gate_uncalibrated_note(v, note, sizeof note), 0);
    cr_assert_str_eq(note, "");
    v->nfits = 0;
    v->acc.ntruth = 0; /* no truth: nothing to calibrate against */
    cr_assert_eq(wc_gate_uncalibrated_note(v, note, sizeof note), 0);
    v->acc.ntruth = 1;
    v->acc.truth[0].n = 0; /* a dead BMC: nothing to calibrate against either */
    cr_assert_eq(wc_gate_uncalibrated_note(v, note, sizeof note), 0);
    v->acc.truth[0].n = 10;
    v->outcome = WC_GATE_NONE; /* no gate asked for */
    cr_assert_eq(wc_gate_uncalibrated_note(v, note, sizeof note), 0);
    free_mix(v);
}
