/*
 * cmd_validate.c — `wattcal validate`: parses options, runs the validation
 * (validator/validation.c), prints it (validator/text_report.c), writes the
 * JSON summary and JUnit XML on request, and turns tolerances into the exit
 * code of a CI gate.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/wc_clock.h"
#include "validator/junit.h"
#include "validator/summary_json.h"
#include "validator/text_report.h"
#include "validator/validation.h"

static const char VALIDATE_HELP[] =
    "usage: wattcal validate --db FILE [options]\n"
    "\n"
    "Everything a platform team may publish about a run, each figure with its\n"
    "provenance: the attribution gap per zone and level (node -> processes ->\n"
    "containers -> pods) split into idle, unattributed and over-attributed\n"
    "energy, with the invariant sum(children) <= parent checked per interval;\n"
    "node accuracy of every node power source against every ground-truth source\n"
    "(bias, MAE, WAPE, RMSE, p95, MAPE, Bland-Altman limits of agreement, 95 %\n"
    "block-bootstrap CIs) after estimating the truth's lag and averaging window;\n"
    "energy over the run; replayed workloads against isolation (bias matrix,\n"
    "burst coverage); and a CI gate.\n"
    "\n"
    "  --db FILE                 a run written by `wattcal record`, `run` or `import`\n"
    "  --model M                 kepler-0.11, kepler-head or ideal (default: the model\n"
    "                            the run was recorded with, ideal for an imported run;\n"
    "                            another model is computed offline first)\n"
    "  --tolerance LIST          CI gate thresholds, comma-separated (repeatable):\n"
    "                            node=P% wape=P% mape=P% mae=W rmse=W p95=W loa=W\n"
    "                            gap=P% over=P% invariants=N coverage=P% class-bias=P%\n"
    "  --max-unattributed-pct P  the same as --tolerance gap=P%\n"
    "  --max-over-pct P          the same as --tolerance over=P%\n"
    "  --junit FILE              write the checks as JUnit XML (one testcase per\n"
    "                            phase x metric x threshold)\n"
    "  --json FILE               write every figure, its CI and its provenance as JSON\n"
    "                            (schema wattcal-validate/1)\n"
    "  --window LIST             common windows, comma-separated (default 10s,60s; at\n"
    "                            most 3); pairs per truth reading are always scored too\n"
    "  --node-zones LIST         zones summed into the node source (default package,dram)\n"
    "  --lag auto|DUR            ground-truth lag: estimated (default) or given\n"
    "  --max-lag DUR             largest lag searched (default 30s, at most a quarter\n"
    "                            of the run; up to 1h)\n"
    "  --max-window DUR          largest averaging window searched when the device\n"
    "                            states none (default 120s)\n"
    "  --mape-floor W            MAPE only where truth is above W (default: 10 % of\n"
    "                            the truth's median)\n"
    "  --gate-source NAME        node source the node/wape/... checks read (default: the\n"
    "                            latest wall estimate calibrated on another run\n"
    "                            (--apply-from), else the meter; an in-sample estimate\n"
    "                            only when named)\n"
    "  --gate-window native|DUR  pairs the node checks read (default native)\n"
    "  --levels-window DUR       windows of the gap over time (default 60s)\n"
    "  --bootstrap N             bootstrap replicates (default 1000)\n"
    "  --seed N                  bootstrap seed (default 1)\n"
    "\n"
    "The output ends with \"N passed, N failed\" (\", K skipped\" when a check could not\n"
    "be evaluated). exit codes: 0 within tolerances, 1 a tolerance broken, 2 usage\n"
    "or input error (unreadable DB, bad option, a zone the run does not have, a\n"
    "corrupt clock, unwritable --json/--junit file), 3 the run has no measurable\n"
    "interval (fewer than two ticks, or tolerances were asked of a run that cannot\n"
    "be checked, e.g. gap= of an imported run without attribution)\n";

enum {
    OPT_DB = 1000, OPT_MODEL, OPT_TOL, OPT_MAX_UNATTR, OPT_MAX_OVER, OPT_JUNIT, OPT_JSON,
    OPT_WINDOW, OPT_NODE_ZONES, OPT_LAG, OPT_MAX_LAG, OPT_MAX_WINDOW, OPT_MAPE_FLOOR,
    OPT_GATE_SOURCE, OPT_GATE_WINDOW, OPT_LEVELS_WINDOW, OPT_BOOTSTRAP, OPT_SEED, OPT_HELP
};

static const struct option VALIDATE_OPTS[] = {
    {"db", required_argument, NULL, OPT_DB},
    {"model", required_argument, NULL, OPT_MODEL},
    {"tolerance", required_argument, NULL, OPT_TOL},
    {"max-unattributed-pct", required_argument, NULL, OPT_MAX_UNATTR},
    {"max-over-pct", required_argument, NULL, OPT_MAX_OVER},
    {"junit", required_argument, NULL, OPT_JUNIT},
    {"json", required_argument, NULL, OPT_JSON},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"node-zones", required_argument, NULL, OPT_NODE_ZONES},
    {"lag", required_argument, NULL, OPT_LAG},
    {"max-lag", required_argument, NULL, OPT_MAX_LAG},
    {"max-window", required_argument, NULL, OPT_MAX_WINDOW},
    {"mape-floor", required_argument, NULL, OPT_MAPE_FLOOR},
    {"gate-source", required_argument, NULL, OPT_GATE_SOURCE},
    {"gate-window", required_argument, NULL, OPT_GATE_WINDOW},
    {"levels-window", required_argument, NULL, OPT_LEVELS_WINDOW},
    {"bootstrap", required_argument, NULL, OPT_BOOTSTRAP},
    {"seed", required_argument, NULL, OPT_SEED},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

typedef struct validate_cli {
    const char *db, *model, *junit, *json;
    char zones_buf[256];
    wc_validation_opts o;
} validate_cli;

static int bad(const char *opt, const char *why)
{
    fprintf(stderr, "wattcal validate: %s: %s\n", opt, why);
    return WC_EXIT_USAGE;
}

static int parse_number(const char *v, double *out)
{
    char *end = NULL;
    *out = strtod(v, &end);
    return (!end || end == v || *end || !isfinite(*out) || *out < 0) ? -1 : 0;
}

/* "10s,60s" into the accuracy windows. */
static int parse_windows(const char *v, wc_acc_opts *a)
{
    char buf[128];
    if (strlen(v) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", v);
    a->nwindows = 0;
    if (strstr(v, ",,") || v[0] == ',' || v[strlen(v) - 1] == ',')
        return -1; /* an empty item */
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (a->nwindows == WC_ACC_MAX_WINDOWS - 1 || wc_cli_parse_seconds(t, 0, &a->windows_s[a->nwindows]))
            return -1;
        if (a->windows_s[a->nwindows] < 0.001)
            return -1; /* below 1 ms no meter has samples */
        for (size_t k = 0; k < a->nwindows; k++)
            if (a->windows_s[k] == a->windows_s[a->nwindows])
                return -1;
        a->nwindows++;
    }
    return a->nwindows ? 0 : -1;
}

static int add_tolerance(validate_cli *c, const char *spec)
{
    wc_error err = {{0}};
    if (wc_tolerance_parse(spec, c->o.tol, &c->o.ntol, &err)) {
        fprintf(stderr, "wattcal validate: %s\n", err.msg);
        return WC_EXIT_USAGE;
    }
    return 0;
}

static int parse_option(validate_cli *c, int opt, const char *v)
{
    wc_acc_opts *a = &c->o.acc;
    double x = 0;
    char spec[96];
    switch (opt) {
    case OPT_DB: c->db = v; return 0;
    case OPT_MODEL: c->model = v; return 0;
    case OPT_TOL: return add_tolerance(c, v);
    case OPT_MAX_UNATTR:
    case OPT_MAX_OVER:
        if (parse_number(v, &x))
            return bad(opt == OPT_MAX_OVER ? "--max-over-pct" : "--max-unattributed-pct",
                       "expected a percentage >= 0");
        snprintf(spec, sizeof spec, "%s=%.17g%%", opt == OPT_MAX_OVER ? "over" : "gap", x);
        return add_tolerance(c, spec);
    case OPT_JUNIT: c->junit = v; return 0;
    case OPT_JSON: c->json = v; return 0;
    case OPT_WINDOW:
        return parse_windows(v, a) ? bad("--window", "expected up to 3 different durations of 1 ms or more, e.g. 10s,60s")
                                   : 0;
    case OPT_NODE_ZONES:
        return wc_cli_parse_zone_list(v, c->zones_buf, sizeof c->zones_buf, a->node_zones,
                                      WC_ACC_MAX_ZONES)
                   ? bad("--node-zones", "expected zone names, e.g. package,dram")
                   : 0;
    case OPT_LAG:
        if (!strcmp(v, "auto")) {
            a->lag_fixed = 0;
            return 0;
        }
        a->lag_fixed = 1;
        return wc_cli_parse_seconds(v, 1, &a->lag_s) || a->lag_s > 3600
                   ? bad("--lag", "expected auto or a duration up to 1h, e.g. 3s")
                   : 0;
    case OPT_MAX_LAG:
        return wc_cli_parse_seconds(v, 0, &a->search.max_lag_s) || a->search.max_lag_s > 3600
                   ? bad("--max-lag", "expected a duration > 0, up to 1h")
                   : 0;
    case OPT_MAX_WINDOW:
        return wc_cli_parse_seconds(v, 0, &a->search.max_window_s) || a->search.max_window_s > 86400
                   ? bad("--max-window", "expected a duration > 0, up to 1 day")
                   : 0;
    case OPT_MAPE_FLOOR:
        return parse_number(v, &a->mape_floor_w) ? bad("--mape-floor", "expected watts >= 0") : 0;
    case OPT_GATE_SOURCE: c->o.gate_source = v; return 0;
    case OPT_GATE_WINDOW:
        if (!strcmp(v, "native")) {
            c->o.gate_window_s = 0;
            return 0;
        }
        return wc_cli_parse_seconds(v, 0, &c->o.gate_window_s) || c->o.gate_window_s < 0.001
                   ? bad("--gate-window", "expected native or a duration of 1 ms or more")
                   : 0;
    case OPT_LEVELS_WINDOW:
        return wc_cli_parse_seconds(v, 0, &c->o.levels_window_s) || c->o.levels_window_s < 0.001
                   ? bad("--levels-window", "expected a duration of 1 ms or more")
                   : 0;
    case OPT_BOOTSTRAP:
        if (wc_cli_parse_whole(v, 100, 100000, &x))
            return bad("--bootstrap", "expected a whole number of replicates from 100 to 100000");
        a->boot.replicates = (int)x;
        return 0;
    case OPT_SEED:
        if (wc_cli_parse_whole(v, 0, 4294967295.0, &x))
            return bad("--seed", "expected a whole number from 0 to 2^32-1");
        a->boot.seed = (uint64_t)x;
        return 0;
    }
    return WC_EXIT_USAGE;
}

static int parse(int argc, char **argv, validate_cli *c)
{
    int opt;
    optind = 1;
    c->o.acc.boot.seed = WC_BOOT_DEFAULT_SEED;
    while ((opt = getopt_long(argc, argv, "", VALIDATE_OPTS, NULL)) != -1) {
        if (opt == OPT_HELP) {
            fputs(VALIDATE_HELP, stdout);
            return -1;
        }
        if (opt < OPT_DB) {
            fputs(VALIDATE_HELP, stderr);
            return WC_EXIT_USAGE;
        }
        int rc = parse_option(c, opt, optarg);
        if (rc)
            return rc;
    }
    if (optind < argc)
        return bad(argv[optind], "unexpected argument");
    if (!c->db)
        return bad("--db", "FILE is required");
    if (c->json && c->junit && !strcmp(c->json, c->junit))
        return bad("--junit", "the same file as --json: one would overwrite the other");
    /* The gate window must be one of the scored windows. */
    wc_acc_opts *a = &c->o.acc;
    if (!a->nwindows) {
        a->windows_s[0] = 10;
        a->windows_s[1] = 60;
        a->nwindows = 2;
    }
    int found = c->o.gate_window_s == 0;
    for (size_t i = 0; i < a->nwindows; i++)
        found |= a->windows_s[i] == c->o.gate_window_s;
    if (!found) {
        if (a->nwindows == WC_ACC_MAX_WINDOWS - 1)
            return bad("--gate-window", "must be one of the --window durations (or native)");
        a->windows_s[a->nwindows++] = c->o.gate_window_s;
    }
    return 0;
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
    if (c->json && wc_summary_json_write(c->json, v, c->db, &err)) {
        wc_cli_error("validate", err.msg);
        return WC_EXIT_USAGE;
    }
    if (c->junit && wc_junit_write(c->junit, v, c->db, &err)) {
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
    wc_store *st = wc_cli_open_model(c->db, c->model, &model, &err);
    int exit_code = WC_EXIT_OK;
    rc = st ? wc_validation_run(st, model, &c->o, v, &err) : -EIO;
    if (rc) {
        wc_cli_error("validate", err.msg);
        wc_store_close(st);
        free(c), free(v);
        return rc == -ENODATA ? WC_EXIT_NO_DATA : WC_EXIT_USAGE;
    }
    wc_text_validation(stdout, v, c->db);
    fflush(stdout);
    exit_code = write_outputs(c, v);
    if (exit_code == WC_EXIT_OK) {
        if (!measurable(v)) {
            printf("no measurable interval: nothing to validate\n");
            exit_code = WC_EXIT_NO_DATA;
        } else if (only_attribution_checks(&c->o) && !has_attribution(v)) {
            printf("no attribution in this run (no /proc data): the tolerances cannot be checked\n");
            exit_code = WC_EXIT_NO_DATA;
        } else if (v->failed) {
            exit_code = WC_EXIT_CHECK_FAILED;
        }
    }
    wc_validation_free(v);
    wc_store_close(st);
    free(c), free(v);
    return exit_code;
}
