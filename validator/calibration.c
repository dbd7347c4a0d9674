/*
 * calibration.c — zone-versus-utilisation and truth-versus-meter fits, their
 * storage in the run, and the estimates they produce (calibration.h). The
 * rows themselves are read and written by collector/store/store_calibration.c.
 */
#include "validator/calibration.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/counter.h"
#include "collector/store/store_read.h"
#include "collector/store/store_results.h"
#include "collector/truth/truth_table.h"
#include "common/wc_clock.h"
#include "common/wc_text.h"

#define MIN_FIT_POINTS 5

const char *wc_cal_kind_name(wc_cal_kind k)
{
    return k == WC_CAL_TRUTH_METER ? "truth_meter" : "zone_utilisation";
}

void wc_calibration_free(wc_calibration *c)
{
    free(c->x), free(c->y), free(c->a_ns), free(c->b_ns), free(c->w);
    c->x = c->y = c->w = NULL;
    c->a_ns = c->b_ns = NULL;
    c->nres = 0;
}

static void note(char *notes, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(char *notes, size_t cap, const char *fmt, ...)
{
    if (!notes || !cap)
        return;
    size_t used = strlen(notes);
    if (used + 2 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes + used, cap - used, fmt, ap);
    va_end(ap);
    used = strlen(notes);
    if (used + 1 < cap) {
        notes[used] = '\n';
        notes[used + 1] = '\0';
    }
}

/* Keeps the fitted points as residual rows of c (x, y, weights, intervals). */
static int keep_points(wc_calibration *c, const double *x, const double *y, const double *w,
                       const wc_pairs *p)
{
    c->nres = p->n;
    c->x = malloc(p->n * sizeof *c->x);
    c->y = malloc(p->n * sizeof *c->y);
    c->w = malloc(p->n * sizeof *c->w);
    c->a_ns = malloc(p->n * sizeof *c->a_ns);
    c->b_ns = malloc(p->n * sizeof *c->b_ns);
    if (!c->x || !c->y || !c->w || !c->a_ns || !c->b_ns) {
        wc_calibration_free(c);
        return -ENOMEM;
    }
    memcpy(c->x, x, p->n * sizeof *x);
    memcpy(c->y, y, p->n * sizeof *y);
    memcpy(c->w, w, p->n * sizeof *w);
    memcpy(c->a_ns, p->a_ns, p->n * sizeof *p->a_ns);
    memcpy(c->b_ns, p->b_ns, p->n * sizeof *p->b_ns);
    return 0;
}

/* The span of the zone fit's utilisation (residual x), or NAN without them. */
static double util_range(const wc_calibration *c)
{
    if (c->kind != WC_CAL_ZONE_UTIL || !c->nres || !c->x)
        return NAN;
    double lo = c->x[0], hi = c->x[0];
    for (size_t i = 1; i < c->nres; i++)
        lo = fmin(lo, c->x[i]), hi = fmax(hi, c->x[i]);
    return hi - lo;
}

int wc_calibration_usable(const wc_calibration *c, double ceiling_w, char *why, size_t cap)
{
    const wc_linfit *f = &c->fit;
    const char *c0 = c->kind == WC_CAL_ZONE_UTIL ? "P_idle" : "b";
    double ceil_w = (ceiling_w > 0 ? ceiling_w : WC_DEFAULT_CEILING_WATTS) *
                    (c->kind == WC_CAL_TRUTH_METER ? WC_CAL_TRUTH_CEILINGS : 1);
    /* a stored row keeps standard errors, not t intervals: ±1.96 se then */
    int t = f->t0_hi > f->t0_lo;
    double w0 = t ? f->t0_hi - f->t0_lo : 3.92 * f->se0, w1 = t ? f->t1_hi - f->t1_lo : 3.92 * f->se1;
    double hi0 = t ? f->t0_hi : f->c0 + 1.96 * f->se0, lo0 = t ? f->t0_lo : f->c0 - 1.96 * f->se0;
    double lo1 = t ? f->t1_lo : f->c1 - 1.96 * f->se1, hi1 = t ? f->t1_hi : f->c1 + 1.96 * f->se1;
    double ur = util_range(c);
    char r[320] = "";
    if (!isfinite(f->c0) || !isfinite(f->c1))
        snprintf(r, sizeof r, "its coefficients are not finite numbers");
    else if (isfinite(ur) && ur < WC_CAL_MIN_UTIL_RANGE)
        snprintf(r, sizeof r, "utilisation spans only %.4f (< %.2f busy fraction): P_idle and k"
                 " cannot be told apart", ur, WC_CAL_MIN_UTIL_RANGE);
    else if (!(f->r2 >= WC_CAL_MIN_R2))
        snprintf(r, sizeof r, "R^2 %.4f < %.2f: the input explains almost none of the power", f->r2,
                 WC_CAL_MIN_R2);
    else if (!(w0 <= ceil_w))
        snprintf(r, sizeof r, "the 95 %% interval of %s is %.4g W wide, beyond %g W (the run's ceiling%s)",
                 c0, w0, ceil_w, c->kind == WC_CAL_TRUTH_METER ? " x the wall's zones and losses" : "");
    else if (c->kind == WC_CAL_ZONE_UTIL && !(w1 <= ceil_w))
        snprintf(r, sizeof r, "the 95 %% interval of k is %.4g W wide, beyond the run's ceiling %g W",
                 w1, ceil_w);
    else if (fabs(f->c0) > ceil_w)
        snprintf(r, sizeof r, "%s = %.4f W is beyond %g W (the run's ceiling%s)", c0, f->c0, ceil_w,
                 c->kind == WC_CAL_TRUTH_METER ? " x the wall's zones and losses" : "");
    else if (c->kind == WC_CAL_TRUTH_METER && !(lo1 > 0))
        snprintf(r, sizeof r, "a = %.4f: its 95 %% interval [%.4f, %.4f] does not stay above 0 (wall"
                 " power must rise with the meter): the meter's power barely varied, or the truth"
                 " does not follow it", f->c1, lo1, hi1);
    else if (c->kind == WC_CAL_ZONE_UTIL && hi0 < 0)
        snprintf(r, sizeof r, "P_idle = %.4f W is negative (95 %% interval [%.4f, %.4f] W)", f->c0,
                 lo0, hi0);
    if (why && cap)
        snprintf(why, cap, "%s", r);
    return r[0] == '\0';
}

/* One fit of y on x over the pairs (x, y chosen by the caller). 1 = fitted,
 * 0 = not possible (note written), <0 error. */
static int fit_pairs(wc_calibration *c, const double *x, const double *y, const wc_pairs *p,
                     int weighted, const wc_boot_cfg *boot, char *notes, size_t cap)
{
    if (p->n < MIN_FIT_POINTS) {
        char hint[200] = "";
        if (c->kind == WC_CAL_TRUTH_METER) /* a short simulated recording: say how long */
            wc_truth_sim_record_hint(c->target, MIN_FIT_POINTS, hint, sizeof hint);
        note(notes, cap, "%s %s: only %zu aligned point(s), at least %d needed%s",
             wc_cal_kind_name(c->kind), c->target, p->n, MIN_FIT_POINTS, hint);
        return 0;
    }
    double *w = malloc(p->n * sizeof *w);
    if (!w)
        return -ENOMEM;
    for (size_t i = 0; i < p->n; i++)
        w[i] = weighted ? (double)(p->b_ns[i] - p->a_ns[i]) / 1e9 : 1.0;
    for (size_t i = 0; weighted && i < p->n; i++)
        if (!(w[i] > 0))
            w[i] = 1.0; /* a point reading stands for itself */
    wc_boot_cfg b = *boot;
    b.min_block = p->min_block ? p->min_block : 1;
    int rc = wc_linfit_wls(x, y, w, p->n, &b, &c->fit);
    if (rc == -EINVAL) {
        note(notes, cap, "%s %s: the input never varied over %zu points: intercept and slope"
                         " cannot be told apart", wc_cal_kind_name(c->kind), c->target, p->n);
        free(w);
        return 0;
    }
    if (!rc && c->fit.boot_degenerate)
        note(notes, cap, "%s %s: %zu of %d bootstrap resamples had an (almost) constant %s and were"
                         " discarded%s", wc_cal_kind_name(c->kind), c->target, c->fit.boot_degenerate,
             c->fit.boot_replicates, c->kind == WC_CAL_ZONE_UTIL ? "utilisation" : "input",
             isfinite(c->fit.b0_lo) ? "" : ": too few left, no bootstrap interval");
    if (!rc)
        rc = keep_points(c, x, y, w, p);
    free(w);
    return rc ? rc : 1;
}

static int64_t median_spacing_ns(const wc_timebase *tb)
{
    return tb->median_spacing_ns > 0 ? tb->median_spacing_ns : 1000000000LL;
}

/* The run's counter zone names (distinct, in zone id order; NULL names
 * skipped, longer ones cut to 31 bytes), at most max. Returns 0 or < 0 with
 * err. */
static int counter_zones(wc_store *st, char names[][32], size_t max, size_t *n, wc_error *err)
{
    wc_store_iter *it = NULL;
    *n = 0;
    int rc = wc_store_zone_names_open(st, WC_KIND_COUNTER_UJ, &it, err);
    const char *t = NULL;
    while (!rc && *n < max && (rc = wc_store_text_next(it, &t, err)) == 1) {
        rc = 0;
        if (t)
            snprintf(names[(*n)++], 32, "%s", t);
    }
    wc_store_iter_close(it);
    return rc;
}

static int zone_fits(wc_store *st, const wc_cal_opts *o, const wc_accuracy_report *rep,
                     wc_calibration *out, size_t max, size_t *n, char *notes, size_t cap,
                     wc_error *err)
{
    wc_cumseries util;
    int found = 0;
    int rc = wc_series_utilisation(st, &rep->tb, &util, &found, err);
    if (rc)
        return rc;
    if (!found) {
        note(notes, cap, "zone_utilisation: the run has no CPU utilisation (no /proc/stat and no"
                         " utilisation column): no zone fit");
        wc_cumseries_free(&util);
        return 0;
    }
    double want = o->window_s > 0 ? o->window_s : 10;
    double res = (double)median_spacing_ns(&rep->tb) / 1e9;
    double win = want > res ? want : res;
    if (win > want)
        note(notes, cap, "zone_utilisation: window widened from %g s to the data's sample spacing"
                         " %.3g s (a shorter window would invent detail)", want, win);
    char names[16][32];
    size_t nz = 0;
    rc = counter_zones(st, names, 16, &nz, err);
    for (size_t k = 0; !rc && k < nz && *n < max; k++) {
        const char *zl[] = {names[k], NULL};
        wc_cumseries zs;
        size_t nf = 0;
        rc = wc_series_meter(st, &rep->tb, zl, &zs, &nf, err);
        if (rc)
            break;
        wc_pairs p;
        rc = wc_align_series_windows(&zs, &util, rep->tb.mono_ns[0], (int64_t)llround(win * 1e9),
                                     INT64_MIN, INT64_MAX, &p);
        wc_calibration *c = &out[*n];
        memset(c, 0, sizeof *c);
        c->kind = WC_CAL_ZONE_UTIL;
        snprintf(c->target, sizeof c->target, "%.31s", names[k]);
        snprintf(c->input, sizeof c->input, "utilisation");
        c->window_s = win;
        int fitted = rc ? rc : fit_pairs(c, p.truth_w, p.source_w, &p, 0, &o->boot, notes, cap);
        if (fitted == 1) {
            wc_textf(c->note, sizeof c->note, "P_%s = P_idle + k * u (u: busy fraction 0..1) over %zu"
                     " windows of %g s (%s meter)", names[k], p.n, win, rep->run_provenance);
            (*n)++;
        }
        rc = fitted < 0 ? fitted : 0;
        wc_pairs_free(&p);
        wc_cumseries_free(&zs);
    }
    wc_cumseries_free(&util);
    return rc == -ENOMEM ? wc_error_set(err, rc, "out of memory fitting zones") : rc;
}

static int truth_fits(const wc_cal_opts *o, wc_accuracy_report *rep, wc_calibration *out,
                      size_t max, size_t *n, char *notes, size_t cap, wc_error *err)
{
    if (!rep->nsources || strncmp(rep->sources[0].name, "meter:", 6)) {
        if (rep->ntruth)
            note(notes, cap, "truth_meter: the run has no node counter zones to fit against");
        return 0;
    }
    const wc_acc_source *src = &rep->sources[0];
    int rc = 0;
    for (size_t t = 0; !rc && t < rep->ntruth && *n < max; t++) {
        wc_lagwin *lw = &rep->lag[t];
        if (o->lag_fixed)
            wc_lagwin_fixed(o->lag_s, lw);
        else if (wc_lagwin_estimate(&src->series, &rep->truth[t], &o->search, &o->boot, lw))
            return wc_error_set(err, -ENOMEM, "out of memory estimating the lag");
        wc_pairs p;
        double tw = o->truth_window_s;
        if (tw > 0) {
            /* never shorter than what the data resolves */
            double floor_s = fmax((double)median_spacing_ns(&rep->tb) / 1e9,
                                  fmax(rep->truth[t].median_spacing_s, rep->truth[t].median_window_s));
            if (tw < floor_s) {
                note(notes, cap, "truth_meter %.80s: window widened from %g s to %.3g s (the"
                                 " readings' spacing or window, or the run's sample spacing)",
                     rep->truth[t].spec, tw, floor_s);
                tw = floor_s;
            }
        }
        rc = tw > 0 ? wc_align_windows(&src->series, &rep->truth[t], lw, rep->tb.mono_ns[0],
                                       (int64_t)llround(tw * 1e9), INT64_MIN, INT64_MAX, &p)
                    : wc_align_native(&src->series, &rep->truth[t], lw, INT64_MIN, INT64_MAX, &p);
        wc_calibration *c = &out[*n];
        memset(c, 0, sizeof *c);
        c->kind = WC_CAL_TRUTH_METER;
        snprintf(c->target, sizeof c->target, "%s", rep->truth[t].spec);
        snprintf(c->input, sizeof c->input, "%s", src->name);
        c->window_s = tw > 0 ? tw : 0;
        c->lag_s = lw->lag_s;
        int fitted = rc ? rc : fit_pairs(c, p.source_w, p.truth_w, &p, 1, &o->boot, notes, cap);
        if (fitted == 1) {
            wc_textf(c->note, sizeof c->note,
                     "%s = a * %s + b over %zu readings (%s), lag %.2f s (%s); truth %s", c->target,
                     src->name, p.n, c->window_s > 0 ? "common windows" : "each over its own interval",
                     lw->lag_s, lw->identifiable ? (lw->estimated ? "estimated" : "given")
                                                 : "not identifiable, 0 used",
                     rep->truth[t].provenance);
            (*n)++;
        }
        rc = fitted < 0 ? fitted : 0;
        wc_pairs_free(&p);
    }
    return rc == -ENOMEM ? wc_error_set(err, rc, "out of memory fitting ground truth") : rc;
}

/* The run's counter ceiling (W): run.ceiling_watts, or the default. */
static int run_ceiling(wc_store *st, double *ceiling_w, wc_error *err)
{
    wc_run_meta *run = calloc(1, sizeof *run);
    if (!run)
        return wc_error_set(err, -ENOMEM, "out of memory");
    int rc = wc_store_get_run(st, run, err);
    *ceiling_w = !rc && run->ceiling_watts > 0 ? run->ceiling_watts : WC_DEFAULT_CEILING_WATTS;
    free(run);
    return rc;
}

/* Marks the fits whose coefficients are not identified (wc_calibration_usable)
 * and notes why. */
static int mark_unusable(wc_store *st, wc_calibration *out, size_t n, char *notes, size_t cap,
                         wc_error *err)
{
    double ceil_w;
    int rc = run_ceiling(st, &ceil_w, err);
    for (size_t i = 0; !rc && i < n; i++) {
        wc_calibration *c = &out[i];
        c->unusable = !wc_calibration_usable(c, ceil_w, c->why, sizeof c->why);
        if (c->unusable)
            note(notes, cap, "%s %s: NOT STORED, not identified: %s (%s %.4f +- %.4f W, k/a %.4f +-"
                             " %.4f, R^2 %.4f)", wc_cal_kind_name(c->kind), c->target, c->why,
                 c->kind == WC_CAL_ZONE_UTIL ? "P_idle" : "b", c->fit.c0, c->fit.se0, c->fit.c1,
                 c->fit.se1, c->fit.r2);
    }
    return rc;
}

/* Notes a kept truth fit whose a is outside 0.5..10 (wall power 1 to 3 x the
 * zones is usual): a unit or scale error of the truth. A refused fit gets no
 * such note: its a is not identified, and the note would send the user to fix
 * a unit that is fine (new-user acceptance run). Call after mark_unusable. */
static void unit_notes(const wc_calibration *out, size_t n, char *notes, size_t cap)
{
    for (size_t i = 0; i < n; i++) {
        const wc_calibration *c = &out[i];
        if (c->kind == WC_CAL_TRUTH_METER && !c->unusable && (c->fit.c1 > 10 || c->fit.c1 < 0.5))
            note(notes, cap, "truth_meter %.80s: a = %.4g means wall power is %.4g x the %s zones;"
                             " PSU loss and platform power give roughly 1 to 3 x: check the truth's"
                             " unit or scale", c->target, c->fit.c1, c->fit.c1, c->input);
    }
}

int wc_calibrate(wc_store *st, const wc_cal_opts *o, wc_calibration *out, size_t max, size_t *n,
                 char *notes, size_t notes_cap, wc_error *err)
{
    *n = 0;
    if (notes && notes_cap)
        notes[0] = '\0';
    wc_acc_opts ao;
    memset(&ao, 0, sizeof ao);
    for (size_t i = 0; i < WC_ACC_MAX_ZONES && o->node_zones[i]; i++)
        ao.node_zones[i] = o->node_zones[i];
    ao.boot = o->boot;
    wc_accuracy_report *rep = calloc(1, sizeof *rep);
    if (!rep)
        return wc_error_set(err, -ENOMEM, "out of memory");
    int rc = wc_accuracy_load(st, &ao, rep, err);
    if (rc) {
        free(rep);
        return rc;
    }
    rc = zone_fits(st, o, rep, out, max, n, notes, notes_cap, err);
    if (!rc)
        rc = truth_fits(o, rep, out, max, n, notes, notes_cap, err);
    if (!rc)
        rc = mark_unusable(st, out, *n, notes, notes_cap, err);
    if (!rc)
        unit_notes(out, *n, notes, notes_cap);
    if (!rc && rep->ntruth == 0)
        note(notes, notes_cap, "truth_meter: the run has no ground truth (record with --truth,"
                               " or import a wall-power column): no wall-power fit");
    wc_accuracy_free(rep);
    free(rep);
    if (!rc && *n == 0)
        return wc_error_set(err, -ENODATA, "nothing could be fitted");
    return rc;
}

/* The stored row of a fit. */
static void to_row(const wc_calibration *c, wc_store_cal_row *r)
{
    const wc_linfit *f = &c->fit;
    memset(r, 0, sizeof *r);
    snprintf(r->kind, sizeof r->kind, "%s", wc_cal_kind_name(c->kind));
    snprintf(r->target, sizeof r->target, "%s", c->target);
    snprintf(r->input, sizeof r->input, "%s", c->input);
    r->window_s = c->window_s;
    r->lag_s = c->lag_s;
    r->n = (int64_t)f->n;
    r->dof = f->dof;
    r->c0 = f->c0, r->c0_se = f->se0, r->c1 = f->c1, r->c1_se = f->se1, r->cov01 = f->cov01;
    r->c0_lo = f->b0_lo, r->c0_hi = f->b0_hi, r->c1_lo = f->b1_lo, r->c1_hi = f->b1_hi;
    r->r2 = f->r2, r->rmse = f->rmse;
    snprintf(r->fitted_on, sizeof r->fitted_on, "%s", c->fitted_on);
    snprintf(r->note, sizeof r->note, "%s", c->note);
    snprintf(r->fitted_run, sizeof r->fitted_run, "%s", c->fitted_run);
}

/* A fit from its stored row (no residuals). */
static void from_row(const wc_store_cal_row *r, wc_calibration *c)
{
    memset(c, 0, sizeof *c);
    c->id = r->id;
    c->kind = !strcmp(r->kind, "truth_meter") ? WC_CAL_TRUTH_METER : WC_CAL_ZONE_UTIL;
    snprintf(c->target, sizeof c->target, "%s", r->target);
    snprintf(c->input, sizeof c->input, "%s", r->input);
    c->window_s = r->window_s;
    c->lag_s = r->lag_s;
    c->fit.n = (size_t)r->n;
    c->fit.dof = r->dof;
    c->fit.c0 = r->c0, c->fit.se0 = r->c0_se, c->fit.c1 = r->c1, c->fit.se1 = r->c1_se;
    c->fit.cov01 = r->cov01;
    c->fit.b0_lo = r->c0_lo, c->fit.b0_hi = r->c0_hi, c->fit.b1_lo = r->c1_lo, c->fit.b1_hi = r->c1_hi;
    c->fit.r2 = r->r2, c->fit.rmse = r->rmse;
    snprintf(c->fitted_on, sizeof c->fitted_on, "%s", r->fitted_on);
    snprintf(c->note, sizeof c->note, "%s", r->note);
    snprintf(c->fitted_run, sizeof c->fitted_run, "%s", r->fitted_run);
}

int wc_calibration_store(wc_store *st, wc_calibration *c, wc_error *err)
{
    if (c->unusable)
        return wc_error_set(err, -EINVAL, "calibration %s %s is not identified (%s): not stored",
                            wc_cal_kind_name(c->kind), c->target, c->why);
    if (!c->fitted_run[0] && !c->fitted_on[0]) { /* fitted here: this run's fingerprint */
        int frc = wc_store_run_fingerprint(st, c->fitted_run, sizeof c->fitted_run, err);
        if (frc)
            return frc;
    }
    wc_store_cal_row row;
    to_row(c, &row);
    wc_store_cal_points pts = {.n = c->nres, .x = c->x, .y = c->y, .w = c->w, .a_ns = c->a_ns,
                               .b_ns = c->b_ns};
    int rc = wc_store_put_calibration(st, &row, &pts, err);
    if (!rc)
        c->id = row.id;
    return rc;
}

int wc_calibration_load(wc_store *st, wc_calibration *out, size_t max, size_t *n,
                        size_t *ignored, wc_error *err)
{
    *n = 0;
    wc_store_cal_row *rows = max ? calloc(max, sizeof *rows) : NULL;
    if (max && !rows)
        return wc_error_set(err, -ENOMEM, "out of memory");
    size_t got = 0;
    int rc = wc_store_load_calibrations(st, rows, max, &got, ignored, err);
    char here[160] = "";
    if (!rc && got)
        rc = wc_store_run_fingerprint(st, here, sizeof here, err);
    for (size_t i = 0; !rc && i < got; i++) {
        from_row(&rows[i], &out[i]);
        out[i].here = !out[i].fitted_on[0] ||
                      (out[i].fitted_run[0] && !strcmp(out[i].fitted_run, here));
    }
    if (!rc)
        *n = got;
    free(rows);
    return rc;
}

/* Refuses fits that would be scored in-sample in the target: the source is
 * this very run (the same file, a link or a byte copy: the same data
 * fingerprint), or one of its fits was fitted on the target (copied to the
 * source and now back). Gives every fit its origin's fingerprint. */
static int origins_elsewhere(wc_store *st, wc_store *from, wc_calibration *fits, size_t n,
                             const char *from_path, wc_error *err)
{
    char src[160], dst[160];
    int rc = wc_store_run_fingerprint(from, src, sizeof src, err);
    if (!rc)
        rc = wc_store_run_fingerprint(st, dst, sizeof dst, err);
    if (!rc && !strcmp(src, dst))
        return wc_error_set(err, -EINVAL, "%s is this very run (its data: the same file, a link or"
                            " a copy): its fits would be scored in-sample here; copy them from"
                            " another run of the node", from_path);
    for (size_t i = 0; i < n && !rc; i++) {
        if (!fits[i].fitted_run[0])
            snprintf(fits[i].fitted_run, sizeof fits[i].fitted_run, "%s", fits[i].fitted_on[0] ? "" : src);
        if (fits[i].fitted_run[0] && !strcmp(fits[i].fitted_run, dst))
            rc = wc_error_set(err, -EINVAL, "%s's fit #%lld (%s) was fitted on this very run and"
                              " copied there: copied back it would be scored in-sample; nothing"
                              " copied", from_path, (long long)fits[i].id, fits[i].target);
    }
    return rc;
}

int wc_calibration_apply_from(wc_store *st, const char *from_path, wc_error *err)
{
    wc_store *from = wc_store_open(from_path, WC_STORE_READ, err);
    if (!from)
        return -EIO;
    wc_calibration fits[WC_CAL_MAX];
    size_t n = 0;
    wc_run_meta *run = calloc(1, sizeof *run);
    int rc = run ? wc_calibration_load(from, fits, WC_CAL_MAX, &n, NULL, err)
                 : wc_error_set(err, -ENOMEM, "out of memory");
    if (!rc)
        rc = wc_store_get_run(from, run, err);
    if (!rc)
        rc = origins_elsewhere(st, from, fits, n, from_path, err);
    char host[128] = "";
    if (!rc)
        snprintf(host, sizeof host, "%.127s", run->host);
    free(run);
    wc_store_close(from);
    if (rc)
        return rc;
    if (!n)
        return wc_error_set(err, -ENOENT, "%s holds no calibration (never calibrated, or every fit"
                                          " was refused as not identified): record a longer run"
                                          " under a load that varies and calibrate it", from_path);
    for (size_t i = 0; i < n && !rc; i++) {
        if (!fits[i].fitted_on[0])
            snprintf(fits[i].fitted_on, sizeof fits[i].fitted_on, "%.200s (host %.60s, fit #%lld)",
                     from_path, host, (long long)fits[i].id);
        fits[i].id = 0;
        rc = wc_calibration_store(st, &fits[i], err);
    }
    return rc ? rc : (int)n;
}

/* Splits "a+b+c" into names (pointers into buf). */
static size_t split_zones(char *buf, const char **names, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(buf, "+", &save); t && n < max;
         t = strtok_r(NULL, "+", &save))
        names[n++] = t;
    return n;
}

static const char *fitted_where(const wc_calibration *c)
{
    return !c->here ? c->fitted_on
                    : c->fitted_on[0] ? "this run, copied away and back (IN-SAMPLE: scored against the"
                                        " truth it was fitted on)"
                                      : "this run (IN-SAMPLE: scored against the truth it was fitted on)";
}

/* "estimate:wall#N" for each truth_meter fit of the report's node source.
 * Returns the number added or -ENOMEM. */
static int add_wall_estimates(const wc_calibration *fits, size_t nfits, wc_accuracy_report *rep,
                              wc_error *err)
{
    int added = 0;
    for (size_t i = 0; i < nfits; i++) {
        const wc_calibration *c = &fits[i];
        if (c->kind != WC_CAL_TRUTH_METER || strcmp(c->input, rep->sources[0].name))
            continue;
        wc_acc_source src;
        memset(&src, 0, sizeof src);
        if (wc_cumseries_affine(&rep->sources[0].series, c->fit.c1, c->fit.c0, &src.series))
            return wc_error_set(err, -ENOMEM, "out of memory");
        snprintf(src.name, sizeof src.name, "estimate:wall#%lld", (long long)c->id);
        snprintf(src.provenance, sizeof src.provenance, "estimated");
        src.in_sample = c->here;
        wc_textf(src.description, sizeof src.description,
                 "wall power = %.4f * %s %c %.2f W (fit #%lld of %.40s, fitted on %.120s)",
                 c->fit.c1, c->input, c->fit.c0 < 0 ? '-' : '+', fabs(c->fit.c0), (long long)c->id, c->target,
                 fitted_where(c));
        if (wc_accuracy_add_source(rep, &src)) {
            wc_cumseries_free(&src.series);
            break;
        }
        added++;
    }
    return added;
}

/* The zone fits summed over the report's node zones: node power = b + a * u.
 * Returns 1 when every node zone has a fit (where: where the last was
 * fitted), else 0. */
static int zone_sum(const wc_calibration *fits, size_t nfits, const wc_accuracy_report *rep,
                    double *a, double *b, const char **where)
{
    char zones[64];
    snprintf(zones, sizeof zones, "%s", rep->node_zones);
    const char *names[WC_ACC_MAX_ZONES];
    size_t nz = split_zones(zones, names, WC_ACC_MAX_ZONES);
    size_t covered = 0;
    *a = *b = 0;
    *where = NULL;
    for (size_t k = 0; k < nz; k++)
        for (size_t i = 0; i < nfits; i++)
            if (fits[i].kind == WC_CAL_ZONE_UTIL && !strcmp(fits[i].target, names[k])) {
                *a += fits[i].fit.c1;
                *b += fits[i].fit.c0;
                *where = fitted_where(&fits[i]);
                covered++;
                break;
            }
    return nz && covered == nz;
}

static void util_description(wc_acc_source *src, const wc_accuracy_report *rep,
                             const wc_calibration *wall, double ua, double ub, const char *where)
{
    if (wall)
        wc_textf(src->description, sizeof src->description,
                 "wall power from CPU utilisation alone = %.2f W + %.2f W * u (u: busy"
                 " fraction 0..1; zone fits of %.90s, through wall fit #%lld)", ub, ua, where,
                 (long long)wall->id);
    else
        wc_textf(src->description, sizeof src->description,
                 "%s power (not wall power: compare it with the meter) from CPU"
                 " utilisation alone = %.2f W + %.2f W * u (u: busy fraction 0..1; zone fits"
                 " of %.90s)",
                 rep->node_zones, ub, ua, where);
}

/* "estimate:util" when zone fits cover every node zone. Returns 1 when
 * added, 0 when not, or -errno. */
static int add_util_estimate(wc_store *st, const wc_calibration *fits, size_t nfits,
                             wc_accuracy_report *rep, wc_error *err)
{
    double a, b;
    const char *where;
    if (!zone_sum(fits, nfits, rep, &a, &b, &where))
        return 0;
    /* the zone fits give node power from utilisation; through the latest
     * wall fit of the same node source that becomes wall power, which is
     * what the ground truth measures */
    const wc_calibration *wall = NULL;
    for (size_t i = 0; i < nfits; i++)
        if (fits[i].kind == WC_CAL_TRUTH_METER && !strcmp(fits[i].input, rep->sources[0].name))
            wall = &fits[i];
    wc_cumseries util;
    int found = 0, added = 0;
    int rc = wc_series_utilisation(st, &rep->tb, &util, &found, err);
    if (rc)
        return rc;
    double ua = wall ? wall->fit.c1 * a : a, ub = wall ? wall->fit.c1 * b + wall->fit.c0 : b;
    wc_acc_source src;
    memset(&src, 0, sizeof src);
    if (found && !wc_cumseries_affine(&util, ua, ub, &src.series)) {
        snprintf(src.name, sizeof src.name, "estimate:util");
        snprintf(src.provenance, sizeof src.provenance, "estimated");
        src.in_sample = wall && wall->here; /* zone fits are on the meter, not the truth */
        util_description(&src, rep, wall, ua, ub, where);
        if (wc_accuracy_add_source(rep, &src))
            wc_cumseries_free(&src.series);
        else
            added = 1;
    }
    wc_cumseries_free(&util);
    return added;
}

int wc_calibration_add_estimates(wc_store *st, const wc_calibration *fits, size_t nfits,
                                 wc_accuracy_report *rep, wc_error *err)
{
    if (!rep->nsources || strncmp(rep->sources[0].name, "meter:", 6))
        return 0;
    double ceil_w;
    int rc = run_ceiling(st, &ceil_w, err);
    wc_calibration *ok = rc || !nfits ? NULL : calloc(nfits, sizeof *ok);
    if (!rc && nfits && !ok)
        rc = wc_error_set(err, -ENOMEM, "out of memory");
    if (rc)
        return rc;
    size_t nok = 0;
    for (size_t i = 0; i < nfits; i++)
        if (!fits[i].unusable && wc_calibration_usable(&fits[i], ceil_w, NULL, 0))
            ok[nok++] = fits[i]; /* shallow: residuals are never used here */
    int added = add_wall_estimates(ok, nok, rep, err);
    int util = added < 0 ? 0 : add_util_estimate(st, ok, nok, rep, err);
    free(ok);
    return added < 0 ? added : util < 0 ? util : added + util;
}
