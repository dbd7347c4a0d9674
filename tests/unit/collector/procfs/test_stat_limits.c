/*
 * test_stat_limits.c — reading /proc/<pid>/stat from an untrusted tree
 * (issue 16, defects 2 and 3; collector/procfs/pidstat.c wc_pidstat_read_at
 * and the sampler): a file longer than the buffer is refused, never parsed
 * cut (its "last ')'" would sit inside a forged comm), one of exactly the
 * buffer's size is read whole, and a FIFO where a stat should be never
 * blocks.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/procfs/pidstat.h"
#include "collector/procfs/proc_scan.h"
#include "tests/unit/support/test_support.h"

/* A stat line of exactly len bytes (newline included) for pid, whose comm
 * is padded with spaces and hides a forged ") R ... 999999 999999" tail. */
static char *long_stat(int pid, size_t len)
{
    const char *tail = ") S 1 1 1 0 -1 4194304 0 0 0 0 1 1 0 0 20 0 1 0 77 1000 100 0 0 0 0 0 0 0 0 "
                       "0 0 0 0 0 17 0 0 0 0 0 0\n";
    const char *forged = "x) R 1 1 1 0 -1 0 0 0 0 0 999999 999999 0 0 20 0 1 0 5 0 0 0 ";
    char head[32];
    int hl = snprintf(head, sizeof head, "%d (wattcal-cpu ", pid);
    size_t fixed = (size_t)hl + strlen(forged) + strlen(tail);
    cr_assert(len > fixed);
    char *s = malloc(len + 1);
    cr_assert_not_null(s);
    memcpy(s, head, (size_t)hl);
    memset(s + hl, ' ', len - fixed);
    memcpy(s + hl + (len - fixed), forged, strlen(forged));
    memcpy(s + len - strlen(tail), tail, strlen(tail) + 1);
    return s;
}

static int open_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    cr_assert(fd >= 0);
    return fd;
}

Test(stat_limits, longer_than_the_buffer_is_refused_never_cut)
{
    const char *dir = wc_test_tmpdir();
    char *line = long_stat(200, WC_PIDSTAT_BUF + 10);
    wc_test_write(dir, "200/stat", line);
    char *fits = long_stat(201, WC_PIDSTAT_BUF - 1);
    wc_test_write(dir, "201/stat", fits);
    int fd = open_dir(dir);
    char buf[WC_PIDSTAT_BUF];
    size_t len = 99;
    cr_assert_eq(wc_pidstat_read_at(fd, "200/stat", buf, sizeof buf, &len), -EFBIG);
    cr_assert_eq(len, 0);
    cr_assert_eq(wc_pidstat_read_at(fd, "201/stat", buf, sizeof buf, &len), 0);
    cr_assert_eq(len, WC_PIDSTAT_BUF - 1);
    wc_pidstat ps;
    cr_assert_eq(wc_pidstat_parse(buf, len, "201/stat", &ps, NULL), 0);
    cr_assert_eq(ps.utime, 1); /* the real fields, not the forged 999999 */
    cr_assert_eq(wc_pidstat_read_at(fd, "202/stat", buf, sizeof buf, &len), -ENOENT);
    close(fd);
    free(line);
    free(fits);
}

Test(stat_limits, the_sampler_counts_a_long_stat_as_an_error, .timeout = 10)
{
    const char *dir = wc_test_tmpdir();
    char *line = long_stat(300, 4000);
    wc_test_write(dir, "300/stat", line);
    free(line);
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/301", dir);
    cr_assert_eq(mkdir(fifo, 0755), 0);
    snprintf(fifo, sizeof fifo, "%s/301/stat", dir);
    cr_assert_eq(mkfifo(fifo, 0644), 0);
    wc_error err = {{0}};
    wc_proc_scanner *s = wc_proc_scanner_new(dir, &err);
    cr_assert_not_null(s, "%s", err.msg);
    wc_proc_snapshot snap = {0};
    cr_assert_eq(wc_proc_scan(s, &snap, &err), 0, "%s", err.msg);
    cr_assert_eq(snap.count, 0);
    cr_assert_eq(snap.errors, 1);
    cr_assert_eq(snap.vanished, 1); /* the FIFO: an empty read, not a hang */
    cr_assert(strstr(snap.first_error.msg, "300/stat: longer than 2047 bytes: refused, never "
                                           "parsed cut"),
              "%s", snap.first_error.msg);
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}
