/*
 * report.h — `wattcal report`: a validation (validator/validation.h) as a
 * self-contained HTML page (SVG and CSS inline, no script, no network;
 * readable printed and on a phone) and as Markdown for a PR comment with PNG
 * plots beside it; the data file each plot was drawn from is kept beside both.
 *
 * Figures (each states its unit and its window): node power against ground
 * truth over time with the phases shaded, the error over time, Bland–Altman,
 * the meter against the truth with the calibration fit, the attribution gap
 * over time per level, the energy of the top pods / containers / process
 * names stacked over time, attributed against isolated marginal energy per
 * workload with error bars, and burst coverage. Tables: the provenance
 * banner, the verdict of every check, accuracy with intervals, the BMC lag
 * and window estimate, the calibrations, the levels and invariants, the bias
 * matrix and the top tenants.
 *
 * Plots are drawn by gnuplot (reports/gnuplot.h); every string from the run
 * reaches gnuplot only through data files and is escaped for HTML and
 * Markdown (reports/escape.h). Without gnuplot the report is still written,
 * without plots, and says so.
 */
#ifndef WC_REPORT_H
#define WC_REPORT_H

#include <stddef.h>

#include "collector/store/store.h"
#include "common/wc_error.h"
#include "validator/validation.h"

typedef struct wc_report_opts {
    const char *out_dir;      /* created when missing */
    int no_plots;             /* write no plots, as when gnuplot is missing */
    size_t top;               /* tenants per table and stacked series; default 8 */
    int plot_timeout_s;       /* gnuplot is killed after this per figure; default 60 */
    const char *md_images;    /* report.md's images: NULL (or "files") the PNG files beside it,
                                 "inline" data: URIs, else a base URL (wc_report_md_images_check) */
} wc_report_opts;

/* Checks a --md-images value: "files", "inline", or an http(s):// base URL
 * of plain URL characters (letters, digits, - . _ ~ : / ? # @ ! $ & * + , ; = %:
 * nothing Markdown would end a link at). Returns 0, or -EINVAL with err
 * saying what is accepted. */
int wc_report_md_images_check(const char *value, wc_error *err);

typedef struct wc_report_result {
    int plots;                /* plots drawn */
    int figures;              /* figures the run had data for */
    int gnuplot_missing;      /* written without plots: gnuplot not found (or --no-plots) */
    char warning[600];        /* why plots are missing, "" when none */
    char html_path[4200], md_path[4200];
} wc_report_result;

/* The report's defaults for what the validation computes: when
 * o->levels_window_s is 0 the gap over time is computed over
 * wc_figures_nice_window windows of about 1/120 of the run and at least 10
 * tick spacings (a window of a few ticks would alias) instead of validate's
 * 60 s. Call before wc_validation_run. */
void wc_report_default_opts(wc_store *st, wc_validation_opts *o);

/* Writes report.html, report.md, the plots (SVG inline in the HTML, PNG
 * beside the Markdown) and their data files into o->out_dir. st is the store
 * v was computed from. Returns 0 (res says what was drawn), or -errno with
 * err naming the file (the directory cannot be created or written). */
int wc_report_write(wc_store *st, const wc_validation *v, const char *db_path,
                    const wc_report_opts *o, wc_report_result *res, wc_error *err);

#endif
