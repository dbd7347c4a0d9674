/*
 * report.c — `wattcal report` composed (report.h): the provenance banner,
 * the verdict, node accuracy and the truth's lag, the plots, the attribution
 * gap by zone and level, the top tenants, the workloads against isolation
 * and the calibrations — each table saying where its numbers came from.
 * The document is written once through reports/doc.h, as HTML and Markdown.
 */
#include "reports/report.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/model/attribution.h"
#include "collector/store/store_read.h"
#include "reports/doc.h"
#include "reports/figures.h"
#include "reports/headline.h"
#include "reports/report_exporter.h"
#include "reports/report_io.h"
#include "validator/gate_notes.h"
#include "validator/stat_table.h"

/* What the run table says about the recording. */
typedef struct run_meta {
    char kernel[128], cpu_model[160], wattcal_version[32], command_line[512];
    int64_t started_wall_ns, sockets, ncpus;
} run_meta;

/* The run row's recording facts (wc_store_get_run); all empty when the run
 * has no row or it cannot be read: the report then says so by leaving them
 * blank, as it always has. */
static void load_run(wc_store *st, run_meta *m)
{
    memset(m, 0, sizeof *m);
    wc_run_meta *r = calloc(1, sizeof *r);
    if (r && !wc_store_get_run(st, r, NULL) && r->present) {
        snprintf(m->kernel, sizeof m->kernel, "%.127s", r->kernel);
        snprintf(m->cpu_model, sizeof m->cpu_model, "%.159s", r->cpu_model);
        snprintf(m->wattcal_version, sizeof m->wattcal_version, "%s", r->wattcal_version);
        snprintf(m->command_line, sizeof m->command_line, "%s", r->command_line);
        m->started_wall_ns = r->started_wall_ns;
        m->sockets = r->sockets;
        m->ncpus = r->ncpus;
    }
    free(r);
}

/* ---- number cells -------------------------------------------------------- */

/* A small rotating pool of cell buffers: one table row may take many. */
static char *cellbuf(void)
{
    static char pool[48][200];
    static unsigned next;
    return pool[next++ % 48];
}

static const char *num(double v, int prec)
{
    char *b = cellbuf();
    if (!isfinite(v))
        snprintf(b, 200, "-");
    else if (fabs(v) >= 1e12)
        snprintf(b, 200, "%.6g", v); /* a damaged value, shown whole */
    else
        snprintf(b, 200, "%.*f", prec, v);
    return b;
}

static const char *ci(const wc_ci *c, int prec)
{
    char *b = cellbuf();
    if (!isfinite(c->est))
        snprintf(b, 200, "-");
    else if (!isfinite(c->lo) || !isfinite(c->hi))
        snprintf(b, 200, "%.*f", prec, c->est);
    else
        snprintf(b, 200, "%.*f [%.*f, %.*f]", prec, c->est, prec, c->lo, prec, c->hi);
    return b;
}

static const char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static const char *fmt(const char *f, ...)
{
    char *b = cellbuf();
    va_list ap;
    va_start(ap, f);
    vsnprintf(b, 200, f, ap);
    va_end(ap);
    return b;
}

static const char *upper_prov(const char *p)
{
    return !strcmp(p, "simulated") ? "SIMULATED" : !strcmp(p, "estimated") ? "ESTIMATED" : p;
}

static const char *window_name(double w)
{
    return w > 0 ? fmt("%g s", w) : "per reading";
}

/* ---- provenance ---------------------------------------------------------- */

/* Which exporter release a model reproduces (collector/model/attribution.h). */
static const char *exporter_of(const char *model)
{
    wc_model m;
    if (wc_model_parse(model, &m))
        return "unknown model";
    return wc_model_exporter(m);
}

static int any_simulated(const wc_validation *v)
{
    if (!strcmp(v->gap.provenance, "simulated"))
        return 1;
    for (size_t i = 0; i < v->acc.ntruth; i++)
        if (!strcmp(v->acc.truth[i].provenance, "simulated"))
            return 1;
    return 0;
}

/* When the run started, "YYYY-MM-DD HH:MM:SS UTC" (wall clock), or "unknown". */
static const char *started_text(const run_meta *m, char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown");
    if (m->started_wall_ns > 0) {
        time_t t = (time_t)(m->started_wall_ns / 1000000000LL);
        struct tm tm;
        if (gmtime_r(&t, &tm))
            strftime(buf, cap, "%Y-%m-%d %H:%M:%S UTC", &tm);
    }
    return buf;
}

static void banner(wc_doc *d, const wc_validation *v, const run_meta *m, const char *db_path)
{
    const wc_gap_report *r = &v->gap;
    char started[64];
    started_text(m, started, sizeof started);
    wc_doc_heading(d, 2, "Provenance");
    wc_doc_para(d, "Run %s on node %s (%s, %lld socket(s), %lld CPUs, kernel %s): %lld ticks over %.1f s,"
                   " started %s (wall clock, a label only: every interval comes from the monotonic clock).",
                db_path, r->host, m->cpu_model[0] ? m->cpu_model : "CPU unknown", (long long)m->sockets,
                (long long)m->ncpus, m->kernel[0] ? m->kernel : "unknown", (long long)r->ticks, r->duration_s,
                started);
    if (any_simulated(v))
        wc_doc_note(d, "warn", "SIMULATED.",
                    "Some numbers below come from a simulated node or a simulated BMC, not from hardware:"
                    " they show how the tool works, not how this node behaves. Every such source is"
                    " marked SIMULATED.");
    static const char *const hdr[] = {"what", "source", "provenance", "description"};
    wc_doc_table_begin(d, hdr, 4);
    wc_doc_table_row(d, NULL, (const char *const[]){"node meter", r->meter_kind, upper_prov(r->provenance),
                                                    r->meter_description});
    for (size_t i = 0; i < v->acc.nsources; i++) {
        const wc_acc_source *s = &v->acc.sources[i];
        const char *prov = upper_prov(s->provenance);
        if (s->in_sample)
            prov = "ESTIMATED (in-sample: fitted on this run's truth)";
        wc_doc_table_row(d, NULL, (const char *const[]){"node power source", s->name, prov, s->description});
    }
    for (size_t i = 0; i < r->ntruth; i++) {
        const wc_gap_truth *t = &r->truth[i];
        wc_doc_table_row(d, NULL, (const char *const[]){"ground truth", t->spec, upper_prov(t->provenance),
                                                        t->description});
    }
    wc_doc_table_row(d, NULL, (const char *const[]){"exporter", v->model, "reference model (computed by wattcal"
                                                    " from the raw samples)", exporter_of(v->model)});
    wc_doc_table_row(d, NULL, (const char *const[]){"wattcal", fmt("recorded with %s", m->wattcal_version[0]
                                                                   ? m->wattcal_version : "unknown"),
                                                    fmt("report by %s", WATTCAL_VERSION), m->command_line});
    wc_doc_table_end(d);
    if (!strcmp(r->meter_kind, "import"))
        wc_doc_note(d, "info", "Imported run.", "Meter and ground-truth series only, no /proc data: no"
                    " attribution, so the attribution tables and plots are empty.");
    else if (!r->clean_stop)
        wc_doc_note(d, "warn", "Recording did not end cleanly.", "The recorder was killed or failed; the"
                    " %lld committed ticks are analysed.", (long long)r->ticks);
    if (v->acc.tb.gaps.long_gaps || v->acc.tb.gaps.suspends)
        wc_doc_note(d, "warn", "Gaps.", "%lld gap(s) (%.1f s without samples) and %lld suspend(s) (%.1f s):"
                    " dropped from scoring, no power is derived across them.", (long long)v->acc.tb.gaps.long_gaps,
                    v->acc.tb.gaps.gap_seconds, (long long)v->acc.tb.gaps.suspends,
                    v->acc.tb.gaps.suspended_seconds);
}

/* ---- verdict -------------------------------------------------------------- */

/* A check's result as the table shows it (validation.h's names: PASS,
 * FAIL, NO VERDICT, INSUFFICIENT); only PASS is a pass. */
static const char *result_name(const wc_check *c)
{
    const char *n = wc_check_status_name(c->status);
    return c->marginal && (c->status == WC_CHECK_PASS || c->status == WC_CHECK_FAIL) ? fmt("%s (marginal)", n) : n;
}

/* The gate's outcome in words (validation.h): FAIL, NO VERDICT (a check not
 * evaluated or on too few pairs, or none given), PASS only when every check
 * was evaluated and held. */
static const char *gate_word(const wc_validation *v)
{
    return v->outcome == WC_GATE_NONE ? "NO VERDICT" : wc_gate_outcome_name(v->outcome);
}

static void verdict(wc_doc *d, const wc_validation *v)
{
    wc_doc_heading(d, 2, "Verdict of every check");
    if (!v->nchecks) {
        wc_doc_note(d, "info", "No tolerances given.", "Nothing was gated: choose the tolerances before"
                    " the run and pass them with --tolerance (e.g. node=5%%,gap=10%%,invariants=0).");
        return;
    }
    const char *g = gate_word(v);
    wc_doc_note(d, !strcmp(g, "PASS") ? "good" : !strcmp(g, "FAIL") ? "bad" : "warn", fmt("%s.", g),
                "%zu passed, %zu failed, %zu NO VERDICT, %zu INSUFFICIENT (fewer than %d pairs): a check that"
                " could not be evaluated is never counted as passed.", v->passed, v->failed, v->skipped,
                v->insufficient, WC_CHECK_MIN_N);
    static const char *const hdr[] = {"result", "phase", "metric", "subject", "value [95% CI]", "threshold",
                                      "detail"};
    wc_doc_table_begin(d, hdr, 7);
    for (size_t i = 0; i < v->nchecks; i++) {
        const wc_check *c = &v->checks[i];
        const char *val = !isfinite(c->value) ? "-"
                          : isfinite(c->lo) && isfinite(c->hi)
                              ? fmt("%.2f%s [%.2f, %.2f]", c->value, c->unit, c->lo, c->hi)
                              : fmt("%.2f%s", c->value, c->unit);
        wc_doc_table_row(d, c->status == WC_CHECK_PASS ? "pass" : c->status == WC_CHECK_FAIL ? "fail" : "skip",
                         (const char *const[]){result_name(c), c->phase, c->metric, c->subject, val,
                                               fmt("%g%s", c->threshold, c->unit), c->message});
    }
    wc_doc_table_end(d);
}

/* ---- the first screen: the answer ----------------------------------------- */

/* The statistic behind a node tolerance ("node", "wape", ...), NULL for the others. */
static const wc_stat *node_stat(const char *metric)
{
    for (const wc_stat *s = wc_stats; s->key; s++)
        if (s->tol_name && !strcmp(s->tol_name, metric))
            return s;
    return NULL;
}

/* How much a check matters to the lead: failed, then not evaluated, then passed. */
static int lead_rank(const wc_check *c)
{
    return c->status == WC_CHECK_FAIL ? 2 : c->status == WC_CHECK_PASS ? 0 : 1;
}

/* The check the lead sentence answers: a node check over the whole run,
 * the failing one first (then one not evaluated); NULL when none. */
static const wc_check *lead_check(const wc_validation *v)
{
    const wc_check *best = NULL;
    for (size_t i = 0; i < v->nchecks; i++) {
        const wc_check *c = &v->checks[i];
        if (!strcmp(c->phase, "all") && node_stat(c->metric) && (!best || lead_rank(c) > lead_rank(best)))
            best = c;
    }
    return best;
}

/* The truth a node check reads (its subject names it: "<source> vs <spec> (...)"); -1 none. */
static int truth_of(const wc_validation *v, const wc_check *c)
{
    for (size_t ti = 0; ti < v->acc.ntruth; ti++) {
        char key[200];
        snprintf(key, sizeof key, " vs %s (", v->acc.truth[ti].spec);
        if (strstr(c->subject, key))
            return (int)ti;
    }
    return -1;
}

static const char *truth_noun(const char *spec)
{
    if (!strncmp(spec, "sim", 3))
        return "the simulated BMC";
    if (!strncmp(spec, "ipmi:", 5) || !strncmp(spec, "redfish:", 8))
        return "the BMC";
    return !strncmp(spec, "file:", 5) ? "the wall meter" : "ground truth";
}

static const char *source_noun(const wc_acc_source *s)
{
    if (!strncmp(s->name, "meter:", 6))
        return !strcmp(s->provenance, "simulated") ? "the simulated meter" : "the meter";
    if (!strncmp(s->name, "estimate:wall", 13))
        return "the wall estimate";
    if (!strncmp(s->name, "estimate:", 9))
        return "the utilisation estimate";
    return !strncmp(s->name, "model:", 6) ? "the exporter model's node total" : s->name;
}

/* Whether an exporter of the run is a replay (its provenance says so). */
static int any_replayed(const wc_validation *v)
{
    for (size_t i = 0; v->xp && i < v->xp->n; i++)
        if (!strncmp(v->xp->x[i].info.provenance, "replay", 6))
            return 1;
    return 0;
}

/* What the lead is about: the check, its source and truth, the scored cell. */
typedef struct lead_ctx {
    const wc_check *c;
    const wc_acc_source *src;
    const char *truth_spec, *truth_prov;
    const wc_acc_cell *cell;
    wc_answer answer;
} lead_ctx;

static void lead_find(const wc_validation *v, lead_ctx *L)
{
    memset(L, 0, sizeof *L);
    L->c = lead_check(v);
    L->answer = L->c ? wc_answer_of(L->c->status) : WC_ANSWER_NOT_EVALUATED;
    int ti = L->c ? truth_of(v, L->c) : -1;
    if (ti < 0 || v->gated_source < 0)
        return;
    L->src = &v->acc.sources[v->gated_source];
    L->truth_spec = v->acc.truth[ti].spec;
    L->truth_prov = v->acc.truth[ti].provenance;
    L->cell = wc_accuracy_cell(&v->acc, (size_t)v->gated_source, (size_t)ti, v->gate_window_s, -1);
}

/* The lead sentence into buf. */
static const char *lead_sentence(const wc_validation *v, const lead_ctx *L, char *buf, size_t cap)
{
    if (!L->c)
        return wc_headline_counts(v->passed, v->failed, v->nchecks - v->passed - v->failed, buf, cap);
    const wc_stat *st = node_stat(L->c->metric);
    const wc_accuracy *a = L->cell ? &L->cell->acc : NULL;
    wc_headline_node h = {
        .metric = L->c->metric, .what = st->tol_what, .unit = L->c->unit, .threshold = L->c->threshold,
        .answer = L->answer, .truth_noun = L->truth_spec ? truth_noun(L->truth_spec) : "ground truth",
        .source_noun = L->src ? source_noun(L->src) : "the node source",
        .bias_pct = a ? a->bias_pct.est : NAN, .bias_lo = a ? a->bias_pct.lo : NAN,
        .bias_hi = a ? a->bias_pct.hi : NAN, .value = L->c->value, .lo = L->c->lo, .hi = L->c->hi,
        .why = L->c->message};
    return wc_headline_node_sentence(&h, buf, cap);
}

/* "Checked:" — what, against what, with what n over what time. */
static void lead_checked(wc_doc *d, const wc_validation *v, const lead_ctx *L, const run_meta *m)
{
    size_t other = v->nchecks - v->passed - v->failed;
    char started[64];
    const char *run = fmt("the %.1f s run started %s", v->gap.duration_s, started_text(m, started, sizeof started));
    const char *prov = wc_gate_provenance(v);
    const char *gate = fmt("the gate: %zu check(s), %zu passed, %zu failed, %zu not evaluated (%s%s%s).",
                           v->nchecks, v->passed, v->failed, other, gate_word(v), prov[0] ? "; " : "",
                           prov);
    if (!L->cell) {
        wc_doc_verdict_item(d, "Checked:", "%s over %s; %s", v->nchecks ? "the tolerances below" : "no tolerance",
                            run, gate);
        return;
    }
    const char *span = isfinite(L->cell->covered_s) ? fmt("covering %.1f s of %s", L->cell->covered_s, run)
                                                    : fmt("over %s (their averaging windows overlap)", run);
    wc_doc_verdict_item(d, "Checked:", "%s [%s] against %s [%s], %s of the node total, n = %zu %s %s; %s",
                        L->src->name, L->src->in_sample ? "ESTIMATED in-sample" : upper_prov(L->src->provenance),
                        L->truth_spec, upper_prov(L->truth_prov), node_stat(L->c->metric)->tol_what,
                        L->cell->acc.n, v->gate_window_s > 0 ? fmt("%g s windows", v->gate_window_s)
                                                             : "truth readings", span, gate);
}

/* "By design:" and the other words a simulated, replayed or in-sample run needs beside its answer. */
static void lead_design(wc_doc *d, const wc_validation *v, const lead_ctx *L)
{
    int sim_meter = L->src && !strncmp(L->src->name, "meter:", 6) && !strcmp(L->src->provenance, "simulated");
    int sim_truth = L->truth_spec && !strcmp(L->truth_prov, "simulated");
    if (sim_meter && sim_truth && L->answer == WC_ANSWER_NO)
        wc_doc_verdict_item(d, "By design:", "this run is SIMULATED. The simulated meter gives package + dram"
                            " power (what RAPL sees) and the simulated BMC gives wall power, (zones + a base"
                            " load) / PSU efficiency, so the meter is built to read low against it, as real"
                            " RAPL does against a real BMC: the NO shows the gate catching that difference, not"
                            " a fault of this node. A wall calibration fitted on another run (calibrate,"
                            " --apply-from) is what closes it.");
    else if (any_simulated(v))
        wc_doc_verdict_item(d, "SIMULATED:", "the answer comes from a simulated node or BMC: it shows how the"
                            " tool works, not how this node's hardware behaves.");
    if (L->src && L->src->in_sample)
        wc_doc_verdict_item(d, "In-sample:", "%s was fitted on this very truth, so it agrees by construction;"
                            " apply the fit to another run (--apply-from) for a real check.", L->src->name);
    if (any_replayed(v))
        wc_doc_verdict_item(d, "Replayed exporter:", "the exporter scraped is a REPLAY of wattcal's reference"
                            " model rows, not a real Kepler: at each scrape its totals are the model's rows by"
                            " construction. A process that ended is exported once more as terminated when"
                            " the replay runs with --terminated (the demo's does); without it, its energy"
                            " since the last scrape vanishes with it, as from a Kepler with maxTerminated 0.");
}

/* The first screen: the answer in one sentence, what was checked (n, time),
 * what it means for showback, and what a simulated run's answer means. */
static void lead(wc_doc *d, const wc_validation *v, const run_meta *m)
{
    lead_ctx L;
    lead_find(v, &L);
    char sentence[700], show[600];
    lead_sentence(v, &L, sentence, sizeof sentence);
    int all_ok = v->nchecks && v->passed == v->nchecks;
    wc_doc_verdict_begin(d, L.answer == WC_ANSWER_NO || v->failed ? "bad"
                            : L.answer == WC_ANSWER_YES && all_ok ? "good" : "warn", sentence);
    lead_checked(d, v, &L, m);
    double thr = L.c ? L.c->threshold : NAN;
    wc_doc_verdict_item(d, "Showback:", "%s", wc_headline_showback(L.cell ? L.answer : WC_ANSWER_NOT_EVALUATED,
                        L.cell ? L.cell->acc.bias_pct.est : NAN, thr, L.c ? L.c->unit : "",
                        L.truth_spec ? truth_noun(L.truth_spec) : "ground truth",
                        v->showback.npods ? "pod" : "workload", show, sizeof show));
    lead_design(d, v, &L);
    wc_doc_verdict_end(d);
}

/* ---- node accuracy --------------------------------------------------------- */

static void lag_table(wc_doc *d, const wc_accuracy_report *a)
{
    wc_doc_heading(d, 3, "Ground truth: delivery, lag and averaging window");
    wc_doc_para(d, "A reading dated t averages [t − lag − window, t − lag]; the lag (publishing delay plus"
                   " clock offset) and, when the device states none, the window are found by maximising the"
                   " correlation with the meter, with 95 %% block-bootstrap intervals.");
    static const char *const hdr[] = {"truth", "provenance", "readings used / polls", "excluded", "lag (s) [95% CI]",
                                      "window (s)", "correlation", "note"};
    wc_doc_table_begin(d, hdr, 8);
    for (size_t i = 0; i < a->ntruth; i++) {
        const wc_truth_series *t = &a->truth[i];
        const wc_lagwin *l = &a->lag[i];
        const wc_truth_counts *k = &t->counts;
        const char *lag = !l->estimated ? fmt("%.2f (given)", l->lag_s)
                          : !l->identifiable ? fmt("%.2f (not identifiable)", l->lag_s)
                                             : fmt("%.2f [%s, %s]", l->lag_s, num(l->lag_lo_s, 2), num(l->lag_hi_s, 2));
        const char *win = isfinite(l->window_s)
                              ? fmt("ESTIMATED %.2f [%s, %s]", l->window_s, num(l->window_lo_s, 2), num(l->window_hi_s, 2))
                          : t->any_window_known ? fmt("stated by the device (median %.3g)", t->median_window_s)
                                                : "not stated: time since the previous poll";
        wc_doc_table_row(d, NULL, (const char *const[]){
                                      t->spec, upper_prov(t->provenance),
                                      fmt("%lld / %lld", (long long)k->used, (long long)k->polls),
                                      fmt("%lld stale, %lld repeats, %lld unavailable, %lld errors, %lld implausible",
                                          (long long)k->stale, (long long)k->repeats, (long long)k->unavailable,
                                          (long long)k->error, (long long)k->invalid),
                                      lag, win, num(l->corr, 3), l->note});
    }
    wc_doc_table_end(d);
}

/* The report's cell of statistic s (stat_table.h) of a: "est [lo, hi]"
 * when its interval is shown, "lo .. hi" for a range. */
static const char *stat_cell(const wc_stat *s, const wc_accuracy *a)
{
    if (s->kind == WC_STAT_NUMBER)
        return num(wc_stat_number(s, a), s->decimals);
    const wc_ci *c = wc_stat_ci(s, a, 0);
    if (s->kind == WC_STAT_RANGE)
        return fmt("%s .. %s", num(c->est, s->decimals), num(wc_stat_ci(s, a, 1)->est, s->decimals));
    return s->flags & WC_STAT_SHOW_CI ? ci(c, s->decimals) : num(c->est, s->decimals);
}

/* The accuracy table's columns before the statistics. */
enum { ACC_COLS = 5 };

/* The accuracy table's headers (a NULL) or the cells of a's statistics after
 * the first ACC_COLS, into col[ACC_COLS + WC_STAT_MAX]: the statistics the
 * report shows (WC_STAT_IN_REPORT). Returns the number of columns. */
static int accuracy_columns(const char **col, const wc_accuracy *a)
{
    static const char *const head[ACC_COLS] = {"source", "provenance", "truth", "window", "n"};
    int n = ACC_COLS;
    if (!a)
        memcpy(col, head, sizeof head);
    for (const wc_stat *s = wc_stats; s->key; s++)
        if (s->flags & WC_STAT_IN_REPORT)
            col[n++] = a ? stat_cell(s, a) : s->doc_label;
    return n;
}

/* One row of the accuracy table; the gated source at the gate's window is highlighted. */
static void accuracy_row(wc_doc *d, const wc_validation *v, const wc_acc_cell *c)
{
    const wc_accuracy_report *a = &v->acc;
    const wc_acc_source *src = &a->sources[c->source];
    const char *col[ACC_COLS + WC_STAT_MAX];
    col[0] = src->name;
    col[1] = src->in_sample ? "ESTIMATED in-sample" : upper_prov(src->provenance);
    col[2] = fmt("%s [%s]", a->truth[c->truth].spec, upper_prov(a->truth[c->truth].provenance));
    col[3] = window_name(c->window_s);
    col[4] = fmt("%zu", c->acc.n);
    accuracy_columns(col, &c->acc);
    wc_doc_table_row(d, (int)c->source == v->gated_source && c->window_s == v->gate_window_s ? "warn" : NULL,
                     col);
}

static void accuracy_table(wc_doc *d, const wc_validation *v)
{
    const wc_accuracy_report *a = &v->acc;
    wc_doc_heading(d, 2, "Node accuracy against ground truth");
    if (!a->ntruth) {
        wc_doc_note(d, "info", "No ground truth.", "Record with --truth (a BMC, a wall meter's log) or import a"
                    " wall-power column: without it nothing can be scored.");
        return;
    }
    const wc_boot_cfg *bc = &a->opts.boot;
    wc_doc_para(d, "Source − truth, watts (bias also in %% of truth); 95 %% intervals by moving-block bootstrap"
                   " (%d replicates, seed %llu); n = truth readings (or windows) the source covers; MAPE only"
                   " where truth is above its floor; LoA = Bland–Altman 95 %% limits of agreement.",
                wc_boot_replicates(bc), (unsigned long long)(bc->seed ? bc->seed : WC_BOOT_DEFAULT_SEED));
    const char *hdr[ACC_COLS + WC_STAT_MAX];
    wc_doc_table_begin(d, hdr, accuracy_columns(hdr, NULL));
    for (size_t ti = 0; ti < a->ntruth; ti++)
        for (size_t si = 0; si < a->nsources; si++)
            for (size_t wi = 0; wi < a->nwindows; wi++) {
                const wc_acc_cell *c = wc_accuracy_cell(a, si, ti, a->windows_s[wi], -1);
                if (c)
                    accuracy_row(d, v, c);
            }
    wc_doc_table_end(d);
    if (v->gated_source >= 0)
        wc_doc_para(d, "Highlighted: the source and pairs the node checks read (%s, %s).",
                    a->sources[v->gated_source].name, window_name(v->gate_window_s));
    for (size_t ti = 0; ti < a->ntruth; ti++)
        for (size_t wi = 0; wi < a->nwindows; wi++)
            if (a->window_skipped[ti][wi][0])
                wc_doc_para(d, "%s: %g s windows not scored: %s.", a->truth[ti].spec, a->windows_s[wi],
                            a->window_skipped[ti][wi]);
    lag_table(d, a);
}

/* ---- attribution ------------------------------------------------------------ */

/* Kepler's NEGATIVE_SHARE rows left out of every sum (validator/levels.h):
 * a note per level and the workloads (names escaped by wc_doc); nothing
 * when the run has none. */
static void excluded_note(wc_doc *d, const wc_gap_report *r)
{
    static const char *const lvl[] = {"", "process", "container", "pod", "vm"};
    for (int l = 1; l < 5; l++)
        if (r->excluded_rows[l])
            wc_doc_note(d, "warn", fmt("%s level:", lvl[l]),
                        "%lld interval rows with Kepler's negative share (pid reuse wraps them to ~2^64 µJ:"
                        " Kepler's own arithmetic, which the deployed exporter exports the same way) excluded:"
                        " the exporter's numbers for those workloads in those intervals are not usable. Their"
                        " node energy counts as unattributed, so gap = idle + unattributed − over still holds.",
                        (long long)r->excluded_rows[l]);
    if (!r->nexcluded)
        return;
    static const char *const hdr[] = {"level", "workload with excluded intervals"};
    wc_doc_table_begin(d, hdr, 2);
    for (size_t i = 0; i < r->nexcluded; i++)
        wc_doc_table_row(d, NULL, (const char *const[]){r->excluded[i].level, r->excluded[i].name});
    wc_doc_table_end(d);
    if (r->excluded_workloads > (int64_t)r->nexcluded)
        wc_doc_para(d, "… and %lld more workloads.", (long long)(r->excluded_workloads - (int64_t)r->nexcluded));
}

static void gap_tables(wc_doc *d, const wc_validation *v)
{
    const wc_gap_report *r = &v->gap;
    wc_doc_heading(d, 2, "Attribution gap");
    wc_doc_para(d, "Joules per zone over the run. meter: %s energy from the raw counters; node, idle and active:"
                   " as model %s split it; processes: what it attributed. gap = node − Σ processes = idle +"
                   " unattributed − over-attributed.", upper_prov(r->provenance), v->model);
    static const char *const hdr[] = {"zone", "meter J", "node J", "idle J", "active J", "processes J",
                                      "unattributed J", "over J", "gap %", "unattributed % of active"};
    wc_doc_table_begin(d, hdr, 10);
    for (size_t i = 0; i < r->nzones; i++) {
        const wc_gap_zone *z = &r->zones[i];
        wc_doc_table_row(d, NULL, (const char *const[]){z->zone, num(z->meter_joules, 1), num(z->node_joules, 1),
                                                        num(z->idle_joules, 1), num(z->active_joules, 1),
                                                        num(z->process_joules, 1), num(z->unattributed_joules, 1),
                                                        num(z->over_joules, 1),
                                                        num(wc_gap_pct(z->node_joules - z->process_joules, z->node_joules), 2),
                                                        num(wc_gap_pct(z->unattributed_joules, z->active_joules), 2)});
    }
    wc_doc_table_end(d);
    if (!v->have_levels)
        return;
    const wc_levels_report *l = &v->levels;
    wc_doc_heading(d, 3, "By level: node → processes → containers → pods");
    wc_doc_para(d, "Joules, model %s. unattributed (skipped) = active energy of intervals the model attributed"
                   " nothing; unattributed (missed) = CPU no sampled process carried (short-lived, vanished"
                   " PIDs); outside containers = Σ processes − Σ containers; outside pods = Σ containers − Σ pods.",
                v->model);
    static const char *const lh[] = {"zone", "node J", "idle J", "unattributed (skipped) J",
                                     "unattributed (missed) J", "over J", "processes J", "outside containers J",
                                     "containers J", "outside pods J", "pods J"};
    wc_doc_table_begin(d, lh, 11);
    for (size_t i = 0; i < l->nzones; i++) {
        const wc_level_zone *z = &l->zones[i];
        wc_doc_table_row(d, NULL, (const char *const[]){z->zone, num(z->node_j, 1), num(z->idle_j, 1),
                                                        num(z->unattr_skipped_j, 1), num(z->unattr_missed_j, 1),
                                                        num(z->over_j, 1), num(z->process_j, 1),
                                                        num(z->process_j - z->container_j, 1), num(z->container_j, 1),
                                                        num(z->container_j - z->pod_j, 1), num(z->pod_j, 1)});
    }
    wc_doc_table_end(d);
    wc_doc_heading(d, 3, "Invariant Σ children ≤ parent, per interval");
    static const char *const ih[] = {"result", "zone", "invariant", "checked", "violated", "worst excess J (tick)"};
    wc_doc_table_begin(d, ih, 6);
    for (size_t i = 0; i < l->nzones; i++)
        for (int k = 0; k < WC_INV_COUNT; k++) {
            const wc_invariant *inv = &l->zones[i].inv[k];
            if (!inv->checked)
                continue;
            wc_doc_table_row(d, inv->violated ? "fail" : "pass",
                             (const char *const[]){inv->violated ? "violated" : "holds", l->zones[i].zone,
                                                   wc_invariant_name(k), fmt("%lld", (long long)inv->checked),
                                                   fmt("%lld", (long long)inv->violated),
                                                   inv->violated ? fmt("%.6f (%lld)", inv->worst_excess_j,
                                                                       (long long)inv->worst_tick_id)
                                                                 : "-"});
        }
    wc_doc_table_end(d);
}

/* The VM level (work_attr level 4), only in a run with VMs: per zone Σ VMs
 * and the gap processes → VMs, then each VM with Kepler's labels. */
static void vm_tables(wc_doc *d, const wc_validation *v)
{
    if (!v->have_levels || !v->levels.nvms)
        return;
    const wc_levels_report *l = &v->levels;
    wc_doc_heading(d, 3, "By level: processes → VMs");
    wc_doc_para(d, "Joules, model %s. A VM is its hypervisor processes (cmdline at birth): the Kepler models"
                   " give it its last process's energy, ideal their sum; outside VMs = Σ processes − Σ VMs.",
                v->model);
    static const char *const zh[] = {"zone", "processes J", "outside VMs J", "VMs J"};
    wc_doc_table_begin(d, zh, 4);
    for (size_t i = 0; i < l->nzones; i++) {
        const wc_level_zone *z = &l->zones[i];
        wc_doc_table_row(d, NULL, (const char *const[]){z->zone, num(z->process_j, 1),
                                                        num(z->process_j - z->vm_j, 1), num(z->vm_j, 1)});
    }
    wc_doc_table_end(d);
    static const char *const vh[] = {"zone", "vm_id", "vm_name", "hypervisor", "processes", "energy J", "CPU s"};
    wc_doc_table_begin(d, vh, 7);
    for (size_t i = 0; i < l->nvms; i++) {
        const wc_level_vm *m = &l->vms[i];
        wc_doc_table_row(d, NULL, (const char *const[]){m->zone, m->vm_id, m->vm_name, m->hypervisor,
                                                        fmt("%lld", (long long)m->processes),
                                                        num(m->joules, 1), num(m->cpu_s, 1)});
    }
    wc_doc_table_end(d);
}

static double zone_node(const wc_gap_report *r, const char *zone)
{
    for (size_t i = 0; i < r->nzones; i++)
        if (!strcmp(r->zones[i].zone, zone))
            return r->zones[i].node_joules;
    return 0;
}

static void tenants(wc_doc *d, const wc_validation *v, size_t top)
{
    const wc_gap_report *r = &v->gap;
    double node = zone_node(r, r->rank_zone);
    wc_doc_heading(d, 2, "Top tenants");
    wc_doc_para(d, "By %s energy attributed by model %s from the %s meter (joules; share of the zone's node"
                   " energy). Processes are identified by (pid, start time in ticks since boot); CPU s = what the"
                   " model charged.", r->rank_zone, v->model, upper_prov(r->provenance));
    if (r->ntop_containers) {
        static const char *const ch[] = {"container", "pod", "joules", "CPU s", "share %"};
        wc_doc_table_begin(d, ch, 5);
        for (size_t i = 0; i < r->ntop_containers && i < top; i++) {
            const wc_gap_top *t = &r->top_containers[i];
            wc_doc_table_row(d, NULL, (const char *const[]){fmt("%.12s", t->container_id), t->pod_uid,
                                                            num(t->joules, 3), num(t->cpu_seconds, 2),
                                                            num(wc_gap_pct(t->joules, node), 2)});
        }
        wc_doc_table_end(d);
    }
    if (!r->ntop_processes) {
        wc_doc_para(d, "No process received energy%s.",
                    !strcmp(r->meter_kind, "import") ? " (an imported run has no /proc data)" : "");
        return;
    }
    static const char *const ph[] = {"pid", "start time", "process name", "container", "pod", "joules",
                                     "CPU s", "share %"};
    wc_doc_table_begin(d, ph, 8);
    for (size_t i = 0; i < r->ntop_processes && i < top; i++) {
        const wc_gap_top *t = &r->top_processes[i];
        wc_doc_table_row(d, NULL, (const char *const[]){fmt("%d", t->pid), fmt("%llu", (unsigned long long)t->starttime),
                                                        t->name, fmt("%.12s", t->container_id), t->pod_uid,
                                                        num(t->joules, 3), num(t->cpu_seconds, 2),
                                                        num(wc_gap_pct(t->joules, node), 2)});
    }
    wc_doc_table_end(d);
}

/* ---- workloads ---------------------------------------------------------------- */

static void bias_matrix(wc_doc *d, const wc_validation *v)
{
    const wc_bias_report *b = &v->bias;
    if (!b->nclasses)
        return;
    wc_doc_heading(d, 3, "Bias matrix per workload class");
    if (!b->has_baseline) {
        wc_doc_para(d, "No idle phase: no baseline, so no marginal energy (add an idle phase to the scenario).");
        return;
    }
    wc_doc_para(d, "Attributed / expected energy in the mixed phases, per class and zone, with 95 %% intervals"
                   " (1 = the class gets what it costs in isolation; a model that hands out a share of idle"
                   " power puts every class above 1, so compare the classes with each other). Meter %s, model"
                   " %s; idle baseline %s W (package + dram).",
                upper_prov(b->meter_provenance), v->model, num(b->idle_w[WC_BIAS_NODE], 2));
    static const char *const hdr[] = {"class", "package", "dram", "package+dram", "coverage %",
                                      "isolated phases", "mixed workloads"};
    wc_doc_table_begin(d, hdr, 7);
    for (size_t i = 0; i < b->nclasses; i++) {
        const wc_bias_class *c = &b->classes[i];
        double off = fabs(c->factor[WC_BIAS_NODE].est - 1);
        wc_doc_table_row(d, isfinite(off) && off > 0.10 ? "warn" : NULL,
                         (const char *const[]){c->cls, ci(&c->factor[0], 3), ci(&c->factor[1], 3),
                                               ci(&c->factor[2], 3), num(100.0 * c->coverage, 1),
                                               fmt("%zu", c->n_isolated), fmt("%zu", c->n_mixed)});
    }
    wc_doc_table_end(d);
}

static void phases_table(wc_doc *d, const wc_gap_report *r)
{
    if (!r->nphases)
        return;
    wc_doc_heading(d, 3, "Phases");
    wc_doc_para(d, "Mean node power per phase (%s meter, package + dram, watts) and its marginal power over the"
                   " idle baseline.", upper_prov(r->provenance));
    char first[64];
    size_t below = wc_gap_below_baseline(r, first, sizeof first);
    if (below)
        wc_doc_note(d, "warn", "Busy baseline.", "%zu phase(s) (first: %s) drew less than the idle baseline:"
                    " something else loaded the node during the idle phases%s, so the isolation known answers"
                    " and the bias matrix are not trustworthy. Replay on a quiet node.", below, first,
                    !strcmp(r->provenance, "simulated") ? " (the simulated node follows this whole machine's CPU)"
                                                       : "");
    static const char *const hdr[] = {"phase", "repetition", "class", "seconds", "node W", "marginal W"};
    wc_doc_table_begin(d, hdr, 6);
    for (size_t i = 0; i < r->nphases; i++) {
        const wc_gap_phase *p = &r->phases[i];
        wc_doc_table_row(d, NULL, (const char *const[]){p->name, fmt("%d", p->repetition), p->cls,
                                                        num(p->duration_s, 1), num(p->node_watts, 2),
                                                        num(p->marginal_watts, 2)});
    }
    wc_doc_table_end(d);
}

static void calibrations(wc_doc *d, const wc_validation *v)
{
    if (!v->nfits && !v->fits_ignored)
        return;
    wc_doc_heading(d, 2, "Calibrations");
    if (v->fits_ignored)
        wc_doc_note(d, "warn", "Ignored.", "%zu stored calibration(s) have coefficients that are not finite"
                    " numbers (re-run wattcal calibrate).", v->fits_ignored);
    if (!v->nfits)
        return;
    wc_doc_para(d, "Fits stored in the run by wattcal calibrate (GSL weighted least squares; ± = standard error);"
                   " every figure derived from them is ESTIMATED.");
    static const char *const hdr[] = {"#", "kind", "target", "input", "c0", "c1", "R²", "n", "fitted on"};
    wc_doc_table_begin(d, hdr, 9);
    for (size_t i = 0; i < v->nfits; i++) {
        const wc_calibration *c = &v->fits[i];
        wc_doc_table_row(d, NULL, (const char *const[]){fmt("%lld", (long long)c->id), wc_cal_kind_name(c->kind),
                                                        c->target, c->input, fmt("%.4g ± %.2g", c->fit.c0, c->fit.se0),
                                                        fmt("%.4g ± %.2g", c->fit.c1, c->fit.se1), num(c->fit.r2, 4),
                                                        fmt("%zu", c->fit.n),
                                                        c->fitted_on[0] ? c->fitted_on : "this run (in-sample)"});
    }
    wc_doc_table_end(d);
}

/* ---- the whole report ----------------------------------------------------------- */

static const wc_figure *fig(const wc_figures *F, const char *id)
{
    for (size_t i = 0; i < F->n; i++)
        if (!strcmp(F->f[i].id, id))
            return &F->f[i];
    return NULL;
}

static void figure_if(wc_doc *d, const wc_figures *F, const char *id)
{
    const wc_figure *f = fig(F, id);
    if (f)
        wc_doc_figure(d, f);
}

static void compose(wc_doc *d, const wc_validation *v, const run_meta *m, const char *db_path,
                    const wc_figures *F, size_t top)
{
    wc_doc_begin(d, "wattcal report: can this node's energy attribution be trusted?");
    lead(d, v, m);
    if (F->warning[0])
        wc_doc_note(d, "warn", "Plots.", "%s.", F->warning);
    banner(d, v, m, db_path);
    verdict(d, v);
    accuracy_table(d, v);
    wc_doc_heading(d, 3, "Node power over time");
    figure_if(d, F, "power");
    figure_if(d, F, "error");
    figure_if(d, F, "bland_altman");
    figure_if(d, F, "scatter");
    gap_tables(d, v);
    excluded_note(d, &v->gap);
    vm_tables(d, v);
    figure_if(d, F, "gap");
    tenants(d, v, top);
    figure_if(d, F, "stacked");
    wc_report_exporters(d, v);
    wc_doc_heading(d, 2, "Workloads against isolation");
    phases_table(d, &v->gap);
    figure_if(d, F, "workloads");
    bias_matrix(d, v);
    figure_if(d, F, "coverage");
    calibrations(d, v);
    wc_doc_heading(d, 2, "How this report was made");
    wc_doc_para(d, "wattcal %s, wattcal report on %s, model %s. Each plot's data file (tab-separated, header"
                   " first) lies beside this report; report.md holds the same findings for a pull request, with"
                   " the plots as PNG files. Provenance words: measured = read from this node's meters; ground"
                   " truth = an independent meter (BMC, wall meter); SIMULATED = produced by wattcal's simulator;"
                   " ESTIMATED = derived through a calibration.", WATTCAL_VERSION, db_path, v->model);
    wc_doc_end(d);
}

int wc_report_md_images_check(const char *value, wc_error *err)
{
    static const char ok[] = "-._~:/?#@!$&*+,;=%";
    if (!strcmp(value, "files") || !strcmp(value, "inline"))
        return 0;
    int url = !strncmp(value, "https://", 8) || !strncmp(value, "http://", 7);
    for (const char *p = value; url && *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr(ok, *p)))
            url = 0;
    if (!url || strlen(value) > 1024)
        return wc_error_set(err, -EINVAL, "--md-images: expected files, inline or an http(s):// base URL of plain"
                            " URL characters (no spaces, quotes, brackets or parentheses), got \"%.80s\"", value);
    return 0;
}

void wc_report_default_opts(wc_store *st, wc_validation_opts *o)
{
    if (o->levels_window_s > 0)
        return;
    int64_t first = 0, last = 0, count = 0;
    /* a tick table that cannot be read leaves the default to validate */
    if (!wc_store_tick_span(st, &first, &last, &count, NULL) && count > 1) {
        double d = ((double)last - (double)first) / 1e9;
        double spacing = d / (double)(count - 1);
        /* levels put a tick's energy in the window its interval ends in, so a
         * window of a few ticks aliases (0, 1 or 2 ticks): at least 10 */
        if (d > 0)
            o->levels_window_s = wc_figures_nice_window(fmax(d, 10 * spacing * WC_FIG_TARGET_WINDOWS));
    }
}

/* Whether name is a file the report writes into its directory. */
static int report_output(const char *name)
{
    return !strcmp(name, "report.html") || !strcmp(name, "report.md") || wc_figures_is_output(name);
}

/* Refuses a directory where writing the report would overwrite the run
 * itself (--db DIR/report.html, or a hard link to the run there). */
static int check_clobber(const char *dir, const char *db_path, wc_error *err)
{
    struct stat db, sb;
    if (stat(db_path, &db))
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return wc_error_set(err, -errno, "report: cannot read --out %.300s: %s", dir, strerror(errno));
    int rc = 0;
    for (struct dirent *de; !rc && (de = readdir(d));) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        if (report_output(de->d_name) && !lstat(p, &sb) && sb.st_dev == db.st_dev && sb.st_ino == db.st_ino)
            rc = wc_error_set(err, -EEXIST, "report: --out %.300s holds the run itself as %s: writing the"
                              " report would overwrite it; choose another directory", dir, de->d_name);
    }
    closedir(d);
    return rc;
}

int wc_report_write(wc_store *st, const wc_validation *v, const char *db_path, const wc_report_opts *o,
                    wc_report_result *res, wc_error *err)
{
    memset(res, 0, sizeof *res);
    int rc = wc_outdir_ensure(o->out_dir, err);
    if (!rc)
        rc = check_clobber(o->out_dir, db_path, err);
    if (rc)
        return rc;
    wc_figures *F = calloc(1, sizeof *F);
    if (!F)
        return wc_error_set(err, -ENOMEM, "report: out of memory");
    size_t top = o->top ? o->top : 8;
    rc = wc_figures_make(st, v, o->out_dir, o->no_plots, top,
                         o->plot_timeout_s > 0 ? o->plot_timeout_s : 60, F, err);
    if (rc) {
        wc_figures_cleanup(F);
        free(F);
        return rc;
    }
    run_meta m;
    load_run(st, &m);
    wc_outfile html, md;
    char stale[4200];
    snprintf(stale, sizeof stale, "%s/report.html", o->out_dir);
    unlink(stale); /* a link left there is replaced, never written through */
    snprintf(stale, sizeof stale, "%s/report.md", o->out_dir);
    unlink(stale);
    rc = wc_outfile_open(&html, o->out_dir, "report.html", err);
    if (!rc) {
        rc = wc_outfile_open(&md, o->out_dir, "report.md", err);
        if (rc)
            wc_outfile_close(&html, NULL);
    }
    if (!rc) {
        wc_doc d = {.html = html.f, .md = md.f, .dir = F->workdir,
                    .md_images = o->md_images && strcmp(o->md_images, "files") ? o->md_images : NULL};
        compose(&d, v, &m, db_path, F, top);
        snprintf(res->html_path, sizeof res->html_path, "%s", html.path);
        snprintf(res->md_path, sizeof res->md_path, "%s", md.path);
        int rh = wc_outfile_close(&html, err);
        wc_error e2 = {{0}};
        int rm = wc_outfile_close(&md, rh ? &e2 : err);
        rc = rh ? rh : rm;
    }
    for (size_t i = 0; i < F->n; i++)
        res->figures += F->f[i].has_data;
    res->plots = F->plots;
    res->gnuplot_missing = F->gnuplot_missing;
    snprintf(res->warning, sizeof res->warning, "%s", F->warning);
    wc_figures_cleanup(F);
    free(F);
    return rc;
}
