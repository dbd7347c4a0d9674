/*
 * test_hwmon.c — hwmon sensor discovery (collector/meter/hwmon.c) over Kepler's
 * own hwmon testdata (21 chips: power, energy, voltage x current, enable
 * files, labels, chip naming), node_exporter's hwmon tree (no power sensor
 * at all), and small trees built from the corpus issue listings (ACPI power
 * meter error marker, amdgpu PPT power1_average). Values asserted are the
 * fixture files' own numbers and Kepler's rules (kepler-model.md §2.4).
 *
 * The shared fixtures were copied without symlinks: a link is stored as a
 * small file holding its target. Where a test needs the links (chip names
 * from `device`, node_exporter's class/hwmon entries) it copies the tree to
 * a temporary directory and turns those files back into symlinks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/meter/hwmon.h"
#include "common/wc_tmptree.h"
#include "tests/unit/support/test_support.h"

#define KEPLER_SYS "kepler/internal/device/testdata/sys"
#define NODE_EXPORTER_SYS "corpus/sysfs/node-exporter-fixture/sys"

/* ---- helpers ----------------------------------------------------------- */

static char *dup_path(const char *p)
{
    char *s = strdup(p);
    cr_assert_not_null(s);
    return s;
}

/* Scans root (asserting success) into *s. */
static void scan(const char *root, wc_hwmon_scan *s)
{
    wc_error err;
    err.msg[0] = '\0';
    cr_assert_eq(wc_hwmon_scan_sysfs(root, s, &err), 0, "scan %s: %s", root, err.msg);
}

/* The chip whose class/hwmon entry is `entry`; fails the test when absent. */
static const wc_hwmon_chip *chip_at(const wc_hwmon_scan *s, const char *entry)
{
    for (size_t i = 0; i < s->nchips; i++)
        if (strcmp(s->chips[i].entry, entry) == 0)
            return &s->chips[i];
    cr_assert_fail("no chip %s", entry);
    return NULL;
}

/* The sensor `name` of chip `entry`, or NULL. */
static const wc_hwmon_sensor *find_sensor(const wc_hwmon_scan *s, const char *entry,
                                          const char *name)
{
    for (size_t i = 0; i < s->nsensors; i++)
        if (strcmp(s->chips[s->sensors[i].chip].entry, entry) == 0 &&
            strcmp(s->sensors[i].name, name) == 0)
            return &s->sensors[i];
    return NULL;
}

static const wc_hwmon_sensor *sensor_at(const wc_hwmon_scan *s, const char *entry,
                                        const char *name)
{
    const wc_hwmon_sensor *x = find_sensor(s, entry, name);
    cr_assert_not_null(x, "no sensor %s in %s", name, entry);
    return x;
}

/* Asserts a power (or V x I) sensor's file(s), reading and label. */
static void expect_power(const wc_hwmon_sensor *x, wc_hwmon_kind kind, const char *file,
                         const char *current_file, uint64_t power_uw, const char *label)
{
    cr_assert_eq(x->kind, kind, "%s: kind %s", x->name, wc_hwmon_kind_name(x->kind));
    cr_assert_str_eq(wc_hwmon_unit(x->kind), "uW");
    cr_assert_str_eq(x->file, file, "%s: file", x->name);
    cr_assert_str_eq(x->current_file, current_file, "%s: current file", x->name);
    cr_assert_eq(x->status, 0, "%s: %s", x->name, x->error);
    cr_assert_eq(x->power_uw, power_uw, "%s: %llu uW", x->name, (unsigned long long)x->power_uw);
    cr_assert_str_eq(x->label, label, "%s: label", x->name);
}

/* Reads a small fixture file; "" when unreadable. */
static void read_small(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* A file the fixture copy made out of a symlink: its whole content is a
 * relative target ("../../devices/..."), without a newline. */
static int is_link_stub(const char *path, char *target, size_t cap)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size >= (off_t)cap)
        return 0;
    read_small(path, target, cap);
    return strncmp(target, "../", 3) == 0 && !strchr(target, '\n');
}

/* Copies the tree src into dst (created), turning link stubs into symlinks. */
static void copy_tree_with_links(const char *src, const char *dst)
{
    cr_assert(mkdir(dst, 0755) == 0 || errno == EEXIST, "mkdir %s", dst);
    DIR *d = opendir(src);
    cr_assert_not_null(d, "opendir %s", src);
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char s[4096], t[4096], target[512];
        snprintf(s, sizeof s, "%s/%s", src, de->d_name);
        snprintf(t, sizeof t, "%s/%s", dst, de->d_name);
        struct stat st;
        cr_assert_eq(lstat(s, &st), 0, "lstat %s", s);
        if (S_ISDIR(st.st_mode)) {
            copy_tree_with_links(s, t);
        } else if (is_link_stub(s, target, sizeof target)) {
            cr_assert_eq(symlink(target, t), 0, "symlink %s", t);
        } else {
            char buf[8192];
            read_small(s, buf, sizeof buf);
            FILE *f = fopen(t, "wb");
            cr_assert_not_null(f, "create %s", t);
            fputs(buf, f);
            fclose(f);
        }
    }
    closedir(d);
}

/* Writes <root>/class/hwmon/<entry>/<file> = text. */
static void put(const char *root, const char *entry, const char *file, const char *text)
{
    char rel[512];
    snprintf(rel, sizeof rel, "class/hwmon/%s/%s", entry, file);
    wc_test_write(root, rel, text);
}

/* ---- Kepler's testdata: the whole tree --------------------------------- */

Test(hwmon_kepler, finds_every_chip_and_sensor_of_the_fixture)
{
    char *root = dup_path(wc_shared_fixture(KEPLER_SYS));
    wc_hwmon_scan s;
    scan(root, &s);
    cr_assert_eq(s.present, 1);
    cr_assert_eq(s.nchips, 21, "chips: %zu", s.nchips);
    cr_assert_eq(s.nsensors, 31, "sensors: %zu", s.nsensors);
    cr_assert_eq(s.disabled, 3, "disabled channels: %zu", s.disabled);
    /* entries in strcmp order */
    cr_assert_str_eq(s.chips[0].entry, "hwmon0");
    cr_assert_str_eq(s.chips[20].entry, "hwmon_voltage_current_partial_average");
    wc_hwmon_scan_free(&s);
    free(root);
}

Test(hwmon_kepler, power_tier_labels_names_and_average_preference)
{
    char *root = dup_path(wc_shared_fixture(KEPLER_SYS));
    wc_hwmon_scan s;
    scan(root, &s);
    /* k10temp: power1 "Package" 45 W, power2 "Core" 15 W */
    const wc_hwmon_chip *k10 = chip_at(&s, "hwmon0");
    cr_assert_str_eq(k10->chip, "k10temp");
    cr_assert_eq(k10->tier, WC_HWMON_POWER);
    cr_assert_eq(k10->nsensors, 2);
    expect_power(sensor_at(&s, "hwmon0", "package"), WC_HWMON_POWER, "power1_input", "",
                 45000000, "Package");
    expect_power(sensor_at(&s, "hwmon0", "core"), WC_HWMON_POWER, "power2_input", "", 15000000,
                 "Core");
    /* amdgpu: power1_average (118 W) wins over power1_input (120 W) */
    expect_power(sensor_at(&s, "hwmon1", "gpu"), WC_HWMON_POWER, "power1_average", "",
                 118000000, "GPU");
    /* no label: "<chip>_power<N>" */
    expect_power(sensor_at(&s, "hwmon2", "platform_sensor_power1"), WC_HWMON_POWER,
                 "power1_input", "", 30000000, "");
    /* two channels labelled "package" on one chip stay two sensors (Kepler aggregates later) */
    expect_power(sensor_at(&s, "hwmon_aggregate", "package"), WC_HWMON_POWER, "power1_input",
                 "", 50000000, "package");
    const wc_hwmon_sensor *second = &s.sensors[sensor_at(&s, "hwmon_aggregate", "package") -
                                               s.sensors + 1];
    cr_assert_str_eq(second->name, "package");
    cr_assert_eq(second->index, 2);
    cr_assert_eq(second->power_uw, 30000000);
    wc_hwmon_scan_free(&s);
    free(root);
}

Test(hwmon_kepler, energy_tier_counters_in_microjoules)
{
    char *root = dup_path(wc_shared_fixture(KEPLER_SYS));
    wc_hwmon_scan s;
    scan(root, &s);
    const wc_hwmon_sensor *total = sensor_at(&s, "hwmon_energy", "total");
    cr_assert_eq(total->kind, WC_HWMON_ENERGY);
    cr_assert_str_eq(wc_hwmon_unit(total->kind), "uJ");
    cr_assert_str_eq(total->file, "energy1_input");
    cr_assert_eq(total->energy_uj, 500000000);
    cr_assert_str_eq(total->label, "Total");
    cr_assert_eq(chip_at(&s, "hwmon_energy")->tier, WC_HWMON_ENERGY);
    cr_assert_eq(sensor_at(&s, "hwmon_energy_multi", "sensor_a")->energy_uj, 500000000);
    cr_assert_eq(sensor_at(&s, "hwmon_energy_multi", "sensor_b")->energy_uj, 200000000);
    cr_assert_eq(sensor_at(&s, "hwmon_energy_multi", "sensor_c")->energy_uj, 100000000);
    /* unlabelled energy channel: "<chip>_energy<N>" from the `name` file */
    const wc_hwmon_sensor *nl = sensor_at(&s, "hwmon_energy_no_label", "power_chip_energy1");
    cr_assert_eq(nl->energy_uj, 300000000);
    cr_assert_str_eq(nl->label, "");
    wc_hwmon_scan_free(&s);
    free(root);
}

Test(hwmon_kepler, enable_zero_channels_are_skipped)
{
    char *root = dup_path(wc_shared_fixture(KEPLER_SYS));
    wc_hwmon_scan s;
    scan(root, &s);
    /* power3_enable = 0: PSU_Rail_C (5 W) is not a sensor */
    const wc_hwmon_chip *dp = chip_at(&s, "hwmon_disabled_power");
    cr_assert_eq(dp->nsensors, 2);
    cr_assert_eq(dp->disabled, 1);
    expect_power(sensor_at(&s, "hwmon_disabled_power", "psu_rail_a"), WC_HWMON_POWER,
                 "power1_input", "", 45000000, "PSU_Rail_A");
    expect_power(sensor_at(&s, "hwmon_disabled_power", "psu_rail_b"), WC_HWMON_POWER,
                 "power2_input", "", 15000000, "PSU_Rail_B");
    cr_assert_null(find_sensor(&s, "hwmon_disabled_power", "psu_rail_c"));
    /* energy3_enable = 0 */
    cr_assert_eq(chip_at(&s, "hwmon_energy_disabled")->disabled, 1);
    cr_assert_eq(sensor_at(&s, "hwmon_energy_disabled", "rail_b")->energy_uj, 200000000);
    cr_assert_null(find_sensor(&s, "hwmon_energy_disabled", "rail_c"));
    /* in3_enable = 0: channel_3 has a current but no usable voltage */
    const wc_hwmon_chip *dc = chip_at(&s, "hwmon_disabled_channel");
    cr_assert_eq(dc->disabled, 1);
    cr_assert_eq(dc->nsensors, 2);
    cr_assert_null(find_sensor(&s, "hwmon_disabled_channel", "channel_3"));
    expect_power(sensor_at(&s, "hwmon_disabled_channel", "channel_1"),
                 WC_HWMON_VOLTAGE_CURRENT, "in1_input", "curr1_input", 12000ULL * 1000,
                 "channel_1");
    expect_power(sensor_at(&s, "hwmon_disabled_channel", "channel_2"),
                 WC_HWMON_VOLTAGE_CURRENT, "in2_input", "curr2_input", 5000ULL * 2000,
                 "channel_2");
    wc_hwmon_scan_free(&s);
    free(root);
}

Test(hwmon_kepler, voltage_current_paired_by_label)
{
    char *root = dup_path(wc_shared_fixture(KEPLER_SYS));
    wc_hwmon_scan s;
    scan(root, &s);
    const wc_hwmon_sensor *cpu = sensor_at(&s, "hwmon_voltage_current", "vdd_cpu");
    expect_power(cpu, WC_HWMON_VOLTAGE_CURRENT, "in1_input", "curr1_input", 12000ULL * 5000,
                 "VDD_CPU");
    cr_assert_eq(cpu->pairing, WC_HWMON_PAIR_LABEL);
    cr_assert_eq(cpu->voltage_mv, 12000);
    cr_assert_eq(cpu->current_ma, 5000);
    cr_assert_eq(chip_at(&s, "hwmon_voltage_current")->tier, WC_HWMON_VOLTAGE_CURRENT);
    /* multi: VDD_CPU 60 W, VDD_GPU 3.3 V x 10 A = 33 W, VDD_SOC has no current */
    expect_power(sensor_at(&s, "hwmon_voltage_current_multi", "vdd_gpu"),
                 WC_HWMON_VOLTAGE_CURRENT, "in2_input", "curr2_input", 3300ULL * 10000,
                 "VDD_GPU");
    cr_assert_null(find_sensor(&s, "hwmon_voltage_current_multi", "vdd_soc"));
    cr_assert_eq(chip_at(&s, "hwmon_voltage_current_multi")->nsensors, 2);
    /* *_average only when both sides have it: 11.8 V x 4.9 A = 57.82 W */
    expect_power(sensor_at(&s, "hwmon_voltage_current_average", "vdd_cpu"),
                 WC_HWMON_VOLTAGE_CURRENT, "in1_average", "curr1_average", 11800ULL * 4900,
                 "VDD_CPU");
    /* only in1_average: both inputs, 60 W (not the mixed 59 W) */
    expect_power(sensor_at(&s, "hwmon_voltage_current_partial_average", "vdd_cpu"),
                 WC_HWMON_VOLTAGE_CURRENT, "in1_input", "curr1_input", 12000ULL * 5000,
                 "VDD_CPU");
    wc_hwmon_scan_free(&s);
    free(root);
}

Test(hwmon_kepler, voltage_current_by_chip_rule_and_same_index)
{
    char *root = dup_path(wc_shared_fixture(KEPLER_SYS));
    wc_hwmon_scan s;
    scan(root, &s);
    /* ina226: in0 is the shunt, in1 (12 V) x curr1 (5 A) */
    const wc_hwmon_sensor *ina = sensor_at(&s, "hwmon_ina226", "ina226_power1");
    expect_power(ina, WC_HWMON_VOLTAGE_CURRENT, "in1_input", "curr1_input", 12000ULL * 5000, "");
    cr_assert_eq(ina->pairing, WC_HWMON_PAIR_CHIP_RULE);
    cr_assert_eq(chip_at(&s, "hwmon_ina226")->nsensors, 1);
    /* max20730: curr1 is the output current, paired with VOUT in2 (12 V x 10 A) */
    const wc_hwmon_sensor *max = sensor_at(&s, "hwmon_max20730", "max20730_power2");
    expect_power(max, WC_HWMON_VOLTAGE_CURRENT, "in2_input", "curr1_input", 12000ULL * 10000,
                 "");
    cr_assert_eq(max->voltage_index, 2);
    cr_assert_eq(max->current_index, 1);
    /* ina3221: bus voltages in1..in3 with curr1..curr3; shunts in4..in7 skipped */
    cr_assert_eq(chip_at(&s, "hwmon_ina3221")->nsensors, 3);
    expect_power(sensor_at(&s, "hwmon_ina3221", "ina3221_power1"), WC_HWMON_VOLTAGE_CURRENT,
                 "in1_input", "curr1_input", 12000ULL * 1000, "");
    expect_power(sensor_at(&s, "hwmon_ina3221", "ina3221_power2"), WC_HWMON_VOLTAGE_CURRENT,
                 "in2_input", "curr2_input", 5000ULL * 500, "");
    expect_power(sensor_at(&s, "hwmon_ina3221", "ina3221_power3"), WC_HWMON_VOLTAGE_CURRENT,
                 "in3_input", "curr3_input", 3300ULL * 200, "");
    cr_assert_null(find_sensor(&s, "hwmon_ina3221", "ina3221_power4"));
    /* unknown chip: same index */
    const wc_hwmon_sensor *u1 = sensor_at(&s, "hwmon_same_index", "unknown_chip_power1");
    cr_assert_eq(u1->pairing, WC_HWMON_PAIR_SAME_INDEX);
    cr_assert_eq(u1->power_uw, 12000ULL * 5000);
    cr_assert_eq(sensor_at(&s, "hwmon_same_index", "unknown_chip_power2")->power_uw,
                 5000ULL * 2000);
    /* ina226 without in1: rule finds nothing, in0 has no curr0: no sensor, a note */
    const wc_hwmon_chip *nl = chip_at(&s, "hwmon_voltage_current_no_labels");
    cr_assert_eq(nl->nsensors, 0);
    cr_assert_eq(nl->tier, -1);
    cr_assert(strstr(nl->note, "without a pairing"), "%s", nl->note);
    wc_hwmon_scan_free(&s);
    free(root);
}

Test(hwmon_kepler, chip_names_from_device_link_name_file_and_directory)
{
    char *fixture = dup_path(wc_shared_fixture(KEPLER_SYS));
    wc_hwmon_scan s;
    scan(fixture, &s);
    cr_assert_str_eq(chip_at(&s, "hwmon0")->chip, "k10temp");
    cr_assert_str_eq(chip_at(&s, "hwmon0")->driver, "k10temp");
    /* no `name`, no `device`: the directory name */
    const wc_hwmon_chip *fb = chip_at(&s, "hwmon_dir_fallback");
    cr_assert_str_eq(fb->chip, "hwmon_dir_fallback");
    cr_assert_str_eq(fb->driver, "");
    expect_power(sensor_at(&s, "hwmon_dir_fallback", "dir_fallback_test"), WC_HWMON_POWER,
                 "power1_input", "", 35000000, "dir_fallback_test");
    /* in this copy `device` is a plain file: resolving it gives the file itself,
     * exactly what Kepler's filepath.EvalSymlinks would give here */
    cr_assert_str_eq(chip_at(&s, "hwmon_device_path")->chip, "hwmon_device_path_device");
    wc_hwmon_scan_free(&s);

    /* with the symlink restored: <parent dir>_<device> of the link target */
    char *tmp = dup_path(wc_test_tmpdir());
    char sys[4096];
    snprintf(sys, sizeof sys, "%s/sys", tmp);
    copy_tree_with_links(fixture, sys);
    scan(sys, &s);
    cr_assert_str_eq(chip_at(&s, "hwmon_device_path")->chip, "drm_card0");
    expect_power(sensor_at(&s, "hwmon_device_path", "device_path_test"), WC_HWMON_POWER,
                 "power1_input", "", 25000000, "device_path_test");
    cr_assert_eq(s.nsensors, 31);
    wc_hwmon_scan_free(&s);
    wc_remove_tree(tmp);
    free(tmp);
    free(fixture);
}

/* ---- node_exporter's tree: chips but no power sensor ------------------- */

Test(hwmon_node_exporter, symlinked_chips_without_power_sensors)
{
    char *fixture = dup_path(wc_shared_fixture(NODE_EXPORTER_SYS));
    char *tmp = dup_path(wc_test_tmpdir());
    char sys[4096];
    snprintf(sys, sizeof sys, "%s/sys", tmp);
    copy_tree_with_links(fixture, sys);
    wc_hwmon_scan s;
    scan(sys, &s);
    cr_assert_eq(s.nchips, 11, "chips: %zu", s.nchips);
    cr_assert_eq(s.nsensors, 0, "temperatures, fans and voltages are not power");
    cr_assert_str_eq(chip_at(&s, "hwmon0")->chip, "platform_coretemp_0");
    cr_assert_str_eq(chip_at(&s, "hwmon1")->chip, "platform_coretemp_1");
    cr_assert_str_eq(chip_at(&s, "hwmon2")->chip, "platform_applesmc_768");
    cr_assert_str_eq(chip_at(&s, "hwmon8")->chip, "ieee80211_phy0");
    cr_assert_str_eq(chip_at(&s, "hwmon3")->chip, "nct6779"); /* `name`, no device link */
    cr_assert_str_eq(chip_at(&s, "hwmon4")->chip, "hwmon4");  /* plain dir, no name */
    cr_assert_str_eq(chip_at(&s, "hwmon5")->chip, "bogus");   /* link with trailing slash */
    /* nct6779 has in0/in1 voltages but no current: no V x I, no note */
    cr_assert_eq(chip_at(&s, "hwmon3")->tier, -1);
    cr_assert_str_eq(chip_at(&s, "hwmon3")->note, "");
    wc_hwmon_scan_free(&s);
    wc_remove_tree(tmp);
    free(tmp);

    /* as copied (class/hwmon entries are plain files): only the real dir
     * hwmon4 is a chip, as Kepler would see it */
    scan(fixture, &s);
    cr_assert_eq(s.nchips, 1);
    cr_assert_str_eq(s.chips[0].entry, "hwmon4");
    cr_assert_eq(s.nsensors, 0);
    wc_hwmon_scan_free(&s);
    free(fixture);
}

/* ---- trees from the corpus issue listings ------------------------------ */

/* The last line of a listing that is all digits (the sysfs value). */
static void last_number_line(const char *path, char *out, size_t cap)
{
    char *text = wc_test_slurp(path, NULL);
    out[0] = '\0';
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        if (strspn(line, "0123456789") == strlen(line) && *line)
            snprintf(out, cap, "%s", line);
    free(text);
    cr_assert(out[0], "no value line in %s", path);
}

Test(hwmon_corpus, acpi_power_meter_error_marker_is_not_a_reading)
{
    char value[64];
    last_number_line(
        wc_shared_fixture("corpus/sysfs/issue-listings/acpi-power-meter-0xffffffff.txt"), value,
        sizeof value);
    cr_assert_str_eq(value, "4294967295000");
    char *tmp = dup_path(wc_test_tmpdir());
    char line[80];
    snprintf(line, sizeof line, "%s\n", value);
    put(tmp, "hwmon1", "name", "power_meter\n");
    put(tmp, "hwmon1", "power1_average", line);
    put(tmp, "hwmon1", "power1_average_interval", "1000\n");
    wc_hwmon_scan s;
    scan(tmp, &s);
    cr_assert_eq(s.nsensors, 1);
    const wc_hwmon_sensor *x = sensor_at(&s, "hwmon1", "power_meter_power1");
    cr_assert_str_eq(x->file, "power1_average");
    cr_assert_eq(x->status, -ERANGE);
    cr_assert(strstr(x->error, "hwmon1/power1_average"), "%s", x->error);
    cr_assert(strstr(x->error, "error marker"), "%s", x->error);
    wc_hwmon_scan_free(&s);
    wc_remove_tree(tmp);
    free(tmp);
}

Test(hwmon_corpus, amdgpu_ppt_average_and_cap_is_not_a_reading)
{
    char *text = wc_test_slurp(
        wc_shared_fixture("corpus/sysfs/issue-listings/amdgpu-ppt-power1-average-strace.txt"),
        NULL);
    const char *r = strstr(text, "read(3, \"");
    cr_assert_not_null(r);
    unsigned long long avg = strtoull(r + 9, NULL, 10);
    cr_assert_eq(avg, 28000000ULL);
    char *tmp = dup_path(wc_test_tmpdir());
    char line[64];
    snprintf(line, sizeof line, "%llu\n", avg);
    put(tmp, "hwmon2", "name", "amdgpu\n");
    put(tmp, "hwmon2", "power1_average", line);
    put(tmp, "hwmon2", "power1_cap", "291000000\n");
    put(tmp, "hwmon2", "power1_label", "PPT\n");
    wc_hwmon_scan s;
    scan(tmp, &s);
    cr_assert_eq(s.nsensors, 1);
    expect_power(sensor_at(&s, "hwmon2", "ppt"), WC_HWMON_POWER, "power1_average", "", avg,
                 "PPT");
    wc_hwmon_scan_free(&s);
    wc_remove_tree(tmp);
    free(tmp);
    free(text);
}

/* ---- edge cases on temporary trees ------------------------------------- */

Test(hwmon_tree, absent_and_empty_class_dirs)
{
    char *tmp = dup_path(wc_test_tmpdir());
    wc_hwmon_scan s;
    scan(tmp, &s);
    cr_assert_eq(s.present, 0);
    cr_assert_eq(s.nchips + s.nsensors, 0);
    wc_hwmon_scan_free(&s);
    wc_test_write(tmp, "class/hwmon/.keep", "");
    scan(tmp, &s);
    cr_assert_eq(s.present, 1);
    cr_assert_eq(s.nchips + s.nsensors, 0);
    wc_hwmon_scan_free(&s);
    wc_remove_tree(tmp);
    free(tmp);
}

Test(hwmon_tree, dangling_chip_link_is_listed_not_fatal)
{
    char *tmp = dup_path(wc_test_tmpdir());
    put(tmp, "hwmon1", "name", "k10temp\n");
    put(tmp, "hwmon1", "power1_input", "45000000\n");
    char link[4200];
    snprintf(link, sizeof link, "%s/class/hwmon/hwmon0", tmp);
    cr_assert_eq(symlink("../../devices/platform/gone/hwmon/hwmon0", link), 0);
    wc_hwmon_scan s;
    scan(tmp, &s);
    cr_assert_eq(s.nchips, 2);
    const wc_hwmon_chip *gone = chip_at(&s, "hwmon0");
    cr_assert_eq(gone->nsensors, 0);
    cr_assert_str_eq(gone->chip, "hwmon0");
    cr_assert(strstr(gone->note, "cannot list"), "%s", gone->note);
    cr_assert_eq(sensor_at(&s, "hwmon1", "k10temp_power1")->power_uw, 45000000);
    wc_hwmon_scan_free(&s);
    wc_remove_tree(tmp);
    free(tmp);
}

Test(hwmon_tree, unreadable_values_are_kept_with_their_error)
{
    char *tmp = dup_path(wc_test_tmpdir());
    put(tmp, "hwmon0", "name", "broken\n");
    put(tmp, "hwmon0", "energy1_input", "abc\n");
    put(tmp, "hwmon1", "name", "big\n");
    put(tmp, "hwmon1", "in1_input", "18446744073709551615\n");
    put(tmp, "hwmon1", "curr1_input", "2\n");
    wc_hwmon_scan s;
    scan(tmp, &s);
    cr_assert_eq(s.nsensors, 2);
    const wc_hwmon_sensor *e = sensor_at(&s, "hwmon0", "broken_energy1");
    cr_assert_eq(e->status, -EINVAL);
    cr_assert(strstr(e->error, "hwmon0/energy1_input"), "%s", e->error);
    const wc_hwmon_sensor *v = sensor_at(&s, "hwmon1", "big_power1");
    cr_assert_eq(v->status, -ERANGE, "V x I overflow: %d", v->status);
    wc_hwmon_scan_free(&s);
    wc_remove_tree(tmp);
    free(tmp);
}

Test(hwmon_tree, hostile_label_kept_verbatim_name_cleaned)
{
    char *tmp = dup_path(wc_test_tmpdir());
    put(tmp, "hwmon0", "name", "evil\n");
    put(tmp, "hwmon0", "power1_input", "5000000\n");
    put(tmp, "hwmon0", "power1_label", "  a\"b\\c\nd\033[31m \n");
    wc_hwmon_scan s;
    scan(tmp, &s);
    cr_assert_eq(s.nsensors, 1);
    cr_assert_str_eq(s.sensors[0].label, "a\"b\\c\nd\033[31m");
    cr_assert_str_eq(s.sensors[0].name, "a_b_c_d__31m");
    wc_hwmon_scan_free(&s);
    wc_remove_tree(tmp);
    free(tmp);
}

Test(hwmon_names, clean_name_matches_kepler)
{
    static const char *const cases[][2] = {
        {"Simple", "simple"},
        {"With Spaces", "with_spaces"},
        {"With-Dashes", "with_dashes"},
        {"UPPER_CASE", "upper_case"},
        {"Mixed-Case_Name", "mixed_case_name"},
        {"Special!@#Chars", "special___chars"},
        {"__leading__trailing__", "leading__trailing"},
        {"card0", "card0"},
        {"0000:00:02.0", "0000:00:02_0"},
        {"k10temp\n", "k10temp"},
        {"caf\xc3\xa9 bar", "caf__bar"}, /* one rune, one '_' */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[64];
        wc_hwmon_clean_name(cases[i][0], out, sizeof out);
        cr_assert_str_eq(out, cases[i][1], "clean(%s)", cases[i][0]);
    }
    cr_assert_str_eq(wc_hwmon_kind_name(WC_HWMON_VOLTAGE_CURRENT), "voltage_current");
    cr_assert_str_eq(wc_hwmon_pairing_name(WC_HWMON_PAIR_CHIP_RULE), "chip_rule");
}
