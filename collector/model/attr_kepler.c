/*
 * attr_kepler.c — the Kepler models of the attribution engine: kepler-0.10
 * (v0.10.0–v0.11.3), kepler-0.11 (v0.11.4; both the released ordering) and
 * kepler-main (main after commit 81477124, formerly kepler-head). main
 * differs in the order of one refresh (kepler-model.md §1.2, §5.2, §5.3);
 * v0.11.4 and main add the zone-type test of node.go (§2.6: a zone reading 0
 * with range 0 is a power gauge, integrated as P × interval); everything else
 * is shared.
 *
 * How it fits: attribution.c checks the tick, reserves the memory and calls
 * the step named by the model table (attr_models.c); attr_internal.h holds
 * the state declared for this file (kepler_state) and the engine helpers used
 * here. The code replays Kepler's own code paths (kepler-model.md §1.2, §2.3,
 * §3.1–3.5, §4), float64 for float64 and in the same order, so the last bits
 * match:
 *   internal/monitor/monitor.go        refresh order (calculatePower and
 *                                      firstReading per version); a failed
 *                                      refresh discards the new snapshot
 *   internal/monitor/node.go           firstNodeRead, calculateNodePower,
 *                                      calculateEnergyDelta
 *   internal/device/energy_zone.go     AggregatedZone.Energy: per-socket wrap,
 *                                      running sum modulo Σmax
 *   internal/resource/informer.go      per-pid cache (lifetime first Δ, no
 *                                      start-time check), Σ Δ, container and
 *                                      pod Δ sums
 *   internal/resource/procfs_reader.go CPUUsageRatio (fields / 100 as float64)
 *   internal/monitor/{process,container,pod}.go  shares, skip-and-reset,
 *                                      float64 → uint64 truncation
 * Go's float64 → uint64 conversion on amd64 is emulated without C undefined
 * behaviour (go_f64_to_u64), as is time.Duration.Seconds()
 * (go_duration_seconds, attr_internal.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attr_internal.h"

#define TWO_POW_63 9223372036854775808.0

/* ---- Go arithmetic ------------------------------------------------------ */

/* amd64 CVTTSD2SQ: float64 → int64 truncating toward zero; NaN or out of
 * range gives the "integer indefinite" INT64_MIN. */
static int64_t amd64_cvttsd2sq(double x)
{
    if (!(x >= -TWO_POW_63 && x < TWO_POW_63))
        return INT64_MIN;
    return (int64_t)x;
}

/* Go's uint64(x) for a float64 on amd64 (cmd/compile floatToUint): below
 * 2^63 the signed conversion, so trunc(−5.5) = −5 becomes 2^64 − 5;
 * above, convert x − 2^63 and set the top bit. */
static uint64_t go_f64_to_u64(double x)
{
    if (x < TWO_POW_63)
        return (uint64_t)amd64_cvttsd2sq(x);
    return (uint64_t)amd64_cvttsd2sq(x - TWO_POW_63) | (UINT64_C(1) << 63);
}

/* Kepler's calculateEnergyDelta (node.go): any decrease is one wrap when the
 * range is known, else 0. Sets WC_AF_WRAP when a wrap was assumed. */
static uint64_t kepler_energy_delta(uint64_t cur_uj, uint64_t prev_uj, uint64_t max_uj,
                                    unsigned *flags)
{
    if (cur_uj >= prev_uj)
        return cur_uj - prev_uj;
    if (max_uj > 0) {
        *flags |= WC_AF_WRAP;
        return (max_uj - prev_uj) + cur_uj;
    }
    return 0;
}

/* ---- state ---------------------------------------------------------------- */

/* Kepler's MaxEnergy() per zone name: the socket's range, or for an
 * AggregatedZone the sum of its sockets' ranges, saturating at 2^64−1 the way
 * NewAggregatedZone does. Read once, at discovery (the first tick). */
static void kepler_discover_max(wc_attrib *a, const wc_attr_tick_in *t)
{
    for (size_t i = 0; i < a->nsock; i++)
        a->k.sock_max_uj[i] = t->zones[i].max_energy_range_uj;
    for (size_t z = 0; z < a->nzone; z++) {
        uint64_t total = 0;
        for (size_t j = 0; j < a->zone_nsock[z]; j++) {
            uint64_t m = a->k.sock_max_uj[a->zone_sock[z][j]];
            if (total > 0 && m > UINT64_MAX - total) {
                total = UINT64_MAX;
                break;
            }
            total += m;
        }
        a->k.max_uj[z] = total;
    }
}

/* Kepler's per-socket and per-zone meter state and snapshot counters, sized
 * by the layout of the first tick t; MaxEnergy() read from t. */
static int kepler_layout(wc_attrib *a, const wc_attr_tick_in *t)
{
    size_t ns = a->nsock ? a->nsock : 1, nz = a->nzone ? a->nzone : 1;
    kepler_state *k = &a->k;
    k->sock_max_uj = calloc(ns, sizeof *k->sock_max_uj);
    k->sock_last_uj = calloc(ns, sizeof *k->sock_last_uj);
    k->sock_has_last = calloc(ns, sizeof *k->sock_has_last);
    k->max_uj = calloc(nz, sizeof *k->max_uj);
    k->agg_uj = calloc(nz, sizeof *k->agg_uj);
    k->read_uj = calloc(nz, sizeof *k->read_uj);
    k->read_uw = calloc(nz, sizeof *k->read_uw);
    k->pending = calloc(nz, sizeof *k->pending);
    k->snap_counter_uj = calloc(nz, sizeof *k->snap_counter_uj);
    k->snap_active_uj = calloc(nz, sizeof *k->snap_active_uj);
    k->snap_idle_uj = calloc(nz, sizeof *k->snap_idle_uj);
    if (!(k->sock_max_uj && k->sock_last_uj && k->sock_has_last && k->max_uj && k->agg_uj &&
          k->read_uj && k->read_uw && k->pending && k->snap_counter_uj && k->snap_active_uj &&
          k->snap_idle_uj))
        return -ENOMEM;
    kepler_discover_max(a, t);
    return 0;
}

/* Frees and forgets what kepler_layout made. */
static void kepler_release(wc_attrib *a)
{
    kepler_state *k = &a->k;
    void *p[] = {k->sock_max_uj, k->sock_last_uj,    k->sock_has_last,   k->max_uj,
                 k->agg_uj,      k->read_uj,         k->pending,         k->snap_counter_uj,
                 k->snap_active_uj, k->snap_idle_uj, k->read_uw};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
    k->sock_max_uj = k->sock_last_uj = k->max_uj = k->agg_uj = k->read_uj = NULL;
    k->snap_counter_uj = k->snap_active_uj = k->snap_idle_uj = NULL;
    k->sock_has_last = NULL;
    k->pending = NULL;
    k->read_uw = NULL;
}

/* The next snapshot's tables and the next informer cache. */
static int kepler_reserve(wc_attrib *a, size_t n, size_t cont_bytes, size_t pod_bytes,
                          size_t vm_bytes)
{
    kepler_state *k = &a->k;
    int rc = attr_proc_tab_reserve(&k->procs_next, n, a->nzone);
    if (!rc)
        rc = attr_str_tab_reserve(&k->cont_next, n, a->nzone, cont_bytes);
    if (!rc)
        rc = attr_str_tab_reserve(&k->pod_next, n, a->nzone, pod_bytes);
    if (!rc)
        rc = attr_str_tab_reserve(&k->vm_next, n, a->nzone, vm_bytes);
    if (!rc)
        rc = attr_proc_tab_reserve(&k->cache_next, n, 0);
    if (!rc)
        rc = attr_term_reserve(a);
    return rc;
}

/* Frees the informer cache and the snapshot tables. */
static void kepler_free(wc_attrib *a)
{
    kepler_state *k = &a->k;
    attr_proc_tab_free(&k->cache);
    attr_proc_tab_free(&k->cache_next);
    attr_proc_tab_free(&k->procs);
    attr_proc_tab_free(&k->procs_next);
    attr_str_tab_free(&k->cont);
    attr_str_tab_free(&k->cont_next);
    attr_str_tab_free(&k->pod);
    attr_str_tab_free(&k->pod_next);
    attr_str_tab_free(&k->vm);
    attr_str_tab_free(&k->vm_next);
    attr_term_free(a);
}

const attr_state_ops attr_kepler_state = {kepler_layout, kepler_release, kepler_reserve,
                                          kepler_free};

/* ---- Kepler: informer ---------------------------------------------------------- */

/* procfs CPUStat of the aggregate line: every field parsed as float64 and
 * divided by USER_HZ (procfs stat.go parseCPUStat). */
static void kepler_cpustat(const wc_cpu_times *c, double f[10])
{
    const uint64_t v[10] = {c->user,    c->nice,    c->system, c->idle,  c->iowait,
                            c->irq,     c->softirq, c->steal,  c->guest, c->guest_nice};
    for (int i = 0; i < 10; i++)
        f[i] = (double)v[i] / WC_USER_HZ;
}

/* Kepler's CPUUsageRatio (procfs_reader.go): 0 on the first call (previous
 * CPUStat all zero), else active/total over the eight fields, float64
 * differences summed in Kepler's order. Stores cur as the next previous. */
static double kepler_usage_ratio(double prev[10], const wc_cpu_times *cur)
{
    double c[10], p[10];
    int first = 1;
    kepler_cpustat(cur, c);
    for (int i = 0; i < 10; i++)
        first &= prev[i] == 0;
    memcpy(p, prev, sizeof p);
    memcpy(prev, c, sizeof c);
    if (first)
        return 0;
    double d_user = c[0] - p[0], d_nice = c[1] - p[1], d_system = c[2] - p[2];
    double d_idle = c[3] - p[3], d_iowait = c[4] - p[4], d_irq = c[5] - p[5];
    double d_softirq = c[6] - p[6], d_steal = c[7] - p[7];
    double total = d_user + d_nice + d_system + d_idle + d_iowait + d_irq + d_softirq + d_steal;
    if (total == 0)
        return 0;
    double active = total - (d_idle + d_iowait);
    return active / total;
}

/* Kepler's informer Refresh() (informer.go): per-pid Δ against a cache keyed
 * by pid only — the whole lifetime on first sight, negative on PID reuse —
 * the cache replaced by this tick's pids (terminated ones dropped), then
 * refreshNode: D = Σ Δ in scan order and the usage ratio. Returns 1 when
 * /proc/stat was unreadable: the process cache has already moved on but the
 * ratio, D and the previous CPUStat keep their old values, as Kepler's. */
static int kepler_refresh(wc_attrib *a, const wc_attr_tick_in *t)
{
    kepler_state *k = &a->k;
    scratch *s = &a->s;
    for (size_t i = 0; i < t->nprocs; i++) {
        const wc_attr_proc_in *p = &t->procs[i];
        double cpu_s = (double)p->cpu_ticks / WC_USER_HZ;
        size_t j = attr_proc_tab_find(&k->cache, p->pid, 0, 0);
        s->d_s[i] = cpu_s - (j == NPOS ? 0.0 : k->cache.rec[j].cpu_s);
        s->pflags[i] = (j == NPOS ? WC_AF_LIFETIME_DELTA : 0u) |
                       (s->d_s[i] < 0 ? WC_AF_NEGATIVE_SHARE : 0u);
    }
    proc_tab *next = &k->cache_next;
    for (size_t j = 0; j < t->nprocs; j++) {
        const wc_attr_proc_in *p = &t->procs[s->ord[j]];
        next->rec[j] = (proc_rec){p->pid, 0, 0, (double)p->cpu_ticks / WC_USER_HZ};
    }
    next->n = t->nprocs;
    attr_proc_tab_swap(&k->cache, next);
    if (!t->cpu_ok)
        return 1;
    double d_sum_s = 0.0;
    for (size_t i = 0; i < t->nprocs; i++)
        d_sum_s += s->d_s[i];
    k->d_sum_s = d_sum_s;
    k->ratio = kepler_usage_ratio(k->prev_stat, &t->cpu);
    uint64_t busy = 0, total = 0;
    int have = k->have_prev_cpu && attr_cpu_interval(&k->prev_cpu, &t->cpu, 0, &busy, &total);
    k->busy_s = have ? (double)busy / WC_USER_HZ : 0.0;
    k->prev_cpu = t->cpu;
    k->have_prev_cpu = 1;
    return 0;
}

/* Container Δ = Σ Δ of its running processes in scan order, its pod the
 * first pod uid among them; pod Δ = Σ Δ of its containers (informer.go
 * refreshContainers, refreshPods). Runtime monitors (container_id "") are in
 * no container and therefore in no pod. */
static void kepler_group(wc_attrib *a, size_t n)
{
    scratch *s = &a->s;
    attr_group_containers(s, n);
    for (size_t c = 0; c < s->ncont; c++) {
        s->cd_s[c] = 0.0;
        s->cflags[c] = 0;
        s->cpod[c] = "";
    }
    for (size_t i = 0; i < n; i++) {
        size_t c = s->cgrp[i];
        if (c == NPOS)
            continue;
        s->cd_s[c] += s->d_s[i];
        s->cflags[c] |= s->pflags[i] & WC_AF_LIFETIME_DELTA;
        if (!s->cpod[c][0])
            s->cpod[c] = s->pkey[i];
    }
    s->npod = attr_group_by_key(s, s->cpod, s->ncont, s->pgrp, s->pfirst, s->psorted);
    for (size_t p = 0; p < s->npod; p++) {
        s->pd_s[p] = 0.0;
        s->podflags[p] = 0;
    }
    for (size_t c = 0; c < s->ncont; c++) {
        size_t p = s->pgrp[c];
        if (p == NPOS)
            continue;
        s->pd_s[p] += s->cd_s[c];
        s->podflags[p] |= s->cflags[c];
    }
}

/* ---- Kepler: meter and node ------------------------------------------------------ */

/* WC_AF_RATIO_RANGE when Kepler's unclamped usage ratio left [0,1] (a
 * /proc/stat counter went backwards, §3.1): activeE = uint64(ΔE × r) then
 * exceeds ΔE (r > 1) or wraps to ≈2^64 (r < 0), and idleE = ΔE − activeE
 * underflows. The numbers stay Kepler's; the flag says they are meaningless. */
static unsigned kepler_ratio_flag(double ratio)
{
    return ratio >= 0.0 && ratio <= 1.0 ? 0u : WC_AF_RATIO_RANGE;
}

/* AggregatedZone.Energy() (energy_zone.go): per socket Δ with that socket's
 * wrap (uint64 subtraction when its range is 0), a first reading counting
 * whole; the running sum modulo Σmax. An unreadable socket aborts the read
 * after earlier sockets already moved their last reading, so their energy is
 * lost, as in Kepler. Returns 0 or -1. */
static int kepler_read_aggregated(wc_attrib *a, const wc_attr_tick_in *t, size_t z)
{
    kepler_state *k = &a->k;
    uint64_t total = 0;
    for (size_t j = 0; j < a->zone_nsock[z]; j++) {
        size_t s = a->zone_sock[z][j];
        const wc_attr_zone_in *in = &t->zones[s];
        if (!in->ok)
            return -1;
        uint64_t cur = in->energy_uj, last = k->sock_last_uj[s], max = k->sock_max_uj[s];
        if (!k->sock_has_last[s]) {
            total += cur;
        } else if (cur >= last) {
            total += cur - last;
        } else {
            k->pending[z] |= WC_AF_WRAP;
            total += max > 0 ? (max - last) + cur : cur - last;
        }
        k->sock_last_uj[s] = cur;
        k->sock_has_last[s] = 1;
    }
    k->agg_uj[z] += total;
    if (k->max_uj[z] > 0)
        k->agg_uj[z] %= k->max_uj[z];
    k->read_uj[z] = k->agg_uj[z];
    return 0;
}

/* Zone z read as a power gauge (node.go, v0.11.4 and main: range 0 and
 * reading 0): Power(), summed over its sockets as AggregatedZone.Power();
 * a socket that is no gauge (RAPL has no Power()) or unreadable fails it.
 * Returns 0 with k->read_uw[z] set, or -1. */
static int kepler_read_power(wc_attrib *a, const wc_attr_tick_in *t, size_t z)
{
    double total = 0;
    for (size_t j = 0; j < a->zone_nsock[z]; j++) {
        const wc_attr_zone_in *in = &t->zones[a->zone_sock[z][j]];
        if (!in->ok || !in->gauge)
            return -1;
        total += in->power_uw;
    }
    a->k.read_uw[z] = total;
    return 0;
}

/* Reads every zone as Kepler's node step does (all of them, even after one
 * failed). A zone fails when a socket is unreadable, or when Kepler takes it
 * for a power gauge (range 0 and reading 0; from v0.11.4, node.go) and it has
 * no Power() (RAPL). Before v0.11.4 (kepler-0.10) there is no such test and
 * no hwmon meter: a gauge zone always fails. Failed zones get
 * WC_AF_ZONE_MISSING; returns how many failed. */
static size_t kepler_read_zones(wc_attrib *a, const wc_attr_tick_in *t)
{
    kepler_state *k = &a->k;
    size_t failed = 0;
    for (size_t z = 0; z < a->nzone; z++) {
        int rc;
        k->read_uw[z] = NAN;
        if (t->zones[a->zone_sock[z][0]].gauge) {
            rc = k->zone_types ? kepler_read_power(a, t, z) : -1;
        } else if (a->zone_nsock[z] == 1) {
            const wc_attr_zone_in *in = &t->zones[a->zone_sock[z][0]];
            rc = in->ok ? 0 : -1;
            if (!rc)
                k->read_uj[z] = in->energy_uj;
        } else {
            rc = kepler_read_aggregated(a, t, z);
        }
        if (!rc && isnan(k->read_uw[z]) && k->zone_types &&
            !(k->max_uj[z] > 0 || k->read_uj[z] > 0))
            rc = -1;
        if (rc) {
            a->zflags[z] |= WC_AF_ZONE_MISSING;
            failed++;
        }
    }
    return failed;
}

/* Kepler's firstNodeRead (node.go): totals start at the counter, active at
 * trunc(E × r) with the informer's current ratio (0: never refreshed), all
 * powers 0; a power gauge starts at 0 J with its power the reading. */
static void kepler_node_first(wc_attrib *a, double ratio)
{
    kepler_state *k = &a->k;
    for (size_t z = 0; z < a->nzone; z++) {
        wc_attr_node_out *n = &a->node[z];
        int gauge = !isnan(k->read_uw[z]);
        if (gauge) { /* a power zone starts at 0 J, its power the reading */
            k->read_uj[z] = 0;
            n->power_uw = k->read_uw[z];
        }
        uint64_t e = k->read_uj[z], act = go_f64_to_u64((double)e * ratio);
        n->flags = a->zflags[z] | k->pending[z] | WC_AF_FIRST | kepler_ratio_flag(ratio);
        k->pending[z] = 0;
        n->ratio = ratio;
        n->counter_uj = e;
        n->active_total_uj = act;
        n->idle_total_uj = e - act;
    }
}

/* Kepler's calculateNodePower (node.go) for one zone: an energy zone's ΔE
 * with the any-decrease-is-a-wrap rule and P = ΔE/Δt, a power zone's P its
 * reading and ΔE = uint64(P × Δt) added to its running counter; then
 * activeE = uint64(ΔE × r). Flags the
 * zone SKIPPED|TOTALS_RESET when the process pass will skip it, RATIO_RANGE
 * when r is outside [0,1]. */
static void kepler_node_zone(wc_attrib *a, size_t z, double ratio, double dt_s)
{
    kepler_state *k = &a->k;
    wc_attr_node_out *n = &a->node[z];
    n->flags = a->zflags[z] | k->pending[z] | kepler_ratio_flag(ratio);
    k->pending[z] = 0;
    n->ratio = ratio;
    n->interval_s = dt_s;
    if (!isnan(k->read_uw[z])) { /* a power gauge: ΔE = uint64(P × Δt), counter += ΔE */
        n->delta_uj = go_f64_to_u64(k->read_uw[z] * dt_s);
        k->read_uj[z] = k->snap_counter_uj[z] + n->delta_uj;
        n->power_uw = k->read_uw[z];
    } else {
        n->delta_uj = kepler_energy_delta(k->read_uj[z], k->snap_counter_uj[z], k->max_uj[z],
                                          &n->flags);
        n->power_uw = (double)n->delta_uj / dt_s;
    }
    n->counter_uj = k->read_uj[z];
    n->active_uj = go_f64_to_u64((double)n->delta_uj * ratio);
    n->idle_uj = n->delta_uj - n->active_uj;
    n->active_uw = n->power_uw * ratio;
    n->idle_uw = n->power_uw - n->active_uw;
    n->active_total_uj = k->snap_active_uj[z] + n->active_uj;
    n->idle_total_uj = k->snap_idle_uj[z] + n->idle_uj;
    if (n->active_uw == 0 || n->active_uj == 0 || k->d_sum_s == 0)
        n->flags |= WC_AF_SKIPPED | WC_AF_TOTALS_RESET;
}

/* ---- Kepler: workloads ------------------------------------------------------------ */

/* One Kepler share (process.go, container.go, pod.go): skip — and with it
 * reset the total to 0 — when the zone has no active power (pods: no power),
 * no active energy, or D is 0; else ratio = Δ/D unclamped, energy
 * uint64(ratio × activeE) (pods multiply the other way round, same result)
 * added to the previous snapshot's total, power ratio × activeP. */
static void kepler_share(wc_attr_work_out *w, const wc_attr_node_out *n, double d_sum_s,
                         int pod_rule)
{
    int skip = (pod_rule ? n->power_uw == 0 : n->active_uw == 0) || n->active_uj == 0 ||
               d_sum_s == 0;
    if (skip) {
        w->total_uj = 0;
        w->flags |= WC_AF_SKIPPED | WC_AF_TOTALS_RESET;
        return;
    }
    double ratio = w->cpu_delta_s / d_sum_s;
    w->energy_uj = pod_rule ? go_f64_to_u64((double)n->active_uj * ratio)
                            : go_f64_to_u64(ratio * (double)n->active_uj);
    w->total_uj += w->energy_uj;
    w->power_uw = ratio * n->active_uw;
    if (ratio < 0 || w->cpu_delta_s < 0)
        w->flags |= WC_AF_NEGATIVE_SHARE;
}

/* Rows of one Kepler workload: on the first refresh all zero (Kepler's first
 * pass always skips: no active power yet), else one share per zone. */
static size_t kepler_rows_of(wc_attrib *a, size_t r, wc_attr_level level, size_t proc_index,
                             const char *key, double d_s, unsigned flags,
                             const uint64_t *prev_tot_uj, int first)
{
    if (first)
        return attr_rows_start(a, r, level, proc_index, key, d_s, flags | WC_AF_FIRST, NULL);
    size_t end = attr_rows_start(a, r, level, proc_index, key, d_s, flags, prev_tot_uj);
    for (size_t z = 0; z < a->nzone; z++)
        kepler_share(&a->work[r + z], &a->node[z], a->k.d_sum_s, level == WC_LEVEL_POD);
    return end;
}

/* Processes, containers, pods, VMs — each from the node independently (§4.2,
 * monitor/vm.go). */
static size_t kepler_rows(wc_attrib *a, const wc_attr_tick_in *t, int first)
{
    kepler_state *k = &a->k;
    const scratch *s = &a->s;
    size_t nz = a->nzone, r = 0;
    for (size_t i = 0; i < t->nprocs; i++) {
        size_t j = attr_proc_tab_find(&k->procs, t->procs[i].pid, 0, 0);
        const uint64_t *prev = j == NPOS ? NULL : &k->procs.tot_uj[j * nz];
        r = kepler_rows_of(a, r, WC_LEVEL_PROCESS, i, s->ckey[i], s->d_s[i], s->pflags[i], prev,
                           first);
    }
    for (size_t c = 0; c < s->ncont; c++) {
        const char *key = s->ckey[s->cfirst[c]];
        r = kepler_rows_of(a, r, WC_LEVEL_CONTAINER, s->cfirst[c], key, s->cd_s[c],
                           s->cflags[c], attr_str_prev(&k->cont, key, nz), first);
    }
    for (size_t p = 0; p < s->npod; p++) {
        size_t c0 = s->pfirst[p];
        const char *key = s->cpod[c0];
        r = kepler_rows_of(a, r, WC_LEVEL_POD, s->cfirst[c0], key, s->pd_s[p], s->podflags[p],
                           attr_str_prev(&k->pod, key, nz), first);
    }
    for (size_t v = 0; v < s->nvm; v++) { /* updateVMCache: the last process's Δ, assigned */
        size_t last = s->vlast[v];
        const char *key = s->vkey[last];
        r = kepler_rows_of(a, r, WC_LEVEL_VM, s->vfirst[v], key, s->d_s[last],
                           s->pflags[last] & WC_AF_LIFETIME_DELTA, attr_str_prev(&k->vm, key, nz),
                           first);
    }
    return r;
}

/* A successful refresh becomes the snapshot the next one differences. */
static void kepler_commit(wc_attrib *a, const wc_attr_tick_in *t)
{
    kepler_state *k = &a->k;
    k->have_snap = 1;
    k->snap_mono_ns = t->mono_ns;
    for (size_t z = 0; z < a->nzone; z++) {
        k->snap_counter_uj[z] = k->read_uj[z];
        k->snap_active_uj[z] = a->node[z].active_total_uj;
        k->snap_idle_uj[z] = a->node[z].idle_total_uj;
    }
    attr_commit_tables(a, t, &k->procs, &k->procs_next, &k->cont, &k->cont_next, &k->pod,
                  &k->pod_next);
    attr_commit_vms(a, t, &k->vm, &k->vm_next);
}

/* A failed refresh (monitor.go): the new snapshot is discarded, the previous
 * one — and with it every exported total — stays; no workload rows. */
static void kepler_failed(wc_attrib *a, int cpu_failed, wc_attr_out *out)
{
    kepler_state *k = &a->k;
    for (size_t z = 0; z < a->nzone; z++) {
        wc_attr_node_out *n = &a->node[z];
        n->flags = a->zflags[z] | WC_AF_REFRESH_FAILED;
        if (k->have_snap) {
            n->counter_uj = k->snap_counter_uj[z];
            n->active_total_uj = k->snap_active_uj[z];
            n->idle_total_uj = k->snap_idle_uj[z];
        }
    }
    out->flags = WC_AF_REFRESH_FAILED | (cpu_failed ? WC_AF_CPU_MISSING : 0u);
    out->nwork = 0;
}

/* One Kepler refresh in the model's order (monitor.go calculatePower,
 * firstReading; kepler-model.md §1.2): head_order for main after 81477124,
 * else the released v0.10.0–v0.11.4 order; zone_types from v0.11.4 (§2.6). */
static void kepler_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out, int head_order,
                        int zone_types)
{
    kepler_state *k = &a->k;
    k->zone_types = zone_types;
    int first = !k->have_snap, zones_failed = 0, cpu_failed = 0;
    double ratio = k->ratio;
    if (head_order && !first) {
        /* HEAD: informer Refresh() first, so the node splits with the ratio
         * of the same interval. */
        cpu_failed = kepler_refresh(a, t);
        ratio = k->ratio;
        if (!cpu_failed)
            zones_failed = kepler_read_zones(a, t) > 0;
    } else {
        /* v0.10–v0.11.4, and every first refresh: the node first, with the
         * ratio of the previous informer refresh. */
        zones_failed = kepler_read_zones(a, t) > 0;
        if (!zones_failed)
            cpu_failed = kepler_refresh(a, t);
    }
    if (zones_failed || cpu_failed) {
        kepler_failed(a, cpu_failed, out);
        return;
    }
    kepler_group(a, t->nprocs);
    attr_group_vms(a, t);
    if (first) {
        kepler_node_first(a, ratio);
    } else {
        double dt_s = go_duration_seconds(t->mono_ns - k->snap_mono_ns);
        for (size_t z = 0; z < a->nzone; z++)
            kepler_node_zone(a, z, ratio, dt_s);
    }
    out->nwork = kepler_rows(a, t, first);
    kepler_commit(a, t);
    if (!first) /* calculate*Power (not the first read) feed the trackers */
        attr_term_collect(a, out);
    out->flags = first ? WC_AF_FIRST : 0u;
    out->cpu_delta_sum_s = k->d_sum_s;
    out->node_busy_s = k->busy_s;
}

void attr_kepler_010_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out)
{
    kepler_step(a, t, out, 0, 0);
}

void attr_kepler_011_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out)
{
    kepler_step(a, t, out, 0, 1);
}

void attr_kepler_head_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out)
{
    kepler_step(a, t, out, 1, 1);
}
