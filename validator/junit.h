/*
 * junit.h — the CI gate's checks as JUnit XML (the format CI systems read:
 * Jenkins, GitLab, GitHub Actions test reporters): one <testcase> per
 * (phase × metric × threshold), a <failure> for a broken tolerance, an
 * <error> for a check that could not be evaluated (NO VERDICT) or read too
 * few pairs (INSUFFICIENT), never <skipped>: the gate suite's counts are
 * validate's closing line; the exporter's invariants, when not gated, are a
 * suite of their own (FAIL a failure, NO VERDICT skipped). Every string from the
 * run (phase names, specs, messages) is XML-escaped, and bytes XML 1.0
 * cannot carry (control characters) are written as '?'.
 */
#ifndef WC_JUNIT_H
#define WC_JUNIT_H

#include <stdio.h>

#include "common/wc_error.h"
#include "validator/validation.h"

/* Writes the report to path (created or truncated; a symlink, FIFO or device
 * is written through). Returns 0 or -errno / -EIO (e.g. disk full) with err
 * naming the file. */
int wc_junit_write(const char *path, const wc_validation *v, const char *db_path, wc_error *err);

/* The exporter's invariants as the JUnit file carries them: a testsuite of
 * their own (counts into *tests, *failures, *skipped = NO VERDICT) unless the
 * gate already checks them (--tolerance exporter-invariants=N), then none
 * (all 0), so nothing is counted twice. validate's terminal prints the same
 * counts before its closing line. Returns 1 when the suite is written. */
int wc_junit_xp_suite(const wc_validation *v, size_t *tests, size_t *failures, size_t *skipped);

/* Writes s XML-escaped to f. */
void wc_xml_escape(FILE *f, const char *s);

#endif
