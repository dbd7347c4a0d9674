/*
 * test_kepler_parts.c — the parts of a deployed Kepler the models gained in
 * issue 14: the terminated-workload trackers (attr_terminated.c;
 * terminated_resource_tracker.go) and the power-gauge zones of v0.11.4 and
 * main (attr_kepler.c; node.go), each against values worked out by hand from
 * Kepler's code on the ticks written here (the fixture is the tick table).
 *
 * The node: one package counter, 1 s ticks, /proc/stat half busy (ratio 0.5)
 * and 100 J per interval, so activeE = 50 J each interval.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "common/wc_clock.h"

#define MAXR UINT64_C(262143328850)
#define NP 4

static const char *const CX = "c0ffee00000000000000000000000000000000000000000000000000000000aa";
static const char *const CY = "c0ffee00000000000000000000000000000000000000000000000000000000bb";
static const char *const POD = "6f1e0c1a-0000-4000-8000-000000000001";
static const char *const POD2 = "6f1e0c1a-0000-4000-8000-000000000002";

/* One tick: time, cumulative busy/idle ticks, the package counter, processes. */
typedef struct tk {
    wc_attr_zone_in z[1];
    wc_attr_proc_in p[NP];
    size_t np;
    wc_attr_tick_in in;
} tk;

/* Tick k (k = 1, 2, ...): t = k s, user = idle = 50·k ticks, the
 * counter at 100 J·k. */
static void tick(tk *t, int k)
{
    memset(t, 0, sizeof *t);
    t->z[0] = (wc_attr_zone_in){.name = "package", .energy_uj = (uint64_t)k * 100000000,
                                .max_energy_range_uj = MAXR, .ok = 1};
    t->in.mono_ns = k * WC_NS_PER_S;
    t->in.boot_ns = (k + 1000) * WC_NS_PER_S;
    uint64_t b = (uint64_t)(50 * k);
    t->in.cpu = (wc_cpu_times){-1, b, 0, 0, b, 0, 0, 0, 0, 0, 0, 10};
    t->in.cpu_ok = 1;
    t->in.zones = t->z;
    t->in.nzones = 1;
}

static void add(tk *t, int32_t pid, uint64_t ticks, const char *cont, const char *pod)
{
    t->p[t->np++] = (wc_attr_proc_in){.pid = pid, .starttime = 100, .cpu_ticks = ticks,
                                      .container_id = cont, .pod_uid = pod};
    t->in.procs = t->p;
    t->in.nprocs = t->np;
}

static void run(wc_attrib *a, tk *t, wc_attr_out *out)
{
    wc_error err = {{0}};
    cr_assert_eq(wc_attrib_step(a, &t->in, out, &err), 0, "%s", err.msg);
}

/* The running process row of pid (zone 0). */
static const wc_attr_work_out *prow(const wc_attr_out *o, const tk *t, int32_t pid)
{
    for (size_t i = 0; i < o->nwork; i++)
        if (o->work[i].level == WC_LEVEL_PROCESS && t->p[o->work[i].proc_index].pid == pid)
            return &o->work[i];
    cr_assert_fail("no row for pid %d", (int)pid);
    return NULL;
}

/* Ticks 1–3: A (pid 10, container CX, pod POD) and C (pid 30) run in
 * interval 2 and are gone at tick 3; B (pid 20) runs on; E (pid 40, CY,
 * POD2) starts at tick 3 (a running pod there). Interval 2's CPU: A 0.5 s,
 * B 0.3 s, C 0.2 s (D = 1 s). Returns the running rows' totals of tick 2
 * (A, C, and container CX) through a2, c2, x2 and the tick-2 power of A. */
static void scenario(wc_attrib *a, wc_attr_out *o3, uint64_t *a2, uint64_t *c2, double *pa2)
{
    tk t1, t2, t3;
    wc_attr_out o;
    tick(&t1, 1);
    add(&t1, 10, 0, CX, POD), add(&t1, 20, 0, "", ""), add(&t1, 30, 0, "", "");
    run(a, &t1, &o);
    tick(&t2, 2);
    add(&t2, 10, 50, CX, POD), add(&t2, 20, 30, "", ""), add(&t2, 30, 20, "", "");
    run(a, &t2, &o);
    *a2 = prow(&o, &t2, 10)->total_uj;
    *c2 = prow(&o, &t2, 30)->total_uj;
    *pa2 = prow(&o, &t2, 10)->power_uw;
    tick(&t3, 3);
    add(&t3, 20, 80, "", ""), add(&t3, 40, 0, CY, POD2);
    run(a, &t3, o3);
}

/* The terminated row of a level and key (pid for processes), or NULL. */
static const wc_attr_term_out *trow(const wc_attr_out *o, wc_attr_level lv, int32_t pid,
                                    const char *key)
{
    for (size_t i = 0; i < o->nterm; i++) {
        const wc_attr_term_out *t = &o->term[i];
        if (t->level == lv && (lv == WC_LEVEL_PROCESS ? t->pid == pid : !strcmp(t->key, key)))
            return t;
    }
    return NULL;
}

/* kepler-main: interval 2 attributes with its own ratio: A 25 J, C 10 J,
 * CX 25 J, POD 25 J. At tick 3 A, CX and POD are exported once, frozen at
 * their tick-2 totals and powers (A 25 W); C's 10 J reaches the 10 J
 * threshold (only below it is dropped). Tick 4 clears them. */
Test(kepler_terminated, exported_once_with_the_last_total_and_power)
{
    wc_attrib *a = wc_attrib_new(WC_MODEL_KEPLER_MAIN);
    wc_attr_out o3, o4;
    uint64_t a2, c2;
    double pa2;
    scenario(a, &o3, &a2, &c2, &pa2);
    cr_assert_eq(a2, 25000000);
    cr_assert_eq(c2, 10000000);
    cr_assert_float_eq(pa2, 25e6, 1e-3);
    cr_assert_eq(o3.nterm, 4, "A, C, CX, POD: %zu", o3.nterm);
    const wc_attr_term_out *ta = trow(&o3, WC_LEVEL_PROCESS, 10, NULL);
    cr_assert_not_null(ta);
    cr_assert_eq(ta->total_uj, a2);
    cr_assert_float_eq(ta->power_uw, pa2, 0, "the last power, not 0");
    cr_assert_eq(ta->starttime, 100);
    cr_assert_eq(trow(&o3, WC_LEVEL_PROCESS, 30, NULL)->total_uj, 10000000);
    cr_assert_eq(trow(&o3, WC_LEVEL_CONTAINER, 0, CX)->total_uj, 25000000);
    cr_assert_eq(trow(&o3, WC_LEVEL_POD, 0, POD)->total_uj, 25000000);
    cr_assert_null(trow(&o3, WC_LEVEL_PROCESS, 20, NULL), "B still runs");
    tk t4;
    tick(&t4, 4);
    add(&t4, 20, 130, "", ""), add(&t4, 40, 0, CY, POD2);
    run(a, &t4, &o4);
    cr_assert_eq(o4.nterm, 0, "cleared after the export");
    wc_attrib_free(a);
}

/* minTerminatedEnergyThreshold and maxTerminated: 10.000001 J drops C
 * (10 J); one per kind keeps the largest process (A 25 J over C 10 J); 0
 * disables the trackers. */
Test(kepler_terminated, threshold_and_capacity)
{
    wc_attr_out o;
    uint64_t a2, c2;
    double pa2;
    wc_attrib *a = wc_attrib_new(WC_MODEL_KEPLER_MAIN);
    wc_attrib_set_terminated(a, 500, 10000001);
    scenario(a, &o, &a2, &c2, &pa2);
    cr_assert_null(trow(&o, WC_LEVEL_PROCESS, 30, NULL), "below the threshold");
    cr_assert_not_null(trow(&o, WC_LEVEL_PROCESS, 10, NULL));
    wc_attrib_free(a);

    a = wc_attrib_new(WC_MODEL_KEPLER_MAIN);
    wc_attrib_set_terminated(a, 1, 0);
    scenario(a, &o, &a2, &c2, &pa2);
    cr_assert_not_null(trow(&o, WC_LEVEL_PROCESS, 10, NULL), "the largest stays");
    cr_assert_null(trow(&o, WC_LEVEL_PROCESS, 30, NULL), "evicted: capacity 1");
    cr_assert_eq(o.nterm, 3, "one process, one container, one pod");
    wc_attrib_free(a);

    a = wc_attrib_new(WC_MODEL_KEPLER_MAIN);
    wc_attrib_set_terminated(a, 0, 0);
    scenario(a, &o, &a2, &c2, &pa2);
    cr_assert_eq(o.nterm, 0, "maxTerminated 0 disables");
    wc_attrib_free(a);
}

/* kepler-0.11 splits interval 2 with the ratio of interval 1 (0 on the
 * informer's first call): every total resets to 0, so at tick 3 nothing
 * reaches 10 J and nothing terminated is exported — short-lived work of
 * the second interval leaves no trace. The ideal model keeps no tracker. */
Test(kepler_terminated, released_order_and_ideal_export_none)
{
    wc_attr_out o;
    uint64_t a2, c2;
    double pa2;
    wc_attrib *a = wc_attrib_new(WC_MODEL_KEPLER_011);
    scenario(a, &o, &a2, &c2, &pa2);
    cr_assert_eq(a2, 0);
    cr_assert_eq(o.nterm, 0);
    wc_attrib_free(a);
    a = wc_attrib_new(WC_MODEL_IDEAL);
    scenario(a, &o, &a2, &c2, &pa2);
    cr_assert_eq(o.nterm, 0);
    wc_attrib_free(a);
}

/* With no running pod at tick 3 (pod.go returns early), the terminated pod
 * is not published; processes and containers are. */
Test(kepler_terminated, no_running_pod_publishes_no_terminated_pod)
{
    wc_attrib *a = wc_attrib_new(WC_MODEL_KEPLER_MAIN);
    tk t1, t2, t3;
    wc_attr_out o;
    tick(&t1, 1);
    add(&t1, 10, 0, CX, POD), add(&t1, 20, 0, "", "");
    run(a, &t1, &o);
    tick(&t2, 2);
    add(&t2, 10, 50, CX, POD), add(&t2, 20, 50, "", "");
    run(a, &t2, &o);
    tick(&t3, 3);
    add(&t3, 20, 100, "", "");
    run(a, &t3, &o);
    cr_assert_not_null(trow(&o, WC_LEVEL_PROCESS, 10, NULL));
    cr_assert_not_null(trow(&o, WC_LEVEL_CONTAINER, 0, CX));
    cr_assert_null(trow(&o, WC_LEVEL_POD, 0, POD));
    wc_attrib_free(a);
}

/* ---- power-gauge zones --------------------------------------------------- */

/* Node zone 0 of model m over three 1 s ticks of one zone z0 whose power
 * (gauge) or counter reading is v[k]; delta_uj[k] and flags[k] out. */
static void gauge_run(wc_model m, wc_attr_zone_in z0, const double v[3], uint64_t delta[3],
                      uint64_t counter[3], unsigned flags[3])
{
    wc_attrib *a = wc_attrib_new(m);
    for (int k = 0; k < 3; k++) {
        tk t;
        wc_attr_out o;
        tick(&t, k + 1);
        t.z[0] = z0;
        if (z0.gauge)
            t.z[0].power_uw = v[k];
        else
            t.z[0].energy_uj = (uint64_t)v[k];
        add(&t, 10, (uint64_t)(50 * k), "", "");
        run(a, &t, &o);
        delta[k] = o.node[0].delta_uj;
        counter[k] = o.node[0].counter_uj;
        flags[k] = o.node[0].flags;
    }
    wc_attrib_free(a);
}

/* An hwmon power sensor at 50 W then 80 W: v0.11.4 and main integrate the
 * current reading over the interval (ΔE = uint64(P × Δt), the counter starts
 * at 0), ideal the trapezoid of the two readings; v0.10 – v0.11.3 have no
 * hwmon meter: every refresh fails. */
Test(kepler_gauge, hwmon_power_zone_integrated_as_each_release_does)
{
    wc_attr_zone_in g = {.name = "package", .ok = 1, .gauge = 1};
    const double w[3] = {50e6, 50e6, 80e6};
    uint64_t d[3], c[3];
    unsigned f[3];
    gauge_run(WC_MODEL_KEPLER_011, g, w, d, c, f);
    cr_assert(d[1] == 50000000 && d[2] == 80000000, "%llu %llu", (unsigned long long)d[1],
              (unsigned long long)d[2]);
    cr_assert(c[0] == 0 && c[1] == 50000000 && c[2] == 130000000);
    cr_assert_eq(f[2] & (WC_AF_ZONE_MISSING | WC_AF_REFRESH_FAILED), 0);
    gauge_run(WC_MODEL_KEPLER_MAIN, g, w, d, c, f);
    cr_assert(d[1] == 50000000 && d[2] == 80000000);
    gauge_run(WC_MODEL_IDEAL, g, w, d, c, f);
    cr_assert(d[1] == 50000000 && d[2] == 65000000, "trapezoid: %llu",
              (unsigned long long)d[2]);
    gauge_run(WC_MODEL_KEPLER_010, g, w, d, c, f);
    for (int k = 0; k < 3; k++)
        cr_assert(d[k] == 0 && (f[k] & WC_AF_REFRESH_FAILED), "no hwmon before v0.11.4");
}

/* A counter zone reading 0 with range 0 (an energy-only zone at 0): from
 * v0.11.4 taken for a power gauge, which it is not (no Power()): the refresh
 * fails; v0.10 – v0.11.3 read it as a counter, ΔE 0. */
Test(kepler_gauge, zero_counter_without_range_is_a_gauge_only_from_v0_11_4)
{
    wc_attr_zone_in z = {.name = "package", .ok = 1};
    const double zero[3] = {0, 0, 0};
    uint64_t d[3], c[3];
    unsigned f[3];
    gauge_run(WC_MODEL_KEPLER_011, z, zero, d, c, f);
    cr_assert(f[2] & WC_AF_REFRESH_FAILED);
    gauge_run(WC_MODEL_KEPLER_010, z, zero, d, c, f);
    cr_assert_eq(f[2] & (WC_AF_REFRESH_FAILED | WC_AF_ZONE_MISSING), 0);
    cr_assert_eq(d[2], 0);
}
