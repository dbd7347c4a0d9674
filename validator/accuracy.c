/*
 * accuracy.c — loads a run's node sources and ground truth, estimates the
 * truth's lag, and scores every source against every truth source on the
 * native alignment and the common windows, overall and per phase
 * (accuracy.h).
 */
#include "validator/accuracy.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_read.h"
#include "common/wc_text.h"

int wc_accuracy_add_source(wc_accuracy_report *rep, wc_acc_source *src)
{
    if (rep->nsources == rep->sources_cap) {
        size_t cap = rep->sources_cap ? rep->sources_cap * 2 : 8;
        wc_acc_source *p = realloc(rep->sources, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        rep->sources = p;
        rep->sources_cap = cap;
    }
    src->run_energy_j = wc_cumseries_total(&src->series);
    rep->sources[rep->nsources++] = *src;
    memset(&src->series, 0, sizeof src->series);
    return 0;
}

/* wc_accuracy_add_source for the loaders: frees src's series and sets err
 * when it fails. Returns 0 or -ENOMEM. */
static int take_source(wc_accuracy_report *rep, wc_acc_source *src, wc_error *err)
{
    if (!wc_accuracy_add_source(rep, src))
        return 0;
    wc_cumseries_free(&src->series);
    return wc_error_set(err, -ENOMEM, "out of memory adding node source %s", src->name);
}

/* Names of the zones of a kind present in the run (distinct, in id order),
 * at most max. Returns 0 or < 0 with err. */
static int zone_names(wc_store *st, wc_reading_kind kind, char names[][32], size_t max,
                      size_t *n, wc_error *err)
{
    wc_store_iter *it = NULL;
    *n = 0;
    int rc = wc_store_zone_names_open(st, kind, &it, err);
    if (rc)
        return rc;
    const char *t = NULL;
    while (*n < max && (rc = wc_store_text_next(it, &t, err)) == 1)
        snprintf(names[(*n)++], 32, "%s", t ? t : "");
    wc_store_iter_close(it);
    return rc < 0 ? rc : 0;
}

static int has_name(char names[][32], size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

/* "a+b" of the present names. */
static void join_names(const char *const *names, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; names[i] && used + 1 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? "+" : "", names[i]);
}

static int load_run_provenance(wc_store *st, wc_accuracy_report *rep, wc_error *err)
{
    wc_run_meta m;
    int rc = wc_store_get_run(st, &m, err);
    if (!rc)
        WC_STORE_COPY_TEXT(rep->run_provenance, m.provenance);
    return rc;
}

static int load_phases(wc_store *st, wc_accuracy_report *rep, wc_error *err)
{
    wc_phase_row *ph = NULL;
    size_t n = 0;
    int rc = wc_store_phases(st, WC_PHASES_SPANNING, 0, &ph, &n, err);
    if (!rc && n && !(rep->phases = malloc(n * sizeof *rep->phases)))
        rc = wc_error_set(err, -ENOMEM, "out of memory reading phases");
    int64_t first = rep->tb.mono_ns[0], last = rep->tb.mono_ns[rep->tb.n - 1];
    for (size_t i = 0; !rc && i < n; i++) {
        wc_acc_phase *p = &rep->phases[rep->nphases++];
        WC_STORE_COPY_TEXT(p->name, ph[i].name);
        WC_STORE_COPY_TEXT(p->cls, ph[i].cls);
        p->repetition = ph[i].repetition;
        /* a phase reaching outside the run (an imported or damaged one) is
         * cut to the run: no pair lies outside it anyway */
        p->start_ns = ph[i].start_ns < first ? first : ph[i].start_ns;
        p->end_ns = ph[i].end_ns > last ? last : ph[i].end_ns;
        if (p->end_ns <= p->start_ns)
            rep->nphases--; /* wholly outside the run */
    }
    free(ph);
    return rc;
}

/* The meter source: the node zones' counters. */
static int add_meter_source(wc_store *st, wc_accuracy_report *rep, const char *const *zones,
                            wc_error *err)
{
    wc_acc_source src;
    size_t found = 0;
    memset(&src, 0, sizeof src);
    int rc = wc_series_meter(st, &rep->tb, zones, &src.series, &found, err);
    if (rc)
        return rc;
    if (!found) {
        wc_cumseries_free(&src.series);
        return 0;
    }
    snprintf(src.name, sizeof src.name, "meter:%s", rep->node_zones);
    snprintf(src.provenance, sizeof src.provenance, "%s", rep->run_provenance);
    snprintf(src.description, sizeof src.description,
             "the node's %s counters (%zu zone(s) over every socket), differenced with"
             " wattcal's counter rule", rep->node_zones, found);
    return take_source(rep, &src, err);
}

/* The platform (psys) zone as its own source, when the run has one and it
 * is not among the node zones. */
static int add_psys_source(wc_store *st, wc_accuracy_report *rep, const char *const *zones,
                           wc_error *err)
{
    char counters[16][32];
    size_t nc = 0;
    int rc = zone_names(st, WC_KIND_COUNTER_UJ, counters, 16, &nc, err);
    int psys_in_node = 0;
    for (size_t i = 0; zones[i]; i++)
        psys_in_node |= !strcmp(zones[i], "psys");
    if (rc || !has_name(counters, nc, "psys") || psys_in_node)
        return rc;
    static const char *const PSYS[] = {"psys", NULL};
    wc_acc_source src;
    size_t found = 0;
    memset(&src, 0, sizeof src);
    rc = wc_series_meter(st, &rep->tb, PSYS, &src.series, &found, err);
    if (rc)
        return rc;
    snprintf(src.name, sizeof src.name, "meter:psys");
    snprintf(src.provenance, sizeof src.provenance, "%s", rep->run_provenance);
    snprintf(src.description, sizeof src.description,
             "the platform (psys) RAPL domain: SoC + platform, never added to packages");
    return take_source(rep, &src, err);
}

/* Every gauge zone of the run as one source. */
static int add_gauge_source(wc_store *st, wc_accuracy_report *rep, wc_error *err)
{
    char gauges[16][32];
    size_t ng = 0;
    int rc = zone_names(st, WC_KIND_GAUGE_UW, gauges, 16, &ng, err);
    if (rc || !ng)
        return rc;
    const char *gz[17];
    for (size_t i = 0; i < ng; i++)
        gz[i] = gauges[i];
    gz[ng] = NULL;
    wc_acc_source src;
    size_t found = 0;
    memset(&src, 0, sizeof src);
    rc = wc_series_gauge(st, &rep->tb, gz, &src.series, &found, err);
    if (rc)
        return rc;
    char label[64];
    join_names(gz, label, sizeof label);
    snprintf(src.name, sizeof src.name, "gauge:%s", label);
    snprintf(src.provenance, sizeof src.provenance, "%s", rep->run_provenance);
    snprintf(src.description, sizeof src.description,
             "power readings (gauges) of %s, each held over the interval since the previous"
             " sample and time-weighted", label);
    return take_source(rep, &src, err);
}

/* The meter, psys and gauge sources. */
static int load_meter_sources(wc_store *st, wc_accuracy_report *rep, const char *const *zones,
                              wc_error *err)
{
    int rc = add_meter_source(st, rep, zones, err);
    if (!rc)
        rc = add_psys_source(st, rep, zones, err);
    if (!rc)
        rc = add_gauge_source(st, rep, err);
    return rc;
}

/* The node zones asked for (default package, dram) that the run has, into
 * present (NULL-terminated); a zone asked for by name that the run lacks is
 * -EINVAL: a typo must not quietly change what is scored. */
static int present_zones(wc_store *st, const wc_acc_opts *o, const char **present, size_t *np,
                         wc_error *err)
{
    static const char *const DEFAULT_ZONES[] = {"package", "dram", NULL};
    const char *const *want = o->node_zones[0] ? o->node_zones : DEFAULT_ZONES;
    char counters[16][32];
    size_t nc = 0;
    *np = 0;
    int rc = zone_names(st, WC_KIND_COUNTER_UJ, counters, 16, &nc, err);
    for (size_t i = 0; !rc && want[i] && *np < WC_ACC_MAX_ZONES; i++) {
        if (has_name(counters, nc, want[i])) {
            present[(*np)++] = want[i];
        } else if (o->node_zones[0]) {
            char list[256] = "";
            size_t used = 0;
            for (size_t k = 0; k < nc; k++)
                wc_append(list, sizeof list, &used, "%s%s", k ? ", " : "", counters[k]);
            rc = wc_error_set(err, -EINVAL, "--node-zones: the run has no counter zone '%.40s' (it has: %s)",
                              want[i], nc ? list : "none");
        }
    }
    present[*np] = NULL;
    return rc;
}

/* The node energy the exporter model reported, as a source. A model that
 * attributed no node energy (an imported run without /proc data) is not one. */
static int add_model_source(wc_store *st, const wc_acc_opts *o, const char *const *present,
                            wc_accuracy_report *rep, wc_error *err)
{
    wc_acc_source src;
    size_t found = 0;
    memset(&src, 0, sizeof src);
    int rc = wc_series_model_node(st, &rep->tb, o->model_id, present, &src.series, &found, err);
    if (!rc && found && wc_cumseries_total(&src.series) > 0) {
        snprintf(src.name, sizeof src.name, "model:%s:%s", o->model_name, rep->node_zones);
        snprintf(src.provenance, sizeof src.provenance, "exporter model %s", o->model_name);
        snprintf(src.description, sizeof src.description,
                 "the node energy model %s reported from the %s meter (its counter handling"
                 " and quirks included)", o->model_name, rep->run_provenance);
        rc = take_source(rep, &src, err);
    } else {
        wc_cumseries_free(&src.series);
    }
    return rc;
}

/* The node sources: meter (or, without node counter zones, gauges only, e.g.
 * an imported power column), psys, gauges, the model's node energy. */
static int load_sources(wc_store *st, const wc_acc_opts *o, wc_accuracy_report *rep,
                        wc_error *err)
{
    const char *present[WC_ACC_MAX_ZONES + 1];
    size_t np = 0;
    int rc = present_zones(st, o, present, &np, err);
    if (rc)
        return rc;
    join_names(present, rep->node_zones, sizeof rep->node_zones);
    if (np)
        rc = load_meter_sources(st, rep, present, err);
    if (!rc && !np) {
        static const char *const NONE[] = {"-", NULL};
        rc = load_meter_sources(st, rep, NONE, err);
        snprintf(rep->node_zones, sizeof rep->node_zones, "(none)");
    }
    if (!rc && np && o->model_id > 0)
        rc = add_model_source(st, o, present, rep, err);
    return rc;
}

int wc_accuracy_load(wc_store *st, const wc_acc_opts *o, wc_accuracy_report *rep, wc_error *err)
{
    memset(rep, 0, sizeof *rep);
    rep->opts = *o;
    if (!rep->opts.nwindows) {
        rep->opts.windows_s[0] = 10;
        rep->opts.windows_s[1] = 60;
        rep->opts.nwindows = 2;
    }
    int rc = wc_timebase_load(st, &rep->tb, err);
    if (rc)
        return rc;
    rc = load_run_provenance(st, rep, err);
    if (!rc)
        rc = load_sources(st, o, rep, err);
    if (!rc) {
        int nt = wc_truth_series_load(st, &rep->tb, rep->truth, WC_ACC_MAX_TRUTH, err);
        if (nt < 0)
            rc = nt;
        else
            rep->ntruth = (size_t)nt;
    }
    if (!rc)
        rc = load_phases(st, rep, err);
    if (rc)
        wc_accuracy_free(rep);
    return rc;
}

static int push_cell(wc_accuracy_report *rep, size_t *cap, const wc_acc_cell *c)
{
    if (rep->ncells == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        wc_acc_cell *p = realloc(rep->cells, ncap * sizeof *p);
        if (!p)
            return -ENOMEM;
        rep->cells = p;
        *cap = ncap;
    }
    rep->cells[rep->ncells++] = *c;
    return 0;
}

static double median_truth_watts(const wc_truth_series *t)
{
    if (!t->n)
        return 0;
    double *v = malloc(t->n * sizeof *v);
    if (!v)
        return 0;
    for (size_t i = 0; i < t->n; i++)
        v[i] = t->r[i].watts;
    gsl_sort(v, 1, t->n);
    double m = gsl_stats_median_from_sorted_data(v, 1, t->n);
    free(v);
    return m;
}

/* One cell to score, and its outcome: stored (pairs found), rc. */
typedef struct cell_job {
    size_t si, ti, wi;
    int phase;
    int stored, rc;
    wc_acc_cell c;
} cell_job;

/* Scores one (source, truth, window, phase) into j->c; no pairs: not stored.
 * Reads rep only, so jobs may run on several threads. */
static void score_cell(const wc_accuracy_report *rep, cell_job *j)
{
    size_t si = j->si, ti = j->ti, wi = j->wi;
    int phase = j->phase;
    const wc_acc_source *src = &rep->sources[si];
    const wc_truth_series *t = &rep->truth[ti];
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    if (phase >= 0) {
        lo = rep->phases[phase].start_ns;
        hi = rep->phases[phase].end_ns;
    }
    double w = rep->windows_s[wi];
    wc_pairs p;
    int rc = w > 0 ? wc_align_windows(&src->series, t, &rep->lag[ti], rep->tb.mono_ns[0],
                                      (int64_t)llround(w * 1e9), lo, hi, &p)
                   : wc_align_native(&src->series, t, &rep->lag[ti], lo, hi, &p);
    if (rc || p.n == 0) {
        wc_pairs_free(&p);
        j->rc = rc;
        return;
    }
    wc_acc_cell c;
    memset(&c, 0, sizeof c);
    c.source = si;
    c.truth = ti;
    c.phase = phase;
    c.window_s = w;
    wc_boot_cfg boot = rep->opts.boot;
    boot.min_block = p.min_block;
    rc = wc_accuracy_compute(p.source_w, p.truth_w, p.n, rep->mape_floor_w[ti], &boot, &c.acc);
    double sj = 0, gj = 0;
    for (size_t k = 0; k < p.n; k++) {
        double len = (double)(p.b_ns[k] - p.a_ns[k]) / 1e9;
        c.covered_s += len;
        sj += p.source_w[k] * len;
        gj += p.truth_w[k] * len;
    }
    int overlapping = w == 0 && p.min_block > 1;
    c.source_j = overlapping ? NAN : sj;
    c.truth_j = overlapping ? NAN : gj;
    if (overlapping)
        c.covered_s = NAN;
    wc_pairs_free(&p);
    j->rc = rc;
    j->stored = !rc;
    j->c = c;
}

/* The jobs of a scoring, taken in turn by each thread (next: the first not
 * taken). */
typedef struct job_queue {
    const wc_accuracy_report *rep;
    cell_job *job;
    size_t n;
    atomic_size_t next;
} job_queue;

static void *score_jobs(void *arg)
{
    job_queue *q = arg;
    for (size_t k; (k = atomic_fetch_add(&q->next, 1)) < q->n;)
        score_cell(q->rep, &q->job[k]);
    return NULL;
}

/* Scores the jobs on this thread and, when one starts, a second one (every
 * job reads rep only and writes its own slot; its bootstrap is seeded per
 * cell, so the figures do not depend on the threads); then stores the
 * cells in job order. Returns 0 or -ENOMEM. */
static int score_all(wc_accuracy_report *rep, cell_job *job, size_t n)
{
    job_queue q = {.rep = rep, .job = job, .n = n};
    atomic_init(&q.next, 0);
    pthread_t t;
    int threaded = n > 1 && pthread_create(&t, NULL, score_jobs, &q) == 0;
    score_jobs(&q);
    if (threaded)
        pthread_join(t, NULL);
    size_t cap = 0;
    for (size_t k = 0; k < n; k++) {
        if (job[k].rc)
            return job[k].rc;
        if (job[k].stored && push_cell(rep, &cap, &job[k].c))
            return -ENOMEM;
    }
    return 0;
}

/* Why window wi of truth ti cannot be scored (into its window_skipped
 * text): 1 skipped, 0 scored. */
static int window_skipped(wc_accuracy_report *rep, size_t ti, size_t wi)
{
    const wc_truth_series *t = &rep->truth[ti];
    double w = rep->windows_s[wi], tick_s = (double)rep->tb.median_spacing_ns / 1e9;
    char *why = rep->window_skipped[ti][wi];
    size_t why_cap = sizeof rep->window_skipped[ti][wi];
    if (w > 0 && w < t->median_window_s)
        snprintf(why, why_cap, "%g s is shorter than the truth's own %g s averaging window", w,
                 t->median_window_s);
    else if (w > 0 && !t->any_window_known && w < t->median_spacing_s)
        snprintf(why, why_cap, "%g s is shorter than the %.3g s between truth readings", w,
                 t->median_spacing_s);
    else if (w > 0 && w < tick_s)
        snprintf(why, why_cap, "%g s is shorter than the run's %.3g s sample spacing", w, tick_s);
    else
        return 0;
    return 1;
}

/* Truth ti's lag (estimated against the first source, or fixed) and MAPE
 * floor. Returns 0 or -ENOMEM. */
static int truth_setup(wc_accuracy_report *rep, size_t ti)
{
    const wc_truth_series *t = &rep->truth[ti];
    if (rep->opts.lag_fixed || !rep->nsources)
        wc_lagwin_fixed(rep->opts.lag_fixed ? rep->opts.lag_s : 0, &rep->lag[ti]);
    else if (wc_lagwin_estimate(&rep->sources[0].series, t, &rep->opts.search, &rep->opts.boot,
                                &rep->lag[ti]))
        return -ENOMEM;
    rep->mape_floor_w[ti] = rep->opts.mape_floor_w > 0 ? rep->opts.mape_floor_w
                                                       : 0.1 * median_truth_watts(t);
    return 0;
}

/* Every (source, phase) job of the scored windows, in the order cells are
 * stored (truth, window, source, phase): *job malloc'd, *n. */
static int plan_jobs(const wc_accuracy_report *rep, char skipped[][WC_ACC_MAX_WINDOWS],
                     cell_job **job, size_t *n)
{
    size_t cap = rep->ntruth * rep->nwindows * rep->nsources * (rep->nphases + 1);
    *job = calloc(cap ? cap : 1, sizeof **job);
    *n = 0;
    if (!*job)
        return -ENOMEM;
    for (size_t ti = 0; ti < rep->ntruth; ti++)
        for (size_t wi = 0; wi < rep->nwindows; wi++)
            for (size_t si = 0; !skipped[ti][wi] && si < rep->nsources; si++)
                for (int ph = -1; ph < (int)rep->nphases; ph++)
                    (*job)[(*n)++] = (cell_job){.si = si, .ti = ti, .wi = wi, .phase = ph};
    return 0;
}

/* A scored window no source covered says why. */
static void window_uncovered(wc_accuracy_report *rep, size_t ti, size_t wi)
{
    double w = rep->windows_s[wi];
    char *why = rep->window_skipped[ti][wi];
    int any = 0;
    for (size_t si = 0; si < rep->nsources && !any; si++)
        any = wc_accuracy_cell(rep, si, ti, w, -1) != NULL;
    if (!any && rep->nsources && w > 0)
        snprintf(why, sizeof rep->window_skipped[ti][wi], "no %g s window had readings covering"
                 " 80 %% of it with the source defined", w);
    else if (!any && rep->nsources)
        snprintf(why, sizeof rep->window_skipped[ti][wi],
                 "no reading's interval is covered by a source");
}

int wc_accuracy_score(wc_accuracy_report *rep, wc_error *err)
{
    rep->windows_s[0] = 0;
    rep->nwindows = 1;
    for (size_t k = 0; k < rep->opts.nwindows && rep->nwindows < WC_ACC_MAX_WINDOWS; k++)
        rep->windows_s[rep->nwindows++] = rep->opts.windows_s[k];
    char skipped[WC_ACC_MAX_TRUTH][WC_ACC_MAX_WINDOWS];
    for (size_t ti = 0; ti < rep->ntruth; ti++) {
        if (truth_setup(rep, ti))
            return wc_error_set(err, -ENOMEM, "out of memory estimating the lag of %s",
                                rep->truth[ti].spec);
        for (size_t wi = 0; wi < rep->nwindows; wi++)
            skipped[ti][wi] = (char)window_skipped(rep, ti, wi);
    }
    cell_job *job = NULL;
    size_t n = 0;
    int rc = plan_jobs(rep, skipped, &job, &n);
    if (!rc)
        rc = score_all(rep, job, n);
    free(job);
    if (rc)
        return wc_error_set(err, -ENOMEM, "out of memory scoring accuracy");
    for (size_t ti = 0; ti < rep->ntruth; ti++)
        for (size_t wi = 0; wi < rep->nwindows; wi++)
            if (!skipped[ti][wi])
                window_uncovered(rep, ti, wi);
    return 0;
}

const wc_acc_cell *wc_accuracy_cell(const wc_accuracy_report *rep, size_t source, size_t truth,
                                    double window_s, int phase)
{
    for (size_t i = 0; i < rep->ncells; i++) {
        const wc_acc_cell *c = &rep->cells[i];
        if (c->source == source && c->truth == truth && c->window_s == window_s &&
            c->phase == phase)
            return c;
    }
    return NULL;
}

void wc_accuracy_free(wc_accuracy_report *rep)
{
    for (size_t i = 0; i < rep->nsources; i++)
        wc_cumseries_free(&rep->sources[i].series);
    free(rep->sources);
    for (size_t i = 0; i < rep->ntruth; i++)
        wc_truth_series_free(&rep->truth[i]);
    free(rep->phases);
    free(rep->cells);
    wc_timebase_free(&rep->tb);
    memset(rep, 0, sizeof *rep);
}
