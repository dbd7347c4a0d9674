/*
 * stressor.c — the cpu and idle stressors (see stressor.h).
 */
#include "workloads/stressor.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "common/wc_clock.h"

int wc_stress_class_parse(const char *name, wc_stress_class *out)
{
    if (strcmp(name, "cpu") == 0)
        *out = WC_STRESS_CPU;
    else if (strcmp(name, "idle") == 0)
        *out = WC_STRESS_IDLE;
    else
        return -EINVAL;
    return 0;
}

/* Busy loop with a data dependency the compiler cannot remove; checks the
 * clock every few million iterations. */
static void burn_cpu(int64_t end_ns, volatile sig_atomic_t *stop)
{
    volatile double sink = 0;
    double x = 1.0;
    uint64_t acc = 88172645463325252ULL;
    while (!*stop && wc_mono_ns() < end_ns) {
        for (int i = 0; i < 2000000; i++) {
            acc ^= acc << 13;
            acc ^= acc >> 7;
            acc ^= acc << 17;
            x = x * 1.0000001 + (double)(acc & 0xff) * 1e-9;
        }
        sink = x;
    }
    (void)sink;
}

static void sleep_resident(int64_t end_ns, volatile sig_atomic_t *stop)
{
    while (!*stop) {
        int64_t left = end_ns - wc_mono_ns();
        if (left <= 0)
            break;
        int64_t step = left < 200000000 ? left : 200000000; /* wake to notice stop */
        struct timespec ts = {.tv_sec = step / WC_NS_PER_S, .tv_nsec = step % WC_NS_PER_S};
        nanosleep(&ts, NULL);
    }
}

int wc_stress_run(wc_stress_class cls, int64_t duration_ns, size_t resident_bytes,
                  volatile sig_atomic_t *stop, wc_error *err)
{
    int64_t end = wc_mono_ns() + duration_ns;
    /* Name the process after its class so tables tell the stressors apart. */
    prctl(PR_SET_NAME, cls == WC_STRESS_CPU ? "wattcal-cpu" : "wattcal-idle", 0, 0, 0);
    if (cls == WC_STRESS_CPU) {
        burn_cpu(end, stop);
        return 0;
    }
    char *mem = NULL;
    if (resident_bytes) {
        mem = malloc(resident_bytes);
        if (!mem)
            return wc_error_set(err, -ENOMEM, "idle stressor: cannot hold %zu bytes",
                                resident_bytes);
        long page = sysconf(_SC_PAGESIZE);
        for (size_t i = 0; i < resident_bytes; i += (size_t)(page > 0 ? page : 4096))
            mem[i] = (char)i;
    }
    sleep_resident(end, stop);
    free(mem);
    return 0;
}
