/*
 * cmd_run.c — `wattcal run SCENARIO --db FILE [record options]`: replay a
 * scenario (workloads/scenario.c, workloads/runner.c) while recording. Its
 * own option (--backend) and record's (cmd_record.c's tables,
 * wc_cli_record_option) are parsed together, so a misspelt one of either
 * gets the one-line "did you mean".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/recorder.h"
#include "workloads/runner.h"
#include "workloads/scenario.h"

enum { OPT_BACKEND = 3100 }; /* apart from record's option ids */

/* run's own option; the others are record's (wc_cli_parse_record_opts). */
static const wc_cli_opt RUN_OPTS[] = {
    {"backend", "B", OPT_BACKEND,
     "run every workload with B: wattcal (its own stressors) or\n"
     "stress-ng (must be installed); default: as each workload\n"
     "of the scenario says (backend:, default wattcal)"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const RUN_TABLES[] = {RUN_OPTS, NULL};

static const wc_cli_spec RUN_SPEC = {
    .name = "run",
    .usage = "wattcal run SCENARIO --db FILE [--backend wattcal|stress-ng] [record options]",
    .about =
        "Replays SCENARIO (a built-in name: quick, runbook, steps, burst, or a YAML\n"
        "file, see docs/scenarios.md) in labelled phases while recording exactly as\n"
        "`wattcal record` does (all its options apply except --duration: the\n"
        "scenario sets the length). Each workload runs as child processes in its own\n"
        "process group; its phase bounds and its TRUE CPU time (wait4 rusage of the\n"
        "whole subtree, short-lived children included) are stored as known answers.\n"
        "Ctrl-C, SIGTERM or this process dying kills every workload: nothing is left\n"
        "running. A workload that crashes is recorded, not fatal.",
    .opts = RUN_TABLES,
    .col = 17,
    .footer =
        "exit codes: 0 replayed, 2 usage error, bad scenario or recording error\n"
        "(what was recorded is kept), 3 interrupted by SIGINT, SIGTERM or SIGHUP (the\n"
        "run is closed cleanly and kept), 4 a --truth source delivered no reading",
};

/* What run's parse fills: the scenario (--backend) and record's options. */
typedef struct run_cli {
    wc_scenario *sc;
    wc_record_opts *o;
} run_cli;

/* One option (wc_cli_handler): --backend applies B to every workload of the
 * scenario; the others are record's (wc_cli_record_option). */
static int option(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    run_cli *c = ctx;
    if (opt->id != OPT_BACKEND)
        return wc_cli_record_option(c->o, opt, arg);
    wc_workload_backend b;
    if (wc_workload_backend_parse(arg, &b) != 0) {
        fprintf(stderr, "wattcal run: --backend needs wattcal or stress-ng\n");
        return WC_EXIT_USAGE;
    }
    for (int p = 0; p < c->sc->n_phases; p++)
        for (int w = 0; w < c->sc->phases[p].n_workloads; w++)
            c->sc->phases[p].workloads[w].backend = b;
    return 0;
}

/* The options of argv[2..] (after SCENARIO) against record's tables and
 * run's own in one parse, so an unknown or misspelt one (--backen) gets the
 * one-line "did you mean" among all of them; --duration is refused: the
 * scenario sets the length. Returns 0, -1 after --help, or WC_EXIT_USAGE. */
static int parse_record(int argc, char **argv, wc_scenario *sc, wc_record_opts *o)
{
    static const wc_cli_opt *tables[16];
    size_t n = 0;
    for (const wc_cli_opt *const *t = wc_cli_record_tables; *t && n < 14; t++)
        tables[n++] = *t;
    tables[n++] = RUN_OPTS;
    tables[n] = NULL;
    wc_cli_spec spec = RUN_SPEC;
    spec.opts = tables;
    spec.choices = wc_cli_record_choices;
    wc_record_defaults(o);
    argv[1] = argv[0]; /* drop SCENARIO: the parser sees only options */
    run_cli c = {sc, o};
    int next = 0;
    int rc = wc_cli_parse(&spec, argc - 1, argv + 1, option, &c, &next);
    if (rc)
        return rc;
    if (next < argc - 1) {
        fprintf(stderr, "wattcal run: unexpected argument '%s'\n", argv[1 + next]);
        return WC_EXIT_USAGE;
    }
    if (!o->db_path) {
        fprintf(stderr, "wattcal run: --db FILE is required\n");
        return WC_EXIT_USAGE;
    }
    if (o->duration_ns) {
        fprintf(stderr, "wattcal run: --duration does not apply: scenario %s lasts %.0f s\n",
                sc->name, (double)wc_scenario_total_ns(sc) / 1e9);
        return WC_EXIT_USAGE;
    }
    return 0;
}

/* Replays sc while recording with o; returns the exit code. */
static int replay(wc_scenario *sc, wc_record_opts *o)
{
    wc_error err = {{0}};
    wc_cli_install_stop_handlers();
    if (!o->quiet)
        fprintf(stderr, "wattcal run: scenario %s (%s): %d phases, %.0f s\n", sc->name, sc->origin,
                sc->n_phases, (double)wc_scenario_total_ns(sc) / 1e9);
    wc_cli_interval_warning("run", o);
    wc_run_result res;
    int rc = wc_run_scenario(sc, o, &wc_cli_stop, &res, &err);
    if (rc == -EINTR) {
        wc_cli_truth_status("run", o);
        fprintf(stderr, "wattcal run: interrupted after %d phase repetitions; the run is closed "
                        "cleanly and its %lld ticks kept in %s (exit %d)\n",
                res.phases_done, (long long)res.record.ticks, o->db_path, WC_EXIT_NO_DATA);
        return WC_EXIT_NO_DATA;
    }
    if (rc) {
        wc_cli_error("run", err.msg);
        return WC_EXIT_USAGE;
    }
    char scrapes[160];
    wc_cli_exporter_counts(o, &res.record, scrapes, sizeof scrapes);
    fprintf(stderr,
            "wattcal run: %d phase repetitions, %d workloads (%d crashed workers), %lld ticks in %s%s%s\n",
            res.phases_done, res.workloads, res.crashed, (long long)res.record.ticks, o->db_path,
            scrapes, res.record.meter_provenance == WC_PROV_SIMULATED ? " — node power is SIMULATED" : "");
    wc_cli_exporter_interval_note("run", o);
    return wc_cli_truth_status("run", o) ? WC_EXIT_NO_TRUTH : WC_EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        wc_cli_help(&RUN_SPEC, argc < 2 ? stderr : stdout);
        return argc < 2 ? WC_EXIT_USAGE : WC_EXIT_OK;
    }
    const char *name = argv[1];
    char cmdline[512]; /* as typed, before the options below are taken out */
    wc_cli_join_argv(argc, argv, cmdline, sizeof cmdline);
    wc_error err = {{0}};
    wc_scenario sc;
    if (wc_scenario_load(name, &sc, &err)) {
        wc_cli_error("run", err.msg);
        return WC_EXIT_USAGE;
    }
    wc_record_opts o;
    int rc = parse_record(argc, argv, &sc, &o);
    if (rc == 0) {
        o.command_line = cmdline;
        rc = replay(&sc, &o);
    } else if (rc < 0) {
        rc = WC_EXIT_OK; /* --help */
    }
    wc_scenario_free(&sc);
    return rc;
}
