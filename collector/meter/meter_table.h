/*
 * meter_table.h — the table of meters `wattcal record --meter NAME` can
 * create: for each its name, how to open it and one line of help.
 *
 * The recorder (collector/recorder.c) opens the meter chosen by --meter
 * through this table, and `wattcal probe` (collector/probe.c) opens RAPL
 * through the same entry, so both see the node the same way. The CLI can
 * list the --meter choices from it (wc_meter_kinds). Adding a meter: its
 * meter_<name>.c (+ .h), and one line in meter_table.c.
 *
 * hwmon (hwmon.c) is not in the table: it is a scan of the sensors Kepler's
 * hwmon meter would use, reported by probe, not a meter wattcal records.
 */
#ifndef WC_METER_TABLE_H
#define WC_METER_TABLE_H

#include <stddef.h>

#include "collector/meter/meter.h"
#include "collector/meter/meter_sim.h"
#include "common/wc_error.h"

/* The meter `wattcal record` opens when --meter is not given: hardware, with
 * no silent fallback to a simulation. */
#define WC_METER_DEFAULT "rapl"

/* What opening a meter may need (each meter takes what it uses). */
typedef struct wc_meter_env {
    const char *sysfs_root;      /* NULL = "/sys" (rapl) */
    const char *procfs_root;     /* NULL = "/proc" (sim: its utilisation source) */
    const wc_sim_params *sim;    /* the simulated node's model; NULL = the defaults */
} wc_meter_env;

/* One row of the table. */
typedef struct wc_meter_kind {
    const char *name;            /* the --meter value: "rapl", "sim" */
    /* Initialises m (wc_meter_discover comes next). 0, or -errno with err set,
     * as the meter's own init (wc_meter_rapl_init, wc_meter_sim_init). */
    int (*init)(wc_meter *m, const wc_meter_env *env, wc_error *err);
    const char *help;            /* one line for --help, no trailing period */
} wc_meter_kind;

/* The table row named name, or NULL (name NULL or unknown). */
const wc_meter_kind *wc_meter_find(const char *name);

/* The whole table, in --help order; *n receives its length (n may be NULL). */
const wc_meter_kind *wc_meter_kinds(size_t *n);

/* The names for a message, "rapl or sim" ("a, b or c" for three), into buf
 * (cap bytes, truncated when short). Returns buf. */
const char *wc_meter_names(char *buf, size_t cap);

#endif
