/*
 * figures.c — the report's plots (figures.h): for each figure a data file
 * written from the validation (and, for the stacked tenants, from the run's
 * attributed rows, read through collector/store/store_tenants.c), then one
 * gnuplot run drawing it as SVG and PNG.
 *
 * A gnuplot script holds only numbers, keywords, the fixed file names below
 * and labels as dec("<hex>") (reports/escape.h), so nothing from the run can
 * be parsed by gnuplot as a command. Times are seconds since the run's first
 * tick (monotonic clock); powers watts; energies joules.
 */
#include "reports/figures.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/store/store_read.h"
#include "collector/store/store_results.h"
#include "reports/escape.h"
#include "reports/gnuplot.h"
#include "reports/headline.h"
#include "reports/report_io.h"

/* Points drawn per series at most: longer runs are averaged (power) or
 * thinned (pairs) for drawing; the data files keep what was drawn from. */
#define FIG_MAX_WINDOWS 1500
#define FIG_MAX_POINTS 5000
#define FIG_MAX_READINGS 4000
#define FIG_LABEL_BYTES 60

static const char SVG_TERMINAL[] =
    "set terminal svg size 960,460 dynamic noenhanced font \"sans,15\" linewidth 1.4 background rgb \"white\"\n";
/* Line colours (Okabe–Ito, then more), 99 = "other". */
static const char PALETTE[] =
    "set linetype 1 lc rgb \"#0072B2\"\nset linetype 2 lc rgb \"#E69F00\"\nset linetype 3 lc rgb \"#009E73\"\n"
    "set linetype 4 lc rgb \"#CC79A7\"\nset linetype 5 lc rgb \"#56B4E9\"\nset linetype 6 lc rgb \"#D55E00\"\n"
    "set linetype 7 lc rgb \"#F0E442\"\nset linetype 8 lc rgb \"#000000\"\nset linetype 9 lc rgb \"#882255\"\n"
    "set linetype 10 lc rgb \"#44AA99\"\nset linetype 99 lc rgb \"#BBBBBB\"\nset linetype cycle 10\n";
static const char PNG_TERMINAL[] =
    "set terminal pngcairo size 1280,610 noenhanced font \"sans,14\" linewidth 1.4 background rgb \"white\"\n";

/* Everything a figure builder reads. */
typedef struct fig_env {
    wc_store *st;
    const wc_validation *v;
    const char *dir;        /* where the data files are written: the private work directory */
    int64_t t0_ns, t1_ns;   /* first and last tick, monotonic */
    double duration_s;
} fig_env;

/* A script body being written (open_memstream). */
typedef struct gp_body {
    char *buf;
    size_t len;
    FILE *f;
} gp_body;

static int body_open(gp_body *b)
{
    memset(b, 0, sizeof *b);
    b->f = open_memstream(&b->buf, &b->len);
    return b->f ? 0 : -ENOMEM;
}

static void body_discard(gp_body *b)
{
    if (b->f)
        fclose(b->f);
    free(b->buf);
    memset(b, 0, sizeof *b);
}

/* A number for a data file: %.9g, or NaN (gnuplot leaves a gap). */
static void dat_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.9g", x);
    else
        fputs("NaN", f);
}

static double secs(const fig_env *e, int64_t t_ns)
{
    return (double)(t_ns - e->t0_ns) / 1e9;
}

/* "12 s", "1.5 min" … for captions. */
static const char *dur_text(double s, char *buf, size_t cap)
{
    /* for display only: 4 significant digits (a 0.999999 s median spacing
     * reads "1 s"; 0.25 s stays 0.25 s; 4 digits: ms below 10 s) */
    if (s == 0)
        snprintf(buf, cap, "per reading");
    else if (s < 120)
        snprintf(buf, cap, "%.4g s", s);
    else if (s < 7200)
        snprintf(buf, cap, "%.4g min", s / 60);
    else
        snprintf(buf, cap, "%.4g h", s / 3600);
    return buf;
}

static const char *prov_upper(const char *p)
{
    return !strcmp(p, "simulated") ? "SIMULATED" : !strcmp(p, "estimated") ? "ESTIMATED" : p;
}

/* A drawing window of at least min_s giving at most FIG_MAX_WINDOWS
 * windows over the run; whole seconds above 10 s. */
static double drawing_window(const fig_env *e, double min_s)
{
    double w = min_s;
    if (e->duration_s / w > FIG_MAX_WINDOWS)
        w = e->duration_s / FIG_MAX_WINDOWS;
    if (w > 10)
        w = ceil(w);
    return w;
}

double wc_figures_nice_window(double duration_s)
{
    static const double nice[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
                                  21600, 43200, 86400};
    double want = duration_s / WC_FIG_TARGET_WINDOWS;
    for (size_t i = 0; i < sizeof nice / sizeof nice[0]; i++)
        if (nice[i] >= want * (1 - 1e-9)) /* 10 s of 1 s ticks is 10 s, not 15 */
            return nice[i];
    return ceil(want / 86400) * 86400;
}

/* A truth spec short enough for a legend: "csv:...last/part.csv". The
 * caption keeps it whole. */
static const char *short_spec(const char *spec, char *buf, size_t cap)
{
    size_t n = strlen(spec);
    if (n <= 44) {
        snprintf(buf, cap, "%s", spec);
        return buf;
    }
    const char *colon = strchr(spec, ':');
    int kind = colon && colon - spec < 12 ? (int)(colon - spec + 1) : 0;
    snprintf(buf, cap, "%.*s...%s", kind, spec, spec + n - 32);
    return buf;
}

static void title_line(FILE *s, const char *text)
{
    fputs("set title ", s);
    wc_gp_string(s, text, 200);
    fputs("\n", s);
}

static void axis_labels(FILE *s, const char *x, const char *y)
{
    fputs("set xlabel ", s);
    wc_gp_string(s, x, 120);
    fputs("\nset ylabel ", s);
    wc_gp_string(s, y, 120);
    fputs("\n", s);
}

static const char *const PHASE_COLOURS[] = {"#dce9f7", "#f7e3d0", "#dff2dc", "#efe0f5", "#f6f2c9", "#d8f0f0"};

/* Shades every phase of the run (a rect per phase, numbers only) and
 * labels the wide ones; writes phases.dat. ids from 100 (objects, labels). */
static void phase_shading(FILE *s, const fig_env *e)
{
    const wc_accuracy_report *a = &e->v->acc;
    double depth = 1.0;
    for (size_t i = 0; i < a->nphases && i < 400; i++) {
        const wc_acc_phase *p = &a->phases[i];
        double x1 = secs(e, p->start_ns), x2 = secs(e, p->end_ns);
        if (!(x2 > x1))
            continue;
        unsigned h = 5381;
        for (const char *c = p->cls; *c; c++)
            h = h * 33 + (unsigned char)*c;
        const char *col = !strcmp(p->cls, "idle") ? "#ececec" : PHASE_COLOURS[h % 6];
        /* neighbours of one class alternate in depth, so each phase shows */
        int same_as_previous = i > 0 && !strcmp(a->phases[i - 1].cls, p->cls);
        depth = same_as_previous ? 1.6 - depth : 1.0;
        fprintf(s, "set object %zu rect from %.6f, graph 0 to %.6f, graph 1 behind fillcolor rgb \"%s\""
                   " fillstyle solid %.1f noborder\n", 100 + i, x1, x2, col, depth);
        char label[96];
        if (p->repetition > 1)
            snprintf(label, sizeof label, "%.60s #%d", p->name, p->repetition);
        else
            snprintf(label, sizeof label, "%.60s", p->name);
        /* labelled where it fits: about 860 px of plot, 6.5 px a character */
        double room_px = (x2 - x1) / e->duration_s * 860;
        size_t chars = strlen(label) < 40 ? strlen(label) : 40;
        if (room_px >= 6.5 * (double)chars + 8) {
            fprintf(s, "set label %zu ", 100 + i);
            wc_gp_string(s, label, 40);
            fprintf(s, " at %.6f, graph 0.97 center font \",9\" textcolor rgb \"#555555\" front\n",
                    (x1 + x2) / 2);
        }
    }
}

/* phases.dat: the phases the figures shade. */
static int write_phases(const fig_env *e, wc_error *err)
{
    const wc_accuracy_report *a = &e->v->acc;
    if (!a->nphases)
        return 0;
    wc_outfile o;
    int rc = wc_outfile_open(&o, e->dir, "phases.dat", err);
    if (rc)
        return rc;
    fputs("start_s\tend_s\trepetition\tclass\tname\n", o.f);
    for (size_t i = 0; i < a->nphases; i++) {
        const wc_acc_phase *p = &a->phases[i];
        fprintf(o.f, "%.6f\t%.6f\t%d\t", secs(e, p->start_ns), secs(e, p->end_ns), p->repetition);
        wc_gp_field(o.f, p->cls);
        fputc('\t', o.f);
        wc_gp_field(o.f, p->name);
        fputc('\n', o.f);
    }
    return wc_outfile_close(&o, err);
}

static wc_figure *fig_new(wc_figures *F, const char *id, const char *title, const char *data)
{
    wc_figure *f = &F->f[F->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->id, sizeof f->id, "%s", id);
    snprintf(f->title, sizeof f->title, "%s", title);
    snprintf(f->data, sizeof f->data, "%s", data);
    return f;
}

/* ---- node power against ground truth ------------------------------------ */

/* power.dat: each node source's mean power per drawing window; *ymax the
 * largest. */
static int write_power(const fig_env *e, int64_t w_ns, size_t nwin, double *ymax, wc_error *err)
{
    const wc_accuracy_report *a = &e->v->acc;
    wc_outfile o;
    int rc = wc_outfile_open(&o, e->dir, "power.dat", err);
    if (rc)
        return rc;
    fputs("t_s", o.f);
    for (size_t k = 0; k < a->nsources; k++) {
        fputs("\t", o.f);
        wc_gp_field(o.f, a->sources[k].name);
    }
    fputs("\n", o.f);
    for (size_t i = 0; i < nwin; i++) {
        int64_t lo = e->t0_ns + (int64_t)i * w_ns, hi = lo + w_ns < e->t1_ns ? lo + w_ns : e->t1_ns;
        dat_num(o.f, secs(e, lo) + (double)(hi - lo) / 2e9);
        for (size_t k = 0; k < a->nsources; k++) {
            double p = wc_cumseries_rate(&a->sources[k].series, lo, hi);
            if (isfinite(p) && p > *ymax)
                *ymax = p;
            fputs("\t", o.f);
            dat_num(o.f, p);
        }
        fputs("\n", o.f);
    }
    return wc_outfile_close(&o, err);
}

/* One truth source's block of truth.dat: its readings, binned when there are
 * very many. */
static void truth_block(const fig_env *e, FILE *f, size_t ti, double *ymax)
{
    const wc_accuracy_report *a = &e->v->acc;
    const wc_truth_series *t = &a->truth[ti];
    size_t per = t->n > FIG_MAX_READINGS ? (t->n + FIG_MAX_READINGS - 1) / FIG_MAX_READINGS : 1;
    for (size_t i = 0; i < t->n; i += per) {
        double sum = 0, lo_s = 0, hi_s = 0;
        size_t m = 0;
        for (size_t j = i; j < t->n && j < i + per; j++) {
            int64_t ra, rb;
            wc_lagwin_interval(&a->lag[ti], &t->r[j], &ra, &rb);
            if (!m)
                lo_s = secs(e, ra);
            hi_s = secs(e, rb);
            sum += t->r[j].watts;
            m++;
        }
        double wv = sum / (double)m;
        if (wv > *ymax)
            *ymax = wv;
        dat_num(f, (lo_s + hi_s) / 2);
        fputs("\t", f);
        dat_num(f, wv);
        fprintf(f, "\t%.6f\t%.6f\t%zu\n", lo_s, hi_s, m);
    }
}

/* truth.dat: one block per source; each reading drawn at the midpoint of
 * the interval it averages after the lag. *drawn gets the readings. */
static int write_truth(const fig_env *e, double *ymax, size_t *drawn, wc_error *err)
{
    const wc_accuracy_report *a = &e->v->acc;
    *drawn = 0;
    if (!a->ntruth)
        return 0;
    wc_outfile o;
    int rc = wc_outfile_open(&o, e->dir, "truth.dat", err);
    if (rc)
        return rc;
    fputs("t_s\twatts\tinterval_start_s\tinterval_end_s\treadings\n", o.f);
    for (size_t ti = 0; ti < a->ntruth; ti++) {
        if (ti)
            fputs("\n\n", o.f);
        truth_block(e, o.f, ti, ymax);
        *drawn += a->truth[ti].n;
    }
    return wc_outfile_close(&o, err);
}

static void power_caption(const fig_env *e, wc_figure *f, double w, size_t truth_drawn)
{
    const wc_accuracy_report *a = &e->v->acc;
    char wt[32], cap[480];
    int n = snprintf(cap, sizeof cap, "Node power, watts, over seconds since the run start. Node sources"
                     " (meter %s) averaged over %s windows", prov_upper(a->run_provenance),
                     dur_text(w, wt, sizeof wt));
    if (a->ntruth)
        snprintf(cap + n, sizeof cap - (size_t)n, "; ground truth: each reading over the interval it averages,"
                 " shifted by the estimated lag, drawn at its midpoint%s. Shaded: the phases.",
                 truth_drawn > FIG_MAX_READINGS ? " (averaged in groups for drawing)" : "");
    else
        snprintf(cap + n, sizeof cap - (size_t)n, "; the run has no ground truth. Shaded: the phases.");
    snprintf(f->caption, sizeof f->caption, "%s", cap);
}

static void power_script(const fig_env *e, gp_body *b, double ymax)
{
    const wc_accuracy_report *a = &e->v->acc;
    FILE *s = b->f;
    title_line(s, "Node power against ground truth");
    axis_labels(s, "time since run start (s)", "power (W)");
    fprintf(s, "set datafile separator \"\\t\"\nset key outside bottom center horizontal\nset grid\n"
               "set yrange [0:%.6g]\nset xrange [0:%.6g]\n", ymax * 1.12, e->duration_s);
    phase_shading(s, e);
    fputs("plot ", s);
    for (size_t k = 0; k < a->nsources; k++) {
        char t[200];
        snprintf(t, sizeof t, "%s [%s%s]", a->sources[k].name, prov_upper(a->sources[k].provenance),
                 a->sources[k].in_sample ? ", in-sample" : "");
        const char *nm = a->sources[k].name;
        const char *style = !strncmp(nm, "model:", 6) ? "dt 2 lw 2" : !strncmp(nm, "estimate:", 9) ? "dt 4 lw 2" : "lw 2.5";
        fprintf(s, "%s'power.dat' skip 1 using 1:%zu with lines %s title ", k ? ", " : "", k + 2, style);
        wc_gp_string(s, t, FIG_LABEL_BYTES);
    }
    for (size_t ti = 0; ti < a->ntruth; ti++) {
        char t[200], sp[64];
        snprintf(t, sizeof t, "truth %s [%s]", short_spec(a->truth[ti].spec, sp, sizeof sp),
                 prov_upper(a->truth[ti].provenance));
        fprintf(s, ", 'truth.dat' skip 1 index %zu using 1:2 with linespoints pt 7 ps 0.35 lw 1 title ", ti);
        wc_gp_string(s, t, FIG_LABEL_BYTES);
    }
    fputs("\n", s);
}

static int fig_power(const fig_env *e, wc_figure *f, gp_body *b, wc_error *err)
{
    const wc_accuracy_report *a = &e->v->acc;
    if (!a->nsources) {
        snprintf(f->why_not, sizeof f->why_not, "the run has no node power source");
        return 0;
    }
    double w = drawing_window(e, (double)a->tb.median_spacing_ns / 1e9);
    int64_t w_ns = (int64_t)llround(w * 1e9);
    size_t nwin = (size_t)ceil((double)(e->t1_ns - e->t0_ns) / (double)w_ns);
    double ymax = 0;
    size_t truth_drawn = 0;
    int rc = write_power(e, w_ns, nwin, &ymax, err);
    if (!rc)
        rc = write_truth(e, &ymax, &truth_drawn, err);
    if (rc)
        return rc;
    if (!(ymax > 0)) {
        snprintf(f->why_not, sizeof f->why_not, "no interval of the run has a defined power");
        return 0;
    }
    f->has_data = 1;
    power_caption(e, f, w, truth_drawn);
    power_script(e, b, ymax);
    return 0;
}

/* ---- pairs: error over time, Bland–Altman, meter against truth ---------- */

/* The pairs the gate reads: gated source against the first truth source at
 * the gate window. */
static int gate_pairs(const fig_env *e, size_t si, double window_s, wc_pairs *p)
{
    const wc_accuracy_report *a = &e->v->acc;
    memset(p, 0, sizeof *p);
    if (window_s > 0)
        return wc_align_windows(&a->sources[si].series, &a->truth[0], &a->lag[0], a->tb.mono_ns[0],
                                (int64_t)llround(window_s * 1e9), INT64_MIN, INT64_MAX, p);
    return wc_align_native(&a->sources[si].series, &a->truth[0], &a->lag[0], INT64_MIN, INT64_MAX, p);
}

static int write_pairs(const fig_env *e, const char *name, const wc_pairs *p, wc_error *err)
{
    wc_outfile o;
    int rc = wc_outfile_open(&o, e->dir, name, err);
    if (rc)
        return rc;
    fputs("interval_start_s\tinterval_end_s\tmid_s\tsource_w\ttruth_w\tdiff_w\tmean_w\n", o.f);
    for (size_t i = 0; i < p->n; i++) {
        double a = secs(e, p->a_ns[i]), z = secs(e, p->b_ns[i]);
        fprintf(o.f, "%.6f\t%.6f\t%.6f\t", a, z, (a + z) / 2);
        dat_num(o.f, p->source_w[i]);
        fputs("\t", o.f);
        dat_num(o.f, p->truth_w[i]);
        fputs("\t", o.f);
        dat_num(o.f, p->source_w[i] - p->truth_w[i]);
        fputs("\t", o.f);
        dat_num(o.f, (p->source_w[i] + p->truth_w[i]) / 2);
        fputs("\n", o.f);
    }
    return wc_outfile_close(&o, err);
}

/* Horizontal lines at the bias and the limits of agreement. */
static void agreement_lines(FILE *s, const wc_accuracy *acc)
{
    char t[120];
    snprintf(t, sizeof t, "bias %.2f W", acc->bias_w.est);
    fprintf(s, ", %.9g with lines dt 2 lw 2 lc rgb \"#c0392b\" title ", acc->bias_w.est);
    wc_gp_string(s, t, 80);
    snprintf(t, sizeof t, "limits of agreement %.2f .. %.2f W", acc->loa_lo_w.est, acc->loa_hi_w.est);
    fprintf(s, ", %.9g with lines dt 3 lw 2 lc rgb \"#7f8c8d\" title ", acc->loa_lo_w.est);
    wc_gp_string(s, t, 80);
    fprintf(s, ", %.9g with lines dt 3 lw 2 lc rgb \"#7f8c8d\" notitle", acc->loa_hi_w.est);
}

static const char *ci_text(const wc_ci *c, const char *unit, char *buf, size_t cap)
{
    if (!isfinite(c->est))
        snprintf(buf, cap, "-");
    else if (isfinite(c->lo) && isfinite(c->hi))
        snprintf(buf, cap, "%.2f %s (95 %% CI %.2f .. %.2f)", c->est, unit, c->lo, c->hi);
    else
        snprintf(buf, cap, "%.2f %s (no interval: too few pairs)", c->est, unit);
    return buf;
}

/* The captions of the error and Bland–Altman figures: source si against the
 * first truth, n pairs of which every every-th is drawn. */
static void error_captions(const fig_env *e, size_t si, const wc_acc_cell *cell, size_t n,
                           size_t every, wc_figure *fe, wc_figure *fb)
{
    const wc_validation *v = e->v;
    const wc_accuracy_report *a = &v->acc;
    char wt[32], bias[80], lo[80], hi[80], thin[96] = "";
    if (every > 1)
        snprintf(thin, sizeof thin, " (every %zu-th of the %zu pairs drawn; the lines use all)", every, n);
    dur_text(v->gate_window_s, wt, sizeof wt);
    char pairs[64] = "one pair per truth reading";
    if (v->gate_window_s > 0)
        snprintf(pairs, sizeof pairs, "pairs over %s windows", wt);
    ci_text(&cell->acc.bias_w, "W", bias, sizeof bias);
    ci_text(&cell->acc.loa_lo_w, "W", lo, sizeof lo);
    ci_text(&cell->acc.loa_hi_w, "W", hi, sizeof hi);
    const char *src = a->sources[si].name, *prov = prov_upper(a->sources[si].provenance);
    snprintf(fe->caption, sizeof fe->caption,
             "Error of %.100s [%s] against truth %.100s [%s], watts (source − truth), %s%s, over"
             " seconds since the run start: bias %s; Bland–Altman limits of agreement %s and %s."
             " Shaded: the phases.", src, prov, a->truth[0].spec, prov_upper(a->truth[0].provenance),
             pairs, thin, bias, lo, hi);
    snprintf(fb->caption, sizeof fb->caption,
             "Bland–Altman: difference (source − truth) against the mean of %.100s [%s] and truth"
             " %.100s [%s], watts, %s%s: bias %s; 95 %% limits of agreement %s and %s.",
             src, prov, a->truth[0].spec, prov_upper(a->truth[0].provenance), pairs,
             thin, bias, lo, hi);
}

/* The scripts of the error (be) and Bland–Altman (bb) figures. */
static void error_scripts(const fig_env *e, const char *src, const wc_acc_cell *cell, size_t every,
                          gp_body *be, gp_body *bb)
{
    FILE *s = be->f;
    title_line(s, "Error against ground truth over time");
    axis_labels(s, "time since run start (s)", "source − truth (W)");
    fprintf(s, "set datafile separator \"\\t\"\nset key outside bottom center horizontal\nset grid\n"
               "set xrange [0:%.6g]\n", e->duration_s);
    phase_shading(s, e);
    fprintf(s, "plot 'pairs.dat' skip 1 every %zu using 3:6 with points pt 7 ps 0.4 lc rgb \"#2c6fbb\" title ",
            every);
    wc_gp_string(s, src, FIG_LABEL_BYTES);
    agreement_lines(s, &cell->acc);
    fputs(", 0 with lines lc rgb \"black\" lw 1 notitle\n", s);
    s = bb->f;
    title_line(s, "Bland–Altman");
    axis_labels(s, "mean of source and truth (W)", "source − truth (W)");
    fprintf(s, "set datafile separator \"\\t\"\nset key outside bottom center horizontal\nset grid\n");
    fprintf(s, "plot 'pairs.dat' skip 1 every %zu using 7:6 with points pt 7 ps 0.4 lc rgb \"#2c6fbb\" title ",
            every);
    wc_gp_string(s, src, FIG_LABEL_BYTES);
    agreement_lines(s, &cell->acc);
    fputs("\n", s);
}

/* error over time and Bland–Altman, from pairs.dat */
static int fig_error_pair(const fig_env *e, wc_figure *fe, gp_body *be, wc_figure *fb, gp_body *bb,
                          wc_error *err)
{
    const wc_validation *v = e->v;
    const wc_accuracy_report *a = &v->acc;
    if (!a->ntruth || !a->nsources) {
        snprintf(fe->why_not, sizeof fe->why_not, "the run has no ground truth");
        snprintf(fb->why_not, sizeof fb->why_not, "the run has no ground truth");
        return 0;
    }
    size_t si = v->gated_source >= 0 ? (size_t)v->gated_source : 0;
    const wc_acc_cell *cell = wc_accuracy_cell(a, si, 0, v->gate_window_s, -1);
    wc_pairs p;
    if (!cell || gate_pairs(e, si, v->gate_window_s, &p) || p.n == 0) {
        if (cell)
            wc_pairs_free(&p);
        snprintf(fe->why_not, sizeof fe->why_not, "no pair of %s and the truth was scored",
                 a->sources[si].name);
        memcpy(fb->why_not, fe->why_not, sizeof fb->why_not);
        return 0;
    }
    int rc = write_pairs(e, "pairs.dat", &p, err);
    size_t n = p.n, every = n > FIG_MAX_POINTS ? (n + FIG_MAX_POINTS - 1) / FIG_MAX_POINTS : 1;
    wc_pairs_free(&p);
    if (rc)
        return rc;
    fe->has_data = fb->has_data = 1;
    error_captions(e, si, cell, n, every, fe, fb);
    error_scripts(e, a->sources[si].name, cell, every, be, bb);
    return 0;
}

/* The stored truth_meter fit for the first truth source and the meter. */
static const wc_calibration *wall_fit(const wc_validation *v)
{
    const wc_accuracy_report *a = &v->acc;
    const wc_calibration *best = NULL;
    for (size_t i = 0; i < v->nfits; i++) {
        const wc_calibration *c = &v->fits[i];
        if (c->kind == WC_CAL_TRUTH_METER && !strcmp(c->target, a->truth[0].spec) &&
            !strcmp(c->input, a->sources[0].name) && (!best || c->id > best->id))
            best = c;
    }
    return best;
}

/* The scatter figure's caption: truth and meter with their tags, and the
 * wall fit c drawn as its line (NULL: none stored). */
static void scatter_caption(const wc_accuracy_report *a, const wc_calibration *c, int thinned,
                            wc_figure *f)
{
    char fit[420], term[48];
    if (c)
        snprintf(fit, sizeof fit, "the line is calibration #%lld: truth = %.4g × meter %s (R² %.4f,"
                 " n %zu), fitted %s%.200s", (long long)c->id, c->fit.c1,
                 wc_headline_term(c->fit.c0, 2, "W", term, sizeof term), c->fit.r2, c->fit.n,
                 c->fitted_on[0] ? "on " : "on this run (in-sample)", c->fitted_on);
    else
        snprintf(fit, sizeof fit, "no calibration of the meter against this truth is stored (`wattcal"
                 " calibrate` fits one)");
    snprintf(f->caption, sizeof f->caption, "Ground truth %.90s [%s] against %.60s [%s], watts, one"
             " point per truth reading over the interval it averages%s; %s.", a->truth[0].spec,
             prov_upper(a->truth[0].provenance), a->sources[0].name,
             prov_upper(a->sources[0].provenance), thinned ? " (thinned for drawing)" : "", fit);
}

static int fig_scatter(const fig_env *e, wc_figure *f, gp_body *b, wc_error *err)
{
    const wc_validation *v = e->v;
    const wc_accuracy_report *a = &v->acc;
    if (!a->ntruth || !a->nsources) {
        snprintf(f->why_not, sizeof f->why_not, "the run has no ground truth");
        return 0;
    }
    wc_pairs p;
    if (gate_pairs(e, 0, 0, &p) || p.n == 0) {
        wc_pairs_free(&p);
        snprintf(f->why_not, sizeof f->why_not, "no truth reading is covered by the meter");
        return 0;
    }
    double xmin = INFINITY, xmax = -INFINITY;
    for (size_t i = 0; i < p.n; i++)
        xmin = fmin(xmin, p.source_w[i]), xmax = fmax(xmax, p.source_w[i]);
    int rc = write_pairs(e, "scatter.dat", &p, err);
    size_t n = p.n, every = n > FIG_MAX_POINTS ? (n + FIG_MAX_POINTS - 1) / FIG_MAX_POINTS : 1;
    wc_pairs_free(&p);
    if (rc)
        return rc;
    f->has_data = 1;
    const wc_calibration *c = wall_fit(v);
    scatter_caption(a, c, every > 1, f);
    FILE *s = b->f;
    title_line(s, "Meter against ground truth, with the calibration fit");
    char xl[160], yl[200];
    snprintf(xl, sizeof xl, "%s (W)", a->sources[0].name);
    char sp[64];
    snprintf(yl, sizeof yl, "truth %s (W)", short_spec(a->truth[0].spec, sp, sizeof sp));
    axis_labels(s, xl, yl);
    fprintf(s, "set datafile separator \"\\t\"\nset key outside bottom center horizontal\nset grid\n");
    double pad = (xmax - xmin) * 0.05 + 0.5;
    fprintf(s, "set xrange [%.6g:%.6g]\n", xmin - pad, xmax + pad);
    fprintf(s, "plot 'scatter.dat' skip 1 every %zu using 4:5 with points pt 7 ps 0.4 lc rgb \"#2c6fbb\" title ",
            every);
    wc_gp_string(s, "truth readings", 40);
    if (c) {
        char t[120], term[48];
        snprintf(t, sizeof t, "fit #%lld: %.4g x %s", (long long)c->id, c->fit.c1,
                 wc_headline_term(c->fit.c0, 2, "W", term, sizeof term));
        fprintf(s, ", %.12g * x + %.12g with lines lw 2 lc rgb \"#c0392b\" title ", c->fit.c1, c->fit.c0);
        wc_gp_string(s, t, 80);
    }
    fputs("\n", s);
    return 0;
}

/* ---- attribution gap over time per level -------------------------------- */

/* gap.dat: each level's mean power per levels window of zone z; *ymax the
 * largest power below 1e9 W. */
static int write_gap(const fig_env *e, const wc_level_zone *z, double *ymax, wc_error *err)
{
    wc_outfile o;
    int rc = wc_outfile_open(&o, e->dir, "gap.dat", err);
    if (rc)
        return rc;
    fputs("start_s\tend_s\tmid_s\tnode_w\tactive_w\tprocesses_w\tcontainers_w\tpods_w\tunattributed_w"
          "\tover_w\tunattributed_pct_of_active\n", o.f);
    for (size_t k = 0; k < z->nwindows; k++) {
        const wc_level_window *w = &z->windows[k];
        int64_t end = w->end_ns < e->t1_ns ? w->end_ns : e->t1_ns;
        double d = (double)(end - w->start_ns) / 1e9;
        if (!(d > 0))
            continue;
        double vals[] = {w->node_j / d, w->active_j / d, w->process_j / d, w->container_j / d,
                         w->pod_j / d, w->unattributed_j / d, w->over_j / d};
        fprintf(o.f, "%.6f\t%.6f\t%.6f", secs(e, w->start_ns), secs(e, end),
                (secs(e, w->start_ns) + secs(e, end)) / 2);
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
            fputs("\t", o.f);
            dat_num(o.f, vals[i]);
            if (isfinite(vals[i]) && vals[i] > *ymax && vals[i] < 1e9)
                *ymax = vals[i];
        }
        fputs("\t", o.f);
        dat_num(o.f, w->active_j > 0 ? 100.0 * w->unattributed_j / w->active_j : NAN);
        fputs("\n", o.f);
    }
    return wc_outfile_close(&o, err);
}

static void gap_script(const fig_env *e, const wc_level_zone *z, gp_body *b, double ymax)
{
    FILE *s = b->f;
    char t[96];
    snprintf(t, sizeof t, "Attribution gap per level (%s)", z->zone);
    title_line(s, t);
    axis_labels(s, "time since run start (s)", "power (W)");
    fputs("set y2label ", s);
    wc_gp_string(s, "unattributed (% of active)", 60);
    fprintf(s, "\nset y2tics\nset ytics nomirror\nset y2range [0:*]\n"
               "set datafile separator \"\\t\"\nset key outside bottom center horizontal\nset grid\n"
               "set yrange [0:%.6g]\nset xrange [0:%.6g]\n", ymax * 1.12 + 1e-9, e->duration_s);
    phase_shading(s, e);
    static const char *const names[] = {"node", "active (node − idle)", "Σ processes", "Σ containers",
                                        "Σ pods"};
    int with_containers = z->container_j > 0, with_pods = z->pod_j > 0;
    fputs("plot ", s);
    for (int i = 0; i < 5; i++) {
        if ((i == 3 && !with_containers) || (i == 4 && !with_pods))
            continue;
        fprintf(s, "%s'gap.dat' skip 1 using 3:%d with lines lw 2 title ", i ? ", " : "", 4 + i);
        wc_gp_string(s, names[i], 40);
    }
    fputs(", 'gap.dat' skip 1 using 3:11 axes x1y2 with lines dt 2 lw 1.5 lc rgb \"#c0392b\" title ", s);
    wc_gp_string(s, "unattributed % (right)", 40);
    fputs("\n", s);
}

static int fig_gap(const fig_env *e, wc_figure *f, gp_body *b, wc_error *err)
{
    const wc_validation *v = e->v;
    const wc_level_zone *z = v->have_levels ? wc_levels_zone(&v->levels, v->gap.rank_zone) : NULL;
    if (!z || !z->nwindows || !(z->active_j > 0)) {
        snprintf(f->why_not, sizeof f->why_not, "no attribution in this run (no /proc data, or no active energy)");
        return 0;
    }
    double ymax = 0;
    int rc = write_gap(e, z, &ymax, err);
    if (rc)
        return rc;
    f->has_data = 1;
    char wt[32];
    snprintf(f->caption, sizeof f->caption,
             "Attribution gap over time per level, zone %.30s, model %s: mean power in %s windows, watts"
             " (node and its active part from the %s meter as the model split it; processes, containers"
             " and pods as the model attributed them); right axis: unattributed energy as %% of the"
             " window's active energy. Shaded: the phases.", z->zone, v->model,
             dur_text(v->levels.window_s, wt, sizeof wt), prov_upper(v->gap.provenance));
    gap_script(e, z, b, ymax);
    return 0;
}

/* ---- stacked energy of the top tenants ---------------------------------- */

/* Which level the stacked figure shows. */
typedef struct tenant_level {
    int level;                  /* 3 pods, 2 containers, 1 process names */
    const char *what;           /* "pod", "container", "process name" */
} tenant_level;

/* A tenant list: at most max names (malloc'd), largest energy first. */
typedef struct tenants {
    char **name;
    double *joules;
    size_t n, max;
} tenants;

static void tenants_free(tenants *t)
{
    for (size_t i = 0; t->name && i < t->n; i++)
        free(t->name[i]);
    free(t->name);
    free(t->joules);
    memset(t, 0, sizeof *t);
}

/* Keeps name when it is among the max largest; on a tie the name seen first
 * stays ahead. Returns 0 or -ENOMEM. */
static int keep_top(tenants *t, const char *name, double j)
{
    if (!(j > 0) || (t->n == t->max && j <= t->joules[t->max - 1]))
        return 0;
    char *copy = strdup(name);
    if (!copy)
        return -ENOMEM;
    size_t at = t->n < t->max ? t->n++ : t->max - 1;
    if (at == t->max - 1 && t->n == t->max && t->name[at])
        free(t->name[at]);
    while (at > 0 && t->joules[at - 1] < j) {
        t->name[at] = t->name[at - 1];
        t->joules[at] = t->joules[at - 1];
        at--;
    }
    t->name[at] = copy;
    t->joules[at] = j;
    return 0;
}

/* The top process names by energy, from the per-process totals of the
 * levels pass (no second pass over work_attr). Returns 0, -EIO or -ENOMEM
 * with err. */
static int top_comms(wc_store *st, const wc_validation *v, tenants *t, wc_error *err)
{
    const wc_level_zone *z = v->have_levels ? wc_levels_zone(&v->levels, v->gap.rank_zone) : NULL;
    if (!z || !z->per_process_j)
        return 0;
    wc_store_iter *rows = NULL;
    int rc = wc_store_process_names_open(st, &rows, err);
    char *cur = NULL;
    double sum = 0;
    int bad = 0;
    wc_process_name_row row;
    while (!rc && !bad && (rc = wc_store_process_name_next(rows, &row, err)) == 1) {
        rc = 0;
        const char *comm = row.comm ? row.comm : "";
        if (!cur || strcmp(comm, cur)) {
            if (cur)
                bad = keep_top(t, cur, sum);
            free(cur);
            cur = strdup(comm);
            bad |= !cur;
            sum = 0;
        }
        if (row.id >= 0 && row.id <= v->levels.max_process_id)
            sum += z->per_process_j[row.id];
    }
    if (!rc && !bad && cur)
        bad = keep_top(t, cur, sum);
    free(cur);
    wc_store_iter_close(rows);
    return bad ? -ENOMEM : rc;
}

/* The top tenants of level, by energy, into t (t->max set). Returns 0, -EIO
 * (err set) or -ENOMEM. */
/* The top pods or containers from the levels pass's per-key totals of the
 * rank zone (keys sorted, so ties keep the store's key order): 1 when it
 * holds them all, 0 when the store must be asked (no pass, or rows of keys
 * its tables lack), -ENOMEM. */
static int top_from_levels(const wc_validation *v, int level, tenants *t)
{
    const wc_levels_report *lv = &v->levels;
    const wc_level_zone *z = v->have_levels ? wc_levels_zone(lv, v->gap.rank_zone) : NULL;
    int pods = level == WC_LEVEL_POD;
    if (!z || (pods ? lv->unlisted_pod_rows : lv->unlisted_container_rows) ||
        (level != WC_LEVEL_POD && level != WC_LEVEL_CONTAINER))
        return 0;
    size_t n = pods ? lv->npods : lv->ncontainers;
    for (size_t k = 0; k < n; k++)
        if (keep_top(t, pods ? lv->pod_uids[k] : lv->container_ids[k],
                     pods ? z->per_pod_j[k] : z->per_container_j[k]))
            return -ENOMEM;
    return 1;
}

static int top_tenants(wc_store *st, const wc_validation *v, int level, tenants *t, wc_error *err)
{
    if (level == WC_LEVEL_PROCESS)
        return top_comms(st, v, t, err);
    int got = top_from_levels(v, level, t);
    if (got)
        return got < 0 ? wc_error_set(err, -ENOMEM, "report: out of memory") : 0;
    wc_store_iter *rows = NULL;
    int rc = wc_store_tenant_top_open(st, v->model_id, (wc_attr_level)level, v->gap.rank_zone,
                                      (int)t->max, &rows, err);
    int bad = 0;
    wc_tenant_row row;
    while (!rc && !bad && (rc = wc_store_tenant_next(rows, &row, err)) == 1) {
        rc = 0;
        bad = keep_top(t, row.key ? row.key : "", row.energy_uj);
    }
    wc_store_iter_close(rows);
    return bad ? -ENOMEM : rc;
}

/* Adds a tick's energy j to the windows its interval overlaps (column col). */
static void spread(const fig_env *e, long ti, double j, size_t col, size_t n, int64_t w_ns,
                   size_t nwin, double *ej)
{
    /* a tick's energy is that of the interval ending at it: spread over the
     * windows it overlaps, in proportion (no aliasing between the tick and
     * window grids) */
    int64_t a = e->v->acc.tb.mono_ns[ti - 1] - e->t0_ns, z = e->v->acc.tb.mono_ns[ti] - e->t0_ns;
    for (int64_t wi = a / w_ns; wi <= (z - 1) / w_ns && (size_t)wi < nwin; wi++) {
        int64_t lo = wi * w_ns > a ? wi * w_ns : a, hi = (wi + 1) * w_ns < z ? (wi + 1) * w_ns : z;
        if (hi > lo)
            ej[(size_t)wi * (n + 1) + col] += j * (double)(hi - lo) / (double)(z - a);
    }
}

/* Pod windows from the levels pass's per-tick pod energy (levels.h), tick by
 * tick with the pods in the store's row order, so the additions are the
 * ones the rows would make: 1 done, 0 when the pass did not keep them for
 * these ticks and this zone (the rows are read instead). */
static int pod_windows_from_levels(const fig_env *e, char *const *names, size_t n, int64_t w_ns,
                                   size_t nwin, double *ej)
{
    const wc_levels_report *lv = e->v->have_levels ? &e->v->levels : NULL;
    const wc_timebase *tb = &e->v->acc.tb;
    if (!lv || !lv->pod_tick_uj || !lv->pod_row_order || lv->ntick != tb->n || tb->n < 2 ||
        lv->first_tick_id != tb->tick_id[0] || lv->last_tick_id != tb->tick_id[tb->n - 1])
        return 0;
    size_t z = 0;
    while (z < lv->nzones && strcmp(lv->zones[z].zone, e->v->gap.rank_zone))
        z++;
    size_t *col = z < lv->nzones ? malloc(lv->npods * sizeof *col) : NULL;
    if (!col)
        return 0;
    for (size_t q = 0; q < lv->npods; q++) {
        col[q] = n;
        for (size_t i = 0; i < n && col[q] == n; i++)
            col[q] = strcmp(names[i], lv->pod_uids[q]) ? n : i;
    }
    for (size_t ti = 1; ti < tb->n; ti++)
        for (size_t k = 0; k < lv->npods; k++) {
            size_t q = lv->pod_row_order[k];
            double uj = lv->pod_tick_uj[(q * lv->nzones + z) * tb->n + ti];
            if (uj > 0)
                spread(e, (long)ti, uj / 1e6, col[q], n, w_ns, nwin, ej);
        }
    free(col);
    return 1;
}

/* Energy per window of each top tenant (column k) and of the rest (column n),
 * joules: ej[window * (n + 1) + k]. */
static int tenant_windows(const fig_env *e, int level, char *const *names, size_t n,
                          int64_t w_ns, size_t nwin, double *ej, wc_error *err)
{
    if (level == WC_LEVEL_POD && pod_windows_from_levels(e, names, n, w_ns, nwin, ej))
        return 0;
    wc_store_iter *rows = NULL;
    int rc = wc_store_tenant_rows_open(e->st, e->v->model_id, (wc_attr_level)level,
                                       e->v->gap.rank_zone, WC_TENANT_ROWS_POSITIVE, &rows, err);
    wc_tenant_row row;
    while (!rc && (rc = wc_store_tenant_next(rows, &row, err)) == 1) {
        rc = 0;
        long ti = wc_timebase_index(&e->v->acc.tb, row.tick_id);
        double j = row.energy_uj / 1e6;
        if (ti <= 0)
            continue; /* the first tick has no interval */
        size_t col = n;
        for (size_t i = 0; row.key && i < n; i++)
            if (!strcmp(names[i], row.key)) {
                col = i;
                break;
            }
        spread(e, ti, j, col, n, w_ns, nwin, ej);
    }
    wc_store_iter_close(rows);
    return rc;
}

/* The error of reading the attributed energy, as the report says it. */
static int read_fail(wc_error *err, int rc)
{
    if (rc == -ENOMEM)
        return wc_error_set(err, rc, "report: reading the attributed energy: out of memory");
    return wc_error_prefix(err, rc, "report: ");
}

/* The first level (pods, containers, process names) with tenants: *lv and
 * its top tenants in t; *lv NULL when none has any. Returns 0 or -errno with
 * err. */
static int stacked_level(const fig_env *e, tenants *t, const tenant_level **lv, wc_error *err)
{
    static const tenant_level levels[] = {{3, "pod"}, {2, "container"}, {1, "process name"}};
    *lv = NULL;
    for (size_t i = 0; i < 3 && !*lv; i++) {
        int rc = top_tenants(e->st, e->v, levels[i].level, t, err);
        if (rc)
            return read_fail(err, rc);
        if (t->n > 0)
            *lv = &levels[i];
    }
    return 0;
}

/* stacked.dat: the energy per window of each band (cols = tenants + other). */
static int write_stacked(const fig_env *e, char *const *names, int n, const double *ej,
                         size_t nwin, int64_t w_ns, wc_error *err)
{
    size_t cols = (size_t)n + 1;
    wc_outfile o;
    int rc = wc_outfile_open(&o, e->dir, "stacked.dat", err);
    if (rc)
        return rc;
    fputs("mid_s", o.f);
    for (int k = 0; k < n; k++) {
        fputc('\t', o.f);
        wc_gp_field(o.f, names[k]);
    }
    fputs("\tother\n", o.f);
    for (size_t i = 0; i < nwin; i++) {
        int64_t lo = e->t0_ns + (int64_t)i * w_ns, hi = lo + w_ns < e->t1_ns ? lo + w_ns : e->t1_ns;
        fprintf(o.f, "%.6f", (secs(e, lo) + secs(e, hi)) / 2);
        for (size_t k = 0; k < cols; k++) {
            fputc('\t', o.f);
            dat_num(o.f, ej[i * cols + k]);
        }
        fputc('\n', o.f);
    }
    return wc_outfile_close(&o, err);
}

/* The stacked figure's caption and script: n tenant bands, "other" too when
 * other is set, over windows of w seconds. */
static void stacked_script(const fig_env *e, wc_figure *f, gp_body *b, const tenant_level *lv,
                           char *const *names, int n, int other, double w)
{
    const wc_validation *v = e->v;
    char wt[32];
    snprintf(f->caption, sizeof f->caption,
             "Energy attributed by model %s from the %s meter to the top %d %ss of zone %.30s, joules per %s"
             " window, stacked (each band one %s; \"other\" = every other %s). %s", v->model,
             prov_upper(v->gap.provenance), n, lv->what, v->gap.rank_zone, dur_text(w, wt, sizeof wt), lv->what, lv->what,
             lv->level == 1 ? "Processes are grouped by name (comm): the table of top processes keeps"
                              " them apart by (pid, start time)." : "");
    FILE *s = b->f;
    char t[96];
    snprintf(t, sizeof t, "Energy per %s, stacked (%s)", lv->what, v->gap.rank_zone);
    title_line(s, t);
    char yl[64];
    snprintf(yl, sizeof yl, "energy per %s window (J)", wt);
    axis_labels(s, "time since run start (s)", yl);
    fprintf(s, "set datafile separator \"\\t\"\nset key outside right top vertical\nset grid\n"
               "set xrange [0:%.6g]\nset yrange [0:*]\nset style fill solid 0.85 noborder\n", e->duration_s);
    phase_shading(s, e);
    int bands = n + (other ? 1 : 0);
    fprintf(s, "array T[%d]\n", bands);
    for (int k = 0; k < n; k++) {
        char label[120];
        if (lv->level == 2)
            snprintf(label, sizeof label, "%.12s", names[k]); /* container ids as docker shows them */
        else
            snprintf(label, sizeof label, "%.100s", names[k]);
        fprintf(s, "T[%d] = ", k + 1);
        wc_gp_string(s, label, 40);
        fputs("\n", s);
    }
    if (other) {
        fprintf(s, "T[%d] = ", bands);
        wc_gp_string(s, "other", 10);
        fputs("\n", s);
    }
    /* band k is the sum of columns 2..k+1, drawn from the top band down */
    fprintf(s, "plot for [k=%d:1:-1] 'stacked.dat' skip 1 using 1:(sum [c=2:k+1] column(c))"
               " with filledcurves x1 lt (k == %d ? 99 : k) title T[k]\n", bands, other ? bands : -1);
}

static int fig_stacked(const fig_env *e, wc_figure *f, gp_body *b, size_t top, wc_error *err)
{
    tenants tl = {.max = top ? top : 1};
    tl.name = calloc(tl.max, sizeof *tl.name);
    tl.joules = calloc(tl.max, sizeof *tl.joules);
    const tenant_level *lv = NULL;
    int rc = tl.name && tl.joules ? stacked_level(e, &tl, &lv, err)
                                  : wc_error_set(err, -ENOMEM, "report: out of memory");
    if (rc || !lv) {
        if (!rc)
            snprintf(f->why_not, sizeof f->why_not, "no workload received energy (no /proc data in this run)");
        tenants_free(&tl);
        return rc;
    }
    int n = (int)tl.n;
    double w = drawing_window(e, fmax(wc_figures_nice_window(e->duration_s),
                                      (double)e->v->acc.tb.median_spacing_ns / 1e9));
    int64_t w_ns = (int64_t)llround(w * 1e9);
    size_t nwin = (size_t)ceil((double)(e->t1_ns - e->t0_ns) / (double)w_ns);
    if (!nwin)
        nwin = 1;
    size_t cols = (size_t)n + 1;
    double *ej = calloc(nwin * cols, sizeof *ej);
    rc = ej ? tenant_windows(e, lv->level, tl.name, (size_t)n, w_ns, nwin, ej, err) : -ENOMEM;
    if (rc)
        rc = read_fail(err, rc);
    int other = 0;
    for (size_t i = 0; !rc && i < nwin; i++)
        other |= ej[i * cols + (size_t)n] > 0;
    if (!rc)
        rc = write_stacked(e, tl.name, n, ej, nwin, w_ns, err);
    free(ej);
    if (!rc) {
        f->has_data = 1;
        stacked_script(e, f, b, lv, tl.name, n, other, w);
    }
    tenants_free(&tl);
    return rc;
}

/* ---- workloads: attributed against isolated marginal energy ------------- */

/* One row of workloads.dat: workload i (isolated first, then mixed) as row
 * number row; *ymax grows to its largest finite value. */
static void workload_row(FILE *f, const wc_bias_report *br, size_t i, size_t row, double *ymax)
{
    int iso = i < br->nisolated;
    const wc_bias_isolated *s = iso ? &br->isolated[i] : NULL;
    const wc_bias_mixed *m = iso ? NULL : &br->mixed[i - br->nisolated];
    double att = iso ? s->attributed_j[WC_BIAS_NODE] : m->attributed_j[WC_BIAS_NODE];
    double ex, lo, hi;
    if (iso) {
        const wc_ci *c = &s->marginal_w[WC_BIAS_NODE];
        ex = s->marginal_j[WC_BIAS_NODE], lo = c->lo * s->duration_s, hi = c->hi * s->duration_s;
    } else {
        const wc_ci *c = &m->expected_j[WC_BIAS_NODE];
        ex = c->est, lo = c->lo, hi = c->hi;
    }
    char label[160];
    snprintf(label, sizeof label, "%s %.40s#%d %s", iso ? "isolated" : "mixed",
             iso ? s->phase : m->phase, iso ? s->repetition : m->repetition, iso ? s->cls : m->cls);
    fprintf(f, "%zu\t%s\t", row, iso ? "isolated" : "mixed");
    dat_num(f, att);
    fputc('\t', f);
    dat_num(f, ex);
    fputc('\t', f);
    dat_num(f, isfinite(lo) ? lo : ex);
    fputc('\t', f);
    dat_num(f, isfinite(hi) ? hi : ex);
    fputc('\t', f);
    wc_gp_hex(f, label, 40);
    fputc('\t', f);
    wc_gp_field(f, label);
    fputc('\n', f);
    double cands[] = {att, ex, hi};
    for (int k = 0; k < 3; k++)
        if (isfinite(cands[k]) && cands[k] > *ymax)
            *ymax = cands[k];
}

static void workloads_script(const fig_env *e, gp_body *b, size_t row, double ymax)
{
    FILE *s = b->f;
    title_line(s, "Attributed against isolated marginal energy per workload");
    axis_labels(s, "", "energy (J)");
    fprintf(s, "set datafile separator \"\\t\"\nset key outside bottom center horizontal\nset grid y\n"
               "set xtics rotate by -30 left font \",9\"\nset bmargin 7\nset rmargin 9\nset xrange [-0.6:%zu.4]\n"
               "set yrange [0:%.6g]\n", row ? row - 1 : 0, ymax * 1.15 + 1e-9);
    fputs("plot 'workloads.dat' skip 1 using 1:4:5:6:xtic(dec(strcol(7))) with yerrorbars pt 5 ps 1.1"
          " lc rgb \"#7f8c8d\" title ", s);
    wc_gp_string(s, "isolation known answer (95% CI)", 60);
    fputs(", 'workloads.dat' skip 1 using 1:3 with points pt 7 ps 1.3 lc rgb \"#c0392b\" title ", s);
    char t[80];
    snprintf(t, sizeof t, "attributed by %s", e->v->model);
    wc_gp_string(s, t, 60);
    fputs("\n", s);
}

static int fig_workloads(const fig_env *e, wc_figure *f, gp_body *b, wc_error *err)
{
    const wc_bias_report *br = &e->v->bias;
    if (!br->has_baseline || !(br->nisolated + br->nmixed)) {
        snprintf(f->why_not, sizeof f->why_not, "%s", br->nisolated + br->nmixed
                                                           ? "no idle phase: no baseline, so no marginal energy"
                                                           : "no replayed workload in this run");
        return 0;
    }
    wc_outfile o;
    int rc = wc_outfile_open(&o, e->dir, "workloads.dat", err);
    if (rc)
        return rc;
    fputs("index\tkind\tattributed_j\texpected_j\texpected_lo_j\texpected_hi_j\tlabel_hex\tlabel\n", o.f);
    size_t row = 0;
    double ymax = 0;
    for (size_t i = 0; i < br->nisolated + br->nmixed; i++)
        workload_row(o.f, br, i, row++, &ymax);
    rc = wc_outfile_close(&o, err);
    if (rc)
        return rc;
    f->has_data = 1;
    snprintf(f->caption, sizeof f->caption,
             "Per workload, zone package+dram, joules over each phase: energy model %s attributed to its processes"
             " (dots) against the isolation known answer (squares, 95 %% block-bootstrap CI): in an"
             " isolated phase its marginal energy over the idle baseline (%s meter); in a mixed phase"
             " its class's isolated energy per true CPU-second × its true CPU-seconds in the mix.",
             e->v->model, prov_upper(br->meter_provenance));
    workloads_script(e, b, row, ymax);
    return 0;
}

/* ---- burst coverage ------------------------------------------------------ */

static int fig_coverage(const fig_env *e, wc_figure *f, gp_body *b, wc_error *err)
{
    const wc_gap_report *r = &e->v->gap;
    size_t any = 0;
    for (size_t i = 0; i < r->nworkloads; i++)
        any += isfinite(r->workloads[i].coverage);
    if (!any) {
        snprintf(f->why_not, sizeof f->why_not, "no replayed workload with CPU time in this run");
        return 0;
    }
    wc_outfile o;
    int rc = wc_outfile_open(&o, e->dir, "coverage.dat", err);
    if (rc)
        return rc;
    fputs("index\tcoverage_pct\ttrue_cpu_s\tseen_cpu_s\tlabel_hex\tlabel\n", o.f);
    size_t row = 0;
    double ymax = 100;
    for (size_t i = 0; i < r->nworkloads; i++) {
        const wc_gap_workload *w = &r->workloads[i];
        if (!isfinite(w->coverage))
            continue;
        char label[128];
        snprintf(label, sizeof label, "%.40s#%d %s", w->phase, w->repetition, w->cls);
        fprintf(o.f, "%zu\t", row++);
        dat_num(o.f, 100.0 * w->coverage);
        fprintf(o.f, "\t%.6f\t%.6f\t", w->true_cpu_s, w->seen_cpu_s);
        wc_gp_hex(o.f, label, 40);
        fputc('\t', o.f);
        wc_gp_field(o.f, label);
        fputc('\n', o.f);
        if (100.0 * w->coverage > ymax)
            ymax = 100.0 * w->coverage;
    }
    rc = wc_outfile_close(&o, err);
    if (rc)
        return rc;
    f->has_data = 1;
    snprintf(f->caption, sizeof f->caption,
             "Coverage per replayed workload, percent: CPU time /proc sampling saw of its processes over"
             " its true CPU time (wait4 rusage of its whole subtree), over the whole phase. Short-lived"
             " processes that start and end between two samples are invisible to polling.");
    FILE *s = b->f;
    title_line(s, "Burst coverage: CPU seen by /proc sampling / true CPU");
    axis_labels(s, "", "coverage (%)");
    fprintf(s, "set datafile separator \"\\t\"\nset key outside bottom center horizontal\nset grid y\n"
               "set xtics rotate by -30 left font \",9\"\nset bmargin 7\nset rmargin 9\nset xrange [-0.6:%zu.4]\n"
               "set yrange [0:%.6g]\nset style fill solid 0.8 noborder\nset boxwidth 0.6\n",
               row ? row - 1 : 0, ymax * 1.1);
    fputs("plot 'coverage.dat' skip 1 using 1:2:xtic(dec(strcol(5))) with boxes lc rgb \"#2c6fbb\" title ", s);
    wc_gp_string(s, "coverage", 20);
    fputs(", 100 with lines dt 2 lc rgb \"black\" title ", s);
    wc_gp_string(s, "100 % (every CPU-second seen)", 40);
    fputs("\n", s);
    return 0;
}

/* ---- drawing ------------------------------------------------------------- */

/* Every file a report directory may hold from an earlier report, besides
 * <figure>.svg/.png/.dat. */
static const char *const SHARED_FILES[] = {"truth.dat", "pairs.dat", "phases.dat", "gnuplot.log"};

/* Removes what an earlier report left in dir: every file this one may write. */
static void remove_outputs(const char *dir, const wc_figures *F)
{
    char p[4200];
    for (size_t i = 0; i < F->n; i++) {
        static const char *const ext[] = {"svg", "png", "dat"};
        for (int k = 0; k < 3; k++) {
            snprintf(p, sizeof p, "%s/%s.%s", dir, F->f[i].id, ext[k]);
            unlink(p);
        }
    }
    for (size_t i = 0; i < sizeof SHARED_FILES / sizeof SHARED_FILES[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, SHARED_FILES[i]);
        unlink(p);
    }
}

static int nonempty(const char *dir, const char *name)
{
    char p[4200];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return !lstat(p, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

/* Draws one figure in the work directory: its body as SVG, then again as
 * PNG. Returns the gnuplot_run code. */
static int draw(const char *work, int log_fd, int timeout_s, wc_figure *f, const gp_body *b)
{
    char *script = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&script, &len);
    if (!s) {
        snprintf(f->why_not, sizeof f->why_not, "out of memory");
        return -ENOMEM;
    }
    fprintf(s, "%s%s%sset output '%s.svg'\n%s\nunset output\n%sset output '%s.png'\nreplot\nunset output\n",
            WC_GP_DECODER, PALETTE, SVG_TERMINAL, f->id, b->buf, PNG_TERMINAL, f->id);
    fclose(s);
    wc_error gerr = {{0}};
    int rc = wc_gnuplot_run(work, script, timeout_s, log_fd, &gerr);
    free(script);
    char svg[48], png[48];
    snprintf(svg, sizeof svg, "%s.svg", f->id);
    snprintf(png, sizeof png, "%s.png", f->id);
    if (!rc && nonempty(work, svg) && nonempty(work, png))
        f->drawn = 1;
    else
        snprintf(f->why_not, sizeof f->why_not, "%.190s", rc ? gerr.msg : "gnuplot wrote no image (see gnuplot.log)");
    return rc;
}

/* Copies "a.dat, b.dat" (a figure's data list) or one name from work to dir. */
static int copy_list(const char *work, const char *dir, const char *list, wc_error *err)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (!nonempty(work, t))
            continue; /* phases.dat of a run without phases */
        int rc = wc_outfile_copy(work, dir, t, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* Copies the data files and images from the work directory into dir. */
static int publish(const wc_figures *F, const char *dir, wc_error *err)
{
    for (size_t i = 0; i < F->n; i++) {
        const wc_figure *f = &F->f[i];
        int rc = f->has_data ? copy_list(F->workdir, dir, f->data, err) : 0;
        char name[48];
        for (int k = 0; !rc && f->drawn && k < 2; k++) {
            snprintf(name, sizeof name, "%s.%s", f->id, k ? "png" : "svg");
            rc = wc_outfile_copy(F->workdir, dir, name, err);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* Runs gnuplot on every figure with data; after one is killed at the
 * deadline the others are not tried (a hanging gnuplot would hang on all). */
static void draw_all(wc_figures *out, gp_body *body, int log_fd, int timeout_s)
{
    int hung = 0;
    for (size_t i = 0; i < out->n; i++) {
        wc_figure *f = &out->f[i];
        if (!f->has_data)
            continue;
        if (hung) {
            snprintf(f->why_not, sizeof f->why_not, "gnuplot hung on an earlier figure");
            continue;
        }
        hung = draw(out->workdir, log_fd, timeout_s, f, &body[i]) == -ETIMEDOUT;
        out->plots += f->drawn;
    }
    int missing = 0;
    for (size_t i = 0; i < out->n; i++)
        missing += out->f[i].has_data && !out->f[i].drawn;
    if (missing)
        snprintf(out->warning, sizeof out->warning,
                 "%d plot(s) could not be drawn: gnuplot %s (see gnuplot.log in the report directory)", missing,
                 hung ? "hung and was killed" : "failed");
}

/* The private work directory (mode 0700) under $TMPDIR or /tmp. */
static int make_workdir(wc_figures *out, wc_error *err)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/')
        tmp = "/tmp";
    if ((size_t)snprintf(out->workdir, sizeof out->workdir, "%s/wattcal-report-XXXXXX", tmp) >=
            sizeof out->workdir ||
        !mkdtemp(out->workdir)) {
        int e = errno ? errno : ENAMETOOLONG;
        out->workdir[0] = '\0';
        return wc_error_set(err, -e, "report: cannot make a work directory in %.200s: %s", tmp, strerror(e));
    }
    return 0;
}

void wc_figures_cleanup(wc_figures *F)
{
    if (!F->workdir[0])
        return;
    char p[4200];
    for (size_t i = 0; i < F->n; i++) {
        static const char *const ext[] = {"svg", "png", "dat"};
        for (int k = 0; k < 3; k++) {
            snprintf(p, sizeof p, "%s/%s.%s", F->workdir, F->f[i].id, ext[k]);
            unlink(p);
        }
    }
    for (size_t i = 0; i < sizeof SHARED_FILES / sizeof SHARED_FILES[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", F->workdir, SHARED_FILES[i]);
        unlink(p);
    }
    rmdir(F->workdir);
    F->workdir[0] = '\0';
}

int wc_figures_is_output(const char *name)
{
    for (size_t i = 0; i < sizeof SHARED_FILES / sizeof SHARED_FILES[0]; i++)
        if (!strcmp(name, SHARED_FILES[i]))
            return 1;
    static const char *const ids[] = {"power", "error", "bland_altman", "scatter", "gap", "stacked",
                                      "workloads", "coverage"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        size_t n = strlen(ids[i]);
        if (!strncmp(name, ids[i], n) && (!strcmp(name + n, ".svg") || !strcmp(name + n, ".png") ||
                                          !strcmp(name + n, ".dat")))
            return 1;
    }
    return 0;
}

/* The figures of the run, each with its data file written and its body. */
static int build(wc_figures *out, const fig_env *e, size_t top, gp_body *body, wc_error *err)
{
    wc_figure *fp = fig_new(out, "power", "Node power against ground truth", "power.dat, truth.dat, phases.dat");
    wc_figure *fe = fig_new(out, "error", "Error against ground truth over time", "pairs.dat, phases.dat");
    wc_figure *fb = fig_new(out, "bland_altman", "Bland–Altman", "pairs.dat");
    wc_figure *fs = fig_new(out, "scatter", "Meter against ground truth, with the calibration fit", "scatter.dat");
    wc_figure *fg = fig_new(out, "gap", "Attribution gap over time per level", "gap.dat, phases.dat");
    wc_figure *fk = fig_new(out, "stacked", "Energy of the top tenants over time", "stacked.dat, phases.dat");
    wc_figure *fw = fig_new(out, "workloads", "Attributed against isolated marginal energy per workload",
                            "workloads.dat");
    wc_figure *fc = fig_new(out, "coverage", "Burst coverage", "coverage.dat");
    for (size_t i = 0; i < out->n; i++)
        if (body_open(&body[i])) {
            for (size_t j = 0; j < i; j++)
                body_discard(&body[j]);
            return wc_error_set(err, -ENOMEM, "report: out of memory");
        }
    int rc = write_phases(e, err);
    if (!rc)
        rc = fig_power(e, fp, &body[0], err);
    if (!rc)
        rc = fig_error_pair(e, fe, &body[1], fb, &body[2], err);
    if (!rc)
        rc = fig_scatter(e, fs, &body[3], err);
    if (!rc)
        rc = fig_gap(e, fg, &body[4], err);
    if (!rc)
        rc = fig_stacked(e, fk, &body[5], top, err);
    if (!rc)
        rc = fig_workloads(e, fw, &body[6], err);
    if (!rc)
        rc = fig_coverage(e, fc, &body[7], err);
    for (size_t i = 0; i < out->n; i++)
        if (body[i].f) {
            fclose(body[i].f);
            body[i].f = NULL;
        }
    return rc;
}

int wc_figures_make(wc_store *st, const wc_validation *v, const char *dir, int no_plots, size_t top,
                    int timeout_s, wc_figures *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    if (!v->have_accuracy)
        return 0;
    int rc = make_workdir(out, err);
    if (rc)
        return rc;
    fig_env e = {.st = st, .v = v, .dir = out->workdir, .t0_ns = v->acc.tb.mono_ns[0],
                 .t1_ns = v->acc.tb.mono_ns[v->acc.tb.n - 1]};
    e.duration_s = (double)(e.t1_ns - e.t0_ns) / 1e9;
    gp_body body[WC_FIG_MAX];
    memset(body, 0, sizeof body);
    rc = build(out, &e, top ? top : 8, body, err);
    remove_outputs(dir, out);
    if (!rc) {
        if (no_plots)
            snprintf(out->warning, sizeof out->warning, "plots not drawn: --no-plots was given");
        else if (!wc_gnuplot_available())
            snprintf(out->warning, sizeof out->warning,
                     "plots not drawn: gnuplot was not found on PATH (Debian: apt-get install gnuplot-nox);"
                     " the tables are complete and the data files are written");
        out->gnuplot_missing = out->warning[0] != 0;
        if (out->gnuplot_missing) {
            for (size_t i = 0; i < out->n; i++)
                if (out->f[i].has_data)
                    snprintf(out->f[i].why_not, sizeof out->f[i].why_not, "%s",
                             no_plots ? "--no-plots was given" : "gnuplot was not found on PATH");
        } else {
            wc_outfile log;
            rc = wc_outfile_open(&log, dir, "gnuplot.log", err);
            if (!rc) {
                draw_all(out, body, fileno(log.f), timeout_s);
                rc = wc_outfile_close(&log, err);
            }
        }
    }
    if (!rc)
        rc = publish(out, dir, err);
    for (size_t i = 0; i < out->n; i++)
        body_discard(&body[i]);
    return rc;
}
