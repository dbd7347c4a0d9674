/*
 * kepler_config.h — the deployed exporter's own configuration file (Kepler's
 * config.yaml, config/config.go at the releases of docs/kepler-model.md §0),
 * read so that the Kepler models match the deployment (`record` and
 * `attribute --kepler-config FILE`).
 *
 * Every key of Kepler's schema (v0.11.4 and main) is accepted; only those
 * that shape the numbers are kept: monitor.interval and staleness (record's
 * interval), monitor.maxTerminated and minTerminatedEnergyThreshold (the
 * terminated-workload trackers, attr_terminated.c), cpu.preferredMeters and
 * experimental.hwmon.{enabled,forceEnabled} (which meter: RAPL counters or
 * hwmon power gauges), rapl.zones and experimental.hwmon.zones (kept, and
 * named in the model's notes). An unknown key, a value of the wrong type or
 * one Kepler's Validate() refuses is an error naming FILE:LINE and the key.
 * Durations are Go's (time.ParseDuration: "5s", "500ms", "1m30s"); a bare
 * integer is nanoseconds, as yaml.v3 decodes it into a time.Duration.
 */
#ifndef WC_KEPLER_CONFIG_H
#define WC_KEPLER_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "collector/model/attribution.h"
#include "common/wc_error.h"

#define WC_KCFG_MAX_LIST 16
#define WC_KCFG_NAME_MAX 32
/* The largest monitor.minTerminatedEnergyThreshold, J: its microjoules
 * (wc_kepler_config_apply) fit int64. */
#define WC_KCFG_MAX_MIN_TERMINATED_J (INT64_MAX / 1000000)

/* The settings that shape the Kepler models, with Kepler's defaults. */
typedef struct wc_kepler_config {
    int64_t interval_ns;           /* monitor.interval (5 s; 0 = refresh on scrape only) */
    int64_t staleness_ns;          /* monitor.staleness (500 ms) */
    int max_terminated;            /* monitor.maxTerminated (500; 0 off, < 0 all) */
    int64_t min_terminated_j;      /* monitor.minTerminatedEnergyThreshold, J (10) */
    char preferred[WC_KCFG_MAX_LIST][WC_KCFG_NAME_MAX]; /* cpu.preferredMeters ([rapl, hwmon]) */
    size_t npreferred;
    char rapl_zones[WC_KCFG_MAX_LIST][WC_KCFG_NAME_MAX]; /* rapl.zones ([]: all); names
                                                            never hold a control byte */
    size_t nrapl_zones;
    char hwmon_zones[WC_KCFG_MAX_LIST][WC_KCFG_NAME_MAX]; /* experimental.hwmon.zones */
    size_t nhwmon_zones;
    int hwmon_enabled;             /* experimental.hwmon.enabled (v0.11.4) */
    int hwmon_forced;              /* experimental.hwmon.forceEnabled (main, deprecated) */
} wc_kepler_config;

/* Kepler's defaults (config.go DefaultConfig). */
void wc_kepler_config_defaults(wc_kepler_config *c);

/* Reads path into *c (defaults first, then the file's values). Returns 0,
 * -ENOENT/-EACCES (unreadable), or -EINVAL with err "FILE:LINE: key: why". */
int wc_kepler_config_load(const char *path, wc_kepler_config *c, wc_error *err);

/* 1 when the deployment reads hwmon before RAPL (hwmon first in
 * preferredMeters, or hwmon enabled/forced): the models then attribute the
 * run's power gauges where it has both; else 0. */
int wc_kepler_config_prefers_hwmon(const wc_kepler_config *c);

/* Sets the engine's terminated-workload trackers from c. */
void wc_kepler_config_apply(const wc_kepler_config *c, wc_attrib *a);

#endif
