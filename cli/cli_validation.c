/*
 * cli_validation.c — the options `validate` and `report` share
 * (cli_validation.h): their table, with the help text both commands' --help
 * show, and their parsing into validator/validation.h's options.
 */
#include "cli/cli_validation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* --tolerance's help: a first line, then the names of the gate's metrics
 * (wc_tol_names), written by wc_cli_validation_init, which both commands
 * call before parsing (and so before --help). */
static char tolerance_help[320];

const wc_cli_choices wc_cli_validation_choices[] = {
    {WC_CLI_VOPT_MODEL, wc_cli_list_model_names},
    {0, NULL},
};

const wc_cli_opt wc_cli_validation_opts[] = {
    {"db", "FILE", WC_CLI_VOPT_DB, "a run written by `wattcal record`, `run` or `import`"},
    {"model", "M", WC_CLI_VOPT_MODEL,
     "attribution model (default: the model the run was\n"
     "recorded with, ideal for an imported run; another\n"
     "model is computed offline first)"},
    {"tolerance", "LIST", WC_CLI_VOPT_TOL, tolerance_help},
    {"max-unattributed-pct", "P", WC_CLI_VOPT_MAX_UNATTR, "the same as --tolerance gap=P%"},
    {"max-over-pct", "P", WC_CLI_VOPT_MAX_OVER, "the same as --tolerance over=P%"},
    {"window", "LIST", WC_CLI_VOPT_WINDOW,
     "common windows, comma-separated (default 10s,60s; at\n"
     "most 3); pairs per truth reading are always scored too"},
    {"node-zones", "LIST", WC_CLI_VOPT_NODE_ZONES,
     "zones summed into the node source (default package,dram)"},
    {"lag", "auto|DUR", WC_CLI_VOPT_LAG, "ground-truth lag: estimated (default) or given"},
    {"max-lag", "DUR", WC_CLI_VOPT_MAX_LAG,
     "largest lag searched (default 30s, at most a quarter\n"
     "of the run; up to 1h)"},
    {"max-window", "DUR", WC_CLI_VOPT_MAX_WINDOW,
     "largest averaging window searched when the device\n"
     "states none (default 120s)"},
    {"mape-floor", "W", WC_CLI_VOPT_MAPE_FLOOR,
     "MAPE only where truth is above W (default: 10 % of\n"
     "the truth's median)"},
    {"gate-source", "NAME", WC_CLI_VOPT_GATE_SOURCE,
     "node source the node/wape/... checks read (default: the\n"
     "latest wall estimate calibrated on another run\n"
     "(--apply-from), else the meter; an in-sample estimate\n"
     "only when named)"},
    {"gate-window", "native|DUR", WC_CLI_VOPT_GATE_WINDOW,
     "pairs the node checks read (default native)"},
    {"levels-window", "DUR", WC_CLI_VOPT_LEVELS_WINDOW,
     "windows of the gap over time (default 60s)"},
    {"bootstrap", "N", WC_CLI_VOPT_BOOTSTRAP, "bootstrap replicates (default 1000)"},
    {"seed", "N", WC_CLI_VOPT_SEED, "bootstrap seed (default 1)"},
    WC_CLI_OPT_END,
};

static int bad(const char *cmd, const char *opt, const char *why)
{
    fprintf(stderr, "wattcal %s: %s: %s\n", cmd, opt, why);
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

/* Appends the thresholds of spec; a metric given twice (in one --tolerance,
 * two of them, or --max-*-pct beside gap=/over=) is refused, naming both. */
static int add_tolerance(const char *cmd, wc_cli_validation *c, const char *spec)
{
    wc_error err = {{0}};
    size_t before = c->o.ntol;
    if (wc_tolerance_parse(spec, c->o.tol, &c->o.ntol, &err)) {
        fprintf(stderr, "wattcal %s: %s\n", cmd, err.msg);
        return WC_EXIT_USAGE;
    }
    for (size_t i = before; i < c->o.ntol; i++)
        for (size_t j = 0; j < i; j++)
            if (c->o.tol[j].metric == c->o.tol[i].metric && c->o.tol[j].stat == c->o.tol[i].stat) {
                fprintf(stderr, "wattcal %s: --tolerance: %s given twice ('%s' and '%s'): "
                                "give each metric once\n",
                        cmd, wc_tolerance_name(&c->o.tol[i]), c->o.tol[j].text, c->o.tol[i].text);
                return WC_EXIT_USAGE;
            }
    return 0;
}

void wc_cli_validation_init(wc_cli_validation *c)
{
    memset(c, 0, sizeof *c);
    c->o.acc.boot.seed = WC_BOOT_DEFAULT_SEED;
    char names[256];
    wc_tol_names(names, sizeof names, 1);
    snprintf(tolerance_help, sizeof tolerance_help,
             "CI gate thresholds, comma-separated (repeatable):\n%s", names);
}

/* --tolerance and the options that add a tolerance, the gated source and
 * window. Returns 0, WC_EXIT_USAGE, or -1 when opt is not one of them. */
static int gate_option(const char *cmd, wc_cli_validation *c, int opt, const char *v)
{
    double x = 0;
    char spec[96];
    switch (opt) {
    case WC_CLI_VOPT_TOL: return add_tolerance(cmd, c, v);
    case WC_CLI_VOPT_MAX_UNATTR:
    case WC_CLI_VOPT_MAX_OVER:
        if (parse_number(v, &x))
            return bad(cmd, opt == WC_CLI_VOPT_MAX_OVER ? "--max-over-pct" : "--max-unattributed-pct",
                       "expected a percentage >= 0");
        snprintf(spec, sizeof spec, "%s=%.17g%%", opt == WC_CLI_VOPT_MAX_OVER ? "over" : "gap", x);
        return add_tolerance(cmd, c, spec);
    case WC_CLI_VOPT_GATE_SOURCE: c->o.gate_source = v; return 0;
    case WC_CLI_VOPT_GATE_WINDOW:
        if (!strcmp(v, "native")) {
            c->o.gate_window_s = 0;
            return 0;
        }
        return wc_cli_parse_seconds(v, 0, &c->o.gate_window_s) || c->o.gate_window_s < 0.001
                   ? bad(cmd, "--gate-window", "expected native or a duration of 1 ms or more")
                   : 0;
    }
    return -1;
}

/* How accuracy is computed: windows, zones, the truth's lag and window
 * search, the MAPE floor, the gap's windows over time. Returns 0,
 * WC_EXIT_USAGE, or -1 when opt is not one of them. */
static int accuracy_option(const char *cmd, wc_cli_validation *c, int opt, const char *v)
{
    wc_acc_opts *a = &c->o.acc;
    switch (opt) {
    case WC_CLI_VOPT_WINDOW:
        return parse_windows(v, a)
                   ? bad(cmd, "--window", "expected up to 3 different durations of 1 ms or more, e.g. 10s,60s")
                   : 0;
    case WC_CLI_VOPT_NODE_ZONES:
        return wc_cli_parse_zone_list(v, c->zones_buf, sizeof c->zones_buf, a->node_zones, WC_ACC_MAX_ZONES)
                   ? bad(cmd, "--node-zones", "expected zone names, e.g. package,dram")
                   : 0;
    case WC_CLI_VOPT_LAG:
        if (!strcmp(v, "auto")) {
            a->lag_fixed = 0;
            return 0;
        }
        a->lag_fixed = 1;
        return wc_cli_parse_seconds(v, 1, &a->lag_s) || a->lag_s > 3600
                   ? bad(cmd, "--lag", "expected auto or a duration up to 1h, e.g. 3s")
                   : 0;
    case WC_CLI_VOPT_MAX_LAG:
        return wc_cli_parse_seconds(v, 0, &a->search.max_lag_s) || a->search.max_lag_s > 3600
                   ? bad(cmd, "--max-lag", "expected a duration > 0, up to 1h")
                   : 0;
    case WC_CLI_VOPT_MAX_WINDOW:
        return wc_cli_parse_seconds(v, 0, &a->search.max_window_s) || a->search.max_window_s > 86400
                   ? bad(cmd, "--max-window", "expected a duration > 0, up to 1 day")
                   : 0;
    case WC_CLI_VOPT_MAPE_FLOOR:
        return parse_number(v, &a->mape_floor_w) ? bad(cmd, "--mape-floor", "expected watts >= 0") : 0;
    case WC_CLI_VOPT_LEVELS_WINDOW:
        return wc_cli_parse_seconds(v, 0, &c->o.levels_window_s) || c->o.levels_window_s < 0.001
                   ? bad(cmd, "--levels-window", "expected a duration of 1 ms or more")
                   : 0;
    }
    return -1;
}

int wc_cli_validation_option(const char *cmd, wc_cli_validation *c, int opt, const char *v)
{
    wc_acc_opts *a = &c->o.acc;
    double x = 0;
    int rc = gate_option(cmd, c, opt, v);
    if (rc < 0)
        rc = accuracy_option(cmd, c, opt, v);
    if (rc >= 0)
        return rc;
    switch (opt) {
    case WC_CLI_VOPT_DB: c->db = v; return 0;
    case WC_CLI_VOPT_MODEL: c->model = v; return 0;
    case WC_CLI_VOPT_BOOTSTRAP:
        if (wc_cli_parse_whole(v, 100, 100000, &x))
            return bad(cmd, "--bootstrap", "expected a whole number of replicates from 100 to 100000");
        a->boot.replicates = (int)x;
        return 0;
    case WC_CLI_VOPT_SEED:
        if (wc_cli_parse_whole(v, 0, 4294967295.0, &x))
            return bad(cmd, "--seed", "expected a whole number from 0 to 2^32-1");
        a->boot.seed = (uint64_t)x;
        return 0;
    }
    return WC_EXIT_USAGE;
}

int wc_cli_validation_finish(const char *cmd, wc_cli_validation *c)
{
    if (!c->db || !*c->db)
        return bad(cmd, "--db", c->db ? "FILE is required (an empty name was given)"
                                      : "FILE is required");
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
            return bad(cmd, "--gate-window", "must be one of the --window durations (or native)");
        a->windows_s[a->nwindows++] = c->o.gate_window_s;
    }
    return 0;
}
