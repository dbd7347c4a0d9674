/*
 * test_cli_parse.c — the CLI's one option parser and --help generator
 * (cli/cli_parse.c) on a small command table: the help layout (usage,
 * description, options padded to the column or followed by two spaces,
 * continuation lines, text lines, footer), and the parse loop (every option
 * reaches the handler with its table entry, in order and as often as given;
 * --opt=value and unique prefixes; positional arguments moved to the end;
 * --help on stdout; an unknown, ambiguous or argument-less option, or a
 * handler's error, stop the parse with the right exit code and message).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_parse.h"

enum { T_FILE = 1, T_FLAG, T_LONG_NAME, T_TWO, T_TWIN, T_SHARED };

static const wc_cli_opt OWN[] = {
    {"file", "FILE", T_FILE, "the file"},
    {"flag", NULL, T_FLAG, "a switch"},
    {"long-name", "A|VERY|LONG|ARG", T_LONG_NAME, "overflows the column"},
    WC_CLI_TEXT(""),
    WC_CLI_TEXT("A group:"),
    {"two", "N", T_TWO, "first line\nsecond line"},
    {"twin", "N", T_TWIN, "shares a prefix with --two"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt SHARED[] = {
    {"shared", "X", T_SHARED, "from a shared table"},
    WC_CLI_OPT_END,
};

static const wc_cli_opt *const TABLES[] = {OWN, SHARED, NULL};

static const wc_cli_spec SPEC = {
    .name = "demo",
    .usage = "wattcal demo [options]\n       wattcal demo --file FILE",
    .about = "Does nothing\nat all.",
    .opts = TABLES,
    .col = 16,
    .footer = "exit codes: 0 ok",
};

static const char SPEC_HELP[] =
    "usage: wattcal demo [options]\n"
    "       wattcal demo --file FILE\n"
    "\n"
    "Does nothing\n"
    "at all.\n"
    "\n"
    "  --file FILE   the file\n"
    "  --flag        a switch\n"
    "  --long-name A|VERY|LONG|ARG  overflows the column\n"
    "\n"
    "A group:\n"
    "  --two N       first line\n"
    "                second line\n"
    "  --twin N      shares a prefix with --two\n"
    "  --shared X    from a shared table\n"
    "\n"
    "exit codes: 0 ok\n";

/* What the handler saw. */
typedef struct seen {
    int ids[16];
    const char *args[16];
    int n;
    int fail_on; /* an id the handler refuses with WC_EXIT_USAGE; 0 none */
} seen;

static int record_opt(void *ctx, const wc_cli_opt *opt, const char *arg)
{
    seen *s = ctx;
    cr_assert_lt(s->n, 16);
    s->ids[s->n] = opt->id;
    s->args[s->n++] = arg;
    return opt->id == s->fail_on ? WC_EXIT_USAGE : 0;
}

/* Parses a NULL-terminated argument list (argv[0] "demo") into s. */
static int parse(seen *s, int *next, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return wc_cli_parse(&SPEC, argc, argv, record_opt, s, next);
}

/* All of a redirected stream. */
static char *slurp(FILE *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    cr_assert_not_null(m);
    char chunk[512];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(m);
    return buf;
}

Test(cli_help, is_generated_from_the_tables)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    wc_cli_help(&SPEC, f);
    fclose(f);
    cr_assert_str_eq(buf, SPEC_HELP);
    free(buf);
}

Test(cli_help, without_footer_ends_after_the_options)
{
    static const wc_cli_opt one[] = {{"x", NULL, 1, "x"}, WC_CLI_OPT_END};
    static const wc_cli_opt *const tables[] = {one, NULL};
    const wc_cli_spec s = {.name = "n", .usage = "u", .about = "a", .opts = tables, .col = 6};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    wc_cli_help(&s, f);
    fclose(f);
    cr_assert_str_eq(buf, "usage: u\n\na\n\n  --x x\n");
    free(buf);
}

Test(cli_parse, options_reach_the_handler_in_order)
{
    seen s = {0};
    int next = -1;
    char *argv[] = {"demo", "--file", "a", "--flag", "--shared=x", "--file=b", "--twi", "3",
                    NULL};
    cr_assert_eq(parse(&s, &next, argv), 0);
    cr_assert_eq(next, 8);
    cr_assert_eq(s.n, 5);
    int want[] = {T_FILE, T_FLAG, T_SHARED, T_FILE, T_TWIN};
    const char *want_arg[] = {"a", NULL, "x", "b", "3"};
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(s.ids[i], want[i], "option %d", i);
        if (want_arg[i])
            cr_assert_str_eq(s.args[i], want_arg[i], "option %d", i);
        else
            cr_assert_null(s.args[i], "option %d", i);
    }
}

Test(cli_parse, positional_arguments_are_left_at_the_end)
{
    seen s = {0};
    int next = -1;
    char *argv[] = {"demo", "one", "--flag", "two", "--", "--file", NULL};
    cr_assert_eq(parse(&s, &next, argv), 0);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(next, 3);
    cr_assert_str_eq(argv[3], "one");
    cr_assert_str_eq(argv[4], "two");
    cr_assert_str_eq(argv[5], "--file", "after --, options are arguments");
}

Test(cli_parse, help_prints_to_stdout_and_returns_minus_one, .init = cr_redirect_stdout)
{
    seen s = {0};
    int next = -1;
    char *argv[] = {"demo", "--flag", "--help", "--file", "x", NULL};
    cr_assert_eq(parse(&s, &next, argv), -1);
    cr_assert_eq(s.n, 1, "options after --help are not taken");
    fflush(stdout);
    cr_assert_stdout_eq_str(SPEC_HELP);
}

/* argv must give a usage error: one line on stderr holding `want`, and not
 * the help. */
static void expect_usage_error(char **argv, const char *want)
{
    seen s = {0};
    int next = -1;
    cr_assert_eq(parse(&s, &next, argv), WC_EXIT_USAGE);
    cr_assert_eq(s.n, 0);
    fflush(stderr);
    char *err = slurp(cr_get_redirected_stderr());
    cr_assert(strstr(err, want), "%s", err);
    cr_assert_not(strstr(err, "usage:"), "%s", err);
    cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
    free(err);
}

Test(cli_parse, unknown_option_is_a_usage_error, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--bogus", NULL};
    expect_usage_error(argv, "wattcal demo: unknown option '--bogus' (wattcal demo --help lists them)\n");
}

Test(cli_parse, a_typo_gets_a_did_you_mean, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--flga", NULL};
    expect_usage_error(argv, "wattcal demo: unknown option '--flga'; did you mean --flag? "
                             "(wattcal demo --help lists them)\n");
}

Test(cli_parse, a_typo_with_a_value_gets_a_did_you_mean, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--sharde=3", NULL};
    expect_usage_error(argv, "unknown option '--sharde'; did you mean --shared?");
}

Test(cli_parse, missing_argument_is_a_usage_error, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--file", NULL};
    expect_usage_error(argv, "wattcal demo: option '--file' needs a value");
}

Test(cli_parse, ambiguous_prefix_is_a_usage_error, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--t", "1", NULL};
    expect_usage_error(argv, "wattcal demo: option '--t' is ambiguous (2 options start so)");
}

Test(cli_parse, argument_to_a_switch_is_a_usage_error, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "--flag=1", NULL};
    expect_usage_error(argv, "wattcal demo: option '--flag' takes no value");
}

Test(cli_parse, short_option_is_a_usage_error, .init = cr_redirect_stderr)
{
    char *argv[] = {"demo", "-h", NULL};
    expect_usage_error(argv, "wattcal demo: unknown option '-h': options are long (--NAME)");
}

Test(cli_parse, handler_error_stops_the_parse)
{
    seen s = {.fail_on = T_FLAG};
    int next = -1;
    char *argv[] = {"demo", "--file", "a", "--flag", "--shared", "x", NULL};
    cr_assert_eq(parse(&s, &next, argv), WC_EXIT_USAGE);
    cr_assert_eq(s.n, 2);
    cr_assert_eq(next, -1, "next is only set on success");
}

Test(cli_parse, a_parse_can_follow_another)
{
    seen s = {0};
    int next = -1;
    char *a1[] = {"demo", "--file", "a", "extra", NULL};
    char *a2[] = {"demo", "--flag", NULL};
    cr_assert_eq(parse(&s, &next, a1), 0);
    cr_assert_eq(next, 3);
    cr_assert_eq(parse(&s, &next, a2), 0);
    cr_assert_eq(next, 2);
    cr_assert_eq(s.n, 2);
    cr_assert_eq(s.ids[1], T_FLAG);
}
