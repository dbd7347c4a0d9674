/*
 * cmd_probe.c — `wattcal probe`: parse options, run collector/probe.c, print
 * its table or JSON (probe_print.c), and exit 0 when the node has a hardware meter, 1 when
 * not (runbook step 2), 2 on a usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/probe_print.h"
#include "common/wc_clock.h"
#include "collector/probe.h"

enum { OPT_TRUTH = 1, OPT_JSON };

/* After wc_cli_root_opts: the sources to poll, then wc_cli_bmc_opts. */
static const wc_cli_opt PROBE_TRUTH_OPTS[] = {
    {"truth", "SPEC", OPT_TRUTH,
     "a ground-truth source to open and poll once (repeatable;\n"
     "file:PATH is only listed: a log is imported after the\n"
     "run), one of:"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt PROBE_OUTPUT_OPTS[] = {
    {"json", NULL, OPT_JSON, "print JSON instead of the table"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const PROBE_TABLES[] = {
    wc_cli_root_opts, PROBE_TRUTH_OPTS, wc_cli_bmc_opts, PROBE_OUTPUT_OPTS, NULL,
};

/* The --truth choices, listed from the truth-source table. */
static const wc_cli_choices PROBE_CHOICES[] = {
    {OPT_TRUTH, wc_cli_list_truth},
    {0, NULL},
};

static const wc_cli_spec PROBE_SPEC = {
    .name = "probe",
    .usage = "wattcal probe [--procfs-root DIR] [--sysfs-root DIR] [--truth SPEC]... [--json]",
    .about =
        "Lists the power sources of this node and what they mean for an exporter's\n"
        "numbers: RAPL zones per socket (each read once), hwmon power/energy sensors\n"
        "as Kepler finds them, in-band IPMI (/dev/ipmi0, /dev/ipmi/0, /dev/ipmidev/0,\n"
        "ipmitool on PATH), each --truth source opened and polled once, and whether\n"
        "this is a VM guest (DMI vendor, cpuinfo hypervisor flag). Then: the source\n"
        "wattcal would use, whether an exporter here would measure or estimate, and\n"
        "whether measured node power is available. Nothing is written.",
    .opts = PROBE_TABLES,
    .choices = PROBE_CHOICES,
    .col = 23,
    .footer =
        "exit codes: 0 a hardware meter exists (RAPL zones or an hwmon power/energy\n"
        "sensor), 1 none (an exporter here would estimate or fail at init), 2 usage\n"
        "error",
};

/* Parsed command line; truth points into argv. */
typedef struct probe_cli {
    wc_probe_opts opts;
    const char **truth;
    int json;
    wc_truth_config truth_cfg;   /* timeout, password file, --insecure */
} probe_cli;

/* Prints "wattcal probe: <message>" to stderr; returns WC_EXIT_USAGE. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "wattcal probe: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return WC_EXIT_USAGE;
}

/* Sets a root option once; an empty or repeated value is a usage error. */
static int set_root(const char **slot, const char *opt, const char *val)
{
    if (*slot)
        return usage_error("%s given twice", opt);
    if (!*val)
        return usage_error("%s needs a directory, not an empty string", opt);
    *slot = val;
    return 0;
}

/* One option (wc_cli_handler) into the probe_cli ctx. */
static int option(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    probe_cli *c = ctx;
    switch (opt->id) {
    case WC_CLI_OPT_PROCFS_ROOT: return set_root(&c->opts.procfs_root, "--procfs-root", arg);
    case WC_CLI_OPT_SYSFS_ROOT: return set_root(&c->opts.sysfs_root, "--sysfs-root", arg);
    case OPT_TRUTH:
        if (!*arg)
            return usage_error("%s needs a SPEC (e.g. ipmi:local)", "--truth");
        c->truth[c->opts.ntruth++] = arg;
        return 0;
    case OPT_JSON: c->json = 1; return 0;
    case WC_CLI_OPT_TRUTH_TIMEOUT:
        if (wc_parse_duration_ns(arg, &c->truth_cfg.timeout_ns) ||
            c->truth_cfg.timeout_ns < 1000000)
            return usage_error("--truth-timeout: invalid duration '%s'", arg);
        if (c->truth_cfg.connect_timeout_ns > c->truth_cfg.timeout_ns)
            c->truth_cfg.connect_timeout_ns = c->truth_cfg.timeout_ns;
        return 0;
    case WC_CLI_OPT_TRUTH_PWFILE: c->truth_cfg.password_file = arg; return 0;
    case WC_CLI_OPT_INSECURE: c->truth_cfg.insecure = 1; return 0;
    }
    return WC_EXIT_USAGE;
}

/* Returns 0 to run, -1 after --help, or WC_EXIT_USAGE. */
static int parse(int argc, char **argv, probe_cli *c)
{
    int next = 0;
    int rc = wc_cli_parse(&PROBE_SPEC, argc, argv, option, c, &next);
    if (rc == 0 && next < argc)
        return usage_error("unexpected argument '%s'", argv[next]);
    return rc;
}

/* Prints the report; returns the probe's exit code, or 2 if JSON failed. */
static int report(const wc_probe *p, int json)
{
    if (!json) {
        wc_probe_print(p, stdout);
        return wc_probe_exit_code(p);
    }
    char *text = wc_probe_json(p);
    if (!text) {
        fprintf(stderr, "wattcal probe: out of memory building JSON\n");
        return WC_EXIT_USAGE;
    }
    printf("%s\n", text);
    free(text);
    return wc_probe_exit_code(p);
}

int cmd_probe(int argc, char **argv)
{
    probe_cli c;
    memset(&c, 0, sizeof c);
    wc_truth_config_defaults(&c.truth_cfg);
    c.truth = calloc((size_t)(argc > 0 ? argc : 1), sizeof *c.truth);
    if (!c.truth) {
        fprintf(stderr, "wattcal probe: out of memory\n");
        return WC_EXIT_USAGE;
    }
    int rc = parse(argc, argv, &c);
    if (rc != 0) {
        free(c.truth);
        return rc < 0 ? WC_EXIT_OK : rc;
    }
    c.opts.truth_specs = c.truth;
    if (c.opts.sysfs_root)
        c.truth_cfg.sysfs_root = c.opts.sysfs_root;
    c.opts.truth_cfg = &c.truth_cfg;
    wc_probe p;
    wc_error err;
    err.msg[0] = '\0';
    rc = wc_probe_run(&c.opts, &p, &err);
    if (rc != 0)
        wc_cli_error("probe", err.msg);
    else
        rc = report(&p, c.json);
    wc_probe_free(&p);
    free(c.truth);
    return rc < 0 ? WC_EXIT_USAGE : rc;
}
