/*
 * meter_rapl.h — RAPL over the powercap sysfs class.
 *
 * Discovery lists <sysfs_root>/class/powercap in lexical order; every entry
 * with a readable `name` is a zone (control-type dirs have none). Kept: every
 * zone, per socket (socket from the package's `name`, never the directory
 * index: B07), per-die package zones of one socket counted once when they
 * mirror one counter and summed when they are distinct dies (wc_zone.dies),
 * subzones named by their own `name` file (B08), `enabled` and
 * `max_energy_range_uj` recorded; `intel-rapl-mmio` duplicates of an MSR
 * package dropped (B09); psys kept as its own zone, never summed with
 * packages. EACCES on energy_uj (root-only since CVE-2020-8694) is an error
 * naming the file and the fix (B05).
 */
#ifndef WC_METER_RAPL_H
#define WC_METER_RAPL_H

#include "collector/meter/meter.h"

/* Initialises m as a RAPL meter reading below sysfs_root ("/sys" or a tree
 * whose class/powercap is a fixture; NULL = "/sys"). Call wc_meter_discover
 * next; it returns -ENODEV when class/powercap is absent or has no zone,
 * -EACCES (err says which file, that root or CAP_DAC_READ_SEARCH is needed,
 * or a udev rule) when energy_uj is unreadable. A named zone whose energy_uj
 * is absent or not a number is skipped (counted in m->description); a zone
 * whose directory later vanishes reads status -ENOENT (B25). Returns 0,
 * -ENOMEM, or -ENAMETOOLONG when sysfs_root is too long. */
int wc_meter_rapl_init(wc_meter *m, const char *sysfs_root, wc_error *err);

#endif
