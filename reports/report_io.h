/*
 * report_io.h — the files a report writes into its directory: opened by
 * name inside the directory (never through a symbolic link planted there),
 * every write checked, and a full disk reported with the file's path.
 */
#ifndef WC_REPORT_IO_H
#define WC_REPORT_IO_H

#include <stdio.h>

#include "common/wc_error.h"

/* A file being written. */
typedef struct wc_outfile {
    FILE *f;
    char path[4200];
} wc_outfile;

/* Creates or truncates dir/name (mode 0644; a symbolic link there is
 * refused). Returns 0, or -errno with err naming the path. */
int wc_outfile_open(wc_outfile *o, const char *dir, const char *name, wc_error *err);

/* Flushes and closes; a write that failed at any point (e.g. ENOSPC) is
 * reported here. Returns 0, or -errno with err naming the path. */
int wc_outfile_close(wc_outfile *o, wc_error *err);

/* Copies src_dir/name to dir/name (same rules as wc_outfile_open; the source
 * is not followed through a link either). Returns 0, or -errno with err. */
int wc_outfile_copy(const char *src_dir, const char *dir, const char *name, wc_error *err);

/* Creates dir when missing (parents must exist; mode 0755). Returns 0, or
 * -errno with err (exists but is not a directory, cannot be created). */
int wc_outdir_ensure(const char *dir, wc_error *err);

#endif
