/*
 * headline.c — the sentences of the report's first screen (headline.h):
 * the verdict in one sentence, its showback meaning, signed numbers.
 */
#include "reports/headline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *wc_answer_name(wc_answer a)
{
    return a == WC_ANSWER_YES ? "YES" : a == WC_ANSWER_NO ? "NO" : "NOT EVALUATED";
}

wc_answer wc_answer_of(wc_check_status s)
{
    if (s == WC_CHECK_PASS)
        return WC_ANSWER_YES;
    if (s == WC_CHECK_FAIL)
        return WC_ANSWER_NO;
    return WC_ANSWER_NOT_EVALUATED;
}

const char *wc_headline_bias(double est, double lo, double hi, char *buf, size_t cap)
{
    if (!isfinite(est))
        snprintf(buf, cap, "-");
    else if (!isfinite(lo) || !isfinite(hi))
        snprintf(buf, cap, "%.1f %%%s (no interval: too few readings)", fabs(est),
                 est < 0 ? " low" : est > 0 ? " high" : "");
    else if (est < 0 && hi < 0)
        snprintf(buf, cap, "%.1f %% [%.1f, %.1f] low", -est, -hi, -lo);
    else if (est > 0 && lo > 0)
        snprintf(buf, cap, "%.1f %% [%.1f, %.1f] high", est, lo, hi);
    else
        snprintf(buf, cap, "%+.1f %% [%+.1f, %+.1f]: the interval holds 0, no clear direction", est, lo, hi);
    return buf;
}

const char *wc_headline_term(double x, int prec, const char *unit, char *buf, size_t cap)
{
    if (!isfinite(x))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%s %.*f%s%s", signbit(x) && fabs(x) >= 0.5 * pow(10, -prec) ? "\u2212" : "+",
                 prec, fabs(x), unit && *unit ? " " : "", unit ? unit : "");
    return buf;
}

/* "5 %", "20 W", "3" */
static const char *amount(double x, const char *unit, char *buf, size_t cap)
{
    snprintf(buf, cap, "%g%s%s", x, unit && *unit ? " " : "", unit ? unit : "");
    return buf;
}

/* The value of a check with its interval: "3.20 % [2.10, 4.00]". */
static const char *value_text(const wc_headline_node *h, char *buf, size_t cap)
{
    const char *sp = h->unit && *h->unit ? " " : "";
    if (!isfinite(h->value))
        snprintf(buf, cap, "no value");
    else if (isfinite(h->lo) && isfinite(h->hi))
        snprintf(buf, cap, "%.2f%s%s [%.2f, %.2f]", h->value, sp, h->unit, h->lo, h->hi);
    else
        snprintf(buf, cap, "%.2f%s%s", h->value, sp, h->unit);
    return buf;
}

/* Why a check was not evaluated, without the check message's own "not evaluated: " or
 * "not evaluated (NO VERDICT): " prefix (the sentence already says NOT EVALUATED). */
static const char *why_text(const char *why)
{
    static const char *const PREFIX[] = {"not evaluated (NO VERDICT): ", "not evaluated: "};
    if (!why || !*why)
        return "the check could not be evaluated";
    for (size_t i = 0; i < sizeof PREFIX / sizeof PREFIX[0]; i++)
        if (!strncmp(why, PREFIX[i], strlen(PREFIX[i])) && why[strlen(PREFIX[i])])
            return why + strlen(PREFIX[i]);
    return why;
}

const char *wc_headline_node_sentence(const wc_headline_node *h, char *buf, size_t cap)
{
    char thr[48], claim[200], tail[400];
    amount(h->threshold, h->unit, thr, sizeof thr);
    int is_node = h->metric && !strcmp(h->metric, "node");
    if (is_node)
        snprintf(claim, sizeof claim, "Node total within \u00b1%s of %s", thr, h->truth_noun);
    else
        snprintf(claim, sizeof claim, "Node power against %s, %s at most %s", h->truth_noun, h->what, thr);
    if (h->answer == WC_ANSWER_NOT_EVALUATED) {
        snprintf(tail, sizeof tail, "%s", why_text(h->why));
    } else if (is_node) {
        char b[160];
        snprintf(tail, sizeof tail, "%s reads %s", h->source_noun,
                 wc_headline_bias(h->bias_pct, h->bias_lo, h->bias_hi, b, sizeof b));
    } else {
        char val[120];
        snprintf(tail, sizeof tail, "%s of %s: %s", h->what, h->source_noun, value_text(h, val, sizeof val));
    }
    snprintf(buf, cap, "%s: %s \u2014 %s", claim, wc_answer_name(h->answer), tail);
    return buf;
}

const char *wc_headline_counts(size_t passed, size_t failed, size_t skipped, char *buf, size_t cap)
{
    size_t n = passed + failed + skipped;
    if (!n)
        snprintf(buf, cap, "No tolerance was given: NOT EVALUATED \u2014 nothing was gated");
    else if (failed)
        snprintf(buf, cap, "Every tolerance holds: NO \u2014 %zu of %zu checks %s", failed, n,
                 failed == 1 ? "fails" : "fail");
    else if (skipped)
        snprintf(buf, cap, "Every tolerance holds: NOT EVALUATED \u2014 %zu of %zu checks could not be"
                 " evaluated", skipped, n);
    else
        snprintf(buf, cap, "Every tolerance holds: YES \u2014 %s %zu checks pass", n == 1 ? "the" : "all", n);
    return buf;
}

const char *wc_headline_showback(wc_answer a, double bias_pct, double threshold, const char *unit,
                                 const char *truth_noun, const char *who, char *buf, size_t cap)
{
    char thr[48];
    amount(threshold, unit, thr, sizeof thr);
    if (a == WC_ANSWER_NO && isfinite(bias_pct))
        snprintf(buf, cap, "every %s's joules are shares of this node total, so at this level they read"
                 " about %.0f %% %s against %s, however the total is split between %ss (the split is"
                 " checked by the attribution gap and the invariants).", who, fabs(bias_pct),
                 bias_pct < 0 ? "low" : "high", truth_noun, who);
    else if (a == WC_ANSWER_NO)
        snprintf(buf, cap, "every %s's joules are shares of this node total, which is off by more than"
                 " %s against %s.", who, thr, truth_noun);
    else if (a == WC_ANSWER_YES)
        snprintf(buf, cap, "every %s's joules are shares of this node total, which agrees with %s within"
                 " %s over the run (the split between %ss is checked by the attribution gap and the"
                 " invariants).", who, truth_noun, thr, who);
    else
        snprintf(buf, cap, "the level of per-%s joules is unchecked: no node total was scored against"
                 " ground truth, so nothing here says how far a %s's showback is off.", who, who);
    return buf;
}
