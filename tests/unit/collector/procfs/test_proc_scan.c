/*
 * test_proc_scan.c — the process sampler (collector/procfs/proc_scan.c).
 *
 * Scans Kepler's procfs test tree, procfs trees this test builds in a
 * temporary directory (pid reuse, a pid dir without stat, a malformed stat, a
 * process gone between scans, comm with spaces and ')', identity fields read
 * once, a large tree for the hash), and the real /proc (this test's own
 * process, checked against /proc/self/stat).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/procfs/pidstat.h"
#include "collector/procfs/proc_scan.h"
#include "collector/procfs/procstat.h"
#include "tests/unit/support/test_support.h"

#define CID "9f7c3a1be0d24c6e8a5b7d9f1e3c5a7b9d1f3e5a7c9b1d3f5e7a9c1b3d5f7e9a"
#define CID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define PUID "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
#define PUID_ "7a1b2c3d_4e5f_4a6b_8c7d_9e0f1a2b3c4d"

/* ---- helpers -------------------------------------------------------------- */

/* Writes <root>/<pid>/stat with the fields wattcal reads. */
static void write_stat(const char *root, int pid, const char *comm, unsigned long long utime,
                       unsigned long long stime, int threads, unsigned long long start)
{
    char rel[64], line[512];
    snprintf(rel, sizeof rel, "%d/stat", pid);
    snprintf(line, sizeof line,
             "%d (%s) S 1 %d %d 0 -1 4194304 10 0 0 0 %llu %llu 0 0 20 0 %d 0 %llu 12345678 "
             "100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
             pid, comm, pid, pid, utime, stime, threads, start);
    wc_test_write(root, rel, line);
}

/* Removes <root>/<rel> (a file). */
static void remove_file(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    cr_assert_eq(unlink(path), 0, "unlink %s: %s", path, strerror(errno));
}

/* Removes <root>/<pid> holding only the listed files. */
static void remove_pid(const char *root, int pid, const char *const *files, size_t nfiles)
{
    char rel[64];
    for (size_t i = 0; i < nfiles; i++) {
        snprintf(rel, sizeof rel, "%d/%s", pid, files[i]);
        remove_file(root, rel);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%d", root, pid);
    cr_assert_eq(rmdir(path), 0, "rmdir %s: %s", path, strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Deletes a temporary tree built by a test. */
static void remove_tree(const char *root)
{
    cr_assert_eq(nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0, "cleaning %s", root);
}

static const wc_proc_sample *find_sample(const wc_proc_snapshot *snap, int pid)
{
    for (size_t i = 0; i < snap->count; i++)
        if (snap->samples[i].id->pid == pid)
            return &snap->samples[i];
    return NULL;
}

static int gone_has(const wc_proc_snapshot *snap, const wc_proc_identity *id)
{
    for (size_t i = 0; i < snap->gone_count; i++)
        if (snap->gone[i] == id)
            return 1;
    return 0;
}

static wc_proc_scanner *scanner_ok(const char *root)
{
    wc_error err = {{0}};
    wc_proc_scanner *s = wc_proc_scanner_new(root, &err);
    cr_assert_not_null(s, "%s", err.msg);
    return s;
}

static void scan_ok(wc_proc_scanner *s, wc_proc_snapshot *snap)
{
    wc_error err = {{0}};
    cr_assert_eq(wc_proc_scan(s, snap, &err), 0, "%s", err.msg);
}

/* The exe the fixture tree gives: its link target, or "" when not a link. */
static void expected_exe(const char *root, const char *pid, char *out, size_t cap)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/exe", root, pid);
    ssize_t n = readlink(path, out, cap - 1);
    out[n > 0 ? (size_t)n : 0] = '\0';
}

/* ---- Kepler's procfs test tree ------------------------------------------------ */

Test(proc_scan, kepler_fixture_tree)
{
    char root[4096];
    snprintf(root, sizeof root, "%s",
             wc_shared_fixture("kepler/internal/resource/testdata/procfs"));
    wc_proc_scanner *s = scanner_ok(root);
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, 6);
    cr_assert_eq(snap.vanished, 0);
    cr_assert_eq(snap.errors, 0, "%s", snap.first_error.msg);
    cr_assert_eq(snap.gone_count, 0);
    for (size_t i = 0; i < snap.count; i++) {
        cr_assert_eq(snap.samples[i].is_new, 1);
        cr_assert_eq(snap.samples[i].id->store_id, -1);
    }
    const wc_proc_sample *p = find_sample(&snap, 3456208);
    cr_assert_not_null(p);
    cr_assert_str_eq(p->id->comm, "prometheus");
    cr_assert_eq(p->id->ppid, 3456165);
    cr_assert_eq(p->id->starttime, 633412975);
    cr_assert_eq(p->utime, 572479);
    cr_assert_eq(p->stime, 27124);
    cr_assert_eq(p->num_threads, 23);
    cr_assert_str_eq(p->id->cgroup.runtime, "docker");
    cr_assert_str_eq(p->id->cgroup.container_id,
                     "b176419186d75a44628851daf7841d3374a2ec56d0b038ee3bd1e0c6d331e5b1");
    char exe[256];
    expected_exe(root, "3456208", exe, sizeof exe);
    cr_assert_str_eq(p->id->exe, exe);
    const wc_proc_sample *vm = find_sample(&snap, 43251);
    cr_assert_not_null(vm);
    cr_assert_str_eq(vm->id->comm, "qemu-system-x86");
    cr_assert_eq(vm->utime, 143592);
    cr_assert_eq(vm->stime, 25589);
    cr_assert_eq(vm->num_threads, 8);
    cr_assert_eq(vm->id->starttime, 281058);
    cr_assert_str_eq(vm->id->cgroup.container_id, "");
    /* The pid is the directory name (this stat file says 1188620 inside). */
    const wc_proc_sample *nv = find_sample(&snap, 1337);
    cr_assert_not_null(nv);
    cr_assert_str_eq(nv->id->comm, "nvim");
    cr_assert_eq(nv->id->starttime, 701135771);
    cr_assert_eq(nv->utime, 47);
    const wc_proc_sample *ng = find_sample(&snap, 3538344);
    cr_assert_not_null(ng);
    cr_assert_str_eq(ng->id->cgroup.runtime, "podman");
    cr_assert_eq(ng->id->ppid, 3538317);
    /* A second scan: same identities, nothing new, nothing gone. */
    const wc_proc_identity *before = p->id;
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, 6);
    cr_assert_eq(snap.gone_count, 0);
    for (size_t i = 0; i < snap.count; i++)
        cr_assert_eq(snap.samples[i].is_new, 0);
    cr_assert_eq(find_sample(&snap, 3456208)->id, before);
    /* The same root also serves /proc/stat. */
    wc_procstat ps;
    wc_error err = {{0}};
    cr_assert_eq(wc_procstat_read(root, &ps, &err), 0, "%s", err.msg);
    cr_assert_eq(ps.total.user, 8608833);
    wc_procstat_free(&ps);
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}

/* ---- an own tree: the life cycle --------------------------------------------- */

/* Builds the tree of the first scan. */
static void build_lifecycle_tree(const char *root)
{
    write_stat(root, 100, "a b) c", 10, 5, 2, 4000);
    wc_test_write(root, "100/cgroup",
                  "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" PUID_
                  ".slice/cri-containerd-" CID ".scope\n");
    char link[4096];
    snprintf(link, sizeof link, "%s/100/exe", root);
    cr_assert_eq(symlink("/opt/app/bin/server", link), 0, "%s", strerror(errno));
    write_stat(root, 200, "reused", 1, 1, 1, 5000);
    write_stat(root, 300, "leaver", 7, 3, 1, 6000);
    wc_test_write(root, "400/cmdline", "no stat here");          /* vanished */
    wc_test_write(root, "500/stat", "500 (bad) S 1 500 500 0\n"); /* malformed */
    wc_test_write(root, "510/stat", "");                         /* empty read: vanished */
    wc_test_write(root, "net/stat", "not a process\n");          /* not numeric */
    wc_test_write(root, "700", "a numeric file, not a dir\n");
    write_stat(root, 800, "", 0, 0, 1, 1); /* empty comm is legal */
    wc_test_write(root, "stat", "cpu  1 2 3 4 5 6 7 8 9 10\n");
}

Test(proc_scan, lifecycle_reuse_vanish_malformed_gone)
{
    const char *tmp = wc_test_tmpdir();
    char root[256];
    snprintf(root, sizeof root, "%s", tmp);
    build_lifecycle_tree(root);
    wc_proc_scanner *s = scanner_ok(root);
    wc_proc_snapshot snap = {0};

    /* Scan 1. */
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, 4, "100, 200, 300, 800");
    cr_assert_eq(snap.vanished, 2, "400 has no stat, 510 reads empty");
    cr_assert_eq(snap.errors, 1);
    cr_assert_not_null(strstr(snap.first_error.msg, "500/stat"), "%s", snap.first_error.msg);
    cr_assert_not_null(strstr(snap.first_error.msg, "missing"), "%s", snap.first_error.msg);
    cr_assert_eq(snap.gone_count, 0);
    const wc_proc_sample *a = find_sample(&snap, 100);
    cr_assert_not_null(a);
    cr_assert_eq(a->is_new, 1);
    cr_assert_str_eq(a->id->comm, "a b) c");
    cr_assert_str_eq(a->id->exe, "/opt/app/bin/server");
    cr_assert_eq(a->id->starttime, 4000);
    cr_assert_eq(a->id->ppid, 1);
    cr_assert_eq(a->utime, 10);
    cr_assert_eq(a->stime, 5);
    cr_assert_eq(a->num_threads, 2);
    cr_assert_eq(a->id->store_id, -1);
    cr_assert_str_eq(a->id->cgroup.container_id, CID);
    cr_assert_str_eq(a->id->cgroup.runtime, "containerd");
    cr_assert_str_eq(a->id->cgroup.pod_uid, PUID);
    cr_assert_str_eq(a->id->cgroup.qos, "burstable");
    const wc_proc_sample *r1 = find_sample(&snap, 200);
    cr_assert_not_null(r1);
    cr_assert_str_eq(r1->id->exe, "", "no exe link: \"\"");
    cr_assert_str_eq(r1->id->cgroup.container_id, "", "no cgroup file: host");
    cr_assert_str_eq(find_sample(&snap, 800)->id->comm, "");
    const wc_proc_identity *id100 = a->id, *old200 = r1->id;
    const wc_proc_identity *old300 = find_sample(&snap, 300)->id;
    ((wc_proc_identity *)id100)->store_id = 77; /* the consumer's field */

    /* Between scans: 200 is a new process (pid reuse), 300 exits, 100 runs on
     * and changes what would be read again if the scanner re-read it. */
    write_stat(root, 200, "reborn", 0, 0, 1, 5100);
    remove_pid(root, 300, (const char *const[]){"stat"}, 1);
    write_stat(root, 100, "renamed", 25, 6, 3, 4000);
    wc_test_write(root, "100/cgroup", "0::/system.slice/docker-" CID2 ".scope\n");

    /* Scan 2. */
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, 3, "100, 200 (new), 800");
    cr_assert_eq(snap.vanished, 2);
    cr_assert_eq(snap.errors, 1);
    a = find_sample(&snap, 100);
    cr_assert_eq(a->is_new, 0);
    cr_assert_eq(a->id, id100, "same (pid, starttime) = same identity");
    cr_assert_eq(a->utime, 25);
    cr_assert_eq(a->stime, 6);
    cr_assert_eq(a->num_threads, 3);
    cr_assert_eq(a->id->store_id, 77);
    cr_assert_str_eq(a->id->comm, "a b) c", "comm read only when first seen");
    cr_assert_str_eq(a->id->cgroup.container_id, CID, "cgroup read only when first seen");
    const wc_proc_sample *r2 = find_sample(&snap, 200);
    cr_assert_not_null(r2);
    cr_assert_eq(r2->is_new, 1, "pid reuse: a new identity");
    cr_assert_neq(r2->id, old200);
    cr_assert_eq(r2->id->starttime, 5100);
    cr_assert_str_eq(r2->id->comm, "reborn");
    cr_assert_eq(r2->id->store_id, -1);
    cr_assert_eq(snap.gone_count, 2);
    cr_assert(gone_has(&snap, old200), "the reused pid's old identity is gone");
    cr_assert(gone_has(&snap, old300), "the exited process is gone");
    /* Gone identities are still readable during this scan's lifetime. */
    cr_assert_eq(old200->starttime, 5000);
    cr_assert_str_eq(old300->comm, "leaver");
    const wc_proc_identity *new200 = r2->id;

    /* Scan 3: nothing changed. */
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, 3);
    cr_assert_eq(snap.gone_count, 0);
    cr_assert_eq(find_sample(&snap, 200)->id, new200);
    cr_assert_eq(find_sample(&snap, 200)->is_new, 0);
    cr_assert_eq(find_sample(&snap, 100)->is_new, 0);

    /* Scan 4: everything exits. */
    remove_pid(root, 100, (const char *const[]){"stat", "cgroup", "exe"}, 3);
    remove_pid(root, 200, (const char *const[]){"stat"}, 1);
    remove_pid(root, 800, (const char *const[]){"stat"}, 1);
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, 0);
    cr_assert_eq(snap.gone_count, 3);
    cr_assert(gone_has(&snap, id100));
    cr_assert_eq(id100->store_id, 77);
    wc_proc_snapshot_free(&snap);
    cr_assert_null(snap.samples);
    wc_proc_scanner_free(s);
    remove_tree(root);
}

Test(proc_scan, unreadable_stat_counted_scan_goes_on)
{
    const char *tmp = wc_test_tmpdir();
    char root[256];
    snprintf(root, sizeof root, "%s", tmp);
    write_stat(root, 10, "ok", 1, 2, 1, 50);
    /* A stat that is a directory: open works, read fails with EISDIR (what
     * EACCES would be for a non-root user: an error, not a vanished process). */
    wc_test_write(root, "20/stat/inner", "x");
    write_stat(root, 30, "ok too", 3, 4, 1, 60);
    wc_proc_scanner *s = scanner_ok(root);
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, 2);
    cr_assert_eq(snap.errors, 1);
    cr_assert_eq(snap.vanished, 0);
    cr_assert_not_null(strstr(snap.first_error.msg, "20/stat"), "%s", snap.first_error.msg);
    cr_assert_not_null(strstr(snap.first_error.msg, strerror(EISDIR)), "%s", snap.first_error.msg);
    cr_assert_not_null(find_sample(&snap, 10));
    cr_assert_str_eq(find_sample(&snap, 30)->id->comm, "ok too");
    /* A later scan starts with a clean error record. */
    remove_file(root, "20/stat/inner");
    char path[512];
    snprintf(path, sizeof path, "%s/20/stat", root);
    cr_assert_eq(rmdir(path), 0);
    scan_ok(s, &snap);
    cr_assert_eq(snap.errors, 0);
    cr_assert_str_eq(snap.first_error.msg, "");
    cr_assert_eq(snap.vanished, 1, "20 now has no stat");
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
    remove_tree(root);
}

Test(proc_scan, malformed_cgroup_counted_process_kept)
{
    const char *tmp = wc_test_tmpdir();
    char root[256];
    snprintf(root, sizeof root, "%s", tmp);
    write_stat(root, 42, "w", 1, 1, 1, 9);
    wc_test_write(root, "42/cgroup", "this line has no colons\n");
    wc_proc_scanner *s = scanner_ok(root);
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, 1);
    cr_assert_eq(snap.errors, 1);
    cr_assert_not_null(strstr(snap.first_error.msg, "42/cgroup"), "%s", snap.first_error.msg);
    cr_assert_str_eq(snap.samples[0].id->cgroup.container_id, "");
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
    remove_tree(root);
}

Test(proc_scan, many_processes_hash_growth_and_deletion)
{
    const char *tmp = wc_test_tmpdir();
    char root[256];
    snprintf(root, sizeof root, "%s", tmp);
    enum { N = 3000 };
    /* Pids chosen to collide in the low bits and to spread widely. */
    for (int i = 0; i < N; i++)
        write_stat(root, 1 + i * 1024, "p", (unsigned long long)i, 0, 1, 100 + (unsigned long long)i);
    wc_proc_scanner *s = scanner_ok(root);
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, N);
    for (size_t i = 0; i < snap.count; i++) {
        const wc_proc_sample *p = &snap.samples[i];
        cr_assert_eq(p->is_new, 1);
        cr_assert_eq(p->id->starttime, 100 + (uint64_t)(p->id->pid - 1) / 1024);
        cr_assert_eq(p->utime, (uint64_t)(p->id->pid - 1) / 1024);
    }
    /* Every other process exits. */
    for (int i = 0; i < N; i += 2)
        remove_pid(root, 1 + i * 1024, (const char *const[]){"stat"}, 1);
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, N / 2);
    cr_assert_eq(snap.gone_count, N / 2);
    for (size_t i = 0; i < snap.count; i++) {
        cr_assert_eq(snap.samples[i].is_new, 0, "pid %d lost after deletions",
                     snap.samples[i].id->pid);
        cr_assert_eq((snap.samples[i].id->pid - 1) / 1024 % 2, 1);
    }
    for (size_t i = 0; i < snap.gone_count; i++)
        cr_assert_eq((snap.gone[i]->pid - 1) / 1024 % 2, 0);
    /* Their pids come back as new processes. */
    for (int i = 0; i < N; i += 2)
        write_stat(root, 1 + i * 1024, "q", 0, 0, 1, 999999);
    scan_ok(s, &snap);
    cr_assert_eq(snap.count, N);
    size_t fresh = 0;
    for (size_t i = 0; i < snap.count; i++) {
        const wc_proc_sample *p = &snap.samples[i];
        int even = (p->id->pid - 1) / 1024 % 2 == 0;
        cr_assert_eq(p->is_new, even, "pid %d", p->id->pid);
        fresh += (size_t)p->is_new;
    }
    cr_assert_eq(fresh, N / 2);
    cr_assert_eq(snap.gone_count, 0);
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
    remove_tree(root);
}

/* ---- the real /proc ------------------------------------------------------------- */

Test(proc_scan, real_proc_finds_self)
{
    size_t len = 0;
    char *text = wc_test_slurp("/proc/self/stat", &len);
    wc_pidstat self;
    wc_error err = {{0}};
    cr_assert_eq(wc_pidstat_parse(text, len, "/proc/self/stat", &self, &err), 0, "%s", err.msg);
    free(text);
    cr_assert_eq(self.pid, getpid());

    wc_proc_scanner *s = scanner_ok("/proc");
    wc_proc_snapshot snap = {0};
    scan_ok(s, &snap);
    cr_assert_gt(snap.count, 0);
    const wc_proc_sample *me = find_sample(&snap, getpid());
    cr_assert_not_null(me, "own pid %d not found among %zu", (int)getpid(), snap.count);
    cr_assert_eq(me->id->starttime, self.starttime);
    cr_assert_str_eq(me->id->comm, self.comm);
    cr_assert_eq(me->id->ppid, getppid());
    cr_assert_eq(me->is_new, 1);
    cr_assert_geq(me->utime + me->stime, self.utime + self.stime);
    char exe[256];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert_gt(n, 0);
    exe[n] = '\0';
    cr_assert_str_eq(me->id->exe, exe);
    /* Our own cgroup, parsed directly, matches what the scanner stored. */
    text = wc_test_slurp("/proc/self/cgroup", &len);
    wc_cgroup_info cg;
    cr_assert_eq(wc_cgroup_parse(text, len, "/proc/self/cgroup", &cg, &err), 0, "%s", err.msg);
    free(text);
    cr_assert_str_eq(me->id->cgroup.container_id, cg.container_id);
    cr_assert_str_eq(me->id->cgroup_path, cg.path);
    /* Scan again: we are the same identity, no longer new. */
    const wc_proc_identity *id = me->id;
    scan_ok(s, &snap);
    me = find_sample(&snap, getpid());
    cr_assert_not_null(me);
    cr_assert_eq(me->id, id);
    cr_assert_eq(me->is_new, 0);
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
}

Test(proc_scan, missing_root)
{
    wc_error err = {{0}};
    cr_assert_null(wc_proc_scanner_new("/nonexistent-wattcal-procfs", &err));
    cr_assert_not_null(strstr(err.msg, "/nonexistent-wattcal-procfs"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, strerror(ENOENT)), "%s", err.msg);
}
