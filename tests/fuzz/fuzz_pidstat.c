/*
 * fuzz_pidstat.c — /proc/<pid>/stat lines (collector/procfs/pidstat.c,
 * wc_pidstat_parse). Contract: a parse that succeeds gives pid, ppid and pgrp
 * in 0..INT32_MAX and a NUL-terminated comm shorter than 64 bytes; a failure
 * says why, naming the origin; and the fields read back the same from the
 * line printed again from them (comm between the first '(' and the last ')'
 * however many parentheses and spaces it holds).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/procfs/pidstat.h"
#include "tests/fuzz/fuzz.h"

/* The line again: every field wattcal reads in its place, 0 elsewhere. */
static size_t print_line(const wc_pidstat *p, char *buf, size_t cap)
{
    int n = snprintf(buf, cap,
                     "%" PRId32 " (%s) %c %" PRId32 " %" PRId32 " 0 0 0 0 0 0 0 0 %" PRIu64
                     " %" PRIu64 " 0 0 0 0 %" PRId64 " 0 %" PRIu64 "\n",
                     p->pid, p->comm, p->state, p->ppid, p->pgrp, p->utime, p->stime,
                     p->num_threads, p->starttime);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wc_pidstat ps;
    wc_error err = {{0}};
    int rc = wc_pidstat_parse((const char *)data, size, "fuzz/stat", &ps, &err);
    if (rc) {
        FUZZ_CHECK(rc == -EINVAL, "rc %d", rc);
        FUZZ_CHECK(strncmp(err.msg, "fuzz/stat: ", 11) == 0, "message '%s'", err.msg);
        return 0;
    }
    FUZZ_CHECK(ps.pid >= 0 && ps.ppid >= 0 && ps.pgrp >= -1, /* -1: no process group */ "pid %d ppid %d pgrp %d", ps.pid,
               ps.ppid, ps.pgrp);
    FUZZ_CHECK(memchr(ps.comm, '\0', sizeof ps.comm) != NULL, "comm not terminated");
    char line[512];
    size_t n = print_line(&ps, line, sizeof line);
    FUZZ_CHECK(n > 0, "line too long");
    wc_pidstat again;
    rc = wc_pidstat_parse(line, n, "again", &again, &err);
    FUZZ_CHECK(rc == 0, "the printed line does not parse: %s", err.msg);
    FUZZ_CHECK(again.pid == ps.pid && again.ppid == ps.ppid && again.pgrp == ps.pgrp &&
                   again.state == ps.state && again.utime == ps.utime &&
                   again.stime == ps.stime && again.num_threads == ps.num_threads &&
                   again.starttime == ps.starttime && strcmp(again.comm, ps.comm) == 0,
               "round trip differs (comm '%s' / '%s')", ps.comm, again.comm);
    return 0;
}
