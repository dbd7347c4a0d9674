/*
 * test_import_limits.c — `wattcal import` at its limits (issue 16): energy
 * sums that would wrap modulo 2^64 are refused (--energy-col and the GMT
 * RAPL log, defect 8), an epoch time past int64 nanoseconds is refused with
 * the wall-log parser's reason (defect 1), and a target without a database
 * path checks the input and writes nothing (the fuzz harnesses).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/import/import.h"
#include "tests/unit/support/test_support.h"

/* Imports text as a CSV with time column t (epoch s) and mapping arg of
 * kind; db NULL: check only. */
static int import_csv(const char *text, const char *arg, wc_import_col_kind kind,
                      const char *db, wc_import_summary *sum, wc_error *err)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "in.csv", text);
    static char path[512];
    snprintf(path, sizeof path, "%s/in.csv", dir);
    wc_import_csv_opts o;
    memset(&o, 0, sizeof o);
    o.path = path;
    o.time_col = "t";
    o.time_unit_ns = 1000000000LL;
    o.util_scale = 1.0;
    cr_assert_eq(wc_import_parse_col(arg, kind, &o.cols[0], err), 0, "%s", err->msg);
    o.ncols = 1;
    wc_import_target t = {.db_path = db, .provenance = WC_PROV_MEASURED};
    return wc_import_csv(&o, &t, sum, err);
}

Test(import_limits, energy_col_sums_never_wrap)
{
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *text = "t,e\n1764431237,10000000000000000000\n1764431238,10000000000000000000\n";
    cr_assert_eq(import_csv(text, "e:package:uj", WC_IMPORT_ENERGY, NULL, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "in.csv:3:2: column 'e': the energies summed so far pass 2^64 uJ"),
              "%s", err.msg);
    /* just below: accepted */
    text = "t,e\n1764431237,9000000000000000000\n1764431238,9000000000000000000\n";
    cr_assert_eq(import_csv(text, "e:package:uj", WC_IMPORT_ENERGY, NULL, &sum, &err), 0, "%s",
                 err.msg);
}

Test(import_limits, an_epoch_past_int64_ns_says_why)
{
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *text = "t,e\n1764431237,1\n9223372036.9,1\n";
    cr_assert_eq(import_csv(text, "e:package:uj", WC_IMPORT_ENERGY, NULL, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "in.csv:3:1: column 't': '9223372036.9' is out of range: after "
                              "2262-04-11T23:47:16Z"),
              "%s", err.msg);
}

Test(import_limits, a_target_without_a_path_checks_only)
{
    wc_import_summary sum;
    wc_error err = {{0}};
    const char *text = "t,c\n1764431237,1000\n1764431238,2000\n1764431239,3000\n";
    cr_assert_eq(import_csv(text, "c:package:uj", WC_IMPORT_COUNTER, NULL, &sum, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(sum.ticks, 3);
    cr_assert_eq(sum.zones, 1);
    cr_assert_eq(sum.interval_ns, 1000000000LL);
    char db[512];
    snprintf(db, sizeof db, "%s/run.db", wc_test_tmpdir());
    cr_assert_neq(access(db, F_OK), 0);
}

Test(import_limits, gmt_rapl_sums_never_wrap)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "gmt/cpu_energy_rapl_msr_component.log",
                  "1764431237000000 1 Package_0\n"
                  "1764431238000000 10000000000000000000 Package_0\n"
                  "1764431239000000 10000000000000000000 Package_0\n");
    char gdir[512];
    snprintf(gdir, sizeof gdir, "%s/gmt", dir);
    wc_import_gmt_opts o = {.dir = gdir, .ceiling_watts = 1e30};
    wc_import_target t = {.db_path = NULL};
    wc_import_summary sum;
    wc_error err = {{0}};
    cr_assert_eq(wc_import_gmt(&o, &t, &sum, &err), -EINVAL);
    cr_assert(strstr(err.msg, "cpu_energy_rapl_msr_component.log:3:2: Package_0: the interval "
                              "energies summed so far pass 2^64 uJ"),
              "%s", err.msg);
}
