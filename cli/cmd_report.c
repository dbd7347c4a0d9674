/*
 * cmd_report.c — `wattcal report`: the validation of a run (the options of
 * `validate`, cli_validation.h) written as a self-contained HTML page and a
 * Markdown file with plots (reports/report.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_validation.h"
#include "reports/report.h"
#include "validator/validation.h"

enum { OPT_OUT = WC_CLI_VOPT_END, OPT_TOP, OPT_NO_PLOTS, OPT_PLOT_TIMEOUT, OPT_MD_IMAGES };

static const wc_cli_opt REPORT_OPTS[] = {
    {"out", "DIR", OPT_OUT,
     "directory of the report (created when missing;\n"
     "files of an earlier report there are replaced)"},
    {"top", "N", OPT_TOP,
     "tenants in the tables and the stacked plot, 1 to 10\n"
     "(default 8)"},
    {"no-plots", NULL, OPT_NO_PLOTS, "do not run gnuplot (tables and data files only)"},
    {"plot-timeout", "DUR", OPT_PLOT_TIMEOUT,
     "gnuplot is killed after DUR per figure (default 60s);\n"
     "after one is killed the other plots are not tried"},
    {"md-images", "MODE", OPT_MD_IMAGES,
     "how report.md shows the plots: files (default: the\n"
     "PNG files beside it), inline (data: URIs, survives\n"
     "being pasted) or a base URL (https://HOST/DIR: each\n"
     "plot as URL/<name>.png, where you upload them)"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const REPORT_TABLES[] = {REPORT_OPTS, wc_cli_validation_opts, NULL};

static const wc_cli_spec REPORT_SPEC = {
    .name = "report",
    .usage = "wattcal report --db FILE --out DIR [options]",
    .about =
        "Writes what `wattcal validate` computes as DIR/report.html (self-contained:\n"
        "SVG plots and CSS inline, no script, no network; readable printed and on a\n"
        "phone) and DIR/report.md (for a pull request, with the plots as PNG files\n"
        "beside it), and keeps each plot's data file (DIR/*.dat). It holds the\n"
        "provenance of every source, the verdict of the tolerances, node power\n"
        "against ground truth with the phases shaded, the error over time,\n"
        "Bland-Altman, the meter against the truth with its calibration fit, the\n"
        "attribution gap per level over time, the energy of the top pods, containers\n"
        "or process names stacked, attributed against isolated energy per workload,\n"
        "the bias matrix, burst coverage, the top tenants and the truth's lag and\n"
        "window. Plots are drawn by gnuplot; without it the report is written\n"
        "without plots and says so.",
    .opts = REPORT_TABLES,
    .choices = wc_cli_validation_choices,
    .col = 28,
    .footer =
        "Unlike validate, the gap over time defaults to windows of about 1/120 of the\n"
        "run and at least 10 ticks (1 s, 2 s, 5 s, 10 s ... 1 h).\n"
        "\n"
        "Prints the path of report.html. exit codes: 0 written (whatever the verdict:\n"
        "the gate is `wattcal validate`), 2 usage or input error (unreadable DB, bad\n"
        "option, DIR not writable, DIR holding the run itself), 3 the run has fewer\n"
        "than two ticks",
};

typedef struct report_cli {
    wc_cli_validation v;
    wc_report_opts r;
} report_cli;

static int bad(const char *opt, const char *why)
{
    fprintf(stderr, "wattcal report: %s: %s\n", opt, why);
    return WC_EXIT_USAGE;
}

/* One option (wc_cli_handler): report's own or a shared one. */
static int option(void *ctx, const wc_cli_opt *opt, const char *v)
{
    report_cli *c = ctx;
    double x = 0;
    switch (opt->id) {
    case OPT_OUT:
        if (!*v)
            return bad("--out", "expected a directory");
        c->r.out_dir = v;
        return 0;
    case OPT_TOP:
        if (wc_cli_parse_whole(v, 1, 10, &x))
            return bad("--top", "expected a whole number from 1 to 10");
        c->r.top = (size_t)x;
        return 0;
    case OPT_NO_PLOTS:
        c->r.no_plots = 1;
        return 0;
    case OPT_PLOT_TIMEOUT:
        if (wc_cli_parse_seconds(v, 0, &x) || x < 1 || x > 3600)
            return bad("--plot-timeout", "expected a duration from 1s to 1h");
        c->r.plot_timeout_s = (int)ceil(x);
        return 0;
    case OPT_MD_IMAGES: {
        wc_error e = {{0}};
        if (wc_report_md_images_check(v, &e)) {
            wc_cli_error("report", e.msg);
            return WC_EXIT_USAGE;
        }
        c->r.md_images = v;
        return 0;
    }
    }
    return wc_cli_validation_option("report", &c->v, opt->id, v);
}

/* Returns 0 to run, -1 after --help, or WC_EXIT_USAGE. */
static int parse(int argc, char **argv, report_cli *c)
{
    int next = 0;
    wc_cli_validation_init(&c->v);
    int rc = wc_cli_parse(&REPORT_SPEC, argc, argv, option, c, &next);
    if (rc)
        return rc;
    if (next < argc)
        return bad(argv[next], "unexpected argument");
    rc = wc_cli_validation_finish("report", &c->v); /* --db first: it is named first */
    if (!rc && !c->r.out_dir)
        return bad("--out", "DIR is required");
    return rc;
}

/* The gate and the counts exactly as validate prints them (validator/text_report.c): "gate: OUTCOME"
 * (no tolerance: "no gate"), then passed, failed, and the no-verdict and insufficient checks. */
static void print_verdict(const wc_validation *v)
{
    printf("verdict: %s; %zu passed, %zu failed",
           v->outcome == WC_GATE_NONE ? "no gate (no --tolerance)" : wc_gate_outcome_name(v->outcome),
           v->passed, v->failed);
    if (v->skipped)
        printf(", %zu no verdict", v->skipped);
    if (v->insufficient)
        printf(", %zu insufficient", v->insufficient);
    putchar('\n');
}

int cmd_report(int argc, char **argv)
{
    report_cli *c = calloc(1, sizeof *c);
    wc_validation *v = calloc(1, sizeof *v);
    wc_report_result *res = calloc(1, sizeof *res);
    int rc = c && v && res ? parse(argc, argv, c) : WC_EXIT_USAGE;
    if (rc) {
        if (!c || !v || !res)
            wc_cli_error("report", "out of memory");
        free(c), free(v), free(res);
        return rc < 0 ? WC_EXIT_OK : rc;
    }
    wc_error err = {{0}};
    wc_model model;
    wc_store *st = wc_cli_open_model(c->v.db, c->v.model, &model, &err);
    /* one moment of the file for the validation and the figures alike */
    if (st && wc_store_read_begin(st, &err)) {
        wc_store_close(st);
        st = NULL;
    }
    if (st)
        wc_report_default_opts(st, &c->v.o);
    rc = st ? wc_validation_run(st, model, &c->v.o, v, &err) : -EIO;
    int exit_code = WC_EXIT_OK;
    if (rc) {
        wc_cli_error("report", err.msg);
        exit_code = rc == -ENODATA ? WC_EXIT_NO_DATA : WC_EXIT_USAGE;
    } else if (wc_report_write(st, v, c->v.db, &c->r, res, &err)) {
        wc_cli_error("report", err.msg);
        exit_code = WC_EXIT_USAGE;
    } else {
        if (res->warning[0])
            fprintf(stderr, "wattcal report: warning: %s\n", res->warning);
        printf("report: %s\n  markdown: %s\n  %d of %d figures drawn; ", res->html_path, res->md_path,
               res->plots, res->figures);
        print_verdict(v);
    }
    if (!rc)
        wc_validation_free(v);
    wc_store_read_end(st);
    wc_store_close(st);
    free(c), free(v), free(res);
    return exit_code;
}
