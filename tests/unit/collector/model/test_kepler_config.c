/*
 * test_kepler_config.c — Kepler's own config.yaml (kepler_config.c) on the
 * own fixtures tests/fixtures/kepler-config/: the deployed manifest's values,
 * Go durations (and yaml.v3's bare-integer nanoseconds), the meter the
 * deployment prefers, and every refusal naming FILE:LINE and the key.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collector/model/kepler_config.h"
#include "tests/unit/support/test_support.h"

static void load_ok(const char *name, wc_kepler_config *c)
{
    wc_error err = {{0}};
    char path[256];
    snprintf(path, sizeof path, "%s", wc_own_fixture(name));
    cr_assert_eq(wc_kepler_config_load(path, c, &err), 0, "%s", err.msg);
}

/* The shipped manifest's config: every section of config.go accepted, the
 * monitor section as deployed. */
Test(kepler_config, deployed_manifest)
{
    wc_kepler_config c;
    load_ok("kepler-config/deployed.yaml", &c);
    cr_assert_eq(c.interval_ns, 200000000);
    cr_assert_eq(c.staleness_ns, 100000000);
    cr_assert_eq(c.max_terminated, 100);
    cr_assert_eq(c.min_terminated_j, 10);
    cr_assert_eq(c.npreferred, 2);
    cr_assert_str_eq(c.preferred[0], "rapl");
    cr_assert_eq(c.nrapl_zones, 0);
    cr_assert(c.nhwmon_zones == 1 && !strcmp(c.hwmon_zones[0], "package"));
    cr_assert_eq(wc_kepler_config_prefers_hwmon(&c), 0);
}

/* Kepler's defaults for what a file leaves out; Go durations; the meter. */
Test(kepler_config, defaults_durations_and_meter)
{
    wc_kepler_config c;
    load_ok("kepler-config/hwmon-first.yaml", &c);
    cr_assert_eq(c.interval_ns, 5000000000LL, "default 5s");
    cr_assert_eq(c.staleness_ns, 500000000LL, "default 500ms");
    cr_assert_eq(c.max_terminated, -1, "unlimited");
    cr_assert_eq(c.min_terminated_j, 0);
    cr_assert_eq(wc_kepler_config_prefers_hwmon(&c), 1);
    load_ok("kepler-config/v0.11.4-hwmon.yaml", &c);
    cr_assert_eq(c.interval_ns, 90000000000LL, "1m30s");
    cr_assert_eq(c.staleness_ns, 1500000000LL, "1.5s");
    cr_assert_eq(c.max_terminated, 500, "the code's default");
    cr_assert_eq(wc_kepler_config_prefers_hwmon(&c), 1, "experimental.hwmon.enabled");
    load_ok("kepler-config/bare-integer-interval.yaml", &c);
    cr_assert_eq(c.interval_ns, 5, "yaml.v3: a bare integer is nanoseconds");
}

/* Refusals name FILE:LINE and the key; a missing file its errno. */
Test(kepler_config, refusals_name_file_line_and_key)
{
    static const struct {
        const char *file, *msg;
    } CASES[] = {
        {"unknown-key.yaml", "unknown-key.yaml:4: monitor.maxTerminate: unknown key"},
        {"bad-values.yaml", "bad-values.yaml:3: monitor.minTerminatedEnergyThreshold: can't be negative"},
        {"bad-meter.yaml", "bad-meter.yaml:2: cpu.preferredMeters: each entry must be one of"},
        {"bad-duration.yaml", "bad-duration.yaml:2: monitor.staleness: a Go duration expected"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "kepler-config/%s", CASES[i].file);
        wc_kepler_config c;
        wc_error err = {{0}};
        cr_assert_eq(wc_kepler_config_load(wc_own_fixture(rel), &c, &err), -EINVAL, "%s", rel);
        cr_assert_not_null(strstr(err.msg, CASES[i].msg), "%s", err.msg);
    }
    wc_kepler_config c;
    wc_error err = {{0}};
    cr_assert_eq(wc_kepler_config_load("/nonexistent/config.yaml", &c, &err), -ENOENT);
    cr_assert_not_null(strstr(err.msg, "/nonexistent/config.yaml"));
}

/* Loads text written to a temp file; returns the rc, the message in err. */
static int load_text(const char *text, wc_kepler_config *c, wc_error *err)
{
    const char *dir = wc_test_tmpdir();
    wc_test_write(dir, "kc.yaml", text);
    char path[512];
    snprintf(path, sizeof path, "%s/kc.yaml", dir);
    return wc_kepler_config_load(path, c, err);
}

/* What tests/fuzz/fuzz_kepler_config.c found (issue 16): durations exact in
 * integer ns as Go's time.ParseDuration (no double rounding), a bare
 * integer past int64 refused (not clamped), a threshold whose microjoules
 * would wrap refused, NUL and control bytes in keys or names refused with
 * printable messages. */
Test(kepler_config, fuzz_regressions)
{
    wc_kepler_config c;
    wc_error err = {{0}};
    cr_assert_eq(load_text("monitor:\n  interval: 9199999999999999999ns\n"
                           "  staleness: 1.000000001s\n", &c, &err), 0, "%s", err.msg);
    cr_assert_eq(c.interval_ns, 9199999999999999999LL, "exact, not via a double");
    cr_assert_eq(c.staleness_ns, 1000000001LL);
    cr_assert_eq(load_text("monitor:\n  interval: 0.1s\n", &c, &err), 0, "%s", err.msg);
    cr_assert_eq(c.interval_ns, 100000000LL);
    static const struct {
        const char *text, *msg;
    } BAD[] = {
        {"monitor:\n  interval: 99999999999999999999\n", ":2: monitor.interval: a Go duration"},
        {"monitor:\n  interval: 2562048h\n", ":2: monitor.interval: a Go duration"},
        {"monitor:\n  interval: 0x1p3s\n", ":2: monitor.interval: a Go duration"},
        {"monitor:\n  minTerminatedEnergyThreshold: 9223372036854775807\n",
         ":2: monitor.minTerminatedEnergyThreshold: out of range"},
        {"\"log\\0x\":\n  level: info\n", ":1: log: a NUL byte"},
        {"monitor:\n  interval: \"5s\\0x\"\n", ":2: monitor.interval: a NUL byte"},
        {"rapl:\n  zones: [\"a\\x07b\"]\n", ":2: rapl.zones: a list of names (no control byte)"},
        {"\"\\x1bmonitor\":\n  interval: 5s\n", ":1: ?monitor: unknown key"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        cr_assert_eq(load_text(BAD[i].text, &c, &err), -EINVAL, "case %zu", i);
        cr_assert_not_null(strstr(err.msg, BAD[i].msg), "case %zu: %s", i, err.msg);
    }
}
