/*
 * test_meter_sim_feed.c — the simulated node fed the sampler's scan
 * (wc_meter_sim_feed, issue 15: no second pass over /proc): over one fake
 * procfs, a node that scans by itself and a node fed a wc_proc_scanner's
 * snapshot and /proc/stat give the same counters and the same class split
 * at every step, also when a worker renames itself after exec (the class
 * follows the comm of the scan, not the first-seen one), when a process
 * exits and when a feed is skipped (the next advance scans by itself). A
 * feed to another meter is refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/meter/meter_sim.h"
#include "collector/procfs/proc_scan.h"
#include "collector/procfs/procstat.h"
#include "common/wc_clock.h"
#include "common/wc_fs.h"
#include "common/wc_tmptree.h"
#include "tests/unit/support/test_support.h"

static const char *const ENTRIES[5] = {"intel-rapl:0", "intel-rapl:0:0", "intel-rapl:1",
                                       "intel-rapl:1:0", "intel-rapl:2"};

/* <procfs>/stat with `busy` user and `idle` idle ticks over ncpus cpuN lines. */
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

/* <procfs>/<pid>/stat of a process named comm. */
static void write_pid(const char *procfs, int pid, const char *comm, uint64_t utime,
                      uint64_t stime, uint64_t start)
{
    char rel[64], text[512];
    snprintf(rel, sizeof rel, "%d/stat", pid);
    snprintf(text, sizeof text,
             "%d (%s) R 1 1 1 0 -1 4194304 0 0 0 0 %" PRIu64 " %" PRIu64
             " 0 0 20 0 1 0 %" PRIu64 " 1000000 100 18446744073709551615 0 0 0 0 0 0 0 0 0 0"
             " 0 0 17 0 0 0 0 0 0\n",
             pid, comm, utime, stime, start);
    wc_test_write(procfs, rel, text);
}

static void counters(const wc_meter *m, uint64_t out[5])
{
    for (int i = 0; i < 5; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/class/powercap/%s/energy_uj", wc_meter_sim_root(m),
                 ENTRIES[i]);
        wc_error err;
        cr_assert_eq(wc_read_u64(path, &out[i], &err), 0, "%s", err.msg);
    }
}

static void start(wc_meter *m, const char *procfs)
{
    wc_sim_params p = wc_sim_default_params(); /* with noise: the same seed, the same draws */
    p.max_energy_range_uj = 1000000000000000ull;
    wc_error err = {{0}};
    cr_assert_eq(wc_meter_sim_init(m, procfs, &p, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_meter_discover(m, &err), 0, "%s", err.msg);
}

/* One step: `own` advances by its own scan, `fed` by the scanner's (when feed). */
static void step(wc_meter *own, wc_meter *fed, wc_proc_scanner *sc, wc_proc_snapshot *snap,
                 const char *procfs, int feed)
{
    wc_error err = {{0}};
    cr_assert_eq(wc_meter_sim_advance(own, WC_NS_PER_S, &err), 0, "%s", err.msg);
    if (feed) {
        wc_procstat ps;
        memset(&ps, 0, sizeof ps);
        cr_assert_eq(wc_procstat_read(procfs, &ps, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_proc_scan(sc, snap, &err), 0, "%s", err.msg);
        cr_assert_eq(wc_meter_sim_feed(fed, snap, &ps.total, ps.ncpus), 0);
        wc_procstat_free(&ps);
    }
    cr_assert_eq(wc_meter_sim_advance(fed, WC_NS_PER_S, &err), 0, "%s", err.msg);
    uint64_t a[5], b[5];
    counters(own, a);
    counters(fed, b);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(a[i], b[i], "zone %s: own scan %" PRIu64 " µJ, fed %" PRIu64, ENTRIES[i],
                     a[i], b[i]);
    double ba[WC_SIM_NCLASSES], bb[WC_SIM_NCLASSES], oa, ob;
    size_t na, nb;
    cr_assert_eq(wc_meter_sim_class_busy(own, ba, &oa, &na), 0);
    cr_assert_eq(wc_meter_sim_class_busy(fed, bb, &ob, &nb), 0);
    cr_assert_eq(na, nb);
    cr_assert(oa == ob);
    for (int c = 0; c < WC_SIM_NCLASSES; c++)
        cr_assert(ba[c] == bb[c], "class %s: %g against %g", wc_sim_class_name(c), ba[c], bb[c]);
}

Test(meter_sim_feed, fed_scan_gives_the_own_scans_numbers)
{
    char *procfs = strdup(wc_test_tmpdir());
    write_stat(procfs, 0, 0, 4);
    write_pid(procfs, 101, "wattcal-avx", 0, 0, 5000);
    write_pid(procfs, 102, "wattcal-memboun", 0, 0, 5001);
    write_pid(procfs, 103, "bash", 0, 0, 5002);
    write_pid(procfs, 104, "exe", 0, 0, 5003); /* a worker before its prctl */
    wc_meter own, fed;
    start(&own, procfs);
    start(&fed, procfs);
    wc_error err = {{0}};
    wc_proc_scanner *sc = wc_proc_scanner_new(procfs, &err);
    cr_assert_not_null(sc, "%s", err.msg);
    wc_proc_snapshot snap = {0};
    cr_assert_eq(wc_proc_scan(sc, &snap, &err), 0); /* the sampler's first scan */

    write_stat(procfs, 150, 250, 4);
    write_pid(procfs, 101, "wattcal-avx", 60, 10, 5000);
    write_pid(procfs, 102, "wattcal-memboun", 30, 0, 5001);
    write_pid(procfs, 103, "bash", 20, 0, 5002);
    write_pid(procfs, 104, "wattcal-cpu", 25, 0, 5003); /* renamed itself */
    step(&own, &fed, sc, &snap, procfs, 1);
    double busy[WC_SIM_NCLASSES];
    cr_assert_eq(wc_meter_sim_class_busy(&fed, busy, NULL, NULL), 0);
    cr_assert_float_eq(busy[WC_SIM_CLASS_CPU], 0.25, 1e-12, "the renamed worker is cpu");
    cr_assert_float_eq(busy[WC_SIM_CLASS_AVX], 0.70, 1e-12);

    write_stat(procfs, 300, 500, 4); /* 102 exits; 105 starts */
    char path[1024];
    snprintf(path, sizeof path, "%s/102/stat", procfs);
    cr_assert_eq(unlink(path), 0);
    write_pid(procfs, 101, "wattcal-avx", 110, 20, 5000);
    write_pid(procfs, 105, "wattcal-burst", 40, 0, 5100);
    step(&own, &fed, sc, &snap, procfs, 1);

    write_stat(procfs, 420, 780, 4); /* no feed: the fed node scans by itself */
    write_pid(procfs, 105, "wattcal-burst", 90, 0, 5100);
    step(&own, &fed, sc, &snap, procfs, 0);

    wc_meter_close(&own);
    wc_meter_close(&fed);
    wc_proc_snapshot_free(&snap);
    wc_proc_scanner_free(sc);
    (void)wc_remove_tree(procfs);
    free(procfs);
}

Test(meter_sim_feed, other_meters_refuse_a_feed)
{
    wc_meter m;
    memset(&m, 0, sizeof m);
    wc_proc_snapshot snap = {0};
    cr_assert_eq(wc_meter_sim_feed(&m, &snap, NULL, 0), -EINVAL);
    cr_assert_eq(wc_meter_sim_feed(NULL, &snap, NULL, 0), -EINVAL);
}
