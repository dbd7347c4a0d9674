/*
 * test_probe_print.c — how `wattcal probe` prints what collector/probe.c
 * found (cli/probe_print.c): the table and the JSON of Kepler's device
 * testdata, of a node without a meter, of the B20 KVM guest (the lines
 * expected.txt asks for) and of BMC sources, parsed back with cJSON; hostile
 * labels and BMC text round-trip in JSON and reach the table without control
 * bytes; credentials in a --truth spec are never printed. Each case runs the
 * real probe over a fixture or a temporary tree (what it finds is tested in
 * tests/unit/collector/probe/test_probe.c); BMC sources are injected through
 * wc_probe_opts.truth_open.
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
#include "common/wc_tmptree.h"
#include "tests/unit/support/test_support.h"

#define KEPLER_SYS "kepler/internal/device/testdata/sys"
#define KEPLER_PROC "kepler/internal/resource/testdata/procfs"

/* ---- helpers ----------------------------------------------------------- */

static char *dup_path(const char *p)
{
    char *s = strdup(p);
    cr_assert_not_null(s);
    return s;
}

/* A temporary root with an empty dev/ and bin/ so IPMI findings do not
 * depend on this machine. */
typedef struct tree {
    char *dir;
    char sys[4096], proc[4096], dev[4096], bin[4096];
} tree;

static void tree_new(tree *t)
{
    t->dir = dup_path(wc_test_tmpdir());
    snprintf(t->sys, sizeof t->sys, "%s/sys", t->dir);
    snprintf(t->proc, sizeof t->proc, "%s/proc", t->dir);
    snprintf(t->dev, sizeof t->dev, "%s/dev", t->dir);
    snprintf(t->bin, sizeof t->bin, "%s/bin", t->dir);
    cr_assert_eq(mkdir(t->sys, 0755) | mkdir(t->proc, 0755) | mkdir(t->dev, 0755) |
                     mkdir(t->bin, 0755),
                 0);
}

static void tree_free(tree *t)
{
    wc_remove_tree(t->dir);
    free(t->dir);
}

/* Options reading sys/proc, the tree's dev/ and PATH=bin/. */
static wc_probe_opts opts_for(const tree *t, const char *sys, const char *proc)
{
    wc_probe_opts o;
    memset(&o, 0, sizeof o);
    o.sysfs_root = sys;
    o.procfs_root = proc;
    o.dev_root = t->dev;
    o.path_env = t->bin;
    return o;
}

static void run_probe(const wc_probe_opts *o, wc_probe *p)
{
    wc_error err;
    err.msg[0] = '\0';
    cr_assert_eq(wc_probe_run(o, p, &err), 0, "%s", err.msg);
}

/* The table printed into a malloc'd string. */
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

/* The JSON report parsed back. */
static cJSON *json_of(const wc_probe *p)
{
    char *text = wc_probe_json(p);
    cr_assert_not_null(text);
    cJSON *root = cJSON_Parse(text);
    cr_assert_not_null(root, "JSON does not parse: %s", text);
    free(text);
    return root;
}

/* obj[k1] or obj[k1][k2]. */
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

/* Writes <root>/<rel> = text. */
static void put(const char *root, const char *rel, const char *text)
{
    wc_test_write(root, rel, text);
}

static void put_cpuinfo(const char *proc, int hypervisor)
{
    char text[512];
    snprintf(text, sizeof text,
             "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme de pse tsc msr pae "
             "mce cx8 apic sep mtrr pge%s lahf_lm\nbugs\t\t: spectre_v1\n\n",
             hypervisor ? " hypervisor" : "");
    put(proc, "cpuinfo", text);
}

/* ---- Kepler's device testdata ------------------------------------------ */

/* The hwmon part of the Kepler testdata's JSON: chips, and a power, a
 * voltage x current and an energy sensor. */
static void check_kepler_hwmon(const cJSON *j)
{
    cr_assert_eq(cJSON_GetArraySize(jget(j, "hwmon", "chips")), 21);
    const cJSON *sensors = jget(j, "hwmon", "sensors");
    cr_assert_eq(cJSON_GetArraySize(sensors), 31);
    const cJSON *gpu = NULL, *vi = NULL, *energy = NULL;
    cJSON_ArrayForEach(gpu, sensors) if (!strcmp(jstr(gpu, "name", NULL), "gpu")) break;
    cr_assert_not_null(gpu);
    cr_assert_str_eq(jstr(gpu, "kind", NULL), "power");
    cr_assert_str_eq(jstr(gpu, "unit", NULL), "uW");
    cr_assert_str_eq(jstr(gpu, "file", NULL), "power1_average");
    cr_assert_eq(jnum(gpu, "power_uw", NULL), 118000000.0);
    cJSON_ArrayForEach(vi, sensors) if (!strcmp(jstr(vi, "name", NULL), "max20730_power2")) break;
    cr_assert_not_null(vi);
    cr_assert_str_eq(jstr(vi, "pairing", NULL), "chip_rule");
    cr_assert_str_eq(jstr(vi, "current_file", NULL), "curr1_input");
    cr_assert_eq(jnum(vi, "voltage_mv", NULL), 12000);
    cr_assert_eq(jnum(vi, "current_ma", NULL), 10000);
    cr_assert_eq(jnum(vi, "power_uw", NULL), 120000000.0);
    cJSON_ArrayForEach(energy, sensors) if (!strcmp(jstr(energy, "name", NULL), "total")) break;
    cr_assert_not_null(energy);
    cr_assert_str_eq(jstr(energy, "unit", NULL), "uJ");
    cr_assert_eq(jnum(energy, "energy_uj", NULL), 500000000.0);
}

Test(probe_print_kepler, json_parses_back_with_the_documented_fields)
{
    char *sys = dup_path(wc_shared_fixture(KEPLER_SYS));
    char *proc = dup_path(wc_shared_fixture(KEPLER_PROC));
    tree t;
    tree_new(&t);
    wc_probe_opts o = opts_for(&t, sys, proc);
    wc_probe p;
    run_probe(&o, &p);
    cJSON *j = json_of(&p);
    cr_assert_str_eq(jstr(j, "schema", NULL), "wattcal-probe/1");
    cr_assert_str_eq(jstr(j, "sysfs_root", NULL), sys);
    cr_assert_str_eq(jstr(j, "rapl", "state"), "ok");
    const cJSON *socks = jget(j, "rapl", "sockets");
    cr_assert_eq(cJSON_GetArraySize(socks), 2);
    cr_assert_eq(cJSON_GetArrayItem(socks, 1)->valuedouble, 10);
    const cJSON *z0 = cJSON_GetArrayItem(jget(j, "rapl", "zones"), 0);
    cr_assert_str_eq(jstr(z0, "name", NULL), "package");
    cr_assert_str_eq(jstr(z0, "raw_name", NULL), "package-0");
    cr_assert_eq(jnum(z0, "socket", NULL), 0);
    cr_assert_eq(jnum(z0, "energy_uj", NULL), 240422366267.0);
    cr_assert_eq(jnum(z0, "max_energy_range_uj", NULL), 262143328850.0);
    const cJSON *z1 = cJSON_GetArrayItem(jget(j, "rapl", "zones"), 1);
    cr_assert_str_eq(jstr(z1, "parent", NULL), "package");
    cr_assert_eq(jnum(z1, "enabled", NULL), 0);
    check_kepler_hwmon(j);
    cr_assert(cJSON_IsNull(jget(j, "virtualization", "cpuinfo_hypervisor_flag")));
    cr_assert(cJSON_IsFalse(jget(j, "virtualization", "guest")));
    cr_assert_eq(cJSON_GetArraySize(jget(j, "ipmi", "devices")), 0);
    cr_assert(cJSON_IsNull(jget(j, "ipmi", "ipmitool")));
    cr_assert(cJSON_IsTrue(jget(j, "hardware_meter", NULL)));
    cr_assert_str_eq(jstr(j, "wattcal_source", NULL), "rapl");
    cr_assert_str_eq(jstr(j, "exporter", "mode"), "measure");
    cr_assert(cJSON_IsTrue(jget(j, "measured_node_power", "available")));
    cr_assert_str_eq(jstr(j, "measured_node_power", "source"), "rapl");
    cr_assert(cJSON_IsNull(jget(j, "measured_node_power", "reason")));
    cr_assert(cJSON_IsNull(jget(j, "ground_truth", NULL)));
    cr_assert_eq(jnum(j, "exit_code", NULL), 0);
    cJSON_Delete(j);
    wc_probe_free(&p);
    tree_free(&t);
    free(sys);
    free(proc);
}

/* ---- no meter at all --------------------------------------------------- */

Test(probe_print, no_meter_table_and_json_say_estimate)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/.keep", "");
    put_cpuinfo(t.proc, 0);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    char *table = table_of(&p);
    cr_assert(strstr(table, "exporter here would   estimate"), "%s", table);
    cr_assert(strstr(table, "Kepler v0.10-v0.11  fails at init"), "%s", table);
    free(table);
    cJSON *j = json_of(&p);
    cr_assert_str_eq(jstr(j, "rapl", "state"), "no_zones");
    cr_assert(cJSON_IsFalse(jget(j, "hwmon", "present")));
    cr_assert_str_eq(jstr(j, "exporter", "mode"), "estimate");
    cr_assert_str_eq(jstr(j, "measured_node_power", "reason"),
                     "no powercap zones, no hwmon power sensor");
    cr_assert_eq(jnum(j, "exit_code", NULL), 1);
    cJSON_Delete(j);
    wc_probe_free(&p);
    tree_free(&t);
}

/* ---- B20: a KVM guest without RAPL ------------------------------------- */

/* The text between `open` and the next `close` after it in s, into out. */
static void between(const char *s, const char *open, char close, char *out, size_t cap)
{
    const char *a = strstr(s, open);
    cr_assert_not_null(a, "expected.txt lacks %s", open);
    a += strlen(open);
    const char *b = strchr(a, close);
    cr_assert_not_null(b);
    snprintf(out, cap, "%.*s", (int)(b - a), a);
}

/* The B20 guest as test_probe.c rebuilds it from vm_probe.txt: no powercap
 * zone, the cpuinfo hypervisor flag, QEMU's DMI text, no hwmon chip. */
static void build_guest_tree(const tree *t)
{
    put(t->sys, "class/powercap/.keep", "");
    put_cpuinfo(t->proc, 1);
    put(t->sys, "class/dmi/id/sys_vendor", "QEMU\n");
    put(t->sys, "class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n");
    put(t->sys, "class/hwmon/.keep", "");
}

Test(probe_print_b20, kvm_guest_table_and_json_state_expected_lines)
{
    char *expected = wc_test_slurp(wc_shared_fixture("cases/B20/expected.txt"), NULL);
    char want_verdict[256], want_reason[256], want_line[300];
    between(expected, "the run report states: \"", '"', want_verdict, sizeof want_verdict);
    between(expected, "measured node power: UNAVAILABLE (reason: ", ')', want_reason,
            sizeof want_reason);
    snprintf(want_line, sizeof want_line, "UNAVAILABLE (reason: %s)", want_reason);
    tree t;
    tree_new(&t);
    build_guest_tree(&t);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    char *table = table_of(&p);
    char line[400];
    snprintf(line, sizeof line, "measured node power   %s\n", want_line);
    cr_assert(strstr(table, line), "%s", table);
    snprintf(line, sizeof line, "verdict               %s\n", want_verdict);
    cr_assert(strstr(table, line), "%s", table);
    cr_assert(strstr(table, "virtualisation   guest (qemu)"), "%s", table);
    free(table);
    cJSON *j = json_of(&p);
    cr_assert_str_eq(jstr(j, "verdict", NULL), want_verdict);
    cr_assert(cJSON_IsFalse(jget(j, "measured_node_power", "available")));
    cr_assert_str_eq(jstr(j, "measured_node_power", "reason"), want_reason);
    cr_assert(cJSON_IsTrue(jget(j, "virtualization", "guest")));
    cr_assert_str_eq(jstr(j, "virtualization", "hypervisor"), "qemu");
    cJSON_Delete(j);
    wc_probe_free(&p);
    tree_free(&t);
    free(expected);
}

/* ---- IPMI in-band ------------------------------------------------------ */

Test(probe_print, ipmi_devices_and_ipmitool_in_json)
{
    tree t;
    tree_new(&t);
    put(t.dev, "ipmi0", "");
    put(t.dev, "ipmidev/0", "");
    put(t.bin, "ipmitool", "#!/bin/sh\nexit 0\n");
    char tool[4200];
    snprintf(tool, sizeof tool, "%s/ipmitool", t.bin);
    cr_assert_eq(chmod(tool, 0755), 0);
    put_cpuinfo(t.proc, 0);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    cJSON *j = json_of(&p);
    cr_assert_eq(cJSON_GetArraySize(jget(j, "ipmi", "devices")), 2);
    cr_assert_str_eq(jstr(j, "ipmi", "ipmitool"), tool);
    cJSON_Delete(j);
    wc_probe_free(&p);
    tree_free(&t);
}

/* ---- hostile text: JSON round-trip, harmless table --------------------- */

#define HOSTILE_LABEL "Rail \"A\" \\ 12V\nline2\033[2J\033]0;owned\007"

Test(probe_print_escaping, hostile_sensor_label_round_trips_and_prints_harmlessly)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/hwmon/hwmon0/name", "evil\n");
    put(t.sys, "class/hwmon/hwmon0/power1_input", "5000000\n");
    put(t.sys, "class/hwmon/hwmon0/power1_label", HOSTILE_LABEL "\n");
    put(t.sys, "class/hwmon/hwmon1/name", "latin1\n");
    put(t.sys, "class/hwmon/hwmon1/power1_input", "1000000\n");
    put(t.sys, "class/hwmon/hwmon1/power1_label", "Caf\xe9\n"); /* not UTF-8 */
    put_cpuinfo(t.proc, 0);
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    wc_probe p;
    run_probe(&o, &p);
    cr_assert_eq(p.hwmon.nsensors, 2);
    cJSON *j = json_of(&p);
    const cJSON *sensors = jget(j, "hwmon", "sensors");
    cr_assert_str_eq(jstr(cJSON_GetArrayItem(sensors, 0), "label", NULL), HOSTILE_LABEL);
    cr_assert_str_eq(jstr(cJSON_GetArrayItem(sensors, 1), "label", NULL), "Caf\xef\xbf\xbd",
                     "an invalid byte becomes U+FFFD");
    cJSON_Delete(j);
    char *text = wc_probe_json(&p);
    cr_assert_null(strchr(text, '\033'), "raw ESC in JSON");
    cr_assert(strstr(text, "Rail \\\"A\\\" \\\\ 12V\\nline2\\u001b[2J"), "%s", text);
    free(text);
    char *table = table_of(&p);
    cr_assert_null(strchr(table, '\033'), "ESC reached the terminal");
    cr_assert_null(strchr(table, '\007'), "BEL reached the terminal");
    cr_assert(strstr(table, "Rail \"A\" \\ 12V?line2?[2J?]0;owned?\n"), "%s", table);
    cr_assert(strstr(table, "Caf?\n"), "%s", table);
    free(table);
    char buf[16];
    cr_assert_str_eq(wc_probe_term_safe("a\tb\x7f" "c\xc3\xa9", buf, sizeof buf), "a?b?c??");
    cr_assert_str_eq(wc_probe_term_safe("0123456789abcdef", buf, 8), "0123456");
    wc_probe_free(&p);
    tree_free(&t);
}

/* ---- ground-truth sources through an injected opener ------------------- */

/* A fake BMC: the spec after "fake:" chooses what it does. */
static int fake_poll(wc_truth_source *s, wc_truth_sample *out)
{
    if (strstr(s->spec, "unavailable")) {
        out->status = WC_TRUTH_UNAVAILABLE;
        snprintf(out->error, sizeof out->error, "sensor \"Pwr\" disabled\033[31m");
        snprintf(out->path, sizeof out->path, "sdr:Pwr Consumption");
        return 0;
    }
    out->status = WC_TRUTH_OK;
    out->watts = 412.5;
    out->window_s = 1;
    out->window_known = 1;
    snprintf(out->path, sizeof out->path, "dcmi:instantaneous");
    return 0;
}

static const wc_truth_ops FAKE_OPS = {.kind = "fake", .open = NULL, .poll = fake_poll,
                                      .close = NULL};

static int fake_open(const char *spec, const wc_truth_config *cfg, wc_truth_source *s,
                     wc_error *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    s->cfg = *cfg;
    if (strstr(spec, "refuse"))
        return wc_error_set(err, -ECONNREFUSED, "%s: BMC said \"no\\\033[2J\"", spec);
    s->ops = &FAKE_OPS;
    s->provenance = strstr(spec, "simulated") ? WC_PROV_SIMULATED : WC_PROV_GROUND_TRUTH;
    snprintf(s->description, sizeof s->description, "fake BMC for %s", spec);
    return 0;
}

/* The JSON fields of the four fake sources: refused, simulated, unavailable,
 * ok. */
static void check_bmc_json(const wc_probe *p)
{
    cJSON *j = json_of(p);
    const cJSON *b = jget(j, "bmcs", NULL);
    cr_assert_eq(cJSON_GetArraySize(b), 4);
    const cJSON *b0 = cJSON_GetArrayItem(b, 0), *b2 = cJSON_GetArrayItem(b, 2),
                *b3 = cJSON_GetArrayItem(b, 3);
    cr_assert(cJSON_IsFalse(jget(b0, "opened", NULL)));
    cr_assert_str_eq(jstr(b0, "error", NULL), "fake:refuse: BMC said \"no\\\033[2J\"");
    cr_assert_str_eq(jstr(cJSON_GetArrayItem(b, 1), "provenance", NULL), "simulated");
    cr_assert_str_eq(jstr(b2, "status", NULL), "unavailable");
    cr_assert(cJSON_IsNull(jget(b2, "watts", NULL)));
    cr_assert_str_eq(jstr(b2, "path", NULL), "sdr:Pwr Consumption");
    cr_assert_str_eq(jstr(b3, "status", NULL), "ok");
    cr_assert_eq(jnum(b3, "watts", NULL), 412.5);
    cr_assert_eq(jnum(b3, "window_s", NULL), 1);
    cr_assert_str_eq(jstr(b3, "path", NULL), "dcmi:instantaneous");
    cr_assert_str_eq(jstr(b3, "provenance", NULL), "ground truth");
    cr_assert_str_eq(jstr(j, "ground_truth", NULL), "fake:ok");
    cJSON_Delete(j);
}

Test(probe_print_bmc, each_source_in_json_and_table)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/.keep", "");
    put_cpuinfo(t.proc, 0);
    static const char *const specs[] = {"fake:refuse", "fake:simulated", "fake:unavailable",
                                        "fake:ok"};
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    o.truth_specs = specs;
    o.ntruth = 4;
    o.truth_open = fake_open;
    wc_probe p;
    run_probe(&o, &p);
    check_bmc_json(&p);
    char *table = table_of(&p);
    cr_assert_null(strchr(table, '\033'), "BMC text reached the terminal raw");
    cr_assert(strstr(table, "not opened: fake:refuse: BMC said \"no\\?[2J\""), "%s", table);
    cr_assert(strstr(table, "poll: ok, 412.5 W via dcmi:instantaneous"), "%s", table);
    cr_assert(strstr(table, "poll: unavailable via sdr:Pwr Consumption (sensor \"Pwr\" "
                            "disabled?[31m)"),
              "%s", table);
    cr_assert(strstr(table, "ground truth          fake:ok\n"), "%s", table);
    free(table);
    wc_probe_free(&p);
    tree_free(&t);
}

/* ---- credentials in a --truth spec are never printed -------------------- */

/* `wattcal probe --truth 'ipmi:lanplus://admin:S3cret@127.0.0.1'` once printed
 * the whole spec in its table and JSON. */
Test(probe_print_bmc, credentials_in_a_spec_are_never_printed)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/.keep", "");
    static char longspec[700];
    int n = snprintf(longspec, sizeof longspec, "redfish:https://admin:");
    for (int i = 0; i < 100; i++)
        n += snprintf(longspec + n, sizeof longspec - (size_t)n, "S3cret");
    snprintf(longspec + n, sizeof longspec - (size_t)n, "@bmc.example.com");
    const char *specs[] = {"ipmi:lanplus://admin:S3cret@127.0.0.1",
                           "redfish:https://admin:S3cret@bmc.example.com", longspec,
                           "weird://admin:S3cret@host"};
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    o.truth_specs = specs;
    o.ntruth = 4;
    wc_probe p;
    run_probe(&o, &p);
    char *text = wc_probe_json(&p);
    cr_assert_not_null(text);
    cr_expect_null(strstr(text, "S3c"), "%s", text);
    cr_expect(strstr(text, "\"spec\":\t\"ipmi:lanplus://***@127.0.0.1\"") ||
                  strstr(text, "\"spec\":\"ipmi:lanplus://***@127.0.0.1\""),
              "%s", text);
    free(text);
    char *table = table_of(&p);
    cr_expect_null(strstr(table, "S3c"), "%s", table);
    cr_expect(strstr(table, "  ipmi:lanplus://***@127.0.0.1\n"), "%s", table);
    cr_expect(strstr(table, "  redfish:https://***@bmc.example.com\n"), "%s", table);
    free(table);
    wc_probe_free(&p);
    tree_free(&t);
}

/* A source that echoes its spec (description, poll error): the table and
 * JSON show it redacted, and so does the verdict's ground-truth line. */
Test(probe_print_bmc, a_source_echoing_its_spec_is_printed_redacted)
{
    tree t;
    tree_new(&t);
    put(t.sys, "class/.keep", "");
    static const char *const specs[] = {"fake:ok://root:S3cret@bmc", "fake:refuse://root:S3cret@bmc"};
    wc_probe_opts o = opts_for(&t, t.sys, t.proc);
    o.truth_specs = specs;
    o.ntruth = 2;
    o.truth_open = fake_open;
    wc_probe p;
    run_probe(&o, &p);
    char *text = wc_probe_json(&p);
    cr_expect_null(strstr(text, "S3cret"), "%s", text);
    free(text);
    char *table = table_of(&p);
    cr_expect_null(strstr(table, "S3cret"), "%s", table);
    cr_expect(strstr(table, "ground truth          fake:ok://***@bmc\n"), "%s", table);
    free(table);
    wc_probe_free(&p);
    tree_free(&t);
}
