/*
 * main.c — wattcal's entry point: dispatches to one cmd_*.c per subcommand
 * (each parses its own options, cli_parse.h) and prints the command list.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_parse.h"

/* The commands: name, entry point, the line `wattcal --help` shows. */
static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} COMMANDS[] = {
    {"record", cmd_record, "sample meters and /proc, attribute energy, write a SQLite run"},
    {"validate", cmd_validate, "attribution gap, node accuracy vs ground truth with CIs, workload bias, CI gate"},
    {"calibrate", cmd_calibrate, "fit zone power vs utilisation and ground truth vs the zones; store, apply, estimate"},
    {"diff", cmd_diff, "compare workload energy between two runs or two models, with CIs and a verdict"},
    {"report", cmd_report, "write the validation as a self-contained HTML page and Markdown with plots"},
    {"attribute", cmd_attribute, "re-attribute a recorded run offline under another model"},
    {"run", cmd_run, "replay a scenario of stress workloads in labelled phases while recording"},
    {"stress", cmd_stress, "run a built-in stress workload (cpu, avx, membound, idle, burst)"},
    {"probe", cmd_probe, "list the node's power sources (RAPL, hwmon, IPMI, BMCs, VM guest): measure or estimate"},
    {"import", cmd_import, "bring a run from elsewhere (CSV, Green Metrics Tool logs, Prometheus) into a DB; --truth-into: truth into a run"},
    {"fleet", cmd_fleet, "check every node an exporter reports to Prometheus: source, version, error vs truth, gap"},
    {"serve", cmd_serve, "a second-opinion exporter: sample like record, expose /metrics for Prometheus"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: wattcal <command> [options]   (wattcal <command> --help for its options)\n"
                 "\nCan the per-pod energy numbers of a power exporter be trusted? wattcal\n"
                 "records a node's meters and processes, attributes energy as the exporter\n"
                 "does (Kepler 0.10+ reference model) and measures the attribution gap.\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof *COMMANDS; i++)
        fprintf(out, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(out, "  %-10s %s\n", "version", "print the version");
    fprintf(out, "\nexit codes: 0 ok, 1 check failed, 2 usage or environment error, "
                 "3 nothing measurable\nor no verdict (or a record/run stopped early), 4 a --truth source "
                 "delivered no reading\n");
}

/* One line for a command that is none: the nearest one when near enough to be a typo
 * (at most 2 edits), never the whole help. */
static int unknown_command(const char *cmd)
{
    const char *best = NULL;
    int best_d = 3;
    for (size_t i = 0; i < sizeof COMMANDS / sizeof *COMMANDS; i++) {
        int d = wc_cli_distance(cmd, COMMANDS[i].name);
        if (d < best_d)
            best_d = d, best = COMMANDS[i].name;
    }
    fprintf(stderr, "wattcal: unknown command '%.40s'%s%s%s (wattcal --help lists them)\n", cmd,
            best ? "; did you mean " : "", best ? best : "", best ? "?" : "");
    return WC_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return WC_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return WC_EXIT_OK;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("wattcal %s\n", WATTCAL_VERSION);
        return WC_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof *COMMANDS; i++)
        if (!strcmp(cmd, COMMANDS[i].name))
            return COMMANDS[i].run(argc - 1, argv + 1);
    return unknown_command(cmd);
}
