/*
 * kepler_metrics.h — Kepler's metric catalogue: what each series an exporter
 * reports means, for every layout wattcal reads.
 *
 * Layouts (docs/kepler-model.md §11 says how to read them):
 *   v0.10+   kepler_node_cpu_{,active_,idle_}joules_total{zone,path},
 *            kepler_node_cpu_{,active_,idle_}watts, kepler_node_cpu_usage_ratio,
 *            kepler_{process,container,pod,vm}_cpu_{joules_total,watts}{... ,state,zone},
 *            kepler_process_cpu_seconds_total, GPU series (kepler_*_gpu_*),
 *            kepler_platform_watts{source,...}, kepler_build_info{version,revision,...},
 *            kepler_node_cpu_info; constant label node_name.
 *   legacy   <= v0.9: kepler_node_<zone>_joules_total{package,instance,mode},
 *            kepler_{process,container,vm}_<zone>_joules_total{...,mode},
 *            kepler_container_joules_total, ... (mode = dynamic | idle).
 * The power source of a node series comes from its path label: a powercap
 * or hwmon sysfs path is measured; "aggregated-<zone>" is a measured sum over
 * sockets; the fake meter's ".../intel-rapl/energy_<zone>" is not a
 * measurement; anything else is unknown — never "measured" by default.
 * A legacy node energy series has no path: its source label says it (RAPL,
 * hwmon, ACPI, Redfish, HMC names: measured; "trained_power_model" and
 * "estimator": estimated; "dummy" and "none": fake; else unknown).
 *
 * The catalogue is one table in kepler_metrics.c (a new metric = one row);
 * a series is found by its sample name (OpenMetrics' "_total" included), and
 * a name both layouts use (kepler_{node,process,container}_gpu_joules_total)
 * is legacy when the sample carries the legacy "mode" label.
 */
#ifndef WC_KEPLER_METRICS_H
#define WC_KEPLER_METRICS_H

#include <stddef.h>

#include "collector/exporter/expo_parse.h"

/* Which level a series describes. */
typedef enum wc_kep_level {
    WC_KEP_NONE = 0,     /* not a Kepler series we interpret (kept as reported) */
    WC_KEP_NODE, WC_KEP_PROCESS, WC_KEP_CONTAINER, WC_KEP_POD, WC_KEP_VM,
    WC_KEP_PLATFORM,     /* kepler_platform_watts (a BMC through Kepler) */
    WC_KEP_NODE_RATIO,   /* kepler_node_cpu_usage_ratio */
    WC_KEP_BUILD_INFO,   /* kepler_build_info */
    WC_KEP_CPU_INFO      /* kepler_node_cpu_info */
} wc_kep_level;

/* What it measures. */
typedef enum wc_kep_quantity {
    WC_KEP_Q_OTHER = 0,
    WC_KEP_JOULES,           /* *_joules_total: energy counter (node: the raw meter counter) */
    WC_KEP_ACTIVE_JOULES,    /* *_active_joules_total */
    WC_KEP_IDLE_JOULES,      /* *_idle_joules_total (legacy: mode="idle") */
    WC_KEP_DYNAMIC_JOULES,   /* legacy mode="dynamic" */
    WC_KEP_WATTS, WC_KEP_ACTIVE_WATTS, WC_KEP_IDLE_WATTS,
    WC_KEP_CPU_SECONDS,      /* kepler_process_cpu_seconds_total */
    WC_KEP_RATIO,            /* usage ratio 0..1 */
    WC_KEP_INFO              /* constant 1 with labels */
} wc_kep_quantity;

typedef enum wc_kep_device { WC_KEP_CPU = 0, WC_KEP_GPU, WC_KEP_DEV_OTHER } wc_kep_device;

/* A node series' meter, from its path label (WC_KEP_METER_NA for others). */
typedef enum wc_kep_meter {
    WC_KEP_METER_NA = 0, WC_KEP_METER_MEASURED, WC_KEP_METER_AGGREGATED, WC_KEP_METER_FAKE,
    WC_KEP_METER_UNKNOWN,
    WC_KEP_METER_ESTIMATED   /* legacy source="trained_power_model"/"estimator": a model */
} wc_kep_meter;

typedef enum wc_kep_layout { WC_KEP_V010 = 0, WC_KEP_LEGACY } wc_kep_layout;

/* One classified sample: the typed meaning of a series. Strings are copies. */
typedef struct wc_kep_fact {
    wc_kep_level level;
    wc_kep_quantity quantity;
    wc_kep_device device;
    wc_kep_layout layout;
    char zone[32];       /* package, core, uncore, dram, psys, platform, other; gpu: "" */
    char key[160];       /* process: pid; container: container_id; pod: pod_id; vm: vm_id;
                            node GPU: the gpu index; platform: source_id; cpu info:
                            processor; legacy node: the package (socket) label;
                            node and others: "" */
    char parent[160];    /* process: its container_id ("" none); container: its pod_id
                            (legacy: its pod_name, the layout has no pod uid);
                            platform: chassis_id */
    char name[256];      /* container_name, pod_name, vm_name; process: comm (legacy:
                            command); node GPU: gpu_name; platform: source_name; cpu
                            info: model_name */
    char ns[128];        /* pod_namespace (legacy: container_namespace) */
    char state[16];      /* "running", "terminated", or "" when the series has no state */
    char path[256];      /* node series: the path label */
    char node[128];      /* node_name label (legacy node series: instance); "" absent:
                            info metrics carry none */
    char version[64], revision[64]; /* kepler_build_info (legacy kepler_exporter_build_info) */
    char source[64];     /* platform: source label; legacy: the source label */
    wc_kep_meter meter;  /* node CPU energy and power series; NA for every other */
} wc_kep_fact;

/* Classifies a parsed sample. Returns 1 and fills *out for a Kepler series
 * (level may still be WC_KEP_NONE for a kepler_* metric we do not interpret),
 * 0 when the metric is not Kepler's (out untouched). Never fails: an odd label
 * set gives empty strings, not an error. */
int wc_kepler_classify(const wc_expo_sample *s, wc_kep_fact *out);

/* The meter a node path label names (see top of file). */
wc_kep_meter wc_kepler_meter_of_path(const char *path);

/* Stable lower-case names for the DB and reports: "none", "node", "process",
 * "container", "pod", "vm", "platform", "usage-ratio", "build-info",
 * "cpu-info"; "other", "joules", "active_joules", "idle_joules",
 * "dynamic_joules", "watts", "active_watts", "idle_watts", "cpu_seconds",
 * "ratio", "info"; "cpu", "gpu", "other"; "measured", "aggregated", "fake",
 * "unknown", "estimated", "" (NA); "v0.10+", "legacy". */
const char *wc_kep_level_name(wc_kep_level l);
const char *wc_kep_quantity_name(wc_kep_quantity q);
const char *wc_kep_device_name(wc_kep_device d);
const char *wc_kep_meter_name(wc_kep_meter m);
const char *wc_kep_layout_name(wc_kep_layout l);

/* The node's power source from all its node series' meters (NA entries are
 * skipped): "measured" when every one is measured or aggregated, "not
 * measured" when any is fake or estimated, otherwise "unknown" (also with no
 * node series). */
const char *wc_kepler_power_source(const wc_kep_meter *meters, size_t n);

#endif
