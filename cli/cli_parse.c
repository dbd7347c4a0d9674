/*
 * cli_parse.c — the one parse loop and the --help generator of the CLI
 * (cli_parse.h). The option tables of a command become one getopt_long array
 * (the tables' entries in order, then --help), each option's value being
 * OPT_BASE + its place in that array, so the loop maps it straight back to
 * the table entry the command's handler receives. An option getopt refuses
 * is said in one line, with the nearest known option ("did you mean
 * --interval?"), not the whole help; a duration option's bad value adds the
 * units every duration accepts.
 */
#include "cli/cli_parse.h"

#include <getopt.h>
#include <string.h>

#include "cli/cli.h"
#include "common/wc_clock.h"

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

/* Edit distance between a and b (at most 63 bytes of each are compared). */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a) > 63 ? 63 : strlen(a), lb = strlen(b) > 63 ? 63 : strlen(b);
    int row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

int wc_cli_distance(const char *a, const char *b)
{
    return distance(a, b);
}

/* The option of lo (n + 1 entries, --help last) nearest to name, when near
 * enough to be a typo (at most 2 edits, or a third of its length); or the one
 * option name starts with (a value glued on); NULL otherwise. */
static const char *nearest(const char *name, const struct option *lo, int n)
{
    const char *best = NULL;
    int best_d = 1000;
    for (int i = 0; i <= n; i++) {
        int d = distance(name, lo[i].name);
        if (d < best_d) {
            best_d = d;
            best = lo[i].name;
        }
    }
    int len = (int)strlen(name);
    return best && best_d <= (len / 3 > 2 ? len / 3 : 2) ? best : NULL;
}

/* One line for an option getopt refused (cmd the command as typed, what
 * argv's element, c getopt's
 * return: '?' unknown, ambiguous or a value given to a switch; ':' a value
 * missing), with a "did you mean" when a known option is near; never the
 * whole help. */
static void refused(const char *cmd, const char *what, int c, const struct option *lo, int n)
{
    char name[64];
    const char *eq = what ? strchr(what, '=') : NULL;
    const char *base = what && !strncmp(what, "--", 2) ? what + 2 : what ? what : "";
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - base) : (int)strlen(base), base);
    int matches = 0, exact = -1;
    for (int i = 0; i <= n; i++) {
        matches += !strncmp(lo[i].name, name, strlen(name));
        if (!strcmp(lo[i].name, name))
            exact = i;
    }
    fprintf(stderr, "wattcal %s: ", cmd);
    if (strncmp(what ? what : "", "--", 2) != 0)
        fprintf(stderr, "unknown option '%.40s': options are long (--NAME)", what ? what : "");
    else if (c == ':')
        fprintf(stderr, "option '--%s' needs a value", name);
    else if (exact >= 0 || (matches == 1 && eq))
        fprintf(stderr, "option '--%s' takes no value", name);
    else if (matches > 1)
        fprintf(stderr, "option '--%s' is ambiguous (%d options start so)", name, matches);
    else {
        const char *near = nearest(name, lo, n);
        fprintf(stderr, "unknown option '--%.40s'", name);
        if (near)
            fprintf(stderr, "; did you mean --%s?", near);
    }
    fprintf(stderr, " (wattcal %s --help lists them)\n", cmd);
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
    int c, opterr_was = opterr;
    optind = 1;
    opterr = 0; /* refused() says it in one line */
    while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
        if (c == OPT_BASE + n) {
            wc_cli_help(spec, stdout);
            opterr = opterr_was;
            return -1;
        }
        if (c < OPT_BASE || c > OPT_BASE + n) {
            char short_opt[4] = {'-', (char)optopt, 0, 0};
            const char *what = c == '?' && optopt > 0 && optopt < 128 ? short_opt
                               : optind > 0 && optind <= argc ? argv[optind - 1]
                                                               : NULL;
            refused(argv[0] ? argv[0] : spec->name, what, c, lo, n); /* run: "run" */
            opterr = opterr_was;
            return WC_EXIT_USAGE;
        }
        const wc_cli_opt *o = entries[c - OPT_BASE];
        int rc = handle(ctx, o, optarg);
        if (rc == WC_EXIT_USAGE && o->arg && strstr(o->arg, "DUR"))
            fprintf(stderr, "wattcal %s: durations: " WC_DURATION_UNITS "\n", spec->name);
        if (rc) {
            opterr = opterr_was;
            return rc;
        }
    }
    opterr = opterr_was;
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
