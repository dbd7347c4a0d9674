/*
 * bench_expo.c — `make bench`: how fast the exposition parser reads a
 * Kepler-shaped /metrics body (collector/exporter/expo_parse.h), against the
 * target of 200 MB/s on this machine.
 *
 * The body is generated here: Kepler v0.11's layout (HELP/TYPE per family,
 * node zones package/core/uncore/dram with their powercap paths, the usage
 * ratio, and per process, container and pod the cpu joules and watts per
 * zone in the "running" state, the process cpu seconds) for a node of 1,000
 * processes, 100 containers and 50 pods; four such nodes (node_name differs,
 * families grouped as a federating Prometheus would) make ~10 MB. Values
 * are printed as Go prints float64 (17 significant digits, as Kepler's
 * counters mostly have). Then the median of 11 parses: the parser alone (a
 * callback that only sums values), and parse + wc_kepler_classify per
 * sample. Each parse is timed twice: by the thread's CPU time (the figure
 * compared with the target: the machine is shared, and time spent waiting
 * for a core is not the parser's) and by the wall clock. Figures are
 * printed; nothing asserts a timing.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector/exporter/expo_parse.h"
#include "collector/exporter/kepler_metrics.h"
#include "common/wc_clock.h"

#define ROUNDS 11
#define NODES 4
#define PROCS 1000
#define CONTAINERS 100
#define PODS 50

static const char *const zones[] = {"package", "core", "uncore", "dram"};
static const char *const zpath[] = {"/sys/class/powercap/intel-rapl:0",
                                    "/sys/class/powercap/intel-rapl:0:0",
                                    "/sys/class/powercap/intel-rapl:0:1",
                                    "/sys/class/powercap/intel-rapl:0:2"};

typedef struct body {
    char *buf;
    size_t len, cap;
} body;

static void put(body *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(body *b, const char *fmt, ...)
{
    if (b->cap - b->len < 4096) {
        b->cap = b->cap ? b->cap * 2 : 1 << 20;
        b->buf = realloc(b->buf, b->cap);
        if (!b->buf) {
            perror("bench_expo");
            exit(1);
        }
    }
    va_list ap;
    va_start(ap, fmt);
    b->len += (size_t)vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
}

/* A value with 17 significant digits, different per series. */
static double val(unsigned i, unsigned j)
{
    return 1234.5678901234567 + i * 7.123456789012345 + j * 0.3183098861837907;
}

static void family(body *b, const char *name, const char *type, const char *help)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void node_series(body *b, const char *metric, const char *type)
{
    family(b, metric, type, "Energy consumption of cpu at node level in joules");
    for (unsigned n = 0; n < NODES; n++)
        for (unsigned z = 0; z < 4; z++)
            put(b, "%s{node_name=\"node-%u\",path=\"%s\",zone=\"%s\"} %.17g\n", metric, n,
                zpath[z], zones[z], val(n, z));
}

static void process_series(body *b, const char *metric, const char *type)
{
    family(b, metric, type, "Energy consumption of cpu at process level in joules");
    for (unsigned n = 0; n < NODES; n++)
        for (unsigned p = 0; p < PROCS; p++)
            for (unsigned z = 0; z < 4; z++)
                put(b,
                    "%s{comm=\"worker-%u\",container_id=\"%064x\",exe=\"/usr/local/bin/"
                    "worker-%u\",node_name=\"node-%u\",pid=\"%u\",state=\"running\",type="
                    "\"container\",vm_id=\"\",zone=\"%s\"} %.17g\n",
                    metric, p, p % CONTAINERS + 1, p, n, 1000 + p, zones[z], val(p, z));
}

static void container_series(body *b, const char *metric, const char *type)
{
    family(b, metric, type, "Energy consumption of cpu at container level in joules");
    for (unsigned n = 0; n < NODES; n++)
        for (unsigned c = 0; c < CONTAINERS; c++)
            for (unsigned z = 0; z < 4; z++)
                put(b,
                    "%s{container_id=\"%064x\",container_name=\"app-%u\",node_name=\"node-%u\","
                    "pod_id=\"0000%04u-1111-2222-3333-444455556666\",runtime=\"containerd\","
                    "state=\"running\",zone=\"%s\"} %.17g\n",
                    metric, c + 1, c, n, c % PODS, zones[z], val(c, z));
}

static void pod_series(body *b, const char *metric, const char *type)
{
    family(b, metric, type, "Energy consumption of cpu at pod level in joules");
    for (unsigned n = 0; n < NODES; n++)
        for (unsigned d = 0; d < PODS; d++)
            for (unsigned z = 0; z < 4; z++)
                put(b,
                    "%s{node_name=\"node-%u\",pod_id=\"0000%04u-1111-2222-3333-444455556666\","
                    "pod_name=\"app-%u-7d9f8c6b5-x2k4q\",pod_namespace=\"team-%u\",state="
                    "\"running\",zone=\"%s\"} %.17g\n",
                    metric, n, d, d, d % 7, zones[z], val(d, z));
}

static body generate(void)
{
    body b = {0};
    static const char *const node_metrics[][2] = {
        {"kepler_node_cpu_joules_total", "counter"},
        {"kepler_node_cpu_active_joules_total", "counter"},
        {"kepler_node_cpu_idle_joules_total", "counter"},
        {"kepler_node_cpu_watts", "gauge"},
        {"kepler_node_cpu_active_watts", "gauge"},
        {"kepler_node_cpu_idle_watts", "gauge"}};
    for (size_t i = 0; i < 6; i++)
        node_series(&b, node_metrics[i][0], node_metrics[i][1]);
    family(&b, "kepler_node_cpu_usage_ratio", "gauge", "CPU usage ratio of a node");
    for (unsigned n = 0; n < NODES; n++)
        put(&b, "kepler_node_cpu_usage_ratio{node_name=\"node-%u\"} 0.%u3456789\n", n, n + 1);
    process_series(&b, "kepler_process_cpu_joules_total", "counter");
    process_series(&b, "kepler_process_cpu_watts", "gauge");
    family(&b, "kepler_process_cpu_seconds_total", "counter", "Total user and system time");
    for (unsigned n = 0; n < NODES; n++)
        for (unsigned p = 0; p < PROCS; p++)
            put(&b,
                "kepler_process_cpu_seconds_total{comm=\"worker-%u\",container_id=\"%064x\",exe="
                "\"/usr/local/bin/worker-%u\",node_name=\"node-%u\",pid=\"%u\",type=\"container\","
                "vm_id=\"\"} %.17g\n",
                p, p % CONTAINERS + 1, p, n, 1000 + p, val(p, 9) / 100);
    container_series(&b, "kepler_container_cpu_joules_total", "counter");
    container_series(&b, "kepler_container_cpu_watts", "gauge");
    pod_series(&b, "kepler_pod_cpu_joules_total", "counter");
    pod_series(&b, "kepler_pod_cpu_watts", "gauge");
    return b;
}

typedef struct sink {
    double sum;
    size_t kepler;
} sink;

static int sum_cb(void *ctx, const wc_expo_sample *s)
{
    ((sink *)ctx)->sum += s->value;
    return 0;
}

static int classify_cb(void *ctx, const wc_expo_sample *s)
{
    wc_kep_fact f;
    sink *k = ctx;
    k->sum += s->value;
    k->kepler += (size_t)wc_kepler_classify(s, &f);
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The calling thread's CPU time, ns. */
static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * WC_NS_PER_S + ts.tv_nsec;
}

/* Median MB/s of ROUNDS parses of the body with callback cb, by CPU time
 * and by wall time. */
static int measure(const body *b, wc_expo_cb cb, const char *what)
{
    int64_t cpu[ROUNDS], wall[ROUNDS];
    wc_expo_stats st;
    sink k = {0};
    for (int r = 0; r < ROUNDS; r++) {
        wc_error err = {{0}};
        int64_t w0 = wc_mono_ns(), c0 = cpu_ns();
        int rc = wc_expo_parse(b->buf, b->len, WC_EXPO_TEXT_004, "bench", NULL, cb, &k, &st, &err);
        cpu[r] = cpu_ns() - c0;
        wall[r] = wc_mono_ns() - w0;
        if (rc) {
            fprintf(stderr, "bench_expo: %s\n", err.msg);
            return -1;
        }
    }
    qsort(cpu, ROUNDS, sizeof cpu[0], cmp_i64);
    qsort(wall, ROUNDS, sizeof wall[0], cmp_i64);
    double mb = (double)b->len / 1e6, c = (double)cpu[ROUNDS / 2] / 1e9,
           w = (double)wall[ROUNDS / 2] / 1e9;
    printf("  %-18s %7.1f MB/s of CPU time (%.1f ms; target >= 200 MB/s: %s), %7.1f MB/s by "
           "the wall clock; %zu samples\n",
           what, mb / c, c * 1e3, mb / c >= 200 ? "met" : "NOT met", mb / w, st.samples);
    return 0;
}

int main(void)
{
    body b = generate();
    printf("wattcal bench: exposition parsing, a generated Kepler v0.11 body of %.1f MB (%d nodes "
           "x 4 zones, %d processes, %d containers, %d pods), median of %d parses\n",
           b.len / 1e6, NODES, PROCS, CONTAINERS, PODS, ROUNDS);
    int rc = measure(&b, sum_cb, "parse:");
    if (!rc)
        rc = measure(&b, classify_cb, "parse + classify:");
    free(b.buf);
    return rc ? 1 : 0;
}
