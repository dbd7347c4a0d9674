/*
 * test_support.h — helpers shared by the Criterion unit tests.
 *
 * Real-world inputs are read in place from $WATTCAL_FIXTURES (default
 * ../shared/fixtures, set by the Makefile); when that tree is absent the
 * test is skipped, saying so. The project's own small fixtures live in
 * tests/fixtures/ and are always present.
 */
#ifndef WC_TEST_SUPPORT_H
#define WC_TEST_SUPPORT_H

#include <stddef.h>

/* Absolute path of a file/dir under $WATTCAL_FIXTURES; skips the current test
 * (cr_skip_test, with the reason) when it does not exist. Returns a static
 * buffer valid until the next call. */
const char *wc_shared_fixture(const char *rel);

/* Path of tests/fixtures/<rel> in this repository (relative to the repo root,
 * where the suite runs). Static buffer. */
const char *wc_own_fixture(const char *rel);

/* Reads a whole file into a malloc'd NUL-terminated buffer; fails the test
 * when unreadable. */
char *wc_test_slurp(const char *path, size_t *len);

/* Creates a fresh temporary directory $TMPDIR/wattcal-test-XXXXXX (mkdtemp;
 * /tmp when TMPDIR is unset) for the test; static buffer. The tree is removed
 * when the test's worker process exits, whatever the outcome. */
const char *wc_test_tmpdir(void);

/* Writes text to <dir>/<rel>, creating parent directories; fails the test on error. */
void wc_test_write(const char *dir, const char *rel, const char *text);

#endif
