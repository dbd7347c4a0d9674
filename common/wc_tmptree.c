/*
 * wc_tmptree.c — see wc_tmptree.h.
 */
#define _XOPEN_SOURCE 700
#include "common/wc_tmptree.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 ? 0 : -errno;
}

int wc_remove_tree(const char *dir)
{
    int rc = nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc > 0 ? -rc : rc;
}
