/*
 * test_exporter_counts.c — the exporter part of `record`'s closing line
 * (cmd_record.c wc_cli_exporter_counts): a scrape the run's end cancelled is
 * counted apart, "cancelled by the run's end", neither ok nor failed, so the
 * line agrees with the error scrape the run database holds.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "cli/cli.h"
#include "collector/recorder.h"

Test(exporter_counts, cancelled_by_the_run_end_is_neither_ok_nor_failed)
{
    wc_record_opts o;
    wc_record_result res;
    memset(&o, 0, sizeof o);
    memset(&res, 0, sizeof res);
    char buf[256];
    wc_cli_exporter_counts(&o, &res, buf, sizeof buf);
    cr_assert_str_empty(buf, "without --exporter: %s", buf);
    o.nexporter = 1;
    res.exporter_ok = 61;
    wc_cli_exporter_counts(&o, &res, buf, sizeof buf);
    cr_assert_str_eq(buf, "; exporter scrapes 61 ok, 0 failed");
    res.exporter_cancelled = 1;
    wc_cli_exporter_counts(&o, &res, buf, sizeof buf);
    cr_assert_str_eq(buf, "; exporter scrapes 61 ok, 0 failed, 1 cancelled by the run's end");
}
