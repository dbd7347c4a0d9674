/*
 * cmd_record.c — `wattcal record`: its option table (also parsed by `run`),
 * then collector/recorder.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "collector/exporter/exporter_table.h"
#include "collector/meter/meter_table.h"
#include "collector/recorder.h"
#include "collector/truth/truth_file.h"
#include "common/wc_clock.h"
#include "common/wc_text.h"

enum { OPT_DB = 1, OPT_INTERVAL, OPT_DURATION, OPT_METER, OPT_MODEL, OPT_CEILING, OPT_SIM_SEED,
       OPT_QUIET, OPT_TRUTH, OPT_TRUTH_FORMAT, OPT_TRUTH_INTERVAL, OPT_EXPORTER,
       OPT_EXPORTER_INTERVAL, OPT_EXPORTER_TIMEOUT, OPT_EXPORTER_TOKEN, OPT_KEPLER_CONFIG };

#define MAX_TRUTH 16

/* The run and how to sample it; then wc_cli_root_opts. */
static const wc_cli_opt RECORD_OPTS[] = {
    {"db", "FILE", OPT_DB, "SQLite file to create (must not already hold a run)"},
    {"interval", "DUR", OPT_INTERVAL, "sampling interval (default 1s; e.g. 500ms, 5s)"},
    {"duration", "DUR", OPT_DURATION, "stop after DUR (default: until SIGINT/SIGTERM/SIGHUP)"},
    {"meter", "NAME", OPT_METER,
     "power source; there is no silent fallback: without a\n"
     "meter the command (record, run, serve) exits 2. One of:"},
    {"model", "M", OPT_MODEL,
     "attribution model (default kepler-0.11), one of:"},
    {"kepler-config", "FILE", OPT_KEPLER_CONFIG,
     "the deployed Kepler's config.yaml: its terminated-\n"
     "workload limits shape the Kepler models, and its\n"
     "monitor.interval is the default --interval"},
    WC_CLI_OPT_END,
};

/* The meter's limits and the ground truth; then wc_cli_bmc_opts. */
static const wc_cli_opt RECORD_SOURCE_OPTS[] = {
    {"ceiling-watts", "W", OPT_CEILING,
     "counter plausibility ceiling per zone, stored with\n"
     "the run (default 5000; sim: 1.25 x its model maximum)"},
    {"sim-seed", "N", OPT_SIM_SEED, "noise seed of the simulated node (default 42)"},
    {"truth", "SPEC", OPT_TRUTH, "also record ground truth (repeatable), one of:"},
    {"truth-format", "F", OPT_TRUTH_FORMAT,
     "format of file: logs: csv (default; csv:OFFSET gives the\n"
     "zone of times written without one) or ptd:OFFSET (SPEC\n"
     "PTDaemon log in local time at OFFSET, e.g. ptd:+01:00)"},
    {"truth-interval", "DUR", OPT_TRUTH_INTERVAL,
     "how often BMCs are polled (default 1s), on their own\n"
     "threads: a slow BMC never delays the sampler"},
    WC_CLI_OPT_END,
};

/* The exporter's own numbers (collector/exporter/). */
static const wc_cli_opt RECORD_EXPORTER_OPTS[] = {
    {"exporter", "SPEC", OPT_EXPORTER,
     "also scrape a power exporter's own numbers (repeatable,\n"
     "at most 4) on its own thread, storing every scrape and\n"
     "series; --insecure applies to it too. One of:"},
    {"exporter-interval", "DUR", OPT_EXPORTER_INTERVAL,
     "how often each exporter is\n"
     "scraped (default 5s: Kepler's monitor.interval).\n"
     "Scraping faster gives no more data: Kepler measures\n"
     "once per interval, and a scrape that finds its snapshot\n"
     "older than monitor.staleness (500ms) makes it recompute\n"
     "on the spot, for all its clients. A scrape has side\n"
     "effects: Kepler exports a terminated workload once,\n"
     "then forgets it, so a second scraper takes those\n"
     "series away from Prometheus"},
    {"exporter-timeout", "DUR", OPT_EXPORTER_TIMEOUT,
     "per-scrape timeout (default:\n"
     "the interval, at most 10s)"},
    {"exporter-token-file", "FILE", OPT_EXPORTER_TOKEN,
     "bearer token for the exporter\n"
     "(first line of FILE); otherwise from the environment:\n"
     "WATTCAL_EXPORTER_TOKEN, or WATTCAL_EXPORTER_USER and\n"
     "WATTCAL_EXPORTER_PASSWORD (basic auth); a URL with\n"
     "credentials in it is refused"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt RECORD_OUTPUT_OPTS[] = {
    {"quiet", NULL, OPT_QUIET, "no progress line (for CI)"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const RECORD_TABLES[] = {
    RECORD_OPTS,          wc_cli_root_opts,   RECORD_SOURCE_OPTS, wc_cli_bmc_opts,
    RECORD_EXPORTER_OPTS, RECORD_OUTPUT_OPTS, NULL,
};

/* Choices listed from the meter, model and truth-source tables. */
static const wc_cli_choices RECORD_CHOICES[] = {
    {OPT_METER, wc_cli_list_meters},
    {OPT_MODEL, wc_cli_list_models},
    {OPT_TRUTH, wc_cli_list_truth},
    {OPT_EXPORTER, wc_cli_list_exporters},
    {0, NULL},
};

static const wc_cli_spec RECORD_SPEC = {
    .name = "record",
    .usage = "wattcal record --db FILE [options]",
    .about =
        "Samples the node's power meter, /proc/stat and every process on absolute\n"
        "monotonic deadlines, attributes energy with the chosen model and writes\n"
        "everything (raw counters included) into a new SQLite file, one transaction\n"
        "per tick. SIGINT/SIGTERM/SIGHUP finish the current tick and close the run\n"
        "cleanly (under nohup, SIGHUP is ignored and the run goes on).\n"
        "With --exporter, the deployed exporter's own /metrics are scraped beside it\n"
        "and stored as reported, so its numbers are validated, not only re-created.",
    .opts = RECORD_TABLES,
    .choices = RECORD_CHOICES,
    .col = 23,
    .footer =
        "exit codes: 0 recorded, 2 usage error, no meter, unreadable energy_uj, a DB\n"
        "that already holds a run, or a store failure (ticks already written are kept),\n"
        "3 a signal stopped a --duration run early (closed cleanly and kept), 4 a\n"
        "--truth source delivered no reading (the run is complete and kept)",
};

static int bad(const char *opt, const char *val)
{
    fprintf(stderr, "wattcal record: invalid value for %s: '%s'\n", opt, val);
    return WC_EXIT_USAGE;
}

/* "invalid value for --meter (rapl or sim): 'x'": the choices as listed. */
static int bad_choice(const char *opt, const char *choices, const char *val)
{
    fprintf(stderr, "wattcal record: invalid value for %s (%s): '%s'\n", opt, choices, val);
    return WC_EXIT_USAGE;
}

static const char *truth_specs[MAX_TRUTH];
static wc_kepler_config kepler_cfg; /* --kepler-config, read once */
static int interval_given;
static const char *exporter_specs[WC_EXPORTER_MAX];

/* What and how to sample: the run file, timing, meter, model, roots.
 * Returns 0, WC_EXIT_USAGE, or -1 when opt is not one of them. */
static int sampling_option(wc_record_opts *o, int opt, const char *arg)
{
    char *end = NULL, names[128];
    switch (opt) {
    case OPT_DB:
        if (o->db_path)
            return bad("--db (given twice)", arg);
        if (!*arg)
            return bad("--db (an empty file name)", arg);
        o->db_path = arg;
        return 0;
    case OPT_INTERVAL:
        if (wc_parse_duration_ns(arg, &o->interval_ns) || o->interval_ns < 1000000)
            return bad("--interval (at least 1ms)", arg);
        interval_given = 1;
        return 0;
    case OPT_KEPLER_CONFIG: {
        wc_error e = {{0}};
        if (wc_kepler_config_load(arg, &kepler_cfg, &e)) {
            fprintf(stderr, "wattcal record: --kepler-config: %s\n", e.msg);
            return WC_EXIT_USAGE;
        }
        o->kepler = &kepler_cfg;
        return 0;
    }
    case OPT_DURATION:
        if (wc_parse_duration_ns(arg, &o->duration_ns) || o->duration_ns <= 0)
            return bad("--duration (a positive duration)", arg);
        return 0;
    case OPT_METER:
        if (!wc_meter_find(arg))
            return bad_choice("--meter", wc_meter_names(names, sizeof names), arg);
        o->meter = arg;
        return 0;
    case OPT_MODEL:
        if (wc_model_parse(arg, &o->model))
            return bad_choice("--model", wc_cli_model_names(names, sizeof names), arg);
        return 0;
    case WC_CLI_OPT_PROCFS_ROOT: o->procfs_root = arg; return 0;
    case WC_CLI_OPT_SYSFS_ROOT: o->sysfs_root = arg; return 0;
    case OPT_CEILING:
        o->ceiling_watts = strtod(arg, &end);
        if (!end || *end || !isfinite(o->ceiling_watts) || o->ceiling_watts < 1)
            return bad("--ceiling-watts (a finite number of watts >= 1)", arg);
        return 0;
    case OPT_SIM_SEED:
        errno = 0;
        o->sim.seed = strtoull(arg, &end, 10);
        if (!end || *end || arg[0] == '-' || !arg[0] || errno == ERANGE)
            return bad("--sim-seed (a non-negative integer below 2^64)", arg);
        return 0;
    case OPT_QUIET: o->quiet = 1; return 0;
    }
    return -1;
}

/* The ground-truth sources and how they are polled. Returns 0,
 * WC_EXIT_USAGE, or -1 when opt is not one of them. */
static int truth_option(wc_record_opts *o, int opt, const char *arg)
{
    wc_error fe = {{0}};
    switch (opt) {
    case OPT_TRUTH:
        if (o->ntruth == MAX_TRUTH || !*arg)
            return bad("--truth (at most 16, non-empty)", arg);
        truth_specs[o->ntruth++] = arg;
        o->truth_specs = truth_specs;
        return 0;
    case OPT_TRUTH_FORMAT:
        if (wc_truth_file_check_format(arg, &fe)) {
            fprintf(stderr, "wattcal record: --truth-format: %s\n", fe.msg);
            return WC_EXIT_USAGE;
        }
        o->truth.truth_format = arg;
        return 0;
    case OPT_TRUTH_INTERVAL:
        if (wc_parse_duration_ns(arg, &o->truth.poll_interval_ns) ||
            o->truth.poll_interval_ns < 10000000)
            return bad("--truth-interval (at least 10ms)", arg);
        return 0;
    case WC_CLI_OPT_TRUTH_TIMEOUT:
        if (wc_parse_duration_ns(arg, &o->truth.timeout_ns) || o->truth.timeout_ns < 1000000)
            return bad("--truth-timeout (at least 1ms)", arg);
        if (o->truth.connect_timeout_ns > o->truth.timeout_ns)
            o->truth.connect_timeout_ns = o->truth.timeout_ns;
        return 0;
    case WC_CLI_OPT_TRUTH_PWFILE: o->truth.password_file = arg; return 0;
    case WC_CLI_OPT_INSECURE: o->truth.insecure = o->exporter.insecure = 1; return 0;
    }
    return -1;
}

/* The exporters and how they are scraped. Returns 0 or WC_EXIT_USAGE. */
static int exporter_option(wc_record_opts *o, int opt, const char *arg)
{
    wc_error e = {{0}};
    switch (opt) {
    case OPT_EXPORTER:
        if (wc_exporter_check_spec(arg, &e)) {
            wc_cli_error("record", e.msg); /* never echoes credentials */
            return WC_EXIT_USAGE;
        }
        if (o->nexporter == WC_EXPORTER_MAX)
            return bad("--exporter (at most 4)", arg);
        exporter_specs[o->nexporter++] = arg;
        o->exporter_specs = exporter_specs;
        return 0;
    case OPT_EXPORTER_INTERVAL:
        if (wc_parse_duration_ns(arg, &o->exporter.interval_ns) ||
            o->exporter.interval_ns < 100000000)
            return bad("--exporter-interval (at least 100ms)", arg);
        return 0;
    case OPT_EXPORTER_TIMEOUT:
        if (wc_parse_duration_ns(arg, &o->exporter.timeout_ns) || o->exporter.timeout_ns < 10000000)
            return bad("--exporter-timeout (at least 10ms)", arg);
        return 0;
    case OPT_EXPORTER_TOKEN: o->exporter.token_file = arg; return 0;
    }
    return WC_EXIT_USAGE;
}

/* One option (wc_cli_handler) into the wc_record_opts ctx. */
static int option(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    int rc = sampling_option(ctx, opt->id, arg);
    if (rc < 0)
        rc = truth_option(ctx, opt->id, arg);
    return rc < 0 ? exporter_option(ctx, opt->id, arg) : rc;
}

/* --kepler-config without --interval: record at the deployment's
 * monitor.interval; one Kepler cannot refresh (0: only on scrapes, or below
 * 1 ms) is refused. With --interval below monitor.staleness, Kepler could not
 * refresh that often: said. */
static int kepler_interval(wc_record_opts *o)
{
    const wc_kepler_config *k = &kepler_cfg;
    if (!interval_given && k->interval_ns < 1000000) {
        fprintf(stderr, "wattcal record: --kepler-config: monitor.interval is %lld ns (0: Kepler "
                        "refreshes only when scraped; a bare integer is nanoseconds): give "
                        "--interval\n", (long long)k->interval_ns);
        return WC_EXIT_USAGE;
    }
    if (!interval_given)
        o->interval_ns = k->interval_ns;
    if (o->interval_ns < k->staleness_ns)
        fprintf(stderr, "wattcal record: warning: --interval %.3f s is below the deployment's "
                        "monitor.staleness %.3f s: Kepler never refreshes that often\n",
                (double)o->interval_ns / 1e9, (double)k->staleness_ns / 1e9);
    return 0;
}

/* A credential file that is named must be a readable regular file, whatever
 * source uses it (ipmi:local uses none: naming one is still checked). 0 or
 * WC_EXIT_USAGE. */
static int readable_file(const char *opt, const char *file)
{
    if (!file)
        return 0;
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat sb;
    int e = fd < 0 ? errno : fstat(fd, &sb) != 0 ? errno : S_ISREG(sb.st_mode) ? 0 : -1;
    if (fd >= 0)
        close(fd);
    if (!e)
        return 0;
    fprintf(stderr, "wattcal record: %s %s: %s\n", opt, file,
            e < 0 ? "not a regular file" : strerror(e));
    return WC_EXIT_USAGE;
}

int wc_cli_parse_record_opts(int argc, char **argv, wc_record_opts *o)
{
    int next = 0;
    int rc = wc_cli_parse(&RECORD_SPEC, argc, argv, option, o, &next);
    if (rc)
        return rc;
    if (next < argc) {
        fprintf(stderr, "wattcal record: unexpected argument '%s'\n", argv[next]);
        return WC_EXIT_USAGE;
    }
    if (!o->db_path) {
        fprintf(stderr, "wattcal record: --db FILE is required\n");
        return WC_EXIT_USAGE;
    }
    rc = readable_file("--truth-password-file", o->truth.password_file);
    if (rc)
        return rc;
    return o->kepler ? kepler_interval(o) : 0;
}

void wc_cli_exporter_counts(const wc_record_opts *o, const wc_record_result *res, char *buf,
                            size_t cap)
{
    buf[0] = '\0';
    if (!o->nexporter)
        return;
    size_t used = 0;
    wc_append(buf, cap, &used, "; exporter scrapes %lld ok, %lld failed",
              (long long)res->exporter_ok, (long long)res->exporter_failed);
    if (res->exporter_cancelled)
        wc_append(buf, cap, &used, ", %lld cancelled by the run's end", (long long)res->exporter_cancelled);
    if (res->exporter_dropped)
        wc_append(buf, cap, &used, ", %lld dropped (the sampler fell behind)",
                  (long long)res->exporter_dropped);
    if (res->exporter_samples_dropped)
        wc_append(buf, cap, &used, "; %lld samples not stored (the write queue was full)",
                  (long long)res->exporter_samples_dropped);
}

/* The closing line (always when something went wrong, else unless --quiet),
 * then one line per ground-truth source (cli_record_notes.c). Returns the
 * exit code: WC_EXIT_NO_DATA when a signal stopped a --duration run early,
 * else WC_EXIT_NO_TRUTH when a --truth source delivered no reading, else 0. */
static int summary(const wc_record_opts *o, const wc_record_result *res, int64_t elapsed_ns)
{
    char scrapes[160];
    wc_cli_exporter_counts(o, res, scrapes, sizeof scrapes);
    int interrupted = wc_cli_stop && o->duration_ns > 0 && elapsed_ns < o->duration_ns;
    if (!o->quiet || interrupted || res->missed_deadlines || res->scan_errors ||
        res->meter_errors || res->exporter_failed || res->exporter_samples_dropped)
        fprintf(stderr,
                "wattcal record: %lld ticks written to %s (%s model; missed deadlines %lld, "
                "process read errors %lld, zone read errors %lld; ground-truth samples %lld,"
                " of which error/unavailable %lld%s)%s\n",
                (long long)res->ticks, o->db_path, wc_model_name(o->model),
                (long long)res->missed_deadlines, (long long)res->scan_errors,
                (long long)res->meter_errors, (long long)res->truth_samples,
                (long long)res->truth_errors, scrapes,
                res->meter_provenance == WC_PROV_SIMULATED ? " — node power is SIMULATED" : "");
    wc_cli_exporter_interval_note("record", o);
    int no_truth = wc_cli_truth_status("record", o);
    if (interrupted) {
        fprintf(stderr, "wattcal record: interrupted after %.1f s of the %.1f s asked for; the "
                        "run is closed cleanly and kept (exit %d)\n",
                (double)elapsed_ns / 1e9, (double)o->duration_ns / 1e9, WC_EXIT_NO_DATA);
        return WC_EXIT_NO_DATA;
    }
    return no_truth ? WC_EXIT_NO_TRUTH : WC_EXIT_OK;
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
    wc_cli_interval_warning("record", &o);
    wc_record_result res;
    wc_error err = {{0}};
    int64_t t0 = wc_mono_ns();
    rc = wc_record(&o, &wc_cli_stop, &res, &err);
    if (rc) {
        wc_cli_error("record", err.msg);
        if (res.ticks > 0)
            fprintf(stderr, "wattcal record: %lld ticks recorded before the error are kept in %s\n",
                    (long long)res.ticks, o.db_path);
        return WC_EXIT_USAGE;
    }
    return summary(&o, &res, wc_mono_ns() - t0);
}

/* record's option tables, choices and handler, for `serve` (cli.h). */
const wc_cli_opt *const *const wc_cli_record_tables = RECORD_TABLES;
const wc_cli_choices *const wc_cli_record_choices = RECORD_CHOICES;

int wc_cli_record_option(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    return option(ctx, opt, arg);
}
