/*
 * test_support.c — see test_support.h.
 */
#include "tests/unit/support/test_support.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *wc_shared_fixture(const char *rel)
{
    static char buf[PATH_MAX + 1024];
    const char *root = getenv("WATTCAL_FIXTURES");
    if (!root || !*root)
        root = "../shared/fixtures";
    /* Absolute, so paths stay valid from temp dirs and symlinks tests make. */
    char abs_root[PATH_MAX];
    if (realpath(root, abs_root))
        root = abs_root;
    snprintf(buf, sizeof buf, "%s/%s", root, rel);
    struct stat st;
    if (stat(buf, &st) != 0)
        cr_skip_test("shared fixture %s absent (set WATTCAL_FIXTURES): skipped", buf);
    return buf;
}

const char *wc_own_fixture(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "tests/fixtures/%s", rel);
    return buf;
}

char *wc_test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    size_t r;
    while ((r = fread(buf + used, 1, cap - used - 1, f)) > 0) {
        used += r;
        if (used + 1 >= cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert_not_null(buf);
        }
    }
    fclose(f);
    buf[used] = '\0';
    if (len)
        *len = used;
    return buf;
}

const char *wc_test_tmpdir(void)
{
    static char buf[256];
    const char *base = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/wattcal-test-XXXXXX", base && *base ? base : "/tmp");
    cr_assert_not_null(mkdtemp(buf), "mkdtemp failed: %s", strerror(errno));
    return buf;
}

void wc_test_write(const char *dir, const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *p = path + strlen(dir) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    }
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}
