/*
 * test_attribution.c — the reference attribution models (collector/model/attr_*.c)
 * against hand-built tick sequences, every value exact.
 *
 * Expected numbers come from kepler-model.md (§4.5 worked example, §8 quirks
 * 9–13, §2.3 aggregation, §1.1 failed refresh) and were recomputed in float64
 * the way Kepler's Go code orders the arithmetic (Python floats, same IEEE
 * doubles): Kepler rows are compared bit for bit, including the ≈2^64 µJ of a
 * negative share. The ideal model is checked on the same inputs to show where
 * and by how much it departs.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "common/wc_clock.h"

#define MAXR UINT64_C(262143328850) /* max_energy_range_uj of a typical Intel package */
#define NMAX 8

static const char *const CX = "c0ffee00000000000000000000000000000000000000000000000000000000aa";
static const char *const POD = "6f1e0c1a-0000-4000-8000-000000000001";

/* ---- helpers ----------------------------------------------------------- */

/* One tick as a test writes it: seconds, /proc/stat ticks, zones, processes. */
typedef struct tk {
    int64_t t_s, boot_s;
    int64_t mono_ns; /* when non-zero, the monotonic time instead of t_s (boot 1000 s ahead) */
    uint64_t cpu[8]; /* user nice system idle iowait irq softirq steal */
    int cpu_ok;
    wc_attr_zone_in z[NMAX];
    size_t nz;
    wc_attr_proc_in p[NMAX];
    size_t np;
} tk;

static wc_attr_zone_in zone(const char *name, uint64_t e_uj, uint64_t max_uj, int ok)
{
    return (wc_attr_zone_in){.name = name, .energy_uj = e_uj, .max_energy_range_uj = max_uj,
                             .ok = ok};
}

static wc_attr_proc_in proc(int32_t pid, uint64_t start, uint64_t ticks, const char *cont,
                            const char *pod)
{
    return (wc_attr_proc_in){.pid = pid, .starttime = start, .cpu_ticks = ticks,
                             .container_id = cont, .pod_uid = pod};
}

/* A tick at t_s seconds (boot clock 1000 s ahead) with one package zone. */
static tk tick1z(int64_t t_s, const uint64_t cpu[8], uint64_t e_uj)
{
    tk k;
    memset(&k, 0, sizeof k);
    k.t_s = t_s;
    k.boot_s = t_s + 1000;
    memcpy(k.cpu, cpu, sizeof k.cpu);
    k.cpu_ok = 1;
    k.z[0] = zone("package", e_uj, MAXR, 1);
    k.nz = 1;
    return k;
}

static void add(tk *k, wc_attr_proc_in p)
{
    cr_assert_lt(k->np, (size_t)NMAX);
    k->p[k->np++] = p;
}

static wc_attr_tick_in tick_in(const tk *k)
{
    wc_attr_tick_in t;
    memset(&t, 0, sizeof t);
    t.mono_ns = k->t_s * WC_NS_PER_S;
    t.boot_ns = k->boot_s * WC_NS_PER_S;
    if (k->mono_ns) {
        t.mono_ns = k->mono_ns;
        t.boot_ns = k->mono_ns + 1000 * WC_NS_PER_S;
    }
    t.cpu = (wc_cpu_times){-1, k->cpu[0], k->cpu[1], k->cpu[2], k->cpu[3], k->cpu[4],
                           k->cpu[5], k->cpu[6], k->cpu[7], 0, 0, 10};
    t.cpu_ok = k->cpu_ok;
    t.zones = k->z;
    t.nzones = k->nz;
    t.procs = k->p;
    t.nprocs = k->np;
    return t;
}

static void step(wc_attrib *a, const tk *k, wc_attr_out *out)
{
    wc_error err = {{0}};
    wc_attr_tick_in t = tick_in(k);
    int rc = wc_attrib_step(a, &t, out, &err);
    cr_assert_eq(rc, 0, "step at %llds / %lldns failed: %s", (long long)k->t_s,
                 (long long)k->mono_ns, err.msg);
}

static int step_rc(wc_attrib *a, const tk *k, wc_attr_out *out)
{
    wc_error err = {{0}};
    wc_attr_tick_in t = tick_in(k);
    return wc_attrib_step(a, &t, out, &err);
}

static wc_attrib *engine(wc_model m)
{
    wc_attrib *a = wc_attrib_new(m);
    cr_assert_not_null(a);
    return a;
}

/* The process row of pid for zone z (the tick k that produced out). */
static const wc_attr_work_out *prow(const wc_attr_out *out, const tk *k, int32_t pid, size_t z)
{
    for (size_t i = 0; i < out->nwork; i++) {
        const wc_attr_work_out *w = &out->work[i];
        if (w->level == WC_LEVEL_PROCESS && w->zone == z && k->p[w->proc_index].pid == pid)
            return w;
    }
    cr_assert_fail("no process row for pid %d zone %zu", (int)pid, z);
    return NULL;
}

/* The container or pod row with that key for zone z. */
static const wc_attr_work_out *krow(const wc_attr_out *out, wc_attr_level lv, const char *key,
                                    size_t z)
{
    for (size_t i = 0; i < out->nwork; i++) {
        const wc_attr_work_out *w = &out->work[i];
        if (w->level == lv && w->zone == z && strcmp(w->key, key) == 0)
            return w;
    }
    cr_assert_fail("no level-%d row for %s zone %zu", (int)lv, key, z);
    return NULL;
}

static void expect_row(const wc_attr_work_out *w, uint64_t e_uj, uint64_t total_uj, double p_uw)
{
    cr_expect_eq(w->energy_uj, e_uj, "energy %llu, want %llu", (unsigned long long)w->energy_uj,
                 (unsigned long long)e_uj);
    cr_expect_eq(w->total_uj, total_uj, "total %llu, want %llu", (unsigned long long)w->total_uj,
                 (unsigned long long)total_uj);
    cr_expect(w->power_uw == p_uw, "power %.17g, want %.17g", w->power_uw, p_uw);
}

/* ---- 1: the worked example of §4.5 ------------------------------------- */

/* Two ticks 5.000 s apart; /proc/stat Δ 300/0/100/500/50/25/25/0 (r 0.45),
 * package 100 000 000 → 350 000 000 µJ; A, B (container CX in pod POD) and C
 * use 3.00, 1.00, 0.50 s. A third tick adds Δ 800/0/100/50/50/0/0/0 (r 0.9)
 * and 6.00, 2.00, 1.00 s. */
static const uint64_t EX_CPU1[8] = {10000, 0, 5000, 80000, 1000, 500, 500, 0};
static const uint64_t EX_CPU2[8] = {10300, 0, 5100, 80500, 1050, 525, 525, 0};
static const uint64_t EX_CPU3[8] = {11100, 0, 5200, 80550, 1100, 525, 525, 0};

static tk example_tick(int n)
{
    static const uint64_t *const cpu[3] = {EX_CPU1, EX_CPU2, EX_CPU3};
    static const uint64_t e_uj[3] = {100000000, 350000000, 600000000};
    static const uint64_t a[3] = {1000, 1300, 1900}, b[3] = {500, 600, 800}, c[3] = {200, 250, 350};
    tk k = tick1z(1 + 5 * (n - 1), cpu[n - 1], e_uj[n - 1]);
    add(&k, proc(100, 10, a[n - 1], CX, POD));
    add(&k, proc(101, 10, b[n - 1], CX, POD));
    add(&k, proc(102, 10, c[n - 1], "", ""));
    return k;
}

Test(attribution, worked_example_kepler_head)
{
    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    wc_attr_out out;
    tk t1 = example_tick(1), t2 = example_tick(2);

    step(a, &t1, &out);
    cr_assert_eq(out.nnode, 1);
    cr_expect_str_eq(out.node[0].zone, "package");
    cr_expect_eq(out.flags, WC_AF_FIRST);
    cr_expect_eq(out.node[0].delta_uj, 0);
    cr_expect_eq(out.node[0].counter_uj, 100000000);      /* raw counter, quirk 14 */
    cr_expect_eq(out.node[0].idle_total_uj, 100000000);   /* idle starts at the raw value */
    cr_expect_eq(out.node[0].active_total_uj, 0);
    cr_assert_eq(out.nwork, 5); /* 3 processes + 1 container + 1 pod, one zone */
    const wc_attr_work_out *w = prow(&out, &t1, 100, 0);
    cr_expect_eq(w->flags, WC_AF_FIRST | WC_AF_LIFETIME_DELTA);
    cr_expect(w->cpu_delta_s == 10.0);
    expect_row(w, 0, 0, 0.0);

    step(a, &t2, &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(out.flags, 0);
    cr_expect_eq(n->flags, 0);
    cr_expect_eq(n->delta_uj, 250000000);
    cr_expect(n->interval_s == 5.0);
    cr_expect(n->power_uw == 50000000.0);
    cr_expect(n->ratio == 0.45);
    cr_expect_eq(n->active_uj, 112500000);
    cr_expect_eq(n->idle_uj, 137500000);
    cr_expect(n->active_uw == 22500000.0);
    cr_expect(n->idle_uw == 27500000.0);
    cr_expect_eq(n->active_total_uj, 112500000);
    cr_expect_eq(n->idle_total_uj, 237500000);
    cr_expect_eq(n->counter_uj, 350000000);
    cr_expect(out.cpu_delta_sum_s == 4.5);
    cr_expect(out.node_busy_s == 4.5);
    expect_row(prow(&out, &t2, 100, 0), 75000000, 75000000, 15000000.0);
    expect_row(prow(&out, &t2, 101, 0), 25000000, 25000000, 5000000.0);
    expect_row(prow(&out, &t2, 102, 0), 12500000, 12500000, 2500000.0);
    cr_expect_eq(prow(&out, &t2, 102, 0)->flags, 0);
    w = krow(&out, WC_LEVEL_CONTAINER, CX, 0);
    cr_expect(w->cpu_delta_s == 4.0);
    expect_row(w, 100000000, 100000000, 20000000.0); /* trunc(4/4.5 × 112 500 000) */
    expect_row(krow(&out, WC_LEVEL_POD, POD, 0), 100000000, 100000000, 20000000.0);
    wc_attrib_free(a);
}

Test(attribution, worked_example_kepler_011_lags_the_ratio)
{
    wc_attrib *a = engine(WC_MODEL_KEPLER_011);
    wc_attr_out out;
    tk t1 = example_tick(1), t2 = example_tick(2), t3 = example_tick(3);
    step(a, &t1, &out);

    /* Tick 2 splits with the informer's first ratio: 0. */
    step(a, &t2, &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(n->delta_uj, 250000000);
    cr_expect(n->ratio == 0.0);
    cr_expect_eq(n->active_uj, 0);
    cr_expect_eq(n->idle_uj, 250000000);
    cr_expect_eq(n->flags, WC_AF_SKIPPED | WC_AF_TOTALS_RESET);
    const wc_attr_work_out *w = prow(&out, &t2, 100, 0);
    expect_row(w, 0, 0, 0.0);
    cr_expect(w->cpu_delta_s == 3.0);
    cr_expect_eq(w->flags, WC_AF_SKIPPED | WC_AF_TOTALS_RESET);
    expect_row(krow(&out, WC_LEVEL_CONTAINER, CX, 0), 0, 0, 0.0);

    /* Tick 3's interval has r 0.9, but the node uses 0.45 from tick 2. */
    step(a, &t3, &out);
    cr_expect(n->ratio == 0.45);
    cr_expect_eq(n->active_uj, 112500000);
    cr_expect(out.cpu_delta_sum_s == 9.0);
    cr_expect(out.node_busy_s == 9.0);
    expect_row(prow(&out, &t3, 100, 0), 75000000, 75000000, 15000000.0);
    expect_row(prow(&out, &t3, 101, 0), 25000000, 25000000, 5000000.0);
    expect_row(prow(&out, &t3, 102, 0), 12500000, 12500000, 2500000.0);
    expect_row(krow(&out, WC_LEVEL_CONTAINER, CX, 0), 100000000, 100000000, 20000000.0);
    wc_attrib_free(a);

    /* kepler-head on the same tick 3 uses its own ratio, 0.9. */
    a = engine(WC_MODEL_KEPLER_HEAD);
    step(a, &t1, &out);
    step(a, &t2, &out);
    step(a, &t3, &out);
    cr_expect(out.node[0].ratio == 0.9);
    cr_expect_eq(out.node[0].active_uj, 225000000);
    wc_attrib_free(a);
}

Test(attribution, worked_example_ideal_busy_equals_d)
{
    wc_attrib *a = engine(WC_MODEL_IDEAL);
    wc_attr_out out;
    tk t1 = example_tick(1), t2 = example_tick(2);
    step(a, &t1, &out);
    cr_expect_eq(out.flags, WC_AF_FIRST);
    cr_expect_eq(out.node[0].idle_total_uj, 0); /* ideal totals start at 0 */
    cr_expect_eq(prow(&out, &t1, 100, 0)->flags, WC_AF_FIRST);
    cr_expect(prow(&out, &t1, 100, 0)->cpu_delta_s == 0.0); /* a baseline, not a lifetime */

    step(a, &t2, &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(n->flags, 0);
    cr_expect_eq(n->delta_uj, 250000000);
    cr_expect(n->ratio == 0.45);
    cr_expect_eq(n->active_uj, 112500000);
    cr_expect_eq(n->idle_uj, 137500000);
    cr_expect(n->active_uw == 22500000.0);
    cr_expect(out.node_busy_s == 4.5);
    cr_expect(out.cpu_delta_sum_s == 4.5);
    expect_row(prow(&out, &t2, 100, 0), 75000000, 75000000, 15000000.0);
    expect_row(prow(&out, &t2, 101, 0), 25000000, 25000000, 5000000.0);
    expect_row(prow(&out, &t2, 102, 0), 12500000, 12500000, 2500000.0);
    expect_row(krow(&out, WC_LEVEL_CONTAINER, CX, 0), 100000000, 100000000, 20000000.0);
    expect_row(krow(&out, WC_LEVEL_POD, POD, 0), 100000000, 100000000, 20000000.0);
    cr_expect_eq(n->counter_uj, 250000000);
    cr_expect_eq(n->active_total_uj, 112500000);
    cr_expect_eq(n->idle_total_uj, 137500000);
    wc_attrib_free(a);
}

Test(attribution, worked_example_ideal_busy_above_d_keeps_the_rest_unattributed)
{
    /* Same processes, but /proc/stat says 5.5 s busy (user 400, idle 400):
     * r 0.55, activeE 137 500 000, shares over 5.5 s, 25 000 000 µJ left. */
    static const uint64_t cpu2[8] = {10400, 0, 5100, 80400, 1050, 525, 525, 0};
    wc_attrib *a = engine(WC_MODEL_IDEAL);
    wc_attr_out out;
    tk t1 = example_tick(1), t2 = example_tick(2);
    memcpy(t2.cpu, cpu2, sizeof cpu2);
    step(a, &t1, &out);
    step(a, &t2, &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect(n->ratio == 0.55);
    cr_expect_eq(n->active_uj, 137500000);
    cr_expect(out.node_busy_s == 5.5);
    cr_expect(out.cpu_delta_sum_s == 4.5);
    uint64_t sum = 0;
    static const int32_t pids[3] = {100, 101, 102};
    static const uint64_t want[3] = {75000000, 25000000, 12500000};
    for (int i = 0; i < 3; i++) {
        const wc_attr_work_out *w = prow(&out, &t2, pids[i], 0);
        cr_expect_eq(w->energy_uj, want[i]);
        sum += w->energy_uj;
    }
    cr_expect_eq(n->active_uj - sum, 25000000);
    cr_expect_float_eq(prow(&out, &t2, 100, 0)->power_uw, 15000000.0, 1e-6);
    expect_row(krow(&out, WC_LEVEL_CONTAINER, CX, 0), 100000000, 100000000,
               prow(&out, &t2, 100, 0)->power_uw + prow(&out, &t2, 101, 0)->power_uw);
    wc_attrib_free(a);
}

/* ---- 2: quirk 9, a counter decrease taken for a wrap -------------------- */

/* Package 150 000 000 → 200 000 000 → 100 000 → 50 100 000 µJ every 5 s;
 * r 0.5 every interval; pid 1 is the only busy process. */
static tk wrap_tick(int n)
{
    static const uint64_t e_uj[4] = {150000000, 200000000, 100000, 50100000};
    uint64_t cpu[8] = {1000 + 250 * (uint64_t)(n - 1), 0, 0, 1000 + 250 * (uint64_t)(n - 1),
                       0, 0, 0, 0};
    tk k = tick1z(1 + 5 * (n - 1), cpu, e_uj[n - 1]);
    add(&k, proc(1, 1, 500 + 250 * (uint64_t)(n - 1), "", ""));
    return k;
}

Test(attribution, quirk9_wrap_spike_kepler_vs_ideal)
{
    static const wc_model models[2] = {WC_MODEL_KEPLER_HEAD, WC_MODEL_KEPLER_011};
    /* Tick 2 total under HEAD 25 000 000; 0.11 skipped tick 2 (r 0). */
    static const uint64_t prev_total[2] = {25000000, 0};
    tk t[4] = {wrap_tick(1), wrap_tick(2), wrap_tick(3), wrap_tick(4)};
    wc_attr_out out;
    for (int m = 0; m < 2; m++) {
        wc_attrib *a = engine(models[m]);
        step(a, &t[0], &out);
        step(a, &t[1], &out);
        step(a, &t[2], &out);
        const wc_attr_node_out *n = &out.node[0];
        cr_expect_eq(n->delta_uj, UINT64_C(261943428850), "%s", wc_model_name(models[m]));
        cr_expect(n->flags & WC_AF_WRAP);
        cr_expect(n->power_uw == 52388685770.0); /* ≈52 kW */
        cr_expect(n->ratio == 0.5);
        cr_expect_eq(n->active_uj, UINT64_C(130971714425));
        expect_row(prow(&out, &t[2], 1, 0), UINT64_C(130971714425),
                   prev_total[m] + UINT64_C(130971714425), 26194342885.0);
        step(a, &t[3], &out);
        cr_expect_eq(n->delta_uj, 50000000);
        cr_expect_eq(n->flags & WC_AF_WRAP, 0);
        wc_attrib_free(a);
    }

    wc_attrib *a = engine(WC_MODEL_IDEAL);
    step(a, &t[0], &out);
    step(a, &t[1], &out);
    expect_row(prow(&out, &t[1], 1, 0), 25000000, 25000000, 5000000.0);
    step(a, &t[2], &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(n->flags, WC_AF_UNMEASURABLE | WC_AF_ZONE_MISSING);
    cr_expect_eq(n->delta_uj, 0);
    cr_expect_eq(n->active_uj, 0);
    cr_expect(n->power_uw == 0.0);
    const wc_attr_work_out *w = prow(&out, &t[2], 1, 0);
    expect_row(w, 0, 25000000, 0.0); /* no energy, total kept */
    cr_expect(w->flags & WC_AF_UNMEASURABLE);
    step(a, &t[3], &out); /* baseline moved to 100 000: a normal interval */
    cr_expect_eq(n->flags, 0);
    cr_expect_eq(n->delta_uj, 50000000);
    expect_row(prow(&out, &t[3], 1, 0), 25000000, 50000000, 5000000.0);
    cr_expect_eq(n->counter_uj, 100000000);
    wc_attrib_free(a);
}

/* ---- 3: quirk 10, PID reuse ---------------------------------------------- */

/* 64 CPUs (32 000 ticks per 5 s), +1 000 000 000 µJ per interval. Tick 1:
 * pid 4242 (started 50 s after boot) has 90 s of CPU. Tick 2: 100 s (Δ 10),
 * pid 1 Δ 100 s. Tick 3: pid 4242 is a new process started 1007 s after
 * boot, after tick 2 (boot clock 1006 s), with 0.01 s; pid 1 Δ 200 s. */
static tk reuse_tick(int n)
{
    static const uint64_t cpu[3][8] = {{100000, 0, 0, 500000, 0, 0, 0, 0},
                                       {111000, 0, 0, 521000, 0, 0, 0, 0},
                                       {131001, 0, 0, 532999, 0, 0, 0, 0}};
    static const uint64_t p1[3] = {0, 10000, 30000};
    tk k = tick1z(1 + 5 * (n - 1), cpu[n - 1], 5000000000 + 1000000000 * (uint64_t)(n - 1));
    add(&k, proc(1, 100, p1[n - 1], "", ""));
    if (n < 3)
        add(&k, proc(4242, 5000, n == 1 ? 9000 : 10000, "", ""));
    else
        add(&k, proc(4242, 100700, 1, "", ""));
    return k;
}

Test(attribution, quirk10_pid_reuse_kepler_negative_share)
{
    tk t[3] = {reuse_tick(1), reuse_tick(2), reuse_tick(3)};
    wc_attr_out out;

    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    step(a, &t[0], &out);
    step(a, &t[1], &out);
    expect_row(prow(&out, &t[1], 4242, 0), 31250000, 31250000, 6250000.0);
    step(a, &t[2], &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect(n->ratio == 0.6250312500000004); /* 0.62503125 through Kepler's /100 floats */
    cr_expect_eq(n->active_uj, 625031250);
    cr_expect(out.cpu_delta_sum_s == 100.01);
    const wc_attr_work_out *w = prow(&out, &t[2], 4242, 0);
    cr_expect(w->cpu_delta_s == 0.01 - 100.0);
    cr_expect(w->flags & WC_AF_NEGATIVE_SHARE);
    /* uint64(trunc(−99.99/100.01 × 625 031 250)) = 2^64 − 624 906 256 */
    expect_row(w, UINT64_C(18446744073084645360), UINT64_C(18446744073115895360),
               -124981251.24987507);
    expect_row(prow(&out, &t[2], 1, 0), 1249937506, 312500000 + UINT64_C(1249937506),
               249987501.24987516);
    wc_attrib_free(a);

    a = engine(WC_MODEL_KEPLER_011);
    step(a, &t[0], &out);
    step(a, &t[1], &out);
    step(a, &t[2], &out);
    cr_expect(out.node[0].ratio == 0.34375);
    w = prow(&out, &t[2], 4242, 0);
    expect_row(w, UINT64_C(18446744073365870360), UINT64_C(18446744073365870360),
               -68736251.3748625);
    cr_expect(w->flags & WC_AF_NEGATIVE_SHARE);
    wc_attrib_free(a);
}

Test(attribution, quirk10_pid_reuse_ideal_new_identity)
{
    tk t[3] = {reuse_tick(1), reuse_tick(2), reuse_tick(3)};
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_IDEAL);
    step(a, &t[0], &out);
    step(a, &t[1], &out);
    expect_row(prow(&out, &t[1], 4242, 0), 31250000, 31250000, 6250000.0);
    step(a, &t[2], &out);
    cr_expect(out.node[0].ratio == 0.62503125);
    cr_expect_eq(out.node[0].active_uj, 625031250);
    cr_expect(out.cpu_delta_sum_s == 200.01);
    const wc_attr_work_out *w = prow(&out, &t[2], 4242, 0);
    cr_expect(w->cpu_delta_s == 0.01);
    cr_expect_eq(w->flags, 0);
    cr_expect_eq(w->energy_uj, 31250); /* 1/20 001 of the active energy */
    cr_expect_eq(w->total_uj, 31250);  /* a new identity starts at 0 */
    cr_expect_gt(w->power_uw, 0.0);
    cr_expect_eq(prow(&out, &t[2], 1, 0)->energy_uj, 625000000);
    wc_attrib_free(a);
}

/* ---- 4: quirk 11, lifetime first Δ ---------------------------------------- */

/* 8 CPUs, +400 000 000 µJ per 5 s. pid 1 uses 4 s per interval. At tick 3
 * pid 77 (running since 1 s after boot, 50 s of CPU) and pid 78 (started at
 * 1007 s, after tick 2 at 1006 s, 1 s of CPU) appear; /proc/stat busy 7 s. */
static tk lifetime_tick(int n)
{
    static const uint64_t cpu[3][8] = {{1000, 0, 0, 9000, 0, 0, 0, 0},
                                       {1400, 0, 0, 12600, 0, 0, 0, 0},
                                       {2100, 0, 0, 15900, 0, 0, 0, 0}};
    tk k = tick1z(1 + 5 * (n - 1), cpu[n - 1], 1000000000 + 400000000 * (uint64_t)(n - 1));
    add(&k, proc(1, 100, 400 * (uint64_t)n, "", ""));
    if (n == 3) {
        add(&k, proc(77, 100, 5000, "", ""));
        add(&k, proc(78, 100700, 100, "", ""));
    }
    return k;
}

Test(attribution, quirk11_lifetime_first_delta)
{
    tk t[3] = {lifetime_tick(1), lifetime_tick(2), lifetime_tick(3)};
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    for (int i = 0; i < 3; i++)
        step(a, &t[i], &out);
    cr_expect(out.node[0].ratio == 0.175);
    cr_expect_eq(out.node[0].active_uj, 70000000);
    cr_expect(out.cpu_delta_sum_s == 55.0);
    const wc_attr_work_out *w = prow(&out, &t[2], 77, 0);
    cr_expect(w->cpu_delta_s == 50.0);
    cr_expect_eq(w->flags, WC_AF_LIFETIME_DELTA);
    expect_row(w, 63636363, 63636363, 12727272.727272727); /* 50/55 of the active energy */
    expect_row(prow(&out, &t[2], 78, 0), 1272727, 1272727, 254545.45454545453);
    expect_row(prow(&out, &t[2], 1, 0), 5090909, 40000000 + 5090909, 1018181.8181818181);
    cr_expect_eq(prow(&out, &t[2], 1, 0)->flags, 0);
    wc_attrib_free(a);

    a = engine(WC_MODEL_IDEAL);
    for (int i = 0; i < 3; i++)
        step(a, &t[i], &out);
    cr_expect(out.cpu_delta_sum_s == 5.0);
    cr_expect(out.node_busy_s == 7.0);
    expect_row(prow(&out, &t[2], 77, 0), 0, 0, 0.0); /* started before tick 2: Δ 0 */
    cr_expect(prow(&out, &t[2], 77, 0)->cpu_delta_s == 0.0);
    cr_expect_eq(prow(&out, &t[2], 78, 0)->energy_uj, 10000000); /* its real 1 s of 7 */
    cr_expect(prow(&out, &t[2], 78, 0)->cpu_delta_s == 1.0);
    cr_expect_eq(prow(&out, &t[2], 1, 0)->energy_uj, 40000000);
    wc_attrib_free(a);
}

/* ---- 5: quirk 12, a process gone before the scan -------------------------- */

Test(attribution, quirk12_dead_process_share_goes_to_survivors)
{
    /* The worked example, but C (0.50 s of the 4.50 busy) exits before the
     * tick-2 scan. */
    tk t1 = example_tick(1), t2 = example_tick(2);
    t2.np = 2;
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    step(a, &t1, &out);
    step(a, &t2, &out);
    cr_expect(out.cpu_delta_sum_s == 4.0);
    expect_row(prow(&out, &t2, 100, 0), 84375000, 84375000, 16875000.0);
    expect_row(prow(&out, &t2, 101, 0), 28125000, 28125000, 5625000.0);
    cr_expect_eq(84375000 + 28125000, out.node[0].active_uj); /* 100 % to survivors */
    wc_attrib_free(a);

    a = engine(WC_MODEL_IDEAL);
    step(a, &t1, &out);
    step(a, &t2, &out);
    uint64_t sum = prow(&out, &t2, 100, 0)->energy_uj + prow(&out, &t2, 101, 0)->energy_uj;
    cr_expect_eq(prow(&out, &t2, 100, 0)->energy_uj, 75000000);
    cr_expect_eq(prow(&out, &t2, 101, 0)->energy_uj, 25000000);
    cr_expect_eq(out.node[0].active_uj - sum, 12500000); /* C's 0.5/4.5 stays unattributed */
    wc_attrib_free(a);
}

/* ---- 6: quirk 13, an all-idle interval resets every total ----------------- */

/* +100 000 000 µJ per 5 s; pid 1 alone busy; /proc/stat r 0.5, then an
 * interval with only idle time (r 0), then r 0.5 again. */
static tk idle_tick(int n)
{
    static const uint64_t cpu[4][8] = {{1000, 0, 0, 1000, 0, 0, 0, 0},
                                       {1250, 0, 0, 1250, 0, 0, 0, 0},
                                       {1250, 0, 0, 1750, 0, 0, 0, 0},
                                       {1500, 0, 0, 2000, 0, 0, 0, 0}};
    static const uint64_t p1[4] = {500, 750, 760, 1010};
    tk k = tick1z(1 + 5 * (n - 1), cpu[n - 1], 100000000 * (uint64_t)n);
    add(&k, proc(1, 1, p1[n - 1], CX, POD));
    return k;
}

Test(attribution, quirk13_idle_interval_resets_totals)
{
    tk t[4] = {idle_tick(1), idle_tick(2), idle_tick(3), idle_tick(4)};
    wc_attr_out out;
    /* HEAD: the idle interval is tick 3. */
    static const uint64_t head_tot[3] = {50000000, 0, 50000000};
    /* 0.11: ratios lag, so tick 2 is skipped, tick 3 normal, tick 4 reset. */
    static const uint64_t k011_tot[3] = {0, 50000000, 0};
    static const wc_model models[2] = {WC_MODEL_KEPLER_HEAD, WC_MODEL_KEPLER_011};
    const uint64_t *want[2] = {head_tot, k011_tot};
    for (int m = 0; m < 2; m++) {
        wc_attrib *a = engine(models[m]);
        step(a, &t[0], &out);
        for (int i = 1; i < 4; i++) {
            step(a, &t[i], &out);
            const wc_attr_work_out *w = prow(&out, &t[i], 1, 0);
            cr_expect_eq(w->total_uj, want[m][i - 1], "%s tick %d: total %llu",
                         wc_model_name(models[m]), i + 1, (unsigned long long)w->total_uj);
            cr_expect_eq(krow(&out, WC_LEVEL_POD, POD, 0)->total_uj, want[m][i - 1]);
            unsigned reset = want[m][i - 1] == 0 ? WC_AF_SKIPPED | WC_AF_TOTALS_RESET : 0;
            cr_expect_eq(w->flags, reset);
            cr_expect_eq(out.node[0].flags, reset);
        }
        wc_attrib_free(a);
    }

    wc_attrib *a = engine(WC_MODEL_IDEAL);
    static const uint64_t ideal_tot[3] = {50000000, 50000000, 100000000};
    step(a, &t[0], &out);
    for (int i = 1; i < 4; i++) {
        step(a, &t[i], &out);
        const wc_attr_work_out *w = prow(&out, &t[i], 1, 0);
        cr_expect_eq(w->total_uj, ideal_tot[i - 1], "ideal tick %d", i + 1);
        cr_expect_eq(krow(&out, WC_LEVEL_CONTAINER, CX, 0)->total_uj, ideal_tot[i - 1]);
        cr_expect_eq(w->flags & WC_AF_TOTALS_RESET, 0);
    }
    wc_attrib_free(a);
}

/* ---- 7: two sockets of one zone name --------------------------------------- */

/* package-0 and package-1 every 5 s: socket 1 wraps plausibly at tick 2 (Δ
 * 43 328 850 + 56 671 150), then drops implausibly at tick 3 (quirk 9 on one
 * socket). r 0.5; pid 1 alone busy. */
static tk socket_tick(int n)
{
    static const uint64_t s0[3] = {1000000000, 1100000000, 1200000000};
    static const uint64_t s1[3] = {262100000000, 56671150, 100000};
    uint64_t cpu[8] = {1000 + 250 * (uint64_t)(n - 1), 0, 0, 1000 + 250 * (uint64_t)(n - 1),
                       0, 0, 0, 0};
    tk k = tick1z(1 + 5 * (n - 1), cpu, s0[n - 1]);
    k.z[1] = zone("package", s1[n - 1], MAXR, 1);
    k.nz = 2;
    add(&k, proc(1, 1, 500 + 250 * (uint64_t)(n - 1), "", ""));
    return k;
}

Test(attribution, aggregated_sockets_wrap_per_socket)
{
    tk t[3] = {socket_tick(1), socket_tick(2), socket_tick(3)};
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    step(a, &t[0], &out);
    cr_assert_eq(out.nnode, 1);
    cr_expect_eq(out.node[0].counter_uj, UINT64_C(263100000000)); /* Σ raw mod Σmax */
    step(a, &t[1], &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(n->delta_uj, 200000000);
    cr_expect(n->flags & WC_AF_WRAP);
    cr_expect_eq(n->counter_uj, UINT64_C(263300000000));
    cr_expect_eq(n->active_uj, 100000000);
    expect_row(prow(&out, &t[1], 1, 0), 100000000, 100000000, 20000000.0);
    step(a, &t[2], &out); /* socket 1 "wraps" by 262 086 757 700 µJ */
    cr_expect_eq(n->delta_uj, UINT64_C(262186757700));
    cr_expect_eq(n->counter_uj, UINT64_C(1200100000)); /* aggregate wrapped at Σmax */
    cr_expect_eq(n->active_uj, UINT64_C(131093378850));
    wc_attrib_free(a);

    a = engine(WC_MODEL_IDEAL);
    step(a, &t[0], &out);
    step(a, &t[1], &out);
    n = &out.node[0];
    cr_expect_eq(n->delta_uj, 200000000);
    cr_expect_eq(n->flags, WC_AF_WRAP);
    expect_row(prow(&out, &t[1], 1, 0), 100000000, 100000000, 20000000.0);
    step(a, &t[2], &out);
    cr_expect_eq(n->flags, WC_AF_UNMEASURABLE | WC_AF_ZONE_MISSING);
    cr_expect_eq(n->delta_uj, 100000000); /* socket 0 only */
    /* issue 14 item 6: the partial ΔE is still split (r 0.5), so every joule
     * is idle or (not attributed) active: the gap identity holds */
    cr_expect_eq(n->active_uj, 50000000);
    cr_expect_eq(n->idle_uj, 50000000);
    expect_row(prow(&out, &t[2], 1, 0), 0, 100000000, 0.0);
    wc_attrib_free(a);
}

/* ---- 8: a failed refresh ------------------------------------------------------ */

/* Ticks every 5 s; tick 3's package read fails. A and B use 1/1, 3/1, 1/3 s;
 * /proc/stat r 0.2, 0.4, 0.4. */
static tk fail_tick(int n)
{
    static const uint64_t cpu[4][8] = {{1000, 0, 0, 1000, 0, 0, 0, 0},
                                       {1200, 0, 0, 1800, 0, 0, 0, 0},
                                       {1600, 0, 0, 2400, 0, 0, 0, 0},
                                       {2000, 0, 0, 3000, 0, 0, 0, 0}};
    static const uint64_t pa[4] = {1000, 1100, 1400, 1500}, pb[4] = {1000, 1100, 1200, 1500};
    tk k = tick1z(1 + 5 * (n - 1), cpu[n - 1], 100000000 * (uint64_t)n);
    k.z[0].ok = n != 3;
    add(&k, proc(10, 1, pa[n - 1], "", ""));
    add(&k, proc(11, 1, pb[n - 1], "", ""));
    return k;
}

Test(attribution, refresh_failure_discards_the_tick)
{
    tk t[4] = {fail_tick(1), fail_tick(2), fail_tick(3), fail_tick(4)};
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    step(a, &t[0], &out);
    step(a, &t[1], &out);
    expect_row(prow(&out, &t[1], 10, 0), 10000000, 10000000, 2000000.0);
    step(a, &t[2], &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(out.flags, WC_AF_REFRESH_FAILED);
    cr_expect_eq(n->flags, WC_AF_REFRESH_FAILED | WC_AF_ZONE_MISSING);
    cr_expect_eq(out.nwork, 0);
    cr_expect_eq(n->delta_uj, 0);
    cr_expect_eq(n->counter_uj, 200000000); /* the kept snapshot */
    cr_expect_eq(n->active_total_uj, 20000000);
    /* HEAD refreshed the informer before the node failed: CPU Δ since tick
     * 3, energy since tick 2. */
    step(a, &t[3], &out);
    cr_expect_eq(n->flags, 0);
    cr_expect_eq(n->delta_uj, 200000000);
    cr_expect(n->interval_s == 10.0);
    cr_expect(n->power_uw == 20000000.0);
    cr_expect(n->ratio == 0.4);
    cr_expect_eq(n->active_uj, 80000000);
    cr_expect(out.cpu_delta_sum_s == 4.0);
    expect_row(prow(&out, &t[3], 10, 0), 20000000, 30000000, 2000000.0);
    expect_row(prow(&out, &t[3], 11, 0), 60000000, 70000000, 6000000.0);
    wc_attrib_free(a);

    /* 0.11 failed before its informer refresh: CPU Δ and energy both since
     * tick 2, split with tick 2's ratio 0.2; tick 2 itself was skipped. */
    a = engine(WC_MODEL_KEPLER_011);
    for (int i = 0; i < 4; i++)
        step(a, &t[i], &out);
    n = &out.node[0];
    cr_expect_eq(n->delta_uj, 200000000);
    cr_expect(n->ratio == 0.2);
    cr_expect_eq(n->active_uj, 40000000);
    cr_expect(out.cpu_delta_sum_s == 8.0);
    expect_row(prow(&out, &t[3], 10, 0), 20000000, 20000000, 2000000.0);
    expect_row(prow(&out, &t[3], 11, 0), 20000000, 20000000, 2000000.0);
    wc_attrib_free(a);

    /* ideal, transient failure: tick 3 attributes nothing; the socket keeps
     * tick 2's reading, so tick 4's ΔE spans ticks 2–4 (10 s, P over 10 s),
     * split and shared with tick 4's own interval (r 0.4, Δ 1 and 3 s). */
    a = engine(WC_MODEL_IDEAL);
    for (int i = 0; i < 3; i++)
        step(a, &t[i], &out);
    n = &out.node[0];
    cr_expect_eq(n->flags, WC_AF_UNMEASURABLE | WC_AF_ZONE_MISSING);
    cr_expect_eq(out.nwork, 2);
    expect_row(prow(&out, &t[2], 10, 0), 0, 10000000, 0.0);
    step(a, &t[3], &out);
    cr_expect_eq(n->flags, 0);
    cr_expect_eq(n->delta_uj, 200000000);
    cr_expect(n->interval_s == 10.0);
    cr_expect(n->power_uw == 20000000.0);
    cr_expect(n->ratio == 0.4);
    cr_expect_eq(n->active_uj, 80000000);
    cr_expect_eq(n->idle_uj, 120000000);
    cr_expect_eq(n->counter_uj, 300000000);
    expect_row(prow(&out, &t[3], 10, 0), 20000000, 30000000, 2000000.0);
    expect_row(prow(&out, &t[3], 11, 0), 60000000, 70000000, 6000000.0);
    wc_attrib_free(a);

    /* ideal, zone vanished (ENOENT): the baseline is lost, tick 4 re-baselines. */
    t[2].z[0].vanished = 1;
    a = engine(WC_MODEL_IDEAL);
    for (int i = 0; i < 4; i++)
        step(a, &t[i], &out);
    n = &out.node[0];
    cr_expect_eq(n->flags, WC_AF_UNMEASURABLE | WC_AF_ZONE_MISSING);
    cr_expect_eq(n->delta_uj, 0);
    cr_expect_eq(n->counter_uj, 100000000);
    wc_attrib_free(a);
}

Test(attribution, unreadable_proc_stat)
{
    tk t[4] = {fail_tick(1), fail_tick(2), fail_tick(3), fail_tick(4)};
    t[2].z[0].ok = 1;
    t[2].cpu_ok = 0;
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    for (int i = 0; i < 3; i++)
        step(a, &t[i], &out);
    cr_expect_eq(out.flags, WC_AF_REFRESH_FAILED | WC_AF_CPU_MISSING);
    cr_expect_eq(out.nwork, 0);
    /* The process cache moved at tick 3, the /proc/stat baseline did not. */
    step(a, &t[3], &out);
    cr_expect_eq(out.node[0].delta_uj, 200000000);
    cr_expect(out.node[0].ratio == 0.4);
    cr_expect(out.cpu_delta_sum_s == 4.0);
    wc_attrib_free(a);

    /* ideal: tick 3 ignored, tick 4 spans both intervals for everything. */
    a = engine(WC_MODEL_IDEAL);
    for (int i = 0; i < 3; i++)
        step(a, &t[i], &out);
    cr_expect_eq(out.flags, WC_AF_CPU_MISSING);
    cr_expect_eq(out.nwork, 0);
    step(a, &t[3], &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(n->flags, 0);
    cr_expect_eq(n->delta_uj, 200000000);
    cr_expect(n->interval_s == 10.0);
    cr_expect(n->ratio == 0.4);
    cr_expect(out.cpu_delta_sum_s == 8.0);
    cr_expect(out.node_busy_s == 8.0);
    expect_row(prow(&out, &t[3], 10, 0), 40000000, 50000000, 4000000.0);
    expect_row(prow(&out, &t[3], 11, 0), 40000000, 50000000, 4000000.0);
    wc_attrib_free(a);
}

/* ---- /proc/stat going backwards -------------------------------------------- */

/* Ticks 1 s apart, package +1 000 000 µJ each; pid 1 uses 1 s per interval.
 * Interval 1→2: user 20000 → 19000, idle 10000 → 10500 ticks, so Kepler's
 * total = −10 + 5 = −5 s and active = −5 − 5 = −10 s: r = 2 exactly.
 * Interval 2→3: user +100, idle +100: r 0.5. */
static tk backwards_tick(int n, const uint64_t cpu2[8])
{
    static const uint64_t cpu1[8] = {20000, 0, 0, 10000, 0, 0, 0, 0};
    static const uint64_t cpu3[8] = {19100, 0, 0, 10600, 0, 0, 0, 0};
    const uint64_t *cpu[3] = {cpu1, cpu2, cpu3};
    tk k = tick1z(n, cpu[n - 1], 4000000 + 1000000 * (uint64_t)n);
    add(&k, proc(1, 1, 100 * (uint64_t)n, "", ""));
    return k;
}

Test(attribution, kepler_ratio_outside_unit_interval_is_flagged)
{
    static const uint64_t up2[8] = {19000, 0, 0, 10500, 0, 0, 0, 0};      /* r = 2 */
    const uint64_t two64_minus_1e6 = UINT64_C(18446744073708551616);       /* 2^64 − 10^6 */
    tk t[3] = {backwards_tick(1, up2), backwards_tick(2, up2), backwards_tick(3, up2)};
    wc_attr_out out;

    /* HEAD splits interval 1→2 with its own r = 2: activeE = 2 ΔE, idleE
     * = ΔE − 2 ΔE underflows; Kepler's numbers kept, flagged. */
    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    step(a, &t[0], &out);
    cr_expect_eq(out.node[0].flags, WC_AF_FIRST);
    step(a, &t[1], &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(n->flags, WC_AF_RATIO_RANGE);
    cr_expect(n->ratio == 2.0);
    cr_expect_eq(n->delta_uj, 1000000);
    cr_expect_eq(n->active_uj, 2000000);
    cr_expect_eq(n->idle_uj, two64_minus_1e6);
    cr_expect(n->power_uw == 1000000.0);
    cr_expect(n->active_uw == 2000000.0);
    cr_expect(n->idle_uw == -1000000.0);
    cr_expect_eq(n->active_total_uj, 2000000);
    cr_expect_eq(n->idle_total_uj, 4000000); /* 5 000 000 + (2^64 − 10^6) mod 2^64 */
    cr_expect_eq(prow(&out, &t[1], 1, 0)->flags, 0); /* node only */
    expect_row(prow(&out, &t[1], 1, 0), 2000000, 2000000, 2000000.0);
    step(a, &t[2], &out);
    cr_expect_eq(n->flags, 0);
    cr_expect(n->ratio == 0.5);
    wc_attrib_free(a);

    /* 0.11 uses interval 1→2's ratio one tick later. */
    a = engine(WC_MODEL_KEPLER_011);
    step(a, &t[0], &out);
    step(a, &t[1], &out);
    n = &out.node[0];
    cr_expect_eq(n->flags, WC_AF_SKIPPED | WC_AF_TOTALS_RESET); /* r 0 */
    step(a, &t[2], &out);
    cr_expect_eq(n->flags, WC_AF_RATIO_RANGE);
    cr_expect(n->ratio == 2.0);
    cr_expect_eq(n->active_uj, 2000000);
    cr_expect_eq(n->idle_uj, two64_minus_1e6);
    cr_expect_eq(n->idle_total_uj, 5000000); /* 6 000 000 + (2^64 − 10^6) mod 2^64 */
    wc_attrib_free(a);
}

Test(attribution, kepler_negative_ratio_wraps_active_energy)
{
    static const uint64_t neg2[8] = {19900, 0, 0, 10200, 0, 0, 0, 0};     /* r = −1 */
    const uint64_t two64_minus_1e6 = UINT64_C(18446744073708551616);       /* 2^64 − 10^6 */
    wc_attr_out out;
    /* r < 0 (user −1 s, idle +2 s: total 1, active −1): activeE = uint64(−ΔE)
     * = 2^64 − ΔE, idleE = ΔE − activeE wraps to 2 ΔE. */
    tk u[2] = {backwards_tick(1, neg2), backwards_tick(2, neg2)};
    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    step(a, &u[0], &out);
    step(a, &u[1], &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(n->flags, WC_AF_RATIO_RANGE);
    cr_expect(n->ratio == -1.0);
    cr_expect_eq(n->active_uj, two64_minus_1e6);
    cr_expect_eq(n->idle_uj, 2000000);
    /* share 1 of (double)(2^64 − 10^6) = 2^64 − 999 424 */
    expect_row(prow(&out, &u[1], 1, 0), UINT64_C(18446744073708552192),
               UINT64_C(18446744073708552192), -1000000.0);
    wc_attrib_free(a);
}

Test(attribution, ideal_interval_with_cpu_counters_backwards_is_all_unattributed)
{
    static const uint64_t up2[8] = {19000, 0, 0, 10500, 0, 0, 0, 0};      /* r = 2 */
    tk t[2] = {backwards_tick(1, up2), backwards_tick(2, up2)};
    wc_attr_out out;
    /* ideal: user went backwards, the interval is unusable. */
    wc_attrib *a = engine(WC_MODEL_IDEAL);
    step(a, &t[0], &out);
    step(a, &t[1], &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(n->flags, WC_AF_UNMEASURABLE);
    cr_expect_eq(n->delta_uj, 1000000);
    /* issue 14 item 6: no usable ratio, so ΔE is all active, unattributed
     * (never idle, never nowhere) */
    cr_expect_eq(n->active_uj, 1000000);
    cr_expect_eq(n->idle_uj, 0);
    wc_attrib_free(a);
}

Test(attribution, ideal_decreasing_iowait_counts_as_zero)
{
    /* Interval 1→2: user +250, idle +250, iowait 500 → 400 (proc(5): it can
     * decrease): Δiowait 0, total 500, busy 250, r 0.5. Interval 2→3: user
     * 1250 → 1200: unusable. pid 1 uses 2.5 s, then 0.5 s. */
    static const uint64_t cpu[3][8] = {{1000, 0, 0, 1000, 500, 0, 0, 0},
                                       {1250, 0, 0, 1250, 400, 0, 0, 0},
                                       {1200, 0, 0, 1500, 400, 0, 0, 0}};
    static const uint64_t p1[3] = {500, 750, 800};
    tk t[3];
    for (int i = 0; i < 3; i++) {
        t[i] = tick1z(1 + 5 * i, cpu[i], 100000000 * (uint64_t)(i + 1));
        add(&t[i], proc(1, 1, p1[i], "", ""));
    }
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_IDEAL);
    step(a, &t[0], &out);
    step(a, &t[1], &out);
    const wc_attr_node_out *n = &out.node[0];
    cr_expect_eq(n->flags, 0);
    cr_expect(n->ratio == 0.5);
    cr_expect_eq(n->delta_uj, 100000000);
    cr_expect_eq(n->active_uj, 50000000);
    cr_expect_eq(n->idle_uj, 50000000);
    cr_expect(out.node_busy_s == 2.5);
    cr_expect(out.cpu_delta_sum_s == 2.5);
    expect_row(prow(&out, &t[1], 1, 0), 50000000, 50000000, 10000000.0);

    step(a, &t[2], &out); /* user went backwards: nothing attributed */
    cr_expect_eq(n->flags, WC_AF_UNMEASURABLE);
    cr_expect(n->ratio == 0.0);
    cr_expect_eq(n->delta_uj, 100000000);
    cr_expect_eq(n->active_uj, 100000000); /* issue 14 item 6: unsplit = unattributed */
    cr_expect_eq(n->idle_uj, 0);
    cr_expect(out.node_busy_s == 0.0);
    const wc_attr_work_out *w = prow(&out, &t[2], 1, 0);
    expect_row(w, 0, 50000000, 0.0);
    cr_expect_eq(w->flags, WC_AF_UNMEASURABLE);
    wc_attrib_free(a);
}

/* ---- ideal: transient zone failures span the gap, vanished zones re-baseline -- */

/* Ticks 100 ms apart from 1 s; package reads 26 000 000, fails twice, then
 * e4 and e5 µJ. /proc/stat: user +5, idle +5 per tick (r 0.5); pid 1 uses
 * 5 ticks per tick. */
static tk gap_tick(int n, uint64_t e4, uint64_t e5, int vanished)
{
    uint64_t cpu[8] = {1000 + 5 * (uint64_t)n, 0, 0, 1000 + 5 * (uint64_t)n, 0, 0, 0, 0};
    static const uint64_t e[3] = {26000000, 0, 0};
    tk k = tick1z(0, cpu, n <= 3 ? e[n - 1] : n == 4 ? e4 : e5);
    k.mono_ns = WC_NS_PER_S + (int64_t)(n - 1) * 100000000;
    k.z[0].ok = n != 2 && n != 3;
    k.z[0].vanished = !k.z[0].ok && vanished;
    add(&k, proc(1, 1, 500 + 5 * (uint64_t)n, "", ""));
    return k;
}

Test(attribution, ideal_transient_zone_failure_spans_the_gap)
{
    tk t[5];
    for (int i = 0; i < 5; i++)
        t[i] = gap_tick(i + 1, 56000000, 66000000, 0);
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_IDEAL);
    step(a, &t[0], &out);
    const wc_attr_node_out *n = &out.node[0];
    for (int i = 1; i < 3; i++) { /* the failed ticks attribute nothing */
        step(a, &t[i], &out);
        cr_expect_eq(n->flags, WC_AF_UNMEASURABLE | WC_AF_ZONE_MISSING);
        cr_expect_eq(n->delta_uj, 0);
        cr_expect_eq(n->active_uj, 0);
        expect_row(prow(&out, &t[i], 1, 0), 0, 0, 0.0);
    }
    step(a, &t[3], &out); /* 56 000 000 − 26 000 000 over 300 ms */
    cr_expect_eq(n->flags, 0);
    cr_expect_eq(n->delta_uj, 30000000);
    cr_expect(n->interval_s == 0.3);
    cr_expect(n->power_uw == 100000000.0);
    cr_expect(n->ratio == 0.5);
    cr_expect_eq(n->active_uj, 15000000);
    cr_expect_eq(n->idle_uj, 15000000);
    cr_expect(n->active_uw == 50000000.0);
    cr_expect_eq(n->counter_uj, 30000000);
    expect_row(prow(&out, &t[3], 1, 0), 15000000, 15000000, 50000000.0);
    step(a, &t[4], &out); /* back to 100 ms intervals */
    cr_expect_eq(n->flags, 0);
    cr_expect_eq(n->delta_uj, 10000000);
    cr_expect(n->interval_s == 0.1);
    cr_expect(n->power_uw == 100000000.0);
    cr_expect_eq(n->counter_uj, 40000000);
    expect_row(prow(&out, &t[4], 1, 0), 5000000, 20000000, 50000000.0);
    wc_attrib_free(a);

    /* Vanished (ENOENT): the baseline is lost, the recovery tick is
     * unmeasurable and starts a new baseline. */
    for (int i = 0; i < 5; i++)
        t[i] = gap_tick(i + 1, 56000000, 66000000, 1);
    a = engine(WC_MODEL_IDEAL);
    for (int i = 0; i < 4; i++)
        step(a, &t[i], &out);
    n = &out.node[0];
    cr_expect_eq(n->flags, WC_AF_UNMEASURABLE | WC_AF_ZONE_MISSING);
    cr_expect_eq(n->delta_uj, 0);
    cr_expect_eq(n->counter_uj, 0);
    expect_row(prow(&out, &t[3], 1, 0), 0, 0, 0.0);
    step(a, &t[4], &out);
    cr_expect_eq(n->flags, 0);
    cr_expect_eq(n->delta_uj, 10000000);
    cr_expect(n->interval_s == 0.1);
    expect_row(prow(&out, &t[4], 1, 0), 5000000, 5000000, 50000000.0);
    wc_attrib_free(a);

    /* Kepler models ignore the field: the same vanished run as a transient one. */
    for (int m = 0; m < 2; m++) {
        wc_attr_out o2;
        wc_attrib *k1 = engine((wc_model)m), *k2 = engine((wc_model)m);
        for (int i = 0; i < 5; i++) {
            tk v = gap_tick(i + 1, 56000000, 66000000, 1);
            tk tr = gap_tick(i + 1, 56000000, 66000000, 0);
            step(k1, &v, &out);
            step(k2, &tr, &o2);
            cr_expect_eq(out.node[0].delta_uj, o2.node[0].delta_uj);
            cr_expect_eq(out.node[0].flags, o2.node[0].flags);
        }
        cr_expect_eq(out.node[0].delta_uj, 10000000);
        wc_attrib_free(k1);
        wc_attrib_free(k2);
    }
}

Test(attribution, ideal_gap_ceiling_applies_to_the_whole_gap)
{
    /* +1 000 J across the 300 ms gap is 3 333 W: plausible (over 100 ms it
     * would be 10 kW, above the 5 kW ceiling). +2 000 J (6 667 W) is not. */
    tk t[4];
    for (int i = 0; i < 4; i++)
        t[i] = gap_tick(i + 1, 1026000000, 0, 0);
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_IDEAL);
    for (int i = 0; i < 4; i++)
        step(a, &t[i], &out);
    cr_expect_eq(out.node[0].flags, 0);
    cr_expect_eq(out.node[0].delta_uj, 1000000000);
    cr_expect(out.node[0].power_uw == 3333333333.3333335);
    wc_attrib_free(a);

    for (int i = 0; i < 4; i++)
        t[i] = gap_tick(i + 1, 2026000000, 0, 0);
    a = engine(WC_MODEL_IDEAL);
    for (int i = 0; i < 4; i++)
        step(a, &t[i], &out);
    cr_expect_eq(out.node[0].flags, WC_AF_UNMEASURABLE | WC_AF_ZONE_MISSING);
    cr_expect_eq(out.node[0].delta_uj, 0);
    wc_attrib_free(a);
}

Test(attribution, ideal_gap_on_one_socket_of_two)
{
    /* package-0 reads every tick (+1 000 000 µJ per 100 ms, 10 W); package-1
     * is the gap_tick socket. Recovery: ΔE = 1 000 000 + 30 000 000, P = 10 W
     * + 100 W over each socket's own interval, interval_s the longest. */
    tk t[4];
    for (int i = 0; i < 4; i++) {
        t[i] = gap_tick(i + 1, 56000000, 0, 0);
        t[i].z[1] = t[i].z[0];
        t[i].z[0] = zone("package", 10000000 + 1000000 * (uint64_t)i, MAXR, 1);
        t[i].nz = 2;
    }
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_IDEAL);
    step(a, &t[0], &out);
    const wc_attr_node_out *n = &out.node[0];
    step(a, &t[1], &out);
    cr_expect_eq(n->flags, WC_AF_UNMEASURABLE | WC_AF_ZONE_MISSING);
    cr_expect_eq(n->delta_uj, 1000000); /* package-0 only */
    cr_expect(n->interval_s == 0.1);
    step(a, &t[2], &out);
    step(a, &t[3], &out);
    cr_expect_eq(n->flags, 0);
    cr_expect_eq(n->delta_uj, 31000000);
    cr_expect(n->interval_s == 0.3);
    cr_expect(n->power_uw == 110000000.0);
    cr_expect_eq(n->active_uj, 15500000);
    cr_expect_eq(n->counter_uj, 33000000);
    expect_row(prow(&out, &t[3], 1, 0), 15500000, 15500000, 55000000.0);
    wc_attrib_free(a);
}

/* ---- containers, pods, runtime monitors -------------------------------------- */

Test(attribution, pods_kepler_from_containers_ideal_from_processes)
{
    /* A in container CX of pod POD; M is POD's runtime monitor (no
     * container); C has neither. Δ 2, 1, 1 s; busy 4 s; r 0.4. */
    static const uint64_t cpu1[8] = {1000, 0, 0, 1000, 0, 0, 0, 0};
    static const uint64_t cpu2[8] = {1400, 0, 0, 1600, 0, 0, 0, 0};
    tk t1 = tick1z(1, cpu1, 1000000), t2 = tick1z(6, cpu2, 101000000);
    add(&t1, proc(20, 1, 100, CX, POD));
    add(&t1, proc(21, 1, 100, "", POD));
    add(&t1, proc(22, 1, 100, "", ""));
    add(&t2, proc(20, 1, 300, CX, POD));
    add(&t2, proc(21, 1, 200, "", POD));
    add(&t2, proc(22, 1, 200, "", ""));
    wc_attr_out out;
    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    step(a, &t1, &out);
    step(a, &t2, &out);
    cr_expect_eq(out.nwork, 5);
    cr_expect_eq(out.node[0].active_uj, 40000000);
    expect_row(krow(&out, WC_LEVEL_CONTAINER, CX, 0), 20000000, 20000000, 4000000.0);
    expect_row(krow(&out, WC_LEVEL_POD, POD, 0), 20000000, 20000000, 4000000.0); /* M left out */
    wc_attrib_free(a);

    a = engine(WC_MODEL_IDEAL);
    step(a, &t1, &out);
    step(a, &t2, &out);
    const wc_attr_work_out *pod = krow(&out, WC_LEVEL_POD, POD, 0);
    cr_expect_eq(pod->energy_uj, 30000000); /* A + M */
    cr_expect(pod->cpu_delta_s == 3.0);
    cr_expect_eq(pod->proc_index, 0);
    cr_expect_eq(krow(&out, WC_LEVEL_CONTAINER, CX, 0)->energy_uj, 20000000);
    wc_attrib_free(a);
}

/* ---- API ------------------------------------------------------------------ */

Test(attribution, model_names)
{
    wc_model m;
    cr_expect_eq(wc_model_parse("kepler-0.11", &m), 0);
    cr_expect_eq(m, WC_MODEL_KEPLER_011);
    cr_expect_eq(wc_model_parse("kepler-main", &m), 0);
    cr_expect_eq(m, WC_MODEL_KEPLER_MAIN);
    cr_expect_eq(wc_model_parse("kepler-head", &m), 0, "the old name still reads");
    cr_expect_eq(m, WC_MODEL_KEPLER_MAIN);
    cr_expect_str_eq(wc_model_old_name(WC_MODEL_KEPLER_MAIN), "kepler-head");
    cr_expect_null(wc_model_old_name(WC_MODEL_KEPLER_011));
    cr_expect_eq(wc_model_parse("kepler-0.10", &m), 0);
    cr_expect_eq(m, WC_MODEL_KEPLER_010);
    cr_expect_eq(wc_model_parse("ideal", &m), 0);
    cr_expect_eq(m, WC_MODEL_IDEAL);
    cr_expect_eq(wc_model_parse("kepler", &m), -EINVAL);
    cr_expect_eq(wc_model_parse(NULL, &m), -EINVAL);
    cr_expect_str_eq(wc_model_name(WC_MODEL_KEPLER_HEAD), "kepler-main");
    cr_expect_null(wc_attrib_new((wc_model)42));
    wc_attrib_free(NULL);
}

/* The model table: every wc_model 0..count−1 has a name that parses back to
 * it and a description; a value outside it has neither. */
Test(attribution, model_table)
{
    cr_assert_eq(wc_model_count(), 4);
    for (size_t i = 0; i < wc_model_count(); i++) {
        wc_model m = (wc_model)i, back;
        cr_expect_eq(wc_model_parse(wc_model_name(m), &back), 0, "%s", wc_model_name(m));
        cr_expect_eq(back, m);
        cr_expect(strlen(wc_model_description(m)) > 10, "%s", wc_model_name(m));
        wc_attrib *a = wc_attrib_new(m);
        cr_expect_not_null(a);
        wc_attrib_free(a);
    }
    cr_expect_str_eq(wc_model_name((wc_model)42), "unknown");
    cr_expect_str_eq(wc_model_description((wc_model)42), "unknown model");
}

Test(attribution, bad_ticks_are_refused_and_change_nothing)
{
    wc_attrib *a = engine(WC_MODEL_KEPLER_HEAD);
    wc_attr_out out;
    tk t1 = example_tick(1), t2 = example_tick(2);
    step(a, &t1, &out);

    tk bad = t2;
    bad.z[1] = zone("dram", 1, 0, 1);
    bad.nz = 2;
    cr_expect_eq(step_rc(a, &bad, &out), -EINVAL); /* zone list changed */
    bad = t2;
    bad.z[0].name = "core";
    cr_expect_eq(step_rc(a, &bad, &out), -EINVAL); /* zone renamed */
    bad = t2;
    bad.t_s = t1.t_s;
    cr_expect_eq(step_rc(a, &bad, &out), -EINVAL); /* time did not advance */
    bad = t2;
    bad.p[2].pid = 100;
    cr_expect_eq(step_rc(a, &bad, &out), -EINVAL); /* pid twice */
    wc_error err = {{0}};
    cr_expect_eq(wc_attrib_step(a, NULL, &out, &err), -EINVAL);
    cr_expect_neq(err.msg[0], '\0');

    step(a, &t2, &out); /* as if the bad ticks never came */
    expect_row(prow(&out, &t2, 100, 0), 75000000, 75000000, 15000000.0);
    wc_attrib_free(a);
}

Test(attribution, bad_first_tick_leaves_the_engine_fresh)
{
    wc_attrib *a = engine(WC_MODEL_IDEAL);
    wc_attr_out out;
    tk t1 = example_tick(1), bad = example_tick(1);
    bad.p[1].pid = 100;
    bad.z[0].name = "core";
    cr_expect_eq(step_rc(a, &bad, &out), -EINVAL);
    step(a, &t1, &out); /* still the first tick, with its own zone names */
    cr_expect_eq(out.flags, WC_AF_FIRST);
    cr_expect_str_eq(out.node[0].zone, "package");
    wc_attrib_free(a);
}

Test(attribution, no_zones_no_processes)
{
    static const uint64_t cpu[8] = {1, 0, 0, 1, 0, 0, 0, 0};
    for (int m = 0; m < 3; m++) {
        wc_attrib *a = engine((wc_model)m);
        wc_attr_out out;
        tk k;
        memset(&k, 0, sizeof k);
        k.cpu_ok = 1;
        memcpy(k.cpu, cpu, sizeof cpu);
        for (int i = 1; i <= 3; i++) {
            k.t_s = i;
            step(a, &k, &out);
            cr_expect_eq(out.nnode, 0);
            cr_expect_eq(out.nwork, 0);
        }
        wc_attrib_free(a);
    }
}
