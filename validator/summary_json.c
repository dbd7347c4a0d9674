/*
 * summary_json.c — the JSON summary of a validation (summary_json.h).
 */
#include "validator/summary_json.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_text.h"
#include "validator/exporter_text.h"
#include "validator/gate_notes.h"
#include "validator/cpu_share_out.h"
#include "validator/stat_table.h"

/* Adds a string from the run (process names, labels, BMC text may hold any
 * bytes): invalid UTF-8 becomes '?', so the document is always valid JSON
 * text; cJSON escapes quotes and control characters. */
static void add_str(cJSON *o, const char *k, const char *s)
{
    size_t len = s ? strlen(s) : 0;
    char *c = malloc(len + 1);
    if (!c) {
        cJSON_AddNullToObject(o, k);
        return;
    }
    size_t j = 0;
    for (size_t i = 0; i < len;) {
        size_t n = wc_utf8_len((const unsigned char *)s + i);
        if (!n) {
            c[j++] = '?';
            i++;
            continue;
        }
        memcpy(c + j, s + i, n);
        i += n, j += n;
    }
    c[j] = '\0';
    cJSON_AddStringToObject(o, k, c);
    free(c);
}

static void add_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static void add_ci(cJSON *o, const char *k, const wc_ci *c)
{
    cJSON *x = cJSON_AddObjectToObject(o, k);
    add_num(x, "est", c->est);
    add_num(x, "lo", c->lo);
    add_num(x, "hi", c->hi);
}

static void add_run(cJSON *root, const wc_validation *v, const char *db_path)
{
    const wc_gap_report *r = &v->gap;
    cJSON *run = cJSON_AddObjectToObject(root, "run");
    add_str(run, "db", db_path);
    add_str(run, "host", r->host);
    cJSON_AddNumberToObject(run, "ticks", (double)r->ticks);
    add_num(run, "duration_s", r->duration_s);
    add_str(run, "model", v->model);
    add_str(run, "meter_kind", r->meter_kind);
    add_str(run, "meter_provenance", r->provenance);
    add_str(run, "meter_description", r->meter_description);
    cJSON_AddBoolToObject(run, "clean_stop", r->clean_stop);
    add_num(run, "ceiling_watts", r->ceiling_watts);
    cJSON_AddBoolToObject(run, "ceiling_stored", r->ceiling_stored);
    cJSON *slips = cJSON_AddArrayToObject(run, "unit_slip_warnings");
    for (size_t i = 0; i < v->slips.n; i++)
        cJSON_AddItemToArray(slips, cJSON_CreateString(v->slips.msg[i]));
    if (v->have_accuracy) {
        const wc_series_gaps *g = &v->acc.tb.gaps;
        cJSON *gaps = cJSON_AddObjectToObject(run, "gaps");
        cJSON_AddNumberToObject(gaps, "long_gaps", (double)g->long_gaps);
        add_num(gaps, "gap_seconds", g->gap_seconds);
        cJSON_AddNumberToObject(gaps, "suspends", (double)g->suspends);
        add_num(gaps, "suspended_seconds", g->suspended_seconds);
        cJSON_AddNumberToObject(gaps, "clock_steps", (double)g->clock_steps);
        add_num(gaps, "clock_step_seconds", g->clock_step_seconds);
        add_num(gaps, "median_tick_spacing_s", (double)v->acc.tb.median_spacing_ns / 1e9);
    }
}

static void add_excluded(cJSON *root, const wc_gap_report *r);

static void add_zones(cJSON *root, const wc_validation *v)
{
    const wc_gap_report *r = &v->gap;
    cJSON *zones = cJSON_AddArrayToObject(root, "zones");
    for (size_t i = 0; i < r->nzones; i++) {
        const wc_gap_zone *z = &r->zones[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "zone", z->zone);
        add_str(o, "meter_provenance", r->provenance);
        add_str(o, "attribution", v->model);
        add_num(o, "meter_joules", z->meter_joules);
        add_num(o, "node_joules", z->node_joules);
        add_num(o, "idle_joules", z->idle_joules);
        add_num(o, "active_joules", z->active_joules);
        add_num(o, "process_joules", z->process_joules);
        add_num(o, "container_joules", z->container_joules);
        add_num(o, "pod_joules", z->pod_joules);
        add_num(o, "unattributed_joules", z->unattributed_joules);
        add_num(o, "over_joules", z->over_joules);
        add_num(o, "gap_joules", z->node_joules - z->process_joules);
        add_num(o, "gap_pct", wc_gap_pct(z->node_joules - z->process_joules, z->node_joules));
        add_num(o, "unattributed_pct_of_active", wc_gap_pct(z->unattributed_joules, z->active_joules));
        add_num(o, "over_pct_of_active", wc_gap_pct(z->over_joules, z->active_joules));
        cJSON *f = cJSON_AddObjectToObject(o, "flagged_intervals");
        cJSON_AddNumberToObject(f, "intervals", (double)z->intervals);
        cJSON_AddNumberToObject(f, "skipped", (double)z->skipped);
        cJSON_AddNumberToObject(f, "totals_reset", (double)z->totals_reset);
        cJSON_AddNumberToObject(f, "wraps", (double)z->wraps);
        cJSON_AddNumberToObject(f, "unmeasurable", (double)z->unmeasurable);
        cJSON_AddNumberToObject(f, "refresh_failed", (double)z->refresh_failed);
        cJSON_AddNumberToObject(f, "ratio_out_of_range", (double)z->ratio_out_of_range);
        cJSON_AddNumberToObject(f, "meter_unmeasurable", (double)z->meter_unmeasurable);
        cJSON_AddNumberToObject(f, "meter_wrap_ambiguous", (double)z->meter_ambiguous);
        cJSON_AddItemToArray(zones, o);
    }
    cJSON *q = cJSON_AddObjectToObject(root, "quirk_rows");
    cJSON_AddNumberToObject(q, "lifetime_first_delta", (double)r->lifetime_delta_rows);
    cJSON_AddNumberToObject(q, "negative_share", (double)r->negative_share_rows);
    add_excluded(root, r);
}

/* "negative_share_excluded": the NEGATIVE_SHARE rows left out of every sum
 * (validator/levels.h): rows per level, the workloads (the first 32) and
 * their full count. */
static void add_excluded(cJSON *root, const wc_gap_report *r)
{
    static const char *const lvl[] = {"", "process", "container", "pod", "vm"};
    cJSON *x = cJSON_AddObjectToObject(root, "negative_share_excluded");
    cJSON *rows = cJSON_AddObjectToObject(x, "rows");
    for (int l = 1; l < 5; l++)
        cJSON_AddNumberToObject(rows, lvl[l], (double)r->excluded_rows[l]);
    cJSON_AddNumberToObject(x, "workload_count", (double)r->excluded_workloads);
    cJSON *w = cJSON_AddArrayToObject(x, "workloads");
    for (size_t i = 0; i < r->nexcluded; i++) {
        cJSON *o = cJSON_CreateObject();
        add_str(o, "level", r->excluded[i].level);
        add_str(o, "name", r->excluded[i].name);
        cJSON_AddItemToArray(w, o);
    }
    add_str(x, "why", "pid reuse drove Kepler's CPU delta sum below 0 and uint64 wrapped the shares"
            " to ~2^64 uJ (Kepler's own arithmetic, exported the same way by the deployed"
            " exporter): excluded from every total, share, showback and second opinion; the"
            " node energy of those intervals counts as unattributed");
}

static void add_top(cJSON *root, const wc_gap_report *r)
{
    cJSON *t = cJSON_AddObjectToObject(root, "top");
    add_str(t, "zone", r->rank_zone);
    add_str(t, "attribution", r->model);
    cJSON *p = cJSON_AddArrayToObject(t, "processes");
    for (size_t i = 0; i < r->ntop_processes; i++) {
        const wc_gap_top *x = &r->top_processes[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "pid", x->pid);
        cJSON_AddNumberToObject(o, "starttime", (double)x->starttime);
        add_str(o, "comm", x->name);
        add_str(o, "container_id", x->container_id);
        add_str(o, "pod_uid", x->pod_uid);
        add_num(o, "joules", x->joules);
        add_num(o, "model_cpu_s", x->cpu_seconds);
        cJSON_AddItemToArray(p, o);
    }
    cJSON *c = cJSON_AddArrayToObject(t, "containers");
    for (size_t i = 0; i < r->ntop_containers; i++) {
        const wc_gap_top *x = &r->top_containers[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "container_id", x->container_id);
        add_str(o, "pod_uid", x->pod_uid);
        add_num(o, "joules", x->joules);
        add_num(o, "model_cpu_s", x->cpu_seconds);
        cJSON_AddItemToArray(c, o);
    }
}

/* levels.vms: each VM of the model (work_attr level 4) with Kepler's labels,
 * and per zone Σ VMs; absent in a run without VMs. */
static void add_vms(cJSON *lv, const wc_levels_report *l)
{
    if (!l->nvms)
        return;
    cJSON *zs = cJSON_AddArrayToObject(lv, "vm_zones");
    for (size_t i = 0; i < l->nzones; i++) {
        cJSON *o = cJSON_CreateObject();
        add_str(o, "zone", l->zones[i].zone);
        add_num(o, "process_joules", l->zones[i].process_j);
        add_num(o, "outside_vms_joules", l->zones[i].process_j - l->zones[i].vm_j);
        add_num(o, "vm_joules", l->zones[i].vm_j);
        cJSON_AddItemToArray(zs, o);
    }
    cJSON *vs = cJSON_AddArrayToObject(lv, "vms");
    for (size_t i = 0; i < l->nvms; i++) {
        const wc_level_vm *m = &l->vms[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "zone", m->zone);
        add_str(o, "vm_id", m->vm_id);
        add_str(o, "vm_name", m->vm_name);
        add_str(o, "hypervisor", m->hypervisor);
        cJSON_AddNumberToObject(o, "processes", (double)m->processes);
        add_num(o, "joules", m->joules);
        add_num(o, "cpu_seconds", m->cpu_s);
        cJSON_AddItemToArray(vs, o);
    }
}

static void add_levels(cJSON *root, const wc_validation *v)
{
    if (!v->have_levels)
        return;
    const wc_levels_report *l = &v->levels;
    cJSON *lv = cJSON_AddObjectToObject(root, "levels");
    add_str(lv, "attribution", v->model);
    add_num(lv, "window_s", l->window_s);
    cJSON *zs = cJSON_AddArrayToObject(lv, "zones");
    for (size_t i = 0; i < l->nzones; i++) {
        const wc_level_zone *z = &l->zones[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "zone", z->zone);
        add_num(o, "node_joules", z->node_j);
        add_num(o, "idle_joules", z->idle_j);
        add_num(o, "active_joules", z->active_j);
        add_num(o, "unattributed_skipped_joules", z->unattr_skipped_j);
        add_num(o, "unattributed_missed_cpu_joules", z->unattr_missed_j);
        add_num(o, "over_joules", z->over_j);
        add_num(o, "process_joules", z->process_j);
        add_num(o, "outside_containers_joules", z->process_j - z->container_j);
        add_num(o, "container_joules", z->container_j);
        add_num(o, "outside_pods_joules", z->container_j - z->pod_j);
        add_num(o, "pod_joules", z->pod_j);
        cJSON *inv = cJSON_AddArrayToObject(o, "invariants");
        for (int k = 0; k < WC_INV_COUNT; k++) {
            cJSON *x = cJSON_CreateObject();
            add_str(x, "invariant", wc_invariant_name(k));
            cJSON_AddNumberToObject(x, "checked", (double)z->inv[k].checked);
            cJSON_AddNumberToObject(x, "violated", (double)z->inv[k].violated);
            add_num(x, "worst_excess_joules", z->inv[k].worst_excess_j);
            if (z->inv[k].violated)
                cJSON_AddNumberToObject(x, "worst_tick_id", (double)z->inv[k].worst_tick_id);
            cJSON_AddItemToArray(inv, x);
        }
        cJSON *ws = cJSON_AddArrayToObject(o, "windows");
        int64_t t0 = z->nwindows ? z->windows[0].start_ns : 0;
        for (size_t k = 0; k < z->nwindows; k++) {
            const wc_level_window *w = &z->windows[k];
            cJSON *x = cJSON_CreateObject();
            add_num(x, "start_s", (double)(w->start_ns - t0) / 1e9);
            add_num(x, "node_joules", w->node_j);
            add_num(x, "idle_joules", w->idle_j);
            add_num(x, "active_joules", w->active_j);
            add_num(x, "process_joules", w->process_j);
            add_num(x, "container_joules", w->container_j);
            add_num(x, "pod_joules", w->pod_j);
            if (l->nvms)
                add_num(x, "vm_joules", w->vm_j);
            add_num(x, "unattributed_joules", w->unattributed_j);
            add_num(x, "over_joules", w->over_j);
            cJSON_AddItemToArray(ws, x);
        }
        cJSON_AddItemToArray(zs, o);
    }
    add_vms(lv, l);
}

static void add_bootstrap(cJSON *root, const wc_accuracy_report *a)
{
    cJSON *b = cJSON_AddObjectToObject(root, "bootstrap");
    add_str(b, "method", "moving-block bootstrap (Kunsch 1989), percentile intervals");
    add_str(b, "block_rule", "max(ceil(n^(1/3)), pairs one truth averaging window spans)");
    cJSON_AddNumberToObject(b, "replicates", wc_boot_replicates(&a->opts.boot));
    cJSON_AddNumberToObject(b, "seed", (double)(a->opts.boot.seed ? a->opts.boot.seed : WC_BOOT_DEFAULT_SEED));
}

static void add_sources(cJSON *root, const wc_validation *v)
{
    const wc_accuracy_report *a = &v->acc;
    cJSON *srcs = cJSON_AddArrayToObject(root, "sources");
    for (size_t i = 0; i < a->nsources; i++) {
        cJSON *o = cJSON_CreateObject();
        add_str(o, "name", a->sources[i].name);
        add_str(o, "provenance", a->sources[i].provenance);
        add_str(o, "description", a->sources[i].description);
        add_num(o, "run_joules", a->sources[i].run_energy_j);
        add_num(o, "run_kwh", a->sources[i].run_energy_j / 3.6e6);
        cJSON_AddBoolToObject(o, "gated", (int)i == v->gated_source);
        cJSON_AddItemToArray(srcs, o);
    }
}

/* A truth source's lag and averaging window, as estimated or stated. */
static void add_lag_window(cJSON *o, const wc_truth_series *t, const wc_lagwin *l)
{
    cJSON *lag = cJSON_AddObjectToObject(o, "lag");
    cJSON_AddBoolToObject(lag, "estimated", l->estimated);
    cJSON_AddBoolToObject(lag, "identifiable", l->identifiable);
    add_num(lag, "est_s", l->lag_s);
    add_num(lag, "lo_s", l->lag_lo_s);
    add_num(lag, "hi_s", l->lag_hi_s);
    add_num(lag, "correlation", l->corr);
    add_num(lag, "correlation_at_zero", l->corr_at_zero);
    cJSON_AddNumberToObject(lag, "readings", (double)l->n_used);
    add_str(lag, "note", l->note);
    cJSON *w = cJSON_AddObjectToObject(o, "window");
    cJSON_AddBoolToObject(w, "stated_by_device", t->any_window_known);
    add_num(w, "stated_median_s", t->any_window_known ? t->median_window_s : NAN);
    add_num(w, "estimated_s", l->window_s);
    add_num(w, "estimated_lo_s", l->window_lo_s);
    add_num(w, "estimated_hi_s", l->window_hi_s);
}

static cJSON *truth_object(const wc_accuracy_report *a, size_t ti)
{
    const wc_truth_series *t = &a->truth[ti];
    cJSON *o = cJSON_CreateObject();
    add_str(o, "spec", t->spec);
    add_str(o, "kind", t->kind);
    add_str(o, "provenance", t->provenance);
    cJSON *c = cJSON_AddObjectToObject(o, "samples");
    cJSON_AddNumberToObject(c, "polls", (double)t->counts.polls);
    cJSON_AddNumberToObject(c, "used", (double)t->counts.used);
    cJSON_AddNumberToObject(c, "excluded_stale", (double)t->counts.stale);
    cJSON_AddNumberToObject(c, "folded_repeats", (double)t->counts.repeats);
    cJSON_AddNumberToObject(c, "excluded_unavailable", (double)t->counts.unavailable);
    cJSON_AddNumberToObject(c, "excluded_error", (double)t->counts.error);
    cJSON_AddNumberToObject(c, "excluded_implausible", (double)t->counts.invalid);
    add_lag_window(o, t, &a->lag[ti]);
    add_num(o, "mape_floor_w", a->mape_floor_w[ti]);
    cJSON *sk = cJSON_AddArrayToObject(o, "windows_not_scored");
    for (size_t k = 0; k < a->nwindows; k++)
        if (a->window_skipped[ti][k][0]) {
            cJSON *x = cJSON_CreateObject();
            add_num(x, "window_s", a->windows_s[k]);
            add_str(x, "why", a->window_skipped[ti][k]);
            cJSON_AddItemToArray(sk, x);
        }
    return o;
}

/* Every statistic of the table (stat_table.h) in its order: a wc_ci as
 * {est, lo, hi}, a number, a range as its two ends, a count after its
 * statistic. */
static void add_stats(cJSON *o, const wc_accuracy *x)
{
    for (const wc_stat *s = wc_stats; s->key; s++) {
        if (s->kind == WC_STAT_NUMBER)
            add_num(o, s->key, wc_stat_number(s, x));
        else
            add_ci(o, s->key, wc_stat_ci(s, x, 0));
        if (s->kind == WC_STAT_RANGE)
            add_ci(o, s->key_hi, wc_stat_ci(s, x, 1));
        if (s->count_key)
            cJSON_AddNumberToObject(o, s->count_key, (double)wc_stat_count(s, x));
    }
}

static cJSON *cell_object(const wc_accuracy_report *a, const wc_acc_cell *c)
{
    const wc_accuracy *x = &c->acc;
    cJSON *o = cJSON_CreateObject();
    add_str(o, "source", a->sources[c->source].name);
    add_str(o, "source_provenance", a->sources[c->source].provenance);
    add_str(o, "truth", a->truth[c->truth].spec);
    add_str(o, "truth_provenance", a->truth[c->truth].provenance);
    add_num(o, "window_s", c->window_s);
    add_str(o, "phase", c->phase < 0 ? "all" : a->phases[c->phase].name);
    if (c->phase >= 0)
        cJSON_AddNumberToObject(o, "repetition", a->phases[c->phase].repetition);
    cJSON_AddNumberToObject(o, "n", (double)x->n);
    add_num(o, "mean_source_w", x->mean_source_w);
    add_num(o, "mean_truth_w", x->mean_truth_w);
    add_stats(o, x);
    cJSON_AddNumberToObject(o, "block_len", (double)x->block_len);
    add_num(o, "covered_s", c->covered_s);
    add_num(o, "source_joules", c->source_j);
    add_num(o, "truth_joules", c->truth_j);
    return o;
}

static void add_accuracy(cJSON *root, const wc_validation *v)
{
    if (!v->have_accuracy)
        return;
    const wc_accuracy_report *a = &v->acc;
    add_bootstrap(root, a);
    add_sources(root, v);
    cJSON *tr = cJSON_AddArrayToObject(root, "truth");
    for (size_t ti = 0; ti < a->ntruth; ti++)
        cJSON_AddItemToArray(tr, truth_object(a, ti));
    cJSON *cells = cJSON_AddArrayToObject(root, "accuracy");
    for (size_t i = 0; i < a->ncells; i++)
        cJSON_AddItemToArray(cells, cell_object(a, &a->cells[i]));
}

static void add_fit(cJSON *o, const char *k, double est, double se, double lo, double hi)
{
    cJSON *x = cJSON_AddObjectToObject(o, k);
    add_num(x, "est", est);
    add_num(x, "se", se);
    add_num(x, "lo", lo);
    add_num(x, "hi", hi);
}

static void add_calibrations(cJSON *root, const wc_validation *v)
{
    cJSON *arr = cJSON_AddArrayToObject(root, "calibrations");
    for (size_t i = 0; i < v->nfits; i++) {
        const wc_calibration *c = &v->fits[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "id", (double)c->id);
        add_str(o, "kind", wc_cal_kind_name(c->kind));
        add_str(o, "target", c->target);
        add_str(o, "input", c->input);
        add_num(o, "window_s", c->window_s);
        add_num(o, "lag_s", c->lag_s);
        cJSON_AddNumberToObject(o, "n", (double)c->fit.n);
        add_fit(o, "c0", c->fit.c0, c->fit.se0, c->fit.b0_lo, c->fit.b0_hi);
        add_fit(o, "c1", c->fit.c1, c->fit.se1, c->fit.b1_lo, c->fit.b1_hi);
        add_num(o, "r2", c->fit.r2);
        add_num(o, "rmse", c->fit.rmse);
        add_str(o, "fitted_on", c->fitted_on[0] ? c->fitted_on : "this run");
        add_str(o, "provenance", "estimated");
        cJSON_AddItemToArray(arr, o);
    }
}

static void add_phases(cJSON *root, const wc_gap_report *r)
{
    cJSON *ph = cJSON_AddArrayToObject(root, "phases");
    for (size_t i = 0; i < r->nphases; i++) {
        cJSON *o = cJSON_CreateObject();
        add_str(o, "name", r->phases[i].name);
        add_str(o, "class", r->phases[i].cls);
        cJSON_AddNumberToObject(o, "repetition", r->phases[i].repetition);
        add_num(o, "duration_s", r->phases[i].duration_s);
        add_num(o, "node_w", r->phases[i].node_watts);
        add_num(o, "marginal_w", r->phases[i].marginal_watts);
        add_str(o, "provenance", r->provenance);
        cJSON_AddItemToArray(ph, o);
    }
}

static void add_workload_rows(cJSON *root, const wc_gap_report *r)
{
    cJSON *wl = cJSON_AddArrayToObject(root, "workloads");
    for (size_t i = 0; i < r->nworkloads; i++) {
        const wc_gap_workload *w = &r->workloads[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "phase", w->phase);
        cJSON_AddNumberToObject(o, "repetition", w->repetition);
        add_str(o, "class", w->cls);
        cJSON_AddNumberToObject(o, "workers", w->workers);
        add_num(o, "true_cpu_s", w->true_cpu_s);
        add_num(o, "seen_cpu_s", w->seen_cpu_s);
        add_num(o, "coverage", w->coverage);
        add_num(o, "lost_joules_estimated", w->lost_joules);
        cJSON_AddNumberToObject(o, "crashed", w->crashed);
        cJSON_AddItemToArray(wl, o);
    }
}

static void add_bias_isolated(cJSON *bo, const wc_bias_report *b)
{
    cJSON *iso = cJSON_AddArrayToObject(bo, "isolated");
    for (size_t i = 0; i < b->nisolated; i++) {
        const wc_bias_isolated *s = &b->isolated[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "phase", s->phase);
        cJSON_AddNumberToObject(o, "repetition", s->repetition);
        add_str(o, "class", s->cls);
        add_num(o, "duration_s", s->duration_s);
        add_num(o, "true_cpu_s", s->true_cpu_s);
        for (int z = 0; z < WC_BIAS_NZONES; z++) {
            cJSON *zo = cJSON_AddObjectToObject(o, wc_bias_zone_name(z));
            add_ci(zo, "marginal_w", &s->marginal_w[z]);
            add_num(zo, "marginal_joules", s->marginal_j[z]);
            add_num(zo, "attributed_joules", s->attributed_j[z]);
        }
        cJSON_AddItemToArray(iso, o);
    }
}

static void add_bias_mixed(cJSON *bo, const wc_bias_report *b)
{
    cJSON *mix = cJSON_AddArrayToObject(bo, "mixed");
    for (size_t i = 0; i < b->nmixed; i++) {
        const wc_bias_mixed *m = &b->mixed[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "phase", m->phase);
        cJSON_AddNumberToObject(o, "repetition", m->repetition);
        add_str(o, "class", m->cls);
        add_num(o, "true_cpu_s", m->true_cpu_s);
        add_num(o, "seen_cpu_s", m->seen_cpu_s);
        add_num(o, "coverage", m->coverage);
        for (int z = 0; z < WC_BIAS_NZONES; z++) {
            cJSON *zo = cJSON_AddObjectToObject(o, wc_bias_zone_name(z));
            add_num(zo, "attributed_joules", m->attributed_j[z]);
            add_ci(zo, "expected_joules", &m->expected_j[z]);
            add_ci(zo, "factor", &m->factor[z]);
        }
        cJSON_AddItemToArray(mix, o);
    }
}

static void add_bias_classes(cJSON *bo, const wc_bias_report *b)
{
    cJSON *cls = cJSON_AddArrayToObject(bo, "classes");
    for (size_t i = 0; i < b->nclasses; i++) {
        const wc_bias_class *c = &b->classes[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "class", c->cls);
        cJSON_AddNumberToObject(o, "isolated_phases", (double)c->n_isolated);
        cJSON_AddNumberToObject(o, "mixed_workloads", (double)c->n_mixed);
        add_num(o, "coverage", c->coverage);
        for (int z = 0; z < WC_BIAS_NZONES; z++) {
            cJSON *zo = cJSON_AddObjectToObject(o, wc_bias_zone_name(z));
            add_num(zo, "isolated_joules_per_cpu_s", c->j_per_cpu_s[z]);
            add_num(zo, "attributed_joules", c->attributed_j[z]);
            add_num(zo, "expected_joules", c->expected_j[z]);
            add_ci(zo, "factor", &c->factor[z]);
        }
        cJSON_AddItemToArray(cls, o);
    }
}

static void add_bias(cJSON *root, const wc_bias_report *b)
{
    cJSON *bo = cJSON_AddObjectToObject(root, "bias");
    add_str(bo, "attribution", b->model);
    add_str(bo, "meter_provenance", b->meter_provenance);
    cJSON_AddBoolToObject(bo, "has_idle_baseline", b->has_baseline);
    cJSON *idle = cJSON_AddObjectToObject(bo, "idle_w");
    for (int z = 0; z < WC_BIAS_NZONES; z++)
        add_num(idle, wc_bias_zone_name(z), b->idle_w[z]);
    add_bias_isolated(bo, b);
    add_bias_mixed(bo, b);
    add_bias_classes(bo, b);
}

static void add_workloads(cJSON *root, const wc_validation *v)
{
    add_phases(root, &v->gap);
    add_workload_rows(root, &v->gap);
    add_bias(root, &v->bias);
}

/* summary.notes: what the terminal prints beside the gate line (gate_notes.h),
 * the gate's provenance when simulated and the no-calibration note; [] when
 * neither applies. Strings pass add_str (valid UTF-8). */
static void add_gate_notes(cJSON *summary, const wc_validation *v)
{
    cJSON *notes = cJSON_AddArrayToObject(summary, "notes");
    cJSON *tmp = cJSON_CreateObject();
    char note[600];
    const char *prov = wc_gate_provenance(v);
    if (notes && tmp && prov[0])
        add_str(tmp, "a", prov);
    if (notes && tmp && wc_gate_uncalibrated_note(v, note, sizeof note))
        add_str(tmp, "b", note);
    for (cJSON *it = tmp ? tmp->child : NULL; it;) {
        cJSON *next = it->next;
        cJSON_AddItemToArray(notes, cJSON_DetachItemViaPointer(tmp, it));
        it = next;
    }
    cJSON_Delete(tmp);
}

static void add_checks(cJSON *root, const wc_validation *v)
{
    cJSON *arr = cJSON_AddArrayToObject(root, "checks");
    for (size_t i = 0; i < v->nchecks; i++) {
        const wc_check *c = &v->checks[i];
        cJSON *o = cJSON_CreateObject();
        add_str(o, "phase", c->phase);
        add_str(o, "metric", c->metric);
        add_str(o, "subject", c->subject);
        add_num(o, "value", c->value);
        add_num(o, "lo", c->lo);
        add_num(o, "hi", c->hi);
        add_num(o, "threshold", c->threshold);
        add_str(o, "unit", c->unit);
        static const char *const STATUS[] = {"pass", "fail", "no_verdict", "insufficient"};
        add_str(o, "status", STATUS[c->status]);
        cJSON_AddBoolToObject(o, "marginal", c->marginal);
        cJSON_AddNumberToObject(o, "n", (double)c->n);
        cJSON *sg = cJSON_AddObjectToObject(o, "signed");
        add_num(sg, "est", c->signed_value);
        add_num(sg, "lo", c->signed_lo);
        add_num(sg, "hi", c->signed_hi);
        add_str(o, "direction", c->direction);
        add_str(o, "message", c->message);
        cJSON_AddItemToArray(arr, o);
    }
    cJSON *s = cJSON_AddObjectToObject(root, "summary");
    cJSON_AddNumberToObject(s, "passed", (double)v->passed);
    cJSON_AddNumberToObject(s, "failed", (double)v->failed);
    cJSON_AddNumberToObject(s, "no_verdict", (double)v->skipped);
    cJSON_AddNumberToObject(s, "insufficient", (double)v->insufficient);
    cJSON_AddNumberToObject(s, "min_n", WC_CHECK_MIN_N);
    add_str(s, "outcome", wc_gate_outcome_name(v->outcome));
    add_str(s, "reason", v->outcome_reason);
    add_gate_notes(s, v);
}

char *wc_summary_json_string(const wc_validation *v, const char *db_path)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    add_str(root, "schema", WC_VALIDATE_SCHEMA);
    add_str(root, "wattcal_version", WATTCAL_VERSION);
    add_run(root, v, db_path);
    add_zones(root, v);
    add_top(root, &v->gap);
    wc_showback_json(root, &v->showback);
    add_levels(root, v);
    add_accuracy(root, v);
    add_calibrations(root, v);
    add_workloads(root, v);
    wc_xp_json(root, v->xp);
    wc_cpu_share_json(root, &v->cpu_share);
    add_checks(root, v);
    char *s = cJSON_Print(root);
    cJSON_Delete(root);
    return s;
}

int wc_summary_json_write(const char *path, const wc_validation *v, const char *db_path,
                          wc_error *err)
{
    char *doc = wc_summary_json_string(v, db_path);
    if (!doc)
        return wc_error_set(err, -ENOMEM, "--json: out of memory building the summary");
    /* written in place, not through a renamed temporary file, so a symlink,
     * a FIFO or a device (/dev/stdout) given as FILE is written through */
    int rc = 0;
    FILE *f = fopen(path, "w");
    if (!f)
        rc = wc_error_set(err, -errno, "--json %.200s: cannot write: %s", path, strerror(errno));
    if (f) {
        int bad = fputs(doc, f) < 0 || fputc('\n', f) == EOF || fflush(f) != 0 || ferror(f);
        int e = errno;
        if (fclose(f) || bad)
            rc = wc_error_set(err, -EIO, "--json %.200s: write failed: %s", path,
                              strerror(bad ? e : errno));
    }
    cJSON_free(doc);
    return rc;
}
