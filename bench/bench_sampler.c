/*
 * bench_sampler.c — `make bench`, part 1: what one tick of the recorder
 * costs beside the floor and beside prometheus-process-exporter, and SQLite
 * ingest (issue 15).
 *
 * At ~100 / 1,000 / 5,000 processes (sleeping children are spawned to reach
 * each count), side by side, each as the median of its repetitions with the
 * min–max and the ratio to the floor:
 *  - floor: list /proc and open+read+close every /proc/<pid>/stat (this
 *    thread's CPU time per pass, ROUNDS passes);
 *  - pread floor: the same listing with each stat file kept open and re-read
 *    with pread (RLIMIT_NOFILE raised to its hard limit first);
 *  - `wattcal record`, the WHOLE PROCESS (scan, /proc/stat, meter, model,
 *    SQLite): with --meter rapl over a fake powercap tree (the repository's
 *    fixture tests/fixtures/sysfs/node, or $WATTCAL_BENCH_SYSFS) and with
 *    --meter sim. CPU per tick = (CPU of a long run − CPU of a short run) /
 *    (their tick difference), from wait4's rusage and the runs' tick rows,
 *    so start-up (every process's cgroup and exe read once) cancels out;
 *    RECORD_REPS pairs. Also the long run's peak RSS (its VmHWM, polled
 *    every 5 ms: run_quiet says why not ru_maxrss) and the CPU share of one
 *    core it would take at a 1 s interval;
 *  - one scrape of prometheus-process-exporter (/usr/bin, Debian's package)
 *    with every process grouped by comm, started on a free 127.0.0.1 port
 *    with its own config, scraped once to warm up, then SCRAPES times: its
 *    CPU per scrape (utime+stime from its /proc/<pid>/stat, 10 ms steps) and
 *    the wall time of the request; stopped afterwards. Skipped (a line says
 *    so) when it is not installed.
 * Then SQLite ingest of process rows (one transaction per tick of 5,000
 * processes whose counters all change, as `record` writes them): rows/s.
 * Figures are printed; nothing here asserts timings. Knobs: WATTCAL_BIN
 * (default ./wattcal), WATTCAL_BENCH_SYSFS.
 */
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector/procfs/pidstat.h"
#include "collector/procfs/proc_scan.h"
#include "collector/procfs/procstat.h"
#include "collector/store/store.h"
#include "collector/store/store_read.h"
#include "common/wc_clock.h"
#include "common/wc_tmptree.h"

extern char **environ;

#define ROUNDS 21
#define RECORD_REPS 3
#define SCRAPES 5
#define PE_BIN "/usr/bin/prometheus-process-exporter"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Median, min and max of n values (sorted in place). */
typedef struct figure {
    int64_t med, min, max;
    int ok;
} figure;

static figure summarize(int64_t *v, int n)
{
    figure f = {0, 0, 0, n > 0};
    if (n <= 0)
        return f;
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    f.med = v[n / 2];
    f.min = v[0];
    f.max = v[n - 1];
    return f;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The pid of a /proc entry, 0 for other names. */
static int entry_pid(const char *name)
{
    if (name[0] < '1' || name[0] > '9')
        return 0;
    return atoi(name);
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
        if (!entry_pid(e->d_name))
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

/* The pread floor's open files, by pid (-1: none). */
typedef struct pfloor {
    int *fd;
    size_t cap;
} pfloor;

/* Room for pid in p->fd. Returns 0 or -ENOMEM. */
static int pfloor_room(pfloor *p, size_t pid)
{
    if (pid < p->cap)
        return 0;
    size_t cap = p->cap ? p->cap : 4096;
    while (cap <= pid)
        cap *= 2;
    int *nf = realloc(p->fd, cap * sizeof *nf);
    if (!nf)
        return -ENOMEM;
    for (size_t i = p->cap; i < cap; i++)
        nf[i] = -1;
    p->fd = nf;
    p->cap = cap;
    return 0;
}

/* The pread floor: list /proc, pread each kept-open <pid>/stat (opened the
 * first time its pid is listed, closed when a read fails). */
static size_t pread_pass(pfloor *p)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int dfd = dirfd(d);
    struct dirent *e;
    char path[300], buf[1024];
    size_t n = 0;
    while ((e = readdir(d))) {
        int pid = entry_pid(e->d_name);
        if (!pid || pfloor_room(p, (size_t)pid))
            continue;
        int *fd = &p->fd[pid];
        if (*fd < 0) {
            snprintf(path, sizeof path, "%s/stat", e->d_name);
            *fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
        }
        if (*fd >= 0 && pread(*fd, buf, sizeof buf, 0) > 0) {
            n++;
        } else if (*fd >= 0) {
            close(*fd);
            *fd = -1;
        }
    }
    closedir(d);
    return n;
}

static void pfloor_free(pfloor *p)
{
    for (size_t i = 0; i < p->cap; i++)
        if (p->fd[i] >= 0)
            close(p->fd[i]);
    free(p->fd);
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

/* The two floors, alternating, ROUNDS passes each. */
static void bench_floors(figure *open_f, figure *pread_f, size_t *seen)
{
    int64_t to[ROUNDS], tp[ROUNDS];
    pfloor p = {0};
    pread_pass(&p); /* opens every file once */
    for (int r = 0; r < ROUNDS; r++) {
        int64_t t0 = thread_cpu_ns();
        *seen = floor_pass();
        int64_t t1 = thread_cpu_ns();
        pread_pass(&p);
        int64_t t2 = thread_cpu_ns();
        to[r] = t1 - t0;
        tp[r] = t2 - t1;
    }
    pfloor_free(&p);
    *open_f = summarize(to, ROUNDS);
    *pread_f = summarize(tp, ROUNDS);
}

static const char *wattcal_bin(void)
{
    const char *b = getenv("WATTCAL_BIN");
    return b && *b ? b : "./wattcal";
}

/* VmHWM of pid in KiB (its address space's peak resident set), or -1. */
static long vm_hwm_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

/* The fixture powercap tree ($WATTCAL_BENCH_SYSFS, else the repository's). */
static const char *sysfs_root(void)
{
    const char *s = getenv("WATTCAL_BENCH_SYSFS");
    return s && *s ? s : "tests/fixtures/sysfs/node";
}

/* Spawns argv with stdout and stderr to /dev/null; waits; rusage into *ru
 * and the child's peak RSS into *hwm_kib: its VmHWM, read every 5 ms until
 * it exits (at most 10 min). Not ru_maxrss: posix_spawn runs the child in
 * this process's address space until exec, and Linux keeps that space's
 * peak as the child's ru_maxrss, so a child smaller than this benchmark
 * would read as its size. Returns the exit status, or -1. */
static int run_quiet(char *const argv[], struct rusage *ru, long *hwm_kib)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc)
        return -1;
    int status = 0;
    *hwm_kib = 0;
    for (int i = 0; i < 120000; i++) {
        pid_t w = wait4(pid, &status, WNOHANG, ru);
        if (w == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (w < 0)
            return -1;
        long k = vm_hwm_kib(pid);
        *hwm_kib = k > *hwm_kib ? k : *hwm_kib;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    wait4(pid, &status, 0, ru);
    return -1;
}

static int64_t tv_ns(struct timeval t) { return (int64_t)t.tv_sec * 1000000000 + t.tv_usec * 1000; }

/* A mkstemp path "$TMPDIR/wattcal-bench-<what>-XXXXXX" (TMPDIR unset or
 * empty: /tmp) in buf; the file is created (fd closed). 0 or -1. */
static int bench_tmpfile(char *buf, size_t cap, const char *what)
{
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(buf, cap, "%s/wattcal-bench-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
    if (n < 0 || (size_t)n >= cap)
        return -1;
    int fd = mkstemp(buf);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* One `wattcal record` of dur on meter: its CPU (ns), ticks and peak RSS
 * (KiB, VmHWM: run_quiet). */
static int record_once(const char *meter, const char *sysfs, const char *dur, int64_t *cpu,
                       int64_t *ticks, long *rss_kib)
{
    char db[4096];
    if (bench_tmpfile(db, sizeof db, "rec"))
        return -1;
    unlink(db);
    char *argv[] = {(char *)wattcal_bin(), "record", "--db", db, "--meter", (char *)meter,
                    "--interval", "200ms", "--duration", (char *)dur, "--quiet",
                    "--sysfs-root", (char *)sysfs, NULL};
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    int rc = run_quiet(argv, &ru, rss_kib) == 0 ? 0 : -1;
    *cpu = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
    wc_error err = {{0}};
    wc_store *st = rc ? NULL : wc_store_open(db, WC_STORE_READ, &err);
    if (!st || wc_store_count_rows(st, WC_TABLE_TICK, ticks, &err))
        rc = -1;
    wc_store_close(st);
    unlink(db);
    return rc;
}

/* The recorder's CPU per tick on meter (RECORD_REPS short/long pairs). */
static figure bench_record(const char *meter, const char *sysfs, long *rss_kib)
{
    int64_t v[RECORD_REPS];
    int n = 0;
    *rss_kib = 0;
    for (int r = 0; r < RECORD_REPS; r++) {
        int64_t c1 = 0, t1 = 0, c2 = 0, t2 = 0;
        long rss1 = 0, rss2 = 0;
        if (record_once(meter, sysfs, "1s", &c1, &t1, &rss1) ||
            record_once(meter, sysfs, "4s", &c2, &t2, &rss2) ||
            t2 <= t1)
            continue;
        v[n++] = (c2 - c1) / (t2 - t1);
        *rss_kib = rss2 > *rss_kib ? rss2 : *rss_kib;
    }
    return summarize(v, n);
}

/* A free TCP port on 127.0.0.1 (bound, read, released), or 0. */
static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = 0;
    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port;
}

/* utime + stime of pid in ns (USER_HZ 100), or -1. */
static int64_t proc_cpu_ns(pid_t pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    wc_pidstat ps;
    if (n <= 0 || wc_pidstat_parse(buf, (size_t)n, path, &ps, NULL))
        return -1;
    return (int64_t)(ps.utime + ps.stime) * 10000000;
}

static size_t discard(char *p, size_t size, size_t n, void *u)
{
    (void)p;
    *(size_t *)u += size * n;
    return size * n;
}

/* One GET of url: 0 on HTTP 200, the wall time in *ns. */
static int scrape(const char *url, int64_t *ns)
{
    CURL *c = curl_easy_init();
    if (!c)
        return -1;
    size_t bytes = 0;
    long code = 0;
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &bytes);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    int64_t t0 = wc_mono_ns();
    CURLcode rc = curl_easy_perform(c);
    *ns = wc_mono_ns() - t0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(c);
    return rc == CURLE_OK && code == 200 && bytes > 0 ? 0 : -1;
}

/* Starts the exporter on port with every process grouped by comm. */
static pid_t pe_start(const char *cfg, int port)
{
    FILE *f = fopen(cfg, "w");
    if (!f)
        return -1;
    fputs("process_names:\n  - name: \"{{.Comm}}\"\n    cmdline:\n    - '.+'\n", f);
    if (fclose(f))
        return -1;
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
    char *argv[] = {PE_BIN, "-config.path", (char *)cfg, "-web.listen-address", addr, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, PE_BIN, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc ? -1 : pid;
}

/* prometheus-process-exporter: CPU per scrape and wall time per scrape. */
static int bench_exporter(figure *cpu, figure *wall)
{
    char cfg[4096];
    int port = free_port();
    if (!port || bench_tmpfile(cfg, sizeof cfg, "pe"))
        return -1;
    pid_t pid = pe_start(cfg, port);
    char url[96];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/metrics", port);
    int64_t w = 0, vc[SCRAPES], vw[SCRAPES];
    int up = 0, n = 0;
    for (int i = 0; pid > 0 && i < 100 && !(up = scrape(url, &w) == 0); i++)
        usleep(100000); /* bounded: 10 s to come up (the first scrape warms it up) */
    for (int i = 0; up && i < SCRAPES; i++) {
        int64_t c0 = proc_cpu_ns(pid);
        if (scrape(url, &vw[n]) == 0 && c0 >= 0)
            vc[n] = proc_cpu_ns(pid) - c0, n++;
    }
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    unlink(cfg);
    *cpu = summarize(vc, n);
    *wall = summarize(vw, n);
    return up && n ? 0 : -1;
}

/* ---- a powercap tree whose counters advance ---------------------------- */

/* The fixture's counters never move, so on it every tick's zone energy is 0:
 * Kepler's models flag each tick SKIPPED (no active energy to share) and
 * every workload, busy or not, gets a row. On a real node RAPL advances
 * and an idle process has none. The live tree is the fixture's powercap
 * files copied to $TMPDIR with a thread adding LIVE_W watts to each
 * counter every LIVE_STEP_MS (written to a temporary file, then renamed:
 * the recorder opens energy_uj afresh each read), wrapping at the zone's
 * max_energy_range_uj; its cost is this process's, not the recorder's. */
#define LIVE_W 40
#define LIVE_STEP_MS 20
#define LIVE_MAX_ZONES 16

typedef struct live_tree {
    char root[4096];
    char energy[LIVE_MAX_ZONES][8300];
    uint64_t value[LIVE_MAX_ZONES], range[LIVE_MAX_ZONES];
    int nzones;
    volatile int stop;
    pthread_t thread;
} live_tree;

/* Copies one regular file (at most 256 bytes, as every powercap file is). */
static int copy_small(const char *from, const char *to)
{
    char buf[256];
    int in = open(from, O_RDONLY | O_CLOEXEC);
    ssize_t n = in < 0 ? -1 : read(in, buf, sizeof buf);
    if (in >= 0)
        close(in);
    int out = n < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = out >= 0 && write(out, buf, (size_t)n) == n ? 0 : -1;
    if (out >= 0)
        close(out);
    return rc;
}

static uint64_t read_u64_file(const char *path)
{
    char buf[64] = "";
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return strtoull(buf, NULL, 10);
}

/* One zone directory of src/class/powercap copied under lt->root. */
static int live_copy_zone(live_tree *lt, const char *src, const char *zone)
{
    static const char *const files[] = {"name", "enabled", "energy_uj", "max_energy_range_uj"};
    char from[8300], to[8300];
    snprintf(to, sizeof to, "%s/class/powercap/%s", lt->root, zone);
    if (mkdir(to, 0755))
        return -1;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        snprintf(from, sizeof from, "%s/class/powercap/%s/%s", src, zone, files[f]);
        snprintf(to, sizeof to, "%s/class/powercap/%s/%s", lt->root, zone, files[f]);
        if (access(from, R_OK) == 0 && copy_small(from, to))
            return -1;
    }
    snprintf(to, sizeof to, "%s/class/powercap/%s/energy_uj", lt->root, zone);
    if (access(to, R_OK) == 0 && lt->nzones < LIVE_MAX_ZONES) {
        int z = lt->nzones++;
        snprintf(lt->energy[z], sizeof lt->energy[z], "%s", to);
        lt->value[z] = read_u64_file(to);
        snprintf(to, sizeof to, "%s/class/powercap/%s/max_energy_range_uj", lt->root, zone);
        lt->range[z] = read_u64_file(to);
    }
    return 0;
}

static void *live_loop(void *arg)
{
    live_tree *lt = arg;
    char tmp[8400], text[32];
    for (long i = 0; !lt->stop && i < 3600L * 1000 / LIVE_STEP_MS; i++) { /* at most 1 h */
        for (int z = 0; z < lt->nzones; z++) {
            lt->value[z] += (uint64_t)LIVE_W * LIVE_STEP_MS * 1000;
            if (lt->range[z])
                lt->value[z] %= lt->range[z];
            snprintf(tmp, sizeof tmp, "%s.tmp", lt->energy[z]);
            int n = snprintf(text, sizeof text, "%llu\n", (unsigned long long)lt->value[z]);
            int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd >= 0 && write(fd, text, (size_t)n) == n) {
                close(fd);
                rename(tmp, lt->energy[z]);
            } else if (fd >= 0)
                close(fd);
        }
        struct timespec ts = {0, LIVE_STEP_MS * 1000000L};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* The live copy of src's powercap tree, its thread running. 0 or -1. */
static int live_start(live_tree *lt, const char *src)
{
    memset(lt, 0, sizeof *lt);
    const char *tmp = getenv("TMPDIR");
    snprintf(lt->root, sizeof lt->root, "%s/wattcal-bench-sysfs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char dir[4200], pc[4300];
    if (!mkdtemp(lt->root))
        return -1;
    snprintf(dir, sizeof dir, "%s/class", lt->root);
    snprintf(pc, sizeof pc, "%s/class/powercap", lt->root);
    int rc = mkdir(dir, 0755) || mkdir(pc, 0755) ? -1 : 0;
    snprintf(dir, sizeof dir, "%s/class/powercap", src);
    DIR *d = rc ? NULL : opendir(dir);
    struct dirent *e;
    while (d && !rc && (e = readdir(d)))
        if (e->d_name[0] != '.')
            rc = live_copy_zone(lt, src, e->d_name);
    if (d)
        closedir(d);
    if (!d || rc || !lt->nzones || pthread_create(&lt->thread, NULL, live_loop, lt)) {
        wc_remove_tree(lt->root);
        return -1;
    }
    return 0;
}

static void live_stop(live_tree *lt)
{
    lt->stop = 1;
    pthread_join(lt->thread, NULL);
    wc_remove_tree(lt->root);
}

static void print_fig(const char *what, figure f, int64_t floor_ns, const char *extra)
{
    if (!f.ok) {
        printf("    %-34s (failed)\n", what);
        return;
    }
    printf("    %-34s %9.3f ms  (%.3f-%.3f)  %6.2fx%s\n", what, f.med / 1e6, f.min / 1e6,
           f.max / 1e6, (double)f.med / (double)floor_ns, extra);
    fflush(stdout);
}

/* Every figure at about `target` processes. */
static int bench_ticks(size_t target)
{
    size_t base = count_processes();
    size_t extra = target > base ? target - base : 0;
    pid_t *pids = spawn_sleepers(extra);
    if (!pids)
        return -1;
    usleep(200000);
    figure fo, fp, cpu, wall;
    size_t seen = 0;
    bench_floors(&fo, &fp, &seen);
    printf("  %zu processes (CPU per tick or scrape: median (min-max), ratio to the floor)\n", seen);
    print_fig("floor: open+read+close each stat", fo, fo.med, "");
    print_fig("floor: pread of kept-open stat", fp, fo.med, "");
    live_tree *lt = calloc(1, sizeof *lt);
    const char *fixed = sysfs_root();
    int live = lt && live_start(lt, fixed) == 0;
    static const char *const meters[3] = {"rapl", "rapl", "sim"};
    static const char *const what[3] = {"wattcal record --meter rapl", "  the same, counters frozen",
                                        "wattcal record --meter sim"};
    for (int m = 0; m < 3; m++) {
        long rss = 0;
        if (m == 0 && !live) {
            printf("    %-34s (could not build the live powercap tree in TMPDIR)\n", what[0]);
            continue;
        }
        figure r = bench_record(meters[m], m == 0 ? lt->root : fixed, &rss);
        char more[96];
        snprintf(more, sizeof more, "  peak RSS %.1f MiB, %.2f %% of a core at 1 s", rss / 1024.0,
                 r.med / 1e7);
        print_fig(what[m], r, fo.med, more);
    }
    if (live)
        live_stop(lt);
    free(lt);
    if (access(PE_BIN, X_OK) != 0)
        printf("    process-exporter: skipped (%s not installed)\n", PE_BIN);
    else if (bench_exporter(&cpu, &wall) == 0) {
        char more[64];
        snprintf(more, sizeof more, "  wall %.0f ms", wall.med / 1e6);
        print_fig("process-exporter scrape (by comm)", cpu, fo.med, more);
    } else
        printf("    process-exporter: did not answer on 127.0.0.1\n");
    reap(pids, extra);
    return 0;
}

/* Ingest: synthetic identities and samples, written exactly as record does. */
static int bench_ingest(void)
{
    enum { NPROC = 5000, NTICKS = 200 };
    char path[4096];
    if (bench_tmpfile(path, sizeof path, "ingest"))
        return -1;
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
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) { /* the pread floor keeps every stat open */
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    printf("wattcal bench: the recorder's tick beside the floors and process-exporter"
           " (floors: %d alternating passes; record: %d pairs of 1 s/4 s runs at 200 ms;"
           " exporter: %d scrapes)\n", ROUNDS, RECORD_REPS, SCRAPES);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    static const size_t targets[] = {100, 1000, 5000};
    for (size_t i = 0; i < 3; i++)
        if (bench_ticks(targets[i]))
            return 1;
    curl_global_cleanup();
    return bench_ingest() ? 1 : 0;
}
