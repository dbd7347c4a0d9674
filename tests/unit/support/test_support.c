/*
 * test_support.c — see test_support.h.
 */
#include "tests/unit/support/test_support.h"

#include "common/wc_tmptree.h"

#include <criterion/criterion.h>
#include <dirent.h>
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

/* The temporary directories this process made, removed when it exits.
 * Criterion runs each test in a forked worker that ends with exit(), so an
 * atexit handler cleans up after every test, passed, failed or skipped (and
 * after the whole run with --no-fork). */
static char (*tmpdirs)[256];
static size_t ntmpdirs, cap_tmpdirs;
static pid_t tmpdirs_owner;

/* Makes every directory under dir searchable and writable again (a test may
 * have taken the permissions away), so the tree can be removed. */
static void unlock_tree(const char *dir)
{
    if (chmod(dir, 0700) != 0)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            unlock_tree(path);
    }
    closedir(d);
}

/* atexit handler: removes the trees wc_test_tmpdir made in this process (not
 * in a child forked by a test, which shares the list but not the trees' use). */
static void remove_tmpdirs(void)
{
    if (getpid() != tmpdirs_owner)
        return;
    for (size_t i = 0; i < ntmpdirs; i++) {
        struct stat st;
        if (lstat(tmpdirs[i], &st) != 0)
            continue; /* the test removed it itself */
        unlock_tree(tmpdirs[i]);
        errno = 0;
        int rc = wc_remove_tree(tmpdirs[i]); /* -1 with errno, or -errno of an entry */
        if (rc != 0)
            fprintf(stderr, "test_support: cannot remove %s: %s\n", tmpdirs[i],
                    strerror(rc == -1 && errno ? errno : -rc));
    }
    free(tmpdirs);
    tmpdirs = NULL;
    ntmpdirs = cap_tmpdirs = 0;
}

/* Adds dir to the list removed at exit. */
static void remember_tmpdir(const char *dir)
{
    if (tmpdirs_owner != getpid()) {
        /* first directory of this process: (re)arm the handler, drop the
         * parent's list (a forked child does not own those trees) */
        if (tmpdirs_owner == 0)
            cr_assert_eq(atexit(remove_tmpdirs), 0);
        tmpdirs_owner = getpid();
        ntmpdirs = 0;
    }
    if (ntmpdirs == cap_tmpdirs) {
        size_t cap = cap_tmpdirs ? 2 * cap_tmpdirs : 16;
        void *grown = realloc(tmpdirs, cap * sizeof *tmpdirs);
        cr_assert_not_null(grown);
        tmpdirs = grown;
        cap_tmpdirs = cap;
    }
    snprintf(tmpdirs[ntmpdirs++], sizeof tmpdirs[0], "%s", dir);
}

const char *wc_test_tmpdir(void)
{
    static char buf[256];
    const char *base = getenv("TMPDIR");
    snprintf(buf, sizeof buf, "%s/wattcal-test-XXXXXX", base && *base ? base : "/tmp");
    cr_assert_not_null(mkdtemp(buf), "mkdtemp failed: %s", strerror(errno));
    remember_tmpdir(buf);
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
