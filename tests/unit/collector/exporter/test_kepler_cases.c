/*
 * test_kepler_cases.c — Kepler's metric catalogue (collector/exporter/
 * kepler_metrics.c) on the project's own fixtures: every row of
 * tests/fixtures/exposition/kepler-catalogue.tsv (the expected
 * classification of each metric of v0.10.2, v0.11.4, main and the legacy
 * layout, written by hand) is classified as it says; every series of the
 * four per-version expositions is a metric of that table and classified as
 * its row says; the typed facts of chosen series (keys, parents, names,
 * state, meter, build info); the meter of every kind of path; the node's
 * power source; the stable names.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/collector/exporter/expo_collect.h"
#include "tests/unit/support/test_support.h"

/* One row of kepler-catalogue.tsv. */
typedef struct cat_row {
    char versions[64], metric[96], labels[512];
    char level[24], quantity[24], device[12], layout[12], zone[24], meter[16];
} cat_row;

/* "-" stands for "". */
static void cell(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", strcmp(src, "-") ? src : "");
}

/* Reads the table; returns the number of rows (*rows malloc'd). */
static size_t read_catalogue(cat_row **rows)
{
    char *text = wc_test_slurp(wc_own_fixture("exposition/kepler-catalogue.tsv"), NULL);
    size_t n = 0, cap = 128;
    *rows = calloc(cap, sizeof **rows);
    cr_assert_not_null(*rows);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        char *f[9], *s2 = NULL;
        size_t k = 0;
        for (char *c = strtok_r(line, "\t", &s2); c && k < 9; c = strtok_r(NULL, "\t", &s2))
            f[k++] = c;
        cr_assert_eq(k, 9, "a row of 9 cells: %s", line);
        cr_assert_lt(n, cap);
        cat_row *r = &(*rows)[n++];
        cell(r->versions, sizeof r->versions, f[0]);
        cell(r->metric, sizeof r->metric, f[1]);
        cell(r->labels, sizeof r->labels, f[2]);
        cell(r->level, sizeof r->level, f[3]);
        cell(r->quantity, sizeof r->quantity, f[4]);
        cell(r->device, sizeof r->device, f[5]);
        cell(r->layout, sizeof r->layout, f[6]);
        cell(r->zone, sizeof r->zone, f[7]);
        cell(r->meter, sizeof r->meter, f[8]);
    }
    free(text);
    return n;
}

/* Classifies metric{labels} (labels "a=x,b=y") as a parsed sample. */
static int classify_row(const cat_row *r, wc_kep_fact *f)
{
    char buf[512];
    wc_expo_label l[16];
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", r->labels);
    char *save = NULL;
    for (char *kv = strtok_r(buf, ",", &save); kv && n < 16; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        cr_assert_not_null(eq, "%s: label %s", r->metric, kv);
        *eq = '\0';
        l[n++] = (wc_expo_label){.name = kv, .value = eq + 1};
    }
    wc_expo_sample s = {.name = r->metric, .family = r->metric, .labels = l, .nlabels = n};
    return wc_kepler_classify(&s, f);
}

static void expect_row(const cat_row *r, const wc_kep_fact *f)
{
    cr_assert_str_eq(wc_kep_level_name(f->level), r->level, "%s", r->metric);
    cr_assert_str_eq(wc_kep_quantity_name(f->quantity), r->quantity, "%s", r->metric);
    cr_assert_str_eq(wc_kep_device_name(f->device), r->device, "%s", r->metric);
    cr_assert_str_eq(wc_kep_layout_name(f->layout), r->layout, "%s", r->metric);
    cr_assert_str_eq(f->zone, r->zone, "%s", r->metric);
    cr_assert_str_eq(wc_kep_meter_name(f->meter), r->meter, "%s", r->metric);
}

Test(kepler_cases, every_catalogue_row)
{
    cat_row *rows;
    size_t n = read_catalogue(&rows);
    cr_assert_eq(n, 80, "the table has %zu rows", n);
    for (size_t i = 0; i < n; i++) {
        wc_kep_fact f;
        cr_assert_eq(classify_row(&rows[i], &f), 1, "%s", rows[i].metric);
        expect_row(&rows[i], &f);
    }
    free(rows);
}

/* The table row of a metric in a layout ("v0.10+" / "legacy"), or NULL. */
static const cat_row *row_for(const cat_row *rows, size_t n, const char *metric,
                              const char *layout)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].metric, metric) && !strcmp(rows[i].layout, layout))
            return &rows[i];
    return NULL;
}

/* The quantity a fixture series must have: its row's, except that a legacy
 * energy series is dynamic or idle by its own mode label. */
static const char *quantity_of(const cat_row *row, const expo_rec *r)
{
    if (strcmp(row->layout, "legacy") ||
        (strcmp(row->quantity, "dynamic_joules") && strcmp(row->quantity, "idle_joules")))
        return row->quantity;
    return strstr(r->labels, "mode=\"idle\"") ? "idle_joules" : "dynamic_joules";
}

static void parse_own(const char *rel, wc_expo_format fmt, expo_got *g)
{
    char path[256];
    snprintf(path, sizeof path, "exposition/%s", rel);
    expo_collect_file(wc_own_fixture(path), fmt, g);
    cr_assert_eq(g->rc, 0, "%s", g->err.msg);
}

Test(kepler_cases, every_fixture_series_is_a_catalogue_metric)
{
    static const struct {
        const char *file, *version, *layout;
        wc_expo_format fmt;
    } fx[] = {{"kepler-v0.10.2.prom", "v0.10.2", "v0.10+", WC_EXPO_TEXT_004},
              {"kepler-v0.11.4.prom", "v0.11.4", "v0.10+", WC_EXPO_TEXT_004},
              {"kepler-main.om", "main", "v0.10+", WC_EXPO_OPENMETRICS},
              {"kepler-v0.7.prom", "v0.7", "legacy", WC_EXPO_TEXT_004}};
    cat_row *rows;
    size_t n = read_catalogue(&rows);
    for (size_t k = 0; k < sizeof fx / sizeof fx[0]; k++) {
        expo_got g;
        parse_own(fx[k].file, fx[k].fmt, &g);
        for (size_t i = 0; i < g.n; i++) {
            const expo_rec *r = &g.r[i];
            cr_assert_eq(r->kepler, 1, "%s: %s", fx[k].file, r->name);
            const cat_row *row = row_for(rows, n, r->name, fx[k].layout);
            cr_assert_not_null(row, "%s: %s is in no row", fx[k].file, r->name);
            cr_assert(strstr(row->versions, fx[k].version), "%s: %s not in %s", fx[k].file,
                      r->name, row->versions);
            cr_assert_str_eq(wc_kep_level_name(r->fact.level), row->level, "%s", r->name);
            cr_assert_str_eq(wc_kep_quantity_name(r->fact.quantity), quantity_of(row, r), "%s%s",
                             r->name, r->labels);
            cr_assert_str_eq(wc_kep_device_name(r->fact.device), row->device, "%s", r->name);
        }
        expo_got_free(&g);
    }
    free(rows);
}

/* The fact of the sample (name, canonical labels) of g, which must exist. */
static const wc_kep_fact *fact_of(const expo_got *g, const char *name, const char *labels)
{
    const expo_rec *r = expo_find(g, name, labels);
    cr_assert_not_null(r, "no sample %s%s", name, labels);
    cr_assert_eq(r->kepler, 1);
    return &r->fact;
}

#define NGINX_CID "5f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff"
#define WEB_POD "0b9c8d7e-6f5a-4b3c-2d1e-0f9a8b7c6d5e"

Test(kepler_cases, v0_10_2_facts)
{
    expo_got g;
    parse_own("kepler-v0.10.2.prom", WC_EXPO_TEXT_004, &g);
    const wc_kep_fact *f = fact_of(&g, "kepler_process_cpu_joules_total",
                                   "{comm=\"nginx\",container_id=\"" NGINX_CID "\",exe=\"/usr/sbin/"
                                   "nginx\",node_name=\"worker-1\",pid=\"4242\",state=\"running\","
                                   "type=\"container\",zone=\"package\"}");
    cr_assert_eq(f->level, WC_KEP_PROCESS);
    cr_assert_str_eq(f->key, "4242");
    cr_assert_str_eq(f->parent, NGINX_CID);
    cr_assert_str_eq(f->name, "nginx");
    cr_assert_str_eq(f->state, "running");
    cr_assert_str_eq(f->zone, "package");
    cr_assert_str_eq(f->node, "worker-1");
    cr_assert_eq(f->meter, WC_KEP_METER_NA);
    f = fact_of(&g, "kepler_process_cpu_joules_total",
                "{comm=\"sort\",exe=\"/usr/bin/sort\",node_name=\"worker-1\",pid=\"31337\","
                "state=\"terminated\",type=\"regular\",zone=\"package\"}");
    cr_assert_str_eq(f->state, "terminated");
    cr_assert_str_empty(f->parent, "container_id=\"\": no container");
    f = &expo_first(&g, "kepler_container_cpu_joules_total")->fact;
    cr_assert_str_eq(f->key, NGINX_CID);
    cr_assert_str_eq(f->parent, WEB_POD);
    cr_assert_str_eq(f->name, "web");
    f = &expo_first(&g, "kepler_pod_cpu_joules_total")->fact;
    cr_assert_str_eq(f->key, WEB_POD);
    cr_assert_str_eq(f->name, "web-7d9f8c6b5-x2k4q");
    cr_assert_str_eq(f->ns, "shop");
    f = &expo_first(&g, "kepler_vm_cpu_joules_total")->fact;
    cr_assert_str_eq(f->key, "8e4b6f0a-3c1d-4b2e-9f7a-5d6c7b8a9e0f");
    cr_assert_str_eq(f->name, "ci-runner");
    f = &expo_first(&g, "kepler_node_cpu_joules_total")->fact;
    cr_assert_str_eq(f->path, "/sys/class/powercap/intel-rapl:0");
    cr_assert_eq(f->meter, WC_KEP_METER_MEASURED);
    cr_assert_str_empty(f->key);
    f = &expo_first(&g, "kepler_build_info")->fact;
    cr_assert_str_eq(f->version, "v0.10.2");
    cr_assert_str_eq(f->revision, "3f2c9a1");
    cr_assert_str_empty(f->node, "info metrics carry no node_name");
    f = &expo_first(&g, "kepler_node_cpu_info")->fact;
    cr_assert_str_eq(f->key, "0");
    cr_assert_str_eq(f->name, "Intel(R) Xeon(R) Gold 6338N CPU @ 2.20GHz");
    wc_kep_meter m[64];
    size_t k = 0;
    for (size_t i = 0; i < g.n && k < 64; i++)
        m[k++] = g.r[i].fact.meter;
    cr_assert_str_eq(wc_kepler_power_source(m, k), "measured");
    expo_got_free(&g);
}

#define GPU0 "{gpu=\"0\",gpu_name=\"NVIDIA A100-SXM4-40GB\",gpu_uuid=\"GPU-5f8a2c1e-9b3d-4e7f-a1c2-" \
             "d3e4f5a6b7c8\",node_name=\"gpu-node-7\",vendor=\"nvidia\"}"

Test(kepler_cases, v0_11_4_facts)
{
    expo_got g;
    parse_own("kepler-v0.11.4.prom", WC_EXPO_TEXT_004, &g);
    const wc_kep_fact *f = &expo_first(&g, "kepler_node_cpu_joules_total")->fact;
    cr_assert_eq(f->meter, WC_KEP_METER_AGGREGATED);
    cr_assert_str_eq(f->path, "aggregated-package");
    f = fact_of(&g, "kepler_node_cpu_watts",
                "{node_name=\"gpu-node-7\",path=\"/sys/class/powercap/intel-rapl:1\",zone=\"psys\"}");
    cr_assert_eq(f->meter, WC_KEP_METER_MEASURED);
    cr_assert_str_eq(f->zone, "psys");
    f = fact_of(&g, "kepler_node_gpu_watts", GPU0);
    cr_assert_eq(f->device, WC_KEP_GPU);
    cr_assert_str_eq(f->key, "0");
    cr_assert_str_eq(f->name, "NVIDIA A100-SXM4-40GB");
    cr_assert_str_empty(f->zone);
    cr_assert_eq(f->meter, WC_KEP_METER_NA);
    f = &expo_first(&g, "kepler_pod_gpu_joules_total")->fact;
    cr_assert_eq(f->level, WC_KEP_POD);
    cr_assert_eq(f->device, WC_KEP_GPU);
    cr_assert_str_eq(f->ns, "ml");
    f = fact_of(&g, "kepler_platform_watts",
                "{bmc_id=\"bmc-gpu-node-7\",chassis_id=\"1U\",node_name=\"gpu-node-7\","
                "source=\"redfish\",source_id=\"PSU2\",source_name=\"Power Supply 2\","
                "source_type=\"PowerSupply\"}");
    cr_assert_eq(f->level, WC_KEP_PLATFORM);
    cr_assert_eq(f->quantity, WC_KEP_WATTS);
    cr_assert_str_eq(f->key, "PSU2");
    cr_assert_str_eq(f->parent, "1U");
    cr_assert_str_eq(f->name, "Power Supply 2");
    cr_assert_str_eq(f->source, "redfish");
    cr_assert_str_eq(f->node, "gpu-node-7");
    cr_assert_str_eq(f->zone, "platform");
    f = &expo_first(&g, "kepler_build_info")->fact;
    cr_assert_str_eq(f->version, "v0.11.4");
    wc_kep_meter m[64];
    size_t k = 0;
    for (size_t i = 0; i < g.n && k < 64; i++)
        m[k++] = g.r[i].fact.meter;
    cr_assert_str_eq(wc_kepler_power_source(m, k), "measured");
    expo_got_free(&g);
}

Test(kepler_cases, main_fake_meter_is_not_measured)
{
    expo_got g;
    parse_own("kepler-main.om", WC_EXPO_OPENMETRICS, &g);
    wc_kep_meter m[64];
    size_t k = 0, fake = 0;
    for (size_t i = 0; i < g.n && k < 64; i++) {
        m[k++] = g.r[i].fact.meter;
        fake += g.r[i].fact.meter == WC_KEP_METER_FAKE;
    }
    cr_assert_eq(fake, 8, "every node CPU series of the fake meter");
    cr_assert_str_eq(wc_kepler_power_source(m, k), "not measured");
    const wc_kep_fact *f = &expo_first(&g, "kepler_container_cpu_seconds_total")->fact;
    cr_assert_eq(f->quantity, WC_KEP_CPU_SECONDS);
    cr_assert_str_eq(f->parent, "aaaa1111-2222-4333-8444-555566667777");
    cr_assert_str_empty(f->zone);
    f = &expo_first(&g, "kepler_node_gpu_info")->fact;
    cr_assert_eq(f->level, WC_KEP_NONE);
    cr_assert_eq(f->quantity, WC_KEP_INFO);
    cr_assert_str_eq(f->name, "NVIDIA L4");
    f = &expo_first(&g, "kepler_build_info")->fact;
    cr_assert_str_eq(f->version, "v0.11.4-52-g13944a69");
    f = fact_of(&g, "kepler_container_cpu_joules_total",
                "{container_id=\"def4560000000000000000000000000000000000000000000000000000000000\","
                "container_name=\"migrate\",node_name=\"devbox\",pod_id=\"bbbb1111-2222-4333-8444-"
                "555566667777\",runtime=\"containerd\",state=\"terminated\",zone=\"package\"}");
    cr_assert_str_eq(f->state, "terminated");
    expo_got_free(&g);
}

Test(kepler_cases, legacy_facts)
{
    expo_got g;
    parse_own("kepler-v0.7.prom", WC_EXPO_TEXT_004, &g);
    const wc_kep_fact *f = fact_of(&g, "kepler_node_package_joules_total",
                                   "{instance=\"legacy-node-3\",mode=\"idle\",package=\"1\","
                                   "source=\"rapl-sysfs\"}");
    cr_assert_eq(f->layout, WC_KEP_LEGACY);
    cr_assert_eq(f->quantity, WC_KEP_IDLE_JOULES);
    cr_assert_str_eq(f->key, "1", "the socket");
    cr_assert_str_eq(f->node, "legacy-node-3");
    cr_assert_str_eq(f->source, "rapl-sysfs");
    cr_assert_eq(f->meter, WC_KEP_METER_MEASURED);
    f = &expo_first(&g, "kepler_node_platform_joules_total")->fact;
    cr_assert_eq(f->quantity, WC_KEP_DYNAMIC_JOULES);
    cr_assert_eq(f->meter, WC_KEP_METER_NA, "platform is not a CPU zone");
    cr_assert_str_eq(f->source, "trained_power_model");
    f = &expo_first(&g, "kepler_node_gpu_joules_total")->fact;
    cr_assert_eq(f->layout, WC_KEP_LEGACY, "the mode label tells the legacy GPU series");
    cr_assert_eq(f->device, WC_KEP_GPU);
    f = &expo_first(&g, "kepler_container_package_joules_total")->fact;
    cr_assert_str_eq(f->key, "7a1c9e3b2d4f");
    cr_assert_str_eq(f->parent, "db-0", "legacy: the pod's name");
    cr_assert_str_eq(f->name, "db");
    cr_assert_str_eq(f->ns, "billing");
    cr_assert_str_empty(f->state);
    f = &expo_first(&g, "kepler_process_package_joules_total")->fact;
    cr_assert_str_eq(f->key, "2731");
    cr_assert_str_eq(f->name, "postgres");
    cr_assert_str_eq(f->parent, "7a1c9e3b2d4f");
    f = &expo_first(&g, "kepler_container_joules_total")->fact;
    cr_assert_eq(f->device, WC_KEP_DEV_OTHER);
    cr_assert_str_empty(f->zone, "the sum of every zone");
    f = &expo_first(&g, "kepler_exporter_build_info")->fact;
    cr_assert_eq(f->level, WC_KEP_BUILD_INFO);
    cr_assert_str_eq(f->version, "release-0.7.12");
    cr_assert_str_eq(f->revision, "b3f0b2d");
    wc_kep_meter m[64];
    size_t k = 0;
    for (size_t i = 0; i < g.n && k < 64; i++)
        m[k++] = g.r[i].fact.meter;
    cr_assert_str_eq(wc_kepler_power_source(m, k), "measured");
    expo_got_free(&g);
}

Test(kepler_cases, meter_of_every_kind_of_path)
{
    static const struct {
        const char *path;
        wc_kep_meter want;
    } c[] = {
        {"/sys/class/powercap/intel-rapl:0", WC_KEP_METER_MEASURED},
        {"/sys/class/powercap/intel-rapl:0:1", WC_KEP_METER_MEASURED},
        {"/host/sys/class/powercap/intel-rapl-mmio:0", WC_KEP_METER_MEASURED},
        {"/sys/devices/virtual/powercap/intel-rapl/intel-rapl:1", WC_KEP_METER_MEASURED},
        {"/sys/class/hwmon/hwmon3/power1_input", WC_KEP_METER_MEASURED},
        {"/host/sys/class/hwmon/hwmon0/energy2_input", WC_KEP_METER_MEASURED},
        {"/sys/class/hwmon/hwmon12/in1_average", WC_KEP_METER_MEASURED},
        {"aggregated-package", WC_KEP_METER_AGGREGATED},
        {"aggregated-dram", WC_KEP_METER_AGGREGATED},
        {"/sys/class/powercap/intel-rapl/energy_package", WC_KEP_METER_FAKE},
        {"/tmp/fake/energy_dram", WC_KEP_METER_FAKE},
        {"/sys/class/powercap/intel-rapl:0/energy_uj", WC_KEP_METER_UNKNOWN},
        {"aggregated-", WC_KEP_METER_UNKNOWN},
        {"", WC_KEP_METER_UNKNOWN},
        {NULL, WC_KEP_METER_UNKNOWN},
        {"estimator", WC_KEP_METER_UNKNOWN},
        {"/sys/class/powercap/intel-rapl", WC_KEP_METER_UNKNOWN},
        {"/sys/class/powercap/intel-rapl:x", WC_KEP_METER_UNKNOWN},
        {"/sys/class/hwmon/hwmon3/power1_cap", WC_KEP_METER_UNKNOWN},
        {"/sys/class/hwmon/power1_input", WC_KEP_METER_UNKNOWN},
        {"/other/intel-rapl:0", WC_KEP_METER_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        cr_assert_eq(wc_kepler_meter_of_path(c[i].path), c[i].want, "%s: %s",
                     c[i].path ? c[i].path : "(null)",
                     wc_kep_meter_name(wc_kepler_meter_of_path(c[i].path)));
}

Test(kepler_cases, power_source_of_the_node)
{
    const wc_kep_meter measured[] = {WC_KEP_METER_MEASURED, WC_KEP_METER_NA,
                                     WC_KEP_METER_AGGREGATED};
    const wc_kep_meter fake[] = {WC_KEP_METER_MEASURED, WC_KEP_METER_FAKE};
    const wc_kep_meter estimated[] = {WC_KEP_METER_ESTIMATED, WC_KEP_METER_MEASURED};
    const wc_kep_meter unknown[] = {WC_KEP_METER_MEASURED, WC_KEP_METER_UNKNOWN};
    const wc_kep_meter none[] = {WC_KEP_METER_NA};
    cr_assert_str_eq(wc_kepler_power_source(measured, 3), "measured");
    cr_assert_str_eq(wc_kepler_power_source(fake, 2), "not measured");
    cr_assert_str_eq(wc_kepler_power_source(estimated, 2), "not measured");
    cr_assert_str_eq(wc_kepler_power_source(unknown, 2), "unknown");
    cr_assert_str_eq(wc_kepler_power_source(none, 1), "unknown");
    cr_assert_str_eq(wc_kepler_power_source(NULL, 0), "unknown");
}

/* A legacy node series with this source label: its meter. */
static wc_kep_meter legacy_meter(const char *source)
{
    wc_expo_label l[] = {{"instance", "n"}, {"mode", "dynamic"}, {"package", "0"},
                         {"source", source}};
    wc_expo_sample s = {.name = "kepler_node_package_joules_total", .labels = l, .nlabels = 4};
    wc_kep_fact f;
    cr_assert_eq(wc_kepler_classify(&s, &f), 1);
    return f.meter;
}

Test(kepler_cases, legacy_source_labels)
{
    static const char *const measured[] = {"rapl",       "rapl-sysfs", "rapl-msr", "intel_rapl",
                                           "ampere-xgene-hwmon", "acpi", "grace-acpi",
                                           "redfish",    "hmc"};
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
        cr_assert_eq(legacy_meter(measured[i]), WC_KEP_METER_MEASURED, "%s", measured[i]);
    cr_assert_eq(legacy_meter("trained_power_model"), WC_KEP_METER_ESTIMATED);
    cr_assert_eq(legacy_meter("estimator"), WC_KEP_METER_ESTIMATED);
    cr_assert_eq(legacy_meter("dummy"), WC_KEP_METER_FAKE);
    cr_assert_eq(legacy_meter("none"), WC_KEP_METER_FAKE);
    cr_assert_eq(legacy_meter("something-new"), WC_KEP_METER_UNKNOWN);
    cr_assert_eq(legacy_meter(""), WC_KEP_METER_UNKNOWN);
}

Test(kepler_cases, not_kepler_and_unknown_kepler_names)
{
    wc_expo_label l[] = {{"path", "/sys/class/powercap/intel-rapl:0"}, {"index", "0"}};
    wc_expo_sample s = {.name = "node_rapl_package_joules_total", .labels = l, .nlabels = 2};
    wc_kep_fact f;
    memset(&f, 0x5a, sizeof f);
    cr_assert_eq(wc_kepler_classify(&s, &f), 0);
    cr_assert_eq(((unsigned char *)&f)[0], 0x5a, "out untouched");
    s.name = "kepler_node_energy_zone";
    cr_assert_eq(wc_kepler_classify(&s, &f), 1);
    cr_assert_eq(f.level, WC_KEP_NONE);
    cr_assert_eq(f.layout, WC_KEP_V010);
    cr_assert_str_eq(f.path, "/sys/class/powercap/intel-rapl:0");
    cr_assert_eq(f.meter, WC_KEP_METER_NA);
    wc_expo_label lg[] = {{"command", "bash"}, {"pid", "1"}};
    wc_expo_sample s2 = {.name = "kepler_process_cpu_cpu_time_us", .labels = lg, .nlabels = 2};
    cr_assert_eq(wc_kepler_classify(&s2, &f), 1);
    cr_assert_eq(f.layout, WC_KEP_LEGACY, "a label only the legacy layout uses");
    s2.name = "kepler_node_cpu_joules_created"; /* OpenMetrics' _created of a counter */
    cr_assert_eq(wc_kepler_classify(&s2, &f), 1);
    cr_assert_eq(f.level, WC_KEP_NONE);
    s2.name = "kepler";
    cr_assert_eq(wc_kepler_classify(&s2, &f), 0);
}

Test(kepler_cases, stable_names)
{
    cr_assert_str_eq(wc_kep_level_name(WC_KEP_NODE_RATIO), "usage-ratio");
    cr_assert_str_eq(wc_kep_level_name(WC_KEP_CPU_INFO), "cpu-info");
    cr_assert_str_eq(wc_kep_level_name((wc_kep_level)99), "none");
    cr_assert_str_eq(wc_kep_quantity_name(WC_KEP_INFO), "info");
    cr_assert_str_eq(wc_kep_quantity_name(WC_KEP_IDLE_WATTS), "idle_watts");
    cr_assert_str_eq(wc_kep_device_name(WC_KEP_DEV_OTHER), "other");
    cr_assert_str_eq(wc_kep_meter_name(WC_KEP_METER_NA), "");
    cr_assert_str_eq(wc_kep_meter_name(WC_KEP_METER_ESTIMATED), "estimated");
    cr_assert_str_eq(wc_kep_layout_name(WC_KEP_V010), "v0.10+");
}
