/*
 * stressor.c — the cpu, avx, membound and idle stressors and the duty-cycle
 * driver they share (see stressor.h).
 */
#include "workloads/stressor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "common/wc_clock.h"
#include "workloads/avx.h"
#include "workloads/membound.h"

static const char *const CLASS_NAMES[] = {"cpu", "idle", "avx", "membound", "burst"};
#define N_CLASSES (int)(sizeof CLASS_NAMES / sizeof CLASS_NAMES[0])

int wc_stress_class_parse(const char *name, wc_stress_class *out)
{
    for (int i = 0; i < N_CLASSES; i++) {
        if (strcmp(name, CLASS_NAMES[i]) == 0) {
            *out = (wc_stress_class)i;
            return 0;
        }
    }
    return -EINVAL;
}

const char *wc_stress_class_name(wc_stress_class cls)
{
    return (int)cls >= 0 && (int)cls < N_CLASSES ? CLASS_NAMES[cls] : "?";
}

int64_t wc_process_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
        return 0;
    return (int64_t)ts.tv_sec * WC_NS_PER_S + ts.tv_nsec;
}

/* Results land here so the optimiser cannot drop the work as dead code. */
static volatile uint64_t work_sink;

/* ---- units of work: each call takes well under a millisecond or two ---- */

/* cpu: xorshift + multiply-add chain the compiler cannot remove. */
typedef struct cpu_state {
    uint64_t acc;
    double x;
} cpu_state;

static void cpu_chunk(void *arg)
{
    cpu_state *s = arg;
    uint64_t acc = s->acc;
    double x = s->x;
    for (int i = 0; i < 50000; i++) {
        acc ^= acc << 13;
        acc ^= acc >> 7;
        acc ^= acc << 17;
        x = x * 1.0000001 + (double)(acc & 0xff) * 1e-9;
    }
    s->acc = acc;
    s->x = x;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    work_sink = acc ^ bits;
}

/* avx: 20000 steps of the FMA recurrence over 64 lanes. */
typedef struct avx_state {
    wc_avx_variant variant;
    double lanes[WC_AVX_LANES];
    double add[WC_AVX_LANES];
} avx_state;

static void avx_chunk(void *arg)
{
    avx_state *s = arg;
    (void)wc_avx_kernel(s->variant, s->lanes, s->add, 20000);
    work_sink = (uint64_t)s->lanes[0];
}

/* membound: 10000 dependent loads (each most likely a DRAM miss). */
static void membound_chunk(void *arg)
{
    work_sink = wc_chase_walk(arg, 10000);
}

typedef struct work {
    void (*chunk)(void *state);
    void *state;
} work;

/* ---- the duty-cycle driver ---- */

/* 1 when the run is over: stop flag, wall deadline or CPU budget. */
static int finished(const wc_stress_params *p, int64_t end_ns, volatile sig_atomic_t *stop)
{
    if (*stop || wc_mono_ns() >= end_ns)
        return 1;
    return p->cpu_budget_ns > 0 && wc_process_cpu_ns() >= p->cpu_budget_ns;
}

/* Sleeps until the monotonic time at_ns or until a signal arrives. */
static void sleep_until(int64_t at_ns)
{
    struct timespec ts = {.tv_sec = at_ns / WC_NS_PER_S, .tv_nsec = at_ns % WC_NS_PER_S};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* CPU time of the calling thread, ns. */
static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
        return 0;
    return (int64_t)ts.tv_sec * WC_NS_PER_S + ts.tv_nsec;
}

/* Runs w in 100 ms periods: chunks until this thread has used duty % of the
 * period as CPU time (or the period is over: a contended CPU), then sleeps
 * to the period's end. A period overrun restarts the schedule from now
 * instead of bursting to catch up. Returns chunks done. */
static uint64_t run_duty(const work *w, const wc_stress_params *p, int64_t end_ns,
                         volatile sig_atomic_t *stop)
{
    const int64_t busy = WC_STRESS_PERIOD_NS * p->duty_pct / 100;
    int64_t period_start = wc_mono_ns();
    uint64_t chunks = 0;
    while (!finished(p, end_ns, stop)) {
        int64_t next = period_start + WC_STRESS_PERIOD_NS;
        int64_t cpu_end = thread_cpu_ns() + busy;
        while (thread_cpu_ns() < cpu_end && wc_mono_ns() < next && !finished(p, end_ns, stop)) {
            w->chunk(w->state);
            chunks++;
        }
        if (p->duty_pct < 100 && !*stop)
            sleep_until(next < end_ns ? next : end_ns);
        int64_t now = wc_mono_ns();
        period_start = now - next > WC_STRESS_PERIOD_NS ? now : next;
    }
    return chunks;
}

/* idle: hold resident_bytes (every page written) and sleep, waking every
 * 200 ms to notice *stop. */
static int run_idle(const wc_stress_params *p, int64_t end_ns, volatile sig_atomic_t *stop,
                    wc_error *err)
{
    char *mem = NULL;
    if (p->resident_bytes) {
        mem = malloc(p->resident_bytes);
        if (!mem)
            return wc_error_set(err, -ENOMEM, "idle stressor: cannot hold %zu bytes",
                                p->resident_bytes);
        long page = sysconf(_SC_PAGESIZE);
        for (size_t i = 0; i < p->resident_bytes; i += (size_t)(page > 0 ? page : 4096))
            mem[i] = (char)i;
    }
    while (!*stop) {
        int64_t now = wc_mono_ns();
        if (now >= end_ns)
            break;
        sleep_until(end_ns - now < 200000000 ? end_ns : now + 200000000);
    }
    free(mem);
    return 0;
}

static int run_avx(const wc_stress_params *p, int64_t end_ns, volatile sig_atomic_t *stop,
                   wc_stress_report *report, wc_error *err)
{
    avx_state *s = malloc(sizeof *s);
    if (!s)
        return wc_error_set(err, -ENOMEM, "avx stressor: out of memory");
    s->variant = wc_avx_detect();
    for (int i = 0; i < WC_AVX_LANES; i++) {
        s->lanes[i] = (double)i;
        s->add[i] = 1.0 + (double)(i % 7);
    }
    report->avx_variant = wc_avx_variant_name(s->variant);
    work w = {avx_chunk, s};
    report->chunks = run_duty(&w, p, end_ns, stop);
    free(s);
    return 0;
}

static int run_membound(const wc_stress_params *p, int64_t end_ns, volatile sig_atomic_t *stop,
                        wc_stress_report *report, wc_error *err)
{
    wc_chase c;
    size_t bytes = p->resident_bytes ? p->resident_bytes : WC_CHASE_DEFAULT_BYTES;
    int rc = wc_chase_init(&c, bytes, p->seed, err);
    if (rc)
        return rc;
    work w = {membound_chunk, &c};
    report->chunks = run_duty(&w, p, end_ns, stop);
    wc_chase_free(&c);
    return 0;
}

static int check_params(const wc_stress_params *p, wc_error *err)
{
    if (p->cls == WC_STRESS_BURST || (int)p->cls < 0 || (int)p->cls >= N_CLASSES)
        return wc_error_set(err, -EINVAL, "class %s is not an in-process stressor",
                            wc_stress_class_name(p->cls));
    if (p->duty_pct < 1 || p->duty_pct > 100)
        return wc_error_set(err, -EINVAL, "duty %d %% is outside 1..100", p->duty_pct);
    if (p->duration_ns < 0)
        return wc_error_set(err, -EINVAL, "negative duration");
    return 0;
}

int wc_stress_exec(const wc_stress_params *p, volatile sig_atomic_t *stop,
                   wc_stress_report *report, wc_error *err)
{
    wc_stress_report local;
    if (!report)
        report = &local;
    memset(report, 0, sizeof *report);
    int rc = check_params(p, err);
    if (rc)
        return rc;
    int64_t end = wc_mono_ns() + p->duration_ns;
    char comm[16];
    snprintf(comm, sizeof comm, "%s", p->comm ? p->comm : "wattcal-");
    if (!p->comm)
        snprintf(comm + 8, sizeof comm - 8, "%s", wc_stress_class_name(p->cls));
    prctl(PR_SET_NAME, comm, 0, 0, 0); /* tables tell the stressors apart */
    switch (p->cls) {
    case WC_STRESS_IDLE: return run_idle(p, end, stop, err);
    case WC_STRESS_AVX: return run_avx(p, end, stop, report, err);
    case WC_STRESS_MEMBOUND: return run_membound(p, end, stop, report, err);
    default: break;
    }
    cpu_state s = {88172645463325252ULL, 1.0};
    work w = {cpu_chunk, &s};
    report->chunks = run_duty(&w, p, end, stop);
    return 0;
}

int wc_stress_run(wc_stress_class cls, int64_t duration_ns, size_t resident_bytes,
                  volatile sig_atomic_t *stop, wc_error *err)
{
    wc_stress_params p = {.cls = cls, .duration_ns = duration_ns, .duty_pct = 100,
                          .resident_bytes = resident_bytes, .seed = 1};
    return wc_stress_exec(&p, stop, NULL, err);
}
