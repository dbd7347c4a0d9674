/*
 * spawn.c — workload processes: posix_spawn, process groups, wait4 rusage,
 * group kill, and the burst leader (see spawn.h).
 */
#include "workloads/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/wc_clock.h"

extern char **environ;

#define POLL_NS 10000000LL /* 10 ms between non-blocking reaps */

void wc_workload_spec_init(wc_workload_spec *spec, wc_stress_class cls)
{
    memset(spec, 0, sizeof *spec);
    spec->cls = cls;
    spec->workers = 1;
    spec->duration_ns = 60 * WC_NS_PER_S;
    spec->duty_pct = 100;
    spec->burst_count = 200;
    spec->burst_child_cpu_ns = 50000000;
    spec->burst_batch = 1;
}

static void nap_ns(int64_t ns)
{
    struct timespec ts = {.tv_sec = ns / WC_NS_PER_S, .tv_nsec = ns % WC_NS_PER_S};
    nanosleep(&ts, NULL);
}

static int64_t tv_ns(struct timeval tv)
{
    return (int64_t)tv.tv_sec * WC_NS_PER_S + (int64_t)tv.tv_usec * 1000;
}

/* ---- /proc helpers ---- */

/* Reads state, pgrp and starttime (fields 3, 5, 22) of /proc/<pid>/stat.
 * Returns 0, or -1 when the process is gone or the line is malformed. */
static int read_stat(pid_t pid, char *state, pid_t *pgrp, uint64_t *starttime)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    char *rp = strrchr(line, ')'); /* comm may contain ')' */
    int pg = 0;
    unsigned long long st = 0;
    if (!rp || sscanf(rp + 1, " %c %*d %d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
                               "%*d %*d %*d %*d %llu", state, &pg, &st) != 3)
        return -1;
    *pgrp = pg;
    *starttime = st;
    return 0;
}

int wc_pgid_count(pid_t pgid, int with_zombies)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        char state;
        pid_t pg;
        uint64_t st;
        if (*end || pid <= 0 || read_stat((pid_t)pid, &state, &pg, &st))
            continue;
        if (pg == pgid && (with_zombies || state != 'Z'))
            count++;
    }
    closedir(d);
    return count;
}

/* ---- argv of one worker ---- */

typedef wc_worker_argv argv_buf;

static void arg_add(argv_buf *a, const char *s)
{
    a->argv[a->argc++] = (char *)s;
    a->argv[a->argc] = NULL;
}

/* Appends an option and its value: the number v followed by unit ("" or "ns"). */
static void arg_fmt(argv_buf *a, const char *opt, const char *unit, long long v)
{
    char *t = a->text[a->ntext++];
    snprintf(t, sizeof a->text[0], "%lld%s", v, unit);
    arg_add(a, opt);
    arg_add(a, t);
}

/* `stress --class C --duration Nns --duty P [--resident-mb M] [burst options]
 * --parent-pid PID [--test-crash]` */
static void build_argv(argv_buf *a, const wc_workload_spec *s, int crash)
{
    memset(a, 0, sizeof *a);
    arg_add(a, "wattcal");
    arg_add(a, "stress");
    arg_add(a, "--class");
    arg_add(a, wc_stress_class_name(s->cls));
    arg_fmt(a, "--duration", "ns", (long long)s->duration_ns);
    arg_fmt(a, "--duty", "", s->duty_pct);
    if (s->resident_bytes)
        arg_fmt(a, "--resident-mb", "", (long long)((s->resident_bytes + (1u << 20) - 1) >> 20));
    if (s->cls == WC_STRESS_BURST) {
        arg_fmt(a, "--count", "", s->burst_count);
        arg_fmt(a, "--child-cpu", "ns", (long long)s->burst_child_cpu_ns);
        arg_fmt(a, "--batch", "", s->burst_batch);
    }
    arg_fmt(a, "--parent-pid", "", (long long)getpid());
    if (crash)
        arg_add(a, "--test-crash");
}

const char *wc_workload_backend_name(wc_workload_backend b)
{
    switch (b) {
    case WC_BACKEND_WATTCAL: return "wattcal";
    case WC_BACKEND_STRESS_NG: return "stress-ng";
    }
    return "?";
}

int wc_workload_backend_parse(const char *s, wc_workload_backend *out)
{
    if (s && strcmp(s, "wattcal") == 0)
        *out = WC_BACKEND_WATTCAL;
    else if (s && strcmp(s, "stress-ng") == 0)
        *out = WC_BACKEND_STRESS_NG;
    else
        return -EINVAL;
    return 0;
}

void wc_stress_ng_argv(const wc_workload_spec *s, wc_worker_argv *a)
{
    memset(a, 0, sizeof *a);
    arg_add(a, "stress-ng");
    long long mib = (long long)((s->resident_bytes + (1u << 20) - 1) >> 20);
    switch (s->cls) {
    case WC_STRESS_CPU:
        arg_add(a, "--cpu");
        arg_add(a, "1");
        arg_fmt(a, "--cpu-load", "", s->duty_pct);
        break;
    case WC_STRESS_AVX:
        arg_add(a, "--cpu");
        arg_add(a, "1");
        arg_add(a, "--cpu-method");
        arg_add(a, "matrixprod");
        if (s->duty_pct < 100)
            arg_fmt(a, "--cpu-load", "", s->duty_pct);
        break;
    case WC_STRESS_MEMBOUND:
        arg_add(a, "--stream");
        arg_add(a, "1");
        break;
    case WC_STRESS_IDLE:
        arg_add(a, "--vm");
        arg_add(a, "1");
        arg_fmt(a, "--vm-bytes", "M", mib ? mib : 64);
        arg_add(a, "--vm-hang");
        arg_add(a, "0");
        break;
    case WC_STRESS_BURST:
        arg_add(a, "--fork");
        arg_add(a, "1");
        arg_fmt(a, "--fork-ops", "", s->burst_count);
        arg_fmt(a, "--fork-max", "", s->burst_batch);
        break;
    }
    long long secs = (long long)((s->duration_ns + WC_NS_PER_S - 1) / WC_NS_PER_S);
    arg_fmt(a, "--timeout", "s", secs < 1 ? 1 : secs);
    arg_add(a, "--quiet");
}

int wc_on_path(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char full[4096];
        if (n == 0)
            snprintf(full, sizeof full, "./%s", name);
        else
            snprintf(full, sizeof full, "%.*s/%s", (int)n, path, name);
        if (access(full, X_OK) == 0)
            return 1;
        path += n;
        if (*path == ':')
            path++;
    }
    return 0;
}

/* ---- start ---- */

static int check_spec(const wc_workload_spec *s, wc_error *err)
{
    if (s->workers < 1 || s->workers > WC_WORKLOAD_MAX_WORKERS)
        return wc_error_set(err, -EINVAL, "workers %d is outside 1..%d", s->workers,
                            WC_WORKLOAD_MAX_WORKERS);
    if (s->duty_pct < 1 || s->duty_pct > 100)
        return wc_error_set(err, -EINVAL, "duty %d %% is outside 1..100", s->duty_pct);
    if (s->duration_ns < 0 || s->burst_child_cpu_ns < 0)
        return wc_error_set(err, -EINVAL, "negative duration");
    if (s->cls == WC_STRESS_BURST &&
        (s->burst_count < 1 || s->burst_batch < 1 || s->burst_batch > WC_BURST_MAX_BATCH))
        return wc_error_set(err, -EINVAL, "burst needs count >= 1 and batch in 1..%d",
                            WC_BURST_MAX_BATCH);
    if (s->backend != WC_BACKEND_WATTCAL && s->backend != WC_BACKEND_STRESS_NG)
        return wc_error_set(err, -EINVAL, "unknown workload backend %d", (int)s->backend);
    if (s->backend == WC_BACKEND_STRESS_NG) {
        if (s->test_crash_last)
            return wc_error_set(err, -EINVAL, "test_crash_last needs the wattcal backend");
        if (s->cls == WC_STRESS_MEMBOUND && s->duty_pct < 100)
            return wc_error_set(err, -EINVAL,
                                "duty %d %%: the stress-ng backend runs membound at 100 %% only",
                                s->duty_pct);
        const char *exe = s->exe ? s->exe : "stress-ng";
        if (!wc_on_path(exe))
            return wc_error_set(err, -ENOENT,
                                "the stress-ng backend needs stress-ng, and %s is not %s; "
                                "install it (e.g. apt-get install stress-ng) or use backend "
                                "wattcal",
                                exe, strchr(exe, '/') ? "executable" : "on PATH");
    }
    return 0;
}

/* posix_spawns worker i into h's process group (a new one for i == 0). */
static int spawn_one(wc_workload *h, const wc_workload_spec *s, int i, wc_error *err)
{
    argv_buf a;
    const int ng = s->backend == WC_BACKEND_STRESS_NG;
    if (ng)
        wc_stress_ng_argv(s, &a);
    else
        build_argv(&a, s, s->test_crash_last && i == s->workers - 1);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGINT);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, i == 0 ? 0 : h->pgid);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    const char *exe = s->exe ? s->exe : ng ? "stress-ng" : "/proc/self/exe";
    pid_t pid;
    /* stress-ng gets only stdin/stdout/stderr: none of our descriptors (store,
     * sockets, a test harness's pipes) leak into a program we do not control. */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    int rc = ng ? posix_spawnp(&pid, exe, &fa, &attr, a.argv, environ)
                : posix_spawn(&pid, exe, NULL, &attr, a.argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc)
        return wc_error_set(err, -rc, "cannot start %s (worker %d): %s", exe, i, strerror(rc));
    h->pid[i] = pid;
    if (i == 0)
        h->pgid = pid;
    char state;
    pid_t pg;
    if (read_stat(pid, &state, &pg, &h->starttime[i]))
        h->starttime[i] = 0;
    h->n = i + 1;
    return 0;
}

wc_workload *wc_workload_start(const wc_workload_spec *spec, wc_error *err)
{
    if (check_spec(spec, err))
        return NULL;
    wc_workload *h = calloc(1, sizeof *h);
    if (!h) {
        wc_error_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); /* orphans of the group come back to us */
    for (int i = 0; i < spec->workers; i++) {
        if (spawn_one(h, spec, i, err)) {
            if (h->n)
                wc_workload_kill(h, 0);
            free(h);
            return NULL;
        }
    }
    return h;
}

/* ---- reaping ---- */

/* Records one reaped child's status and rusage; i < 0 for an orphan. */
static void record(wc_workload *h, int i, int status, const struct rusage *ru)
{
    h->user_ns += tv_ns(ru->ru_utime);
    h->sys_ns += tv_ns(ru->ru_stime);
    if (i < 0)
        return;
    h->status[i] = status;
    h->reaped[i] = 1;
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    int ours = h->killed && (sig == SIGTERM || sig == SIGKILL);
    if (sig && !ours) {
        if (!h->crashed)
            h->crash_signal = sig;
        h->crashed++;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        h->failed++;
    }
}

/* One non-blocking (or blocking) reap pass over the direct children.
 * Returns how many remain. */
static int reap_pass(wc_workload *h, int options)
{
    int left = 0;
    for (int i = 0; i < h->n; i++) {
        if (h->reaped[i])
            continue;
        int status;
        struct rusage ru;
        pid_t r = wait4(h->pid[i], &status, options, &ru);
        if (r == h->pid[i])
            record(h, i, status, &ru);
        else if (r < 0 && errno == ECHILD)
            h->reaped[i] = 1; /* reaped elsewhere: nothing to count */
        else
            left++;
    }
    return left;
}

/* Reaps adopted orphans of the group (we are their subreaper). */
static void reap_orphans(wc_workload *h)
{
    int status;
    struct rusage ru;
    while (wait4(-h->pgid, &status, WNOHANG, &ru) > 0)
        record(h, -1, status, &ru);
}

int wc_workload_wait(wc_workload *h, volatile sig_atomic_t *stop)
{
    while (reap_pass(h, WNOHANG) > 0) {
        if (stop && *stop)
            return -EINTR;
        nap_ns(POLL_NS);
    }
    reap_orphans(h);
    return 0;
}

int wc_workload_kill(wc_workload *h, int64_t grace_ns)
{
    h->killed = 1;
    killpg(h->pgid, SIGTERM);
    int64_t until = wc_mono_ns() + grace_ns;
    while (reap_pass(h, WNOHANG) > 0 && wc_mono_ns() < until)
        nap_ns(POLL_NS);
    killpg(h->pgid, SIGKILL); /* the rest, and any descendant of the group */
    reap_pass(h, 0);
    until = wc_mono_ns() + 2 * WC_NS_PER_S;
    for (;;) {
        reap_orphans(h);
        if (wc_pgid_count(h->pgid, 1) == 0)
            return 0;
        if (wc_mono_ns() >= until)
            return -ETIMEDOUT;
        nap_ns(POLL_NS);
    }
}

int64_t wc_workload_cpu_ns(const wc_workload *h)
{
    return h->user_ns + h->sys_ns;
}

void wc_workload_free(wc_workload *h)
{
    free(h);
}

/* ---- burst leader ---- */

/* In a forked burst child: die with the leader, burn cpu_ns of CPU, exit. */
static void burst_child(pid_t leader, int64_t cpu_ns, volatile sig_atomic_t *stop)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != leader)
        _exit(3);
    wc_stress_params p = {.cls = WC_STRESS_CPU, .duration_ns = 60 * WC_NS_PER_S,
                          .cpu_budget_ns = cpu_ns, .duty_pct = 100, .comm = "wattcal-burst"};
    _exit(wc_stress_exec(&p, stop, NULL, NULL) ? 1 : 0);
}

/* The children of one burst leader that are running now. */
typedef struct burst_set {
    pid_t pid[WC_BURST_MAX_BATCH];
    int running;
    int bad; /* children that did not exit 0 */
} burst_set;

/* Waits for one running child (SIGKILLing all of them once *stop is set). */
static void burst_reap_one(burst_set *b, volatile sig_atomic_t *stop)
{
    int status;
    pid_t r;
    while ((r = waitpid(-1, &status, 0)) < 0 && errno == EINTR)
        for (int i = 0; *stop && i < WC_BURST_MAX_BATCH; i++)
            if (b->pid[i] > 0)
                kill(b->pid[i], SIGKILL);
    if (r < 0) { /* ECHILD: nothing left to wait for */
        memset(b->pid, 0, sizeof b->pid);
        b->running = 0;
        return;
    }
    for (int i = 0; i < WC_BURST_MAX_BATCH; i++)
        if (b->pid[i] == r)
            b->pid[i] = 0;
    b->running--;
    b->bad += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Forks one child into a free slot of b. Returns 0 or -errno. */
static int burst_fork(burst_set *b, int64_t child_cpu_ns, volatile sig_atomic_t *stop)
{
    const pid_t self = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0)
        burst_child(self, child_cpu_ns, stop);
    for (int i = 0; i < WC_BURST_MAX_BATCH; i++) {
        if (b->pid[i] == 0) {
            b->pid[i] = pid;
            break;
        }
    }
    b->running++;
    return 0;
}

int wc_burst_lead(int count, int batch, int64_t child_cpu_ns, int64_t duration_ns,
                  volatile sig_atomic_t *stop, wc_error *err)
{
    prctl(PR_SET_NAME, "wattcal-burst", 0, 0, 0);
    if (count < 0 || batch < 1 || batch > WC_BURST_MAX_BATCH)
        return wc_error_set(err, -EINVAL, "burst: batch %d is outside 1..%d", batch,
                            WC_BURST_MAX_BATCH);
    const int64_t end = wc_mono_ns() + duration_ns;
    burst_set b = {{0}, 0, 0};
    int started = 0, rc = 0;
    for (;;) {
        int may_start = started < count && !*stop && wc_mono_ns() < end && rc == 0;
        if (may_start && b.running < batch) {
            rc = burst_fork(&b, child_cpu_ns, stop);
            if (rc)
                wc_error_set(err, rc, "burst: fork failed: %s", strerror(-rc));
            else
                started++;
            continue;
        }
        if (b.running == 0)
            break;
        burst_reap_one(&b, stop);
    }
    return rc ? rc : b.bad;
}
