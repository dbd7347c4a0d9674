/*
 * stressor.h — built-in stress workloads run in-process.
 *
 * Classes: `cpu`, a scalar floating/integer loop that keeps one CPU busy;
 * `avx`, a vector FMA loop dispatched at run time to avx512f, avx2+fma or
 * sse2 (workloads/avx.h); `membound`, a dependent pointer chase over a
 * buffer much larger than the last-level cache (workloads/membound.h);
 * `idle`, an idle-but-resident agent that touches its memory once and
 * sleeps. `burst` (many short-lived children) is not an in-process stressor:
 * the spawner runs it (workloads/spawn.h); it is parsed here so every class
 * has one name table.
 *
 * The busy classes honour a duty cycle: within each 100 ms period of the
 * monotonic clock they work until the calling thread has used duty_pct % of
 * the period as CPU time (or the period ends, on a contended CPU) and sleep
 * the rest, so the CPU share delivered is duty_pct % wherever the machine
 * has room for it.
 */
#ifndef WC_STRESSOR_H
#define WC_STRESSOR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

typedef enum wc_stress_class {
    WC_STRESS_CPU = 0,
    WC_STRESS_IDLE,
    WC_STRESS_AVX,
    WC_STRESS_MEMBOUND,
    WC_STRESS_BURST,
} wc_stress_class;

/* Duty-cycle period: 100 ms. */
#define WC_STRESS_PERIOD_NS 100000000LL

/* Parses "cpu" / "idle" / "avx" / "membound" / "burst". Returns 0 or -EINVAL. */
int wc_stress_class_parse(const char *name, wc_stress_class *out);

/* The class's name as parsed ("cpu"...); "?" for an out-of-range value. */
const char *wc_stress_class_name(wc_stress_class cls);

/* What one in-process stressor does. */
typedef struct wc_stress_params {
    wc_stress_class cls;    /* cpu, idle, avx or membound (burst: -EINVAL) */
    int64_t duration_ns;    /* wall-clock run time on the monotonic clock, >= 0 */
    int64_t cpu_budget_ns;  /* > 0: also stop once this process has used this
                               much CPU (user+system); 0: no CPU limit */
    int duty_pct;           /* 1..100: busy share of each 100 ms period
                               (ignored by idle) */
    size_t resident_bytes;  /* idle: bytes held resident (0 = none);
                               membound: chase buffer (0 = 256 MiB) */
    uint64_t seed;          /* membound: seed of the random cycle */
    const char *comm;       /* process name to set (NULL = wattcal-<class>) */
} wc_stress_params;

/* What ran: for the caller to print and store. */
typedef struct wc_stress_report {
    const char *avx_variant; /* avx: "avx512f" / "avx2" / "sse2"; else NULL */
    uint64_t chunks;         /* units of work done (class-specific size) */
} wc_stress_report;

/* Renames the calling process (comm) to p->comm or wattcal-<class>, then runs one
 * stressor in the calling thread until p->duration_ns elapses, the CPU
 * budget is spent or *stop is set. report may be NULL. Returns 0; -EINVAL
 * (with err) for burst, a duty outside 1..100 or a negative duration;
 * -ENOMEM when the idle or membound memory cannot be allocated. */
int wc_stress_exec(const wc_stress_params *p, volatile sig_atomic_t *stop,
                   wc_stress_report *report, wc_error *err);

/* The foundation's call, kept: wc_stress_exec at 100 % duty, no CPU budget,
 * seed 1. resident_bytes as in wc_stress_params. */
int wc_stress_run(wc_stress_class cls, int64_t duration_ns, size_t resident_bytes,
                  volatile sig_atomic_t *stop, wc_error *err);

/* CPU time (user+system) used so far by the calling process, in ns. */
int64_t wc_process_cpu_ns(void);

#endif
