/*
 * cmd_import.c — `wattcal import`: a run recorded by another tool (a generic
 * CSV with a column mapping, or a Green Metrics Tool folder), or a node's
 * exporter series and ground truth held by a Prometheus server, into a new
 * run database (collector/import/: import_csv.c, import_gmt.c,
 * import_prom.c), so validate and reports work on it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/import/import.h"
#include "collector/truth/truth_file.h"
#include "common/wc_clock.h"
#include "common/wc_text.h"

enum {
    OPT_DB = 1, OPT_HOST, OPT_PROVENANCE, OPT_CSV, OPT_DELIM, OPT_TIME_COL, OPT_TIME_UNIT,
    OPT_TIME_ZONE, OPT_TIME_CLOCK, /* a CSV option: the CSV range ends at OPT_CPU_COL */
    OPT_COUNTER, OPT_ENERGY, OPT_POWER, OPT_TRUTH, OPT_UTIL, OPT_PHASE,
    OPT_HOST_COL, OPT_CPU_COL, OPT_GMT, OPT_GMT_RAPL, OPT_GMT_PSU, OPT_GMT_UTIL, OPT_GMT_PHASES,
    OPT_GMT_PSU_UNIT, OPT_GMT_CEILING, OPT_PROM, OPT_NODE, OPT_START, OPT_END, OPT_STEP,
    OPT_TRUTH_QUERY, OPT_TOKEN_FILE, OPT_USER, OPT_PASSWORD_FILE, OPT_TIMEOUT, OPT_INSECURE,
    OPT_TRUTH_INTO, OPT_TRUTH_SPEC, OPT_TRUTH_FORMAT, OPT_REPLACE_TRUTH
};

/* The run to create: either import. */
static const wc_cli_opt TARGET_OPTS[] = {
    {"db", "FILE", OPT_DB, "the run database to create (must not hold a run)"},
    {"host", "NAME", OPT_HOST,
     "host stored with the run (default: from the data,\n"
     "else \"imported\")"},
    {"provenance", "P", OPT_PROVENANCE,
     "measured (default), estimated or simulated: where\n"
     "the zone figures come from"},
    WC_CLI_OPT_END,
};

/* A generic CSV and its column mapping. */
static const wc_cli_opt CSV_OPTS[] = {
    WC_CLI_TEXT(""),
    WC_CLI_TEXT("Generic CSV: a header row, then one row per sample instant in time order;\n"
                "# comments and blank lines are ignored, cells may be \"quoted\"."),
    {"csv", "FILE", OPT_CSV, "the table to import"},
    {"delimiter", "C", OPT_DELIM, "cell separator: , (default), ; or tab"},
    {"time-col", "NAME", OPT_TIME_COL, "column holding the sample time (required)"},
    {"time-unit", "U", OPT_TIME_UNIT,
     "s, ms, us or ns (Unix epoch, decimals allowed) or\n"
     "iso (ISO 8601 with Z or +HH:MM); default s"},
    {"time-zone", "OFFSET", OPT_TIME_ZONE,
     "zone of ISO times written without one (Z, +01:00,\n"
     "-05:30); default: such times are refused"},
    {"time-clock", "C", OPT_TIME_CLOCK,
     "wall (default: Unix epoch or ISO) or monotonic\n"
     "(CLOCK_MONOTONIC, uptime: any origin, no date;\n"
     "the run then has no wall clock)"},
    {"counter-col", "NAME:ZONE:UNIT", OPT_COUNTER,
     "cumulative energy counter -> zone of kind\n"
     "counter_uj; UNIT uj, mj, j, wh or kwh (repeatable)"},
    {"energy-col", "NAME:ZONE:UNIT", OPT_ENERGY,
     "energy used since the previous row, summed into\n"
     "a counter_uj zone; same units (repeatable)"},
    {"power-col", "NAME:ZONE:UNIT", OPT_POWER,
     "power -> zone of kind gauge_uw; UNIT uw, mw, w\n"
     "or kw (repeatable)"},
    {"truth-col", "NAME:UNIT", OPT_TRUTH,
     "wall power -> a ground-truth source; UNIT uw, mw, w\n"
     "or kw; empty, 0 W or 65535 W cells are stored as\n"
     "unavailable, above 100 kW refused (repeatable)"},
    {"util-col", "NAME[:ratio|:pct]", OPT_UTIL,
     "node CPU utilisation, percent of all CPUs\n"
     "(:pct, the default) or 0..1 (:ratio); a NAME\n"
     "holding ':' needs the suffix"},
    {"phase-col", "NAME", OPT_PHASE,
     "phase label: contiguous rows with one label form one\n"
     "phase, spanning from the row before its first row\n"
     "to its last row (the first row alone spans nothing)"},
    {"host-col", "NAME", OPT_HOST_COL, "host name, from the first row"},
    {"cpu-model-col", "NAME", OPT_CPU_COL, "CPU model, from the first row"},
    WC_CLI_TEXT("  ZONE is package, core, uncore, dram, psys or another lower-case name, with\n"
                "  -N for socket N (package-1). At least one counter, energy or power column\n"
                "  is required; a column is mapped once, a zone by one energy and one power\n"
                "  column at most; header names must be unique."),
    WC_CLI_OPT_END,
};

/* A Green Metrics Tool measurement folder. */
static const wc_cli_opt GMT_OPTS[] = {
    WC_CLI_TEXT(""),
    WC_CLI_TEXT("Green Metrics Tool measurement folder (the RAPL log is required, the others\n"
                "optional; a log whose last line lacks its newline is refused as truncated):"),
    {"gmt", "DIR", OPT_GMT,
     "folder holding cpu_energy_rapl_msr_component.log,\n"
     "psu_energy_ac_mcp_machine.log,\n"
     "cpu_utilization_procfs_system.log and phases.json"},
    {"gmt-rapl", "FILE", OPT_GMT_RAPL,
     "RAPL log to use instead; its interval energies are\n"
     "summed into one counter zone per Package_N,\n"
     "DRAM_N or PSYS_N"},
    {"gmt-psu", "FILE", OPT_GMT_PSU, "MCP39F511 AC power log to use instead (- for none)"},
    {"gmt-util", "FILE", OPT_GMT_UTIL, "system utilisation log to use instead (- for none)"},
    {"gmt-phases", "FILE", OPT_GMT_PHASES, "phases.json to use instead (- for none)"},
    {"gmt-psu-unit", "U", OPT_GMT_PSU_UNIT,
     "uw (GMT since 2026-04) or cw (centiwatts, before):\n"
     "the AC log has no unit marker; default: inferred\n"
     "from the magnitudes, refused when both are plausible"},
    {"gmt-ceiling-watts", "W", OPT_GMT_CEILING,
     "RAPL intervals above W per zone (and <= 1 uJ\n"
     "underflows) are refused, never summed (default 1000)"},
    WC_CLI_OPT_END,
};

/* A Prometheus server (Thanos, Mimir, VictoriaMetrics serve the same API). */
static const wc_cli_opt PROM_OPTS[] = {
    WC_CLI_TEXT(""),
    WC_CLI_TEXT("Prometheus: the deployed exporter's own numbers for one node (Kepler's\n"
                "kepler_* series, v0.10+ and legacy names) and ground truth as PromQL:"),
    {"prometheus", "URL", OPT_PROM,
     "the HTTP API's base, http[s]://HOST:PORT[/PREFIX]\n"
     "(no user:password@ in it)"},
    {"node", "NAME", OPT_NODE,
     "the node: its node_name label (Kepler >= 0.10), or\n"
     "the instance / exported_instance of its legacy\n"
     "node series; required"},
    {"start", "T", OPT_START, "first instant: RFC 3339 or Unix seconds; required"},
    {"end", "T", OPT_END, "last instant, same forms; required"},
    {"step", "DUR", OPT_STEP,
     "between instants (default 30s; use the scrape\n"
     "interval: a shorter step repeats values)"},
    {"truth-query", "PROMQL", OPT_TRUTH_QUERY,
     "wall power in watts as one series, e.g.\n"
     "ipmi_dcmi_power_consumption_watts{instance=\"bmc:9290\"};\n"
     "a ground-truth source each (repeatable, up to 8)"},
    {"prometheus-token-file", "FILE", OPT_TOKEN_FILE,
     "bearer token: the file's first line (else the\n"
     "PROMETHEUS_TOKEN environment variable)"},
    {"prometheus-user", "NAME", OPT_USER, "basic auth user (else PROMETHEUS_USER)"},
    {"prometheus-password-file", "FILE", OPT_PASSWORD_FILE,
     "basic auth password: the file's first line (else\n"
     "PROMETHEUS_PASSWORD); secrets never go on the\n"
     "command line, and only over https or to loopback"},
    {"prometheus-timeout", "DUR", OPT_TIMEOUT, "one request's timeout (default 30s)"},
    {"insecure", NULL, OPT_INSECURE, "do not verify the server's TLS certificate"},
    WC_CLI_OPT_END,
};

/* A wall-meter log attached to a run that already exists (import_truth.c). */
static const wc_cli_opt ATTACH_OPTS[] = {
    WC_CLI_TEXT(""),
    WC_CLI_TEXT("Ground truth attached to an EXISTING run (a wall-meter log the recording\n"
                "could not import, or a corrected one); nothing else of the run is written:"),
    {"truth-into", "FILE", OPT_TRUTH_INTO, "the run to attach it to (instead of --db)"},
    {"truth", "SPEC", OPT_TRUTH_SPEC, "the log, file:PATH (the rules of record --truth file:)"},
    {"truth-format", "F", OPT_TRUTH_FORMAT,
     "csv (default), csv:OFFSET or ptd:OFFSET, as for\n"
     "record --truth-format"},
    {"replace-truth", NULL, OPT_REPLACE_TRUTH,
     "replace a source of the same spec that already holds\n"
     "samples (refused without it)"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const IMPORT_TABLES[] = {TARGET_OPTS, CSV_OPTS, GMT_OPTS, PROM_OPTS,
                                                  ATTACH_OPTS, NULL};

static const wc_cli_spec IMPORT_SPEC = {
    .name = "import",
    .usage = "wattcal import --db FILE --csv FILE --time-col NAME [column mapping...]\n"
             "       wattcal import --db FILE --gmt DIR [options]\n"
             "       wattcal import --db FILE --prometheus URL --node NAME --start T --end T\n"
             "                      [--step DUR] [--truth-query PROMQL]... [options]\n"
             "       wattcal import --truth-into RUN --truth file:PATH [--truth-format F]\n"
             "                      [--replace-truth]",
    .about =
        "Brings a run recorded by another tool into a NEW run database so that\n"
        "`wattcal validate` and reports work on it: meter series become zones\n"
        "(counters or gauges), wall power a ground-truth source, labels phases.\n"
        "There is no /proc data, so the attribution tables stay empty. Every line\n"
        "is checked before the database is created; errors name FILE:LINE:COLUMN.\n"
        "From Prometheus, the node's exporter series land as the exporter's own\n"
        "numbers (one scrape per instant of the --step grid) and each truth query\n"
        "as a ground-truth source; any error leaves no database behind.",
    .opts = IMPORT_TABLES,
    .col = 28,
    .footer =
        "exit codes: 0 imported, 2 usage error, bad input or a server error\n"
        "(nothing written), 3 fewer than 2 sample instants or an empty result\n"
        "(nothing measurable)",
};

/* Everything the command line says. */
typedef struct import_cli {
    wc_import_csv_opts csv;
    wc_import_gmt_opts gmt;
    wc_import_prom_opts prom;
    wc_import_target target;
    int iso_offset_s;
    int provenance_given;
    const char *csv_only;     /* last CSV-only option seen (for mode errors) */
    const char *gmt_only;     /* last GMT-only option seen */
    const char *prom_only;    /* last Prometheus-only option seen */
    const char *start, *end;  /* --start, --end as given */
    wc_truth_attach_opts attach; /* --truth-into */
    const char *attach_only;  /* last attach-only option seen */
    char util_col[256];
} import_cli;

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "wattcal import: invalid %s: '%s'\n", what, value);
    return WC_EXIT_USAGE;
}

static int parse_time_unit(const char *u, int64_t *ns)
{
    static const struct {
        const char *name;
        int64_t ns;
    } UNITS[] = {{"s", 1000000000LL}, {"ms", 1000000LL}, {"us", 1000LL}, {"ns", 1}, {"iso", 0}};
    for (size_t i = 0; i < sizeof UNITS / sizeof *UNITS; i++)
        if (strcmp(u, UNITS[i].name) == 0) {
            *ns = UNITS[i].ns;
            return 0;
        }
    return -EINVAL;
}

static int parse_provenance(const char *p, wc_provenance *out)
{
    if (strcmp(p, "measured") == 0)
        *out = WC_PROV_MEASURED;
    else if (strcmp(p, "estimated") == 0)
        *out = WC_PROV_ESTIMATED;
    else if (strcmp(p, "simulated") == 0)
        *out = WC_PROV_SIMULATED;
    else
        return -EINVAL;
    return 0;
}

/* --util-col NAME[:ratio|:pct]: after the last ':' only ratio or pct (a NAME
 * holding ':' is written with its suffix, "a:b:pct"). */
static int parse_util(import_cli *c, const char *arg)
{
    snprintf(c->util_col, sizeof c->util_col, "%s", arg);
    c->csv.util_scale = 1.0;
    char *colon = strrchr(c->util_col, ':');
    if (colon) {
        if (strcmp(colon + 1, "ratio") && strcmp(colon + 1, "pct"))
            return -EINVAL;
        c->csv.util_scale = colon[1] == 'r' ? 100.0 : 1.0;
        *colon = '\0';
    }
    if (!c->util_col[0] || strlen(arg) >= sizeof c->util_col)
        return -EINVAL;
    c->csv.util_col = c->util_col;
    return 0;
}

static int add_col(import_cli *c, const char *arg, wc_import_col_kind kind)
{
    wc_error err = {{0}};
    if (c->csv.ncols == WC_IMPORT_MAX_COLS) {
        fprintf(stderr, "wattcal import: at most %d mapped columns\n", WC_IMPORT_MAX_COLS);
        return WC_EXIT_USAGE;
    }
    if (wc_import_parse_col(arg, kind, &c->csv.cols[c->csv.ncols], &err)) {
        wc_cli_error("import", err.msg);
        return WC_EXIT_USAGE;
    }
    c->csv.ncols++;
    return 0;
}

/* "-" means "do not import that series". */
static const char *gmt_file_arg(const char *arg) { return strcmp(arg, "-") == 0 ? "" : arg; }

static int parse_common(import_cli *c, int opt, const char *arg)
{
    switch (opt) {
    case OPT_DB:
        if (c->target.db_path || !*arg)
            return bad("--db (one non-empty file name)", arg);
        c->target.db_path = arg;
        return 0;
    case OPT_HOST: c->target.host = arg; return 0;
    case OPT_PROVENANCE:
        c->provenance_given = 1;
        return parse_provenance(arg, &c->target.provenance)
                   ? bad("--provenance (measured, estimated or simulated)", arg)
                   : 0;
    }
    return -1;
}

static int parse_csv_opt(import_cli *c, int opt, const char *arg, const char *name)
{
    c->csv_only = name;
    switch (opt) {
    case OPT_CSV: c->csv.path = arg; return 0;
    case OPT_DELIM:
        if (strcmp(arg, ",") && strcmp(arg, ";") && strcmp(arg, "tab") && strcmp(arg, "\t"))
            return bad("--delimiter (',', ';' or tab)", arg);
        c->csv.delimiter = arg[0] == 't' ? '\t' : arg[0];
        return 0;
    case OPT_TIME_COL: c->csv.time_col = arg; return 0;
    case OPT_TIME_UNIT:
        return parse_time_unit(arg, &c->csv.time_unit_ns) ? bad("--time-unit (s, ms, us, ns or iso)", arg)
                                                          : 0;
    case OPT_TIME_CLOCK:
        if (strcmp(arg, "wall") && strcmp(arg, "monotonic"))
            return bad("--time-clock (wall or monotonic)", arg);
        c->csv.time_monotonic = !strcmp(arg, "monotonic");
        return 0;
    case OPT_TIME_ZONE:
        if (wc_parse_utc_offset(arg, &c->iso_offset_s))
            return bad("--time-zone (Z, +HH:MM or -HH:MM)", arg);
        c->csv.iso_offset_s = &c->iso_offset_s;
        return 0;
    case OPT_COUNTER: return add_col(c, arg, WC_IMPORT_COUNTER);
    case OPT_ENERGY: return add_col(c, arg, WC_IMPORT_ENERGY);
    case OPT_POWER: return add_col(c, arg, WC_IMPORT_POWER);
    case OPT_TRUTH: return add_col(c, arg, WC_IMPORT_TRUTH);
    case OPT_UTIL: return parse_util(c, arg) ? bad("--util-col (NAME, NAME:pct or NAME:ratio)", arg) : 0;
    case OPT_PHASE: c->csv.phase_col = arg; return 0;
    case OPT_HOST_COL: c->csv.host_col = arg; return 0;
    case OPT_CPU_COL: c->csv.cpu_model_col = arg; return 0;
    }
    return -1;
}

static int parse_gmt_opt(import_cli *c, int opt, const char *arg, const char *name)
{
    char *end = NULL;
    c->gmt_only = name;
    switch (opt) {
    case OPT_GMT: c->gmt.dir = arg; return 0;
    case OPT_GMT_RAPL: c->gmt.rapl_path = gmt_file_arg(arg); return 0;
    case OPT_GMT_PSU: c->gmt.psu_path = gmt_file_arg(arg); return 0;
    case OPT_GMT_UTIL: c->gmt.util_path = gmt_file_arg(arg); return 0;
    case OPT_GMT_PHASES: c->gmt.phases_path = gmt_file_arg(arg); return 0;
    case OPT_GMT_PSU_UNIT:
        if (strcmp(arg, "uw") == 0)
            c->gmt.psu_unit = WC_GMT_PSU_UW;
        else if (strcmp(arg, "cw") == 0)
            c->gmt.psu_unit = WC_GMT_PSU_CW;
        else
            return bad("--gmt-psu-unit (uw or cw)", arg);
        return 0;
    case OPT_GMT_CEILING:
        c->gmt.ceiling_watts = strtod(arg, &end);
        if (!end || *end || !isfinite(c->gmt.ceiling_watts) || c->gmt.ceiling_watts < 1)
            return bad("--gmt-ceiling-watts (a finite number of watts >= 1)", arg);
        return 0;
    }
    return -1;
}

/* --step, --prometheus-timeout: a duration of at least 1 ms. */
static int parse_ms(const char *arg, int64_t *ms)
{
    int64_t ns = 0;
    if (wc_parse_duration_ns(arg, &ns) || ns < 1000000)
        return -EINVAL;
    *ms = ns / 1000000;
    return 0;
}

static int parse_prom_opt(import_cli *c, int opt, const char *arg, const char *name)
{
    wc_import_prom_opts *p = &c->prom;
    int64_t ms = 0;
    c->prom_only = name;
    switch (opt) {
    case OPT_PROM: p->prom.url = arg; return 0;
    case OPT_NODE: p->node = arg; return 0;
    case OPT_START:
        c->start = arg;
        return wc_prom_parse_time(arg, &p->start_ms) ? bad("--start (RFC 3339 or Unix seconds)", arg)
                                                     : 0;
    case OPT_END:
        c->end = arg;
        return wc_prom_parse_time(arg, &p->end_ms) ? bad("--end (RFC 3339 or Unix seconds)", arg)
                                                   : 0;
    case OPT_STEP:
        return parse_ms(arg, &p->step_ms) ? bad("--step (a duration of at least 1ms: 15s, 1m)", arg)
                                          : 0;
    case OPT_TRUTH_QUERY:
        if (p->ntruth == WC_IMPORT_MAX_TRUTH_QUERIES)
            return bad("--truth-query (at most 8)", arg);
        p->truth_queries[p->ntruth++] = arg;
        return 0;
    case OPT_TOKEN_FILE: p->prom.token_file = arg; return 0;
    case OPT_USER: p->prom.user = arg; return 0;
    case OPT_PASSWORD_FILE: p->prom.password_file = arg; return 0;
    case OPT_TIMEOUT:
        if (parse_ms(arg, &ms))
            return bad("--prometheus-timeout (a duration of at least 1ms)", arg);
        p->prom.timeout_ns = ms * 1000000;
        return 0;
    case OPT_INSECURE: p->prom.insecure = 1; return 0;
    }
    return -1;
}

/* A Prometheus import needs its server, node and range. */
static int check_prom(const import_cli *c)
{
    if (!c->prom.prom.url || !c->prom.node || !c->start || !c->end) {
        fprintf(stderr, "wattcal import: a Prometheus import needs --prometheus URL, --node "
                        "NAME, --start T and --end T\n");
        return WC_EXIT_USAGE;
    }
    if (c->provenance_given) {
        fprintf(stderr, "wattcal import: --provenance does not apply to --prometheus: the "
                        "exporter's path labels say whether its numbers are measured\n");
        return WC_EXIT_USAGE;
    }
    return 0;
}

/* --truth-into RUN --truth file:PATH, alone. */
static int check_attach(const import_cli *c)
{
    const char *other = c->target.db_path    ? "db"
                        : c->csv_only        ? c->csv_only
                        : c->gmt_only        ? c->gmt_only
                        : c->prom_only       ? c->prom_only
                        : c->provenance_given ? "provenance"
                                             : c->target.host ? "host" : NULL;
    if (other) {
        fprintf(stderr, "wattcal import: --%s does not apply to --truth-into: a log is attached "
                        "to the run as it is\n", other);
        return WC_EXIT_USAGE;
    }
    if (!c->attach.db_path || !c->attach.spec) {
        fprintf(stderr, "wattcal import: attaching ground truth needs --truth-into RUN and "
                        "--truth file:PATH\n");
        return WC_EXIT_USAGE;
    }
    return 0;
}

/* The options of one kind may not be mixed with another's. */
static int check_mode(const import_cli *c)
{
    if (c->attach_only)
        return check_attach(c);
    const char *seen[3] = {c->csv_only, c->gmt_only, c->prom_only};
    static const char *const KIND[3] = {"CSV import", "GMT import", "Prometheus import"};
    if (!c->target.db_path) {
        fprintf(stderr, "wattcal import: --db FILE is required\n");
        return WC_EXIT_USAGE;
    }
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (seen[i] && seen[j]) {
                fprintf(stderr, "wattcal import: --%s (%s) and --%s (%s) cannot be combined: "
                                "import one source per run\n",
                        seen[i], KIND[i], seen[j], KIND[j]);
                return WC_EXIT_USAGE;
            }
    if (!seen[0] && !seen[1] && !seen[2]) {
        fprintf(stderr, "wattcal import: give --csv FILE --time-col NAME ..., --gmt DIR or "
                        "--prometheus URL --node NAME --start T --end T\n");
        return WC_EXIT_USAGE;
    }
    if (seen[2])
        return check_prom(c);
    if (seen[0] && (!c->csv.path || !c->csv.time_col)) {
        fprintf(stderr, "wattcal import: a CSV import needs --csv FILE and --time-col NAME\n");
        return WC_EXIT_USAGE;
    }
    return 0;
}

/* One option (wc_cli_handler) into the import_cli ctx; the CSV, GMT and Prometheus
 * options note their name, for check_mode. */
static int option(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    import_cli *c = ctx;
    if (opt->id >= OPT_TRUTH_INTO) {
        c->attach_only = opt->name;
        if (opt->id == OPT_TRUTH_INTO)
            c->attach.db_path = arg;
        else if (opt->id == OPT_TRUTH_SPEC)
            c->attach.spec = arg;
        else if (opt->id == OPT_TRUTH_FORMAT)
            c->attach.format = arg;
        else
            c->attach.replace = 1;
        wc_error e = {{0}};
        if (opt->id == OPT_TRUTH_FORMAT && wc_truth_file_check_format(arg, &e))
            return wc_cli_error("import", e.msg), WC_EXIT_USAGE;
        return 0;
    }
    int rc = parse_common(c, opt->id, arg);
    if (rc < 0 && opt->id >= OPT_PROM)
        rc = parse_prom_opt(c, opt->id, arg, opt->name);
    else if (rc < 0)
        rc = opt->id >= OPT_GMT && opt->id <= OPT_GMT_CEILING
                 ? parse_gmt_opt(c, opt->id, arg, opt->name)
                 : parse_csv_opt(c, opt->id, arg, opt->name);
    return rc;
}

/* Returns 0 to run, -1 after --help, or WC_EXIT_USAGE. */
static int parse(int argc, char **argv, import_cli *c)
{
    int next = 0;
    int rc = wc_cli_parse(&IMPORT_SPEC, argc, argv, option, c, &next);
    if (rc)
        return rc;
    if (next < argc) {
        fprintf(stderr, "wattcal import: unexpected argument '%s'\n", argv[next]);
        return WC_EXIT_USAGE;
    }
    return check_mode(c);
}

/* The summary's notes, one "note: " line each. */
static void print_notes(const wc_import_summary *s)
{
    const char *p = s->notes;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        char line[600];
        snprintf(line, sizeof line, "%.*s", len, p);
        fputs("note: ", stdout);
        wc_fputs_safe(line, stdout);
        fputc('\n', stdout);
        p += len + (nl ? 1 : 0);
    }
}

static void print_prom_summary(const import_cli *c, const wc_import_summary *s)
{
    char a[40], b[40], line[700];
    wc_format_wall_iso(s->first_wall_ns, a, sizeof a);
    wc_format_wall_iso(s->last_wall_ns, b, sizeof b);
    wc_textf(line, sizeof line,
             "%s: %lld instants (%s .. %s, step %.3f s) of %s: %lld series, %lld samples; "
             "%lld ground-truth source%s (%lld samples, %lld unavailable); %lld requests, "
             "%lld bytes",
             c->target.db_path, (long long)s->ticks, a, b, (double)s->interval_ns / 1e9,
             s->exporter, (long long)s->exporter_series, (long long)s->exporter_samples,
             (long long)s->truth_sources, s->truth_sources == 1 ? "" : "s",
             (long long)s->truth_samples, (long long)s->truth_unavailable,
             (long long)s->requests, (long long)s->bytes);
    wc_fputs_safe(line, stdout);
    fputc('\n', stdout);
    print_notes(s);
}

static void print_summary(const import_cli *c, const wc_import_summary *s)
{
    char a[40], b[40];
    wc_format_wall_iso(s->first_wall_ns, a, sizeof a);
    wc_format_wall_iso(s->last_wall_ns, b, sizeof b);
    if (s->monotonic) { /* no date: the clock's own seconds */
        snprintf(a, sizeof a, "monotonic %.3f s", (double)s->first_wall_ns / 1e9);
        snprintf(b, sizeof b, "%.3f s", (double)s->last_wall_ns / 1e9);
    }
    printf("%s: %lld ticks (%s .. %s, median interval %.3f s), %lld zone%s, "
           "%lld ground-truth source%s (%lld samples, %lld unavailable), "
           "%lld ticks with utilisation, %lld phase%s imported\n",
           c->target.db_path, (long long)s->ticks, a, b, (double)s->interval_ns / 1e9,
           (long long)s->zones, s->zones == 1 ? "" : "s", (long long)s->truth_sources,
           s->truth_sources == 1 ? "" : "s", (long long)s->truth_samples,
           (long long)s->truth_unavailable, (long long)s->util_ticks, (long long)s->phases,
           s->phases == 1 ? "" : "s");
    if (s->rejected_samples || s->missing_samples)
        printf("%s: zone samples without a value: %lld refused as implausible, %lld missing\n",
               c->target.db_path, (long long)s->rejected_samples, (long long)s->missing_samples);
    print_notes(s);
}

/* --truth-into: attach the log, say what was written. */
static int attach_truth(const import_cli *c)
{
    wc_truth_attach_result r;
    wc_error err = {{0}};
    int rc = wc_import_truth_into(&c->attach, &r, &err);
    if (rc) {
        wc_cli_error("import", err.msg);
        return rc == -ENODATA ? WC_EXIT_NO_DATA : WC_EXIT_USAGE;
    }
    char line[700];
    wc_textf(line, sizeof line,
             "%s: ground truth %s attached: %lld samples (%lld unavailable)%s; nothing else of "
             "the run was written",
             c->attach.db_path, c->attach.spec, (long long)r.samples, (long long)r.unavailable,
             r.replaced ? ", replacing the source of the same spec" : "");
    wc_fputs_safe(line, stdout);
    fputc('\n', stdout);
    return WC_EXIT_OK;
}

int cmd_import(int argc, char **argv)
{
    import_cli c;
    memset(&c, 0, sizeof c);
    c.csv.time_unit_ns = WC_NS_PER_S;
    c.csv.util_scale = 1.0;
    c.target.provenance = WC_PROV_MEASURED;
    c.prom.step_ms = 30000;
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc < 0 ? WC_EXIT_OK : rc;
    if (c.attach_only)
        return attach_truth(&c);
    char cmdline[512];
    wc_cli_join_argv(argc, argv, cmdline, sizeof cmdline);
    c.target.command_line = cmdline;
    wc_import_summary sum;
    wc_error err = {{0}};
    rc = c.csv_only   ? wc_import_csv(&c.csv, &c.target, &sum, &err)
         : c.gmt_only ? wc_import_gmt(&c.gmt, &c.target, &sum, &err)
                      : wc_import_prometheus(&c.prom, &c.target, &sum, &err);
    if (rc) {
        wc_cli_error("import", err.msg);
        return rc == -ENODATA ? WC_EXIT_NO_DATA : WC_EXIT_USAGE;
    }
    if (c.prom_only)
        print_prom_summary(&c, &sum);
    else
        print_summary(&c, &sum);
    return WC_EXIT_OK;
}
