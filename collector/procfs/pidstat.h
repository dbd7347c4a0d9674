/*
 * pidstat.h — parser for /proc/<pid>/stat.
 *
 * comm is the text between the FIRST '(' and the LAST ')' (names contain
 * spaces and parentheses; fixtures/cases/B16); the fields after the last ')'
 * are split on single spaces (proc(5) numbering: state is field 3).
 */
#ifndef WC_PIDSTAT_H
#define WC_PIDSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

/* The fields wattcal needs from one /proc/<pid>/stat line. Times in USER_HZ
 * ticks (utime/stime exclude children), starttime in ticks since boot. */
typedef struct wc_pidstat {
    int32_t pid;
    char comm[64];        /* kernel truncates to 15 bytes; kept verbatim */
    char state;
    int32_t ppid;
    int32_t pgrp;         /* field 5: process group (a workload's processes share one) */
    uint64_t utime, stime; /* fields 14, 15 */
    int64_t num_threads;  /* field 20 */
    uint64_t starttime;   /* field 22 */
} wc_pidstat;

/* Parses one stat line (a trailing newline is optional). Returns 0, or
 * -EINVAL with err naming `origin` and the missing/bad field (e.g. a file
 * truncated before field 22). */
int wc_pidstat_parse(const char *text, size_t len, const char *origin,
                     wc_pidstat *out, wc_error *err);

#endif
