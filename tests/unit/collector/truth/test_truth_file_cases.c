/*
 * test_truth_file_cases.c — the CSV reader of collector/truth/truth_file.c on
 * the project's own model table, tests/fixtures/import/model-table.csv (an
 * unnamed index column, names with spaces, decimals). test_truth_file.c
 * proves the same on corpus/datasets/kepler-legacy/power_data.csv.
 */
#include <criterion/criterion.h>
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
