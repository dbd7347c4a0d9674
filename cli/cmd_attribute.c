/*
 * cmd_attribute.c — `wattcal attribute`: re-attribute a recorded run offline
 * (collector/store/store_replay.c) under one or more models.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/store/store.h"
#include "collector/store/store_replay.h"

static const char ATTRIBUTE_HELP[] =
    "usage: wattcal attribute --db FILE --model M [--model M2 ...]\n"
    "\n"
    "Recomputes the attribution of a recorded run from its raw samples under\n"
    "each model given (replacing that model's previous rows), so one recording\n"
    "can be compared across exporter versions: kepler-0.11, kepler-head, ideal.\n"
    "\n"
    "  --db FILE     a run written by `wattcal record`\n"
    "  --model M     kepler-0.11, kepler-head or ideal (repeatable)\n"
    "\n"
    "exit codes: 0 attributed, 2 usage error, unreadable or read-only DB\n";

int cmd_attribute(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"model", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL;
    wc_model models[8];
    int nmodels = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'm':
            if (nmodels == 8 || wc_model_parse(optarg, &models[nmodels])) {
                fprintf(stderr, "wattcal attribute: invalid --model '%s'\n", optarg);
                return WC_EXIT_USAGE;
            }
            nmodels++;
            break;
        case 'h': fputs(ATTRIBUTE_HELP, stdout); return WC_EXIT_OK;
        default: fputs(ATTRIBUTE_HELP, stderr); return WC_EXIT_USAGE;
        }
    }
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
    int exit_code = WC_EXIT_OK;
    for (int i = 0; i < nmodels && exit_code == WC_EXIT_OK; i++) {
        int64_t ticks = 0;
        if (wc_store_replay(st, models[i], &ticks, &err)) {
            wc_cli_error("attribute", err.msg);
            exit_code = WC_EXIT_USAGE;
        } else {
            printf("%s: %lld ticks attributed with model %s\n", db, (long long)ticks,
                   wc_model_name(models[i]));
        }
    }
    if (exit_code == WC_EXIT_OK && wc_store_ensure_indexes(st, &err)) {
        wc_cli_error("attribute", err.msg);
        exit_code = WC_EXIT_USAGE;
    }
    wc_store_close(st);
    return exit_code;
}
