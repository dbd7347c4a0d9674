/*
 * test_probe_cases.c — `wattcal probe` (collector/probe.c) on the project's
 * own trees: the node of tests/fixtures/sysfs/node + tests/fixtures/procfs/node
 * (RAPL and hwmon: "measure", exit 0, the JSON fields) and the KVM guest of
 * tests/fixtures/probe/kvm-guest (case B20: no hardware power source, the
 * verdict and "measured node power: UNAVAILABLE" as the case states them,
 * exit 1). test_probe.c proves the same on Kepler's testdata and the shared
 * cases/B20.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/probe_print.h"
#include "collector/probe.h"
#include "tests/unit/support/test_support.h"

#define B20_VERDICT "no hardware power source in guest; attribution gap cannot be bounded from inside"
#define B20_REASON "virtualised guest, no powercap zones, no hwmon power sensor"

/* Options reading sys/proc below tests/fixtures, with an empty dev/ and an
 * empty PATH directory so IPMI findings do not depend on this machine. */
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

static void run_probe(const wc_probe_opts *o, wc_probe *p)
{
    wc_error err;
    err.msg[0] = '\0';
    cr_assert_eq(wc_probe_run(o, p, &err), 0, "%s", err.msg);
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

static const cJSON *jget(const cJSON *obj, const char *k1, const char *k2)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(obj, k1);
    cr_assert_not_null(o, "JSON lacks %s", k1);
    if (k2) {
        o = cJSON_GetObjectItemCaseSensitive(o, k2);
        cr_assert_not_null(o, "JSON lacks %s.%s", k1, k2);
    }
    return o;
}

static const char *jstr(const cJSON *obj, const char *k1, const char *k2)
{
    const cJSON *o = jget(obj, k1, k2);
    cr_assert(cJSON_IsString(o), "%s.%s is not a string", k1, k2 ? k2 : "");
    return o->valuestring;
}

static double jnum(const cJSON *obj, const char *k1, const char *k2)
{
    const cJSON *o = jget(obj, k1, k2);
    cr_assert(cJSON_IsNumber(o), "%s.%s is not a number", k1, k2 ? k2 : "");
    return o->valuedouble;
}

/* The sensor of the JSON "hwmon.sensors" list with this name. */
static const cJSON *sensor_named(const cJSON *j, const char *name)
{
    const cJSON *s = NULL;
    cJSON_ArrayForEach(s, jget(j, "hwmon", "sensors")) if (!strcmp(jstr(s, "name", NULL), name))
        return s;
    cr_assert_fail("no sensor %s in the JSON", name);
    return NULL;
}

Test(probe_cases, rapl_present_means_measure_and_exit_0)
{
    wc_probe_opts o = opts_for("sysfs/node", "procfs/node");
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.rapl.state, WC_PROBE_RAPL_OK, "%s", p.rapl.message);
    cr_assert_eq(p.rapl.meter.nzones, 3, "package-0, its core, package-3 (MMIO twin dropped)");
    cr_assert_eq(p.rapl.nsockets, 2);
    cr_assert_eq(p.rapl.sockets[0], 0);
    cr_assert_eq(p.rapl.sockets[1], 3);
    for (size_t i = 0; i < p.rapl.meter.nzones; i++)
        cr_assert_eq(p.rapl.readings[i].status, 0, "zone %zu", i);
    cr_assert_eq(p.rapl.readings[0].value, 123456789012ULL);
    cr_assert_eq(p.hwmon.nsensors, 22);
    cr_assert_eq(p.virt.guest, 0);
    cr_assert_eq(p.virt.cpuinfo_flag, -1, "the procfs tree has no cpuinfo");
    cr_assert_eq(p.ipmi.ndevices, 0);
    cr_assert_str_eq(p.ipmi.ipmitool, "");
    const wc_probe_verdict *v = &p.verdict;
    cr_assert_eq(v->hardware_meter, 1);
    cr_assert_eq(wc_probe_exit_code(&p), 0);
    cr_assert_str_eq(v->wattcal_source, "rapl");
    cr_assert_str_eq(v->exporter_mode, "measure");
    cr_assert_str_eq(v->exporter_meter, "rapl");
    cr_assert_eq(v->measured_available, 1);
    cr_assert_str_eq(v->measured_source, "rapl");
    cr_assert(strncmp(v->kepler_released, "measures with RAPL", 18) == 0, "%s",
              v->kepler_released);
    cr_assert_str_eq(v->verdict,
                     "RAPL measures this node: wattcal record can measure the attribution gap");
    char m[256];
    cr_assert_str_eq(wc_probe_measured_text(&p, m, sizeof m),
                     "AVAILABLE (rapl: 3 zones on 2 sockets)");
    wc_probe_free(&p);
}

Test(probe_cases, json_parses_back_with_the_documented_fields)
{
    wc_probe_opts o = opts_for("sysfs/node", "procfs/node");
    wc_probe p;
    run_probe(&o, &p);
    cJSON *j = json_of(&p);
    cr_assert_str_eq(jstr(j, "schema", NULL), "wattcal-probe/1");
    cr_assert_str_eq(jstr(j, "sysfs_root", NULL), o.sysfs_root);
    cr_assert_str_eq(jstr(j, "rapl", "state"), "ok");
    const cJSON *socks = jget(j, "rapl", "sockets");
    cr_assert_eq(cJSON_GetArraySize(socks), 2);
    cr_assert_eq(cJSON_GetArrayItem(socks, 1)->valuedouble, 3);
    const cJSON *z0 = cJSON_GetArrayItem(jget(j, "rapl", "zones"), 0);
    cr_assert_str_eq(jstr(z0, "name", NULL), "package");
    cr_assert_str_eq(jstr(z0, "raw_name", NULL), "package-0");
    cr_assert_eq(jnum(z0, "socket", NULL), 0);
    cr_assert_eq(jnum(z0, "energy_uj", NULL), 123456789012.0);
    cr_assert_eq(jnum(z0, "max_energy_range_uj", NULL), 262143328850.0);
    const cJSON *z1 = cJSON_GetArrayItem(jget(j, "rapl", "zones"), 1);
    cr_assert_str_eq(jstr(z1, "parent", NULL), "package");
    cr_assert_eq(jnum(z1, "enabled", NULL), 0);
    cr_assert_eq(cJSON_GetArraySize(jget(j, "hwmon", "chips")), 15);
    cr_assert_eq(cJSON_GetArraySize(jget(j, "hwmon", "sensors")), 22);
    const cJSON *ppt = sensor_named(j, "ppt");
    cr_assert_str_eq(jstr(ppt, "kind", NULL), "power");
    cr_assert_str_eq(jstr(ppt, "unit", NULL), "uW");
    cr_assert_str_eq(jstr(ppt, "file", NULL), "power1_average");
    cr_assert_eq(jnum(ppt, "power_uw", NULL), 87000000.0);
    const cJSON *vi = sensor_named(j, "max20730_power2");
    cr_assert_str_eq(jstr(vi, "pairing", NULL), "chip_rule");
    cr_assert_str_eq(jstr(vi, "current_file", NULL), "curr1_input");
    cr_assert_eq(jnum(vi, "voltage_mv", NULL), 900);
    cr_assert_eq(jnum(vi, "current_ma", NULL), 40000);
    cr_assert_eq(jnum(vi, "power_uw", NULL), 36000000.0);
    const cJSON *energy = sensor_named(j, "total");
    cr_assert_str_eq(jstr(energy, "unit", NULL), "uJ");
    cr_assert_eq(jnum(energy, "energy_uj", NULL), 812000000.0);
    cr_assert(cJSON_IsNull(jget(j, "virtualization", "cpuinfo_hypervisor_flag")));
    cr_assert(cJSON_IsFalse(jget(j, "virtualization", "guest")));
    cr_assert_eq(cJSON_GetArraySize(jget(j, "ipmi", "devices")), 0);
    cr_assert(cJSON_IsNull(jget(j, "ipmi", "ipmitool")));
    cJSON_Delete(j);
    wc_probe_free(&p);
}

Test(probe_cases, kvm_guest_without_rapl_is_unbounded)
{
    wc_probe_opts o = opts_for("probe/kvm-guest/sys", "probe/kvm-guest/proc");
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.virt.guest, 1);
    cr_assert_eq(p.virt.cpuinfo_flag, 1);
    cr_assert_str_eq(p.virt.hypervisor, "qemu");
    cr_assert_str_eq(p.virt.sys_vendor, "QEMU");
    cr_assert_str_eq(p.virt.evidence, "cpuinfo flag hypervisor; DMI sys_vendor QEMU");
    cr_assert_eq(p.rapl.state, WC_PROBE_RAPL_NO_ZONES);
    cr_assert_eq(p.hwmon.nsensors, 0);
    const wc_probe_verdict *v = &p.verdict;
    cr_assert_str_eq(v->verdict, B20_VERDICT);
    cr_assert_str_eq(v->verdict, WC_PROBE_VERDICT_GUEST_NO_METER);
    cr_assert_eq(v->measured_available, 0);
    cr_assert_str_eq(v->measured_reason, B20_REASON);
    char m[256];
    cr_assert_str_eq(wc_probe_measured_text(&p, m, sizeof m), "UNAVAILABLE (reason: " B20_REASON ")");
    cr_assert_str_eq(v->exporter_mode, "estimate");
    cr_assert(strstr(v->kepler_released, "fails at init"), "never 0 W, never an exit: %s",
              v->kepler_released);
    cr_assert_eq(wc_probe_exit_code(&p), 1);
    char *table = table_of(&p);
    cr_assert(strstr(table, "measured node power   UNAVAILABLE (reason: " B20_REASON ")\n"), "%s",
              table);
    cr_assert(strstr(table, "verdict               " B20_VERDICT "\n"), "%s", table);
    cr_assert(strstr(table, "virtualisation   guest (qemu)"), "%s", table);
    free(table);
    cJSON *j = json_of(&p);
    cr_assert_str_eq(jstr(j, "verdict", NULL), B20_VERDICT);
    cr_assert(cJSON_IsFalse(jget(j, "measured_node_power", "available")));
    cr_assert_str_eq(jstr(j, "measured_node_power", "reason"), B20_REASON);
    cr_assert(cJSON_IsTrue(jget(j, "virtualization", "guest")));
    cr_assert_str_eq(jstr(j, "virtualization", "hypervisor"), "qemu");
    cJSON_Delete(j);
    wc_probe_free(&p);
}
