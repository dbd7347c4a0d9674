/*
 * figures.h — the report's plots: one tab-separated data file per figure
 * (kept beside the report), one gnuplot script drawing each as SVG (inlined
 * in report.html) and PNG (beside report.md). Scripts hold only numbers and
 * fixed file names; every label from the run is a data-file field.
 */
#ifndef WC_REPORT_FIGURES_H
#define WC_REPORT_FIGURES_H

#include <stddef.h>

#include "collector/store/store.h"
#include "common/wc_error.h"
#include "validator/validation.h"

#define WC_FIG_MAX 12
/* Windows a time-series figure aims at over a run. */
#define WC_FIG_TARGET_WINDOWS 120

/* One figure: <id>.svg and <id>.png in the directory, drawn from the data
 * files named in data. */
typedef struct wc_figure {
    char id[24];
    char title[160];
    char data[64];            /* the data files it is drawn from: "power.dat, truth.dat" */
    char caption[1200];      /* what is plotted, its unit, its window, its provenance */
    int has_data;             /* the run has what the figure needs */
    int drawn;                /* SVG and PNG exist */
    char why_not[200];        /* when not drawn */
} wc_figure;

typedef struct wc_figures {
    wc_figure f[WC_FIG_MAX];
    size_t n;
    int plots;                /* figures drawn */
    int gnuplot_missing;
    char warning[600];
    char workdir[256];        /* private directory the figures were drawn in (read the SVGs
                                 from here); removed by wc_figures_cleanup */
} wc_figures;

/* Writes the data files into a private work directory (mode 0700, under
 * $TMPDIR or /tmp), runs gnuplot there on every figure, killed after
 * timeout_s seconds (unless no_plots, or
 * gnuplot is missing: then warning says so), then copies the data files and
 * images into dir, replacing those of an earlier report. gnuplot never
 * writes into dir itself, so a link planted there is never written through.
 * Returns 0, or -errno with err when a file cannot be written. Call
 * wc_figures_cleanup afterwards, also after an error. */
int wc_figures_make(wc_store *st, const wc_validation *v, const char *dir, int no_plots,
                    size_t top, int timeout_s, wc_figures *out, wc_error *err);

/* Removes the work directory and what is in it. */
void wc_figures_cleanup(wc_figures *F);

/* Whether name is a file wc_figures_make writes into a report directory. */
int wc_figures_is_output(const char *name);

/* The smallest of 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, 1 h …
 * giving at most WC_FIG_TARGET_WINDOWS windows over duration_s: the default
 * window of the report's gap and stacked plots. */
double wc_figures_nice_window(double duration_s);

#endif
