/*
 * cmd_attribute.c — `wattcal attribute`: re-attribute a recorded run offline
 * (collector/store/store_replay.c) under one or more models, then list the
 * VMs each model attributed (work_attr level 4, store_results.h).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/store/store.h"
#include "collector/store/store_replay.h"
#include "collector/store/store_results.h"
#include "validator/text_report.h"

enum { OPT_DB = 1, OPT_MODEL, OPT_KEPLER_CONFIG };

static const wc_cli_opt ATTRIBUTE_OPTS[] = {
    {"db", "FILE", OPT_DB, "a run written by `wattcal record`"},
    {"model", "M", OPT_MODEL, "a model to compute (repeatable), one of:"},
    {"kepler-config", "FILE", OPT_KEPLER_CONFIG,
     "the deployed Kepler's config.yaml: its terminated-\n"
     "workload limits, and its preferred meter (hwmon\n"
     "first: a run's power gauges are attributed)"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const ATTRIBUTE_TABLES[] = {ATTRIBUTE_OPTS, NULL};

/* The --model choices, listed from the model table. */
static const wc_cli_choices ATTRIBUTE_CHOICES[] = {{OPT_MODEL, wc_cli_list_models}, {0, NULL}};

static const wc_cli_spec ATTRIBUTE_SPEC = {
    .name = "attribute",
    .usage = "wattcal attribute --db FILE --model M [--model M2 ...]",
    .about =
        "Recomputes the attribution of a recorded run from its raw samples under\n"
        "each model given (replacing that model's previous rows), so one recording\n"
        "can be compared across exporter versions: kepler-0.10, kepler-0.11,\n"
        "kepler-main (formerly kepler-head, a name still accepted), ideal.",
    .opts = ATTRIBUTE_TABLES,
    .choices = ATTRIBUTE_CHOICES,
    .col = 22,
    .footer = "exit codes: 0 attributed, 2 usage error, unreadable or read-only DB",
};

/* The parsed command line. */
typedef struct attribute_cli {
    const char *db;
    wc_model models[8];
    int nmodels;
    wc_kepler_config kepler;      /* --kepler-config */
    int have_kepler;
} attribute_cli;

/* One option (wc_cli_handler) into the attribute_cli ctx. */
static int option(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    attribute_cli *c = ctx;
    if (opt->id == OPT_DB) {
        c->db = arg;
        return 0;
    }
    if (opt->id == OPT_KEPLER_CONFIG) {
        wc_error e = {{0}};
        if (wc_kepler_config_load(arg, &c->kepler, &e)) {
            fprintf(stderr, "wattcal attribute: --kepler-config: %s\n", e.msg);
            return WC_EXIT_USAGE;
        }
        c->have_kepler = 1;
        return 0;
    }
    if (c->nmodels == 8 || wc_model_parse(arg, &c->models[c->nmodels])) {
        fprintf(stderr, "wattcal attribute: invalid --model '%s'\n", arg);
        return WC_EXIT_USAGE;
    }
    c->nmodels++;
    return 0;
}

int wc_cli_require_run(const char *cmd, const char *db, wc_store *st)
{
    wc_run_meta m;
    wc_error err = {{0}};
    if (wc_store_get_run(st, &m, &err)) {
        wc_cli_error(cmd, err.msg);
        return WC_EXIT_USAGE;
    }
    if (m.present)
        return 0;
    fprintf(stderr, "wattcal %s: %s: no run row (the run table is empty): not a complete "
                    "wattcal run\n", cmd, db);
    return WC_EXIT_USAGE;
}

/* Prints the VMs model_name attributed, one line per (zone, VM) with Kepler's
 * labels (nothing in a run without VMs). Returns 0 or < 0 with err. */
static int print_vms(wc_store *st, const char *model_name, wc_error *err)
{
    int64_t model_id = 0;
    int rc = wc_store_find_model(st, model_name, &model_id, err);
    if (rc)
        return rc;
    wc_store_iter *it = NULL;
    if ((rc = wc_store_vm_totals_open(st, model_id, &it, err)))
        return rc;
    wc_vm_total v;
    char a[160], b[160], c[48], z[48];
    while ((rc = wc_store_vm_total_next(it, &v, err)) == 1)
        printf("  vm %s name %s hypervisor %s zone %s: %.6f J attributed by model %s (%lld hypervisor"
               " processes, %.3f CPU s)\n",
               wc_term_safe(v.vm_id, a, sizeof a), wc_term_safe(v.vm_name, b, sizeof b),
               wc_term_safe(v.hypervisor, c, sizeof c), wc_term_safe(v.zone, z, sizeof z),
               v.energy_uj / 1e6, model_name, (long long)v.processes, v.cpu_s);
    wc_store_iter_close(it);
    return rc;
}

/* Replays every model; WC_EXIT_NO_DATA when the run has fewer than two ticks
 * (nothing measurable), as README "Exit codes" says. */
static int replay_models(wc_store *st, const char *db, const wc_model *models, int nmodels,
                         const wc_kepler_config *kepler)
{
    wc_error err = {{0}};
    for (int i = 0; i < nmodels; i++) {
        int64_t ticks = 0;
        if (wc_store_replay_config(st, models[i], kepler, &ticks, &err)) {
            wc_cli_error("attribute", err.msg);
            return WC_EXIT_USAGE;
        }
        printf("%s: %lld ticks attributed with model %s\n", db, (long long)ticks,
               wc_model_name(models[i]));
        if (ticks < 2) {
            fprintf(stderr, "wattcal attribute: %s: %lld tick%s: nothing measurable (an "
                            "interval needs two ticks) (exit %d)\n", db, (long long)ticks,
                    ticks == 1 ? "" : "s", WC_EXIT_NO_DATA);
            return WC_EXIT_NO_DATA;
        }
        if (print_vms(st, wc_model_name(models[i]), &err)) {
            wc_cli_error("attribute", err.msg);
            return WC_EXIT_USAGE;
        }
    }
    if (wc_store_ensure_indexes(st, &err)) {
        wc_cli_error("attribute", err.msg);
        return WC_EXIT_USAGE;
    }
    return WC_EXIT_OK;
}

int cmd_attribute(int argc, char **argv)
{
    attribute_cli c = {0};
    int next = 0; /* arguments after the options are ignored */
    int rc = wc_cli_parse(&ATTRIBUTE_SPEC, argc, argv, option, &c, &next);
    if (rc)
        return rc < 0 ? WC_EXIT_OK : rc;
    const char *db = c.db;
    const wc_model *models = c.models;
    int nmodels = c.nmodels;
    if (!db || !nmodels) {
        fprintf(stderr, "wattcal attribute: --db FILE and at least one --model are required\n");
        return WC_EXIT_USAGE;
    }
    wc_error err = {{0}};
    wc_store *st = wc_store_open(db, WC_STORE_WRITE, &err);
    if (!st) {
        wc_cli_error("attribute", err.msg);
        return WC_EXIT_USAGE;
    }
    int exit_code = wc_cli_require_run("attribute", db, st);
    if (!exit_code)
        exit_code = replay_models(st, db, models, nmodels,
                                  c.have_kepler ? &c.kepler : NULL);
    wc_store_close(st);
    return exit_code;
}
