/*
 * test_ipmi_cases.c — the IPMI parsers (collector/truth/ipmi_parse.c) on the
 * project's own BMC outputs, tests/fixtures/ipmi/{dcmi,sdr,errors}: every
 * DCMI layout quirk (indentation, tabs, padded day, glued and truncated
 * lines, FreeIPMI and ipmiutil forms, a deactivated reading with and without
 * a value), the SDR layouts (10-column sensor, elist, list with interleaved
 * errors, PSU sums, discrete sensors named like power), the error classes
 * (no DCMI, transport failures), cross-fed formats, and truth_ipmi.c
 * preferring a readable SDR over a deactivated DCMI reading (with a fake
 * ipmitool). test_ipmi_parse.c proves the same on corpus/ipmitool.
 * Buffers go to the parsers without a terminating NUL (exact heap copies).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collector/truth/ipmi_parse.h"
#include "collector/truth/truth.h"
#include "common/wc_clock.h"
#include "tests/unit/support/test_support.h"

typedef int (*parse_fn)(const char *, size_t, wc_truth_sample *, wc_error *);

#define SEC(x) ((int64_t)(x) * WC_NS_PER_S)

static int parse_text(parse_fn fn, const char *text, size_t n, wc_truth_sample *s, wc_error *e)
{
    char *exact = malloc(n ? n : 1);
    cr_assert_not_null(exact);
    memcpy(exact, text, n);
    memset(s, 0, sizeof *s);
    memset(e, 0, sizeof *e);
    int rc = fn(exact, n, s, e);
    free(exact);
    return rc;
}

/* Parses tests/fixtures/ipmi/<rel>. */
static int parse_fixture(parse_fn fn, const char *rel, wc_truth_sample *s, wc_error *e)
{
    char path[256];
    snprintf(path, sizeof path, "ipmi/%s", rel);
    size_t n;
    char *text = wc_test_slurp(wc_own_fixture(path), &n);
    int rc = parse_text(fn, text, n, s, e);
    free(text);
    return rc;
}

static void expect_ok(const wc_truth_sample *s, double watts, const char *path)
{
    cr_assert_eq(s->status, WC_TRUTH_OK, "status %s: %s", wc_truth_status_name(s->status),
                 s->error);
    cr_assert_float_eq(s->watts, watts, 1e-9, "watts %g, want %g", s->watts, watts);
    cr_assert_str_eq(s->path, path);
    cr_assert_str_empty(s->error);
}

static void expect_stats(const wc_truth_sample *s, double min, double max, double avg)
{
    cr_assert_float_eq(s->min_watts, min, 1e-9);
    cr_assert_float_eq(s->max_watts, max, 1e-9);
    cr_assert_float_eq(s->avg_watts, avg, 1e-9);
}

static void expect_window(const wc_truth_sample *s, int known, double window_s)
{
    cr_assert_eq(s->window_known, known);
    cr_assert_float_eq(s->window_s, window_s, 1e-12);
}

static void expect_unavailable(const wc_truth_sample *s, const char *reason_part)
{
    cr_assert_eq(s->status, WC_TRUTH_UNAVAILABLE, "status %s (%s)",
                 wc_truth_status_name(s->status), s->error);
    cr_assert(strstr(s->error, reason_part), "reason '%s' lacks '%s'", s->error, reason_part);
}

static void expect_error(int rc, int want, const wc_truth_sample *s, const wc_error *e,
                         const char *part)
{
    cr_assert_eq(rc, want, "rc %d (%s), want %d", rc, e->msg, want);
    cr_assert_eq(s->status, WC_TRUTH_ERROR);
    cr_assert(isnan(s->watts), "an error must not carry watts");
    cr_assert(strstr(e->msg, part), "message '%s' lacks '%s'", e->msg, part);
    cr_assert(strstr(s->error, part), "sample error '%s' lacks '%s'", s->error, part);
}

/* ---- DCMI ---------------------------------------------------------------- */

/* An activated reading: watts, statistics, window and device time. */
typedef struct dcmi_ok {
    const char *file, *path;
    double watts, min, max, avg, window_s;
    int window_known;
    long long ts;
    double stats_window_s; /* the sampling period: window of min/max/avg (issue 14 item 9) */
} dcmi_ok;

Test(ipmi_cases, dcmi_activated_layouts)
{
    static const dcmi_ok cases[] = {
        /* the 900000 s period is the statistics window, not the reading's */
        {"dcmi/ipmitool-activated.txt", "dcmi:instantaneous (stats window 900000 s)", 243, 180,
         301, 222, 0, 0, 1552386030, 900000},
        {"dcmi/ipmitool-padded-day.txt", "dcmi:instantaneous (stats window 54321 s)", 188, 150,
         260, 171, 0, 0, 1717315509, 54321},
        {"dcmi/ipmitool-tabs-1s.txt", "dcmi:instantaneous", 297, 91, 455, 310, 1, 1, 1731087723, 1},
        {"dcmi/ipmitool-unindented.txt", "dcmi:instantaneous (stats window 412300 s)", 154, 120,
         390, 149, 0, 0, 1500445800, 412300},
        {"dcmi/freeipmi-active.txt", "dcmi:instantaneous (stats window 1728000 s)", 275, 102,
         488, 263, 0, 0, 1713189807, 1728000},
        {"dcmi/freeipmi-active-unit-case.txt", "dcmi:instantaneous (stats window 1728000 s)", 275,
         102, 488, 263, 0, 0, 1713189807, 1728000},
        /* "Power Limit" and its own "Sampling period: 2048 sec" are not the reading's */
        {"dcmi/ipmiutil-active.txt", "dcmi:instantaneous", 266, 97, 471, 258, 1, 1, 1736766671, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const dcmi_ok *c = &cases[i];
        wc_truth_sample s;
        wc_error e;
        cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, c->file, &s, &e), 0, "%s: %s", c->file,
                     e.msg);
        expect_ok(&s, c->watts, c->path);
        expect_stats(&s, c->min, c->max, c->avg);
        expect_window(&s, c->window_known, c->window_s);
        cr_assert_float_eq(s.stats_window_s, c->stats_window_s, 1e-12, "%s: stats window %g s",
                           c->file, s.stats_window_s);
        cr_assert_eq(s.device_ts_ns, SEC(c->ts), "%s: device time", c->file);
    }
}

Test(ipmi_cases, dcmi_deactivated_with_a_value_is_unavailable_keeping_it)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/openbmc-deactivated-value.txt", &s, &e),
                 0);
    expect_unavailable(&s, "deactivated");
    cr_assert(strstr(s.error, "412 W"), "%s", s.error);
    cr_assert(strstr(s.error, "device time unset"), "%s", s.error);
    cr_assert_float_eq(s.watts, 412, 1e-9);
    expect_stats(&s, 412, 412, 412);
    cr_assert_eq(s.device_ts_ns, 0);
    expect_window(&s, 0, 0);
    cr_assert_str_eq(s.path, "dcmi:instantaneous (device time unset)");
}

Test(ipmi_cases, dcmi_deactivated_zero_is_never_0w)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/openbmc-deactivated-zero.txt", &s, &e),
                 0);
    expect_unavailable(&s, "no reading");
    cr_assert(strstr(s.error, "deactivated"), "%s", s.error);
    cr_assert(isnan(s.watts) && isnan(s.min_watts) && isnan(s.max_watts) && isnan(s.avg_watts));
    cr_assert_eq(s.device_ts_ns, 0);
}

Test(ipmi_cases, dcmi_glued_timestamp_and_truncated_state)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_fixture(wc_ipmi_parse_dcmi, "dcmi/supermicro-glued-truncated.txt", &s, &e);
    expect_error(rc, -EPROTO, &s, &e, "truncated");
    /* the glued "Sampling period:" is still split off the timestamp line */
    cr_assert_eq(s.device_ts_ns, SEC(1715093110)); /* 05/07/24 16:45:10 CEST */
    cr_assert_str_eq(s.path, "dcmi:instantaneous (stats window 65530 s)");
}

Test(ipmi_cases, dcmi_not_available_and_not_active)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/freeipmi-not-available.txt", &s, &e), 0);
    expect_unavailable(&s, "Not Available");
    cr_assert(isnan(s.watts));
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmiutil-not-active.txt", &s, &e), 0);
    expect_unavailable(&s, "not active");
    cr_assert(isnan(s.watts));
}

/* ---- errors --------------------------------------------------------------- */

Test(ipmi_cases, no_dcmi_on_this_bmc)
{
    static const struct {
        const char *file, *part;
    } cases[] = {
        {"errors/freeipmi-bad-completion-code.txt", "bad completion code"},
        {"errors/freeipmi-unsupported.txt", "command invalid or unsupported"},
        {"errors/ipmitool-no-valid-response.txt", "A valid DCMI command was not returned! (80)"},
        {"errors/oem-raw-invalid-command.txt", "rsp=0xc1): Invalid Command"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wc_truth_sample s;
        wc_error e;
        int rc = parse_fixture(wc_ipmi_parse_dcmi, cases[i].file, &s, &e);
        expect_error(rc, -ENODATA, &s, &e, cases[i].part);
    }
}

/* Three outputs separated by "---": each a transport failure, never "DCMI
 * unsupported" (which would switch to the SDR for good). */
Test(ipmi_cases, session_and_device_errors_are_transport_failures)
{
    size_t n;
    char *text = wc_test_slurp(wc_own_fixture("ipmi/errors/session-and-device-errors.txt"), &n);
    static const char *const want[] = {"Error: Unable to establish IPMI v2 / RMCP+ session",
                                       "Error loading interface lan",
                                       "Could not open device at /dev/ipmi0"};
    char *part = text;
    for (int i = 0; i < 3; i++) {
        char *sep = strstr(part, "---\n");
        size_t len = sep ? (size_t)(sep - part) : strlen(part);
        wc_truth_sample s;
        wc_error e;
        expect_error(parse_text(wc_ipmi_parse_dcmi, part, len, &s, &e), -EIO, &s, &e, want[i]);
        expect_error(parse_text(wc_ipmi_parse_sdr, part, len, &s, &e), -EIO, &s, &e, want[i]);
        part = sep ? sep + 4 : part + len;
    }
    cr_assert_str_empty(part);
    free(text);
}

/* ---- SDR ------------------------------------------------------------------ */

Test(ipmi_cases, sdr_layouts)
{
    static const struct {
        const char *file;
        double watts;
        const char *path;
    } cases[] = {
        {"sdr/sensor-10-columns.txt", 212, "sdr:System Level"},
        {"sdr/type-current-pwr-consumption.txt", 126, "sdr:Pwr Consumption"},
        {"sdr/psu-watts-and-discrete.txt", 200, "sdr:sum(Power Supply 1,Power Supply 2)"},
        {"sdr/elist-psu-power-in.txt", 265, "sdr:sum(PS1 Power In,PS2 Power In)"},
        {"sdr/avg-power-and-discrete-power-names.txt", 185, "sdr:Avg Power"},
        {"sdr/elist-interleaved-errors.txt", 95, "sdr:sum(Power Supply 1)"},
        {"sdr/list-interleaved-errors.txt", 160, "sdr:Avg Power"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wc_truth_sample s;
        wc_error e;
        cr_assert_eq(parse_fixture(wc_ipmi_parse_sdr, cases[i].file, &s, &e), 0, "%s: %s",
                     cases[i].file, e.msg);
        expect_ok(&s, cases[i].watts, cases[i].path);
        cr_assert(isnan(s.min_watts) && isnan(s.max_watts) && isnan(s.avg_watts));
        expect_window(&s, 0, 0);
        cr_assert_eq(s.device_ts_ns, 0);
    }
}

Test(ipmi_cases, sdr_without_a_power_sensor)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_fixture(wc_ipmi_parse_sdr, "sdr/no-power-sensor.txt", &s, &e);
    expect_error(rc, -ENODATA, &s, &e, "no system or PSU input power sensor");
}

Test(ipmi_cases, cross_feeding_formats_is_a_clean_error)
{
    static const char *const dcmi[] = {"dcmi/ipmitool-activated.txt", "dcmi/freeipmi-active.txt",
                                       "dcmi/ipmiutil-active.txt"};
    for (size_t i = 0; i < sizeof dcmi / sizeof *dcmi; i++) {
        wc_truth_sample s;
        wc_error e;
        int rc = parse_fixture(wc_ipmi_parse_sdr, dcmi[i], &s, &e);
        expect_error(rc, -EPROTO, &s, &e, "unsupported format");
    }
    wc_truth_sample s;
    wc_error e;
    int rc = parse_fixture(wc_ipmi_parse_dcmi, "sdr/sensor-10-columns.txt", &s, &e);
    expect_error(rc, -EPROTO, &s, &e, "unsupported format");
}

/* ---- truth_ipmi.c with a fake ipmitool -------------------------------------- */

/* A shell script standing in for ipmitool: answers `dcmi power reading` and
 * `sdr elist full` from <dir>/<dcmi|sdr>.out. Returns the tool's path. */
static const char *fake_ipmitool(const char *dir)
{
    static char tool[512];
    char script[1024];
    snprintf(script, sizeof script,
             "#!/bin/sh\n"
             "case \"$*\" in\n"
             "  *'dcmi power reading') q=dcmi ;;\n"
             "  *'sdr elist full') q=sdr ;;\n"
             "  *) exit 1 ;;\n"
             "esac\n"
             "cat '%s'/$q.out\n",
             dir);
    wc_test_write(dir, "ipmitool", script);
    snprintf(tool, sizeof tool, "%s/ipmitool", dir);
    cr_assert_eq(chmod(tool, 0755), 0);
    return tool;
}

Test(ipmi_cases, deactivated_dcmi_prefers_a_readable_sdr)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s", wc_test_tmpdir());
    char *deact = wc_test_slurp(wc_own_fixture("ipmi/dcmi/openbmc-deactivated-value.txt"), NULL);
    wc_test_write(dir, "dcmi.out", deact);
    free(deact);
    wc_test_write(dir, "sdr.out", "total_power      | 90h | ok  |  7.1 | 409 Watts\n");
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    cfg.ipmitool = fake_ipmitool(dir);
    cfg.timeout_ns = 5 * WC_NS_PER_S;
    wc_truth_source src;
    wc_error e = {{0}};
    cr_assert_eq(wc_truth_open("ipmi:local", &cfg, &src, &e), 0, "%s", e.msg);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&src, &t), 0, "%s", t.error);
    expect_ok(&t, 409, "sdr:total_power");
    /* no power sensor in the SDR: the deactivated DCMI sample stands */
    wc_test_write(dir, "sdr.out", "Inlet Temp       | 04h | ok  |  7.1 | 23 degrees C\n");
    cr_assert_eq(wc_truth_poll(&src, &t), 0, "%s", t.error);
    expect_unavailable(&t, "412 W");
    wc_truth_close(&src);
}
