/*
 * test_ipmi_stats_window.c — issue 14 item 9: the DCMI "sampling period" (the
 * window of the BMC's min/max/avg statistics) is parsed AND stored in
 * truth_sample.stats_window_s. Parses the project's own DCMI outputs
 * (tests/fixtures/ipmi/dcmi: a days-long period, a 1 s one) and writes each
 * sample through the store, then reads the column back.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store.h"
#include "collector/truth/ipmi_parse.h"
#include "tests/unit/support/test_support.h"

/* Parses one own DCMI fixture, stores it as the only sample of a new run and
 * returns the stored stats_window_s (NAN for NULL). */
static double stored_stats_window(const char *rel, const char *db_name)
{
    char fixture[256];
    snprintf(fixture, sizeof fixture, "ipmi/dcmi/%s", rel);
    size_t n = 0;
    char *text = wc_test_slurp(wc_own_fixture(fixture), &n);
    wc_truth_sample s;
    memset(&s, 0, sizeof s);
    wc_error err = {{0}};
    cr_assert_eq(wc_ipmi_parse_dcmi(text, n, &s, &err), 0, "%s: %s", rel, err.msg);
    free(text);
    char db[4200];
    snprintf(db, sizeof db, "%s/%s", wc_test_tmpdir(), db_name);
    wc_store *st = wc_store_open(db, WC_STORE_CREATE, &err);
    cr_assert_not_null(st, "%s", err.msg);
    int64_t id = 0;
    cr_assert_eq(wc_store_put_truth_source(st, "ipmi:local", "ipmi", WC_PROV_GROUND_TRUTH,
                                           "fixture", &id, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_store_put_truth_sample(st, id, &s, &err), 0, "%s", err.msg);
    wc_store_close(st);
    sqlite3 *db3 = NULL;
    cr_assert_eq(sqlite3_open_v2(db, &db3, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db3, "SELECT stats_window_s FROM truth_sample", -1, &q, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_step(q), SQLITE_ROW);
    double v = sqlite3_column_type(q, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db3);
    return v;
}

Test(ipmi_stats_window, dcmi_sampling_period_is_stored_as_the_statistics_window)
{
    /* ipmitool: "Sampling period: 00900000 Seconds." — days: the statistics' window only */
    cr_assert_float_eq(stored_stats_window("ipmitool-activated.txt", "a.db"), 900000, 1e-9);
    /* ipmiutil: "Sampling period: 1000 ms" — also the reading's window */
    cr_assert_float_eq(stored_stats_window("ipmiutil-active.txt", "b.db"), 1, 1e-12);
    /* FreeIPMI: "Statistics reporting time period : 1728000000 milliseconds" */
    cr_assert_float_eq(stored_stats_window("freeipmi-active.txt", "c.db"), 1728000, 1e-9);
}
