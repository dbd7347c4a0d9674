/*
 * test_cli_tables.c — the CLI names meters and models from their tables
 * (collector/meter/meter_table.c, collector/model/attr_models.c): every row
 * of each table is offered by `record --help` and `attribute --help`, and the
 * names listed in messages come from the tables.
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
#include "collector/meter/meter_table.h"

/* The --help text of a command, read back from the redirected stdout. */
static char *help_of(int (*cmd)(int, char **), const char *name)
{
    char *argv[] = {(char *)name, "--help", NULL};
    cr_assert_eq(cmd(2, argv), 0);
    fflush(stdout);
    FILE *f = cr_get_redirected_stdout();
    static char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    return buf;
}

Test(cli_tables, record_help_offers_every_meter_and_model, .init = cr_redirect_stdout)
{
    const char *h = help_of(cmd_record, "record");
    size_t n = 0;
    const wc_meter_kind *k = wc_meter_kinds(&n);
    cr_assert_geq(n, 2);
    for (size_t i = 0; i < n; i++)
        cr_assert_not_null(strstr(h, k[i].name), "record --help lacks meter %s", k[i].name);
    for (size_t m = 0; m < wc_model_count(); m++)
        cr_assert_not_null(strstr(h, wc_model_name((wc_model)m)), "record --help lacks model %s",
                           wc_model_name((wc_model)m));
}

Test(cli_tables, attribute_help_offers_every_model, .init = cr_redirect_stdout)
{
    const char *h = help_of(cmd_attribute, "attribute");
    for (size_t m = 0; m < wc_model_count(); m++)
        cr_assert_not_null(strstr(h, wc_model_name((wc_model)m)), "attribute --help lacks %s",
                           wc_model_name((wc_model)m));
}

Test(cli_tables, model_names_listed_from_the_table)
{
    char buf[128];
    cr_assert_str_eq(wc_cli_model_names(buf, sizeof buf), "kepler-0.11, kepler-main, ideal or kepler-0.10");
    char small[8];
    wc_cli_model_names(small, sizeof small);
    cr_assert_eq(strlen(small), sizeof small - 1, "cut, never overrun");
}
