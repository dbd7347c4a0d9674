/*
 * test_pid_reuse.c — a reused pid whose negative CPU Δ outweighs every other
 * process's (kepler-model.md §8 item 10, the case tests/integration/
 * exporter_pid_reuse.sh records), worked by hand, every value exact.
 *
 * Kepler keys its process cache by pid alone (internal/resource/informer.go,
 * updateProcessCache and populateProcessFields, the same at v0.10.0, v0.11.0,
 * v0.11.4 and main 13944a69): the new process's Δ is its CPU minus the old
 * process's, and refreshNode sums it into D. When D turns negative every
 * process that was NOT reused gets a negative ratio Δ/D, hence negative watts
 * and a uint64 of a negative float (≈2^64 µJ), and so do its container and
 * pod; the reused pid gets a ratio above 1. The Kepler models reproduce that
 * on purpose and flag every such row NEGATIVE_SHARE; the ideal model
 * ((pid, starttime) identity) counts the new process from its birth and
 * every share stays positive, summing exactly to the node's active energy.
 *
 * Three ticks 5 s apart, one package zone +1 000 000 000 µJ per interval,
 * /proc/stat busy = idle (usage ratio 0.5 in both intervals, so every Kepler
 * version splits alike), active energy 500 000 000 µJ, active power 10^8 µW.
 * pid 1 (host) uses 1 s per interval, pid 2 (container CX of pod POD) 3 s;
 * pid 3 has 10 s then 12 s of CPU, and between ticks 2 and 3 it exits and a
 * new pid 3 starts (starttime 100 700 ticks = 1007 s after boot, after tick 2
 * at boot clock 1006 s) and uses 1 s. Kepler at tick 3: Δ = 1, 3, 1 − 12 =
 * −11, D = −7. Ideal: Δ = 1, 3, 1 (a new identity), D = busy = 5 s.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "common/wc_clock.h"

static const char *const CX = "c0ffee00000000000000000000000000000000000000000000000000000000bb";
static const char *const POD = "6f1e0c1a-0000-4000-8000-0000000000b2";

/* One recorded tick: 1 + 5(n−1) s, boot clock 1000 s ahead, one package zone. */
typedef struct rtick {
    wc_attr_zone_in z;
    wc_attr_proc_in p[3];
    wc_attr_tick_in t;
} rtick;

static void reuse_tick(rtick *k, int n)
{
    static const uint64_t busy[3] = {100000, 100600, 101100}; /* user = idle ticks */
    static const uint64_t p1[3] = {0, 100, 200}, p2[3] = {0, 300, 600};
    memset(k, 0, sizeof *k);
    int64_t t_s = 1 + 5 * (n - 1);
    uint64_t e_uj = 5000000000 + 1000000000 * (uint64_t)(n - 1);
    k->z = (wc_attr_zone_in){.name = "package", .energy_uj = e_uj,
                             .max_energy_range_uj = UINT64_C(262143328850), .ok = 1};
    k->p[0] = (wc_attr_proc_in){.pid = 1, .starttime = 100, .cpu_ticks = p1[n - 1],
                                .container_id = "", .pod_uid = ""};
    k->p[1] = (wc_attr_proc_in){.pid = 2, .starttime = 200, .cpu_ticks = p2[n - 1],
                                .container_id = CX, .pod_uid = POD};
    /* pid 3: the old process (start 300) at ticks 1-2, a new one at tick 3 */
    k->p[2] = (wc_attr_proc_in){.pid = 3, .starttime = n < 3 ? 300 : 100700,
                                .cpu_ticks = n == 1 ? 1000 : n == 2 ? 1200 : 100,
                                .container_id = "", .pod_uid = ""};
    k->t.mono_ns = t_s * WC_NS_PER_S;
    k->t.boot_ns = (t_s + 1000) * WC_NS_PER_S;
    k->t.cpu = (wc_cpu_times){-1, busy[n - 1], 0, 0, busy[n - 1], 0, 0, 0, 0, 0, 0, 10};
    k->t.cpu_ok = 1;
    k->t.zones = &k->z;
    k->t.nzones = 1;
    k->t.procs = k->p;
    k->t.nprocs = 3;
}

/* Runs the three ticks through a fresh engine of model m; out holds tick 3. */
static wc_attrib *run3(wc_model m, wc_attr_out *out)
{
    wc_attrib *a = wc_attrib_new(m);
    cr_assert_not_null(a);
    for (int n = 1; n <= 3; n++) {
        rtick k;
        reuse_tick(&k, n);
        wc_error err = {{0}};
        cr_assert_eq(wc_attrib_step(a, &k.t, out, &err), 0, "tick %d: %s", n, err.msg);
    }
    return a;
}

/* The row of a level: a process by pid (scan index pid − 1), else by key. */
static const wc_attr_work_out *row(const wc_attr_out *out, wc_attr_level lv, int32_t pid,
                                   const char *key)
{
    for (size_t i = 0; i < out->nwork; i++) {
        const wc_attr_work_out *w = &out->work[i];
        if (w->level != lv || w->zone != 0)
            continue;
        if (lv == WC_LEVEL_PROCESS ? w->proc_index == (size_t)(pid - 1) : strcmp(w->key, key) == 0)
            return w;
    }
    cr_assert_fail("no level-%d row for pid %d / %s", (int)lv, (int)pid, key ? key : "-");
    return NULL;
}

static void expect(const wc_attr_work_out *w, double d_s, uint64_t e_uj, uint64_t total_uj,
                   double p_uw, unsigned flags)
{
    cr_expect(w->cpu_delta_s == d_s, "Δ %.17g, want %.17g", w->cpu_delta_s, d_s);
    cr_expect_eq(w->energy_uj, e_uj, "energy %llu, want %llu", (unsigned long long)w->energy_uj,
                 (unsigned long long)e_uj);
    cr_expect_eq(w->total_uj, total_uj, "total %llu, want %llu",
                 (unsigned long long)w->total_uj, (unsigned long long)total_uj);
    cr_expect(w->power_uw == p_uw, "power %.17g, want %.17g", w->power_uw, p_uw);
    cr_expect_eq(w->flags, flags, "flags %#x, want %#x", w->flags, flags);
}

/* 2^64 − x: Go's uint64 of the negative share −x µJ on amd64. */
#define WRAPPED(x) (UINT64_MAX - (UINT64_C(x) - 1))

static void expect_kepler_tick3(const wc_attr_out *out, uint64_t prev1, uint64_t prev2,
                                uint64_t prev3)
{
    cr_expect(out->cpu_delta_sum_s == -7.0, "D %.17g", out->cpu_delta_sum_s);
    cr_expect_eq(out->node[0].active_uj, 500000000);
    cr_expect(out->node[0].active_uw == 1e8);
    const unsigned neg = WC_AF_NEGATIVE_SHARE;
    /* not reused: ratio 1/−7 and 3/−7 of 500 000 000 µJ, truncated, wrapped */
    expect(row(out, WC_LEVEL_PROCESS, 1, NULL), 1.0, WRAPPED(71428571), prev1 + WRAPPED(71428571),
           -14285714.285714285, neg);
    expect(row(out, WC_LEVEL_PROCESS, 2, NULL), 3.0, WRAPPED(214285714),
           prev2 + WRAPPED(214285714), -42857142.85714286, neg);
    /* the reused pid: −11/−7 = 1.5714…, more than the node's active energy */
    expect(row(out, WC_LEVEL_PROCESS, 3, NULL), -11.0, 785714285, prev3 + 785714285,
           157142857.14285713, neg);
    expect(row(out, WC_LEVEL_CONTAINER, 0, CX), 3.0, WRAPPED(214285714),
           prev2 + WRAPPED(214285714), -42857142.85714286, neg);
    expect(row(out, WC_LEVEL_POD, 0, POD), 3.0, WRAPPED(214285714), prev2 + WRAPPED(214285714),
           -42857142.85714286, neg);
    /* the powers still sum to the node's active power: −1 − 3 + 11 = 7 */
    double p = 0.0;
    for (int pid = 1; pid <= 3; pid++)
        p += row(out, WC_LEVEL_PROCESS, pid, NULL)->power_uw;
    cr_expect(p > 1e8 - 1e-6 && p < 1e8 + 1e-6, "Σ power %.17g", p);
}

Test(pid_reuse, kepler_main_negative_denominator_flags_every_share)
{
    wc_attr_out out;
    wc_attrib *a = run3(WC_MODEL_KEPLER_HEAD, &out);
    /* tick 2 (main: this interval's ratio) gave pid 1, 2, 3 1/6, 3/6, 2/6 */
    expect_kepler_tick3(&out, 83333333, 250000000, 166666666);
    wc_attrib_free(a);
}

Test(pid_reuse, kepler_releases_negative_denominator_flags_every_share)
{
    static const wc_model m[] = {WC_MODEL_KEPLER_011, WC_MODEL_KEPLER_010};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        wc_attr_out out;
        wc_attrib *a = run3(m[i], &out);
        /* tick 2 split with tick 1's ratio 0: every total reset to 0 */
        expect_kepler_tick3(&out, 0, 0, 0);
        wc_attrib_free(a);
    }
}

Test(pid_reuse, ideal_counts_the_new_process_from_its_birth)
{
    wc_attr_out out;
    wc_attrib *a = run3(WC_MODEL_IDEAL, &out);
    cr_expect(out.cpu_delta_sum_s == 5.0, "D %.17g", out.cpu_delta_sum_s);
    cr_expect_eq(out.node[0].active_uj, 500000000);
    /* shares 1/5, 3/5, 1/5 of 500 000 000 µJ; the old pid 3's 166 666 666 µJ
     * (1/3 of tick 2's) stay with it: the new identity's total starts at 0 */
    const wc_attr_work_out *w1 = row(&out, WC_LEVEL_PROCESS, 1, NULL);
    const wc_attr_work_out *w2 = row(&out, WC_LEVEL_PROCESS, 2, NULL);
    const wc_attr_work_out *w3 = row(&out, WC_LEVEL_PROCESS, 3, NULL);
    expect(w1, 1.0, 100000000, 83333333 + 100000000, 2e7, 0);
    expect(w2, 3.0, 300000000, 250000000 + 300000000, 6e7, 0);
    expect(w3, 1.0, 100000000, 100000000, 2e7, 0);
    cr_expect_eq(w1->energy_uj + w2->energy_uj + w3->energy_uj, out.node[0].active_uj);
    expect(row(&out, WC_LEVEL_CONTAINER, 0, CX), 3.0, 300000000, 550000000, 6e7, 0);
    expect(row(&out, WC_LEVEL_POD, 0, POD), 3.0, 300000000, 550000000, 6e7, 0);
    wc_attrib_free(a);
}
