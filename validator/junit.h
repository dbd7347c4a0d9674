/*
 * junit.h — the CI gate's checks as JUnit XML (the format CI systems read:
 * Jenkins, GitLab, GitHub Actions test reporters): one <testcase> per
 * (phase × metric × threshold), a <failure> for a broken tolerance, a
 * <skipped> for a check that could not be evaluated. Every string from the
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

/* Writes s XML-escaped to f. */
void wc_xml_escape(FILE *f, const char *s);

#endif
