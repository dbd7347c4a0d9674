/*
 * hwmon.h — discovery of hwmon power and energy sensors below a sysfs root,
 * with one reading each, as Kepler's internal/device/hwmon_power_meter.go
 * (HEAD 13944a69; kepler-model.md §2.4) finds them. Used by `wattcal probe`
 * to say what an exporter could read on this node; it is not a meter
 * (wattcal records RAPL only).
 *
 * Chips are the entries of <sysfs_root>/class/hwmon that are directories or
 * symlinks, in strcmp order. A chip's channels are the files of its
 * directory and, as the kernel's hwmon ABI allows (sysfs-interface.rst;
 * libsensors reads both), of its device/ directory for channels the chip
 * directory lacks (the ACPI power_meter layout: hwmonN/device/power1_average). Per chip the first tier that yields a sensor
 * wins (Kepler's order):
 *   1. energyN_input              cumulative counter, µJ
 *   2. powerN_average, else powerN_input   gauge, µW
 *   3. inN_input (mV) × currN_input (mA) = µW, paired by identical cleaned
 *      labels, else by the chip's rule (ina3221, ina226, max20730, ... from
 *      the `name` file), else by the same index; *_average on both sides
 *      only when both have it.
 * A channel whose `<type>N_enable` reads 0 is skipped (counted); an absent
 * or unreadable enable file means enabled. Sensor names are the label
 * lower-cased, every byte outside [a-z0-9:_] turned into '_', '_' trimmed;
 * else "<chip>_powerN" / "<chip>_energyN". The chip name comes from the
 * `device` link ("<parent dir>_<device>", cleaned), else the `name` file,
 * else the directory name. Sensors within a chip are in index order (Kepler
 * iterates a Go map: its order is random).
 */
#ifndef WC_HWMON_H
#define WC_HWMON_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

/* What a sensor reports. */
typedef enum wc_hwmon_kind {
    WC_HWMON_ENERGY = 0,      /* energyN_input: counter in µJ (no max range: a decrease is Δ 0) */
    WC_HWMON_POWER,           /* powerN_average / powerN_input: gauge in µW */
    WC_HWMON_VOLTAGE_CURRENT  /* inN (mV) × currN (mA): gauge in µW */
} wc_hwmon_kind;

/* How a voltage × current sensor was paired (WC_HWMON_PAIR_NONE otherwise). */
typedef enum wc_hwmon_pairing {
    WC_HWMON_PAIR_NONE = 0,
    WC_HWMON_PAIR_LABEL,      /* inN_label and currM_label clean to the same name */
    WC_HWMON_PAIR_CHIP_RULE,  /* Kepler's table keyed by the chip's `name` */
    WC_HWMON_PAIR_SAME_INDEX  /* inN with currN */
} wc_hwmon_pairing;

/* One sensor with its one reading. */
typedef struct wc_hwmon_sensor {
    size_t chip;              /* index into wc_hwmon_scan.chips */
    char name[128];           /* zone name as Kepler derives it, e.g. "package", "ina3221_power1" */
    char label[128];          /* the label file, whitespace-trimmed, verbatim (UNTRUSTED: may hold
                                 control bytes; escape before printing); "" when none */
    wc_hwmon_kind kind;
    wc_hwmon_pairing pairing;
    int index;                /* N of energyN/powerN; voltage index inN for chip-rule and
                                 same-index pairs, current index currM for label pairs (Kepler) */
    int voltage_index, current_index; /* voltage × current only; -1 otherwise */
    char file[64];            /* file read: "power1_average", "energy1_input", "in1_input" */
    char current_file[64];    /* voltage × current only: "curr1_input"; "" otherwise */
    int in_device;            /* 1 when its files are in the chip's device/ directory (file
                                 names start "device/"): the older layout of the kernel's
                                 hwmon ABI (ACPI power_meter), which Kepler's hwmon meter,
                                 listing the chip directory only, does not see */
    int status;               /* 0, or -errno of the reading (-ERANGE: ACPI error marker or
                                 V×I overflow); value fields are then meaningless */
    char error[256];          /* why status != 0: names the file */
    uint64_t energy_uj;       /* WC_HWMON_ENERGY */
    uint64_t power_uw;        /* WC_HWMON_POWER and WC_HWMON_VOLTAGE_CURRENT */
    uint64_t voltage_mv, current_ma; /* WC_HWMON_VOLTAGE_CURRENT */
} wc_hwmon_sensor;

/* One chip (an entry of class/hwmon). */
typedef struct wc_hwmon_chip {
    char entry[64];           /* directory entry, e.g. "hwmon3" */
    char dir[512];            /* <sysfs_root>/class/hwmon/<entry> */
    char chip[128];           /* Kepler's chip name: "k10temp", "drm_card0", "hwmon_dir_fallback" */
    char driver[64];          /* the `name` file, cleaned ("" when absent) */
    int tier;                 /* wc_hwmon_kind of its sensors, -1 when it has none */
    size_t nsensors;          /* sensors it contributed */
    size_t disabled;          /* channels skipped because <type>N_enable reads 0 */
    char note[160];           /* why it has no sensor, when known ("" otherwise) */
} wc_hwmon_chip;

/* The result of one scan. */
typedef struct wc_hwmon_scan {
    char class_dir[512];      /* <sysfs_root>/class/hwmon */
    int present;              /* 1 when class_dir could be listed */
    wc_hwmon_chip *chips;     /* malloc'd, nchips entries, strcmp order of entries */
    size_t nchips;
    wc_hwmon_sensor *sensors; /* malloc'd, nsensors entries, chip order then index order */
    size_t nsensors;
    size_t disabled;          /* Σ chips[].disabled */
} wc_hwmon_scan;

/* Scans <sysfs_root>/class/hwmon (sysfs_root NULL = "/sys") into *out and
 * reads every sensor once. Returns 0 — also when class/hwmon is absent
 * (out->present 0) or holds no sensor (out->nsensors 0); a sensor whose
 * reading fails is kept with its status. Returns -ENAMETOOLONG (root too
 * long), -ENOMEM, or -errno when class/hwmon exists but cannot be listed,
 * with err naming the directory. *out is always safe to free. */
int wc_hwmon_scan_sysfs(const char *sysfs_root, wc_hwmon_scan *out, wc_error *err);

/* Frees what a scan allocated; safe on a zeroed or already-freed scan. */
void wc_hwmon_scan_free(wc_hwmon_scan *s);

/* "energy", "power", "voltage_current". */
const char *wc_hwmon_kind_name(wc_hwmon_kind k);

/* "none", "label", "chip_rule", "same_index". */
const char *wc_hwmon_pairing_name(wc_hwmon_pairing p);

/* Unit of the sensor's reading: "uJ" for energy, "uW" otherwise. */
const char *wc_hwmon_unit(wc_hwmon_kind k);

/* Kepler's cleanMetricName: lower-case, bytes outside [a-z0-9:_] → '_',
 * leading/trailing '_' trimmed, into out (cap bytes, truncating). */
void wc_hwmon_clean_name(const char *in, char *out, size_t cap);

#endif
