/*
 * cli_validation.h — the options `wattcal validate` and `wattcal report`
 * share: which run and model, the tolerances of the gate and how accuracy is
 * computed (windows, zones, lag, bootstrap). Parsed once here into
 * validator/validation.h's options; declared and documented once, in the
 * option table wc_cli_validation_opts, which both commands' specs list.
 */
#ifndef WC_CLI_VALIDATION_H
#define WC_CLI_VALIDATION_H

#include "cli/cli_parse.h"
#include "validator/validation.h"

/* Ids of the shared options; a command's own option ids start at
 * WC_CLI_VOPT_END. */
enum {
    WC_CLI_VOPT_DB = 1000, WC_CLI_VOPT_MODEL, WC_CLI_VOPT_TOL, WC_CLI_VOPT_MAX_UNATTR,
    WC_CLI_VOPT_MAX_OVER, WC_CLI_VOPT_WINDOW, WC_CLI_VOPT_NODE_ZONES, WC_CLI_VOPT_LAG,
    WC_CLI_VOPT_MAX_LAG, WC_CLI_VOPT_MAX_WINDOW, WC_CLI_VOPT_MAPE_FLOOR, WC_CLI_VOPT_GATE_SOURCE,
    WC_CLI_VOPT_GATE_WINDOW, WC_CLI_VOPT_LEVELS_WINDOW, WC_CLI_VOPT_BOOTSTRAP, WC_CLI_VOPT_SEED,
    WC_CLI_VOPT_END
};

/* The shared options' table (ids WC_CLI_VOPT_*), declared once: both
 * commands list it in their wc_cli_spec, so both parse and document it. */
extern const wc_cli_opt wc_cli_validation_opts[];

/* The choices of those options that come from a table (--model: the model
 * table), for the spec of each command that lists wc_cli_validation_opts. */
extern const wc_cli_choices wc_cli_validation_choices[];

/* The parsed shared options. */
typedef struct wc_cli_validation {
    const char *db, *model;
    char zones_buf[256];
    wc_validation_opts o;
} wc_cli_validation;

/* Sets the defaults (bootstrap seed), and --tolerance's help in
 * wc_cli_validation_opts from the gate's table of metrics: call it before
 * parsing. */
void wc_cli_validation_init(wc_cli_validation *c);

/* Handles one shared option (opt a WC_CLI_VOPT_* id) for command cmd.
 * Returns 0, or WC_EXIT_USAGE after printing what is wrong. */
int wc_cli_validation_option(const char *cmd, wc_cli_validation *c, int opt, const char *value);

/* After the last option: --db present, default windows, the gate window one
 * of the scored windows. Returns 0 or WC_EXIT_USAGE after printing why. */
int wc_cli_validation_finish(const char *cmd, wc_cli_validation *c);

#endif
