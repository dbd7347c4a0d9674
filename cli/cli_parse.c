/*
 * cli_parse.c — the one parse loop and the --help generator of the CLI
 * (cli_parse.h). The option tables of a command become one getopt_long array
 * (the tables' entries in order, then --help), each option's value being
 * OPT_BASE + its place in that array, so the loop maps it straight back to
 * the table entry the command's handler receives.
 */
#include "cli/cli_parse.h"

#include <getopt.h>
#include <string.h>

#include "cli/cli.h"

enum { OPT_BASE = 1000 };

/* getopt_long's array for spec, entries[i] behind value OPT_BASE + i, and
 * "help" last (value OPT_BASE + n). Returns n, or -1 when the tables hold
 * more than WC_CLI_MAX_OPTS options. */
static int build_longopts(const wc_cli_spec *spec, struct option *lo, const wc_cli_opt **entries)
{
    int n = 0;
    for (const wc_cli_opt *const *t = spec->opts; *t; t++)
        for (const wc_cli_opt *o = *t; o->name || o->help; o++) {
            if (!o->name)
                continue; /* a text line of the help */
            if (n == WC_CLI_MAX_OPTS)
                return -1;
            lo[n] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL,
                                    OPT_BASE + n};
            entries[n++] = o;
        }
    lo[n] = (struct option){"help", no_argument, NULL, OPT_BASE + n};
    lo[n + 1] = (struct option){NULL, 0, NULL, 0};
    return n;
}

int wc_cli_parse(const wc_cli_spec *spec, int argc, char **argv, wc_cli_handler handle,
                 void *ctx, int *next)
{
    struct option lo[WC_CLI_MAX_OPTS + 2];
    const wc_cli_opt *entries[WC_CLI_MAX_OPTS];
    int n = build_longopts(spec, lo, entries);
    if (n < 0) {
        fprintf(stderr, "wattcal %s: more than %d options in its table\n", spec->name,
                WC_CLI_MAX_OPTS);
        return WC_EXIT_USAGE;
    }
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        if (c == OPT_BASE + n) {
            wc_cli_help(spec, stdout);
            return -1;
        }
        if (c < OPT_BASE || c > OPT_BASE + n) { /* getopt said what is wrong */
            wc_cli_help(spec, stderr);
            return WC_EXIT_USAGE;
        }
        int rc = handle(ctx, entries[c - OPT_BASE], optarg);
        if (rc)
            return rc;
    }
    *next = optind;
    return 0;
}

/* "  --name ARG", the padding to col, then the help text's lines and the
 * option's choices. */
static void print_option(const wc_cli_spec *spec, const wc_cli_opt *o, FILE *out)
{
    int col = spec->col;
    int len = fprintf(out, "  --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    fprintf(out, "%*s", len < col ? col - len : 2, "");
    wc_cli_print_lines(o->help, col, out);
    for (const wc_cli_choices *c = spec->choices; c && c->list; c++)
        if (c->id == o->id)
            c->list(out, col);
}

void wc_cli_print_lines(const char *text, int col, FILE *out)
{
    for (const char *t = text;;) {
        const char *nl = strchr(t, '\n');
        if (!nl) {
            fprintf(out, "%s\n", t);
            return;
        }
        fprintf(out, "%.*s\n%*s", (int)(nl - t), t, col, "");
        t = nl + 1;
    }
}

void wc_cli_help(const wc_cli_spec *spec, FILE *out)
{
    fprintf(out, "usage: %s\n\n%s\n\n", spec->usage, spec->about);
    for (const wc_cli_opt *const *t = spec->opts; *t; t++)
        for (const wc_cli_opt *o = *t; o->name || o->help; o++) {
            if (o->name)
                print_option(spec, o, out);
            else
                fprintf(out, "%s\n", o->help);
        }
    if (spec->footer)
        fprintf(out, "\n%s\n", spec->footer);
}
