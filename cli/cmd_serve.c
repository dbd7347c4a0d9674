/*
 * cmd_serve.c — `wattcal serve`: every option of `record` (its tables, with
 * --db optional) plus the endpoint's own, then collector/serve/serve.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/serve/serve.h"
#include "collector/serve/serve_http.h"
#include "common/wc_clock.h"

enum { OPT_LISTEN = 3000, OPT_WEB_CONFIG, OPT_NODE_NAME, OPT_EXPIRE, OPT_MAX_WORKLOADS,
       OPT_KUBELET, OPT_KUBELET_TOKEN, OPT_KUBELET_INTERVAL };

static const wc_cli_opt SERVE_OPTS[] = {
    {"listen", "ADDR:PORT", OPT_LISTEN,
     "where /metrics and /healthz are served (default\n"
     "127.0.0.1:9877; 0.0.0.0:9877 for every interface)"},
    {"web-config", "FILE", OPT_WEB_CONFIG,
     "TLS and basic auth in the Prometheus exporter-toolkit\n"
     "format (tls_server_config cert_file/key_file,\n"
     "basic_auth_users with bcrypt hashes); anything else in\n"
     "it is refused"},
    {"node-name", "NAME", OPT_NODE_NAME, "the node_name label (default: the host name)"},
    {"expire", "DUR", OPT_EXPIRE,
     "a terminated workload's series stay this long, then go\n"
     "(default 60s)"},
    {"max-workloads", "N", OPT_MAX_WORKLOADS,
     "at most N processes, containers and pods exposed\n"
     "(default 5000); new ones beyond are dropped and counted"},
    {"kubelet", "URL", OPT_KUBELET,
     "pod names and namespaces from the kubelet's pod list\n"
     "(e.g. https://127.0.0.1:10250/pods) when the exporter\n"
     "does not label them; TLS verified unless --insecure"},
    {"kubelet-token-file", "FILE", OPT_KUBELET_TOKEN,
     "bearer token for the kubelet (first line);\n"
     "otherwise WATTCAL_KUBELET_TOKEN from the environment"},
    {"kubelet-interval", "DUR", OPT_KUBELET_INTERVAL, "how often the pod list is read (default 30s)"},
    WC_CLI_OPT_END,
};

static int bad(const char *opt, const char *val)
{
    fprintf(stderr, "wattcal serve: invalid value for %s: '%s'\n", opt, val);
    return WC_EXIT_USAGE;
}

/* One option: serve's own, else record's. */
static int option(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    wc_serve_opts *o = ctx;
    char *end = NULL;
    switch (opt->id) {
    case OPT_LISTEN: o->listen = arg; return 0;
    case OPT_WEB_CONFIG: o->web_config = arg; return 0;
    case OPT_NODE_NAME:
        if (!*arg)
            return bad("--node-name (non-empty)", arg);
        o->node_name = arg;
        return 0;
    case OPT_EXPIRE:
        if (wc_parse_duration_ns(arg, &o->expire_ns) || o->expire_ns <= 0)
            return bad("--expire (a positive duration)", arg);
        return 0;
    case OPT_MAX_WORKLOADS:
        o->max_workloads = strtoull(arg, &end, 10);
        if (!end || *end || arg[0] == '-' || o->max_workloads < 1 || o->max_workloads > 1000000)
            return bad("--max-workloads (1..1000000)", arg);
        return 0;
    case OPT_KUBELET: o->kubelet_url = arg; return 0;
    case OPT_KUBELET_TOKEN: o->kubelet_token_file = arg; return 0;
    case OPT_KUBELET_INTERVAL:
        if (wc_parse_duration_ns(arg, &o->kubelet_interval_ns) ||
            o->kubelet_interval_ns < WC_NS_PER_S)
            return bad("--kubelet-interval (at least 1s)", arg);
        return 0;
    }
    if (opt->id == WC_CLI_OPT_INSECURE)
        o->kubelet_insecure = 1;
    return wc_cli_record_option(&o->record, opt, arg);
}

/* record's tables, then serve's. */
static const wc_cli_opt *tables[16];

static const wc_cli_spec SERVE_SPEC = {
    .name = "serve",
    .usage = "wattcal serve [--listen ADDR:PORT] [--db FILE] [record options]",
    .about =
        "A second-opinion exporter: samples exactly as `wattcal record` does (same\n"
        "meters, /proc, model, --truth pollers, --exporter scrapes), optionally\n"
        "recording to --db at the same time, and serves on /metrics the reference\n"
        "model's attribution in Kepler's layout under wattcal_ with a model label,\n"
        "ground-truth watts, the meter's own energy, the attribution gap by level and\n"
        "kind and, with --exporter, the exporter minus the reference per node and\n"
        "pod; every series has a provenance label (docs/serve-metrics.md). /healthz\n"
        "answers 200 while samples are fresh. SIGINT/SIGTERM stop it cleanly.",
    .opts = tables,
    .col = 23,
    .footer = "exit codes: 0 stopped cleanly, 2 usage error, a bad --listen, --web-config or\n"
              "--kubelet, no meter, or a store failure",
};

static int parse(int argc, char **argv, wc_serve_opts *o)
{
    size_t n = 0;
    for (const wc_cli_opt *const *t = wc_cli_record_tables; *t && n < 14; t++)
        tables[n++] = *t;
    tables[n++] = SERVE_OPTS;
    tables[n] = NULL;
    wc_cli_spec spec = SERVE_SPEC;
    spec.choices = wc_cli_record_choices;
    int next = 0;
    int rc = wc_cli_parse(&spec, argc, argv, option, o, &next);
    if (rc)
        return rc;
    if (next < argc) {
        fprintf(stderr, "wattcal serve: unexpected argument '%s'\n", argv[next]);
        return WC_EXIT_USAGE;
    }
    return 0;
}

static void listening(void *ctx, int port)
{
    const wc_serve_opts *o = ctx;
    fprintf(stderr, "wattcal serve: listening on %s (port %d): /metrics, /healthz\n", o->listen,
            port);
}

int cmd_serve(int argc, char **argv)
{
    wc_serve_opts o;
    wc_serve_defaults(&o);
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? WC_EXIT_OK : rc;
    char cmdline[512];
    wc_cli_join_argv(argc, argv, cmdline, sizeof cmdline);
    o.record.command_line = cmdline;
    o.on_listening = listening;
    o.ctx = &o;
    wc_cli_install_stop_handlers();
    wc_record_result res;
    wc_error err = {{0}};
    rc = wc_serve(&o, &wc_cli_stop, &res, &err);
    if (rc) {
        wc_cli_error("serve", err.msg);
        return WC_EXIT_USAGE;
    }
    char scrapes[160];
    wc_cli_exporter_counts(&o.record, &res, scrapes, sizeof scrapes);
    fprintf(stderr, "wattcal serve: stopped after %lld samples (%s model; missed deadlines %lld; "
            "ground-truth samples %lld%s)%s%s\n", (long long)res.ticks,
            wc_model_name(o.record.model), (long long)res.missed_deadlines,
            (long long)res.truth_samples, scrapes, o.record.db_path ? "; recorded to " : "",
            o.record.db_path ? o.record.db_path : "");
    return WC_EXIT_OK;
}
