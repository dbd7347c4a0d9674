/*
 * test_meter_sim.c — the simulated node: its tree is discovered through the
 * ordinary RAPL path, its counters follow the power model driven by a fake
 * procfs (a temp dir whose stat file the test rewrites with known ticks),
 * they wrap at the configured range (and counter.c sees WRAPPED with the
 * right delta), one seed gives one sequence, and close removes the tree.
 * Workload classes: pid directories in the fake procfs whose stat files
 * (comm wattcal-avx, ...) the test rewrites give exact per-class energies.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/meter/counter.h"
#include "collector/meter/meter_rapl.h"
#include "collector/meter/meter_sim.h"
#include "common/wc_clock.h"
#include "common/wc_fs.h"
#include "common/wc_tmptree.h"
#include "tests/unit/support/test_support.h"

static const char *const ENTRIES[5] = {"intel-rapl:0", "intel-rapl:0:0", "intel-rapl:1",
                                       "intel-rapl:1:0", "intel-rapl:2"};

static void rm_tree(const char *dir) { (void)wc_remove_tree(dir); }

/* Writes <procfs>/stat: aggregate line with `busy` user ticks and `idle`
 * idle ticks, and ncpus cpuN lines (their values do not matter). */
static void write_stat(const char *procfs, uint64_t busy, uint64_t idle, int ncpus)
{
    char text[2048];
    int n = snprintf(text, sizeof text, "cpu  %" PRIu64 " 0 0 %" PRIu64 " 0 0 0 0 0 0\n", busy,
                     idle);
    for (int c = 0; c < ncpus; c++)
        n += snprintf(text + n, sizeof text - (size_t)n, "cpu%d 0 0 0 0 0 0 0 0 0 0\n", c);
    snprintf(text + n, sizeof text - (size_t)n, "intr 0\nctxt 0\nbtime 1700000000\n");
    wc_test_write(procfs, "stat", text);
}

/* A fake procfs (copy of the path, caller frees) with a zero baseline. */
static char *fake_procfs(int ncpus)
{
    char *dir = strdup(wc_test_tmpdir());
    cr_assert_not_null(dir);
    write_stat(dir, 0, 0, ncpus);
    return dir;
}

/* Parameters with no noise and a range large enough never to wrap. */
static wc_sim_params exact_params(void)
{
    wc_sim_params p = wc_sim_default_params();
    p.noise_sd_watts = 0;
    p.max_energy_range_uj = 1000000000000000ull;
    return p;
}

/* The counter file of a simulated zone. */
static uint64_t counter_of(const wc_meter *m, const char *entry)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/class/powercap/%s/energy_uj", wc_meter_sim_root(m), entry);
    uint64_t v = 0;
    wc_error err;
    cr_assert_eq(wc_read_u64(path, &v, &err), 0, "%s", err.msg);
    return v;
}

static void snapshot(const wc_meter *m, uint64_t out[5])
{
    for (int i = 0; i < 5; i++)
        out[i] = counter_of(m, ENTRIES[i]);
}

static void start(wc_meter *m, const char *procfs, const wc_sim_params *p)
{
    wc_error err;
    err.msg[0] = '\0';
    cr_assert_eq(wc_meter_sim_init(m, procfs, p, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_meter_discover(m, &err), 0, "%s", err.msg);
}

static void advance(wc_meter *m, int64_t ns)
{
    wc_error err;
    cr_assert_eq(wc_meter_sim_advance(m, ns, &err), 0, "%s", err.msg);
}

Test(meter_sim, discovered_through_the_rapl_path)
{
    char *procfs = fake_procfs(4);
    wc_sim_params p = exact_params();
    wc_meter m;
    start(&m, procfs, &p);
    cr_assert_eq(m.provenance, WC_PROV_SIMULATED);
    cr_assert_str_eq(wc_provenance_name(m.provenance), "simulated");
    cr_assert_str_eq(m.ops->kind, "sim");
    cr_assert_not_null(strstr(m.description, "simulated"), "%s", m.description);
    cr_assert_not_null(strstr(m.description, "2 packages, 2 dram, psys"), "%s", m.description);
    cr_assert_eq(m.nzones, 5);
    static const char *const names[5] = {"package", "dram", "package", "dram", "psys"};
    static const int sockets[5] = {0, 0, 1, 1, -1};
    static const int parents[5] = {-1, 0, -1, 2, -1};
    for (int i = 0; i < 5; i++) {
        cr_assert_str_eq(m.zones[i].name, names[i], "zone %d", i);
        cr_assert_eq(m.zones[i].socket, sockets[i], "zone %d", i);
        cr_assert_eq(m.zones[i].parent, parents[i], "zone %d", i);
        cr_assert_eq(m.zones[i].enabled, 1);
        cr_assert_eq(m.zones[i].max_energy_range_uj, p.max_energy_range_uj);
        cr_assert_not_null(strstr(m.zones[i].path, ENTRIES[i]));
    }
    /* the control type exists and has no name */
    char path[1024];
    snprintf(path, sizeof path, "%s/class/powercap/intel-rapl/name", wc_meter_sim_root(&m));
    cr_assert_neq(access(path, F_OK), 0);

    /* a second RAPL meter over the same tree sees the same thing */
    wc_meter r;
    wc_error err;
    cr_assert_eq(wc_meter_rapl_init(&r, wc_meter_sim_root(&m), &err), 0);
    cr_assert_eq(wc_meter_discover(&r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.nzones, 5);
    cr_assert_null(wc_meter_sim_root(&r));
    wc_meter_close(&r);
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, counters_follow_the_model_exactly_without_noise)
{
    char *procfs = fake_procfs(4);
    wc_sim_params p = exact_params();
    wc_meter m;
    start(&m, procfs, &p);
    uint64_t a[5], b[5];
    snapshot(&m, a);
    /* 200 of 400 ticks busy on 4 CPUs: 2 busy CPUs, 1 per package */
    write_stat(procfs, 200, 200, 4);
    advance(&m, 2 * WC_NS_PER_S);
    snapshot(&m, b);
    const uint64_t pkg_uj = 60000000;  /* (20 + 10 × 1) W × 2 s */
    const uint64_t dram_uj = 7000000;  /* (3 + 0.5 × 1) W × 2 s */
    const uint64_t psys_uj = 164000000; /* (2 × 30 + 2 × 3.5 + 15) W × 2 s */
    cr_assert_eq(b[0] - a[0], pkg_uj);
    cr_assert_eq(b[1] - a[1], dram_uj);
    cr_assert_eq(b[2] - a[2], pkg_uj);
    cr_assert_eq(b[3] - a[3], dram_uj);
    cr_assert_eq(b[4] - a[4], psys_uj);

    /* idle interval: 0 of 400 busy → idle power only; 0.25 s → 5 J per package */
    write_stat(procfs, 200, 600, 4);
    advance(&m, WC_NS_PER_S / 4);
    snapshot(&m, a);
    cr_assert_eq(a[0] - b[0], 5000000ull);
    cr_assert_eq(a[1] - b[1], 750000ull);
    cr_assert_eq(a[4] - b[4], 15250000ull); /* (40 + 6 + 15) W × 0.25 s */

    /* sub-µJ remainders are carried, not lost: 200 × 25 ns at 20 W = 100 µJ */
    for (int i = 0; i < 200; i++)
        advance(&m, 25);
    snapshot(&m, b);
    cr_assert_eq(b[0] - a[0], 100ull);
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, read_advances_by_real_time)
{
    char *procfs = fake_procfs(8);
    wc_sim_params p = exact_params();
    wc_meter m;
    start(&m, procfs, &p);
    wc_reading r0[5], r1[5];
    wc_error err;
    cr_assert_eq(wc_meter_read(&m, r0, &err), 0, "%s", err.msg);
    /* 8 CPUs, half busy: 4 busy CPUs, 2 per package: package 40 W, psys 40+40+4+4+15 */
    write_stat(procfs, 400, 400, 8);
    struct timespec ts = {0, 200000000};
    nanosleep(&ts, NULL);
    cr_assert_eq(wc_meter_read(&m, r1, &err), 0, "%s", err.msg);
    static const double model_watts[5] = {40, 4, 40, 4, 103};
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(r1[i].status, 0);
        int64_t ns = r1[i].mono_ns - r0[i].mono_ns;
        uint64_t d = 0;
        cr_assert_eq(wc_counter_delta(r0[i].value, r1[i].value, m.zones[i].max_energy_range_uj,
                                      ns, 0, &d), WC_DELTA_OK);
        double w = (double)d * 1e3 / (double)ns;
        /* readings carry the simulation instant: ΔE/Δt is the model up to
         * the µJ rounding of each advance */
        cr_assert_float_eq(w, model_watts[i], 2e-5 * 1e9 / (double)ns + 1e-9, "zone %d: %.6f W", i, w);
    }
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, noise_stays_within_its_spread)
{
    char *procfs = fake_procfs(4);
    wc_sim_params p = exact_params();
    p.noise_sd_watts = 0.5;
    wc_meter m;
    start(&m, procfs, &p);
    uint64_t a[5], b[5];
    snapshot(&m, a);
    int differs = 0;
    for (int step = 1; step <= 20; step++) {
        write_stat(procfs, 200 * (uint64_t)step, 200 * (uint64_t)step, 4);
        advance(&m, WC_NS_PER_S);
        snapshot(&m, b);
        double pkg = (double)(b[0] - a[0]) / 1e6; /* J over 1 s = W */
        cr_assert_float_eq(pkg, 30.0, 5 * 0.5, "step %d: %.3f W", step, pkg);
        differs += fabs(pkg - 30.0) > 1e-6;
        memcpy(a, b, sizeof a);
    }
    cr_assert_gt(differs, 10, "noise is applied");
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, wraps_and_counter_sees_one_wrap)
{
    char *procfs = fake_procfs(2);
    wc_sim_params p = exact_params();
    p.max_energy_range_uj = 60000000; /* 60 J */
    p.package_watts_per_cpu = 0;
    wc_meter m;
    start(&m, procfs, &p);
    int wrapped = 0;
    uint64_t prev = counter_of(&m, "intel-rapl:0");
    for (int step = 0; step < 4; step++) {
        advance(&m, WC_NS_PER_S); /* 20 W idle → 20 J per step */
        uint64_t cur = counter_of(&m, "intel-rapl:0");
        cr_assert_lt(cur, p.max_energy_range_uj);
        uint64_t d = 0;
        wc_delta_status st = wc_counter_delta(prev, cur, m.zones[0].max_energy_range_uj,
                                              WC_NS_PER_S, 0, &d);
        cr_assert(st == WC_DELTA_OK || st == WC_DELTA_WRAPPED, "%s", wc_delta_status_name(st));
        cr_assert_eq(d, 20000000ull, "step %d (%s): %" PRIu64, step, wc_delta_status_name(st), d);
        wrapped += st == WC_DELTA_WRAPPED;
        prev = cur;
    }
    cr_assert_geq(wrapped, 1, "80 J through a 60 J counter must wrap");
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

/* Runs a sim for 6 one-second steps and stores every counter. */
static void run_sequence(const char *procfs, uint64_t seed, uint64_t out[6][5])
{
    wc_sim_params p = wc_sim_default_params();
    p.seed = seed;
    p.noise_sd_watts = 1.0;
    write_stat(procfs, 0, 0, 4);
    wc_meter m;
    start(&m, procfs, &p);
    for (int step = 0; step < 6; step++) {
        write_stat(procfs, 100 * (uint64_t)step, 300 * (uint64_t)step, 4);
        advance(&m, WC_NS_PER_S);
        snapshot(&m, out[step]);
    }
    wc_meter_close(&m);
}

Test(meter_sim, same_seed_same_sequence)
{
    char *procfs = fake_procfs(4);
    uint64_t a[6][5], b[6][5], c[6][5];
    run_sequence(procfs, 7, a);
    run_sequence(procfs, 7, b);
    run_sequence(procfs, 8, c);
    cr_assert_eq(memcmp(a, b, sizeof a), 0, "same seed, different counters");
    cr_assert_neq(memcmp(a, c, sizeof a), 0, "different seeds, same counters");
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, close_removes_the_tree)
{
    char *procfs = fake_procfs(1);
    wc_meter m;
    start(&m, procfs, NULL);
    char *root = strdup(wc_meter_sim_root(&m));
    cr_assert_not_null(root);
    struct stat st;
    cr_assert_eq(stat(root, &st), 0);
    wc_meter_close(&m);
    cr_assert_eq(stat(root, &st), -1);
    cr_assert_eq(errno, ENOENT);
    cr_assert_null(wc_meter_sim_root(&m));
    free(root);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, bad_inputs_are_errors)
{
    char *procfs = strdup(wc_test_tmpdir()); /* no stat file */
    wc_meter m;
    wc_error err;
    err.msg[0] = '\0';
    cr_assert_eq(wc_meter_sim_init(&m, procfs, NULL, &err), -ENOENT);
    cr_assert_not_null(strstr(err.msg, "stat"), "%s", err.msg);

    wc_sim_params p = wc_sim_default_params();
    p.max_energy_range_uj = 0;
    cr_assert_eq(wc_meter_sim_init(&m, procfs, &p, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "max_energy_range_uj"), "%s", err.msg);
    p = wc_sim_default_params();
    p.package_idle_watts = -1;
    cr_assert_eq(wc_meter_sim_init(&m, procfs, &p, &err), -EINVAL);

    write_stat(procfs, 0, 0, 1);
    start(&m, procfs, NULL);
    cr_assert_eq(wc_meter_sim_advance(&m, -1, &err), -EINVAL);
    /* /proc/stat vanishing mid-run is a read error on every zone, not zeros */
    char stat_path[1024];
    snprintf(stat_path, sizeof stat_path, "%s/stat", procfs);
    cr_assert_eq(unlink(stat_path), 0);
    wc_reading r[5];
    cr_assert_eq(wc_meter_read(&m, r, &err), -ENOENT, "%s", err.msg);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(r[i].status, -ENOENT);
    wc_meter_close(&m);

    wc_meter rapl;
    cr_assert_eq(wc_meter_rapl_init(&rapl, "/nonexistent", &err), 0);
    cr_assert_eq(wc_meter_sim_advance(&rapl, 1, &err), -EINVAL);
    wc_meter_close(&rapl);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, default_params_and_json)
{
    wc_sim_params p = wc_sim_default_params();
    cr_assert_float_eq(p.package_idle_watts, 20.0, 1e-12);
    cr_assert_float_eq(p.package_watts_per_cpu, 10.0, 1e-12);
    cr_assert_eq(p.max_energy_range_uj, 1000000000ull);
    char buf[512];
    cr_assert_eq(wc_sim_params_json(&p, buf, sizeof buf), buf);
    cr_assert_str_eq(buf, "{\"package_idle_watts\":20,\"package_watts_per_cpu\":10,"
                          "\"dram_idle_watts\":3,\"dram_watts_per_cpu\":0.5,"
                          "\"psys_base_watts\":15,\"noise_sd_watts\":0.5,"
                          "\"max_energy_range_uj\":1000000000,\"seed\":42,"
                          "\"class_factor\":{\"cpu\":1,\"avx\":1.6,\"membound\":0.7,"
                          "\"burst\":1,\"idle\":1},"
                          "\"class_dram_factor\":{\"cpu\":1,\"avx\":1,\"membound\":3,"
                          "\"burst\":1,\"idle\":1}}");
    cr_assert_lt(strlen(buf), 512, "fits the run table's column");
    p.noise_sd_watts = 0.1;
    wc_sim_params_json(&p, buf, sizeof buf);
    cr_assert_not_null(strstr(buf, "\"noise_sd_watts\":0.1,"), "%s", buf);
    char tiny[8];
    wc_sim_params_json(&p, tiny, sizeof tiny);
    cr_assert_eq(strlen(tiny), 7, "truncated, still terminated");
}

/* ---- workload classes -------------------------------------------------- */

/* Writes <procfs>/<pid>/stat: a process named comm with utime/stime ticks,
 * started at `start` ticks after boot. */
static void write_pid(const char *procfs, int pid, const char *comm, uint64_t utime,
                      uint64_t stime, uint64_t start)
{
    char rel[64], text[512];
    snprintf(rel, sizeof rel, "%d/stat", pid);
    snprintf(text, sizeof text,
             "%d (%s) R 1 1 1 0 -1 4194304 0 0 0 0 %" PRIu64 " %" PRIu64
             " 0 0 20 0 1 0 %" PRIu64 " 1000000 100 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
             pid, comm, utime, stime, start);
    wc_test_write(procfs, rel, text);
}

static void class_busy(const wc_meter *m, double busy[WC_SIM_NCLASSES], double *other,
                       size_t *n)
{
    cr_assert_eq(wc_meter_sim_class_busy(m, busy, other, n), 0);
}

Test(meter_sim, comm_names_the_class)
{
    cr_assert_eq(wc_sim_class_of_comm("wattcal-cpu"), WC_SIM_CLASS_CPU);
    cr_assert_eq(wc_sim_class_of_comm("wattcal-avx"), WC_SIM_CLASS_AVX);
    cr_assert_eq(wc_sim_class_of_comm("wattcal-memboun"), WC_SIM_CLASS_MEMBOUND); /* kernel's 15 */
    cr_assert_eq(wc_sim_class_of_comm("wattcal-membound"), WC_SIM_CLASS_MEMBOUND);
    cr_assert_eq(wc_sim_class_of_comm("wattcal-burst"), WC_SIM_CLASS_BURST);
    cr_assert_eq(wc_sim_class_of_comm("wattcal-idle"), WC_SIM_CLASS_IDLE);
    cr_assert_eq(wc_sim_class_of_comm("wattcal-mem"), -1, "a short prefix is not a truncation");
    cr_assert_eq(wc_sim_class_of_comm("wattcal-avx2"), -1);
    cr_assert_eq(wc_sim_class_of_comm("wattcal-"), -1);
    cr_assert_eq(wc_sim_class_of_comm("wattcal"), -1);
    cr_assert_eq(wc_sim_class_of_comm("bash"), -1);
    cr_assert_eq(wc_sim_class_of_comm("xwattcal-avx"), -1);
    cr_assert_eq(wc_sim_class_of_comm(NULL), -1);
    cr_assert_str_eq(wc_sim_class_name(WC_SIM_CLASS_MEMBOUND), "membound");
    cr_assert_str_eq(wc_sim_class_name(WC_SIM_NCLASSES), "?");
}

Test(meter_sim, an_avx_second_costs_its_class_factor)
{
    char *procfs = fake_procfs(4);
    write_pid(procfs, 101, "wattcal-avx", 0, 0, 5000);
    wc_sim_params p = exact_params();
    wc_meter m;
    start(&m, procfs, &p);
    uint64_t a[5], b[5];
    snapshot(&m, a);
    /* 100 of 400 ticks busy on 4 CPUs (1 s of 100 ticks per CPU): 1 busy
     * CPU, and that is the avx process's 60 + 40 ticks */
    write_stat(procfs, 100, 300, 4);
    write_pid(procfs, 101, "wattcal-avx", 60, 40, 5000);
    advance(&m, WC_NS_PER_S);
    snapshot(&m, b);
    /* package: 20 + 10 × 1.6 × 1 / 2 = 28 W; dram: 3 + 0.5 × 1 / 2 = 3.25 W */
    cr_assert_eq(b[0] - a[0], 28000000ull);
    cr_assert_eq(b[2] - a[2], 28000000ull);
    cr_assert_eq(b[1] - a[1], 3250000ull);
    cr_assert_eq(b[3] - a[3], 3250000ull);
    cr_assert_eq(b[4] - a[4], 77500000ull); /* 56 + 6.5 + 15 */
    double busy[WC_SIM_NCLASSES], other;
    size_t n;
    class_busy(&m, busy, &other, &n);
    cr_assert_float_eq(busy[WC_SIM_CLASS_AVX], 1.0, 1e-12);
    cr_assert_float_eq(busy[WC_SIM_CLASS_CPU], 0.0, 1e-12);
    cr_assert_float_eq(other, 0.0, 1e-12);
    cr_assert_eq(n, 1);

    /* the avx process stops using CPU, the machine idles: idle power only */
    write_stat(procfs, 100, 700, 4);
    advance(&m, WC_NS_PER_S);
    snapshot(&m, a);
    cr_assert_eq(a[0] - b[0], 20000000ull);
    cr_assert_eq(a[1] - b[1], 3000000ull);
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, membound_draws_less_package_and_more_dram)
{
    char *procfs = fake_procfs(4);
    write_pid(procfs, 7, "wattcal-memboun", 1000, 0, 100); /* truncated by the kernel */
    wc_sim_params p = exact_params();
    wc_meter m;
    start(&m, procfs, &p);
    uint64_t a[5], b[5];
    snapshot(&m, a);
    /* 3 busy CPUs over 1 s: 2 are the membound process (200 ticks since
     * the baseline), 1 is unclassified */
    write_stat(procfs, 300, 100, 4);
    write_pid(procfs, 7, "wattcal-memboun", 1150, 50, 100);
    advance(&m, WC_NS_PER_S);
    snapshot(&m, b);
    /* package: 20 + 10 × (0.7 × 2 + 1) / 2 = 32 W; dram: 3 + 0.5 × (3 × 2 + 1) / 2 = 4.75 W */
    cr_assert_eq(b[0] - a[0], 32000000ull);
    cr_assert_eq(b[2] - a[2], 32000000ull);
    cr_assert_eq(b[1] - a[1], 4750000ull);
    cr_assert_eq(b[3] - a[3], 4750000ull);
    cr_assert_eq(b[4] - a[4], 88500000ull); /* 64 + 9.5 + 15 */
    double busy[WC_SIM_NCLASSES], other;
    class_busy(&m, busy, &other, NULL);
    cr_assert_float_eq(busy[WC_SIM_CLASS_MEMBOUND], 2.0, 1e-12);
    cr_assert_float_eq(other, 1.0, 1e-12);
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, unclassified_processes_count_one_and_factors_are_configurable)
{
    char *procfs = fake_procfs(4);
    write_pid(procfs, 10, "wattcal-cpu", 0, 0, 1);
    write_pid(procfs, 11, "bash", 0, 0, 1);
    write_pid(procfs, 12, "wattcal", 0, 0, 1);      /* the CLI itself */
    write_pid(procfs, 13, "wattcal-avx2", 0, 0, 1); /* not a class */
    wc_sim_params p = exact_params();
    p.class_factor[WC_SIM_CLASS_CPU] = 2.5;
    p.class_dram_factor[WC_SIM_CLASS_CPU] = 0;
    wc_meter m;
    start(&m, procfs, &p);
    uint64_t a[5], b[5];
    snapshot(&m, a);
    /* 4 busy CPUs over 2 s (200 ticks per CPU): 1 is wattcal-cpu, 3 unclassified */
    write_stat(procfs, 800, 0, 4);
    write_pid(procfs, 10, "wattcal-cpu", 200, 0, 1);
    write_pid(procfs, 11, "bash", 200, 0, 1);
    write_pid(procfs, 12, "wattcal", 200, 0, 1);
    write_pid(procfs, 13, "wattcal-avx2", 200, 0, 1);
    advance(&m, 2 * WC_NS_PER_S);
    snapshot(&m, b);
    /* package: (20 + 10 × (2.5 × 1 + 3) / 2) W × 2 s = 47.5 W × 2 s;
     * dram: (3 + 0.5 × (0 × 1 + 3) / 2) W × 2 s = 3.75 W × 2 s */
    cr_assert_eq(b[0] - a[0], 95000000ull);
    cr_assert_eq(b[1] - a[1], 7500000ull);
    cr_assert_eq(b[4] - a[4], 2 * (95000000ull + 7500000ull) + 30000000ull);
    size_t n;
    double other;
    class_busy(&m, NULL, &other, &n);
    cr_assert_eq(n, 1, "only the classified process is tracked");
    cr_assert_float_eq(other, 3.0, 1e-12);

    char buf[1024];
    wc_sim_params_json(&p, buf, sizeof buf);
    cr_assert_not_null(strstr(buf, "\"class_factor\":{\"cpu\":2.5,\"avx\":1.6,\"membound\":0.7,"
                                   "\"burst\":1,\"idle\":1}"), "%s", buf);
    cr_assert_not_null(strstr(buf, "\"class_dram_factor\":{\"cpu\":0,\"avx\":1,\"membound\":3,"
                                   "\"burst\":1,\"idle\":1}}"), "%s", buf);
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, processes_are_followed_by_pid_and_starttime)
{
    char *procfs = fake_procfs(2);
    write_pid(procfs, 50, "wattcal-avx", 5000, 0, 10); /* long-running: baseline */
    wc_sim_params p = exact_params();
    p.package_idle_watts = 0;
    wc_meter m;
    start(&m, procfs, &p);
    uint64_t a[5], b[5];
    snapshot(&m, a);
    /* 1 s of 100 ticks per CPU, both CPUs busy: pid 50 used 50 ticks since
     * the baseline, the new pid 60 (started since) 50 in all */
    write_stat(procfs, 200, 0, 2);
    write_pid(procfs, 50, "wattcal-avx", 5050, 0, 10);
    write_pid(procfs, 60, "wattcal-burst", 30, 20, 900);
    advance(&m, WC_NS_PER_S);
    snapshot(&m, b);
    double busy[WC_SIM_NCLASSES], other;
    class_busy(&m, busy, &other, NULL);
    cr_assert_float_eq(busy[WC_SIM_CLASS_AVX], 0.5, 1e-12);
    cr_assert_float_eq(busy[WC_SIM_CLASS_BURST], 0.5, 1e-12);
    cr_assert_float_eq(other, 1.0, 1e-12);
    /* package: 10 × (1.6 × 0.5 + 1 × 0.5 + 1) / 2 = 11.5 W */
    cr_assert_eq(b[0] - a[0], 11500000ull);

    /* pid 50 exits and its pid is reused by a new avx process with 40 ticks:
     * they count in full (not 40 − 5050) */
    write_stat(procfs, 240, 160, 2);
    write_pid(procfs, 50, "wattcal-avx", 40, 0, 1000);
    write_pid(procfs, 60, "wattcal-burst", 30, 20, 900); /* idle this second */
    advance(&m, WC_NS_PER_S);
    snapshot(&m, a);
    class_busy(&m, busy, &other, NULL);
    cr_assert_float_eq(busy[WC_SIM_CLASS_AVX], 0.4, 1e-12);
    cr_assert_float_eq(busy[WC_SIM_CLASS_BURST], 0.0, 1e-12);
    cr_assert_float_eq(other, 0.0, 1e-12);
    cr_assert_eq(a[0] - b[0], 3200000ull); /* 10 × 1.6 × 0.4 / 2 = 3.2 W */

    /* an empty /proc/stat interval keeps the model and skips the scan: the
     * ticks of the meantime go to the next interval */
    write_pid(procfs, 50, "wattcal-avx", 140, 0, 1000);
    advance(&m, WC_NS_PER_S);
    snapshot(&m, b);
    cr_assert_eq(b[0] - a[0], 3200000ull);
    write_stat(procfs, 340, 260, 2);
    advance(&m, WC_NS_PER_S);
    class_busy(&m, busy, &other, NULL);
    cr_assert_float_eq(busy[WC_SIM_CLASS_AVX], 1.0, 1e-12);
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, classified_time_never_exceeds_the_machine)
{
    char *procfs = fake_procfs(2);
    write_pid(procfs, 5, "wattcal-avx", 0, 0, 1);
    write_pid(procfs, 6, "wattcal-idle", 0, 0, 1);
    wc_sim_params p = exact_params();
    p.package_idle_watts = 0;
    p.class_factor[WC_SIM_CLASS_IDLE] = 0;
    wc_meter m;
    start(&m, procfs, &p);
    uint64_t a[5], b[5];
    snapshot(&m, a);
    /* the processes claim 4 CPU-seconds in 1 s of a 2-CPU machine (sampling
     * skew): scaled to 2 CPUs, 1 each; /proc/stat saw only 1 busy CPU */
    write_stat(procfs, 100, 100, 2);
    write_pid(procfs, 5, "wattcal-avx", 200, 0, 1);
    write_pid(procfs, 6, "wattcal-idle", 200, 0, 1);
    advance(&m, WC_NS_PER_S);
    snapshot(&m, b);
    double busy[WC_SIM_NCLASSES], other;
    class_busy(&m, busy, &other, NULL);
    cr_assert_float_eq(busy[WC_SIM_CLASS_AVX], 1.0, 1e-12);
    cr_assert_float_eq(busy[WC_SIM_CLASS_IDLE], 1.0, 1e-12);
    cr_assert_float_eq(other, 0.0, 1e-12, "never below 0");
    cr_assert_eq(b[0] - a[0], 8000000ull); /* 10 × 1.6 / 2 */
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, many_processes_and_junk_entries)
{
    char *procfs = fake_procfs(4);
    for (int pid = 1000; pid < 3000; pid++)
        write_pid(procfs, pid, pid % 500 == 0 ? "wattcal-cpu" : "kworker/0:1 (x)", 0, 0, 1);
    wc_test_write(procfs, "123abc/stat", "123 (wattcal-avx) R 1\n"); /* not a pid */
    wc_test_write(procfs, "77/stat", "77 (wattcal-avx) R 1 1\n");   /* truncated: skipped */
    wc_test_write(procfs, "self/stat", "1 (wattcal-avx) R\n");
    wc_sim_params p = exact_params();
    wc_meter m;
    start(&m, procfs, &p);
    write_stat(procfs, 400, 0, 4);
    for (int pid = 1000; pid < 3000; pid++)
        write_pid(procfs, pid, pid % 500 == 0 ? "wattcal-cpu" : "kworker/0:1 (x)",
                  pid % 500 == 0 ? 25 : 0, 0, 1);
    advance(&m, WC_NS_PER_S);
    double busy[WC_SIM_NCLASSES], other;
    size_t n;
    class_busy(&m, busy, &other, &n);
    cr_assert_eq(n, 4);
    cr_assert_float_eq(busy[WC_SIM_CLASS_CPU], 1.0, 1e-12);
    cr_assert_float_eq(busy[WC_SIM_CLASS_AVX], 0.0, 1e-12);
    cr_assert_float_eq(other, 3.0, 1e-12);
    /* a second advance reuses the tables */
    write_stat(procfs, 800, 0, 4);
    advance(&m, WC_NS_PER_S);
    class_busy(&m, busy, &other, &n);
    cr_assert_eq(n, 4);
    cr_assert_float_eq(busy[WC_SIM_CLASS_CPU], 0.0, 1e-12);
    cr_assert_float_eq(other, 4.0, 1e-12);
    wc_meter_close(&m);
    rm_tree(procfs);
    free(procfs);
}

Test(meter_sim, bad_class_factors_are_errors)
{
    char *procfs = fake_procfs(1);
    wc_meter m;
    wc_error err;
    err.msg[0] = '\0';
    wc_sim_params p = wc_sim_default_params();
    p.class_factor[WC_SIM_CLASS_AVX] = -1;
    cr_assert_eq(wc_meter_sim_init(&m, procfs, &p, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "avx"), "%s", err.msg);
    p = wc_sim_default_params();
    p.class_dram_factor[WC_SIM_CLASS_MEMBOUND] = NAN;
    cr_assert_eq(wc_meter_sim_init(&m, procfs, &p, &err), -EINVAL);
    cr_assert_not_null(strstr(err.msg, "membound"), "%s", err.msg);
    wc_meter rapl;
    cr_assert_eq(wc_meter_rapl_init(&rapl, "/nonexistent", &err), 0);
    cr_assert_eq(wc_meter_sim_class_busy(&rapl, NULL, NULL, NULL), -EINVAL);
    wc_meter_close(&rapl);
    rm_tree(procfs);
    free(procfs);
}
