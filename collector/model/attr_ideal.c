/*
 * attr_ideal.c — the ideal model of the attribution engine: wattcal's
 * correction of the pipeline Kepler follows (kepler-model.md §5.4).
 *
 * How it fits: attribution.c checks the tick, reserves the memory and calls
 * attr_ideal_step through the model table (attr_models.c); the state kept
 * here (ideal_state) and the engine helpers used are in attr_internal.h.
 * What it changes against the Kepler models (attr_kepler.c): per-socket
 * counter intervals through collector/meter/counter.c (wattcal's wrap and
 * plausibility rule, a transient socket failure bridged by its last good
 * reading), (pid, starttime) identity instead of pid, no lifetime first Δ,
 * shares over max(ΣΔ, busy CPU) so CPU the sampler missed stays
 * unattributed, running totals that never reset, and containers and pods
 * the exact sums of their processes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/counter.h"
#include "collector/model/attr_internal.h"

#define TWO_POW_64 18446744073709551616.0
#define NS_PER_TICK (WC_NS_PER_S / WC_USER_HZ)


/* Ideal energy share: trunc toward zero, never negative, saturating. */
static uint64_t ideal_trunc_uj(double x)
{
    if (!(x > 0))
        return 0;
    if (x >= TWO_POW_64)
        return UINT64_MAX;
    return (uint64_t)x;
}

/* ---- state ---------------------------------------------------------------- */

/* Per-socket baselines and per-zone totals, sized by the first tick's layout. */
static int ideal_layout(wc_attrib *a, const wc_attr_tick_in *t)
{
    (void)t;
    size_t ns = a->nsock ? a->nsock : 1, nz = a->nzone ? a->nzone : 1;
    ideal_state *i = &a->i;
    i->base_uj = calloc(ns, sizeof *i->base_uj);
    i->base_uw = calloc(ns, sizeof *i->base_uw);
    i->base_mono_ns = calloc(ns, sizeof *i->base_mono_ns);
    i->has_base = calloc(ns, sizeof *i->has_base);
    i->counter_uj = calloc(nz, sizeof *i->counter_uj);
    i->active_total_uj = calloc(nz, sizeof *i->active_total_uj);
    i->idle_total_uj = calloc(nz, sizeof *i->idle_total_uj);
    i->attributable = calloc(nz, sizeof *i->attributable);
    return i->base_uj && i->base_uw && i->base_mono_ns && i->has_base && i->counter_uj &&
                   i->active_total_uj && i->idle_total_uj && i->attributable
               ? 0
               : -ENOMEM;
}

/* Frees and forgets what ideal_layout made. */
static void ideal_release(wc_attrib *a)
{
    ideal_state *i = &a->i;
    void *p[] = {i->base_uj,       i->has_base,      i->counter_uj,   i->active_total_uj,
                 i->idle_total_uj, i->attributable,  i->base_mono_ns, i->base_uw};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++)
        free(p[k]);
    i->base_uj = i->counter_uj = i->active_total_uj = i->idle_total_uj = NULL;
    i->has_base = i->attributable = NULL;
    i->base_mono_ns = NULL;
    i->base_uw = NULL;
}

/* The next snapshot's tables. */
static int ideal_reserve(wc_attrib *a, size_t n, size_t cont_bytes, size_t pod_bytes,
                         size_t vm_bytes)
{
    ideal_state *i = &a->i;
    int rc = attr_proc_tab_reserve(&i->procs_next, n, a->nzone);
    if (!rc)
        rc = attr_str_tab_reserve(&i->cont_next, n, a->nzone, cont_bytes);
    if (!rc)
        rc = attr_str_tab_reserve(&i->pod_next, n, a->nzone, pod_bytes);
    if (!rc)
        rc = attr_str_tab_reserve(&i->vm_next, n, a->nzone, vm_bytes);
    return rc;
}

/* Frees the snapshot tables. */
static void ideal_free(wc_attrib *a)
{
    ideal_state *i = &a->i;
    attr_proc_tab_free(&i->procs);
    attr_proc_tab_free(&i->procs_next);
    attr_str_tab_free(&i->cont);
    attr_str_tab_free(&i->cont_next);
    attr_str_tab_free(&i->pod);
    attr_str_tab_free(&i->pod_next);
    attr_str_tab_free(&i->vm);
    attr_str_tab_free(&i->vm_next);
}

const attr_state_ops attr_ideal_state = {ideal_layout, ideal_release, ideal_reserve, ideal_free};

/* ---- ideal ------------------------------------------------------------------ */

/* True when a process that starttime ticks after boot started after the
 * boot-clock instant boot_ns (starttime × 10 ms > boot_ns). */
static int started_after(uint64_t starttime, int64_t boot_ns)
{
    if (boot_ns < 0)
        return 1;
    return starttime > (uint64_t)(boot_ns / NS_PER_TICK);
}

/* Δ ticks per process under (pid, starttime) identity: a known identity
 * differences its cumulative ticks; a new one counts its whole CPU only when
 * it started after the previous tick (it ran only inside this interval),
 * else 0. Returns D in ticks. */
static uint64_t ideal_proc_deltas(wc_attrib *a, const wc_attr_tick_in *t, int first)
{
    ideal_state *st = &a->i;
    scratch *s = &a->s;
    uint64_t sum = 0;
    for (size_t i = 0; i < t->nprocs; i++) {
        const wc_attr_proc_in *p = &t->procs[i];
        uint64_t d = 0;
        if (!first) {
            size_t j = attr_proc_tab_find(&st->procs, p->pid, p->starttime, 1);
            if (j != NPOS) {
                uint64_t prev = st->procs.rec[j].ticks;
                d = p->cpu_ticks >= prev ? p->cpu_ticks - prev : 0;
            } else if (started_after(p->starttime, st->prev_boot_ns)) {
                d = p->cpu_ticks;
            }
        }
        s->d_ticks[i] = d;
        s->d_s[i] = (double)d / WC_USER_HZ;
        s->pflags[i] = first ? WC_AF_FIRST : 0u;
        sum += d;
    }
    return sum;
}

/* One zone's energy over this tick: the sum of its sockets' intervals, its
 * power and how long the longest of them was. */
typedef struct zone_interval {
    uint64_t sum_uj;     /* Σ usable socket ΔE */
    double power_uw;     /* Σ ΔE/Δt (one division when every Δt is the same) */
    int64_t span_ns;     /* longest usable socket interval; 0 when none */
} zone_interval;

/* One zone's interval from its sockets' counters, each differenced with
 * wattcal's rule (collector/meter/counter.c) over its own interval — the time since
 * that socket's last good reading — before summing. Returns 1 when every
 * socket gave a usable interval. A readable socket's baseline always moves
 * on. An unreadable one keeps its last good reading when the failure was
 * transient, so its next reading spans the gap (the counter's ceiling then
 * applies to the longer interval); one that vanished (ENOENT, cases/B25)
 * loses its baseline, so its next interval is unmeasurable and a new baseline
 * starts. */
/* A power gauge's energy over dt_ns (hwmon power sensors, kepler-model.md
 * §2.4): the trapezoid of the previous and the current reading, where Kepler
 * takes the current reading for the whole interval. A reading that is not a
 * finite power in [0, ceiling] is unusable (UNMEASURABLE, never counted). */
static wc_delta_status ideal_gauge_delta(double prev_uw, double cur_uw, int64_t dt_ns,
                                         double ceiling_watts, uint64_t *d)
{
    double ceil_uw = (ceiling_watts > 0 ? ceiling_watts : WC_DEFAULT_CEILING_WATTS) * 1e6;
    if (!(cur_uw >= 0 && cur_uw <= ceil_uw && prev_uw >= 0 && prev_uw <= ceil_uw) ||
        dt_ns <= 0)
        return WC_DELTA_IMPLAUSIBLE;
    *d = ideal_trunc_uj((prev_uw + cur_uw) / 2.0 * go_duration_seconds(dt_ns));
    return WC_DELTA_OK;
}

static int ideal_zone_delta(wc_attrib *a, const wc_attr_tick_in *t, size_t z, int first,
                            zone_interval *zi, unsigned *flags)
{
    ideal_state *st = &a->i;
    int complete = 1, uniform = 1;
    double power_sum = 0.0;
    *zi = (zone_interval){0, 0.0, 0};
    for (size_t j = 0; j < a->zone_nsock[z]; j++) {
        size_t s = a->zone_sock[z][j];
        const wc_attr_zone_in *in = &t->zones[s];
        if (!in->ok) {
            if (in->vanished)
                st->has_base[s] = 0;
            *flags |= WC_AF_ZONE_MISSING;
            complete = 0;
            continue;
        }
        uint64_t prev = st->base_uj[s], d = 0;
        double prev_uw = st->base_uw[s];
        int had = st->has_base[s];
        int64_t dt_ns = t->mono_ns - st->base_mono_ns[s];
        st->base_uj[s] = in->energy_uj;
        st->base_uw[s] = in->power_uw;
        st->base_mono_ns[s] = t->mono_ns;
        st->has_base[s] = 1;
        if (first || !had) {
            complete = 0;
            continue;
        }
        wc_delta_status ds =
            in->gauge ? ideal_gauge_delta(prev_uw, in->power_uw, dt_ns, a->ceiling_watts, &d)
                      : wc_counter_delta_checked(prev, in->energy_uj, in->max_energy_range_uj,
                                                 dt_ns, a->ceiling_watts, &d);
        if (!wc_delta_usable(ds)) {
            if (ds == WC_DELTA_AMBIGUOUS)
                *flags |= WC_AF_WRAP_AMBIGUOUS;
            complete = 0;
            continue;
        }
        if (ds == WC_DELTA_WRAPPED)
            *flags |= WC_AF_WRAP;
        if (zi->span_ns && dt_ns != zi->span_ns)
            uniform = 0;
        if (dt_ns > zi->span_ns)
            zi->span_ns = dt_ns;
        zi->sum_uj += d;
        power_sum += (double)d / go_duration_seconds(dt_ns);
    }
    if (zi->span_ns)
        zi->power_uw = uniform ? (double)zi->sum_uj / go_duration_seconds(zi->span_ns) : power_sum;
    if (!complete && !first)
        *flags |= WC_AF_UNMEASURABLE | WC_AF_ZONE_MISSING;
    return complete;
}

/* Splits zone z's ΔE of this tick into idle and active (issue 14 item 6:
 * every joule of node energy in exactly one bucket of the gap identity,
 * gap = idle + unattributed − over). With a usable /proc/stat interval the
 * split is the usage ratio's — also for a partial interval (a socket absent
 * or unmeasurable: ΔE sums the others), whose active part then goes
 * unattributed (not attributable: flagged UNMEASURABLE). Without one the
 * ratio is unknown: all of ΔE counts as active, unattributed, never as idle. */
static void ideal_split(ideal_state *st, size_t z, wc_attr_node_out *n, int cpu_valid,
                        double ratio)
{
    uint64_t sum = n->delta_uj;
    double r = cpu_valid ? ratio : 1.0;
    n->active_uj = cpu_valid ? ideal_trunc_uj((double)sum * ratio) : sum;
    n->idle_uj = sum - n->active_uj;
    n->active_uw = n->power_uw * r;
    n->idle_uw = n->power_uw - n->active_uw;
    st->active_total_uj[z] += n->active_uj;
    st->idle_total_uj[z] += n->idle_uj;
}

/* Node zones under the ideal model: ΔE of the usable sockets, split by
 * ideal_split; a zone is attributable only when every socket and /proc/stat
 * gave a usable interval and it has active energy and a non-zero share
 * denominator. A socket recovering from a transient failure brings the
 * energy of the whole gap into this tick, split and shared with this tick's
 * ratio and CPU deltas. */
static void ideal_node(wc_attrib *a, const wc_attr_tick_in *t, int first, int64_t dt_ns,
                       int cpu_valid, double ratio)
{
    ideal_state *st = &a->i;
    double dt_s = first ? 0.0 : go_duration_seconds(dt_ns);
    for (size_t z = 0; z < a->nzone; z++) {
        wc_attr_node_out *n = &a->node[z];
        zone_interval zi;
        int complete = ideal_zone_delta(a, t, z, first, &zi, &n->flags);
        uint64_t sum = zi.sum_uj;
        st->attributable[z] = 0;
        n->ratio = ratio;
        n->interval_s = zi.span_ns ? go_duration_seconds(zi.span_ns) : dt_s;
        if (first) {
            n->flags |= WC_AF_FIRST;
        } else {
            n->delta_uj = sum;
            st->counter_uj[z] += sum;
            n->power_uw = zi.power_uw;
            if (!cpu_valid)
                n->flags |= WC_AF_UNMEASURABLE;
        }
        if (!first)
            ideal_split(st, z, n, cpu_valid, ratio);
        if (!first && complete && cpu_valid) {
            st->attributable[z] = n->active_uj > 0 && st->denom_ticks > 0;
            if (!st->attributable[z])
                n->flags |= WC_AF_SKIPPED;
        }
        n->counter_uj = st->counter_uj[z];
        n->active_total_uj = st->active_total_uj[z];
        n->idle_total_uj = st->idle_total_uj[z];
    }
}

/* Process rows: share = Δ / max(D, busy) of the zone's active energy and
 * power; totals carry on while the identity lives and never reset. */
static size_t ideal_proc_rows(wc_attrib *a, const wc_attr_tick_in *t, int first)
{
    ideal_state *st = &a->i;
    const scratch *s = &a->s;
    size_t nz = a->nzone, r = 0;
    for (size_t i = 0; i < t->nprocs; i++) {
        const wc_attr_proc_in *p = &t->procs[i];
        size_t j = first ? NPOS : attr_proc_tab_find(&st->procs, p->pid, p->starttime, 1);
        const uint64_t *prev = j == NPOS ? NULL : &st->procs.tot_uj[j * nz];
        r = attr_rows_start(a, r, WC_LEVEL_PROCESS, i, s->ckey[i], s->d_s[i], s->pflags[i], prev);
        for (size_t z = 0; z < nz; z++) {
            wc_attr_work_out *w = &a->work[r - nz + z];
            const wc_attr_node_out *n = &a->node[z];
            w->flags |= n->flags & (WC_AF_SKIPPED | WC_AF_UNMEASURABLE);
            if (!st->attributable[z])
                continue;
            double share = (double)s->d_ticks[i] / (double)st->denom_ticks;
            w->energy_uj = ideal_trunc_uj(share * (double)n->active_uj);
            w->power_uw = share * n->active_uw;
            w->total_uj += w->energy_uj;
        }
    }
    return r;
}

/* Rows of ng groups (containers or pods) as exact sums of their processes'
 * rows (grp[i] = group of process i or NPOS); totals from prev_tab. */
static size_t ideal_group_rows(wc_attrib *a, size_t r, wc_attr_level level, size_t n,
                               const size_t *grp, const size_t *first_proc, size_t ng,
                               const char **key, const str_tab *prev_tab)
{
    scratch *s = &a->s;
    size_t nz = a->nzone, base = r;
    for (size_t g = 0; g < ng; g++) {
        size_t i0 = first_proc[g];
        const uint64_t *prev = attr_str_prev(prev_tab, key[i0], nz);
        r = attr_rows_start(a, r, level, i0, key[i0], 0.0, s->pflags[i0], prev);
        for (size_t z = 0; z < nz; z++)
            a->work[r - nz + z].flags |= a->node[z].flags & (WC_AF_SKIPPED | WC_AF_UNMEASURABLE);
        s->g_ticks[g] = 0;
    }
    for (size_t i = 0; i < n; i++) {
        size_t g = grp[i];
        if (g == NPOS)
            continue;
        s->g_ticks[g] += s->d_ticks[i];
        for (size_t z = 0; z < nz; z++) {
            wc_attr_work_out *w = &a->work[base + g * nz + z];
            const wc_attr_work_out *pw = &a->work[i * nz + z];
            w->energy_uj += pw->energy_uj;
            w->total_uj += pw->energy_uj;
            w->power_uw += pw->power_uw;
        }
    }
    for (size_t g = 0; g < ng; g++)
        for (size_t z = 0; z < nz; z++)
            a->work[base + g * nz + z].cpu_delta_s = (double)s->g_ticks[g] / WC_USER_HZ;
    return r;
}

/* /proc/stat unreadable: the tick is ignored and every baseline kept, so the
 * next tick's energy, /proc/stat and process deltas all span both intervals
 * — except that a zone that vanished this tick loses its baseline (its
 * reappearance must not be differenced against the old counter, B25). */
static void ideal_cpu_missing(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out)
{
    ideal_state *st = &a->i;
    for (size_t s = 0; s < a->nsock; s++)
        if (!t->zones[s].ok && t->zones[s].vanished)
            st->has_base[s] = 0;
    for (size_t z = 0; z < a->nzone; z++) {
        wc_attr_node_out *n = &a->node[z];
        n->flags = WC_AF_UNMEASURABLE;
        n->counter_uj = st->counter_uj[z];
        n->active_total_uj = st->active_total_uj[z];
        n->idle_total_uj = st->idle_total_uj[z];
    }
    out->flags = WC_AF_CPU_MISSING;
    out->nwork = 0;
}

/* One tick of wattcal's corrected model. */
void attr_ideal_step(wc_attrib *a, const wc_attr_tick_in *t, wc_attr_out *out)
{
    ideal_state *st = &a->i;
    scratch *s = &a->s;
    if (!t->cpu_ok) {
        ideal_cpu_missing(a, t, out);
        return;
    }
    int first = !st->have_prev;
    int64_t dt_ns = first ? 0 : t->mono_ns - st->prev_mono_ns;
    uint64_t busy = 0, total = 0;
    int cpu_valid = !first && attr_cpu_interval(&st->prev_cpu, &t->cpu, 1, &busy, &total);
    if (!cpu_valid)
        busy = 0;
    double ratio = cpu_valid && total > 0 ? (double)busy / (double)total : 0.0;
    uint64_t d_sum = ideal_proc_deltas(a, t, first);
    st->denom_ticks = d_sum > busy ? d_sum : busy;
    ideal_node(a, t, first, dt_ns, cpu_valid, ratio);
    attr_group_containers(s, t->nprocs);
    s->npod = attr_group_by_key(s, s->pkey, t->nprocs, s->pgrp, s->pfirst, s->psorted);
    size_t r = ideal_proc_rows(a, t, first);
    r = ideal_group_rows(a, r, WC_LEVEL_CONTAINER, t->nprocs, s->cgrp, s->cfirst, s->ncont,
                         s->ckey, &st->cont);
    r = ideal_group_rows(a, r, WC_LEVEL_POD, t->nprocs, s->pgrp, s->pfirst, s->npod, s->pkey,
                         &st->pod);
    attr_group_vms(a, t); /* a VM: the sum of its processes */
    r = ideal_group_rows(a, r, WC_LEVEL_VM, t->nprocs, s->vgrp, s->vfirst, s->nvm, s->vkey,
                         &st->vm);
    out->nwork = r;
    attr_commit_tables(a, t, &st->procs, &st->procs_next, &st->cont, &st->cont_next, &st->pod,
                  &st->pod_next);
    attr_commit_vms(a, t, &st->vm, &st->vm_next);
    st->prev_cpu = t->cpu;
    st->prev_mono_ns = t->mono_ns;
    st->prev_boot_ns = t->boot_ns;
    st->have_prev = 1;
    out->flags = first ? WC_AF_FIRST : 0u;
    out->cpu_delta_sum_s = (double)d_sum / WC_USER_HZ;
    out->node_busy_s = (double)busy / WC_USER_HZ;
}
