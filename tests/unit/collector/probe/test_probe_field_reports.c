/*
 * test_probe_field_reports.c — `wattcal probe` (collector/probe.c,
 * cli/probe_print.c) on the project's own trees for issue 14's field
 * reports:
 *   item 1  per-die package zones (tests/fixtures/sysfs/rapl-dies): mirrored
 *           copies of one counter are one zone on one socket, distinct dies
 *           are summed per socket, and probe says which;
 *   item 4  the ACPI power_meter layout, attributes under hwmonN/device/
 *           (tests/fixtures/probe/acpi-power-meter): a valid 312 W sensor is
 *           measured node power; one reading the driver's error marker
 *           (acpi-error-marker) is not, in the summary and the exit code.
 * (Item 9's root-only energy_uj is test_probe.c's
 * root_only_energy_uj_is_a_meter_but_no_measured_power_here: it needs root to
 * make the files and drop to nobody.)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/probe_print.h"
#include "collector/probe.h"
#include "tests/unit/support/test_support.h"

/* Options reading the own trees, with an empty dev/ and PATH. */
static wc_probe_opts opts_for(const char *sys_rel, const char *proc_rel)
{
    static char sys[512], proc[512], dev[512], bin[512];
    const char *tmp = wc_test_tmpdir();
    snprintf(sys, sizeof sys, "%s", wc_own_fixture(sys_rel));
    snprintf(proc, sizeof proc, "%s", wc_own_fixture(proc_rel));
    snprintf(dev, sizeof dev, "%s/dev", tmp);
    snprintf(bin, sizeof bin, "%s/bin", tmp);
    cr_assert_eq(mkdir(dev, 0755) | mkdir(bin, 0755), 0);
    wc_probe_opts o;
    memset(&o, 0, sizeof o);
    o.sysfs_root = sys;
    o.procfs_root = proc;
    o.dev_root = dev;
    o.path_env = bin;
    return o;
}

static void run_probe(const char *sys_rel, const char *proc_rel, wc_probe *p)
{
    wc_probe_opts o = opts_for(sys_rel, proc_rel);
    wc_error err;
    err.msg[0] = '\0';
    cr_assert_eq(wc_probe_run(&o, p, &err), 0, "%s", err.msg);
}

static char *table_of(const wc_probe *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    wc_probe_print(p, f);
    fclose(f);
    return buf;
}

static cJSON *json_of(const wc_probe *p)
{
    char *text = wc_probe_json(p);
    cr_assert_not_null(text);
    cJSON *root = cJSON_Parse(text);
    cr_assert_not_null(root, "JSON does not parse: %s", text);
    free(text);
    return root;
}

/* ---- item 1 ------------------------------------------------------------- */

Test(probe_field_reports, mirrored_die_zones_are_one_package_on_one_socket)
{
    wc_probe p;
    run_probe("sysfs/rapl-dies/mirrored", "procfs/node", &p);
    cr_assert_eq(p.rapl.state, WC_PROBE_RAPL_OK, "%s", p.rapl.message);
    cr_assert_eq(p.rapl.meter.nzones, 1);
    cr_assert_eq(p.rapl.nsockets, 1);
    char m[320];
    cr_assert_str_eq(wc_probe_measured_text(&p, m, sizeof m), "AVAILABLE (rapl: 1 zone on 1 socket)");
    char *t = table_of(&p);
    cr_assert_not_null(strstr(t, "note: socket 0: 2 package die zones mirror one counter (same value"
                                 " read after read): counted once"), "%s", t);
    free(t);
    cJSON *root = json_of(&p);
    const cJSON *z = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "rapl"), "zones"),
                                        0);
    cr_assert_eq(cJSON_GetObjectItem(z, "dies")->valuedouble, 2);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(z, "dies_mirrored")));
    cJSON_Delete(root);
    wc_probe_free(&p);
}

Test(probe_field_reports, distinct_die_zones_are_summed_per_socket)
{
    wc_probe p;
    run_probe("sysfs/rapl-dies/distinct", "procfs/node", &p);
    cr_assert_eq(p.rapl.meter.nzones, 4);
    cr_assert_eq(p.rapl.nsockets, 2);
    char *t = table_of(&p);
    cr_assert_not_null(strstr(t, "note: socket 0: 2 distinct package die zones: summed per socket\n"
                                 "  note: socket 1: 2 distinct package die zones: summed per socket"),
                       "%s", t);
    free(t);
    wc_probe_free(&p);
}

/* ---- item 4 ------------------------------------------------------------- */

Test(probe_field_reports, acpi_power_meter_under_device_is_measured_node_power)
{
    wc_probe p;
    run_probe("probe/acpi-power-meter/sys", "probe/acpi-power-meter/proc", &p);
    cr_assert_eq(p.hwmon.nsensors, 1);
    const wc_hwmon_sensor *s = &p.hwmon.sensors[0];
    cr_assert_eq(s->status, 0, "%s", s->error);
    cr_assert_str_eq(s->file, "device/power1_average");
    cr_assert(s->in_device);
    cr_assert_eq(s->kind, WC_HWMON_POWER);
    cr_assert_eq(s->power_uw, 312000000ull, "312 W");
    cr_assert(p.verdict.measured_available);
    char m[320];
    cr_assert_str_eq(wc_probe_measured_text(&p, m, sizeof m), "AVAILABLE (hwmon: 1 sensor)");
    cr_assert_eq(wc_probe_exit_code(&p), 0);
    /* Kepler's hwmon meter lists hwmonN/ itself: it would not see it */
    cr_assert_str_eq(p.verdict.exporter_mode, "estimate");
    cr_assert_not_null(strstr(p.verdict.kepler_head, "the 1 sensor under hwmonN/device/ stay unseen"),
                       "%s", p.verdict.kepler_head);
    char *t = table_of(&p);
    cr_assert_not_null(strstr(t, "312.000 W  device/power1_average"), "%s", t);
    cr_assert_not_null(strstr(t, "measured node power   AVAILABLE (hwmon: 1 sensor)"), "%s", t);
    cr_assert_not_null(strstr(t, "exporter here would   estimate (no meter it reads)"), "%s", t);
    free(t);
    wc_probe_free(&p);
}

Test(probe_field_reports, acpi_error_marker_is_not_available_power)
{
    wc_probe p;
    run_probe("probe/acpi-error-marker/sys", "probe/acpi-error-marker/proc", &p);
    cr_assert_eq(p.hwmon.nsensors, 1);
    cr_assert_eq(p.hwmon.sensors[0].status, -ERANGE);
    cr_assert(!p.verdict.measured_available);
    cr_assert(!p.verdict.hardware_meter);
    cr_assert_eq(wc_probe_exit_code(&p), 1);
    char m[512];
    wc_probe_measured_text(&p, m, sizeof m);
    cr_assert(!strncmp(m, "UNAVAILABLE (reason: no powercap zones, no hwmon sensor with a reading "
                          "(1 read an error; first: hwmon1/device/power1_average: 4294967295000 uW is"
                          " the ACPI power meter's error marker", 160), "%s", m);
    cJSON *root = json_of(&p);
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "measured_node_power"),
                                                "available")));
    cr_assert_eq(cJSON_GetObjectItem(root, "exit_code")->valuedouble, 1);
    cJSON_Delete(root);
    wc_probe_free(&p);
}
