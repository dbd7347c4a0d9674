/*
 * validation.c — runs every analysis of `wattcal validate` on one run and
 * evaluates the tolerances of the CI gate (validation.h).
 */
#include "validator/validation.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_read.h"
#include "collector/truth/truth_table.h"
#include "common/wc_text.h"

/* ---- the gate's metrics ------------------------------------------------ */

/* The metrics that are not an accuracy statistic: name, unit, lower bound.
 * The accuracy statistics' tolerances come from stat_table.h. */
static const wc_tol_def METRICS[WC_TOL_COUNT] = {
    [WC_TOL_GAP] = {"gap", "%", 0, WC_TOL_GAP, NULL},
    [WC_TOL_OVER] = {"over", "%", 0, WC_TOL_OVER, NULL},
    [WC_TOL_INVARIANTS] = {"invariants", "", 0, WC_TOL_INVARIANTS, NULL},
    [WC_TOL_COVERAGE] = {"coverage", "%", 1, WC_TOL_COVERAGE, NULL},
    [WC_TOL_CLASS_BIAS] = {"class-bias", "%", 0, WC_TOL_CLASS_BIAS, NULL},
    [WC_TOL_SOURCE] = {"source", "measured", 0, WC_TOL_SOURCE, NULL},
    [WC_TOL_XP_INVARIANTS] = {"exporter-invariants", "", 0, WC_TOL_XP_INVARIANTS, NULL},
};

/* How a threshold's unit reads in --tolerance's help and its messages. */
static const struct {
    const char *unit, *placeholder, *takes;
} UNITS[] = {
    {"%", "P%", "a percentage (e.g. 10%)"},
    {"W", "W", "watts (e.g. 20W)"},
    {"", "N", "a plain count (e.g. 0)"},
    {"measured", "measured", "the word measured (source=measured)"},
};

/* The index of unit in UNITS; -1 when it has none. */
static int unit_row(const char *unit)
{
    for (size_t i = 0; i < sizeof UNITS / sizeof *UNITS; i++)
        if (!strcmp(UNITS[i].unit, unit))
            return (int)i;
    return -1;
}

/* Whether u is the first statistic of the table backing a tolerance in its unit. */
static int first_of_unit(const wc_stat *u)
{
    for (const wc_stat *s = wc_stats; s != u; s++)
        if (s->tol_name && !strcmp(s->unit, u->unit))
            return 0;
    return 1;
}

/* The statistics backing a tolerance, in wc_tol_def_at's order, into
 * out[WC_STAT_MAX]. Returns how many. */
static size_t stat_tolerances(const wc_stat **out)
{
    size_t n = 0;
    for (const wc_stat *u = wc_stats; u->key; u++) {
        if (!u->tol_name || !first_of_unit(u))
            continue;
        for (const wc_stat *s = u; s->key; s++)
            if (s->tol_name && !strcmp(s->unit, u->unit))
                out[n++] = s;
    }
    return n;
}

/* The table row of a statistic's tolerance: accuracy errors are upper bounds. */
static wc_tol_def stat_def(const wc_stat *s)
{
    return (wc_tol_def){s->tol_name, s->unit, 0, WC_TOL_STAT, s};
}

int wc_tol_def_at(size_t i, wc_tol_def *out)
{
    const wc_stat *st[WC_STAT_MAX];
    size_t n = stat_tolerances(st);
    if (i < n) {
        *out = stat_def(st[i]);
        return 0;
    }
    if (i - n + 1 >= WC_TOL_COUNT)
        return -ENOENT;
    *out = METRICS[i - n + 1];
    return 0;
}

void wc_tol_names(char *buf, size_t cap, int help)
{
    size_t used = 0;
    wc_tol_def d;
    buf[0] = '\0';
    int prev_stat = 1;
    for (size_t i = 0; !wc_tol_def_at(i, &d); i++) {
        /* help: the accuracy metrics, the run's own, the exporter's, a line each */
        int brk = (prev_stat && d.metric != WC_TOL_STAT) || d.metric == WC_TOL_SOURCE;
        const char *sep = !i ? "" : !help ? ", " : brk ? "\n" : " ";
        int u = unit_row(d.unit);
        if (help)
            wc_append(buf, cap, &used, "%s%s=%s", sep, d.name, u >= 0 ? UNITS[u].placeholder : d.unit);
        else
            wc_append(buf, cap, &used, "%s%s", sep, d.name);
        prev_stat = d.metric == WC_TOL_STAT;
    }
}

/* The table row of t's metric; name "?" when it holds none. */
static wc_tol_def tol_def(const wc_tolerance *t)
{
    if (t->metric == WC_TOL_STAT && t->stat)
        return stat_def(t->stat);
    if (t->metric > WC_TOL_STAT && t->metric < WC_TOL_COUNT)
        return METRICS[t->metric];
    return (wc_tol_def){"?", "", 0, t->metric, NULL};
}

const char *wc_tolerance_name(const wc_tolerance *t)
{
    return tol_def(t).name;
}

/* The metric the klen bytes at name name into *d. Returns 0 or -ENOENT. */
static int find_metric(const char *name, size_t klen, wc_tol_def *d)
{
    for (size_t i = 0; !wc_tol_def_at(i, d); i++)
        if (strlen(d->name) == klen && !strncmp(d->name, name, klen))
            return 0;
    return -ENOENT;
}

static int parse_one(const char *item, wc_tolerance *t, wc_error *err)
{
    const char *eq = strchr(item, '=');
    if (!eq)
        return wc_error_set(err, -EINVAL, "--tolerance: '%.40s' is not metric=value", item);
    size_t klen = (size_t)(eq - item);
    wc_tol_def d;
    if (find_metric(item, klen, &d)) {
        char names[256];
        wc_tol_names(names, sizeof names, 0);
        return wc_error_set(err, -EINVAL, "--tolerance: unknown metric '%.*s' (%s)",
                            (int)(klen > 30 ? 30 : klen), item, names);
    }
    if (d.metric == WC_TOL_SOURCE) {
        if (strcmp(eq + 1, "measured"))
            return wc_error_set(err, -EINVAL, "--tolerance: '%.40s': source takes measured", item);
        *t = (wc_tolerance){.metric = d.metric, .threshold = 0};
        wc_textf(t->text, sizeof t->text, "%s", item);
        return 0;
    }
    char *end = NULL;
    double v = strtod(eq + 1, &end);
    if (!end || end == eq + 1 || !isfinite(v) || v < 0)
        return wc_error_set(err, -EINVAL, "--tolerance: '%.40s': the value must be a number >= 0",
                            item);
    if ((d.metric == WC_TOL_INVARIANTS || d.metric == WC_TOL_XP_INVARIANTS) && v != floor(v))
        return wc_error_set(err, -EINVAL, "--tolerance: '%.40s': %s takes a whole count", item,
                            d.name);
    int u = unit_row(d.unit);
    if (strcmp(end, d.unit))
        return wc_error_set(err, -EINVAL, "--tolerance: '%.40s': %s takes %s", item, d.name,
                            u >= 0 ? UNITS[u].takes : d.unit);
    t->metric = d.metric;
    t->stat = d.stat;
    t->threshold = v;
    wc_textf(t->text, sizeof t->text, "%s", item);
    return 0;
}

int wc_tolerance_parse(const char *spec, wc_tolerance *tol, size_t *n, wc_error *err)
{
    char buf[512];
    if (strlen(spec) >= sizeof buf)
        return wc_error_set(err, -EINVAL, "--tolerance: too long");
    snprintf(buf, sizeof buf, "%s", spec);
    int any = 0;
    for (char *save = NULL, *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        if (*n == WC_TOL_MAX)
            return wc_error_set(err, -EINVAL, "--tolerance: at most %d thresholds", WC_TOL_MAX);
        int rc = parse_one(it, &tol[*n], err);
        if (rc)
            return rc;
        (*n)++;
        any = 1;
    }
    return any ? 0 : wc_error_set(err, -EINVAL, "--tolerance: empty");
}

/* ---- checks ------------------------------------------------------------ */

typedef struct checks_buf {
    wc_validation *v;
    size_t cap;
} checks_buf;

static wc_check *new_check(checks_buf *b, const wc_tolerance *t, const char *phase,
                           const char *subject)
{
    wc_validation *v = b->v;
    if (v->nchecks == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 32;
        wc_check *c = realloc(v->checks, cap * sizeof *c);
        if (!c)
            return NULL;
        v->checks = c;
        b->cap = cap;
    }
    wc_check *c = &v->checks[v->nchecks++];
    memset(c, 0, sizeof *c);
    wc_textf(c->phase, sizeof c->phase, "%s", phase);
    wc_tol_def d = tol_def(t);
    wc_textf(c->metric, sizeof c->metric, "%s", d.name);
    wc_textf(c->subject, sizeof c->subject, "%s", subject);
    snprintf(c->unit, sizeof c->unit, "%s", d.unit);
    c->threshold = t->threshold;
    c->value = c->lo = c->hi = NAN;
    c->signed_value = c->signed_lo = c->signed_hi = NAN;
    return c;
}

/* Decides a check from its value (and interval) against the threshold. */
static void decide(wc_check *c, int lower_bound, const char *what)
{
    if (!isfinite(c->value)) {
        c->status = WC_CHECK_SKIP;
        wc_textf(c->message, sizeof c->message, "not evaluated: %s", what);
        return;
    }
    /* a relative slack of 1e-9 so a figure equal to its threshold up to
     * floating-point rounding is within it */
    double slack = 1e-9 * fmax(1.0, fabs(c->threshold));
    int ok = lower_bound ? c->value >= c->threshold - slack : c->value <= c->threshold + slack;
    c->status = ok ? WC_CHECK_PASS : WC_CHECK_FAIL;
    if (isfinite(c->lo) && isfinite(c->hi))
        c->marginal = lower_bound ? (c->lo < c->threshold) != (c->hi < c->threshold)
                                  : (c->lo > c->threshold) != (c->hi > c->threshold);
    char ci[96] = "";
    if (isfinite(c->lo) && isfinite(c->hi))
        snprintf(ci, sizeof ci, " (95%% CI %.3g..%.3g)", fabs(c->lo) < 5e-10 ? 0 : c->lo,
                 fabs(c->hi) < 5e-10 ? 0 : c->hi);
    double shown = fabs(c->value) < 5e-10 ? 0 : c->value; /* no -0 or 1e-14 from rounding */
    wc_textf(c->message, sizeof c->message, "%s %s: %.4g%s%s %s %s %.4g%s%s", c->metric, what,
             shown, c->unit, ci, ok ? "within" : "BREAKS", lower_bound ? "minimum" : "tolerance",
             c->threshold, c->unit, c->marginal ? " (marginal: the interval straddles it)" : "");
}

static void phase_label(const wc_validation *v, int phase, char *buf, size_t cap)
{
    if (phase < 0)
        snprintf(buf, cap, "all");
    else
        wc_textf(buf, cap, "%s#%d", v->acc.phases[phase].name, v->acc.phases[phase].repetition);
}

/* The interval for |x| when x has interval [lo, hi]. */
static void abs_interval(double lo, double hi, double *alo, double *ahi)
{
    if (!isfinite(lo) || !isfinite(hi)) {
        *alo = *ahi = NAN;
        return;
    }
    double a = fabs(lo), b = fabs(hi);
    *alo = (lo <= 0 && hi >= 0) ? 0 : (a < b ? a : b);
    *ahi = a > b ? a : b;
}

/* The figure a node metric reads from its statistic (stat_table.h's rule),
 * with its interval. */
static void node_value(const wc_stat *s, const wc_accuracy *a, wc_check *c)
{
    const wc_ci *x = wc_stat_ci(s, a, 0);
    switch (s->tol_rule) {
    case WC_STAT_TOL_ABS:
        c->value = fabs(x->est);
        abs_interval(x->lo, x->hi, &c->lo, &c->hi);
        return;
    case WC_STAT_TOL_LARGER: {
        const wc_ci *y = wc_stat_ci(s, a, 1);
        c->value = fmax(fabs(x->est), fabs(y->est));
        double lo = fmax(fabs(x->lo), fabs(y->lo));
        double hi = fmax(fabs(x->hi), fabs(y->hi));
        c->lo = isfinite(lo) && isfinite(hi) ? fmin(lo, hi) : NAN;
        c->hi = isfinite(lo) && isfinite(hi) ? fmax(lo, hi) : NAN;
        return;
    }
    case WC_STAT_TOL_SIGNED:
        c->value = x->est;
        c->lo = x->lo;
        c->hi = x->hi;
        return;
    case WC_STAT_TOL_NONE:
        return;
    }
}

/* What a truth source delivered, for a check it left without pairs: "truth
 * SPEC delivered 0 of N polls: E errors, U unavailable, S stale, last: ..."
 * into buf. Returns 1 when the source delivered no ok reading, else 0. */
static int truth_cause(const wc_validation *v, const char *spec, char *buf, size_t cap)
{
    for (size_t i = 0; i < v->gap.ntruth; i++) {
        const wc_gap_truth *t = &v->gap.truth[i];
        if (strcmp(t->spec, spec) || t->ok > 0)
            continue;
        long long polls = (long long)(t->ok + t->stale + t->unavailable + t->error);
        wc_textf(buf, cap, "truth %s delivered 0 of %lld poll%s: %lld error%s, %lld unavailable,"
                           " %lld stale%s%s", t->spec, polls, polls == 1 ? "" : "s",
                 (long long)t->error, t->error == 1 ? "" : "s", (long long)t->unavailable,
                 (long long)t->stale, t->last_error[0] ? ", last: " : "", t->last_error);
        return 1;
    }
    return 0;
}

/* The signed figure behind a |x| node check (bias %: source − truth) with
 * its interval and direction (over: the source reads high). */
static void signed_bias(const wc_stat *s, const wc_accuracy *a, wc_check *c)
{
    if (s->tol_rule != WC_STAT_TOL_ABS)
        return;
    const wc_ci *x = wc_stat_ci(s, a, 0);
    c->signed_value = x->est;
    c->signed_lo = x->lo;
    c->signed_hi = x->hi;
    snprintf(c->direction, sizeof c->direction, "%s", x->est > 0 ? "over" : x->est < 0 ? "under" : "");
}

/* Appends the signed figure and n to a decided node check, and marks it
 * INSUFFICIENT on fewer than WC_CHECK_MIN_N pairs. */
static void node_finish(wc_check *c, size_t n, const char *truth_spec)
{
    c->n = n;
    size_t used = strlen(c->message);
    if (isfinite(c->signed_value))
        wc_append(c->message, sizeof c->message, &used, "; signed %+.4g%s", c->signed_value, c->unit);
    if (isfinite(c->signed_lo) && isfinite(c->signed_hi))
        wc_append(c->message, sizeof c->message, &used, " [%+.4g, %+.4g]", c->signed_lo, c->signed_hi);
    if (isfinite(c->signed_value))
        wc_append(c->message, sizeof c->message, &used, ": the source reads %s",
                  c->signed_value > 0 ? "high (over)" : c->signed_value < 0 ? "low (under)" : "exactly right");
    wc_append(c->message, sizeof c->message, &used, " [n=%zu]", n);
    if (n < WC_CHECK_MIN_N) {
        char was[sizeof c->message];
        snprintf(was, sizeof was, "%s", c->message);
        c->status = WC_CHECK_INSUFFICIENT;
        wc_textf(c->message, sizeof c->message, "INSUFFICIENT: n=%zu < %d pairs, no verdict (%s)", n,
                 WC_CHECK_MIN_N, was);
        wc_truth_sim_record_hint(truth_spec, WC_CHECK_MIN_N, c->message, sizeof c->message);
    }
}

/* One node check of truth source ti in phase ph (-1: the whole run). */
static int node_check(checks_buf *b, const wc_tolerance *t, size_t si, size_t ti, int ph,
                      const char *win)
{
    wc_validation *v = b->v;
    char phase[80], subject[160], cause[400];
    phase_label(v, ph, phase, sizeof phase);
    wc_textf(subject, sizeof subject, "%s%s vs %s (%s)", v->acc.sources[si].name,
             v->acc.sources[si].in_sample ? " IN-SAMPLE" : "", v->acc.truth[ti].spec, win);
    const wc_acc_cell *cell = wc_accuracy_cell(&v->acc, si, ti, v->gate_window_s, ph);
    wc_check *c = new_check(b, t, phase, subject);
    if (!c)
        return -ENOMEM;
    c->signed_value = c->signed_lo = c->signed_hi = NAN;
    if (cell) {
        node_value(t->stat, &cell->acc, c);
        signed_bias(t->stat, &cell->acc, c);
    }
    const char *what = cell ? t->stat->tol_what : "no aligned pairs in this phase";
    if (truth_cause(v, v->acc.truth[ti].spec, cause, sizeof cause))
        what = cause;
    decide(c, 0, what);
    if (cell && c->status != WC_CHECK_SKIP)
        node_finish(c, cell->acc.n, v->acc.truth[ti].spec);
    return 0;
}

static int node_checks(checks_buf *b, const wc_tolerance *t)
{
    wc_validation *v = b->v;
    if (v->gated_source < 0 || !v->acc.ntruth) {
        wc_check *c = new_check(b, t, "all", "node source vs ground truth");
        if (!c)
            return -ENOMEM;
        char cause[400] = "the run has no ground truth (record --truth)";
        for (size_t i = 0; i < v->gap.ntruth && v->acc.ntruth == 0; i++)
            if (truth_cause(v, v->gap.truth[i].spec, cause, sizeof cause))
                break;
        decide(c, 0, v->acc.ntruth ? "the run has no node source" : cause);
        return 0;
    }
    size_t si = (size_t)v->gated_source;
    char win[32];
    if (v->gate_window_s > 0)
        snprintf(win, sizeof win, "%g s windows", v->gate_window_s);
    else
        snprintf(win, sizeof win, "native pairs");
    for (size_t ti = 0; ti < v->acc.ntruth; ti++)
        for (int ph = -1; ph < (int)v->acc.nphases; ph++)
            if (node_check(b, t, si, ti, ph, win))
                return -ENOMEM;
    return 0;
}

static int zone_checks(checks_buf *b, const wc_tolerance *t)
{
    wc_validation *v = b->v;
    int any = 0;
    for (size_t i = 0; i < v->gap.nzones; i++) {
        const wc_gap_zone *z = &v->gap.zones[i];
        if (z->intervals == 0)
            continue;
        char subject[160];
        wc_textf(subject, sizeof subject, "zone %s (model %s)", z->zone, v->model);
        wc_check *c = new_check(b, t, "all", subject);
        if (!c)
            return -ENOMEM;
        any = 1;
        if (t->metric == WC_TOL_INVARIANTS) {
            const wc_level_zone *lz = v->have_levels ? wc_levels_zone(&v->levels, z->zone) : NULL;
            if (lz) {
                int64_t sum = 0;
                for (int k = 0; k < WC_INV_COUNT; k++)
                    sum += lz->inv[k].violated;
                c->value = (double)sum;
            }
            decide(c, 0, lz ? "violations of sum(children) <= parent" : "no attribution rows");
            continue;
        }
        double part = t->metric == WC_TOL_GAP ? z->unattributed_joules : z->over_joules;
        c->value = z->active_joules > 0 ? wc_gap_pct(part, z->active_joules) : NAN;
        decide(c, 0, z->active_joules > 0
                         ? (t->metric == WC_TOL_GAP ? "unattributed, % of active energy"
                                                    : "over-attributed, % of active energy")
                         : "no active energy was attributed (no /proc data?)");
    }
    if (!any) {
        wc_check *c = new_check(b, t, "all", "zones");
        if (!c)
            return -ENOMEM;
        decide(c, 0, "the run has no attributed zone");
    }
    return 0;
}

/* The signed class bias (factor − 1, %) behind a class-bias check. */
static void class_signed(const wc_ci *f, wc_check *c)
{
    c->signed_value = 100.0 * (f->est - 1.0);
    c->signed_lo = 100.0 * (f->lo - 1.0);
    c->signed_hi = 100.0 * (f->hi - 1.0);
    double x = c->signed_value;
    snprintf(c->direction, sizeof c->direction, "%s", x > 0 ? "over" : x < 0 ? "under" : "");
}

/* Appends a decided check's signed figure and its direction to its message. */
static void append_signed(wc_check *c)
{
    if (c->status == WC_CHECK_SKIP || !isfinite(c->signed_value))
        return;
    size_t used = strlen(c->message);
    wc_append(c->message, sizeof c->message, &used, "; signed %+.4g%s (%s-attributed)",
              c->signed_value, c->unit, c->direction[0] ? c->direction : "exactly");
}

static int workload_checks(checks_buf *b, const wc_tolerance *t)
{
    wc_validation *v = b->v;
    int any = 0;
    for (size_t i = 0; i < v->bias.nclasses; i++) {
        const wc_bias_class *bc = &v->bias.classes[i];
        if (t->metric == WC_TOL_COVERAGE && strcmp(bc->cls, "burst"))
            continue;
        char subject[160];
        wc_textf(subject, sizeof subject, "class %s (model %s)", bc->cls, v->model);
        wc_check *c = new_check(b, t, "all", subject);
        if (!c)
            return -ENOMEM;
        any = 1;
        if (t->metric == WC_TOL_COVERAGE) {
            c->value = 100.0 * bc->coverage;
            decide(c, 1, "coverage of short-lived processes");
        } else {
            const wc_ci *f = &bc->factor[WC_BIAS_NODE];
            c->value = 100.0 * fabs(f->est - 1.0);
            if (isfinite(f->lo) && isfinite(f->hi))
                abs_interval(100.0 * (f->lo - 1.0), 100.0 * (f->hi - 1.0), &c->lo, &c->hi);
            class_signed(f, c);
            decide(c, 0, isfinite(f->est) ? "|bias factor - 1| in the mix (package+dram)"
                                          : "no mixed phase, or no isolated phase of the class");
            append_signed(c);
        }
    }
    if (!any) {
        wc_check *c = new_check(b, t, "all", "workload classes");
        if (!c)
            return -ENOMEM;
        decide(c, 0, "the run has no replayed workloads of that kind (wattcal run)");
    }
    return 0;
}

/* source=measured: one check per exporter, skipped when there is none. */
static int source_checks(checks_buf *b, const wc_tolerance *t)
{
    wc_validation *v = b->v;
    for (size_t i = 0; i < v->xp->n; i++) {
        const wc_exporter_info *e = &v->xp->x[i].info;
        char subject[160];
        wc_textf(subject, sizeof subject, "exporter#%lld %s", (long long)e->id, e->provenance);
        wc_check *c = new_check(b, t, "all", subject);
        if (!c)
            return -ENOMEM;
        snprintf(c->unit, sizeof c->unit, "%s", "");
        int ok = !strcmp(e->power_source, "measured");
        c->status = ok ? WC_CHECK_PASS : WC_CHECK_FAIL;
        c->value = ok;
        wc_textf(c->message, sizeof c->message, "source: the exporter's power source is %s: %s",
                 e->power_source[0] ? e->power_source : "unknown",
                 ok ? "measured" : "BREAKS source=measured (a fake meter or an unknown path)");
    }
    if (!v->xp->n) {
        wc_check *c = new_check(b, t, "all", "exporter");
        if (!c)
            return -ENOMEM;
        decide(c, 0, "the run holds no exporter data (NO VERDICT)");
    }
    return 0;
}

const char *wc_check_status_name(wc_check_status s)
{
    static const char *const N[] = {"PASS", "FAIL", "NO VERDICT", "INSUFFICIENT"};
    return s <= WC_CHECK_INSUFFICIENT ? N[s] : "?";
}

const char *wc_gate_outcome_name(wc_gate_outcome g)
{
    static const char *const N[] = {"none", "PASS", "FAIL", "NO VERDICT"};
    return g <= WC_GATE_NO_VERDICT ? N[g] : "?";
}

/* The gate's outcome from the counted checks, with the first deciding
 * check's phase, subject and message as its reason. */
static void gate_outcome(wc_validation *v)
{
    v->outcome = !v->nchecks ? WC_GATE_NONE
                 : v->failed ? WC_GATE_FAIL
                 : v->skipped || v->insufficient ? WC_GATE_NO_VERDICT
                             : WC_GATE_PASS;
    v->outcome_reason[0] = '\0';
    for (size_t i = 0; i < v->nchecks; i++) {
        const wc_check *c = &v->checks[i];
        int decides = v->outcome == WC_GATE_FAIL ? c->status == WC_CHECK_FAIL
                      : v->outcome == WC_GATE_NO_VERDICT ? c->status != WC_CHECK_PASS : 0;
        if (!decides)
            continue;
        size_t other = (v->outcome == WC_GATE_FAIL ? v->failed : v->skipped + v->insufficient) - 1;
        wc_textf(v->outcome_reason, sizeof v->outcome_reason, "%s %s: %s%s", c->phase, c->subject,
                 c->message, other ? " (and more: see the checks)" : "");
        return;
    }
}

/* One exporter invariant against exporter-invariants=N: its violations over
 * the run; skipped when the invariant itself had too little to check. */
static int xp_invariant_check(checks_buf *b, const wc_tolerance *t, const wc_xp_one *x,
                              const wc_xp_invariant *inv)
{
    char subject[160];
    wc_textf(subject, sizeof subject, "exporter#%lld %s%s%s", (long long)x->info.id, inv->name,
             inv->zone[0] ? " " : "", inv->zone);
    wc_check *c = new_check(b, t, "all", subject);
    if (!c)
        return -ENOMEM;
    if (inv->verdict == WC_XP_NO_VERDICT) {
        wc_textf(c->message, sizeof c->message, "not evaluated (NO VERDICT): %s", inv->note);
        c->status = WC_CHECK_SKIP;
        return 0;
    }
    c->value = (double)inv->violations;
    char what[96];
    wc_textf(what, sizeof what, "violations in %zu checked", inv->checked);
    decide(c, 0, what);
    return 0;
}

/* exporter-invariants=N: one check per invariant of every exporter; one
 * skipped check (NO VERDICT) when the run holds no exporter data. */
static int xp_invariant_checks(checks_buf *b, const wc_tolerance *t)
{
    const wc_xp_report *r = b->v->xp;
    int rc = 0;
    for (size_t i = 0; !rc && i < r->n; i++)
        for (size_t j = 0; !rc && j < r->x[i].ninv; j++)
            rc = xp_invariant_check(b, t, &r->x[i], &r->x[i].inv[j]);
    if (!rc && !r->n) {
        wc_check *c = new_check(b, t, "all", "exporter");
        if (!c)
            return -ENOMEM;
        decide(c, 0, "the run holds no exporter data (NO VERDICT)");
    }
    return rc;
}

static int evaluate(wc_validation *v, const wc_validation_opts *o)
{
    checks_buf b = {.v = v};
    int rc = 0;
    for (size_t i = 0; i < o->ntol && !rc; i++) {
        const wc_tolerance *t = &o->tol[i];
        switch (t->metric) {
        case WC_TOL_GAP:
        case WC_TOL_OVER:
        case WC_TOL_INVARIANTS: rc = zone_checks(&b, t); break;
        case WC_TOL_COVERAGE:
        case WC_TOL_CLASS_BIAS: rc = workload_checks(&b, t); break;
        case WC_TOL_SOURCE: rc = source_checks(&b, t); break;
        case WC_TOL_XP_INVARIANTS: rc = xp_invariant_checks(&b, t); break;
        default: rc = node_checks(&b, t); break;
        }
    }
    for (size_t i = 0; i < v->nchecks; i++) {
        v->passed += v->checks[i].status == WC_CHECK_PASS;
        v->failed += v->checks[i].status == WC_CHECK_FAIL;
        v->skipped += v->checks[i].status == WC_CHECK_SKIP;
        v->insufficient += v->checks[i].status == WC_CHECK_INSUFFICIENT;
    }
    gate_outcome(v);
    return rc;
}

/* ---- running ----------------------------------------------------------- */

/* A run needs two ticks for one interval, and the model's rows. Returns 0,
 * -ENODATA, -ENOENT or -EIO with err. */
static int check_run(wc_store *st, wc_validation *v, wc_error *err)
{
    int64_t ticks = 0;
    int rc = wc_store_count_rows(st, WC_TABLE_TICK, &ticks, err);
    if (rc)
        return rc;
    if (ticks < 2)
        return wc_error_set(err, -ENODATA, "the run has %lld tick(s): no interval, nothing measurable",
                            (long long)ticks);
    rc = wc_store_find_model(st, v->model, &v->model_id, err);
    if (rc == -ENOENT)
        rc = wc_error_set(err, -ENOENT, "the run has no attribution for model %s", v->model);
    return rc;
}

/* The node source the gate reads: asked for by name, else the latest wall
 * estimate, else the meter. */
static int pick_gated(const wc_accuracy_report *a, const char *want)
{
    if (want) {
        for (size_t i = 0; i < a->nsources; i++)
            if (!strcmp(a->sources[i].name, want))
                return (int)i;
        return -1;
    }
    /* an estimate checked against the truth it was fitted on passes by
     * construction: by default only an out-of-sample one is gated */
    int est = -1;
    for (size_t i = 0; i < a->nsources; i++)
        if (!strncmp(a->sources[i].name, "estimate:wall#", 14) && !a->sources[i].in_sample)
            est = (int)i;
    return est >= 0 ? est : (a->nsources ? 0 : -1);
}

/* Node accuracy with the estimates of the stored fits; a run with fewer than
 * two ticks has none (not an error). */
static int run_accuracy(wc_store *st, const wc_validation_opts *o, wc_validation *v,
                        wc_error *err)
{
    wc_acc_opts ao = o->acc;
    ao.model_id = v->model_id;
    snprintf(ao.model_name, sizeof ao.model_name, "%s", v->model);
    int arc = wc_accuracy_load(st, &ao, &v->acc, err);
    if (arc == -ENODATA)
        return 0;
    if (arc)
        return arc;
    v->have_accuracy = 1;
    arc = wc_xp_report_load(st, &v->acc, v->xp, err);
    if (!arc)
        arc = wc_calibration_add_estimates(st, v->fits, v->nfits, &v->acc, err);
    if (arc >= 0)
        arc = wc_accuracy_score(&v->acc, err);
    return arc < 0 ? arc : 0;
}

/* The largest |bias factor − 1| (%) of any workload class; NAN with none. */
static double class_error_pct(const wc_bias_report *b)
{
    double e = NAN;
    for (size_t i = 0; i < b->nclasses; i++) {
        double f = b->classes[i].factor[WC_BIAS_NODE].est;
        if (isfinite(f) && !(fabs(f - 1) * 100 <= e))
            e = fabs(f - 1) * 100;
    }
    return e;
}

/* The per-pod showback table in the zone the top lists rank by. */
static int run_showback(wc_store *st, const wc_validation_opts *o, wc_validation *v,
                        wc_error *err)
{
    const char *zone = v->gap.rank_zone[0] ? v->gap.rank_zone : "package";
    double node_j = NAN;
    for (size_t i = 0; i < v->gap.nzones; i++)
        if (!strcmp(v->gap.zones[i].zone, zone))
            node_j = v->gap.zones[i].node_joules;
    wc_showback_in in = {.model_id = v->model_id, .model = v->model, .zone = zone,
                         .meter_provenance = v->gap.provenance, .node_joules = node_j,
                         .boot = o->acc.boot, .levels = v->have_levels ? &v->levels : NULL};
    return wc_showback_compute(st, &in, &v->showback, err);
}

/* ---- two threads ----------------------------------------------------------
 *
 * wc_validation_run holds one read transaction for the whole validation, so
 * every figure comes from the file as it was at the start, even while a
 * recording still writes it. The levels pass (validator/levels.c) reads its
 * halves on two connections. After it, node accuracy (stored fits, truth
 * and meter series, bootstrap) shares nothing with the gap, showback, class
 * bias and CPU-share readers: it runs on a second thread with its own
 * read-only connection, writing only v's fits, accuracy and exporter report
 * while the caller writes the others. A second connection is used only
 * when it reads what the first reads (wc_store_readers_agree: not on a file
 * a recording is writing in WAL mode); else all on this thread. Errors are
 * reported in the order a single thread would meet them. */

/* Returns code, with the message of another thread's err in err. */
static int take_error(wc_error *err, int code, const wc_error *from)
{
    if (err)
        *err = *from;
    return code;
}

/* The stored fits and node accuracy (the second thread's part). */
static int accuracy_part(wc_store *st, const wc_validation_opts *o, wc_validation *v,
                         wc_error *err)
{
    int rc = wc_calibration_load(st, v->fits, WC_CAL_MAX, &v->nfits, &v->fits_ignored, err);
    return rc ? rc : run_accuracy(st, o, v, err);
}

typedef struct acc_job {
    const wc_store *st;
    const wc_validation_opts *o;
    wc_validation *v;
    int rc;
    wc_error err;
} acc_job;

static void *acc_main(void *arg)
{
    acc_job *j = arg;
    wc_store *st = wc_store_open_reader(j->st, &j->err);
    j->rc = st ? accuracy_part(st, j->o, j->v, &j->err) : -EIO;
    wc_store_close(st);
    return NULL;
}

/* The readers after the gap that need neither accuracy nor the exporter
 * report: class bias, CPU shares, showback; *bias_failed tells whether the
 * first of them failed (a single thread would meet it before the exporter
 * report). */
static int other_parts(wc_store *st, const wc_validation_opts *o, wc_validation *v,
                       int *bias_failed, wc_error *err)
{
    int rc = wc_bias_compute(st, v->model_id, v->model, &o->acc.boot, &v->bias, err);
    *bias_failed = rc != 0;
    if (!rc)
        rc = wc_cpu_share_compute(st, v->model_id, v->model, "package", &v->cpu_share, err);
    return rc ? rc : run_showback(st, o, v, err);
}

/* The gated source named by --gate-source must exist. */
static int gate_source_check(const wc_validation_opts *o, wc_validation *v, wc_error *err)
{
    if (o->gate_source && v->have_accuracy && pick_gated(&v->acc, o->gate_source) < 0)
        return wc_error_set(err, -EINVAL, "--gate-source %.60s: the run has no such node source",
                            o->gate_source);
    if (v->have_accuracy)
        v->gated_source = pick_gated(&v->acc, o->gate_source);
    return 0;
}

/* Everything after the levels pass: accuracy on a second thread (inline when
 * none starts) beside the gap and the other readers. */
static int run_parts(wc_store *st, wc_model model, const wc_validation_opts *o, wc_validation *v,
                     wc_error *err)
{
    acc_job j = {.st = st, .o = o, .v = v};
    pthread_t t;
    int threaded = wc_store_readers_agree(st) && pthread_create(&t, NULL, acc_main, &j) == 0;
    int rc = wc_gap_compute_with(st, model, &v->levels, &v->gap, err);
    if (!rc)
        rc = wc_unit_slips_check(st, &v->gap, &v->slips, err);
    int bias_failed = 0, orc = 0;
    wc_error oerr = {{0}};
    if (!rc && threaded)
        orc = other_parts(st, o, v, &bias_failed, &oerr);
    if (threaded)
        pthread_join(t, NULL);
    if (!rc && threaded && j.rc)
        rc = take_error(err, j.rc, &j.err);
    if (!rc && !threaded)
        rc = accuracy_part(st, o, v, err);
    if (!rc)
        rc = gate_source_check(o, v, err);
    if (!rc && !threaded)
        orc = other_parts(st, o, v, &bias_failed, &oerr);
    if (!rc && orc && bias_failed)
        rc = take_error(err, orc, &oerr);
    if (!rc) {
        char first[64];
        v->xp->class_untrusted = wc_gap_below_baseline(&v->gap, first, sizeof first);
        rc = wc_xp_report_finish(st, v->model_id, v->model, v->have_accuracy ? &v->acc : NULL,
                                 class_error_pct(&v->bias), &o->acc.boot, v->xp, err);
    }
    if (!rc && orc)
        rc = take_error(err, orc, &oerr);
    return rc;
}

int wc_validation_run(wc_store *st, wc_model model, const wc_validation_opts *o,
                      wc_validation *v, wc_error *err)
{
    memset(v, 0, sizeof *v);
    v->xp = calloc(1, sizeof *v->xp);
    if (!v->xp)
        return wc_error_set(err, -ENOMEM, "out of memory for the exporter report");
    v->gated_source = -1;
    v->gate_window_s = o->gate_window_s;
    snprintf(v->model, sizeof v->model, "%s", wc_model_name(model));
    int rc = wc_store_read_begin(st, err);
    if (rc) {
        wc_validation_free(v);
        return rc;
    }
    rc = check_run(st, v, err);
    if (rc == -ENODATA) {
        wc_store_read_end(st);
        wc_validation_free(v);
        return rc;
    }
    if (!rc) {
        rc = wc_levels_compute(st, v->model_id, o->levels_window_s > 0 ? o->levels_window_s : 60,
                               &v->levels, err);
        if (rc == -ENOENT || rc == -ENODATA)
            rc = wc_error_set(err, -ENOENT, "the run has no attribution rows for model %s", v->model);
        v->have_levels = rc == 0;
    }
    if (!rc)
        rc = run_parts(st, model, o, v, err);
    wc_store_read_end(st);
    if (!rc && evaluate(v, o))
        rc = wc_error_set(err, -ENOMEM, "out of memory evaluating tolerances");
    if (rc)
        wc_validation_free(v);
    return rc;
}

void wc_validation_free(wc_validation *v)
{
    if (v->have_accuracy)
        wc_accuracy_free(&v->acc);
    if (v->have_levels)
        wc_levels_free(&v->levels);
    if (v->xp)
        wc_xp_report_free(v->xp);
    free(v->xp);
    v->xp = NULL;
    free(v->checks);
    v->checks = NULL;
    v->nchecks = 0;
    v->have_accuracy = v->have_levels = 0;
}

void wc_tol_stat_value(const wc_stat *s, const wc_accuracy *a, wc_check *c)
{
    node_value(s, a, c);
}
