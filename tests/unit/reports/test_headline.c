/*
 * test_headline.c — the report's first-screen sentences (reports/headline.h):
 * the verdict sentence with its numbers and sign (low / high / no clear
 * direction), YES / NO / NOT EVALUATED (a skipped check is never YES), the
 * gate's counts, the showback meaning, and signed offsets ("− 24.31 W",
 * never "+ -24.31 W").
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "reports/headline.h"

static wc_headline_node node_check(wc_answer a, double est, double lo, double hi)
{
    return (wc_headline_node){.metric = "node", .what = "|bias|", .unit = "%", .threshold = 5, .answer = a,
                              .truth_noun = "the BMC", .source_noun = "the meter", .bias_pct = est,
                              .bias_lo = lo, .bias_hi = hi, .value = fabs(est), .lo = NAN, .hi = NAN,
                              .why = "no aligned pairs in this phase"};
}

Test(headline, node_no_reads_low_with_interval)
{
    char b[400];
    wc_headline_node h = node_check(WC_ANSWER_NO, -47.6, -48.9, -45.8);
    cr_assert_str_eq(wc_headline_node_sentence(&h, b, sizeof b),
                     "Node total within \u00b15 % of the BMC: NO \u2014 the meter reads 47.6 % [45.8, 48.9] low");
}

Test(headline, node_yes_reads_high)
{
    char b[400];
    wc_headline_node h = node_check(WC_ANSWER_YES, 2.04, 1.1, 3.0);
    cr_assert_str_eq(wc_headline_node_sentence(&h, b, sizeof b),
                     "Node total within \u00b15 % of the BMC: YES \u2014 the meter reads 2.0 % [1.1, 3.0] high");
}

Test(headline, node_interval_across_zero_has_no_direction)
{
    char b[400];
    cr_assert_str_eq(wc_headline_bias(0.4, -0.8, 1.6, b, sizeof b),
                     "+0.4 % [-0.8, +1.6]: the interval holds 0, no clear direction");
    cr_assert_str_eq(wc_headline_bias(-3, NAN, NAN, b, sizeof b), "3.0 % low (no interval: too few readings)");
    cr_assert_str_eq(wc_headline_bias(NAN, 1, 2, b, sizeof b), "-");
}

Test(headline, not_evaluated_says_why_and_is_never_yes)
{
    char b[400];
    wc_headline_node h = node_check(wc_answer_of(WC_CHECK_SKIP), NAN, NAN, NAN);
    cr_assert_eq(h.answer, WC_ANSWER_NOT_EVALUATED);
    cr_assert_str_eq(wc_headline_node_sentence(&h, b, sizeof b),
                     "Node total within \u00b15 % of the BMC: NOT EVALUATED \u2014 no aligned pairs in this phase");
    h.why = "not evaluated: truth redfish delivered 0 of 3 polls"; /* never "NOT EVALUATED — not evaluated" */
    cr_assert_str_eq(wc_headline_node_sentence(&h, b, sizeof b),
                     "Node total within \u00b15 % of the BMC: NOT EVALUATED \u2014 truth redfish delivered 0 of 3 polls");
    cr_assert_eq(wc_answer_of(WC_CHECK_PASS), WC_ANSWER_YES);
    cr_assert_eq(wc_answer_of(WC_CHECK_FAIL), WC_ANSWER_NO);
    /* any status the validator adds later (no verdict, insufficient) */
    cr_assert_eq(wc_answer_of((wc_check_status)(WC_CHECK_SKIP + 1)), WC_ANSWER_NOT_EVALUATED);
}

Test(headline, other_metric_states_its_value)
{
    char b[400];
    wc_headline_node h = {.metric = "mae", .what = "MAE", .unit = "W", .threshold = 20, .answer = WC_ANSWER_NO,
                          .truth_noun = "the wall meter", .source_noun = "the wall estimate", .value = 31.456,
                          .lo = 28.1, .hi = 35.02};
    cr_assert_str_eq(wc_headline_node_sentence(&h, b, sizeof b),
                     "Node power against the wall meter, MAE at most 20 W: NO \u2014 MAE of the wall estimate:"
                     " 31.46 W [28.10, 35.02]");
}

Test(headline, counts)
{
    char b[200];
    cr_assert_str_eq(wc_headline_counts(6, 1, 0, b, sizeof b), "Every tolerance holds: NO \u2014 1 of 7 checks fails");
    cr_assert_str_eq(wc_headline_counts(2, 0, 1, b, sizeof b),
                     "Every tolerance holds: NOT EVALUATED \u2014 1 of 3 checks could not be evaluated");
    cr_assert_str_eq(wc_headline_counts(0, 0, 2, b, sizeof b),
                     "Every tolerance holds: NOT EVALUATED \u2014 2 of 2 checks could not be evaluated");
    cr_assert_str_eq(wc_headline_counts(3, 0, 0, b, sizeof b), "Every tolerance holds: YES \u2014 all 3 checks pass");
    cr_assert_str_eq(wc_headline_counts(0, 0, 0, b, sizeof b),
                     "No tolerance was given: NOT EVALUATED \u2014 nothing was gated");
}

Test(headline, showback)
{
    char b[600];
    wc_headline_showback(WC_ANSWER_NO, -41.3, 5, "%", "the BMC", "pod", b, sizeof b);
    cr_assert(strstr(b, "read about 41 % low against the BMC"), "%s", b);
    wc_headline_showback(WC_ANSWER_NO, 12.6, 5, "%", "the BMC", "pod", b, sizeof b);
    cr_assert(strstr(b, "about 13 % high"), "%s", b);
    wc_headline_showback(WC_ANSWER_YES, 1.2, 5, "%", "the BMC", "pod", b, sizeof b);
    cr_assert(strstr(b, "agrees with the BMC within 5 %"), "%s", b);
    wc_headline_showback(WC_ANSWER_NOT_EVALUATED, NAN, NAN, "", "ground truth", "pod", b, sizeof b);
    cr_assert(strstr(b, "unchecked"), "%s", b);
    /* a run without pods speaks of workloads, never of pods it does not have */
    wc_headline_showback(WC_ANSWER_NO, -41.3, 5, "%", "the BMC", "workload", b, sizeof b);
    cr_assert(strstr(b, "every workload's joules") && strstr(b, "split between workloads") &&
                  !strstr(b, "pod"), "%s", b);
}

Test(headline, signed_terms)
{
    char b[64];
    cr_assert_str_eq(wc_headline_term(-24.31, 2, "W", b, sizeof b), "\u2212 24.31 W");
    cr_assert_str_eq(wc_headline_term(48.53, 2, "W", b, sizeof b), "+ 48.53 W");
    cr_assert_str_eq(wc_headline_term(-0.001, 2, "W", b, sizeof b), "+ 0.00 W");
    cr_assert_str_eq(wc_headline_term(3, 0, "", b, sizeof b), "+ 3");
    cr_assert_str_eq(wc_headline_term(NAN, 2, "W", b, sizeof b), "-");
}
