/*
 * test_hwmon_cases.c — hwmon sensor discovery (collector/meter/hwmon.c) on the
 * project's own trees: tests/fixtures/sysfs/node/class/hwmon (every tier and
 * pairing rule, enable files, labels, chip names, the ACPI error marker, an
 * amdgpu PPT average) and tests/fixtures/sysfs/hwmon-links (symlinked chips
 * without any power sensor). test_hwmon.c proves the same on Kepler's and
 * node_exporter's testdata and the corpus issue listings.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/meter/hwmon.h"
#include "tests/unit/support/test_support.h"

#define NODE "sysfs/node"
#define LINKS "sysfs/hwmon-links"

static void scan(const char *rel, wc_hwmon_scan *s)
{
    wc_error err;
    err.msg[0] = '\0';
    cr_assert_eq(wc_hwmon_scan_sysfs(wc_own_fixture(rel), s, &err), 0, "scan %s: %s", rel,
                 err.msg);
}

static const wc_hwmon_chip *chip_at(const wc_hwmon_scan *s, const char *entry)
{
    for (size_t i = 0; i < s->nchips; i++)
        if (strcmp(s->chips[i].entry, entry) == 0)
            return &s->chips[i];
    cr_assert_fail("no chip %s", entry);
    return NULL;
}

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

Test(hwmon_cases, every_chip_and_sensor_of_the_node_tree)
{
    wc_hwmon_scan s;
    scan(NODE, &s);
    cr_assert_eq(s.present, 1);
    cr_assert_eq(s.nchips, 15, "chips: %zu", s.nchips);
    cr_assert_eq(s.nsensors, 22, "sensors: %zu", s.nsensors);
    cr_assert_eq(s.disabled, 3, "disabled channels: %zu", s.disabled);
    cr_assert_str_eq(s.chips[0].entry, "hwmon0");
    cr_assert_str_eq(s.chips[1].entry, "hwmon1");
    cr_assert_str_eq(s.chips[2].entry, "hwmon10", "strcmp order");
    wc_hwmon_scan_free(&s);
}

Test(hwmon_cases, power_tier_labels_enable_and_average_preference)
{
    wc_hwmon_scan s;
    scan(NODE, &s);
    const wc_hwmon_chip *k10 = chip_at(&s, "hwmon0");
    cr_assert_str_eq(k10->chip, "k10temp");
    cr_assert_eq(k10->tier, WC_HWMON_POWER);
    cr_assert_eq(k10->nsensors, 2);
    cr_assert_eq(k10->disabled, 1, "power3_enable = 0");
    expect_power(sensor_at(&s, "hwmon0", "package"), WC_HWMON_POWER, "power1_input", "",
                 52000000, "Package");
    expect_power(sensor_at(&s, "hwmon0", "core"), WC_HWMON_POWER, "power2_input", "", 11000000,
                 "Core");
    cr_assert_null(find_sensor(&s, "hwmon0", "soc"));
    /* amdgpu PPT: power1_average (87 W) wins over power1_input (91 W); the cap is no reading */
    expect_power(sensor_at(&s, "hwmon1", "ppt"), WC_HWMON_POWER, "power1_average", "", 87000000,
                 "PPT");
    cr_assert_eq(chip_at(&s, "hwmon1")->nsensors, 1);
    /* no label: "<chip>_power<N>"; two channels labelled "rail" stay two sensors */
    expect_power(sensor_at(&s, "hwmon3", "board_pm_power1"), WC_HWMON_POWER, "power1_input", "",
                 27000000, "");
    const wc_hwmon_sensor *rail = sensor_at(&s, "hwmon3", "rail");
    cr_assert_eq(rail->index, 2);
    cr_assert_eq(rail->power_uw, 9000000);
    const wc_hwmon_sensor *second = rail + 1;
    cr_assert_str_eq(second->name, "rail");
    cr_assert_eq(second->index, 3);
    cr_assert_eq(second->power_uw, 6000000);
    wc_hwmon_scan_free(&s);
}

Test(hwmon_cases, acpi_error_marker_is_not_a_reading)
{
    wc_hwmon_scan s;
    scan(NODE, &s);
    const wc_hwmon_sensor *x = sensor_at(&s, "hwmon2", "power_meter_power1");
    cr_assert_str_eq(x->file, "power1_average");
    cr_assert_eq(x->status, -ERANGE);
    cr_assert(strstr(x->error, "hwmon2/power1_average"), "%s", x->error);
    cr_assert(strstr(x->error, "error marker"), "%s", x->error);
    wc_hwmon_scan_free(&s);
}

Test(hwmon_cases, energy_tier_wins_and_counts_microjoules)
{
    wc_hwmon_scan s;
    scan(NODE, &s);
    const wc_hwmon_chip *e = chip_at(&s, "hwmon4");
    cr_assert_eq(e->tier, WC_HWMON_ENERGY, "energy before power");
    cr_assert_eq(e->nsensors, 2);
    cr_assert_eq(e->disabled, 1, "energy3_enable = 0");
    const wc_hwmon_sensor *total = sensor_at(&s, "hwmon4", "total");
    cr_assert_eq(total->kind, WC_HWMON_ENERGY);
    cr_assert_str_eq(wc_hwmon_unit(total->kind), "uJ");
    cr_assert_str_eq(total->file, "energy1_input");
    cr_assert_eq(total->energy_uj, 812000000);
    cr_assert_str_eq(total->label, "Total");
    const wc_hwmon_sensor *nl = sensor_at(&s, "hwmon4", "meter_e_energy2");
    cr_assert_eq(nl->energy_uj, 45000000);
    cr_assert_str_eq(nl->label, "");
    cr_assert_null(find_sensor(&s, "hwmon4", "aux"));
    cr_assert_null(find_sensor(&s, "hwmon4", "meter_e_power1"));
    wc_hwmon_scan_free(&s);
}

Test(hwmon_cases, voltage_current_by_label_and_averages)
{
    wc_hwmon_scan s;
    scan(NODE, &s);
    const wc_hwmon_chip *vb = chip_at(&s, "hwmon5");
    cr_assert_eq(vb->tier, WC_HWMON_VOLTAGE_CURRENT);
    cr_assert_eq(vb->nsensors, 2);
    cr_assert_eq(vb->disabled, 1, "in5_enable = 0");
    const wc_hwmon_sensor *cpu = sensor_at(&s, "hwmon5", "vdd_cpu");
    expect_power(cpu, WC_HWMON_VOLTAGE_CURRENT, "in1_input", "curr1_input", 12000ULL * 4000,
                 "VDD_CPU");
    cr_assert_eq(cpu->pairing, WC_HWMON_PAIR_LABEL);
    cr_assert_eq(cpu->voltage_mv, 12000);
    cr_assert_eq(cpu->current_ma, 4000);
    /* paired by label across indices: in2 with curr3 */
    const wc_hwmon_sensor *mem = sensor_at(&s, "hwmon5", "vdd_mem");
    expect_power(mem, WC_HWMON_VOLTAGE_CURRENT, "in2_input", "curr3_input", 1800ULL * 2500,
                 "VDD_MEM");
    cr_assert_eq(mem->voltage_index, 2);
    cr_assert_eq(mem->current_index, 3);
    cr_assert_null(find_sensor(&s, "hwmon5", "vdd_soc"), "a voltage without a current");
    cr_assert_null(find_sensor(&s, "hwmon5", "vdd_io"), "a disabled voltage");
    /* *_average when both sides have it; inputs when only one does */
    expect_power(sensor_at(&s, "hwmon6", "vin"), WC_HWMON_VOLTAGE_CURRENT, "in1_average",
                 "curr1_average", 11900ULL * 2950, "VIN");
    expect_power(sensor_at(&s, "hwmon7", "vbus"), WC_HWMON_VOLTAGE_CURRENT, "in1_input",
                 "curr1_input", 5000ULL * 2000, "VBUS");
    wc_hwmon_scan_free(&s);
}

Test(hwmon_cases, voltage_current_by_chip_rule_and_same_index)
{
    wc_hwmon_scan s;
    scan(NODE, &s);
    /* ina226: in0 is the shunt, in1 x curr1 */
    const wc_hwmon_sensor *ina = sensor_at(&s, "hwmon8", "ina226_power1");
    expect_power(ina, WC_HWMON_VOLTAGE_CURRENT, "in1_input", "curr1_input", 5000ULL * 1500, "");
    cr_assert_eq(ina->pairing, WC_HWMON_PAIR_CHIP_RULE);
    cr_assert_eq(chip_at(&s, "hwmon8")->nsensors, 1);
    /* max20730: curr1 is the output current, paired with VOUT in2 */
    const wc_hwmon_sensor *mx = sensor_at(&s, "hwmon9", "max20730_power2");
    expect_power(mx, WC_HWMON_VOLTAGE_CURRENT, "in2_input", "curr1_input", 900ULL * 40000, "");
    cr_assert_eq(mx->voltage_index, 2);
    cr_assert_eq(mx->current_index, 1);
    cr_assert_eq(chip_at(&s, "hwmon9")->nsensors, 1);
    /* ina3221: in1..in3 with curr1..curr3; in4 is a shunt even with a curr4 beside it */
    cr_assert_eq(chip_at(&s, "hwmon10")->nsensors, 3);
    expect_power(sensor_at(&s, "hwmon10", "ina3221_power1"), WC_HWMON_VOLTAGE_CURRENT,
                 "in1_input", "curr1_input", 12000ULL * 800, "");
    expect_power(sensor_at(&s, "hwmon10", "ina3221_power2"), WC_HWMON_VOLTAGE_CURRENT,
                 "in2_input", "curr2_input", 5000ULL * 600, "");
    expect_power(sensor_at(&s, "hwmon10", "ina3221_power3"), WC_HWMON_VOLTAGE_CURRENT,
                 "in3_input", "curr3_input", 3300ULL * 300, "");
    cr_assert_null(find_sensor(&s, "hwmon10", "ina3221_power4"));
    /* an unknown chip: the same index */
    const wc_hwmon_sensor *u1 = sensor_at(&s, "hwmon11", "mystery_power1");
    cr_assert_eq(u1->pairing, WC_HWMON_PAIR_SAME_INDEX);
    cr_assert_eq(u1->power_uw, 3300ULL * 1000);
    cr_assert_eq(sensor_at(&s, "hwmon11", "mystery_power2")->power_uw, 1800ULL * 500);
    /* ina226 without in1: no rule pair, no common index, no label: a note */
    const wc_hwmon_chip *np = chip_at(&s, "hwmon12");
    cr_assert_eq(np->nsensors, 0);
    cr_assert_eq(np->tier, -1);
    cr_assert(strstr(np->note, "without a pairing"), "%s", np->note);
    wc_hwmon_scan_free(&s);
}

Test(hwmon_cases, chip_names_from_device_link_name_file_and_directory)
{
    wc_hwmon_scan s;
    scan(NODE, &s);
    cr_assert_str_eq(chip_at(&s, "hwmon0")->chip, "k10temp");
    cr_assert_str_eq(chip_at(&s, "hwmon0")->driver, "k10temp");
    const wc_hwmon_chip *fb = chip_at(&s, "hwmon13");
    cr_assert_str_eq(fb->chip, "hwmon13", "no name, no device: the directory");
    cr_assert_str_eq(fb->driver, "");
    expect_power(sensor_at(&s, "hwmon13", "dir_test"), WC_HWMON_POWER, "power1_input", "",
                 15000000, "dir_test");
    const wc_hwmon_chip *dev = chip_at(&s, "hwmon14");
    cr_assert_str_eq(dev->chip, "drm_card1", "<parent dir>_<device> of the link target");
    cr_assert_str_eq(dev->driver, "i915");
    expect_power(sensor_at(&s, "hwmon14", "gpu_pkg"), WC_HWMON_POWER, "power1_input", "",
                 7000000, "gpu_pkg");
    wc_hwmon_scan_free(&s);
}

Test(hwmon_cases, symlinked_chips_without_power_sensors)
{
    wc_hwmon_scan s;
    scan(LINKS, &s);
    cr_assert_eq(s.nchips, 6, "chips: %zu", s.nchips);
    cr_assert_eq(s.nsensors, 0, "temperatures, fans and voltages are not power");
    cr_assert_str_eq(chip_at(&s, "hwmon0")->chip, "platform_coretemp_0");
    cr_assert_str_eq(chip_at(&s, "hwmon1")->chip, "platform_it87_2608");
    cr_assert_str_eq(chip_at(&s, "hwmon2")->chip, "nct6779"); /* `name`, no device link */
    cr_assert_str_eq(chip_at(&s, "hwmon3")->chip, "hwmon3");  /* plain dir, no name */
    cr_assert_str_eq(chip_at(&s, "hwmon4")->chip, "acpitz");  /* link with a trailing slash */
    cr_assert_str_eq(chip_at(&s, "hwmon5")->chip, "ieee80211_phy0");
    /* voltages without any current: no V x I and no note */
    cr_assert_eq(chip_at(&s, "hwmon2")->tier, -1);
    cr_assert_str_eq(chip_at(&s, "hwmon2")->note, "");
    cr_assert_str_eq(chip_at(&s, "hwmon1")->note, "");
    wc_hwmon_scan_free(&s);
}
