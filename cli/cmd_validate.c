/*
 * cmd_validate.c — `wattcal validate`: parses options, runs the validation
 * (validator/validation.c), prints it (validator/text_report.c), writes the
 * JSON summary and JUnit XML on request, and turns tolerances into the exit
 * code of a CI gate.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_validation.h"
#include "common/wc_clock.h"
#include "validator/junit.h"
#include "validator/summary_json.h"
#include "validator/text_report.h"
#include "validator/validation.h"

enum { OPT_JUNIT = WC_CLI_VOPT_END, OPT_JSON, OPT_PODS_CSV };

static const wc_cli_opt VALIDATE_OPTS[] = {
    {"junit", "FILE", OPT_JUNIT,
     "write the checks as JUnit XML (one testcase per\n"
     "phase x metric x threshold)"},
    {"json", "FILE", OPT_JSON,
     "write every figure, its CI and its provenance as JSON\n"
     "(schema wattcal-validate/2)"},
    {"pods-csv", "FILE", OPT_PODS_CSV,
     "write the top pods (namespace, name, joules, share, 95 %\n"
     "CIs) as CSV with the interval in RFC 3339 UTC"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const VALIDATE_TABLES[] = {wc_cli_validation_opts, VALIDATE_OPTS, NULL};

static const wc_cli_spec VALIDATE_SPEC = {
    .name = "validate",
    .usage = "wattcal validate --db FILE [options]",
    .about =
        "Everything a platform team may publish about a run, each figure with its\n"
        "provenance: the attribution gap per zone and level (node -> processes ->\n"
        "containers -> pods) split into idle, unattributed and over-attributed\n"
        "energy, with the invariant sum(children) <= parent checked per interval;\n"
        "node accuracy of every node power source against every ground-truth source\n"
        "(bias, MAE, WAPE, RMSE, p95, MAPE, Bland-Altman limits of agreement, 95 %\n"
        "block-bootstrap CIs) after estimating the truth's lag and averaging window;\n"
        "energy over the run; replayed workloads against isolation (bias matrix,\n"
        "burst coverage); and a CI gate.",
    .opts = VALIDATE_TABLES,
    .choices = wc_cli_validation_choices,
    .col = 28,
    .footer =
        "The output ends with \"gate: PASS|FAIL|NO VERDICT — reason\" and \"N passed, N\n"
        "failed\" (\", K no verdict\" when a check could not be evaluated, \", K\n"
        "insufficient\" when a node check read fewer than 5 pairs: neither is a pass).\n"
        "exit codes: 0 within tolerances, 1 a tolerance broken, 2 usage or input error\n"
        "(unreadable DB, bad option, a zone the run does not have, a corrupt clock,\n"
        "unwritable --json/--junit file), 3 NO VERDICT: nothing failed but a check\n"
        "could not be evaluated or read too few pairs (e.g. a BMC that delivered no\n"
        "reading), or the run has no measurable interval",
};

typedef struct validate_cli {
    const char *junit, *json, *pods_csv;
    wc_cli_validation v;
} validate_cli;

static int bad(const char *opt, const char *why)
{
    fprintf(stderr, "wattcal validate: %s: %s\n", opt, why);
    return WC_EXIT_USAGE;
}

/* One option (wc_cli_handler): --junit, --json or a shared one. */
static int option(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    validate_cli *c = ctx;
    switch (opt->id) {
    case OPT_JUNIT: c->junit = arg; return 0;
    case OPT_JSON: c->json = arg; return 0;
    case OPT_PODS_CSV: c->pods_csv = arg; return 0;
    }
    return wc_cli_validation_option("validate", &c->v, opt->id, arg);
}

/* Returns 0 to run, -1 after --help, or WC_EXIT_USAGE. */
static int parse(int argc, char **argv, validate_cli *c)
{
    int next = 0;
    wc_cli_validation_init(&c->v);
    int rc = wc_cli_parse(&VALIDATE_SPEC, argc, argv, option, c, &next);
    if (rc)
        return rc;
    if (next < argc)
        return bad(argv[next], "unexpected argument");
    const char *const outs[3][2] = {{"--json", c->json}, {"--junit", c->junit}, {"--pods-csv", c->pods_csv}};
    for (int i = 0; i < 3; i++) {
        if (outs[i][1] && c->v.db && wc_cli_one_file(outs[i][1], c->v.db))
            return bad(outs[i][0], "the run database itself: writing it would destroy the run");
        for (int j = 0; j < i; j++)
            if (outs[i][1] && outs[j][1] && wc_cli_one_file(outs[i][1], outs[j][1])) {
                fprintf(stderr, "wattcal validate: %s: the same file as %s: one would overwrite the"
                                " other\n", outs[i][0], outs[j][0]);
                return WC_EXIT_USAGE;
            }
    }
    return wc_cli_validation_finish("validate", &c->v);
}

/* Something was measured: energy in the model's node series or, for runs
 * without /proc data (imported), in the raw meter or a gauge series. */
static int measurable(const wc_validation *v)
{
    for (size_t i = 0; i < v->gap.nzones; i++)
        if (v->gap.zones[i].node_joules > 0 || v->gap.zones[i].meter_joules > 0)
            return 1;
    for (size_t i = 0; v->have_accuracy && i < v->acc.nsources; i++)
        if (v->acc.sources[i].run_energy_j > 0)
            return 1;
    return 0;
}

/* Whether the model attributed any active energy (imported runs have none). */
static int has_attribution(const wc_validation *v)
{
    for (size_t i = 0; i < v->gap.nzones; i++)
        if (v->gap.zones[i].active_joules > 0)
            return 1;
    return 0;
}

/* Whether every tolerance asked for is about attribution (gap, over, invariants). */
static int only_attribution_checks(const wc_validation_opts *o)
{
    for (size_t i = 0; i < o->ntol; i++)
        if (o->tol[i].metric != WC_TOL_GAP && o->tol[i].metric != WC_TOL_OVER &&
            o->tol[i].metric != WC_TOL_INVARIANTS)
            return 0;
    return o->ntol > 0;
}

static int write_outputs(const validate_cli *c, const wc_validation *v)
{
    wc_error err = {{0}};
    if (c->json && wc_summary_json_write(c->json, v, c->v.db, &err)) {
        wc_cli_error("validate", err.msg);
        return WC_EXIT_USAGE;
    }
    if (c->junit && wc_junit_write(c->junit, v, c->v.db, &err)) {
        wc_cli_error("validate", err.msg);
        return WC_EXIT_USAGE;
    }
    if (c->pods_csv && wc_showback_csv_write(c->pods_csv, &v->showback, &err)) {
        wc_cli_error("validate", err.msg);
        return WC_EXIT_USAGE;
    }
    return 0;
}

int cmd_validate(int argc, char **argv)
{
    validate_cli *c = calloc(1, sizeof *c);
    wc_validation *v = calloc(1, sizeof *v);
    if (!c || !v) {
        free(c), free(v);
        wc_cli_error("validate", "out of memory");
        return WC_EXIT_USAGE;
    }
    int rc = parse(argc, argv, c);
    if (rc) {
        free(c), free(v);
        return rc < 0 ? WC_EXIT_OK : rc;
    }
    wc_error err = {{0}};
    wc_model model;
    wc_store *st = wc_cli_open_model(c->v.db, c->v.model, &model, &err);
    int exit_code = WC_EXIT_OK;
    rc = st ? wc_validation_run(st, model, &c->v.o, v, &err) : -EIO;
    if (rc) {
        wc_cli_error("validate", err.msg);
        wc_store_close(st);
        free(c), free(v);
        return rc == -ENODATA ? WC_EXIT_NO_DATA : WC_EXIT_USAGE;
    }
    wc_text_validation(stdout, v, c->v.db);
    fflush(stdout);
    exit_code = write_outputs(c, v);
    if (exit_code == WC_EXIT_OK) {
        if (!measurable(v)) {
            printf("no measurable interval: nothing to validate\n");
            exit_code = WC_EXIT_NO_DATA;
        } else if (only_attribution_checks(&c->v.o) && !has_attribution(v)) {
            printf("no attribution in this run (no /proc data): the tolerances cannot be checked\n");
            exit_code = WC_EXIT_NO_DATA;
        } else if (v->outcome == WC_GATE_FAIL) {
            exit_code = WC_EXIT_CHECK_FAILED;
        } else if (v->outcome == WC_GATE_NO_VERDICT) {
            exit_code = WC_EXIT_NO_VERDICT;
        }
    }
    wc_validation_free(v);
    wc_store_close(st);
    free(c), free(v);
    return exit_code;
}
