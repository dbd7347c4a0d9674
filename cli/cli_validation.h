/*
 * cli_validation.h — the options `wattcal validate` and `wattcal report`
 * share: which run and model, the tolerances of the gate and how accuracy is
 * computed (windows, zones, lag, bootstrap). Parsed once here into
 * validator/validation.h's options; documented once in WC_CLI_VALIDATION_HELP,
 * which both commands' --help include.
 */
#ifndef WC_CLI_VALIDATION_H
#define WC_CLI_VALIDATION_H

#include <getopt.h>

#include "validator/validation.h"

/* getopt_long values of the shared options; a command's own options start at
 * WC_CLI_VOPT_END. */
enum {
    WC_CLI_VOPT_DB = 1000, WC_CLI_VOPT_MODEL, WC_CLI_VOPT_TOL, WC_CLI_VOPT_MAX_UNATTR,
    WC_CLI_VOPT_MAX_OVER, WC_CLI_VOPT_WINDOW, WC_CLI_VOPT_NODE_ZONES, WC_CLI_VOPT_LAG,
    WC_CLI_VOPT_MAX_LAG, WC_CLI_VOPT_MAX_WINDOW, WC_CLI_VOPT_MAPE_FLOOR, WC_CLI_VOPT_GATE_SOURCE,
    WC_CLI_VOPT_GATE_WINDOW, WC_CLI_VOPT_LEVELS_WINDOW, WC_CLI_VOPT_BOOTSTRAP, WC_CLI_VOPT_SEED,
    WC_CLI_VOPT_END
};

/* The shared entries of a struct option array. */
#define WC_CLI_VALIDATION_LONGOPTS                                                                 \
    {"db", required_argument, NULL, WC_CLI_VOPT_DB},                                              \
    {"model", required_argument, NULL, WC_CLI_VOPT_MODEL},                                        \
    {"tolerance", required_argument, NULL, WC_CLI_VOPT_TOL},                                      \
    {"max-unattributed-pct", required_argument, NULL, WC_CLI_VOPT_MAX_UNATTR},                    \
    {"max-over-pct", required_argument, NULL, WC_CLI_VOPT_MAX_OVER},                              \
    {"window", required_argument, NULL, WC_CLI_VOPT_WINDOW},                                      \
    {"node-zones", required_argument, NULL, WC_CLI_VOPT_NODE_ZONES},                              \
    {"lag", required_argument, NULL, WC_CLI_VOPT_LAG},                                            \
    {"max-lag", required_argument, NULL, WC_CLI_VOPT_MAX_LAG},                                    \
    {"max-window", required_argument, NULL, WC_CLI_VOPT_MAX_WINDOW},                              \
    {"mape-floor", required_argument, NULL, WC_CLI_VOPT_MAPE_FLOOR},                              \
    {"gate-source", required_argument, NULL, WC_CLI_VOPT_GATE_SOURCE},                            \
    {"gate-window", required_argument, NULL, WC_CLI_VOPT_GATE_WINDOW},                            \
    {"levels-window", required_argument, NULL, WC_CLI_VOPT_LEVELS_WINDOW},                        \
    {"bootstrap", required_argument, NULL, WC_CLI_VOPT_BOOTSTRAP},                                \
    {"seed", required_argument, NULL, WC_CLI_VOPT_SEED}

/* Their --help lines (a string literal, to concatenate into a command's help). */
#define WC_CLI_VALIDATION_HELP                                                                     \
    "  --db FILE                 a run written by `wattcal record`, `run` or `import`\n"          \
    "  --model M                 kepler-0.11, kepler-head or ideal (default: the model\n"         \
    "                            the run was recorded with, ideal for an imported run;\n"         \
    "                            another model is computed offline first)\n"                      \
    "  --tolerance LIST          CI gate thresholds, comma-separated (repeatable):\n"             \
    "                            node=P% wape=P% mape=P% mae=W rmse=W p95=W loa=W\n"              \
    "                            gap=P% over=P% invariants=N coverage=P% class-bias=P%\n"         \
    "  --max-unattributed-pct P  the same as --tolerance gap=P%\n"                                \
    "  --max-over-pct P          the same as --tolerance over=P%\n"                               \
    "  --window LIST             common windows, comma-separated (default 10s,60s; at\n"          \
    "                            most 3); pairs per truth reading are always scored too\n"        \
    "  --node-zones LIST         zones summed into the node source (default package,dram)\n"      \
    "  --lag auto|DUR            ground-truth lag: estimated (default) or given\n"                \
    "  --max-lag DUR             largest lag searched (default 30s, at most a quarter\n"          \
    "                            of the run; up to 1h)\n"                                         \
    "  --max-window DUR          largest averaging window searched when the device\n"             \
    "                            states none (default 120s)\n"                                    \
    "  --mape-floor W            MAPE only where truth is above W (default: 10 % of\n"            \
    "                            the truth's median)\n"                                           \
    "  --gate-source NAME        node source the node/wape/... checks read (default: the\n"       \
    "                            latest wall estimate calibrated on another run\n"                \
    "                            (--apply-from), else the meter; an in-sample estimate\n"         \
    "                            only when named)\n"                                              \
    "  --gate-window native|DUR  pairs the node checks read (default native)\n"                   \
    "  --levels-window DUR       windows of the gap over time (default 60s)\n"                    \
    "  --bootstrap N             bootstrap replicates (default 1000)\n"                           \
    "  --seed N                  bootstrap seed (default 1)\n"

/* The parsed shared options. */
typedef struct wc_cli_validation {
    const char *db, *model;
    char zones_buf[256];
    wc_validation_opts o;
} wc_cli_validation;

/* Sets the defaults (bootstrap seed). */
void wc_cli_validation_init(wc_cli_validation *c);

/* Handles one shared option (opt a WC_CLI_VOPT_* value) for command cmd.
 * Returns 0, or WC_EXIT_USAGE after printing what is wrong. */
int wc_cli_validation_option(const char *cmd, wc_cli_validation *c, int opt, const char *value);

/* After the last option: --db present, default windows, the gate window one
 * of the scored windows. Returns 0 or WC_EXIT_USAGE after printing why. */
int wc_cli_validation_finish(const char *cmd, wc_cli_validation *c);

#endif
