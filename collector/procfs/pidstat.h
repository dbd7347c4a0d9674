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

/* Size of the buffer a /proc/<pid>/stat is read into: a real line is at most
 * ~1.2 KB (52 fields of up to 20 digits and a 64-byte comm), so a longer file
 * is not a process's stat and is refused, never parsed cut. */
#define WC_PIDSTAT_BUF 2048

/* Reads the stat file rel ("<pid>/stat") below the directory dirfd into buf
 * (cap bytes, NUL-terminated; *len bytes), whole or not at all: opened
 * non-blocking (a FIFO planted in an untrusted tree cannot block), one
 * bounded read (procfs hands the whole line to one read), and a file longer
 * than cap - 1 bytes is refused with -EFBIG (so the "last ')'" rule never
 * runs on cut text). Returns 0 (*len 0: empty, a process that just exited),
 * -EFBIG, or -errno of openat/read (ENOENT, ESRCH: gone; ENOTDIR: rel's
 * directory is a file; EAGAIN: a FIFO with a writer but no data). */
int wc_pidstat_read_at(int dirfd, const char *rel, char *buf, size_t cap, size_t *len);

/* Parses one stat line (a trailing newline is optional). Returns 0, or
 * -EINVAL with err naming `origin` and the missing/bad field (e.g. a file
 * truncated before field 22). */
int wc_pidstat_parse(const char *text, size_t len, const char *origin,
                     wc_pidstat *out, wc_error *err);

#endif
