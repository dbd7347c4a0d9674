/*
 * exporter_text.h — the exporter section of `validate` (exporter_report.h)
 * as terminal tables, as the "exporters" array of the JSON summary, and as
 * a JUnit testsuite of its invariants (FAIL: a failure; NO VERDICT:
 * skipped). text_report.c, summary_json.c and junit.c call these.
 */
#ifndef WC_EXPORTER_TEXT_H
#define WC_EXPORTER_TEXT_H

#include <stdio.h>

#include <cJSON.h>

#include "validator/exporter_report.h"

/* Prints every exporter: head, invariants, gap split, second opinion,
 * showback. Nothing when r is NULL or empty. */
void wc_xp_text(FILE *out, const wc_xp_report *r);

/* Adds "exporters": [...] to root (an empty array when none). */
void wc_xp_json(cJSON *root, const wc_xp_report *r);

/* The invariants as one <testsuite> (nothing when no exporter); *tests and
 * *failures, *skipped count its cases (may be NULL to only count: f NULL). */
void wc_xp_junit(FILE *f, const wc_xp_report *r, size_t *tests, size_t *failures, size_t *skipped);

#endif
