/*
 * cli_parse.h — the one option parser of the CLI, in the spirit of git's
 * parse-options: each command declares its options once, as tables of
 * wc_cli_opt (long name, argument placeholder, id, help text) in a
 * wc_cli_spec; wc_cli_parse builds getopt_long's array from them and runs the
 * one parse loop every command shares, and wc_cli_help prints --help from the
 * same tables. Options several commands share are one table (the validation
 * options of `validate` and `report`, cli_validation.h), listed in each
 * command's spec.
 *
 * Long options only, with getopt_long's rules: "--opt VALUE" or
 * "--opt=VALUE", unique prefixes ("--int 1s"), arguments in any order (the
 * positional ones are moved to the end of argv), "--" ends the options.
 */
#ifndef WC_CLI_PARSE_H
#define WC_CLI_PARSE_H

#include <stdio.h>

/* One option of a command, or (name NULL) a line of text in its --help.
 * A table ends with WC_CLI_OPT_END. */
typedef struct wc_cli_opt {
    const char *name; /* long option without "--"; NULL: help is a text line */
    const char *arg;  /* argument placeholder in --help ("FILE", "auto|DUR");
                         NULL: the option takes no argument */
    int id;           /* handed to the command's handler; not 0 */
    const char *help; /* what it does; each '\n' starts a continuation line at
                         the spec's column. A text line is printed as is. */
} wc_cli_opt;

/* The choices an option takes, listed in its --help from the table that
 * defines them (meters, models, truth sources): after the option's help
 * text, list(out, col) prints one or more lines. A list ends with {0, NULL}. */
typedef struct wc_cli_choices {
    int id;                             /* the option's id */
    void (*list)(FILE *out, int col);
} wc_cli_choices;

/* The end of an option table. */
#define WC_CLI_OPT_END {NULL, NULL, 0, NULL}
/* A line of --help between options ("" gives an empty line). */
#define WC_CLI_TEXT(t) {NULL, NULL, 0, (t)}

/* A command's command line: what --help prints, in this order:
 *   usage: USAGE
 *   <empty line> ABOUT <empty line>
 *   the options of every table in opts, in order
 *   <empty line> FOOTER (when not NULL)
 * Option lines read "  --NAME ARG", padded to column col, then the help
 * text; a head that leaves no space before col is followed by two spaces.
 * Continuation lines start at col. */
typedef struct wc_cli_spec {
    const char *name;              /* the command ("record"), as in messages */
    const char *usage;             /* after "usage: "; more lines after '\n' */
    const char *about;             /* the description paragraph */
    const wc_cli_opt *const *opts; /* option tables, NULL-terminated */
    int col;                       /* column of the help texts (0-based) */
    const char *footer;            /* exit codes etc.; NULL: none */
    const wc_cli_choices *choices; /* options whose choices come from a table; NULL: none */
} wc_cli_spec;

/* Takes one option the user gave: opt is its table entry, arg its argument
 * (NULL for an option without one). Returns 0 to go on, or the exit code
 * to return (WC_EXIT_USAGE) after printing why. */
typedef int (*wc_cli_handler)(void *ctx, const wc_cli_opt *opt, const char *arg);

/* Most options (all tables together) a command may have. */
enum { WC_CLI_MAX_OPTS = 63 };

/* Parses argv (argv[0] the command name, as getopt's messages show it)
 * against spec, in the order given, calling handle(ctx, ...) for each option.
 * --help prints wc_cli_help to stdout and returns -1 (the command then exits
 * 0). An unknown option, a missing argument or an ambiguous prefix: one line
 * on stderr ("wattcal CMD: unknown option '--intervall'; did you mean
 * --interval? (wattcal CMD --help lists them)"), never the whole help, and
 * WC_EXIT_USAGE. A handler's WC_EXIT_USAGE for an option whose placeholder
 * holds "DUR" adds a line listing the units of durations (WC_DURATION_UNITS). A handler's non-zero
 * return stops the parse and is returned. On 0, *next is the index of the
 * first positional argument (argc when none): the command decides about them.
 */
int wc_cli_parse(const wc_cli_spec *spec, int argc, char **argv, wc_cli_handler handle,
                 void *ctx, int *next);

/* Writes text whose '\n' start continuation lines at column col (the cursor
 * already being at col for the first line), each line ended. */
void wc_cli_print_lines(const char *text, int col, FILE *out);

/* The choice lists of --meter, --model, --truth and --exporter, from the
 * meter, model, truth-source and exporter tables (cli_common.c): "NAME  what
 * it is" at col + 2. */
void wc_cli_list_meters(FILE *out, int col);
void wc_cli_list_models(FILE *out, int col);
void wc_cli_list_truth(FILE *out, int col);
void wc_cli_list_exporters(FILE *out, int col);
/* The model names alone, "(kepler-0.11, kepler-main, ideal or kepler-0.10)", at col. */
void wc_cli_list_model_names(FILE *out, int col);

/* Writes the command's --help (see wc_cli_spec) to out. */
void wc_cli_help(const wc_cli_spec *spec, FILE *out);

/* Edit distance between a and b (at most 63 bytes of each compared): how
 * "did you mean" finds the nearest option or command name. */
int wc_cli_distance(const char *a, const char *b);

#endif
