/*
 * gnuplot.h — running gnuplot for the report's plots: posix_spawnp with an
 * argv array (no shell), the script on stdin, the output directory as the
 * working directory (scripts name only fixed, relative file names: no path
 * or label from the run ever enters a script), a deadline after which the
 * process is killed, and stderr kept in a log file.
 */
#ifndef WC_REPORT_GNUPLOT_H
#define WC_REPORT_GNUPLOT_H

#include "common/wc_error.h"

/* Whether a gnuplot executable is on PATH. */
int wc_gnuplot_available(void);

/* Runs gnuplot in dir with script on its stdin, stderr appended to
 * dir/gnuplot.log; killed after timeout_s. Returns 0, or -errno with err
 * (gnuplot missing, failed, killed at the deadline). */
int wc_gnuplot_run(const char *dir, const char *script, int timeout_s, wc_error *err);

#endif
