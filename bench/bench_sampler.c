/*
 * bench_sampler.c — `make bench`: the sampler's tick cost and SQLite ingest.
 *
 * 1. Tick cost at ~100 / 1,000 / 5,000 processes (sleeping children are
 *    spawned to reach each count) measured side by side, in alternation, with
 *    the floor: a minimal loop that only lists /proc and opens+reads+closes
 *    each /proc/<pid>/stat. Medians of 21 rounds and their ratio (target
 *    ≤ 1.3×). The tick is what `record` does per tick before SQLite: the
 *    process scan plus /proc/stat.
 * 2. SQLite ingest of process rows (one transaction per tick of 5,000
 *    processes, as `record` writes them): rows/s (target ≥ 1 M/s).
 * Figures are printed; nothing here asserts timings.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/procfs/proc_scan.h"
#include "collector/procfs/procstat.h"
#include "collector/store/store.h"
#include "common/wc_clock.h"

#define ROUNDS 21

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t median(int64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    return v[n / 2];
}

/* The floor: list /proc, open+read+close every <pid>/stat, nothing else. */
static size_t floor_pass(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int dfd = dirfd(d);
    struct dirent *e;
    char path[300], buf[1024];
    size_t n = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "%s/stat", e->d_name);
        int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (read(fd, buf, sizeof buf) > 0)
            n++;
        close(fd);
    }
    closedir(d);
    return n;
}

static size_t count_processes(void) { return floor_pass(); }

static pid_t *spawn_sleepers(size_t n)
{
    pid_t *pids = calloc(n ? n : 1, sizeof *pids);
    for (size_t i = 0; pids && i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            for (;;)
                pause();
        }
        pids[i] = p;
    }
    return pids;
}

static void reap(pid_t *pids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pids[i] > 0)
            kill(pids[i], SIGKILL);
    for (size_t i = 0; i < n; i++)
        if (pids[i] > 0)
            waitpid(pids[i], NULL, 0);
    free(pids);
}

static int bench_ticks(size_t target)
{
    size_t base = count_processes();
    size_t extra = target > base ? target - base : 0;
    pid_t *pids = spawn_sleepers(extra);
    if (!pids)
        return -1;
    usleep(200000);
    wc_error err = {{0}};
    wc_proc_scanner *s = wc_proc_scanner_new("/proc", &err);
    wc_proc_snapshot snap;
    memset(&snap, 0, sizeof snap);
    if (!s || wc_proc_scan(s, &snap, &err)) { /* warm-up: identities read once */
        fprintf(stderr, "bench: %s\n", err.msg);
        reap(pids, extra);
        return -1;
    }
    int64_t tf[ROUNDS], tt[ROUNDS];
    size_t seen = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int64_t t0 = wc_mono_ns();
        seen = floor_pass();
        int64_t t1 = wc_mono_ns();
        wc_procstat ps;
        memset(&ps, 0, sizeof ps);
        wc_proc_scan(s, &snap, &err);
        wc_procstat_read("/proc", &ps, &err);
        int64_t t2 = wc_mono_ns();
        wc_procstat_free(&ps);
        tf[r] = t1 - t0;
        tt[r] = t2 - t1;
    }
    int64_t mf = median(tf, ROUNDS), mt = median(tt, ROUNDS);
    printf("  %6zu processes: tick %8.3f ms   floor %8.3f ms   ratio %.2fx   (scan saw %zu)\n",
           seen, mt / 1e6, mf / 1e6, (double)mt / (double)mf, snap.count);
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(s);
    reap(pids, extra);
    return 0;
}

/* Ingest: synthetic identities and samples, written exactly as record does. */
static int bench_ingest(void)
{
    enum { NPROC = 5000, NTICKS = 200 };
    char path[] = "/tmp/wattcal-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(path);
    wc_error err = {{0}};
    wc_store *st = wc_store_open(path, WC_STORE_CREATE, &err);
    wc_proc_identity *ids = calloc(NPROC, sizeof *ids);
    wc_proc_snapshot snap;
    memset(&snap, 0, sizeof snap);
    snap.samples = calloc(NPROC, sizeof *snap.samples);
    if (!st || !ids || !snap.samples) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return -1;
    }
    for (int i = 0; i < NPROC; i++) {
        ids[i].pid = 1000 + i;
        ids[i].starttime = 12345 + (uint64_t)i;
        snprintf(ids[i].comm, sizeof ids[i].comm, "worker-%d", i);
        ids[i].store_id = -1;
        snap.samples[i].id = &ids[i];
    }
    snap.count = NPROC;
    wc_cpu_times cpu;
    memset(&cpu, 0, sizeof cpu);
    int64_t tick_id, t0 = 0, rows = 0;
    for (int t = 0; t < NTICKS; t++) {
        for (int i = 0; i < NPROC; i++)
            snap.samples[i].utime = (uint64_t)(t * 3 + i);
        if (t == 1)
            t0 = wc_mono_ns(); /* tick 0 inserts identities too: not steady state */
        if (wc_store_begin(st, &err) ||
            wc_store_put_tick(st, t, t, t, t, &cpu, 1, NPROC, 0, &tick_id, &err) ||
            wc_store_put_processes(st, tick_id, &snap, &err) || wc_store_commit(st, &err)) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return -1;
        }
        if (t >= 1)
            rows += NPROC;
    }
    int64_t dt = wc_mono_ns() - t0;
    printf("  SQLite ingest: %lld process rows in %.3f s = %.2f M rows/s (WAL, synchronous=NORMAL,"
           " one transaction per tick of %d processes)\n",
           (long long)rows, dt / 1e9, (double)rows / (dt / 1e9) / 1e6, NPROC);
    wc_store_close(st);
    free(ids);
    free(snap.samples);
    char side[sizeof path + 8];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return 0;
}

int main(void)
{
    printf("wattcal bench: sampler tick vs floor (median of %d alternating rounds)\n", ROUNDS);
    static const size_t targets[] = {100, 1000, 5000};
    for (size_t i = 0; i < 3; i++)
        if (bench_ticks(targets[i]))
            return 1;
    return bench_ingest() ? 1 : 0;
}
