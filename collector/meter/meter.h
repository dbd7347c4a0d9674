/*
 * meter.h — the one small interface behind every power source.
 *
 * A meter is discovered once (which zones/sensors exist), read every tick
 * (one reading per zone, in zone order) and closed. A reading is either a
 * raw counter in µJ with the zone's max range, or a gauge in µW, always with
 * the monotonic time it was taken and a provenance: measured (hardware),
 * estimated (a model), or simulated (the sim node). Implementations:
 * collector/meter/meter_rapl.c (powercap), collector/meter/meter_sim.c (simulated node).
 */
#ifndef WC_METER_H
#define WC_METER_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

/* Where a number came from; printed beside every figure. */
typedef enum wc_provenance {
    WC_PROV_MEASURED = 0,
    WC_PROV_ESTIMATED,
    WC_PROV_SIMULATED,
    WC_PROV_GROUND_TRUTH
} wc_provenance;

/* Stable lower-case name ("measured","estimated","simulated","ground truth"). */
const char *wc_provenance_name(wc_provenance p);

/* Counter zones report µJ that only grow (and wrap); gauges report µW now. */
typedef enum wc_reading_kind { WC_KIND_COUNTER_UJ = 0, WC_KIND_GAUGE_UW } wc_reading_kind;

/* One zone of a meter, fixed at discovery. */
typedef struct wc_zone {
    char name[32];          /* RAPL domain from the `name` file, stripped of "-N": package, core, uncore, dram, psys */
    int socket;             /* package number from "package-N" (subzones inherit their parent's); -1 for psys/none */
    int index;              /* occurrence of (name) within its socket, 0.. (Kepler's index rule is in attribution.c) */
    char path[512];         /* sysfs directory of the zone (e.g. /sys/class/powercap/intel-rapl:0:0) */
    char raw_name[64];      /* the `name` file verbatim, e.g. "package-1" */
    int parent;             /* index of the parent zone in the meter's zone array, -1 for top-level */
    int enabled;            /* `enabled` file: 1, 0, or -1 when absent */
    uint64_t max_energy_range_uj; /* 0 = unknown (file missing or unreadable) */
    wc_reading_kind kind;
    int dies;               /* per-die zones ("package-N-die-M", some AMD EPYC) found for this
                               zone's socket and domain; 0 when it is no die zone */
    int dies_mirrored;      /* 1: those `dies` zones mirror one counter (same value read after
                               read) and this one zone counts them once; 0: distinct dies, each a
                               zone of its own, summed per socket */
} wc_zone;

/* One reading of one zone. status 0 = ok; otherwise -errno of the failed read
 * and value is meaningless (never treat as 0). */
typedef struct wc_reading {
    int64_t mono_ns;
    uint64_t value;         /* µJ for counters, µW for gauges */
    int status;
} wc_reading;

typedef struct wc_meter wc_meter;

/* The operations every power source implements. */
typedef struct wc_meter_ops {
    const char *kind;       /* "rapl", "sim" */
    /* Finds the zones; fills m->zones/m->nzones. 0, or -ENODEV when this
     * source is absent here, or -errno with err set. */
    int (*discover)(wc_meter *m, wc_error *err);
    /* Reads every zone into out[0..nzones-1]. Returns 0 when every zone read,
     * otherwise the first failing zone's -errno with err naming the file (the
     * other zones are still filled). */
    int (*read)(wc_meter *m, wc_reading *out, wc_error *err);
    /* Releases everything the meter holds (not m itself). */
    void (*close)(wc_meter *m);
} wc_meter_ops;

/* A meter instance. */
struct wc_meter {
    const wc_meter_ops *ops;
    wc_provenance provenance;
    wc_zone *zones;          /* malloc'd by discover */
    size_t nzones;
    char description[256];   /* one line for humans: what was found and where */
    unsigned layout_version; /* bumped when a zone's path or max range changed after
                                discovery (a vanished zone rediscovered, B25): the recorder
                                rewrites the zone rows */
    double plausible_watts;  /* largest power per zone the meter itself can produce (the
                                simulated node: its model's maximum), the recorder's default
                                counter ceiling; 0 = unknown (hardware) */
    void *priv;
};

/* Convenience wrappers that check ops for NULL. */
int wc_meter_discover(wc_meter *m, wc_error *err);
int wc_meter_read(wc_meter *m, wc_reading *out, wc_error *err);
void wc_meter_close(wc_meter *m);

#endif
