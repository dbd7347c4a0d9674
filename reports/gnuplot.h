/*
 * gnuplot.h — running gnuplot for the report's plots: posix_spawn of the
 * gnuplot found on an absolute PATH entry (relative and empty entries are
 * skipped: they would search the working directory), an argv array (no
 * shell), the script on its stdin (from an anonymous memory file, so a
 * gnuplot that does not read cannot block us), a private working directory,
 * a deadline after which its whole process group is killed, and stderr kept
 * in a log.
 */
#ifndef WC_REPORT_GNUPLOT_H
#define WC_REPORT_GNUPLOT_H

#include <stddef.h>

#include "common/wc_error.h"

/* The absolute path of gnuplot on PATH (unset PATH: /usr/bin:/bin) into
 * out. Returns 1 when found, 0 when not. */
int wc_gnuplot_find(char *out, size_t cap);

/* Whether gnuplot can be found (wc_gnuplot_find). */
int wc_gnuplot_available(void);

/* Runs gnuplot in workdir with script on its stdin, stderr to log_fd (-1:
 * discarded); killed, with everything it started, after timeout_s. Returns
 * 0, or -errno with err: -ENOENT gnuplot missing, -ETIMEDOUT killed at the
 * deadline, -EIO it failed. */
int wc_gnuplot_run(const char *workdir, const char *script, int timeout_s, int log_fd, wc_error *err);

#endif
