/*
 * test_truth_file.c — wall meter / PTDaemon logs as ground truth
 * (collector/truth/truth_file.c): ISO 8601 with zone offsets, epoch times, the
 * locale-free decimal parser, the CSV row reader, the csv and ptd formats,
 * and errors that name FILE:LINE:COLUMN.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/truth/truth_file.h"
#include "common/wc_clock.h"
#include "tests/unit/support/test_support.h"

/* 2026-11-29T15:47:17.123Z in ns since the epoch. */
#define T0_NS 1795967237123000000LL

static int64_t iso(const char *s, const int *def)
{
    int64_t ns = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_parse_iso8601_ns(s, def, &ns, &err), 0, "%s: %s", s, err.msg);
    return ns;
}

static void iso_fails(const char *s, const char *why)
{
    int64_t ns = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_parse_iso8601_ns(s, NULL, &ns, &err), -EINVAL, "%s parsed", s);
    cr_assert(strstr(err.msg, why), "%s: '%s' lacks '%s'", s, err.msg, why);
}

Test(truth_file, iso8601_offsets_name_one_instant)
{
    cr_assert_eq(iso("2026-11-29T16:47:17.123+01:00", NULL), T0_NS);
    cr_assert_eq(iso("2026-11-29T15:47:17.123Z", NULL), T0_NS);
    cr_assert_eq(iso("2026-11-29T10:17:17.123-05:30", NULL), T0_NS);
    cr_assert_eq(iso("2026-11-29 16:47:17.123+0100", NULL), T0_NS);
    cr_assert_eq(iso("2026-11-29t16:47:17.123+01", NULL), T0_NS);
    cr_assert_eq(iso("2026-11-29T15:47:17,123z", NULL), T0_NS);
    cr_assert_eq(iso("2026-11-29T15:47:17.123456789Z", NULL), T0_NS + 456789);
    cr_assert_eq(iso("2026-11-29T15:47:17Z", NULL), T0_NS - 123000000);
    int plus_one = 3600;
    cr_assert_eq(iso("2026-11-29T16:47:17.123", &plus_one), T0_NS);
    /* An explicit zone wins over the declared default. */
    cr_assert_eq(iso("2026-11-29T15:47:17.123Z", &plus_one), T0_NS);
    /* Across a day and a year boundary. */
    cr_assert_eq(iso("2027-01-01T00:30:00+01:00", NULL), iso("2026-12-31T23:30:00Z", NULL));
    cr_assert_eq(iso("1970-01-01T00:00:00Z", NULL), 0);
    cr_assert_eq(iso("2024-02-29T12:00:00Z", NULL), 1709208000LL * 1000000000LL);
}

Test(truth_file, iso8601_refusals_say_why)
{
    iso_fails("2026-11-29T16:47:17.123", "no time zone");
    iso_fails("2026-13-01T00:00:00Z", "month 13");
    iso_fails("2025-02-29T00:00:00Z", "day 29 does not exist");
    iso_fails("2026-11-29T24:00:00Z", "out of range");
    iso_fails("2026-11-29T16:47:17+01:00 extra", "time zone");
    iso_fails("2026-11-29T16:47:17+25:00", "time zone");
    iso_fails("29-11-2026T16:47:17Z", "not an ISO 8601 date");
    iso_fails("2026-11-29", "no time of day");
    iso_fails("2026-11-29T16:47:17.Z", "empty fraction");
}

Test(truth_file, days_from_civil_and_offsets)
{
    cr_assert_eq(wc_days_from_civil(1970, 1, 1), 0);
    cr_assert_eq(wc_days_from_civil(2000, 3, 1), 11017);
    cr_assert_eq(wc_days_from_civil(2026, 11, 29), 20786);
    cr_assert_eq(wc_days_from_civil(1969, 12, 31), -1);
    int off = 0;
    cr_assert_eq(wc_parse_utc_offset("-05:30", &off), 0);
    cr_assert_eq(off, -(5 * 3600 + 30 * 60));
    cr_assert_eq(wc_parse_utc_offset("+0100", &off), 0);
    cr_assert_eq(off, 3600);
    cr_assert_eq(wc_parse_utc_offset("Z", &off), 0);
    cr_assert_eq(off, 0);
    cr_assert_eq(wc_parse_utc_offset("+1", &off), -EINVAL);
    cr_assert_eq(wc_parse_utc_offset("+01:", &off), -EINVAL);
    cr_assert_eq(wc_parse_utc_offset("UTC", &off), -EINVAL);
}

Test(truth_file, epoch_times_are_exact_to_the_ns)
{
    int64_t ns = 0;
    cr_assert_eq(wc_parse_epoch_ns("1736861292.1865184", 1000000000LL, &ns), 0);
    cr_assert_eq(ns, 1736861292186518400LL);
    cr_assert_eq(wc_parse_epoch_ns("1759592247529.773", 1000000LL, &ns), 0);
    cr_assert_eq(ns, 1759592247529773000LL);
    cr_assert_eq(wc_parse_epoch_ns("1759592247529773", 1000LL, &ns), 0);
    cr_assert_eq(ns, 1759592247529773000LL);
    cr_assert_eq(wc_parse_epoch_ns("1.0000000019", 1000000000LL, &ns), 0);
    cr_assert_eq(ns, 1000000001LL); /* below 1 ns: truncated */
    const char *bad[] = {"", "-1", "1e9", "12a", "1.", ".5", " 1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(wc_parse_epoch_ns(bad[i], 1000000000LL, &ns), -EINVAL, "'%s'", bad[i]);
    cr_assert_eq(wc_parse_epoch_ns("99999999999999999999", 1, &ns), -ERANGE);
    cr_assert_eq(wc_parse_epoch_ns("9999999999999", 1000000000LL, &ns), -ERANGE);
}

Test(truth_file, decimals_without_locale)
{
    double v = 0;
    cr_assert_eq(wc_parse_decimal("1.376693725703893", &v), 0);
    cr_assert_float_eq(v, 1.376693725703893, 1e-15);
    cr_assert_eq(wc_parse_decimal("-2.5e3", &v), 0);
    cr_assert_eq(v, -2500.0);
    cr_assert_eq(wc_parse_decimal(".5", &v), 0);
    cr_assert_eq(v, 0.5);
    cr_assert_eq(wc_parse_decimal("2.287107937566501e-05", &v), 0);
    cr_assert_float_eq(v, 2.287107937566501e-05, 1e-19);
    cr_assert_eq(wc_parse_decimal("9553228173", &v), 0);
    cr_assert_eq(v, 9553228173.0);
    const char *bad[] = {"", "nan", "inf", "1,5", "1.2.3", "e5", "1e", "+", "1 "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(wc_parse_decimal(bad[i], &v), -EINVAL, "'%s' parsed", bad[i]);
}

Test(truth_file, csv_reader_quotes_bom_crlf)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "q.csv",
                  "\xEF\xBB\xBF" "a, b ,\"c,d\"\r\n"
                  "# comment\r\n"
                  "\r\n"
                  "1,\" two \",\"say \"\"hi\"\"\",\r\n"
                  "\"open,2\n");
    char path[512];
    snprintf(path, sizeof path, "%s/q.csv", dir);
    wc_csv c;
    wc_error err = {{0}};
    cr_assert_eq(wc_csv_open(&c, path, ',', &err), 0, "%s", err.msg);
    cr_assert_eq(wc_csv_next(&c, &err), 1, "%s", err.msg);
    cr_assert_eq(c.nfields, 3);
    cr_assert_str_eq(c.fields[0], "a");
    cr_assert_str_eq(c.fields[1], "b");
    cr_assert_str_eq(c.fields[2], "c,d");
    cr_assert_eq(wc_csv_find(&c, "B", 1), 1);
    cr_assert_eq(wc_csv_find(&c, "B", 0), -1);
    cr_assert_eq(wc_csv_next(&c, &err), 1, "%s", err.msg);
    cr_assert_eq(c.line, 4);
    cr_assert_eq(c.nfields, 4);
    cr_assert_str_eq(c.fields[1], " two ");
    cr_assert_str_eq(c.fields[2], "say \"hi\"");
    cr_assert_str_eq(c.fields[3], "");
    cr_assert_eq(wc_csv_next(&c, &err), -EINVAL);
    cr_assert(strstr(err.msg, "q.csv:5:1: unterminated quoted cell"), "%s", err.msg);
    wc_csv_close(&c);
}

Test(truth_file, csv_reader_on_kepler_legacy_table)
{
    const char *p = wc_shared_fixture("corpus/datasets/kepler-legacy/power_data.csv");
    wc_csv c;
    wc_error err = {{0}};
    cr_assert_eq(wc_csv_open(&c, p, ',', &err), 0, "%s", err.msg);
    cr_assert_eq(wc_csv_next(&c, &err), 1);
    cr_assert_eq(c.nfields, 5);
    cr_assert_str_eq(c.fields[0], "");
    cr_assert_eq(wc_csv_find(&c, "Max Watts", 0), 3);
    int rows = 0, rc;
    double ivy_max = 0;
    while ((rc = wc_csv_next(&c, &err)) == 1) {
        rows++;
        if (strcmp(c.fields[1], "Ivy Bridge") == 0)
            cr_assert_eq(wc_parse_decimal(c.fields[3], &ivy_max), 0);
    }
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(rows, 12);
    cr_assert_float_eq(ivy_max, 8.248611111111112, 1e-15);
    wc_csv_close(&c);
}

static wc_truth_sample *parse_ok(const char *path, const char *fmt, size_t *n)
{
    wc_truth_sample *s = NULL;
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_file_parse(path, fmt, &s, n, &err), 0, "%s", err.msg);
    return s;
}

static void parse_fails(const char *path, const char *fmt, int code, const char *why)
{
    wc_truth_sample *s = (wc_truth_sample *)1;
    size_t n = 7;
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_file_parse(path, fmt, &s, &n, &err), code, "%s", err.msg);
    cr_assert_null(s);
    cr_assert_eq(n, 0);
    cr_assert(strstr(err.msg, why), "'%s' lacks '%s'", err.msg, why);
}

Test(truth_file, csv_wall_meter_log)
{
    size_t n = 0;
    wc_truth_sample *s = parse_ok(wc_own_fixture("import/wallmeter.csv"), "csv", &n);
    cr_assert_eq(n, 5);
    const int64_t want_ns[5] = {T0_NS, T0_NS + 1000000000LL, T0_NS + 2000000000LL,
                                T0_NS + 3377000000LL, T0_NS + 4000000000LL};
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(s[i].poll_wall_ns, want_ns[i], "sample %zu", i);
        cr_assert_eq(s[i].device_ts_ns, want_ns[i]);
        cr_assert_eq(s[i].poll_mono_ns, 0);
        cr_assert_str_eq(s[i].path, "csv:watts");
    }
    cr_assert_eq(s[0].status, WC_TRUTH_OK);
    cr_assert_float_eq(s[0].watts, 245.3, 1e-12);
    cr_assert_eq(s[0].window_known, 1);
    cr_assert_float_eq(s[0].window_s, 1.0, 0);
    cr_assert_float_eq(s[1].watts, 250.0, 0);
    /* An empty cell and a 0 W cell are unavailable, never 0 W. */
    cr_assert_eq(s[2].status, WC_TRUTH_UNAVAILABLE);
    cr_assert(isnan(s[2].watts));
    cr_assert(strstr(s[2].error, "line 7: empty watts cell"), "%s", s[2].error);
    cr_assert_eq(s[3].status, WC_TRUTH_UNAVAILABLE);
    cr_assert(isnan(s[3].watts));
    cr_assert(strstr(s[3].error, "0 W"), "%s", s[3].error);
    cr_assert_eq(s[3].window_known, 0);
    cr_assert_float_eq(s[4].watts, 255.5, 0);
    wc_truth_file_align(s, n, T0_NS, 5000);
    cr_assert_eq(s[0].poll_mono_ns, 5000);
    cr_assert_eq(s[4].poll_mono_ns, 5000 + 4000000000LL);
    free(s);
}

Test(truth_file, csv_without_zone_needs_a_declared_offset)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "naive.csv", "Time,Watts\n2026-11-29T16:47:17.123,245.3\n");
    char path[512];
    snprintf(path, sizeof path, "%s/naive.csv", dir);
    parse_fails(path, "csv", -EINVAL, "naive.csv:2:1: column 'time': ");
    parse_fails(path, NULL, -EINVAL, "has no time zone");
    size_t n = 0;
    wc_truth_sample *s = parse_ok(path, "csv:+01:00", &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(s[0].poll_wall_ns, T0_NS);
    free(s);
}

Test(truth_file, csv_malformed_lines_name_file_line_column)
{
    const char *dir = wc_test_tmpdir();
    char path[512];
    wc_test_write(dir, "bad.csv", "time,watts\n1795967237.123,245.3\n1795967238.123,24x5\n");
    snprintf(path, sizeof path, "%s/bad.csv", dir);
    parse_fails(path, "csv", -EINVAL, "bad.csv:3:2: column 'watts': '24x5' is not a number");
    wc_test_write(dir, "neg.csv", "time,watts\n1795967237.123,-5\n");
    snprintf(path, sizeof path, "%s/neg.csv", dir);
    parse_fails(path, "csv", -EINVAL, "neg.csv:2:2: column 'watts': '-5' is not a non-negative");
    wc_test_write(dir, "short.csv", "time,watts\n1795967237.123\n");
    snprintf(path, sizeof path, "%s/short.csv", dir);
    parse_fails(path, "csv", -EINVAL, "short.csv:2: 1 cells, the header needs at least 2");
    wc_test_write(dir, "back.csv", "time,watts\n1795967237.123,1\n1795967236,2\n");
    snprintf(path, sizeof path, "%s/back.csv", dir);
    parse_fails(path, "csv", -EINVAL, "back.csv:3:1: time goes backwards");
    wc_test_write(dir, "nohdr.csv", "when,power\n1,2\n");
    snprintf(path, sizeof path, "%s/nohdr.csv", dir);
    parse_fails(path, "csv", -EINVAL, "nohdr.csv:1: the header row needs a 'time' and a 'watts'");
    wc_test_write(dir, "empty.csv", "# nothing\ntime,watts\n");
    snprintf(path, sizeof path, "%s/empty.csv", dir);
    parse_fails(path, "csv", -ENODATA, "no reading");
    parse_fails("/nonexistent/x.csv", "csv", -ENOENT, "/nonexistent/x.csv");
    parse_fails(path, "json", -EINVAL, "unknown format");
    parse_fails(path, "csv:+1", -EINVAL, "is not a UTC offset");
    wc_error err = {{0}};
    cr_assert_eq(wc_truth_file_check_format("ptd:-05:30", &err), 0, "%s", err.msg);
    cr_assert_eq(wc_truth_file_check_format(NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(wc_truth_file_check_format("ptd", &err), -EINVAL);
    cr_assert(strstr(err.msg, "ptd:+01:00"), "%s", err.msg);
}

Test(truth_file, ptd_log_with_offset)
{
    size_t n = 0;
    wc_truth_sample *s = parse_ok(wc_own_fixture("import/ptd.log"), "ptd:+01:00", &n);
    cr_assert_eq(n, 4);
    cr_assert_eq(s[0].poll_wall_ns, T0_NS);
    cr_assert_eq(s[1].poll_wall_ns, T0_NS + 1002000000LL);
    cr_assert_eq(s[3].poll_wall_ns, T0_NS + 2998000000LL);
    cr_assert_float_eq(s[0].watts, 245.3, 1e-12);
    cr_assert_str_eq(s[0].path, "ptd:Watts mark=warmup");
    /* -1 is PTDaemon's "no reading". */
    cr_assert_eq(s[1].status, WC_TRUTH_UNAVAILABLE);
    cr_assert(isnan(s[1].watts));
    /* Multi-channel: the first Watts is the analyser's total. */
    cr_assert_float_eq(s[2].watts, 301.25, 1e-12);
    cr_assert_str_eq(s[2].path, "ptd:Watts mark=run-1");
    cr_assert_float_eq(s[3].watts, 299.0, 0);
    free(s);
    s = parse_ok(wc_own_fixture("import/ptd.log"), "ptd:Z", &n);
    cr_assert_eq(s[0].poll_wall_ns, T0_NS + 3600LL * 1000000000LL);
    free(s);
}

Test(truth_file, ptd_requires_the_hosts_offset_and_good_lines)
{
    parse_fails(wc_own_fixture("import/ptd.log"), "ptd", -EINVAL, "ptd:+01:00");
    const char *dir = wc_test_tmpdir();
    char path[512];
    wc_test_write(dir, "p.log",
                  "Time,11-29-2026 16:47:17.123,Watts,245.3,Volts,230.1,Amps,1.07,PF,0.99,Mark,a\n"
                  "Error: analyser timeout\n");
    snprintf(path, sizeof path, "%s/p.log", dir);
    parse_fails(path, "ptd:+01:00", -EINVAL, "p.log:2:1: not a PTDaemon reading");
    wc_test_write(dir, "t.log", "Time,29-11-2026 16:47:17.123,Watts,245.3\n");
    snprintf(path, sizeof path, "%s/t.log", dir);
    parse_fails(path, "ptd:+01:00", -EINVAL, "t.log:1:2: PTDaemon time: ");
    wc_test_write(dir, "w.log", "Time,11-29-2026 16:47:17.123,Volts,245.3\n");
    snprintf(path, sizeof path, "%s/w.log", dir);
    parse_fails(path, "ptd:+01:00", -EINVAL, "w.log:1:3: expected 'Watts'");
    wc_test_write(dir, "v.log", "Time,11-29-2026 16:47:17.123,Watts,abc\n");
    snprintf(path, sizeof path, "%s/v.log", dir);
    parse_fails(path, "ptd:+01:00", -EINVAL, "v.log:1:4: Watts 'abc'");
}

/* --- refusals: truncated logs, implausible values, control characters --- */

static const char *write_log(const char *name, const char *text)
{
    static char path[4][512];
    static int next;
    const char *dir = wc_test_tmpdir();
    char *out = path[next++ % 4];
    wc_test_write(dir, name, text);
    snprintf(out, sizeof path[0], "%s/%s", dir, name);
    return out;
}

Test(truth_file, truncated_last_line_is_refused)
{
    /* A meter log copied while the logger was writing: 2 of "245.3" kept. */
    parse_fails(write_log("cut.csv", "time,watts\n1795967237.123,250\n1795967238.123,24"), "csv",
                -EINVAL,
                "cut.csv:3:2: truncated last line (no newline at end of file: the logger was "
                "still writing or the copy was cut)");
    parse_fails(write_log("cut.log", "Time,11-29-2026 16:47:17.123,Watts,245.3,Volts,230.1\n"
                                     "Time,11-29-2026 16:47:18.123,Watts,24"),
                "ptd:Z", -EINVAL, "cut.log:2:4: truncated last line");
    /* Cut inside a quoted cell: still reported as the cut, not a bad quote. */
    parse_fails(write_log("q.csv", "time,watts\n1795967237.123,\"24"), "csv", -EINVAL,
                "q.csv:2:2: truncated last line");
    /* The last line complete, or a trailing comment without its newline: fine. */
    size_t n = 0;
    wc_truth_sample *s = parse_ok(write_log("ok.csv", "time,watts\r\n1795967237.123,250\r\n"),
                                  "csv", &n);
    cr_assert_eq(n, 1);
    free(s);
    s = parse_ok(write_log("ok2.csv", "time,watts\n1795967237.123,250\n# end"), "csv", &n);
    cr_assert_eq(n, 1);
    free(s);
    /* wc_csv itself only refuses when asked to. */
    wc_csv c;
    wc_error err = {{0}};
    cr_assert_eq(wc_csv_open(&c, write_log("raw.csv", "a,b\n1,2"), ',', &err), 0, "%s", err.msg);
    cr_assert_eq(wc_csv_next(&c, &err), 1);
    cr_assert_eq(wc_csv_next(&c, &err), 1, "%s", err.msg);
    cr_assert_str_eq(c.fields[1], "2");
    wc_csv_close(&c);
}

Test(truth_file, implausible_wall_power_is_refused)
{
    parse_fails(write_log("big.csv", "time,watts\n1795967237.123,250\n1795967238.123,1e308\n"),
                "csv", -EINVAL,
                "big.csv:3:2: column 'watts' '1e308': implausible wall power (1e+308 W; a node "
                "draws at most 100000 W)");
    parse_fails(write_log("big2.csv", "time,watts\n1795967237.123,100000.001\n"), "csv", -EINVAL,
                "big2.csv:2:2: column 'watts' '100000.001': implausible wall power");
    parse_fails(write_log("inf.csv", "time,watts\n1795967237.123,1e400\n"), "csv", -EINVAL,
                "inf.csv:2:2: column 'watts': '1e400' (5 characters) is out of range");
    parse_fails(write_log("big.log", "Time,11-29-2026 16:47:17.123,Watts,1e308,Volts,230.1\n"),
                "ptd:Z", -EINVAL,
                "big.log:1:4: Watts '1e308': implausible wall power (1e+308 W; a node draws at "
                "most 100000 W)");
    parse_fails(write_log("inf.log", "Time,11-29-2026 16:47:17.123,Watts,1e999\n"), "ptd:Z",
                -EINVAL, "inf.log:1:4: Watts '1e999' is out of range");
    /* Exactly 65535 W is the BMC "no reading" marker: unavailable, not a reading;
     * 100 kW itself is a (large) reading. */
    size_t n = 0;
    wc_truth_sample *s = parse_ok(
        write_log("ff.csv", "time,watts\n1795967237.123,65535\n1795967238.123,100000\n"), "csv",
        &n);
    cr_assert_eq(n, 2);
    cr_assert_eq(s[0].status, WC_TRUTH_UNAVAILABLE);
    cr_assert(isnan(s[0].watts));
    cr_assert(strstr(s[0].error, "line 2: 65535 W: the \"no reading\" marker"), "%s", s[0].error);
    cr_assert_eq(s[1].status, WC_TRUTH_OK);
    cr_assert_float_eq(s[1].watts, 100000.0, 0);
    free(s);
    s = parse_ok(write_log("ff.log", "Time,11-29-2026 16:47:17.123,Watts,65535.0\n"), "ptd:Z", &n);
    cr_assert_eq(s[0].status, WC_TRUTH_UNAVAILABLE);
    cr_assert(isnan(s[0].watts));
    free(s);
}

Test(truth_file, window_above_a_day_is_refused)
{
    parse_fails(write_log("w.csv", "time,watts,window_s\n1795967237.123,250,86400.5\n"), "csv",
                -EINVAL,
                "w.csv:2:3: column 'window_s': 86400.5 s is above 86400 s (one day)");
    parse_fails(write_log("w2.csv", "time,watts,window_s\n1795967237.123,250,1e309\n"), "csv",
                -EINVAL, "w2.csv:2:3: column 'window_s': '1e309' (5 characters) is out of range");
    size_t n = 0;
    wc_truth_sample *s =
        parse_ok(write_log("w3.csv", "time,watts,window_s\n1795967237.123,250,86400\n"), "csv", &n);
    cr_assert_float_eq(s[0].window_s, 86400.0, 0);
    free(s);
}

Test(truth_file, decimals_out_of_range_are_told_apart)
{
    double v = 0;
    cr_assert_eq(wc_parse_decimal("1e400", &v), -ERANGE);
    cr_assert_eq(wc_parse_decimal("-1e400", &v), -ERANGE);
    size_t n = 1 << 20;
    char *big = malloc(n + 1);
    cr_assert_not_null(big);
    memset(big, '9', n);
    big[n] = '\0';
    cr_assert_eq(wc_parse_decimal(big, &v), -ERANGE);
    big[n - 1] = 'x';
    cr_assert_eq(wc_parse_decimal(big, &v), -EINVAL);
    free(big);
    cr_assert_eq(wc_parse_decimal("1e-400", &v), 0);
    cr_assert_eq(v, 0.0);
    cr_assert_eq(wc_parse_decimal("1.7e308", &v), 0);
}

Test(truth_file, wall_watts_classes)
{
    const char *why = NULL;
    cr_assert_eq(wc_truth_watts_class(245.3, &why), 0);
    cr_assert_eq(wc_truth_watts_class(100000.0, &why), 0);
    cr_assert_eq(wc_truth_watts_class(65534.9, &why), 0);
    cr_assert_eq(wc_truth_watts_class(0.0, &why), 1);
    cr_assert(strstr(why, "0 W"), "%s", why);
    cr_assert_eq(wc_truth_watts_class(65535.0, &why), 1);
    cr_assert(strstr(why, "65535 W"), "%s", why);
    cr_assert_eq(wc_truth_watts_class(100000.01, &why), -ERANGE);
    cr_assert_eq(wc_truth_watts_class(INFINITY, &why), -ERANGE);
    cr_assert_eq(wc_truth_watts_class(NAN, &why), -ERANGE);
}

Test(truth_file, quoted_text_has_no_control_characters)
{
    char q[12];
    cr_assert_str_eq(wc_csv_clean(q, sizeof q, "a\033[2J\x7f\tb"), "a?[2J??b");
    cr_assert_str_eq(wc_csv_clean(q, sizeof q, "0123456789abcdef"), "01234567...");
    cr_assert_str_eq(wc_csv_clean(q, sizeof q, "0123456789a"), "0123456789a");
    cr_assert_str_eq(wc_csv_clean(q, sizeof q, "caf\xc3\xa9"), "caf\xc3\xa9");
    iso_fails("2026-11-29T16:47:17\033]0;x\a", "'2026-11-29T16:47:17?]0;x?': time zone '?]0;x?'");
    parse_fails(write_log("c.csv", "time,watts\n1795967237.123,2\0335\n"), "csv", -EINVAL,
                "c.csv:2:2: column 'watts': '2?5' is not a number");
    parse_fails(write_log("h.csv", "\033[31mtime,power\n1,2\n"), "csv", -EINVAL,
                "found '?[31mtime', ...");
    parse_fails(write_log("p.log", "Time,11-29-2026\a16:47:17.123,Watts,245.3\n"), "ptd:Z",
                -EINVAL, "p.log:1:2: '11-29-2026?16:47:17.123' is not a PTDaemon time");
}
