/*
 * headline.h — the sentences of the report's first screen (reports/report.c
 * composes them, reports/doc.c writes them): the verdict in one sentence
 * ("Node total within ±5 % of the BMC: NO — the meter reads 47.6 % [45.8,
 * 48.9] low"), what it means for showback, and the signed number formats
 * the report shares ("− 24.31 W", never "+ -24.31 W"). Pure functions of
 * their arguments (no run, no I/O), so each wording is unit-tested
 * (tests/unit/reports/test_headline.c).
 */
#ifndef WC_REPORT_HEADLINE_H
#define WC_REPORT_HEADLINE_H

#include <stddef.h>

#include "validator/validation.h"

/* The answer to the report's question. A check that was not evaluated (a
 * skip, a NO VERDICT, too few readings) is never YES. */
typedef enum wc_answer { WC_ANSWER_YES = 0, WC_ANSWER_NO, WC_ANSWER_NOT_EVALUATED } wc_answer;

/* "YES", "NO", "NOT EVALUATED". */
const char *wc_answer_name(wc_answer a);

/* The answer a check's status gives: PASS → YES, FAIL → NO, any other
 * status (skipped, no verdict, insufficient) → NOT EVALUATED. */
wc_answer wc_answer_of(wc_check_status s);

/* A signed bias (source − truth, % of truth) with its 95 % interval, in
 * words: "47.6 % [45.8, 48.9] low" (est < 0, the interval below 0), "2.0 %
 * [1.1, 3.0] high", "+0.4 % [-0.8, +1.6]: the interval holds 0, no clear
 * direction" (an interval across 0), "3.0 % low (no interval: too few
 * readings)" when lo or hi is not finite, "-" when est is not finite. One decimal. Returns buf. */
const char *wc_headline_bias(double est, double lo, double hi, char *buf, size_t cap);

/* An added term with its sign spelled once: "+ 24.31 W", "− 24.31 W" (U+2212),
 * prec decimals, unit after a space ("" none). "-" when x is not finite.
 * Returns buf. */
const char *wc_headline_term(double x, int prec, const char *unit, char *buf, size_t cap);

/* One node check of the gate, as the lead sentence reads it. */
typedef struct wc_headline_node {
    const char *metric;       /* tolerance name: "node" (|bias|), "wape", "mae", ... */
    const char *what;         /* the checked value in words: "|bias|", "WAPE" */
    const char *unit;         /* "%", "W" or "" */
    double threshold;         /* in unit */
    wc_answer answer;
    const char *truth_noun;   /* "the BMC", "the simulated BMC", "the wall meter" */
    const char *source_noun;  /* "the meter", "the simulated meter", "the wall estimate" */
    double bias_pct, bias_lo, bias_hi; /* signed bias, % of truth, with its interval */
    double value, lo, hi;     /* the checked value and its interval (NAN: none) */
    const char *why;          /* NOT EVALUATED: the check's own reason */
} wc_headline_node;

/* The lead sentence of a node check: "Node total within ±5 % of the BMC:
 * NO — the meter reads 47.6 % [45.8, 48.9] low" (metric node, signed bias
 * from bias_*); other metrics "Node power against the BMC, WAPE at most 5
 * %: YES — WAPE 3.2 % [2.1, 4.0]"; not evaluated: "...: NOT EVALUATED —
 * <why>". Returns buf. */
const char *wc_headline_node_sentence(const wc_headline_node *h, char *buf, size_t cap);

/* The lead sentence when no node check was made: from the gate's counts
 * ("Every tolerance holds: NO — 1 of 7 checks fails"; none given: "No
 * tolerance was given: NOT EVALUATED — nothing was gated"). Returns buf. */
const char *wc_headline_counts(size_t passed, size_t failed, size_t skipped, char *buf, size_t cap);

/* What the answer means for showback (per-pod joules are shares of the node
 * total): NO with a finite bias "every pod's joules are shares of this node
 * total, so at this level they read about 41 % low against the BMC …";
 * YES "… within ±5 % of the BMC …"; NOT EVALUATED "… unchecked …". who:
 * "pod", or "workload" for a run without pods. Returns buf. */
const char *wc_headline_showback(wc_answer a, double bias_pct, double threshold, const char *unit,
                                 const char *truth_noun, const char *who, char *buf, size_t cap);

#endif
