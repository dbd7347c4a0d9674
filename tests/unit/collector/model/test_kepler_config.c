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
