/*
 * cmd_run.c — `wattcal run SCENARIO --db FILE [record options]`: replay a
 * scenario (workloads/scenario.c, workloads/runner.c) while recording.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/recorder.h"
#include "workloads/runner.h"
#include "workloads/scenario.h"

static const char RUN_HELP[] =
    "usage: wattcal run SCENARIO --db FILE [--backend wattcal|stress-ng] [record options]\n"
    "\n"
    "Replays SCENARIO (a built-in name: quick, runbook, steps, burst, or a YAML\n"
    "file, see docs/scenarios.md) in labelled phases while recording exactly as\n"
    "`wattcal record` does (all its options apply except --duration: the\n"
    "scenario sets the length). Each workload runs as child processes in its own\n"
    "process group; its phase bounds and its TRUE CPU time (wait4 rusage of the\n"
    "whole subtree, short-lived children included) are stored as known answers.\n"
    "Ctrl-C, SIGTERM or this process dying kills every workload: nothing is left\n"
    "running. A workload that crashes is recorded, not fatal.\n"
    "\n"
    "  --backend B    run every workload with B: wattcal (its own stressors) or\n"
    "                 stress-ng (must be installed); default: as each workload\n"
    "                 of the scenario says (backend:, default wattcal)\n"
    "\n"
    "exit codes: 0 replayed, 2 usage error, bad scenario or recording error\n"
    "(what was recorded is kept), 3 interrupted (what was recorded is kept)\n";

int cmd_run(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(RUN_HELP, argc < 2 ? stderr : stdout);
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
    /* --backend is ours; the remaining options are record's. */
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--backend") != 0)
            continue;
        wc_workload_backend b;
        if (i + 1 >= argc || wc_workload_backend_parse(argv[i + 1], &b) != 0) {
            fprintf(stderr, "wattcal run: --backend needs wattcal or stress-ng\n");
            wc_scenario_free(&sc);
            return WC_EXIT_USAGE;
        }
        for (int p = 0; p < sc.n_phases; p++)
            for (int w = 0; w < sc.phases[p].n_workloads; w++)
                sc.phases[p].workloads[w].backend = b;
        memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 2) * sizeof *argv);
        argc -= 2;
        i--;
    }
    wc_record_opts o;
    wc_record_defaults(&o);
    argv[1] = argv[0]; /* drop SCENARIO: the record parser sees only options */
    int rc = wc_cli_parse_record_opts(argc - 1, argv + 1, &o);
    if (rc == 0 && o.duration_ns) {
        fprintf(stderr, "wattcal run: --duration does not apply: scenario %s lasts %.0f s\n",
                sc.name, (double)wc_scenario_total_ns(&sc) / 1e9);
        rc = WC_EXIT_USAGE;
    }
    if (rc) {
        wc_scenario_free(&sc);
        return rc < 0 ? WC_EXIT_OK : rc;
    }
    o.command_line = cmdline;
    wc_cli_install_stop_handlers();
    if (!o.quiet)
        fprintf(stderr, "wattcal run: scenario %s (%s): %d phases, %.0f s\n", sc.name, sc.origin,
                sc.n_phases, (double)wc_scenario_total_ns(&sc) / 1e9);
    wc_run_result res;
    rc = wc_run_scenario(&sc, &o, &wc_cli_stop, &res, &err);
    wc_scenario_free(&sc);
    if (rc == -EINTR) {
        fprintf(stderr, "wattcal run: interrupted after %d phase repetitions; %lld ticks kept in %s\n",
                res.phases_done, (long long)res.record.ticks, o.db_path);
        return WC_EXIT_NO_DATA;
    }
    if (rc) {
        wc_cli_error("run", err.msg);
        return WC_EXIT_USAGE;
    }
    fprintf(stderr,
            "wattcal run: %d phase repetitions, %d workloads (%d crashed workers), %lld ticks in %s%s\n",
            res.phases_done, res.workloads, res.crashed, (long long)res.record.ticks, o.db_path,
            o.meter && !strcmp(o.meter, "sim") ? " — node power is SIMULATED" : "");
    return WC_EXIT_OK;
}
