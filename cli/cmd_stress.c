/*
 * cmd_stress.c — `wattcal stress`: run one built-in stressor
 * (workloads/stressor.c) in the foreground, or, with --workers N > 1 or
 * --class burst, start it as child processes (workloads/spawn.c), wait, and
 * print their true CPU time from wait4.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/wc_clock.h"
#include "workloads/avx.h"
#include "workloads/membound.h"
#include "workloads/spawn.h"
#include "workloads/stressor.h"

enum { OPT_CLASS = 1, OPT_DURATION, OPT_DUTY, OPT_WORKERS, OPT_RESIDENT, OPT_COUNT,
       OPT_CHILD_CPU, OPT_BATCH, OPT_PARENT_PID, OPT_TEST_CRASH };

static const wc_cli_opt STRESS_OPTS[] = {
    {"class", "C", OPT_CLASS, "cpu, avx, membound, idle or burst"},
    {"duration", "DUR", OPT_DURATION, "how long (default 60s); burst: starts no child after it"},
    {"duty", "PCT", OPT_DUTY, "percent busy in each 100 ms period, 1-100 (default 100)"},
    {"workers", "N", OPT_WORKERS, "run N worker processes and report their CPU (default 1)"},
    {"resident-mb", "N", OPT_RESIDENT,
     "memory held by idle (default 64) or chased by membound\n"
     "(default 256)"},
    {"count", "N", OPT_COUNT, "burst: children to start (default 200)"},
    {"child-cpu", "DUR", OPT_CHILD_CPU, "burst: CPU time each child burns (default 50ms)"},
    {"batch", "N", OPT_BATCH, "burst: children running at once, 1-64 (default 1)"},
    {"parent-pid", "PID", OPT_PARENT_PID, "(set for workers) exit unless PID is the parent"},
    {"test-crash", NULL, OPT_TEST_CRASH, "(testing) die at once by SIGSEGV"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const STRESS_TABLES[] = {STRESS_OPTS, NULL};

static const wc_cli_spec STRESS_SPEC = {
    .name = "stress",
    .usage = "wattcal stress --class cpu|avx|membound|idle|burst [--duration DUR]\n"
             "                      [--duty PCT] [--workers N] [--resident-mb N]\n"
             "                      [--count N] [--child-cpu DUR] [--batch N]",
    .about =
        "Runs one stress workload until DUR elapses or SIGINT/SIGTERM: cpu keeps one\n"
        "CPU busy with a scalar loop; avx runs a vector FMA loop (avx512f, avx2 or sse2,\n"
        "chosen at run time and printed); membound chases pointers through a random\n"
        "cycle over a buffer far larger than the last-level cache; idle holds N MiB\n"
        "resident and sleeps; burst starts COUNT short-lived children, BATCH at a time,\n"
        "each burning DUR of CPU. With --workers N > 1, or for burst, the workload runs\n"
        "as child processes in their own process group (killed with this process) and\n"
        "their true CPU time (wait4, children included) is printed at the end.",
    .opts = STRESS_TABLES,
    .col = 20,
    .footer = NULL,
};

typedef struct stress_opts {
    wc_workload_spec spec;
    int have_class;
    int resident_given;
    long parent_pid;
    int test_crash;
} stress_opts;

/* Parses a decimal long in lo..hi; returns 0 or -1. */
static int parse_long(const char *text, long lo, long hi, long *out)
{
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (!end || end == text || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Applies one option (id c) to o; returns 0, or -1 on a bad value. */
static int apply_opt(stress_opts *o, int c, const char *arg)
{
    wc_workload_spec *s = &o->spec;
    long v = 0;
    switch (c) {
    case OPT_CLASS: o->have_class = 1; return wc_stress_class_parse(arg, &s->cls) ? -1 : 0;
    case OPT_DURATION: return wc_parse_duration_ns(arg, &s->duration_ns) ? -1 : 0;
    case OPT_DUTY: if (parse_long(arg, 1, 100, &v)) return -1; s->duty_pct = (int)v; return 0;
    case OPT_WORKERS:
        if (parse_long(arg, 1, WC_WORKLOAD_MAX_WORKERS, &v)) return -1;
        s->workers = (int)v;
        return 0;
    case OPT_RESIDENT:
        if (parse_long(arg, 0, 1 << 20, &v)) return -1;
        s->resident_bytes = (size_t)v << 20;
        o->resident_given = 1;
        return 0;
    case OPT_COUNT: if (parse_long(arg, 1, 1000000, &v)) return -1; s->burst_count = (int)v; return 0;
    case OPT_CHILD_CPU: return wc_parse_duration_ns(arg, &s->burst_child_cpu_ns) ? -1 : 0;
    case OPT_BATCH:
        if (parse_long(arg, 1, WC_BURST_MAX_BATCH, &v)) return -1;
        s->burst_batch = (int)v;
        return 0;
    case OPT_PARENT_PID: return parse_long(arg, 1, 1L << 30, &o->parent_pid);
    case OPT_TEST_CRASH: o->test_crash = 1; return 0;
    }
    return -1;
}

/* One option (wc_cli_handler) into the stress_opts ctx. */
static int option(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    if (apply_opt(ctx, opt->id, arg)) {
        fprintf(stderr, "wattcal stress: invalid value '%s'\n", arg ? arg : "");
        return WC_EXIT_USAGE;
    }
    return 0;
}

/* Fills o from argv. Returns -1 to go on, or the exit code to return now. */
static int parse_args(int argc, char **argv, stress_opts *o)
{
    int next = 0; /* arguments after the options are ignored */
    int rc = wc_cli_parse(&STRESS_SPEC, argc, argv, option, o, &next);
    if (rc)
        return rc < 0 ? WC_EXIT_OK : rc;
    if (!o->have_class) {
        fprintf(stderr, "wattcal stress: --class cpu|avx|membound|idle|burst is required\n");
        return WC_EXIT_USAGE;
    }
    return -1;
}

/* Default memory per class when --resident-mb is absent; warns when a
 * membound buffer would fit in four last-level caches. */
static void settle_memory(stress_opts *o)
{
    wc_workload_spec *s = &o->spec;
    if (!o->resident_given)
        s->resident_bytes = s->cls == WC_STRESS_MEMBOUND ? WC_CHASE_DEFAULT_BYTES
                            : s->cls == WC_STRESS_IDLE   ? (size_t)64 << 20
                                                         : 0;
    size_t llc = wc_llc_bytes("/sys/devices/system/cpu/cpu0/cache");
    if (s->cls == WC_STRESS_MEMBOUND && llc && s->resident_bytes < 4 * llc)
        fprintf(stderr, "wattcal stress: note: membound buffer %zu MiB is under 4x the %zu MiB "
                        "last-level cache; hops will hit in cache\n",
                s->resident_bytes >> 20, llc >> 20);
}

/* Spawner mode: start the workers, wait (or kill them on SIGINT/SIGTERM),
 * print their true CPU. */
static int run_spawned(const wc_workload_spec *s)
{
    wc_error err = {{0}};
    wc_workload *h = wc_workload_start(s, &err);
    if (!h) {
        wc_cli_error("stress", err.msg);
        return WC_EXIT_USAGE;
    }
    fprintf(stderr, "wattcal stress: %d %s worker(s) started in process group %d\n", h->n,
            wc_stress_class_name(s->cls), (int)h->pgid);
    if (wc_workload_wait(h, &wc_cli_stop) == -EINTR)
        wc_workload_kill(h, WC_NS_PER_S);
    if (s->cls == WC_STRESS_AVX)
        printf("avx variant: %s\n", wc_avx_variant_name(wc_avx_detect()));
    printf("true CPU: %.3f s (user %.3f s, system %.3f s) over %d worker(s)\n",
           (double)wc_workload_cpu_ns(h) / 1e9, (double)h->user_ns / 1e9,
           (double)h->sys_ns / 1e9, h->n);
    if (h->crashed)
        printf("crashed: %d worker(s), first by signal %d (%s)\n", h->crashed, h->crash_signal,
               strsignal(h->crash_signal));
    wc_workload_free(h);
    return WC_EXIT_OK;
}

/* In-process mode: this process is the stressor (or the burst leader). */
static int run_here(const stress_opts *o)
{
    const wc_workload_spec *s = &o->spec;
    wc_error err = {{0}};
    if (o->test_crash) {
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    if (s->cls == WC_STRESS_BURST) {
        int rc = wc_burst_lead(s->burst_count, s->burst_batch, s->burst_child_cpu_ns,
                               s->duration_ns, &wc_cli_stop, &err);
        if (rc < 0)
            wc_cli_error("stress", err.msg);
        return rc < 0 ? WC_EXIT_USAGE : WC_EXIT_OK;
    }
    if (s->cls == WC_STRESS_AVX && !o->parent_pid) {
        printf("avx variant: %s\n", wc_avx_variant_name(wc_avx_detect()));
        fflush(stdout);
    }
    wc_stress_params p = {.cls = s->cls, .duration_ns = s->duration_ns, .duty_pct = s->duty_pct,
                          .resident_bytes = s->resident_bytes, .seed = (uint64_t)getpid()};
    if (wc_stress_exec(&p, &wc_cli_stop, NULL, &err)) {
        wc_cli_error("stress", err.msg);
        return WC_EXIT_USAGE;
    }
    return WC_EXIT_OK;
}

int cmd_stress(int argc, char **argv)
{
    stress_opts o;
    memset(&o, 0, sizeof o);
    wc_workload_spec_init(&o.spec, WC_STRESS_CPU);
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    /* A stressor never outlives the process that started it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (o.parent_pid && getppid() != (pid_t)o.parent_pid)
        return WC_EXIT_USAGE; /* the spawner died before PR_SET_PDEATHSIG took hold */
    settle_memory(&o);
    wc_cli_install_stop_handlers();
    if (!o.parent_pid && (o.spec.workers > 1 || o.spec.cls == WC_STRESS_BURST))
        return run_spawned(&o.spec);
    return run_here(&o);
}
