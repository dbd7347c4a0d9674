/*
 * test_truth_table.c — the table of ground-truth sources
 * (collector/truth/truth_table.c) and wc_truth_open's dispatch through it:
 * each prefix is found with the rest of its spec, "sim" alone is a spec and
 * "ipmi" alone is not, a prefix must be followed by ':' ("simulate" is not
 * sim), file: logs are listed but not opened, and an unknown spec gets the
 * message listing every form, as before the table existed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collector/truth/truth.h"
#include "collector/truth/truth_table.h"

Test(truth_table, finds_prefix_and_rest)
{
    const char *rest = NULL;
    const wc_truth_kind *k = wc_truth_kind_find("ipmi:lanplus://bmc:623", &rest);
    cr_assert_not_null(k);
    cr_expect_str_eq(k->prefix, "ipmi");
    cr_expect_str_eq(rest, "lanplus://bmc:623");
    k = wc_truth_kind_find("redfish:https://bmc", &rest);
    cr_assert_not_null(k);
    cr_expect_eq(k->init, wc_truth_redfish_init);
    cr_expect_str_eq(rest, "https://bmc");
    k = wc_truth_kind_find("sim", &rest);
    cr_assert_not_null(k);
    cr_expect_str_eq(k->prefix, "sim");
    cr_expect_str_eq(rest, "");
    cr_expect_eq(wc_truth_kind_find("sim:", &rest), k);
    cr_expect_str_eq(rest, "");
    cr_expect_eq(wc_truth_kind_find("sim:lag=2,seed=7", &rest), k);
    cr_expect_str_eq(rest, "lag=2,seed=7");
    k = wc_truth_kind_find("file:/tmp/wall.csv", NULL);
    cr_assert_not_null(k);
    cr_expect_null(k->init, "file: logs are imported after the run, never polled");
}

Test(truth_table, refuses_what_no_source_names)
{
    const char *rest = "untouched";
    cr_expect_null(wc_truth_kind_find("ipmi", &rest)); /* needs :local or :lanplus:// */
    cr_expect_null(wc_truth_kind_find("simulate", &rest));
    cr_expect_null(wc_truth_kind_find("redfish", &rest));
    cr_expect_null(wc_truth_kind_find("", &rest));
    cr_expect_null(wc_truth_kind_find(NULL, &rest));
    cr_expect_str_eq(rest, "untouched");
}

Test(truth_table, every_row_complete_and_summaries_in_order)
{
    size_t n = 0;
    const wc_truth_kind *all = wc_truth_kinds(&n);
    cr_assert_eq(n, 4);
    for (size_t i = 0; i < n; i++)
        cr_expect(all[i].prefix[0] && all[i].summary[0], "row %zu incomplete", i);
    char buf[256];
    cr_expect_str_eq(wc_truth_summaries(buf, sizeof buf),
                     "ipmi:local, ipmi:lanplus://HOST[:PORT], redfish:https://HOST[:PORT], sim, "
                     "file:PATH");
}

Test(truth_table, open_refuses_unknown_and_file_specs)
{
    static const char *const specs[] = {"bogus", "file:/tmp/wall.csv", "ipmi"};
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        wc_truth_source s;
        wc_error err = {{0}};
        char want[512];
        snprintf(want, sizeof want,
                 "--truth %s: unknown source (ipmi:local, ipmi:lanplus://HOST[:PORT], "
                 "redfish:https://HOST[:PORT], sim, file:PATH)",
                 specs[i]);
        cr_expect_eq(wc_truth_open(specs[i], &cfg, &s, &err), -EINVAL);
        cr_expect_str_eq(err.msg, want);
        wc_truth_close(&s);
    }
}
