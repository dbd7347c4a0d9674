/*
 * test_ipmi_parse.c — the IPMI ground-truth source: the pure parsers of
 * collector/truth/ipmi_parse.c over EVERY file of the shared corpus
 * (corpus/ipmitool/{dcmi,sdr,errors}, expected values from corpus/SOURCES.md
 * and the files themselves) plus edge cases written here, and
 * collector/truth/truth_ipmi.c driving a fake ipmitool (a shell script in a temp
 * dir): argv without the password, TZ=UTC, DCMI -> SDR fallback remembered,
 * a hung ipmitool killed at the timeout, error text from the first line.
 *
 * Corpus buffers are handed to the parsers without a terminating NUL (exact
 * heap copies), so AddressSanitizer catches any read past the length.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/truth/ipmi_parse.h"
#include "collector/truth/truth.h"
#include "common/wc_clock.h"
#include "common/wc_tmptree.h"
#include "tests/unit/support/test_support.h"

/* ---- helpers ----------------------------------------------------------- */

typedef int (*parse_fn)(const char *, size_t, wc_truth_sample *, wc_error *);

#define POLL_SENTINEL 424242

/* Parses text (exact-size copy, no NUL) with fn; poll times must survive. */
static int parse_text(parse_fn fn, const char *text, size_t n, wc_truth_sample *s, wc_error *e)
{
    char *exact = malloc(n ? n : 1);
    cr_assert_not_null(exact);
    if (n)
        memcpy(exact, text, n);
    memset(s, 0, sizeof *s);
    s->poll_mono_ns = s->poll_wall_ns = POLL_SENTINEL;
    memset(e, 0, sizeof *e);
    int rc = fn(text ? exact : NULL, n, s, e);
    free(exact);
    cr_assert_eq(s->poll_mono_ns, POLL_SENTINEL, "parser touched poll_mono_ns");
    cr_assert_eq(s->poll_wall_ns, POLL_SENTINEL, "parser touched poll_wall_ns");
    return rc;
}

static int parse_str(parse_fn fn, const char *text, wc_truth_sample *s, wc_error *e)
{
    return parse_text(fn, text, strlen(text), s, e);
}

/* Parses corpus/ipmitool/<rel>; skips when the shared fixtures are absent. */
static int parse_fixture(parse_fn fn, const char *rel, wc_truth_sample *s, wc_error *e)
{
    char path[256];
    snprintf(path, sizeof path, "corpus/ipmitool/%s", rel);
    size_t n;
    char *text = wc_test_slurp(wc_shared_fixture(path), &n);
    int rc = parse_text(fn, text, n, s, e);
    free(text);
    return rc;
}

#define SEC(x) ((int64_t)(x) * WC_NS_PER_S)

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

static void expect_no_window(const wc_truth_sample *s)
{
    cr_assert_eq(s->window_known, 0);
    cr_assert_float_eq(s->window_s, 0.0, 1e-12);
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

/* ---- corpus: dcmi/ ------------------------------------------------------ */

Test(ipmi_dcmi, ipmitool_activated_2017)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmitool-dcmi-activated-2017.txt", &s, &e), 0);
    /* The 1131466 s period is the statistics window, not the reading's. */
    expect_ok(&s, 215, "dcmi:instantaneous (stats window 1131466 s)");
    expect_stats(&s, 162, 276, 176);
    expect_no_window(&s);
    cr_assert_eq(s.device_ts_ns, SEC(1487162991)); /* 2017-02-15T12:49:51Z */
}

Test(ipmi_dcmi, ipmitool_activated_2022_padded_day)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmitool-dcmi-activated-2022.txt", &s, &e), 0);
    expect_ok(&s, 197, "dcmi:instantaneous (stats window 123893 s)");
    expect_stats(&s, 175, 242, 190);
    expect_no_window(&s);
    cr_assert_eq(s.device_ts_ns, SEC(1646579622)); /* "Sun Mar  6 15:13:42 2022" */
}

Test(ipmi_dcmi, ipmitool_tabs_one_second_window)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmitool-dcmi-ceems-fixture-tabs.txt", &s, &e), 0);
    expect_ok(&s, 332, "dcmi:instantaneous");
    expect_stats(&s, 68, 504, 348);
    cr_assert_eq(s.window_known, 1);
    cr_assert_float_eq(s.window_s, 1.0, 1e-12);
    cr_assert_eq(s.device_ts_ns, SEC(1707986161)); /* 2024-02-15T08:36:01Z */
}

Test(ipmi_dcmi, ipmitool_telegraf_unindented)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmitool-dcmi-telegraf-fixture-2016.txt", &s, &e), 0);
    expect_ok(&s, 167, "dcmi:instantaneous (stats window 699043 s)");
    expect_stats(&s, 124, 422, 156);
    expect_no_window(&s);
    cr_assert_eq(s.device_ts_ns, SEC(1470086571)); /* 2016-08-01T21:22:51Z */
}

Test(ipmi_dcmi, openbmc_ampere_deactivated_360w_is_unavailable_with_value)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmitool-dcmi-openbmc-ampere-deactivated-360w.txt", &s, &e), 0);
    /* Chosen: unavailable, the value kept on record and named in the reason. */
    expect_unavailable(&s, "deactivated");
    cr_assert(strstr(s.error, "360 W"), "%s", s.error);
    cr_assert(strstr(s.error, "device time unset"), "%s", s.error);
    cr_assert_float_eq(s.watts, 360, 1e-9);
    expect_stats(&s, 360, 360, 360);
    cr_assert_eq(s.device_ts_ns, 0); /* Thu Jan  1 00:00:00 1970 */
    expect_no_window(&s);            /* sampling period 0 */
    cr_assert_str_eq(s.path, "dcmi:instantaneous (device time unset)");
}

Test(ipmi_dcmi, openbmc_ampere_deactivated_zero_is_never_0w)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmitool-dcmi-openbmc-ampere-deactivated-zero.txt", &s, &e), 0);
    expect_unavailable(&s, "no reading");
    cr_assert(strstr(s.error, "deactivated"), "%s", s.error);
    cr_assert(isnan(s.watts) && isnan(s.min_watts) && isnan(s.max_watts) && isnan(s.avg_watts));
    cr_assert_eq(s.device_ts_ns, 0);
}

Test(ipmi_dcmi, openbmc_witherspoon_deactivated_319w)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmitool-dcmi-openbmc-witherspoon-deactivated-319w.txt", &s, &e), 0);
    expect_unavailable(&s, "319 W");
    cr_assert(strstr(s.error, "deactivated"), "%s", s.error);
    cr_assert_float_eq(s.watts, 319, 1e-9);
    cr_assert_eq(s.device_ts_ns, 0);
    expect_no_window(&s);
}

Test(ipmi_dcmi, supermicro_glued_timestamp_truncated_state)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmitool-dcmi-supermicro-joined-timestamp-truncated.txt", &s, &e);
    expect_error(rc, -EPROTO, &s, &e, "truncated");
    /* The glued "Sampling period:" is still split off the timestamp line. */
    cr_assert_eq(s.device_ts_ns, SEC(1697110157)); /* 10/12/23 13:29:17 CEST */
    cr_assert_str_eq(s.path, "dcmi:instantaneous (stats window 65530 s)");
}

Test(ipmi_dcmi, freeipmi_active)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/freeipmi-ipmi-dcmi-active.txt", &s, &e), 0);
    expect_ok(&s, 332, "dcmi:instantaneous (stats window 2685198 s)"); /* 2685198000 ms */
    expect_stats(&s, 68, 504, 348);
    expect_no_window(&s);
    cr_assert_eq(s.device_ts_ns, SEC(1699000589)); /* 11/03/2023 - 08:36:29 */
}

Test(ipmi_dcmi, freeipmi_active_unit_case_insensitive)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/freeipmi-ipmi-dcmi-active-alt-case.txt", &s, &e), 0);
    expect_ok(&s, 332, "dcmi:instantaneous (stats window 2685198 s)");
    expect_stats(&s, 68, 504, 348);
    cr_assert_eq(s.device_ts_ns, SEC(1699000589));
}

Test(ipmi_dcmi, freeipmi_not_available)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/freeipmi-ipmi-dcmi-not-available.txt", &s, &e), 0);
    expect_unavailable(&s, "Not Available");
    cr_assert(isnan(s.watts));
}

Test(ipmi_dcmi, ipmiutil_active_ignores_power_limit_section)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmiutil-dcmi-active.txt", &s, &e), 0);
    /* "Power Limit: 896 Watts" and "Sampling period: 1472 sec" belong to the limit. */
    expect_ok(&s, 332, "dcmi:instantaneous");
    expect_stats(&s, 68, 504, 348);
    cr_assert_eq(s.window_known, 1);
    cr_assert_float_eq(s.window_s, 1.0, 1e-12); /* 1000 ms */
    cr_assert_eq(s.device_ts_ns, SEC(1707989852)); /* Thu Feb 15 09:37:32 2024 */
}

Test(ipmi_dcmi, ipmiutil_not_active)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_dcmi, "dcmi/ipmiutil-dcmi-not-active.txt", &s, &e), 0);
    expect_unavailable(&s, "not active");
    cr_assert(isnan(s.watts));
}

/* ---- corpus: errors/ ---------------------------------------------------- */

Test(ipmi_errors, freeipmi_bad_completion_code_means_no_dcmi)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_fixture(wc_ipmi_parse_dcmi, "errors/freeipmi-dcmi-bad-completion-code.txt", &s, &e);
    expect_error(rc, -ENODATA, &s, &e, "bad completion code");
    cr_assert(strstr(e.msg, "dcmi power reading"), "%s", e.msg);
}

Test(ipmi_errors, freeipmi_cisco_unsupported)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_fixture(wc_ipmi_parse_dcmi, "errors/freeipmi-dcmi-cisco-unsupported.txt", &s, &e);
    expect_error(rc, -ENODATA, &s, &e, "command invalid or unsupported");
}

Test(ipmi_errors, ipmitool_no_valid_response_80)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_fixture(wc_ipmi_parse_dcmi, "errors/ipmitool-dcmi-no-valid-response-80.txt", &s, &e);
    expect_error(rc, -ENODATA, &s, &e, "A valid DCMI command was not returned! (80)");
}

/* Three stderr outputs separated by "---": each is a transport failure,
 * never "DCMI unsupported" (that would wrongly switch to the SDR for good). */
Test(ipmi_errors, dell_r710_session_and_device_errors)
{
    size_t n;
    char *text = wc_test_slurp(
        wc_shared_fixture("corpus/ipmitool/errors/ipmitool-lan-session-and-device-errors-dell-r710.txt"), &n);
    static const char *const want[] = {"Error: Unable to establish LAN session",
                                       "Error loading interface imb",
                                       "Could not open device at /dev/ipmi0"};
    char *part = text;
    for (int i = 0; i < 3; i++) {
        char *sep = strstr(part, "---\n");
        size_t len = sep ? (size_t)(sep - part) : strlen(part);
        wc_truth_sample s;
        wc_error e;
        int rc = parse_text(wc_ipmi_parse_dcmi, part, len, &s, &e);
        expect_error(rc, -EIO, &s, &e, want[i]);
        rc = parse_text(wc_ipmi_parse_sdr, part, len, &s, &e);
        expect_error(rc, -EIO, &s, &e, want[i]);
        part = sep ? sep + 4 : part + len;
    }
    cr_assert_str_empty(part);
    free(text);
}

Test(ipmi_errors, nec_oem_raw_completion_codes)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_fixture(wc_ipmi_parse_dcmi, "errors/nec-oem-raw-power-errors.txt", &s, &e);
    expect_error(rc, -ENODATA, &s, &e, "rsp=0xc1): Invalid Command");
    /* The second line alone: completion code 0xcb, record not found. */
    rc = parse_str(wc_ipmi_parse_dcmi,
                   "Unable to send RAW command (channel=0x0 netfn=0x3e lun=0x0 cmd=0xb "
                   "rsp=0xcb): Requested sensor, data, or record not found\n", &s, &e);
    expect_error(rc, -ENODATA, &s, &e, "record not found");
}

/* ---- corpus: sdr/ ------------------------------------------------------- */

Test(ipmi_sdr, dell_r710_sensor_10_columns)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_sdr, "sdr/dell-r710-sensor-system-level.txt", &s, &e), 0);
    expect_ok(&s, 189, "sdr:System Level");
    cr_assert(isnan(s.min_watts) && isnan(s.max_watts) && isnan(s.avg_watts));
    expect_no_window(&s);
    cr_assert_eq(s.device_ts_ns, 0);
}

Test(ipmi_sdr, dell_type_current_pwr_consumption_ignores_amps)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_sdr, "sdr/dell-sdr-type-current-pwr-consumption.txt", &s, &e), 0);
    expect_ok(&s, 98, "sdr:Pwr Consumption");
}

Test(ipmi_sdr, hp_dl380_g7_sum_of_psus_skips_discrete)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_sdr, "sdr/hp-dl380-g7-sdr-psu-watts.txt", &s, &e), 0);
    expect_ok(&s, 190, "sdr:sum(Power Supply 1,Power Supply 2)"); /* 35 + 155 */
}

Test(ipmi_sdr, hpe_ilo4_no_power_sensor)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_fixture(wc_ipmi_parse_sdr, "sdr/hpe-ilo4-sdr-list-full-no-power.txt", &s, &e);
    expect_error(rc, -ENODATA, &s, &e, "no system or PSU input power sensor");
}

Test(ipmi_sdr, ibm_elist_full_sum_of_power_in)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_sdr, "sdr/ibm-sdr-elist-full-psu-power-in.txt", &s, &e), 0);
    expect_ok(&s, 292, "sdr:sum(PS1 Power In,PS2 Power In)"); /* 132 + 160 */
}

Test(ipmi_sdr, ibm_x_series_avg_power_not_discrete_power_names)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_sdr, "sdr/ibm-x-series-sdr-telegraf-v1.txt", &s, &e), 0);
    expect_ok(&s, 210, "sdr:Avg Power");
}

Test(ipmi_sdr, elist_v2_interleaved_errors_reading_with_event_text)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_sdr, "sdr/sdr-elist-v2-with-interleaved-errors-telegraf.txt", &s, &e), 0);
    expect_ok(&s, 110, "sdr:sum(Power Supply 1)"); /* "110 Watts, Presence detected" */
}

Test(ipmi_sdr, list_with_interleaved_errors)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_fixture(wc_ipmi_parse_sdr, "sdr/sdr-with-interleaved-errors-telegraf.txt", &s, &e), 0);
    expect_ok(&s, 210, "sdr:Avg Power");
}

/* Every DCMI file fed to the SDR parser (and SDR files to the DCMI parser)
 * ends in a clean error, never a reading. */
Test(ipmi_sdr, cross_feeding_formats_is_a_clean_error)
{
    static const char *const dcmi[] = {"dcmi/ipmitool-dcmi-activated-2017.txt",
                                       "dcmi/freeipmi-ipmi-dcmi-active.txt",
                                       "dcmi/ipmiutil-dcmi-active.txt"};
    for (size_t i = 0; i < sizeof dcmi / sizeof dcmi[0]; i++) {
        wc_truth_sample s;
        wc_error e;
        int rc = parse_fixture(wc_ipmi_parse_sdr, dcmi[i], &s, &e);
        expect_error(rc, -EPROTO, &s, &e, "unsupported format");
    }
    wc_truth_sample s;
    wc_error e;
    int rc = parse_fixture(wc_ipmi_parse_dcmi, "sdr/dell-r710-sensor-system-level.txt", &s, &e);
    expect_error(rc, -EPROTO, &s, &e, "unsupported format");
}

/* ---- DCMI edge cases ---------------------------------------------------- */

#define DCMI_TEMPLATE \
    "\n    Instantaneous power reading:                   %s Watts\n" \
    "    Minimum during sampling period:                100 Watts\n" \
    "    Maximum during sampling period:                300 Watts\n" \
    "    Average power reading over sample period:      200 Watts\n" \
    "    IPMI timestamp:                           %s\n" \
    "    Sampling period:                          %s Seconds.\n" \
    "    Power reading state is:                   %s\n\n"

static int dcmi_with(const char *watts, const char *ts, const char *period, const char *state,
                     wc_truth_sample *s, wc_error *e)
{
    char text[1024];
    snprintf(text, sizeof text, DCMI_TEMPLATE, watts, ts, period, state);
    return parse_str(wc_ipmi_parse_dcmi, text, s, e);
}

Test(ipmi_dcmi_edge, sentinel_65535_is_unavailable)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(dcmi_with("65535", "Wed Feb 15 12:49:51 2017", "00000005", "activated", &s, &e), 0);
    expect_unavailable(&s, "65535");
    cr_assert(isnan(s.watts));
}

Test(ipmi_dcmi_edge, activated_zero_is_unavailable)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(dcmi_with("0", "Wed Feb 15 12:49:51 2017", "00000005", "activated", &s, &e), 0);
    expect_unavailable(&s, "0 W");
    cr_assert(isnan(s.watts));
}

Test(ipmi_dcmi_edge, short_period_is_the_window_and_utc_zone_applies)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(dcmi_with("250", "02/15/24 08:36:01 UTC", "00000060", "activated", &s, &e), 0);
    expect_ok(&s, 250, "dcmi:instantaneous");
    cr_assert_eq(s.window_known, 1);
    cr_assert_float_eq(s.window_s, 60.0, 1e-12);
    cr_assert_eq(s.device_ts_ns, SEC(1707986161));
}

Test(ipmi_dcmi_edge, epoch_timestamp_on_an_ok_reading_is_flagged)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(dcmi_with("250", "Thu Jan  1 00:00:00 1970", "00000001", "activated", &s, &e), 0);
    expect_ok(&s, 250, "dcmi:instantaneous (device time unset)");
    cr_assert_eq(s.device_ts_ns, 0);
}

Test(ipmi_dcmi_edge, unknown_state_and_missing_reading_are_protocol_errors)
{
    wc_truth_sample s;
    wc_error e;
    int rc = dcmi_with("250", "Wed Feb 15 12:49:51 2017", "1", "sleepy", &s, &e);
    expect_error(rc, -EPROTO, &s, &e, "unknown power reading state 'sleepy'");
    rc = dcmi_with("lots of", "Wed Feb 15 12:49:51 2017", "1", "activated", &s, &e);
    expect_error(rc, -EPROTO, &s, &e, "no instantaneous reading");
    rc = parse_str(wc_ipmi_parse_dcmi, "    Instantaneous power reading:    215 Watts\n", &s, &e);
    expect_error(rc, -EPROTO, &s, &e, "state line is missing");
}

Test(ipmi_dcmi_edge, empty_and_garbage_output)
{
    wc_truth_sample s;
    wc_error e;
    expect_error(parse_str(wc_ipmi_parse_dcmi, "", &s, &e), -EPROTO, &s, &e, "empty output");
    expect_error(parse_str(wc_ipmi_parse_dcmi, "\n \n\t\n", &s, &e), -EPROTO, &s, &e, "empty output");
    expect_error(parse_text(wc_ipmi_parse_dcmi, NULL, 0, &s, &e), -EPROTO, &s, &e, "empty output");
    expect_error(parse_str(wc_ipmi_parse_dcmi, "hello: world\n", &s, &e), -EPROTO, &s, &e,
                 "unsupported format");
}

Test(ipmi_dcmi_edge, ipmi_sim_invalid_command_c1)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_str(wc_ipmi_parse_dcmi, "\n    DCMI request failed because: Invalid command (c1)\n", &s, &e);
    expect_error(rc, -ENODATA, &s, &e, "DCMI request failed because: Invalid command (c1)");
}

Test(ipmi_dcmi_edge, auth_and_session_failures_are_not_unsupported)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_str(wc_ipmi_parse_dcmi, "Error: Unable to establish IPMI v2 / RMCP+ session\n", &s, &e);
    expect_error(rc, -EIO, &s, &e, "Unable to establish IPMI v2");
    rc = parse_str(wc_ipmi_parse_dcmi,
                   "RAKP 2 message indicates an error : unauthorized name\n"
                   "Error: Unable to establish IPMI v2 / RMCP+ session\n", &s, &e);
    expect_error(rc, -EACCES, &s, &e, "unauthorized name");
    cr_assert(strstr(e.msg, "IPMI_PASSWORD"), "%s", e.msg);
}

/* Untrusted text: control bytes and format directives are data, bounded. */
Test(ipmi_dcmi_edge, hostile_text_is_bounded_and_clean)
{
    char text[4096];
    memset(text, 'A', sizeof text);
    memcpy(text, "Error: %s%n%x\x1b[31m\x07", 19);
    wc_truth_sample s;
    wc_error e;
    int rc = parse_text(wc_ipmi_parse_dcmi, text, sizeof text, &s, &e);
    cr_assert_eq(rc, -EIO);
    cr_assert(strstr(e.msg, "Error: %s%n%x?[31m?AAAA"), "%s", e.msg);
    cr_assert(strlen(s.error) < sizeof s.error);
    for (const char *c = e.msg; *c; c++)
        cr_assert(*c >= 0x20 && *c < 0x7f, "control byte in message");
}

Test(ipmi_dcmi_edge, unsupported_cipher_is_a_login_error_not_missing_dcmi)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_str(wc_ipmi_parse_dcmi,
                       "Unsupported cipher suite ID : 17\n"
                       "Error: Unable to establish IPMI v2 / RMCP+ session\n", &s, &e);
    expect_error(rc, -EACCES, &s, &e, "Unsupported cipher suite ID : 17");
}

/* ---- SDR edge cases ----------------------------------------------------- */

Test(ipmi_sdr_edge, system_sensor_no_reading_is_unavailable)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr,
                           "Pwr Consumption  | 77h | ns  |  7.1 | No Reading\n"
                           "Inlet Temp       | 04h | ok  |  7.1 | 25 degrees C\n", &s, &e), 0);
    expect_unavailable(&s, "Pwr Consumption: No Reading");
    cr_assert(isnan(s.watts));
    cr_assert_str_eq(s.path, "sdr:Pwr Consumption");
}

Test(ipmi_sdr_edge, system_sensor_sentinel_zero_and_na)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr, "Pwr Consumption  | 65535 Watts | ok\n", &s, &e), 0);
    expect_unavailable(&s, "65535 W");
    cr_assert(isnan(s.watts));
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr, "System Level     | 0 Watts | ok\n", &s, &e), 0);
    expect_unavailable(&s, "0 W");
    cr_assert(isnan(s.watts));
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr,
                           "System Level     | na         | Watts      | na    | na | na | na | na | na | na\n",
                           &s, &e), 0);
    expect_unavailable(&s, "System Level: na");
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr, "Power Meter      | disabled          | ns\n", &s, &e), 0);
    expect_unavailable(&s, "Power Meter: disabled");
}

Test(ipmi_sdr_edge, system_sensor_preferred_over_psus)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr,
                           "PS1 Input Power  | 120 Watts | ok\n"
                           "PS2 Input Power  | 130 Watts | ok\n"
                           "Total Power      | 240 Watts | ok\n", &s, &e), 0);
    expect_ok(&s, 240, "sdr:Total Power");
    /* An unreadable system sensor falls back to a readable PSU sum. */
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr,
                           "PS1 Input Power  | 120 Watts | ok\n"
                           "PS2 Input Power  | 130 Watts | ok\n"
                           "Total Power      | no reading | ns\n", &s, &e), 0);
    expect_ok(&s, 250, "sdr:sum(PS1 Input Power,PS2 Input Power)");
}

Test(ipmi_sdr_edge, psu_sum_excludes_output_and_components)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr,
                           "PSU1 PIN         | 21h | ok  | 10.1 | 150 Watts\n"
                           "PSU1 POUT        | 22h | ok  | 10.1 | 135 Watts\n"
                           "PSU2 PIN         | 23h | ok  | 10.2 | 0 Watts\n"
                           "CPU Power        | 24h | ok  |  3.1 | 80 Watts\n", &s, &e), 0);
    expect_ok(&s, 150, "sdr:sum(PSU1 PIN,PSU2 PIN)"); /* an idle redundant PSU reads 0 W */
}

Test(ipmi_sdr_edge, unreadable_psu_makes_the_sum_unavailable)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr,
                           "PS1 Power In     | 52h | ok  | 10.1 | 132 Watts\n"
                           "PS2 Power In     | 53h | ns  | 10.2 | No Reading\n", &s, &e), 0);
    expect_unavailable(&s, "PS2 Power In: No Reading");
    cr_assert(isnan(s.watts), "a partial sum is not a reading");
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr,
                           "PS1 Power In     | 52h | ok  | 10.1 | 0 Watts\n"
                           "PS2 Power In     | 53h | ok  | 10.2 | 0 Watts\n", &s, &e), 0);
    expect_unavailable(&s, "all read 0 W");
}

/* Each PSU reads below the 65535 W sentinel, but the sum is above the
 * 100 kW per node plausibility ceiling: unavailable, never ok. */
Test(ipmi_sdr_edge, psu_sum_above_100_kw_is_implausible)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr,
                           "PS1 Power In     | 52h | ok  | 10.1 | 60000 Watts\n"
                           "PS2 Power In     | 53h | ok  | 10.2 | 60000 Watts\n", &s, &e), 0);
    expect_unavailable(&s, "implausible reading 120000 W");
    expect_unavailable(&s, "100 kW");
    cr_assert(isnan(s.watts), "an implausible sum is not a reading (%g)", s.watts);
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr,
                           "PS1 Power In     | 52h | ok  | 10.1 | 50000 Watts\n"
                           "PS2 Power In     | 53h | ok  | 10.2 | 50000 Watts\n", &s, &e), 0);
    expect_ok(&s, 100000, "sdr:sum(PS1 Power In,PS2 Power In)");
}

Test(ipmi_sdr_edge, component_sensors_only)
{
    wc_truth_sample s;
    wc_error e;
    int rc = parse_str(wc_ipmi_parse_sdr,
                       "CPU Power        | 80 Watts | ok\nDIMM Power       | 12 Watts | ok\n", &s, &e);
    expect_error(rc, -ENODATA, &s, &e, "component sensors only: CPU Power, DIMM Power");
}

Test(ipmi_sdr_edge, freeipmi_ipmi_sensors_format)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr,
                           "ID | Name            | Type         | Reading    | Units | Event\n"
                           "4  | Temp            | Temperature  | 24.00      | C     | 'OK'\n"
                           "7  | PS1 Input Power | Power Supply | 120.00     | W     | 'OK'\n"
                           "8  | PS2 Input Power | Power Supply | 110.50     | W     | 'OK'\n", &s, &e), 0);
    expect_ok(&s, 230.5, "sdr:sum(PS1 Input Power,PS2 Input Power)");
}

Test(ipmi_sdr_edge, ipmi_sim_lanplus_output)
{
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr, "Pwr Consumption  | 02h | ok  |  7.1 | 245 Watts\n", &s, &e), 0);
    expect_ok(&s, 245, "sdr:Pwr Consumption");
}

Test(ipmi_sdr_edge, long_psu_list_keeps_the_path_bounded)
{
    char text[8192];
    size_t used = 0;
    for (int i = 1; i <= 40; i++)
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "PS%d Input Power With A Long Name | 10 Watts | ok\n", i);
    wc_truth_sample s;
    wc_error e;
    cr_assert_eq(parse_str(wc_ipmi_parse_sdr, text, &s, &e), 0);
    cr_assert_eq(s.status, WC_TRUTH_OK);
    cr_assert_float_eq(s.watts, 400, 1e-9);
    cr_assert_str_eq(s.path, "sdr:sum(40 PSU input sensors)");
}

/* ---- time --------------------------------------------------------------- */

static int64_t parse_time(const char *t, int *rc)
{
    int64_t ns = -1;
    *rc = wc_ipmi_parse_time_ns(t, strlen(t), &ns);
    return ns;
}

Test(ipmi_time, formats)
{
    int rc;
    cr_assert_eq(parse_time("Wed Feb 15 12:49:51 2017", &rc), SEC(1487162991));
    cr_assert_eq(rc, 0);
    cr_assert_eq(parse_time("Sun Mar  6 15:13:42 2022", &rc), SEC(1646579622));
    cr_assert_eq(parse_time("10/12/23 13:29:17 CEST", &rc), SEC(1697110157));
    cr_assert_eq(parse_time("10/12/23 11:29:17 UTC", &rc), SEC(1697110157));
    cr_assert_eq(parse_time("10/12/2023 13:29:17 +0200", &rc), SEC(1697110157));
    cr_assert_eq(parse_time("10/12/23 07:29:17 EDT", &rc), SEC(1697110157));
    cr_assert_eq(parse_time("11/03/2023 - 08:36:29", &rc), SEC(1699000589));
    cr_assert_eq(parse_time("2023-10-12 11:29:17", &rc), SEC(1697110157));
    cr_assert_eq(rc, 0);
}

Test(ipmi_time, unset_clock_is_zero)
{
    int rc;
    cr_assert_eq(parse_time("Thu Jan  1 00:00:00 1970", &rc), 0);
    cr_assert_eq(rc, 0);
    cr_assert_eq(parse_time("01/01/70 00:00:00", &rc), 0);
    cr_assert_eq(rc, 0);
    cr_assert_eq(parse_time("Thu Jan  8 03:12:00 1970", &rc), 0); /* seconds since BMC init */
    cr_assert_eq(rc, 0);
    cr_assert_eq(parse_time("Unspecified", &rc), 0);
    cr_assert_eq(rc, 0);
    cr_assert_eq(parse_time("Pre-Init 0000012345", &rc), 0);
    cr_assert_eq(rc, 0);
}

Test(ipmi_time, rejects_garbage_and_unknown_zones)
{
    int rc;
    static const char *const bad[] = {"", "soon", "13/45/2023 10:00:00", "10/12/23 25:00:00",
                                      "10/12/23 13:29:17 XYZT", "Wed Foo 15 12:49:51 2017",
                                      "10/12/23 13:29:17 UTC extra", "Wed Feb 15 12:49 2017"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        parse_time(bad[i], &rc);
        cr_assert_eq(rc, -EINVAL, "'%s' accepted", bad[i]);
    }
}

Test(ipmi_text, first_line_is_clean_and_bounded)
{
    char buf[8];
    const char *text = "\n  \n  Error:\tx\x01yz  \nnext";
    cr_assert_eq(wc_ipmi_first_line(text, strlen(text), buf, sizeof buf), 7);
    cr_assert_str_eq(buf, "Error:?");
    cr_assert_eq(wc_ipmi_first_line("\n\n", 2, buf, sizeof buf), 0);
    cr_assert_str_empty(buf);
}

/* ---- truth_ipmi.c with a fake ipmitool ------------------------------------ */

typedef struct fake {
    char dir[256];
    char tool[320];
} fake;

static char *fake_path(const fake *f, const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", f->dir, name);
    return buf;
}

/* A shell script standing in for ipmitool: logs argv and env, answers from
 * <dir>/<dcmi|sdr>.out with exit <dir>/<q>.rc, or hangs when <q>.hang exists. */
static void fake_init(fake *f)
{
    snprintf(f->dir, sizeof f->dir, "%s", wc_test_tmpdir());
    snprintf(f->tool, sizeof f->tool, "%s/ipmitool", f->dir);
    char script[2048];
    snprintf(script, sizeof script,
             "#!/bin/sh\n"
             "D='%s'\n"
             "echo \"ARGS $*\" >> \"$D/log\"\n"
             "echo \"ENV TZ=$TZ LC_ALL=$LC_ALL PW=${IPMI_PASSWORD:+set}\" >> \"$D/log\"\n"
             "case \"$*\" in\n"
             "  *'dcmi power reading') q=dcmi ;;\n"
             "  *'sdr elist full') q=sdr ;;\n"
             "  *) q=other ;;\n"
             "esac\n"
             "if [ -f \"$D/$q.hang\" ]; then echo $$ > \"$D/pid\"; exec sleep 30; fi\n"
             "[ -f \"$D/$q.out\" ] && cat \"$D/$q.out\"\n"
             "exit $(cat \"$D/$q.rc\" 2>/dev/null || echo 0)\n",
             f->dir);
    wc_test_write(f->dir, "ipmitool", script);
    cr_assert_eq(chmod(f->tool, 0755), 0);
}

static void fake_done(fake *f)
{
    (void)wc_remove_tree(f->dir);
}

static void fake_answer(fake *f, const char *q, const char *out, int rc)
{
    char name[32], num[16];
    snprintf(name, sizeof name, "%s.out", q);
    wc_test_write(f->dir, name, out);
    snprintf(name, sizeof name, "%s.rc", q);
    snprintf(num, sizeof num, "%d\n", rc);
    wc_test_write(f->dir, name, num);
}

static char *fake_log(const fake *f)
{
    return wc_test_slurp(fake_path(f, "log"), NULL);
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static int open_fake(fake *f, const char *spec, wc_truth_source *s, wc_error *e)
{
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    cfg.ipmitool = f->tool;
    cfg.timeout_ns = 2 * WC_NS_PER_S;
    memset(e, 0, sizeof *e);
    return wc_truth_open(spec, &cfg, s, e);
}

static const char DCMI_OK[] =
    "\n    Instantaneous power reading:                   215 Watts\n"
    "    Minimum during sampling period:                162 Watts\n"
    "    Maximum during sampling period:                276 Watts\n"
    "    Average power reading over sample period:      176 Watts\n"
    "    IPMI timestamp:                           02/15/17 12:49:51 UTC\n"
    "    Sampling period:                          00000001 Seconds.\n"
    "    Power reading state is:                   activated\n\n";
static const char DCMI_C1[] = "\n    DCMI request failed because: Invalid command (c1)\n";
static const char SDR_OK[] = "Pwr Consumption  | 02h | ok  |  7.1 | 245 Watts\n";

Test(truth_ipmi, spec_forms_and_descriptions)
{
    fake f;
    fake_init(&f);
    setenv("IPMI_PASSWORD", "not-in-argv", 1);
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(open_fake(&f, "ipmi:lanplus://127.0.0.1:9001", &s, &e), 0, "%s", e.msg);
    cr_assert_str_eq(s.description, "IPMI lanplus 127.0.0.1:9001 (ipmitool, cipher 3)");
    cr_assert_str_eq(s.ops->kind, "ipmi");
    wc_truth_close(&s);
    cr_assert_eq(open_fake(&f, "ipmi:lanplus://bmc-01.example.net?cipher=17", &s, &e), 0, "%s", e.msg);
    cr_assert_str_eq(s.description, "IPMI lanplus bmc-01.example.net:623 (ipmitool, cipher 17)");
    wc_truth_close(&s);
    cr_assert_eq(open_fake(&f, "ipmi:lan://[::1]:624/", &s, &e), 0, "%s", e.msg);
    cr_assert_str_eq(s.description, "IPMI lan [::1]:624 (ipmitool)");
    wc_truth_close(&s);
    cr_assert_eq(open_fake(&f, "ipmi:local", &s, &e), 0, "%s", e.msg);
    cr_assert_str_eq(s.description, "IPMI local (ipmitool -I open, in-band)");
    wc_truth_close(&s);
    fake_done(&f);
}

Test(truth_ipmi, bad_specs_are_refused)
{
    fake f;
    fake_init(&f);
    setenv("IPMI_PASSWORD", "x", 1);
    static const struct {
        const char *spec, *part;
    } bad[] = {
        {"ipmi:", "expected ipmi:local"},
        {"ipmi:https://h", "expected ipmi:local"},
        {"ipmi:lanplus://", "missing or too long host"},
        {"ipmi:lanplus://-oProxyCommand=x", "invalid host name"},
        {"ipmi:lanplus://h;rm -rf /", "invalid host name"},
        {"ipmi:lanplus://h:0", "port must be 1..65535"},
        {"ipmi:lanplus://h:70000", "port must be 1..65535"},
        {"ipmi:lanplus://h?cipher=99", "only ?cipher=N"},
        {"ipmi:lanplus://h?user=root", "only ?cipher=N"},
        {"ipmi:lan://h?cipher=3", "needs lanplus"},
        {"ipmi:lanplus://admin:secret@h", "credentials do not belong in the spec"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wc_truth_source s;
        wc_error e;
        cr_assert_eq(open_fake(&f, bad[i].spec, &s, &e), -EINVAL, "%s accepted", bad[i].spec);
        cr_assert(strstr(e.msg, bad[i].part), "%s: '%s' lacks '%s'", bad[i].spec, e.msg, bad[i].part);
        cr_assert_null(strstr(e.msg, "secret"), "the password was echoed: %s", e.msg);
    }
    fake_done(&f);
}

Test(truth_ipmi, open_needs_a_password_source_and_ipmitool)
{
    fake f;
    fake_init(&f);
    unsetenv("IPMI_PASSWORD");
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(open_fake(&f, "ipmi:lanplus://127.0.0.1", &s, &e), -ENOENT);
    cr_assert(strstr(e.msg, "IPMI_PASSWORD") && strstr(e.msg, "--truth-password-file"), "%s", e.msg);
    wc_truth_close(&s);
    cr_assert_eq(open_fake(&f, "ipmi:local", &s, &e), 0, "%s", e.msg); /* in-band: no credentials */
    wc_truth_close(&s);
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    cfg.ipmitool = "wattcal-no-such-ipmitool";
    cr_assert_eq(wc_truth_open("ipmi:local", &cfg, &s, &e), -ENOENT);
    cr_assert(strstr(e.msg, "wattcal-no-such-ipmitool not found on PATH"), "%s", e.msg);
    wc_truth_close(&s);
    fake_done(&f);
}

Test(truth_ipmi, dcmi_reading_with_env_password_never_in_argv)
{
    fake f;
    fake_init(&f);
    setenv("IPMI_USER", "alice", 1);
    setenv("IPMI_PASSWORD", "s3cret-pw", 1);
    setenv("TZ", "Europe/Paris", 1);
    fake_answer(&f, "dcmi", DCMI_OK, 0);
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(open_fake(&f, "ipmi:lanplus://127.0.0.1:9001", &s, &e), 0, "%s", e.msg);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), 0, "%s", t.error);
    expect_ok(&t, 215, "dcmi:instantaneous");
    expect_stats(&t, 162, 276, 176);
    cr_assert_eq(t.window_known, 1);
    cr_assert_eq(t.device_ts_ns, SEC(1487162991));
    cr_assert_gt(t.poll_mono_ns, 0);
    char *log = fake_log(&f);
    cr_assert(strstr(log, "ARGS -I lanplus -H 127.0.0.1 -p 9001 -U alice -E -C 3 dcmi power reading\n"),
              "%s", log);
    cr_assert(strstr(log, "ENV TZ=UTC LC_ALL=C PW=set\n"), "%s", log);
    cr_assert_null(strstr(log, "s3cret"), "password in argv: %s", log);
    cr_assert_eq(count_of(log, "ARGS"), 1, "no SDR read after a good DCMI reading");
    free(log);
    wc_truth_close(&s);
    fake_done(&f);
}

Test(truth_ipmi, password_file_goes_through_dash_f)
{
    fake f;
    fake_init(&f);
    unsetenv("IPMI_USER");
    unsetenv("IPMI_PASSWORD");
    wc_test_write(f.dir, "pw", "file-secret\n");
    fake_answer(&f, "dcmi", DCMI_OK, 0);
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    cfg.ipmitool = f.tool;
    char pw[300];
    snprintf(pw, sizeof pw, "%s/pw", f.dir);
    cfg.password_file = pw;
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(wc_truth_open("ipmi:lan://10.0.0.9", &cfg, &s, &e), 0, "%s", e.msg);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), 0, "%s", t.error);
    char *log = fake_log(&f);
    char want[512];
    snprintf(want, sizeof want, "ARGS -I lan -H 10.0.0.9 -p 623 -f %s dcmi power reading\n", pw);
    cr_assert(strstr(log, want), "%s", log);
    cr_assert_null(strstr(log, "file-secret"));
    free(log);
    wc_truth_close(&s);
    cfg.password_file = "/nonexistent/wattcal-pw";
    cr_assert_eq(wc_truth_open("ipmi:lan://10.0.0.9", &cfg, &s, &e), -ENOENT);
    cr_assert(strstr(e.msg, "--truth-password-file /nonexistent/wattcal-pw"), "%s", e.msg);
    fake_done(&f);
}

/* A directory, an empty file or a blank first line as the password file
 * fails at open naming the file (it used to surface at poll time as an
 * ipmitool timeout); nothing runs. An empty IPMI_PASSWORD is refused too. */
Test(truth_ipmi, unusable_password_file_fails_at_open)
{
    fake f;
    fake_init(&f);
    unsetenv("IPMI_USER");
    unsetenv("IPMI_PASSWORD");
    cr_assert_eq(mkdir(fake_path(&f, "pwdir"), 0700), 0);
    wc_test_write(f.dir, "empty", "");
    wc_test_write(f.dir, "blank", " \t\r\nsecond-line-is-not-the-password\n");
    wc_test_write(f.dir, "unreadable", "secret\n");
    static const struct {
        const char *file, *reason;
        int rc;
    } cases[] = {
        {"pwdir", "is a directory", -EISDIR},
        {"empty", "empty first line (no password)", -EINVAL},
        {"blank", "empty first line (no password)", -EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wc_truth_config cfg;
        wc_truth_config_defaults(&cfg);
        cfg.ipmitool = f.tool;
        char pw[300];
        snprintf(pw, sizeof pw, "%s/%s", f.dir, cases[i].file);
        cfg.password_file = pw;
        wc_truth_source s;
        wc_error e;
        memset(&e, 0, sizeof e);
        cr_assert_eq(wc_truth_open("ipmi:lanplus://127.0.0.1:9001", &cfg, &s, &e), cases[i].rc,
                     "%s: %s", pw, e.msg);
        char want[400];
        snprintf(want, sizeof want, "--truth-password-file %s: %s", pw, cases[i].reason);
        cr_assert(strstr(e.msg, want), "'%s' lacks '%s'", e.msg, want);
        cr_assert(strstr(e.msg, "--truth ipmi:lanplus://127.0.0.1:9001: "), "%s", e.msg);
        cr_assert_null(s.priv);
        wc_truth_close(&s);
    }
    if (geteuid() != 0) { /* root reads anything */
        cr_assert_eq(chmod(fake_path(&f, "unreadable"), 0), 0);
        wc_truth_config cfg;
        wc_truth_config_defaults(&cfg);
        cfg.ipmitool = f.tool;
        char pw[300];
        snprintf(pw, sizeof pw, "%s/unreadable", f.dir);
        cfg.password_file = pw;
        wc_truth_source s;
        wc_error e;
        cr_assert_eq(wc_truth_open("ipmi:lan://10.0.0.9", &cfg, &s, &e), -EACCES, "%s", e.msg);
        cr_assert(strstr(e.msg, "Permission denied"), "%s", e.msg);
        cr_assert_null(strstr(e.msg, "secret"), "%s", e.msg);
    }
    cr_assert_neq(access(fake_path(&f, "log"), F_OK), 0, "ipmitool ran at open");
    setenv("IPMI_PASSWORD", "", 1);
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(open_fake(&f, "ipmi:lanplus://127.0.0.1", &s, &e), -EINVAL);
    cr_assert(strstr(e.msg, "IPMI_PASSWORD is empty"), "%s", e.msg);
    unsetenv("IPMI_PASSWORD");
    fake_done(&f);
}

Test(truth_ipmi, dcmi_unsupported_falls_back_to_sdr_and_remembers)
{
    fake f;
    fake_init(&f);
    setenv("IPMI_PASSWORD", "pw", 1);
    fake_answer(&f, "dcmi", DCMI_C1, 1);
    fake_answer(&f, "sdr", SDR_OK, 0);
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(open_fake(&f, "ipmi:local", &s, &e), 0, "%s", e.msg);
    wc_truth_sample t;
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(wc_truth_poll(&s, &t), 0, "%s", t.error);
        expect_ok(&t, 245, "sdr:Pwr Consumption");
    }
    char *log = fake_log(&f);
    cr_assert(strstr(log, "ARGS -I open dcmi power reading\n"), "%s", log);
    cr_assert_eq(count_of(log, "dcmi power reading"), 1, "DCMI retried: %s", log);
    cr_assert_eq(count_of(log, "ARGS -I open sdr elist full\n"), 3, "%s", log);
    free(log);
    wc_truth_close(&s);
    fake_done(&f);
}

Test(truth_ipmi, deactivated_dcmi_prefers_a_readable_sdr)
{
    fake f;
    fake_init(&f);
    size_t n;
    char *deact = wc_test_slurp(
        wc_shared_fixture("corpus/ipmitool/dcmi/ipmitool-dcmi-openbmc-ampere-deactivated-360w.txt"), &n);
    fake_answer(&f, "dcmi", deact, 0);
    fake_answer(&f, "sdr", "total_power      | 90h | ok  |  7.1 | 358 Watts\n", 0);
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(open_fake(&f, "ipmi:local", &s, &e), 0, "%s", e.msg);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), 0, "%s", t.error);
    expect_ok(&t, 358, "sdr:total_power");
    /* No power sensor in the SDR: the deactivated DCMI sample stands. */
    fake_answer(&f, "sdr", "Inlet Temp       | 04h | ok  |  7.1 | 25 degrees C\n", 0);
    cr_assert_eq(wc_truth_poll(&s, &t), 0, "%s", t.error);
    expect_unavailable(&t, "360 W");
    free(deact);
    wc_truth_close(&s);
    fake_done(&f);
}

Test(truth_ipmi, no_dcmi_and_no_power_sensor_is_unavailable)
{
    fake f;
    fake_init(&f);
    fake_answer(&f, "dcmi", DCMI_C1, 1);
    fake_answer(&f, "sdr", "Inlet Temp       | 04h | ok  |  7.1 | 25 degrees C\n", 0);
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(open_fake(&f, "ipmi:local", &s, &e), 0, "%s", e.msg);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), 0, "%s", t.error);
    expect_unavailable(&t, "no DCMI power reading");
    cr_assert(strstr(t.error, "Invalid command (c1)") && strstr(t.error, "no system or PSU"),
              "%s", t.error);
    wc_truth_close(&s);
    fake_done(&f);
}

Test(truth_ipmi, session_failure_is_an_error_not_a_fallback)
{
    fake f;
    fake_init(&f);
    setenv("IPMI_PASSWORD", "pw", 1);
    fake_answer(&f, "dcmi", "Error: Unable to establish IPMI v2 / RMCP+ session\n", 1);
    fake_answer(&f, "sdr", SDR_OK, 0);
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(open_fake(&f, "ipmi:lanplus://127.0.0.1:9", &s, &e), 0, "%s", e.msg);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), -EIO);
    cr_assert_eq(t.status, WC_TRUTH_ERROR);
    cr_assert(isnan(t.watts));
    cr_assert(strstr(t.error, "ipmitool exited 1: dcmi power reading: ") && strstr(t.error, "Unable to establish IPMI v2"), "%s", t.error);
    /* Nothing parsable at all, exit 2. */
    fake_answer(&f, "dcmi", "something odd\n", 2);
    cr_assert_eq(wc_truth_poll(&s, &t), -EIO);
    cr_assert(strstr(t.error, "something odd"), "%s", t.error);
    char *log = fake_log(&f);
    cr_assert_eq(count_of(log, "sdr elist"), 0, "fell back on a transport error: %s", log);
    free(log);
    wc_truth_close(&s);
    fake_done(&f);
}

Test(truth_ipmi, hung_ipmitool_is_killed_at_the_timeout, .timeout = 20)
{
    fake f;
    fake_init(&f);
    wc_test_write(f.dir, "dcmi.hang", "");
    wc_truth_config cfg;
    wc_truth_config_defaults(&cfg);
    cfg.ipmitool = f.tool;
    cfg.timeout_ns = WC_NS_PER_S;
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(wc_truth_open("ipmi:local", &cfg, &s, &e), 0, "%s", e.msg);
    wc_truth_sample t;
    int64_t t0 = wc_mono_ns();
    cr_assert_eq(wc_truth_poll(&s, &t), -ETIMEDOUT);
    int64_t took = wc_mono_ns() - t0;
    cr_assert(took >= WC_NS_PER_S - 50000000 && took < 3 * WC_NS_PER_S, "took %lld ns",
              (long long)took);
    cr_assert_eq(t.status, WC_TRUTH_ERROR);
    cr_assert(strstr(t.error, "no answer within 1.0 s: killed"), "%s", t.error);
    char *pid = wc_test_slurp(fake_path(&f, "pid"), NULL);
    pid_t child = (pid_t)atoi(pid);
    free(pid);
    cr_assert_gt(child, 0);
    cr_assert_eq(kill(child, 0), -1, "the hung child is still alive");
    cr_assert_eq(errno, ESRCH, "the hung child was not reaped");
    wc_truth_close(&s);
    fake_done(&f);
}

Test(truth_ipmi, missing_ipmitool_at_poll_time_is_an_error)
{
    fake f;
    fake_init(&f);
    wc_truth_source s;
    wc_error e;
    cr_assert_eq(open_fake(&f, "ipmi:local", &s, &e), 0, "%s", e.msg);
    cr_assert_eq(unlink(f.tool), 0);
    wc_truth_sample t;
    cr_assert_eq(wc_truth_poll(&s, &t), -EIO);
    cr_assert_eq(t.status, WC_TRUTH_ERROR);
    cr_assert(strstr(t.error, "cannot run"), "%s", t.error);
    wc_truth_close(&s);
    fake_done(&f);
}

