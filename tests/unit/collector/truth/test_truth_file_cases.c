/*
 * test_truth_file_cases.c — the CSV reader of collector/truth/truth_file.c on
 * the project's own model table, tests/fixtures/import/model-table.csv (an
 * unnamed index column, names with spaces, decimals). test_truth_file.c
 * proves the same on corpus/datasets/kepler-legacy/power_data.csv.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collector/truth/truth_file.h"
#include "tests/unit/support/test_support.h"

Test(truth_file_cases, csv_reader_on_a_model_table)
{
    wc_csv c;
    wc_error err = {{0}};
    cr_assert_eq(wc_csv_open(&c, wc_own_fixture("import/model-table.csv"), ',', &err), 0, "%s",
                 err.msg);
    cr_assert_eq(wc_csv_next(&c, &err), 1);
    cr_assert_eq(c.nfields, 5);
    cr_assert_str_eq(c.fields[0], "", "the unnamed index column");
    cr_assert_eq(wc_csv_find(&c, "Max Watts", 0), 3);
    int rows = 0, rc;
    double max_w = 0;
    while ((rc = wc_csv_next(&c, &err)) == 1) {
        rows++;
        if (strcmp(c.fields[1], "Cascade Lake") == 0)
            cr_assert_eq(wc_parse_decimal(c.fields[3], &max_w), 0);
    }
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(rows, 5);
    cr_assert_float_eq(max_w, 11.125, 1e-15);
    wc_csv_close(&c);
}

/* wc_truth_file_check_start on tests/fixtures/wallmeter: what is refused
 * before a recording starts, and where. */
static int check_start(const char *name, size_t *n, wc_error *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s", wc_own_fixture(name));
    return wc_truth_file_check_start(path, "csv", 200, n, err);
}

Test(truth_file_start, a_kw_header_is_named_with_its_column)
{
    wc_error err = {{0}};
    size_t n = 99;
    cr_assert_eq(check_start("wallmeter/unit-kw-header.csv", &n, &err), -EINVAL);
    cr_assert(strstr(err.msg, "unit-kw-header.csv:1:2: column 'power_kw' holds power in kW"), "%s",
              err.msg);
    cr_assert_eq(n, 0);
}

Test(truth_file_start, a_bad_line_is_named_by_line_and_column)
{
    wc_error err = {{0}};
    size_t n = 0;
    cr_assert_eq(check_start("wallmeter/bad-third-line.csv", &n, &err), -EINVAL);
    cr_assert(strstr(err.msg, "bad-third-line.csv:3:2: "), "%s", err.msg);
}

Test(truth_file_start, readings_in_kw_are_refused)
{
    wc_error err = {{0}};
    size_t n = 0;
    cr_assert_eq(check_start("wallmeter/kw-values.csv", &n, &err), -EINVAL);
    cr_assert(strstr(err.msg, "every reading of the first 3 is below 1 W"), "%s", err.msg);
}

Test(truth_file_start, a_line_still_being_written_is_not_judged)
{
    wc_error err = {{0}};
    size_t n = 0;
    cr_assert_eq(check_start("wallmeter/still-writing.csv", &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 1, "the one complete reading is checked");
    cr_assert_eq(check_start("import/wallmeter.csv", &n, &err), 0, "%s", err.msg);
    cr_assert_gt(n, 3);
}
