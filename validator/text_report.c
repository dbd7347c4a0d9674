/*
 * text_report.c — the text tables of `wattcal validate` (text_report.h).
 */
#include "validator/text_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/wc_text.h"
#include "validator/exporter_text.h"
#include "validator/gate_notes.h"
#include "validator/junit.h"
#include "validator/cpu_share_out.h"
#include "validator/stat_table.h"

const char *wc_term_safe(const char *s, char *buf, size_t cap)
{
    size_t i = 0;
    for (; s && s[i] && i + 1 < cap; i++)
        buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    buf[i] = '\0';
    return buf;
}

/* A string from the run for printing: control and non-ASCII bytes as '?'.
 * Rotates over 16 buffers, so one printf may take several. */
static const char *safe(const char *s)
{
    static char buf[16][160];
    static unsigned next;
    char *b = buf[next++ % 16];
    return wc_term_safe(s ? s : "", b, sizeof buf[0]);
}

/* A number for a cell: "-" when unknown. */
static const char *num(double v, int prec, char *buf, size_t cap)
{
    if (!isfinite(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.*f", prec, v);
    return buf;
}

/* A percentage cell "12.3%"; "-" when unknown. */
static const char *pct_cell(double v, char *buf, size_t cap)
{
    if (!isfinite(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.1f%%", v);
    return buf;
}

/* "est [lo,hi]" or "est" when there is no interval. */
static const char *with_ci(const wc_ci *c, int prec, char *buf, size_t cap)
{
    char e[24], l[24], h[24];
    if (!isfinite(c->est))
        snprintf(buf, cap, "-");
    else if (!isfinite(c->lo) || !isfinite(c->hi))
        snprintf(buf, cap, "%s", num(c->est, prec, e, sizeof e));
    else
        snprintf(buf, cap, "%s [%s,%s]", num(c->est, prec, e, sizeof e), num(c->lo, prec, l, sizeof l),
                 num(c->hi, prec, h, sizeof h));
    return buf;
}

static const char *prov_label(const char *p)
{
    return !strcmp(p, "simulated") ? "SIMULATED" : !strcmp(p, "estimated") ? "ESTIMATED" : safe(p);
}

/* ---- attribution gap (validator/gap.h) ---------------------------------- */

/* What the timebase dropped from scoring, and the wall-clock steps it saw
 * (issue 14 item 9: say it). */
static void print_clock_notes(FILE *out, const wc_series_gaps *g)
{
    if (g->long_gaps || g->suspends)
        fprintf(out, "note: dropped from scoring: %lld suspend(s) (%.1f s asleep) and %lld gap(s)"
                     " (%.1f s without samples): no power is derived across them, no pair or"
                     " window spanning them is scored\n", (long long)g->suspends,
                g->suspended_seconds, (long long)g->long_gaps, g->gap_seconds);
    if (g->clock_steps)
        fprintf(out, "note: the wall clock stepped %lld time(s) (%.1f s in all): nothing dropped,"
                     " intervals come from the monotonic clock; ground truth aligned by wall clock"
                     " (--truth file:) is off by the step after it\n", (long long)g->clock_steps,
                g->clock_step_seconds);
}

/* The counter ceiling the run was recorded with, and the intervals long
 * enough for a whole wrap to hide in them at it (issue 14 items 2, 3). */
static void print_ceiling(FILE *out, const wc_gap_report *r)
{
    if (!strcmp(r->meter_kind, "import"))
        return;
    if (r->ceiling_stored)
        fprintf(out, "counter ceiling: %.0f W per zone (stored with the run)\n", r->ceiling_watts);
    else
        fprintf(out, "counter ceiling: %.0f W per zone (built in: the run was recorded before the"
                     " ceiling was stored; no hidden-wrap check)\n", r->ceiling_watts);
    int64_t n = 0;
    const char *first = NULL;
    for (size_t i = 0; i < r->nzones; i++) {
        if (r->zones[i].meter_ambiguous && !first)
            first = r->zones[i].zone;
        n += r->zones[i].meter_ambiguous;
    }
    if (n)
        fprintf(out, "warning: %lld counter interval(s) (first zone: %s) long enough for a whole"
                     " wrap to hide at the %.0f W ceiling: flagged ambiguous, never counted as"
                     " measured (meter_J leaves them out)\n", (long long)n, safe(first),
                r->ceiling_watts);
}

static void print_zone_table(FILE *out, const wc_gap_report *r)
{
    fprintf(out, "\nAttribution gap per zone (joules; gap = node − Σ processes = idle + unattributed − over)\n");
    fprintf(out, "%-8s %12s %12s %12s %12s %12s %12s %12s %8s %8s %9s\n", "zone", "meter_J",
            "node_J", "idle_J", "active_J", "processes_J", "unattrib_J", "gap_J", "gap_%", "idle_%",
            "unattr_%");
    for (size_t i = 0; i < r->nzones; i++) {
        const wc_gap_zone *z = &r->zones[i];
        double gap = z->node_joules - z->process_joules;
        char g[32], id[32], un[32];
        fprintf(out, "%-8s %12.3f %12.3f %12.3f %12.3f %12.3f %12.3f %12.3f %8s %8s %9s\n", safe(z->zone),
                z->meter_joules, z->node_joules, z->idle_joules, z->active_joules, z->process_joules,
                z->unattributed_joules, gap, num(wc_gap_pct(gap, z->node_joules), 2, g, sizeof g),
                num(wc_gap_pct(z->idle_joules, z->node_joules), 2, id, sizeof id),
                num(wc_gap_pct(z->unattributed_joules, z->active_joules), 2, un, sizeof un));
    }
}

static void print_excluded(FILE *out, const wc_gap_report *r);

static void print_quirks(FILE *out, const wc_gap_report *r)
{
    fprintf(out, "\nIntervals flagged per zone: skipped = active energy or ΣΔcpu was 0 (no workload got energy);\n"
                 "reset = workload totals fell to 0; wrap = a counter decrease taken as one wrap (Kepler:\n"
                 "per socket or its aggregated counter); unmeas = no usable energy (model); meter_unmeas =\n"
                 "raw-counter intervals wattcal could not measure (reset, unknown range, missing zone);\n"
                 "refresh_fail = Kepler discarded the refresh (a zone or /proc/stat read failed);\n"
                 "ratio_bad = usage ratio outside [0,1] (a /proc/stat counter went backwards)\n");
    fprintf(out, "%-8s %8s %8s %8s %8s %13s %10s %15s\n", "zone", "skipped", "reset", "wrap",
            "unmeas", "refresh_fail", "ratio_bad", "meter_unmeas");
    for (size_t i = 0; i < r->nzones; i++) {
        const wc_gap_zone *z = &r->zones[i];
        fprintf(out, "%-8s %8lld %8lld %8lld %8lld %13lld %10lld %15lld\n", safe(z->zone),
                (long long)z->skipped, (long long)z->totals_reset, (long long)z->wraps,
                (long long)z->unmeasurable, (long long)z->refresh_failed,
                (long long)z->ratio_out_of_range, (long long)z->meter_unmeasurable);
    }
    fprintf(out, "process-intervals charged with a lifetime first Δ: %lld; with a negative share (pid reuse): %lld\n",
            (long long)r->lifetime_delta_rows, (long long)r->negative_share_rows);
    print_excluded(out, r);
}

/* The NEGATIVE_SHARE rows left out of every sum above (validator/levels.h),
 * per level, and their workloads; nothing when there are none. */
static void print_excluded(FILE *out, const wc_gap_report *r)
{
    static const char *const lvl[] = {"", "process", "container", "pod", "vm"};
    for (int l = 1; l < 5; l++)
        if (r->excluded_rows[l])
            fprintf(out, "%s level: %lld interval rows with Kepler's negative share (pid reuse wraps"
                    " them to ~2^64 uJ: Kepler's own arithmetic, which the deployed exporter exports"
                    " the same way) excluded: the exporter's numbers for those workloads in those"
                    " intervals are not usable (their node energy counts as unattributed)\n",
                    lvl[l], (long long)r->excluded_rows[l]);
    for (size_t i = 0; i < r->nexcluded; i++)
        fprintf(out, "  excluded %-9s %s\n", r->excluded[i].level, safe(r->excluded[i].name));
    if (r->excluded_workloads > (int64_t)r->nexcluded)
        fprintf(out, "  ... and %lld more workloads\n",
                (long long)(r->excluded_workloads - (int64_t)r->nexcluded));
}

static double zone_node(const wc_gap_report *r, const char *zone)
{
    for (size_t i = 0; i < r->nzones; i++)
        if (!strcmp(r->zones[i].zone, zone))
            return r->zones[i].node_joules;
    return 0;
}

static void print_top(FILE *out, const wc_gap_report *r)
{
    double node = zone_node(r, r->rank_zone);
    char name[64], pct[32];
    fprintf(out, "\nTop processes by %s energy (attributed, model %s; share of node %s energy;\n"
                 "model_cpu_s = CPU seconds the model charged, Kepler's lifetime first delta included)\n",
            safe(r->rank_zone), r->model, safe(r->rank_zone));
    if (!r->ntop_processes) {
        fprintf(out, "  (no process received energy%s)\n",
                !strcmp(r->meter_kind, "import") ? ": an imported run has no /proc data" : "");
    } else {
        fprintf(out, "%8s %12s %-16s %-14s %-12s %12s %11s %8s\n", "pid", "starttime", "comm",
                "container", "pod", "joules", "model_cpu_s", "share_%");
        for (size_t i = 0; i < r->ntop_processes; i++) {
            const wc_gap_top *t = &r->top_processes[i];
            fprintf(out, "%8d %12llu %-16s %-14.12s %-12.8s %12.3f %11.2f %8s\n", t->pid,
                    (unsigned long long)t->starttime, wc_term_safe(t->name, name, 17),
                    t->container_id[0] ? t->container_id : "-", t->pod_uid[0] ? t->pod_uid : "-",
                    t->joules, t->cpu_seconds, num(wc_gap_pct(t->joules, node), 2, pct, sizeof pct));
        }
    }
    fprintf(out, "\nTop containers by %s energy (attributed, model %s)\n", safe(r->rank_zone), r->model);
    if (!r->ntop_containers)
        fprintf(out, "  (no container processes were seen on this node)\n");
    for (size_t i = 0; i < r->ntop_containers; i++) {
        const wc_gap_top *t = &r->top_containers[i];
        fprintf(out, "  %-14.12s pod %-36s %12.3f J %10.2f cpu_s %8s %%\n", t->container_id,
                t->pod_uid[0] ? t->pod_uid : "-", t->joules, t->cpu_seconds,
                num(wc_gap_pct(t->joules, node), 2, pct, sizeof pct));
    }
}

/* ---- levels and invariants (validator/levels.h) -------------------------- */

static void print_levels(FILE *out, const wc_validation *v)
{
    if (!v->have_levels)
        return;
    const wc_levels_report *l = &v->levels;
    fprintf(out, "\nAttribution gap by level (model %s, joules): node → processes → containers → pods\n"
                 "unattr_skipped = active energy of intervals the model attributed nothing (skipped,"
                 " unmeasurable,\nrefresh failed); unattr_missed = CPU no sampled process carried"
                 " (short-lived, vanished PIDs);\noutside_containers = Σ processes − Σ containers;"
                 " outside_pods = Σ containers − Σ pods\n", v->model);
    fprintf(out, "%-8s %12s %12s %14s %13s %10s %12s %12s %12s %12s %10s\n", "zone", "node_J", "idle_J",
            "unattr_skipped", "unattr_missed", "over_J", "processes_J", "outside_cont", "containers_J",
            "outside_pods", "pods_J");
    for (size_t i = 0; i < l->nzones; i++) {
        const wc_level_zone *z = &l->zones[i];
        fprintf(out, "%-8s %12.3f %12.3f %14.3f %13.3f %10.3f %12.3f %12.3f %12.3f %12.3f %10.3f\n",
                safe(z->zone), z->node_j, z->idle_j, z->unattr_skipped_j, z->unattr_missed_j, z->over_j,
                z->process_j, z->process_j - z->container_j, z->container_j,
                z->container_j - z->pod_j, z->pod_j);
    }
    fprintf(out, "\nInvariant Σ children ≤ parent, per interval (model %s)\n", v->model);
    fprintf(out, "%-8s %-44s %10s %9s %16s\n", "zone", "invariant", "checked", "violated",
            "worst_excess_J");
    for (size_t i = 0; i < l->nzones; i++)
        for (int k = 0; k < WC_INV_COUNT; k++) {
            const wc_invariant *inv = &l->zones[i].inv[k];
            if (!inv->checked)
                continue;
            char w[48];
            if (inv->violated)
                snprintf(w, sizeof w, "%.6f (tick %lld)", inv->worst_excess_j, (long long)inv->worst_tick_id);
            else
                snprintf(w, sizeof w, "-");
            fprintf(out, "%-8s %-44s %10lld %9lld %16s\n", safe(l->zones[i].zone), wc_invariant_name(k),
                    (long long)inv->checked, (long long)inv->violated, w);
        }
    /* The worst window of the rank zone, the whole series is in --json. */
    const wc_level_zone *z = wc_levels_zone(l, v->gap.rank_zone);
    if (z && z->nwindows) {
        size_t worst = 0;
        double worst_pct = -1;
        for (size_t k = 0; k < z->nwindows; k++) {
            double p = z->windows[k].active_j > 0 ? 100.0 * z->windows[k].unattributed_j / z->windows[k].active_j : -1;
            if (p > worst_pct)
                worst_pct = p, worst = k;
        }
        if (worst_pct >= 0)
            fprintf(out, "gap over time (%g s windows, %zu of them; series in --json): worst %s window"
                         " at +%.0f s: %.3f J unattributed = %.2f %% of its active energy\n",
                    l->window_s, z->nwindows, safe(z->zone),
                    (double)(z->windows[worst].start_ns - z->windows[0].start_ns) / 1e9,
                    z->windows[worst].unattributed_j, worst_pct);
    }
}

/* The VM level (work_attr level 4), only in a run with VMs: Σ VMs per zone,
 * the gap processes → VMs, then each VM with Kepler's labels. */
static void print_vms(FILE *out, const wc_validation *v)
{
    if (!v->have_levels || !v->levels.nvms)
        return;
    const wc_levels_report *l = &v->levels;
    fprintf(out, "\nVMs (model %s, joules; a VM is its hypervisor processes: kepler models give it its"
                 " last process's\nenergy, ideal their sum); outside_vms = Σ processes − Σ VMs\n", v->model);
    fprintf(out, "%-8s %12s %12s %12s\n", "zone", "processes_J", "outside_vms", "vms_J");
    for (size_t i = 0; i < l->nzones; i++) {
        const wc_level_zone *z = &l->zones[i];
        fprintf(out, "%-8s %12.3f %12.3f %12.3f\n", safe(z->zone), z->process_j, z->process_j - z->vm_j,
                z->vm_j);
    }
    char a[160], b[160], c[48];
    fprintf(out, "%-8s %-38s %-20s %-10s %9s %12s %10s\n", "zone", "vm_id", "vm_name", "hypervisor",
            "processes", "energy_J", "cpu_s");
    for (size_t i = 0; i < l->nvms; i++) {
        const wc_level_vm *m = &l->vms[i];
        fprintf(out, "%-8s %-38s %-20s %-10s %9lld %12.3f %10.3f\n", safe(m->zone),
                wc_term_safe(m->vm_id, a, sizeof a), wc_term_safe(m->vm_name, b, sizeof b),
                wc_term_safe(m->hypervisor, c, sizeof c), (long long)m->processes, m->joules, m->cpu_s);
    }
}

/* ---- ground truth and node accuracy (validator/accuracy.h) --------------- */

static void print_truth_delivery(FILE *out, const wc_gap_report *r)
{
    if (!r->ntruth)
        return;
    char a[256], b[256];
    fprintf(out, "\nGround truth recorded (what each source delivered)\n");
    for (size_t i = 0; i < r->ntruth; i++) {
        const wc_gap_truth *t = &r->truth[i];
        fprintf(out, "  %s [%s] ok %lld, stale %lld, unavailable %lld, error %lld",
                wc_term_safe(t->spec, a, sizeof a), prov_label(t->provenance), (long long)t->ok,
                (long long)t->stale, (long long)t->unavailable, (long long)t->error);
        if (isfinite(t->mean_watts))
            fprintf(out, "; mean of ok samples %.1f W", t->mean_watts);
        else if (!isnan(t->mean_watts))
            fprintf(out, "; mean of ok samples out of range (readings too large to average)");
        fprintf(out, "\n    %s\n", wc_term_safe(t->description, b, sizeof b));
        if (t->last_error[0])
            fprintf(out, "    last problem: %s\n", wc_term_safe(t->last_error, a, sizeof a));
    }
}

static void print_lag(FILE *out, const wc_truth_series *t, const wc_lagwin *l)
{
    char lo[32], hi[32];
    if (!l->estimated)
        fprintf(out, "  lag %.2f s (given with --lag)\n", l->lag_s);
    else if (!l->identifiable)
        fprintf(out, "  %s\n", l->note);
    else
        fprintf(out, "  lag %.2f s (95%% CI %s..%s, %d bootstrap replicates, block %zu): %s\n", l->lag_s,
                num(l->lag_lo_s, 2, lo, sizeof lo), num(l->lag_hi_s, 2, hi, sizeof hi),
                l->replicates, l->block_len, l->note);
    if (isfinite(l->window_s))
        fprintf(out, "  averaging window ESTIMATED %.2f s (95%% CI %s..%s): the device states none\n",
                l->window_s, num(l->window_lo_s, 2, lo, sizeof lo),
                num(l->window_hi_s, 2, hi, sizeof hi));
    else if (t->any_window_known)
        fprintf(out, "  averaging window stated by the device (median %.3g s): each reading is compared"
                     " with the source over that window\n", t->median_window_s);
    else
        fprintf(out, "  averaging window not stated and not estimated: each reading stands for the"
                     " time since the previous poll\n");
}

/* The cell of statistic s (stat_table.h) of a: its estimate, "est [lo,hi]"
 * when its interval is shown, "lo..hi" for a range, then " (n)" when it has
 * a count. A number is cut to 31 characters, "est [lo,hi]" to 63, the cell
 * to cap - 1. */
static const char *stat_cell(const wc_stat *s, const wc_accuracy *a, char *buf, size_t cap)
{
    char e[32], f[32], t[80];
    if (s->kind == WC_STAT_NUMBER) {
        snprintf(buf, cap, "%s", num(wc_stat_number(s, a), s->decimals, e, sizeof e));
        return buf;
    }
    const wc_ci *c = wc_stat_ci(s, a, 0);
    if (s->kind == WC_STAT_RANGE)
        snprintf(t, sizeof t, "%s..%s", num(c->est, s->decimals, e, sizeof e),
                 num(wc_stat_ci(s, a, 1)->est, s->decimals, f, sizeof f));
    else if (s->flags & WC_STAT_SHOW_CI)
        with_ci(c, s->decimals, t, 64);
    else
        snprintf(t, sizeof t, "%s", num(c->est, s->decimals, e, sizeof e));
    if (s->count_key)
        wc_textf(buf, cap, "%s (%zu)", t, wc_stat_count(s, a));
    else
        wc_textf(buf, cap, "%s", t);
    return buf;
}

/* The columns of the statistics shown in table `in` (WC_STAT_IN_TEXT or
 * WC_STAT_IN_PHASE): their headers when a is NULL, else a's cells; each
 * " %-*s" at the statistic's width. */
static void print_stats(FILE *out, unsigned in, const wc_accuracy *a)
{
    char cell[96];
    for (const wc_stat *s = wc_stats; s->key; s++)
        if (s->flags & in)
            fprintf(out, " %-*s", s->text_width,
                    a ? stat_cell(s, a, cell, sizeof cell) : s->text_label);
    fputc('\n', out);
}

static void print_accuracy_row(FILE *out, const char *label, const wc_acc_cell *c)
{
    char win[16];
    if (c->window_s > 0)
        snprintf(win, sizeof win, "%gs", c->window_s);
    else
        snprintf(win, sizeof win, "native");
    fprintf(out, "  %-30.30s %-7s %6zu", label, win, c->acc.n);
    print_stats(out, WC_STAT_IN_TEXT, &c->acc);
}

static void print_phase_accuracy(FILE *out, const wc_validation *v, size_t si, size_t ti)
{
    const wc_accuracy_report *a = &v->acc;
    int any = 0;
    char name[80], s[32], g[32];
    for (size_t ph = 0; ph < a->nphases; ph++) {
        const wc_acc_cell *c = wc_accuracy_cell(a, si, ti, v->gate_window_s, (int)ph);
        if (!c)
            continue;
        if (!any) {
            fprintf(out, "  per phase (%s vs truth %s [%s], %s pairs):\n  %-22s %4s %6s %9s %9s",
                    safe(a->sources[si].name), wc_term_safe(a->truth[ti].spec, name, sizeof name),
                    prov_label(a->truth[ti].provenance), v->gate_window_s > 0 ? "windowed" : "native", "phase",
                    "rep", "n", "source_W", "truth_W");
            print_stats(out, WC_STAT_IN_PHASE, NULL);
        }
        any = 1;
        fprintf(out, "  %-22s %4d %6zu %9s %9s", wc_term_safe(a->phases[ph].name, name, 23),
                a->phases[ph].repetition, c->acc.n, num(c->acc.mean_source_w, 2, s, sizeof s),
                num(c->acc.mean_truth_w, 2, g, sizeof g));
        print_stats(out, WC_STAT_IN_PHASE, &c->acc);
    }
}

static void print_energy(FILE *out, const wc_accuracy_report *a, size_t ti)
{
    /* the longest scored window gives non-overlapping energy */
    double w = 0;
    for (size_t k = 0; k < a->nwindows; k++)
        if (!a->window_skipped[ti][k][0] && a->windows_s[k] > w)
            for (size_t si = 0; si < a->nsources; si++)
                if (wc_accuracy_cell(a, si, ti, a->windows_s[k], -1))
                    w = a->windows_s[k];
    char spec[128];
    fprintf(out, "  energy over the run: per source over the whole run; against the truth %s [%s] over the"
                 " %s it covers\n", wc_term_safe(a->truth[ti].spec, spec, sizeof spec),
            prov_label(a->truth[ti].provenance), w > 0 ? "scored windows" : "readings");
    if (w == 0)
        fprintf(out, "  (no window was scored: the truth's own window is longer than every window asked"
                     " for; see --window)\n");
    else
        fprintf(out, "  (%g s windows)\n", w);
    fprintf(out, "  %-30s %14s %12s %10s %14s %14s %12s %9s\n", "source", "run_J", "run_kWh",
            "covered_s", "source_J", "truth_J", "diff_J", "diff_%");
    for (size_t si = 0; si < a->nsources; si++) {
        const wc_acc_cell *c = w > 0 ? wc_accuracy_cell(a, si, ti, w, -1) : NULL;
        char cs[32], sj[32], gj[32], dj[32], dp[32];
        double diff = c ? c->source_j - c->truth_j : NAN;
        fprintf(out, "  %-30.30s %14.1f %12.6f %10s %14s %14s %12s %9s\n", safe(a->sources[si].name),
                a->sources[si].run_energy_j, a->sources[si].run_energy_j / 3.6e6,
                num(c ? c->covered_s : NAN, 0, cs, sizeof cs),
                num(c ? c->source_j : NAN, 1, sj, sizeof sj),
                num(c ? c->truth_j : NAN, 1, gj, sizeof gj), num(diff, 1, dj, sizeof dj),
                num(c && c->truth_j != 0 ? 100.0 * diff / c->truth_j : NAN, 2, dp, sizeof dp));
    }
}

static void print_accuracy(FILE *out, const wc_validation *v)
{
    if (!v->have_accuracy)
        return;
    const wc_accuracy_report *a = &v->acc;
    char buf[256];
    fprintf(out, "\nNode power sources of this run\n");
    for (size_t i = 0; i < a->nsources; i++)
        fprintf(out, "  %-30.30s [%s] %s\n", safe(a->sources[i].name), prov_label(a->sources[i].provenance),
                wc_term_safe(a->sources[i].description, buf, sizeof buf));
    if (!a->ntruth) {
        fprintf(out, "\nNode accuracy: the run has no ground truth (record with --truth, or import a"
                     " wall-power column): nothing to score\n");
        return;
    }
    const wc_boot_cfg *bc = &a->opts.boot;
    fprintf(out, "\nNode accuracy against ground truth (source − truth, W; 95 %% CIs: moving-block bootstrap,"
                 " %d replicates, seed %llu;\nn = readings, or windows, whose shifted interval the source"
                 " covers)\n", wc_boot_replicates(bc),
            (unsigned long long)(bc->seed ? bc->seed : WC_BOOT_DEFAULT_SEED));
    for (size_t ti = 0; ti < a->ntruth; ti++) {
        const wc_truth_series *t = &a->truth[ti];
        const wc_truth_counts *k = &t->counts;
        fprintf(out, "truth %s [%s]: %lld readings used of %lld polls; excluded: %lld stale, %lld repeats"
                     " of one reading, %lld unavailable, %lld errors, %lld implausible\n",
                wc_term_safe(t->spec, buf, sizeof buf), prov_label(t->provenance), (long long)k->used,
                (long long)k->polls, (long long)k->stale, (long long)k->repeats,
                (long long)k->unavailable, (long long)k->error, (long long)k->invalid);
        print_lag(out, t, &a->lag[ti]);
        fprintf(out, "  MAPE only where truth > %.2f W (%s)\n", a->mape_floor_w[ti],
                a->opts.mape_floor_w > 0 ? "--mape-floor" : "10 % of its median");
        for (size_t wi = 0; wi < a->nwindows; wi++)
            if (a->window_skipped[ti][wi][0])
                fprintf(out, "  %g s windows not scored: %s\n", a->windows_s[wi], a->window_skipped[ti][wi]);
        fprintf(out, "  %-30s %-7s %6s", "source", "window", "n");
        print_stats(out, WC_STAT_IN_TEXT, NULL);
        for (size_t si = 0; si < a->nsources; si++)
            for (size_t wi = 0; wi < a->nwindows; wi++) {
                const wc_acc_cell *c = wc_accuracy_cell(a, si, ti, a->windows_s[wi], -1);
                if (c)
                    print_accuracy_row(out, safe(a->sources[si].name), c);
            }
        const wc_acc_cell *m0 = wc_accuracy_cell(a, 0, ti, 0, -1);
        if (m0 && !strncmp(a->sources[0].name, "meter:", 6) && m0->acc.mean_source_w > 0 &&
            (m0->acc.mean_truth_w / m0->acc.mean_source_w > 20 ||
             m0->acc.mean_truth_w / m0->acc.mean_source_w < 0.5))
            fprintf(out, "  WARNING: the truth averages %.4g x the %s power; PSU loss and platform"
                         " power give roughly 1 to 3 x: check the truth's unit or scale\n",
                    m0->acc.mean_truth_w / m0->acc.mean_source_w, safe(a->sources[0].name));
        if (v->gated_source >= 0)
            print_phase_accuracy(out, v, (size_t)v->gated_source, ti);
        print_energy(out, a, ti);
    }
}

/* ---- calibrations ------------------------------------------------------ */

static void print_fits(FILE *out, const wc_validation *v)
{
    if (v->fits_ignored)
        fprintf(out, "\nnote: %zu stored calibration(s) ignored: their coefficients are not finite"
                     " numbers (re-run `wattcal calibrate`)\n", v->fits_ignored);
    if (!v->nfits)
        return;
    char t[160], f[300];
    fprintf(out, "\nCalibrations stored in this run (ESTIMATED figures derive from them; `wattcal calibrate`)\n");
    for (size_t i = 0; i < v->nfits; i++) {
        const wc_calibration *c = &v->fits[i];
        fprintf(out, "  #%lld %-16s %-24.24s c0 %.4g ± %.2g, c1 %.4g ± %.2g, R² %.4f, n %zu; fitted on %s\n",
                (long long)c->id, wc_cal_kind_name(c->kind), wc_term_safe(c->target, t, sizeof t),
                c->fit.c0, c->fit.se0, c->fit.c1, c->fit.se1, c->fit.r2, c->fit.n,
                c->fitted_on[0] ? wc_term_safe(c->fitted_on, f, sizeof f) : "this run");
    }
}

/* ---- workloads (validator/gap.h, validator/workload_bias.h) ------------- */

static void print_phases(FILE *out, const wc_gap_report *r)
{
    if (!r->nphases)
        return;
    fprintf(out, "\nPhases (isolation known answers): mean node power (%s meter, package + dram) and the\n"
                 "marginal power over the idle baseline (the phases labelled idle); ground truth per phase"
                 " is in the\naccuracy table above (aligned, never by poll time)\n",
            r->provenance);
    fprintf(out, "%-18s %4s %-9s %8s %10s %11s\n", "phase", "rep", "class", "secs", "node_W", "marginal_W");
    char name[64], a[32], b[32];
    for (size_t i = 0; i < r->nphases; i++) {
        const wc_gap_phase *p = &r->phases[i];
        fprintf(out, "%-18s %4d %-9s %8.1f %10s %11s\n", wc_term_safe(p->name, name, 19), p->repetition,
                safe(p->cls), p->duration_s, num(p->node_watts, 2, a, sizeof a),
                num(p->marginal_watts, 2, b, sizeof b));
    }
    size_t below = wc_gap_below_baseline(r, name, sizeof name);
    if (below)
        fprintf(out, "WARNING: %zu phase(s) (first: %s) drew less than the idle baseline: something else loaded"
                     " the node\nduring the idle phases%s, so the isolation known answers and the bias"
                     " matrix below are not\ntrustworthy: replay on a quiet node\n", below,
                safe(name), !strcmp(r->provenance, "simulated")
                                ? " (the simulated node follows this whole machine's CPU)" : "");
}

static void print_workloads(FILE *out, const wc_gap_report *r)
{
    if (!r->nworkloads)
        return;
    fprintf(out, "\nReplayed workloads (known answers): true CPU from wait4 rusage of the whole subtree;"
                 "\nseen = CPU /proc sampling saw of its processes; coverage = seen / true; lost_J ="
                 " ESTIMATED energy polling\nlost: (true - seen) CPU-s x the model's active package J"
                 " per busy CPU-s in that phase\n");
    fprintf(out, "%-18s %4s %-9s %7s %10s %10s %9s %10s %8s\n", "phase", "rep", "class", "workers",
            "true_cpu_s", "seen_cpu_s", "coverage", "lost_J", "crashed");
    char name[64], cov[32], lost[32];
    for (size_t i = 0; i < r->nworkloads; i++) {
        const wc_gap_workload *w = &r->workloads[i];
        fprintf(out, "%-18s %4d %-9s %7d %10.2f %10.2f %9s %10s %8d\n", wc_term_safe(w->phase, name, 19),
                w->repetition, safe(w->cls), w->workers, w->true_cpu_s, w->seen_cpu_s,
                num(100.0 * w->coverage, 2, cov, sizeof cov), num(w->lost_joules, 2, lost, sizeof lost),
                w->crashed);
    }
    fprintf(out, "(coverage in %%: short-lived processes that start and end between two samples are"
                 " invisible to /proc polling)\n");
}

static void print_bias(FILE *out, const wc_bias_report *b)
{
    if (!b->nclasses)
        return;
    char x[96], y[96], z[96], name[64];
    fprintf(out, "\nWorkload classes against isolation (%s meter; attributed by model %s; 95 %% CIs by"
                 " block bootstrap)\n", b->meter_provenance, b->model);
    if (!b->has_baseline) {
        fprintf(out, "  no idle phase: no baseline, so no marginal energy (add an idle phase to the scenario)\n");
        return;
    }
    fprintf(out, "  idle baseline: package %s W, dram %s W, package+dram %s W\n",
            num(b->idle_w[0], 2, x, sizeof x), num(b->idle_w[1], 2, y, sizeof y),
            num(b->idle_w[2], 2, z, sizeof z));
    if (b->nisolated) {
        fprintf(out, "  isolated phases (package+dram): marginal = mean power − idle baseline\n");
        fprintf(out, "  %-18s %4s %-9s %7s %10s %-26s %12s %14s\n", "phase", "rep", "class", "secs",
                "true_cpu_s", "marginal_W [95% CI]", "marginal_J", "attributed_J");
        for (size_t i = 0; i < b->nisolated; i++) {
            const wc_bias_isolated *s = &b->isolated[i];
            fprintf(out, "  %-18s %4d %-9s %7.1f %10.2f %-26s %12s %14.3f\n",
                    wc_term_safe(s->phase, name, 19), s->repetition, safe(s->cls), s->duration_s, s->true_cpu_s,
                    with_ci(&s->marginal_w[WC_BIAS_NODE], 2, x, sizeof x),
                    num(s->marginal_j[WC_BIAS_NODE], 2, y, sizeof y), s->attributed_j[WC_BIAS_NODE]);
        }
    }
    if (b->nmixed) {
        fprintf(out, "  mixed phases (package+dram): expected = the class's isolated J per true CPU-s ×"
                     " its true CPU-s in the mix\n");
        fprintf(out, "  %-18s %4s %-9s %10s %9s %13s %-28s %-22s\n", "phase", "rep", "class",
                "true_cpu_s", "coverage", "attributed_J", "expected_J [95% CI]", "factor [95% CI]");
        for (size_t i = 0; i < b->nmixed; i++) {
            const wc_bias_mixed *m = &b->mixed[i];
            char cov[32];
            fprintf(out, "  %-18s %4d %-9s %10.2f %9s %13.3f %-28s %-22s\n", wc_term_safe(m->phase, name, 19),
                    m->repetition, safe(m->cls), m->true_cpu_s, pct_cell(100.0 * m->coverage, cov, sizeof cov),
                    m->attributed_j[WC_BIAS_NODE], with_ci(&m->expected_j[WC_BIAS_NODE], 2, x, sizeof x),
                    with_ci(&m->factor[WC_BIAS_NODE], 3, y, sizeof y));
        }
    }
    fprintf(out, "  bias matrix: attributed / expected in the mix per class and zone (1 = the class gets what"
                 " it costs in\n  isolation; a model whose active energy includes a share of idle power puts"
                 " every class above 1,\n  so compare the classes with each other; - = no mixed or no"
                 " isolated phase)\n");
    fprintf(out, "  %-9s %-22s %-22s %-22s %10s %9s\n", "class", "package", "dram", "package+dram",
            "coverage", "isolated");
    for (size_t i = 0; i < b->nclasses; i++) {
        const wc_bias_class *c = &b->classes[i];
        char cov[32], w[96];
        fprintf(out, "  %-9s %-22s %-22s %-22s %10s %9zu\n", c->cls, with_ci(&c->factor[0], 3, x, sizeof x),
                with_ci(&c->factor[1], 3, y, sizeof y), with_ci(&c->factor[2], 3, w, sizeof w),
                pct_cell(100.0 * c->coverage, cov, sizeof cov), c->n_isolated);
    }
}

/* ---- the gate ------------------------------------------------------------ */

static void print_checks(FILE *out, const wc_validation *v)
{
    char ph[96], msg[440], subj[200];
    if (v->nchecks) {
        fprintf(out, "\nTolerances (one check per phase × metric × threshold; a node check needs n >= %d"
                     " pairs)\n", WC_CHECK_MIN_N);
        for (size_t i = 0; i < v->nchecks; i++) {
            const wc_check *c = &v->checks[i];
            fprintf(out, "%s %-14s %s: %s\n", wc_check_status_name(c->status),
                    wc_term_safe(c->phase, ph, sizeof ph), wc_term_safe(c->subject, subj, sizeof subj),
                    wc_term_safe(c->message, msg, sizeof msg));
        }
    }
    const char *prov = wc_gate_provenance(v);
    char note[600], note_safe[600];
    if (v->outcome != WC_GATE_NONE)
        fprintf(out, "gate: %s%s%s%s%s%s\n", wc_gate_outcome_name(v->outcome), prov[0] ? " (" : "", prov,
                prov[0] ? ")" : "", v->outcome_reason[0] ? " — " : "",
                wc_term_safe(v->outcome_reason, msg, sizeof msg));
    if (wc_gate_uncalibrated_note(v, note, sizeof note))
        fprintf(out, "note: %s\n", wc_term_safe(note, note_safe, sizeof note_safe));
    size_t xt, xf, xs;
    if (wc_junit_xp_suite(v, &xt, &xf, &xs))
        fprintf(out, "the exporter's invariants (not gated; a JUnit suite of their own): %zu checked,"
                     " %zu passed, %zu failed, %zu no verdict\n", xt, xt - xf - xs, xf, xs);
    fprintf(out, "%zu passed, %zu failed", v->passed, v->failed);
    if (v->skipped)
        fprintf(out, ", %zu no verdict", v->skipped);
    if (v->insufficient)
        fprintf(out, ", %zu insufficient", v->insufficient);
    if (!v->nchecks) /* nothing asked: never reads as a pass in a CI log */
        fprintf(out, " (no tolerance given: nothing was gated; --tolerance gates)");
    fputc('\n', out);
}

void wc_text_validation(FILE *out, const wc_validation *v, const char *db_path)
{
    const wc_gap_report *r = &v->gap;
    char desc[256], path[256];
    fprintf(out, "wattcal validate: %s — host %s — %lld ticks over %.1f s — model %s\n",
            wc_term_safe(db_path, path, sizeof path), wc_term_safe(r->host, desc, sizeof desc),
            (long long)r->ticks, r->duration_s, r->model);
    fprintf(out, "node meter: %s — %s\n",
            !strcmp(r->provenance, "simulated") ? "SIMULATED (no hardware measured)" : r->provenance,
            wc_term_safe(r->meter_description, desc, sizeof desc));
    if (!strcmp(r->meter_kind, "import"))
        fprintf(out, "note: imported run: meter and ground-truth series only, no /proc data, so no"
                     " attribution (node/process columns stay 0)\n");
    else if (!r->clean_stop)
        fprintf(out, "note: the recording did not end cleanly (killed or failed): %lld committed"
                     " ticks are analysed\n", (long long)r->ticks);
    print_ceiling(out, r);
    for (size_t i = 0; i < v->slips.n; i++) {
        char m[sizeof v->slips.msg[0]];
        fprintf(out, "warning: unit slip? %s\n", wc_term_safe(v->slips.msg[i], m, sizeof m));
    }
    if (v->have_accuracy)
        print_clock_notes(out, &v->acc.tb.gaps);
    fprintf(out, "meter_J: %s energy from raw counters; node/idle/active: as model %s split it;"
                 " processes/containers/pods: attributed by model %s\n",
            r->provenance, r->model, r->model);
    print_zone_table(out, r);
    print_levels(out, v);
    print_vms(out, v);
    print_quirks(out, r);
    print_top(out, r);
    wc_showback_text(out, &v->showback);
    print_truth_delivery(out, r);
    print_accuracy(out, v);
    print_fits(out, v);
    print_phases(out, r);
    print_workloads(out, r);
    print_bias(out, &v->bias);
    wc_xp_text(out, v->xp);
    wc_cpu_share_text(out, &v->cpu_share);
    print_checks(out, v);
}
