/*
 * cmd_record.c — `wattcal record`: parse options, run collector/recorder.c.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/recorder.h"
#include "collector/truth/truth_file.h"
#include "common/wc_clock.h"

static const char RECORD_HELP[] =
    "usage: wattcal record --db FILE [options]\n"
    "\n"
    "Samples the node's power meter, /proc/stat and every process on absolute\n"
    "monotonic deadlines, attributes energy with the chosen model and writes\n"
    "everything (raw counters included) into a new SQLite file, one transaction\n"
    "per tick. SIGINT/SIGTERM finish the current tick and close the run cleanly.\n"
    "\n"
    "  --db FILE            SQLite file to create (must not already hold a run)\n"
    "  --interval DUR       sampling interval (default 1s; e.g. 500ms, 5s)\n"
    "  --duration DUR       stop after DUR (default: until SIGINT/SIGTERM)\n"
    "  --meter rapl|sim     power source: rapl (powercap, the default) or sim, a\n"
    "                       SIMULATED node for machines without a meter; there is\n"
    "                       no silent fallback: without a meter record exits 2\n"
    "  --model M            attribution model: kepler-0.11 (default, released\n"
    "                       ordering), kepler-head (aligned ordering) or ideal\n"
    "  --procfs-root DIR    read /proc from DIR (default /proc; e.g. /host/proc)\n"
    "  --sysfs-root DIR     read /sys from DIR (default /sys; e.g. /host/sys)\n"
    "  --ceiling-watts W    counter plausibility ceiling per zone (default 5000)\n"
    "  --sim-seed N         noise seed of the simulated node (default 42)\n"
    "  --truth SPEC         also record ground truth (repeatable): ipmi:local,\n"
    "                       ipmi:lanplus://HOST[:PORT], redfish:https://HOST[:PORT],\n"
    "                       sim (a SIMULATED BMC over the node's zones; parameters as\n"
    "                       sim:lag=2,window=10,period=5,eff=0.92,base=40,quant=1,\n"
    "                       noise=0.5,seed=7), or file:PATH (a wall-meter log imported\n"
    "                       after the run, aligned by wall clock)\n"
    "  --truth-format F     format of file: logs: csv (default; csv:OFFSET gives the\n"
    "                       zone of times written without one) or ptd:OFFSET (SPEC\n"
    "                       PTDaemon log in local time at OFFSET, e.g. ptd:+01:00)\n"
    "  --truth-interval DUR how often BMCs are polled (default 1s), on their own\n"
    "                       threads: a slow BMC never delays the sampler\n"
    "  --truth-timeout DUR  per-poll timeout for ipmitool and HTTP (default 10s)\n"
    "  --truth-password-file FILE  BMC password file; otherwise IPMI_PASSWORD or\n"
    "                       REDFISH_PASSWORD from the environment (users: IPMI_USER,\n"
    "                       REDFISH_USER); credentials are never taken from argv\n"
    "  --insecure           do not verify the BMC's TLS certificate (Redfish)\n"
    "  --quiet              no progress line (for CI)\n"
    "\n"
    "exit codes: 0 recorded, 2 usage error, no meter, unreadable energy_uj, a DB\n"
    "that already holds a run, or a store failure (ticks already written are kept)\n";

enum { OPT_DB = 1000, OPT_INTERVAL, OPT_DURATION, OPT_METER, OPT_MODEL, OPT_PROCFS, OPT_SYSFS,
       OPT_CEILING, OPT_SIM_SEED, OPT_QUIET, OPT_HELP, OPT_TRUTH, OPT_TRUTH_FORMAT,
       OPT_TRUTH_INTERVAL, OPT_TRUTH_TIMEOUT, OPT_TRUTH_PWFILE, OPT_INSECURE };

#define MAX_TRUTH 16

static const struct option RECORD_OPTS[] = {
    {"db", required_argument, NULL, OPT_DB},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"meter", required_argument, NULL, OPT_METER},
    {"model", required_argument, NULL, OPT_MODEL},
    {"procfs-root", required_argument, NULL, OPT_PROCFS},
    {"sysfs-root", required_argument, NULL, OPT_SYSFS},
    {"ceiling-watts", required_argument, NULL, OPT_CEILING},
    {"sim-seed", required_argument, NULL, OPT_SIM_SEED},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"truth", required_argument, NULL, OPT_TRUTH},
    {"truth-format", required_argument, NULL, OPT_TRUTH_FORMAT},
    {"truth-interval", required_argument, NULL, OPT_TRUTH_INTERVAL},
    {"truth-timeout", required_argument, NULL, OPT_TRUTH_TIMEOUT},
    {"truth-password-file", required_argument, NULL, OPT_TRUTH_PWFILE},
    {"insecure", no_argument, NULL, OPT_INSECURE},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static int bad(const char *opt, const char *val)
{
    fprintf(stderr, "wattcal record: invalid value for %s: '%s'\n", opt, val);
    return WC_EXIT_USAGE;
}

static const char *truth_specs[MAX_TRUTH];

int wc_cli_parse_record_opts(int argc, char **argv, wc_record_opts *o)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", RECORD_OPTS, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case OPT_DB:
            if (o->db_path)
                return bad("--db (given twice)", optarg);
            if (!*optarg)
                return bad("--db (an empty file name)", optarg);
            o->db_path = optarg;
            break;
        case OPT_INTERVAL:
            if (wc_parse_duration_ns(optarg, &o->interval_ns) || o->interval_ns < 1000000)
                return bad("--interval (at least 1ms)", optarg);
            break;
        case OPT_DURATION:
            if (wc_parse_duration_ns(optarg, &o->duration_ns) || o->duration_ns <= 0)
                return bad("--duration (a positive duration)", optarg);
            break;
        case OPT_METER:
            if (strcmp(optarg, "rapl") && strcmp(optarg, "sim"))
                return bad("--meter (rapl or sim)", optarg);
            o->meter = optarg;
            break;
        case OPT_MODEL:
            if (wc_model_parse(optarg, &o->model))
                return bad("--model (kepler-0.11, kepler-head or ideal)", optarg);
            break;
        case OPT_PROCFS: o->procfs_root = optarg; break;
        case OPT_SYSFS: o->sysfs_root = optarg; break;
        case OPT_CEILING:
            o->ceiling_watts = strtod(optarg, &end);
            if (!end || *end || !isfinite(o->ceiling_watts) || o->ceiling_watts < 1)
                return bad("--ceiling-watts (a finite number of watts >= 1)", optarg);
            break;
        case OPT_SIM_SEED:
            o->sim.seed = strtoull(optarg, &end, 10);
            if (!end || *end || optarg[0] == '-' || !optarg[0])
                return bad("--sim-seed (a non-negative integer)", optarg);
            break;
        case OPT_QUIET: o->quiet = 1; break;
        case OPT_TRUTH:
            if (o->ntruth == MAX_TRUTH || !*optarg)
                return bad("--truth (at most 16, non-empty)", optarg);
            truth_specs[o->ntruth++] = optarg;
            o->truth_specs = truth_specs;
            break;
        case OPT_TRUTH_FORMAT: {
            wc_error fe = {{0}};
            if (wc_truth_file_check_format(optarg, &fe)) {
                fprintf(stderr, "wattcal record: --truth-format: %s\n", fe.msg);
                return WC_EXIT_USAGE;
            }
            o->truth.truth_format = optarg;
            break;
        }
        case OPT_TRUTH_INTERVAL:
            if (wc_parse_duration_ns(optarg, &o->truth.poll_interval_ns) ||
                o->truth.poll_interval_ns < 10000000)
                return bad("--truth-interval (at least 10ms)", optarg);
            break;
        case OPT_TRUTH_TIMEOUT:
            if (wc_parse_duration_ns(optarg, &o->truth.timeout_ns) || o->truth.timeout_ns < 1000000)
                return bad("--truth-timeout (at least 1ms)", optarg);
            if (o->truth.connect_timeout_ns > o->truth.timeout_ns)
                o->truth.connect_timeout_ns = o->truth.timeout_ns;
            break;
        case OPT_TRUTH_PWFILE: o->truth.password_file = optarg; break;
        case OPT_INSECURE: o->truth.insecure = 1; break;
        case OPT_HELP: fputs(RECORD_HELP, stdout); return -1;
        default: fputs(RECORD_HELP, stderr); return WC_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "wattcal record: unexpected argument '%s'\n", argv[optind]);
        return WC_EXIT_USAGE;
    }
    if (!o->db_path) {
        fprintf(stderr, "wattcal record: --db FILE is required\n");
        return WC_EXIT_USAGE;
    }
    return 0;
}

int cmd_record(int argc, char **argv)
{
    wc_record_opts o;
    wc_record_defaults(&o);
    int rc = wc_cli_parse_record_opts(argc, argv, &o);
    if (rc)
        return rc < 0 ? WC_EXIT_OK : rc;
    char cmdline[512];
    wc_cli_join_argv(argc, argv, cmdline, sizeof cmdline);
    o.command_line = cmdline;
    wc_cli_install_stop_handlers();
    wc_record_result res;
    wc_error err = {{0}};
    rc = wc_record(&o, &wc_cli_stop, &res, &err);
    if (rc) {
        wc_cli_error("record", err.msg);
        if (res.ticks > 0)
            fprintf(stderr, "wattcal record: %lld ticks recorded before the error are kept in %s\n",
                    (long long)res.ticks, o.db_path);
        return WC_EXIT_USAGE;
    }
    if (!o.quiet || res.missed_deadlines || res.scan_errors || res.meter_errors)
        fprintf(stderr,
                "wattcal record: %lld ticks written to %s (%s model; missed deadlines %lld, "
                "process read errors %lld, zone read errors %lld; ground-truth samples %lld,"
                " of which error/unavailable %lld)%s\n",
                (long long)res.ticks, o.db_path, wc_model_name(o.model),
                (long long)res.missed_deadlines, (long long)res.scan_errors,
                (long long)res.meter_errors, (long long)res.truth_samples,
                (long long)res.truth_errors,
                o.meter && !strcmp(o.meter, "sim") ? " — node power is SIMULATED" : "");
    return WC_EXIT_OK;
}
