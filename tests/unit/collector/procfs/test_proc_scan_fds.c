/*
 * test_proc_scan_fds.c — the sampler's kept-open stat files (collector/
 * procfs/proc_scan.c, issue 15): counters re-read with pread; a pid reused
 * in a fake tree (its stat replaced: the kept fd would read the unlinked
 * file) and rewritten in place; a process whose stat vanished between the
 * listing and the read; the kernel behaviour the real-/proc path relies on
 * (a reaped child's kept fd reads ESRCH) and the scanner over the real /proc
 * dropping it; RLIMIT_NOFILE low (some files kept, the rest opened per scan)
 * and too low (none kept): every process still sampled right. Criterion
 * runs each test in its own process, so lowering the limit stays there.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/procfs/proc_scan.h"
#include "tests/unit/support/test_support.h"

/* <root>/<pid>/<file> with the fields wattcal reads. */
static void write_stat_as(const char *root, int pid, const char *file, unsigned long long utime,
                          unsigned long long start)
{
    char rel[64], line[512];
    snprintf(rel, sizeof rel, "%d/%s", pid, file);
    snprintf(line, sizeof line,
             "%d (p%d) S 1 %d %d 0 -1 4194304 10 0 0 0 %llu 2 0 0 20 0 1 0 %llu 12345678 "
             "100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
             pid, pid, pid, pid, utime, start);
    wc_test_write(root, rel, line);
}

static const wc_proc_sample *find(const wc_proc_snapshot *snap, int pid)
{
    for (size_t i = 0; i < snap->count; i++)
        if (snap->samples[i].id->pid == pid)
            return &snap->samples[i];
    return NULL;
}

static void scan_ok(wc_proc_scanner *s, wc_proc_snapshot *snap)
{
    wc_error err = {{0}};
    cr_assert_eq(wc_proc_scan(s, snap, &err), 0, "%s", err.msg);
}

static wc_proc_scanner *scanner(const char *root)
{
    wc_error err = {{0}};
    wc_proc_scanner *s = wc_proc_scanner_new(root, &err);
    cr_assert_not_null(s, "%s", err.msg);
    return s;
}

Test(proc_scan_fds, pread_and_pid_reuse_in_a_fake_tree)
{
    const char *root = wc_test_tmpdir();
    write_stat_as(root, 100, "stat", 10, 1000);
    write_stat_as(root, 200, "stat", 20, 2000);
    wc_proc_scanner *s = scanner(root);
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    size_t budget = 0;
    cr_assert_eq(wc_proc_scanner_kept_fds(s, &budget), 2, "both stat files kept open");
    cr_assert_gt(budget, 2);
    const wc_proc_identity *old100 = find(&snap, 100)->id;

    /* 200 runs on, rewritten in place (same file): the kept fd reads it */
    write_stat_as(root, 200, "stat", 25, 2000);
    /* 100 is a new process under the same pid: its stat replaced (rename) */
    write_stat_as(root, 100, "stat.new", 3, 1500);
    char from[512], to[512];
    snprintf(from, sizeof from, "%s/100/stat.new", root);
    snprintf(to, sizeof to, "%s/100/stat", root);
    cr_assert_eq(rename(from, to), 0);
    scan_ok(s, &snap);
    const wc_proc_sample *a = find(&snap, 100), *b = find(&snap, 200);
    cr_assert(a && b);
    cr_assert_eq(b->utime, 25, "pread of the kept file sees the new counters");
    cr_assert_eq(b->is_new, 0);
    cr_assert_eq(a->id->starttime, 1500, "not the unlinked file's starttime");
    cr_assert_eq(a->utime, 3);
    cr_assert_eq(a->is_new, 1, "a reused pid is a new (pid, starttime)");
    cr_assert_eq(snap.gone_count, 1);
    cr_assert_eq(snap.gone[0], old100);
    cr_assert_eq(wc_proc_scanner_kept_fds(s, NULL), 2, "the new process's file kept");
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}

Test(proc_scan_fds, stat_gone_between_listing_and_read)
{
    const char *root = wc_test_tmpdir();
    write_stat_as(root, 300, "stat", 7, 3000);
    write_stat_as(root, 301, "stat", 8, 3001);
    wc_proc_scanner *s = scanner(root);
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    const wc_proc_identity *id300 = find(&snap, 300)->id;
    char path[512];
    snprintf(path, sizeof path, "%s/300/stat", root);
    cr_assert_eq(unlink(path), 0); /* 300/ is still listed; its stat is gone */
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, 1);
    cr_assert_null(find(&snap, 300), "not read from the kept, unlinked file");
    cr_assert_eq(snap.vanished, 1, "an exit between readdir and read is a vanish");
    cr_assert_eq(snap.errors, 0);
    cr_assert_eq(snap.gone_count, 1);
    cr_assert_eq(snap.gone[0], id300);
    cr_assert_eq(wc_proc_scanner_kept_fds(s, NULL), 1, "its file closed");
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}

/* A child that sleeps until killed. */
static pid_t sleeper(void)
{
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0); /* never outlives a failed test */
        for (;;)
            pause();
    }
    return p;
}

Test(proc_scan_fds, real_proc_dead_process_fd_reads_esrch)
{
    pid_t child = sleeper();
    char rel[64], buf[2048];
    snprintf(rel, sizeof rel, "/proc/%d/stat", (int)child);
    int fd = open(rel, O_RDONLY | O_CLOEXEC);
    cr_assert_geq(fd, 0);
    cr_assert_gt(pread(fd, buf, sizeof buf, 0), 0);
    wc_proc_scanner *s = scanner("/proc");
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    cr_assert_not_null(find(&snap, child));
    size_t kept = wc_proc_scanner_kept_fds(s, NULL);
    cr_assert_geq(kept, snap.count / 2, "most of /proc kept open (%zu of %zu)", kept, snap.count);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    /* what the scanner relies on: the old fd names the dead task, even if the pid comes back */
    errno = 0;
    cr_assert_eq(pread(fd, buf, sizeof buf, 0), -1);
    cr_assert_eq(errno, ESRCH);
    close(fd);
    scan_ok(s, &snap);
    cr_assert_null(find(&snap, child));
    int gone = 0;
    for (size_t i = 0; i < snap.gone_count; i++)
        gone |= snap.gone[i]->pid == child;
    cr_assert(gone, "the dead child is gone");
    cr_assert_not_null(find(&snap, getpid()), "this process still sampled");
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}

/* A fake tree of n processes 1000.. with utime = base + pid. */
static void tree(const char *root, int n, unsigned long long base)
{
    for (int i = 0; i < n; i++)
        write_stat_as(root, 1000 + i, "stat", base + 1000u + (unsigned)i, 50u + (unsigned)i);
}

static void check_all(const wc_proc_snapshot *snap, int n, unsigned long long base)
{
    cr_assert_eq(snap->count, (size_t)n);
    for (int i = 0; i < n; i++) {
        const wc_proc_sample *p = find(snap, 1000 + i);
        cr_assert_not_null(p, "pid %d", 1000 + i);
        cr_assert_eq(p->utime, base + 1000u + (unsigned)i, "pid %d", 1000 + i);
    }
}

static void limit_files(rlim_t n)
{
    struct rlimit rl = {n, n};
    cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0, "%s", strerror(errno));
}

Test(proc_scan_fds, file_limit_reached_keeps_some_and_opens_the_rest)
{
    const char *root = wc_test_tmpdir();
    tree(root, 200, 0);
    limit_files(300); /* 300 - the 128 reserved = 172 kept */
    wc_proc_scanner *s = scanner(root);
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    size_t budget = 0;
    cr_assert_eq(wc_proc_scanner_kept_fds(s, &budget), 172);
    cr_assert_eq(budget, 172);
    check_all(&snap, 200, 0);
    tree(root, 200, 5000); /* every counter moves, in place */
    scan_ok(s, &snap);
    check_all(&snap, 200, 5000);
    cr_assert_eq(snap.errors, 0);
    cr_assert_eq(wc_proc_scanner_kept_fds(s, NULL), 172);
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}

Test(proc_scan_fds, file_limit_too_low_opens_every_stat)
{
    const char *root = wc_test_tmpdir();
    tree(root, 60, 0);
    limit_files(200); /* not above twice the reserve: nothing kept */
    wc_proc_scanner *s = scanner(root);
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    size_t budget = 1;
    cr_assert_eq(wc_proc_scanner_kept_fds(s, &budget), 0);
    cr_assert_eq(budget, 0);
    check_all(&snap, 60, 0);
    tree(root, 60, 7);
    scan_ok(s, &snap);
    check_all(&snap, 60, 7);
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}
