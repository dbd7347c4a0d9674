/*
 * cmd_fleet.c — `wattcal fleet`: parses options, runs the fleet check
 * (validator/fleet.h) node by node, shows progress on a terminal, keeps
 * each node's small result, sorts them by risk and writes the report
 * (reports/fleet_report.h), the JUnit XML (one testcase per node) and the
 * exit code of a CI gate (as validate: 0 every checked node passed, 1 a
 * node failed, 2 usage or input error or the server unreachable, 3 no node
 * could be checked or a node's query failed: NO VERDICT for it).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/wc_clock.h"
#include "common/wc_text.h"
#include "reports/fleet_report.h"
#include "validator/fleet.h"

enum {
    OPT_PROM = 1, OPT_START, OPT_END, OPT_STEP, OPT_NODES, OPT_TRUTH, OPT_TOL, OPT_TOP, OPT_OUT,
    OPT_JUNIT, OPT_BOOT, OPT_SEED, OPT_TOKEN_FILE, OPT_USER, OPT_PASSWORD_FILE, OPT_TIMEOUT,
    OPT_INSECURE, OPT_QUIET
};

static const wc_cli_opt FLEET_OPTS[] = {
    {"prometheus", "URL", OPT_PROM,
     "a Prometheus HTTP API (http[s]://HOST:PORT[/PREFIX]; Thanos,\n"
     "Mimir, VictoriaMetrics too); required"},
    {"start", "T", OPT_START, "first instant: RFC 3339 or Unix seconds; required"},
    {"end", "T", OPT_END, "last instant, same forms; required"},
    {"step", "DUR", OPT_STEP, "between instants (default 30s; use the scrape interval)"},
    {"nodes", "REGEX", OPT_NODES,
     "only nodes whose node_name matches (POSIX ERE, anchored as\n"
     "PromQL's =~)"},
    {"truth-query", "TEMPLATE", OPT_TRUTH,
     "each node's wall power in watts as ONE series, {{node}}\n"
     "replaced by the node name, e.g.\n"
     "ipmi_dcmi_power_consumption_watts{node_name=\"{{node}}\"};\n"
     "without it no node is checked (all unchecked)"},
    {"tolerance", "LIST", OPT_TOL,
     "thresholds, comma-separated (repeatable): node=P%, wape=P%,\n"
     "mae=W ... (validate's accuracy metrics) and gap=P%: here the\n"
     "pod gap (energy outside pods, % of active: 1 - sum of pods /\n"
     "active, per zone), not validate's gap= (unattributed by the\n"
     "model); default node=10%,gap=10%"},
    {"top", "N", OPT_TOP, "top pods per node, 1 to 10 (default 5)"},
    {"out", "DIR", OPT_OUT, "report directory: fleet.html and fleet.md (required)"},
    {"junit", "FILE", OPT_JUNIT, "write one JUnit testcase per node"},
    {"bootstrap", "N", OPT_BOOT, "bootstrap replicates (default 1000)"},
    {"seed", "N", OPT_SEED, "bootstrap seed (default 1)"},
    {"prometheus-token-file", "FILE", OPT_TOKEN_FILE,
     "bearer token: the file's first line (else PROMETHEUS_TOKEN)"},
    {"prometheus-user", "NAME", OPT_USER, "basic auth user (else PROMETHEUS_USER)"},
    {"prometheus-password-file", "FILE", OPT_PASSWORD_FILE,
     "basic auth password: the file's first line (else\n"
     "PROMETHEUS_PASSWORD)"},
    {"prometheus-timeout", "DUR", OPT_TIMEOUT, "one request's timeout (default 30s)"},
    {"insecure", NULL, OPT_INSECURE, "do not verify the server's TLS certificate"},
    {"quiet", NULL, OPT_QUIET, "no progress line"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const FLEET_TABLES[] = {FLEET_OPTS, NULL};

static const wc_cli_spec FLEET_SPEC = {
    .name = "fleet",
    .usage = "wattcal fleet --prometheus URL --start T --end T --out DIR [options]",
    .about =
        "Checks every node a power exporter (Kepler v0.10+) reports to Prometheus, one\n"
        "node at a time in bounded memory: exporter version (changed?), power source\n"
        "(measured / not measured / unknown, from the path labels), node power\n"
        "(package + dram) against the node's ground truth with 95 % block-bootstrap\n"
        "CIs, the pod gap per zone (energy outside pods, % of active), the top pods. Writes fleet.html\n"
        "and fleet.md with the nodes sorted by risk and a fleet summary by hardware\n"
        "profile and exporter version; JUnit with one testcase per node.",
    .opts = FLEET_TABLES,
    .col = 34,
    .footer =
        "The output ends with \"N passed, N failed\" (\", K unchecked\" when nodes had no\n"
        "ground truth). exit codes: 0 every checked node passed, 1 a node failed, 2\n"
        "usage, input error or server unreachable, 3 no node could be checked (no truth\n"
        "pairs) or a node's query failed (that node NO VERDICT, the others still checked)",
};

typedef struct fleet_cli {
    wc_fleet_opts o;
    const char *out, *junit, *start, *end;
    char tol_text[256];
    int quiet;
    /* the results */
    wc_fleet_node *nodes;
    size_t n, cap;
    int progress;
    int64_t t0;
} fleet_cli;

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "wattcal fleet: %s: '%s'\n", what, value);
    return WC_EXIT_USAGE;
}

static int parse_ms(const char *arg, int64_t *ms)
{
    int64_t ns = 0;
    if (wc_parse_duration_ns(arg, &ns) || ns < 1000000)
        return -EINVAL;
    *ms = ns / 1000000;
    return 0;
}

static int add_tolerance(fleet_cli *c, const char *arg)
{
    wc_error err = {{0}};
    size_t before = c->o.ntol;
    if (wc_tolerance_parse(arg, c->o.tol, &c->o.ntol, &err)) {
        wc_cli_error("fleet", err.msg);
        return WC_EXIT_USAGE;
    }
    for (size_t i = before; i < c->o.ntol; i++)
        if (c->o.tol[i].metric != WC_TOL_STAT && c->o.tol[i].metric != WC_TOL_GAP)
            return bad("--tolerance (fleet checks the accuracy metrics and gap only)",
                       c->o.tol[i].text);
    size_t used = strlen(c->tol_text);
    wc_append(c->tol_text, sizeof c->tol_text, &used, "%s%s", used ? "," : "", arg);
    return 0;
}

static int range_opt(fleet_cli *c, int id, const char *arg)
{
    double v = 0;
    switch (id) {
    case OPT_START:
        c->start = arg;
        return wc_prom_parse_time(arg, &c->o.start_ms) ? bad("--start (RFC 3339 or Unix seconds)", arg) : 0;
    case OPT_END:
        c->end = arg;
        return wc_prom_parse_time(arg, &c->o.end_ms) ? bad("--end (RFC 3339 or Unix seconds)", arg) : 0;
    case OPT_STEP:
        return parse_ms(arg, &c->o.step_ms) ? bad("--step (a duration of at least 1ms)", arg) : 0;
    case OPT_TOP:
        if (wc_cli_parse_whole(arg, 1, WC_FLEET_MAX_TOP, &v))
            return bad("--top (1 to 10)", arg);
        c->o.top_pods = (size_t)v;
        return 0;
    case OPT_BOOT:
        if (wc_cli_parse_whole(arg, 100, 100000, &v))
            return bad("--bootstrap (100 to 100000)", arg);
        c->o.boot.replicates = (int)v;
        return 0;
    case OPT_SEED:
        if (wc_cli_parse_whole(arg, 0, 9007199254740992.0, &v))
            return bad("--seed (a whole number >= 0)", arg);
        c->o.boot.seed = (uint64_t)v;
        return 0;
    }
    return -1;
}

/* One option (wc_cli_handler). */
static int option(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    fleet_cli *c = ctx;
    int64_t ms = 0;
    switch (opt->id) {
    case OPT_PROM: c->o.prom.url = arg; return 0;
    case OPT_NODES: c->o.nodes_regex = arg; return 0;
    case OPT_TRUTH: c->o.truth_template = arg; return 0;
    case OPT_TOL: return add_tolerance(c, arg);
    case OPT_OUT: c->out = arg; return 0;
    case OPT_JUNIT: c->junit = arg; return 0;
    case OPT_TOKEN_FILE: c->o.prom.token_file = arg; return 0;
    case OPT_USER: c->o.prom.user = arg; return 0;
    case OPT_PASSWORD_FILE: c->o.prom.password_file = arg; return 0;
    case OPT_TIMEOUT:
        if (parse_ms(arg, &ms))
            return bad("--prometheus-timeout (a duration of at least 1ms)", arg);
        c->o.prom.timeout_ns = ms * 1000000;
        return 0;
    case OPT_INSECURE: c->o.prom.insecure = 1; return 0;
    case OPT_QUIET: c->quiet = 1; return 0;
    }
    return range_opt(c, opt->id, arg);
}

/* Returns 0 to run, -1 after --help, or WC_EXIT_USAGE. */
static int parse(int argc, char **argv, fleet_cli *c)
{
    int next = 0;
    c->o.step_ms = 30000;
    c->o.top_pods = 5;
    c->o.boot = (wc_boot_cfg){.replicates = WC_BOOT_DEFAULT_REPLICATES,
                              .seed = WC_BOOT_DEFAULT_SEED, .min_block = 1};
    int rc = wc_cli_parse(&FLEET_SPEC, argc, argv, option, c, &next);
    if (rc)
        return rc;
    if (next < argc)
        return bad("unexpected argument", argv[next]);
    if (!c->o.prom.url || !c->start || !c->end || !c->out) {
        fprintf(stderr, "wattcal fleet: --prometheus URL, --start T, --end T and --out DIR are "
                        "required\n");
        return WC_EXIT_USAGE;
    }
    if (!c->o.ntol && add_tolerance(c, "node=10%,gap=10%"))
        return WC_EXIT_USAGE;
    return 0;
}

/* Keeps a node's result; the progress line on a terminal. */
static int on_node(void *ctx, const wc_fleet_node *n, size_t done, size_t total, wc_error *err)
{
    fleet_cli *c = ctx;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        wc_fleet_node *nn = realloc(c->nodes, cap * sizeof *nn);
        if (!nn)
            return wc_error_set(err, -ENOMEM, "fleet: out of memory keeping %zu results", c->n);
        c->nodes = nn;
        c->cap = cap;
    }
    c->nodes[c->n++] = *n;
    if (c->progress) {
        double el = (double)(wc_mono_ns() - c->t0) / 1e9;
        double eta = el / (double)done * (double)(total - done);
        fprintf(stderr, "\rfleet: %zu/%zu nodes, %.0f s elapsed, ETA %.0f s   ", done, total, el,
                eta);
        if (done == total)
            fputc('\n', stderr);
    }
    return 0;
}

static int write_outputs(fleet_cli *c, const wc_fleet_summary *s)
{
    char range[200], a[40], b[40];
    wc_error err = {{0}};
    wc_format_wall_iso(c->o.start_ms * 1000000, a, sizeof a);
    wc_format_wall_iso(c->o.end_ms * 1000000, b, sizeof b);
    wc_textf(range, sizeof range, "%s .. %s, step %g s", a, b, (double)c->o.step_ms / 1000.0);
    wc_fleet_report_meta m = {c->o.prom.url, range, c->o.truth_template, c->tol_text};
    wc_fleet_sort(c->nodes, c->n);
    int rc = wc_fleet_report_write(c->out, c->nodes, c->n, s, &m, &err);
    if (!rc && c->junit)
        rc = wc_fleet_junit_write(c->junit, c->nodes, c->n, s, &err);
    if (rc)
        wc_cli_error("fleet", err.msg);
    return rc;
}

static void print_nodes(const fleet_cli *c, const wc_fleet_summary *s)
{
    printf("%-32s %-9s %-16s %-13s %-24s\n", "node", "verdict", "risk", "source", "bias % [95% CI]");
    for (size_t i = 0; i < c->n; i++) {
        const wc_fleet_node *x = &c->nodes[i];
        char bias[64] = "-";
        if (x->have_accuracy)
            snprintf(bias, sizeof bias, "%.2f [%.2f .. %.2f]", x->acc.bias_pct.est,
                     x->acc.bias_pct.lo, x->acc.bias_pct.hi);
        printf("%-32.32s %-9s %-16s %-13s %-24s\n", x->node,
               x->status == WC_CHECK_PASS ? "pass" : x->status == WC_CHECK_FAIL ? "FAIL"
               : x->query_error ? "NOVERDICT" : "unchecked",
               wc_fleet_risk_name(x->risk), x->power_source, bias);
    }
    printf("%zu nodes (%zu measured, %zu not measured, %zu unknown source); report %s/fleet.html; "
           "%.1f s, %.1f s waiting on the server\n", s->nodes, s->measured, s->not_measured,
           s->unknown_source, c->out, s->total_s, s->http_s);
    printf("%zu passed, %zu failed", s->within, s->failed);
    if (s->skipped)
        printf(", %zu unchecked", s->skipped);
    if (s->errors)
        printf(" (%zu with NO VERDICT: a query failed)", s->errors);
    if (s->legacy)
        printf("; %zu of Kepler <= 0.9 (legacy layout, not scored: import them)", s->legacy);
    printf("\n");
    for (size_t i = 0; i < c->n; i++)
        if (c->nodes[i].query_error)
            printf("%s: %s\n", c->nodes[i].node, c->nodes[i].reasons);
}

int cmd_fleet(int argc, char **argv)
{
    fleet_cli c;
    wc_fleet_summary s;
    wc_error err = {{0}};
    memset(&c, 0, sizeof c);
    int rc = parse(argc, argv, &c);
    if (rc)
        return rc < 0 ? WC_EXIT_OK : rc;
    c.progress = !c.quiet && isatty(STDERR_FILENO);
    c.t0 = wc_mono_ns();
    rc = wc_fleet_run(&c.o, on_node, &c, &s, &err);
    if (rc) {
        wc_cli_error("fleet", err.msg);
        free(c.nodes);
        return WC_EXIT_USAGE;
    }
    rc = write_outputs(&c, &s);
    if (!rc)
        print_nodes(&c, &s);
    free(c.nodes);
    if (rc)
        return WC_EXIT_USAGE;
    if (s.failed)
        return WC_EXIT_CHECK_FAILED;
    return s.checked && !s.errors ? WC_EXIT_OK : WC_EXIT_NO_DATA;
}
