/*
 * unit_slips.h — unit slips in a recorded run (issue 14 item 8): zones whose
 * mean power cannot be right for a node, the documented 1000× slips of power
 * sources (cases/B11: an ACPI hwmon power meter read as mW instead of µW,
 * kepler#1774, gives 160 kW; a model's platform watts added to a mJ
 * accumulator, kepler#1466 and #1674, gives a platform 1000× below the
 * package beside it).
 *
 * From the gap report's meter energy (counter zones, wattcal's counter rule)
 * and the mean of every gauge zone (an imported power column), it warns when
 *   - the platform (psys / platform) draws less than the package zones it
 *     covers (by more than WC_SLIP_PLATFORM_TOLERANCE),
 *   - a package or platform zone averages below WC_SLIP_SMALL_W,
 *   - any zone averages above WC_SLIP_LARGE_W per instance.
 * Warnings only: the figures stay as measured; validate prints them and the
 * JSON summary lists them.
 */
#ifndef WC_UNIT_SLIPS_H
#define WC_UNIT_SLIPS_H

#include <stddef.h>

#include "collector/store/store.h"
#include "common/wc_error.h"
#include "validator/gap.h"

#define WC_SLIP_SMALL_W 0.05          /* a package or platform below it: W read as mW? */
#define WC_SLIP_LARGE_W 5000.0        /* a zone above it per instance: µW read as mW? */
#define WC_SLIP_PLATFORM_TOLERANCE 0.05 /* platform may read 5 % below the package */
#define WC_SLIP_MAX 8

/* The warnings of one run. */
typedef struct wc_unit_slips {
    size_t n;
    char msg[WC_SLIP_MAX][320];
} wc_unit_slips;

/* Checks the run in st, whose meter energy gap already holds (wc_gap_compute),
 * into *out. Returns 0 or -EIO/-ENOMEM with err (a store error reading the
 * gauge zones). */
int wc_unit_slips_check(wc_store *st, const wc_gap_report *gap, wc_unit_slips *out,
                        wc_error *err);

#endif
