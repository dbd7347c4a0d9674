/*
 * showback.h — the per-pod showback numbers of `wattcal validate`: the top
 * pods by the energy the reference model attributed to them in one zone,
 * with namespace and name where the run knows them (the pod_identity table:
 * the exporter's labels or the kubelet), joules with a 95 % block-bootstrap
 * interval, and their share of the zone's node energy. The interval is the
 * bootstrap of the per-tick energy series (stats.h, moving blocks), scaled
 * to the run: J = (ticks − 1) × mean per-tick J; the share's interval is the
 * joules' over the node energy, which is measured and taken as fixed.
 * Printed on the terminal, written into validate's JSON ("pods") and, with
 * --pods-csv, as CSV with the interval's absolute times (RFC 3339, UTC) so
 * the rows join with Prometheus data.
 */
#ifndef WC_SHOWBACK_H
#define WC_SHOWBACK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collector/store/store.h"
#include "common/wc_error.h"
#include "validator/levels.h"
#include "validator/stats.h"

#define WC_SHOWBACK_TOP 10

struct cJSON;

/* One pod of the table. */
typedef struct wc_showback_pod {
    char uid[128];
    char ns[128], name[128];      /* "" when the run does not know them */
    wc_ci joules;                 /* attributed energy over the run (J) and its interval */
    wc_ci share_pct;              /* of the zone's node energy (%) */
} wc_showback_pod;

/* The table. */
typedef struct wc_showback {
    char zone[32], model[32];
    char provenance[96];          /* "attributed by model M (simulated meter)" */
    int64_t start_wall_ns, end_wall_ns; /* the interval covered, UTC ns since the epoch */
    double duration_s;
    double node_joules;           /* the zone's node energy (the shares' base) */
    size_t intervals;             /* tick intervals bootstrapped */
    size_t npods;                 /* pods with energy in the run */
    size_t n;                     /* rows (at most WC_SHOWBACK_TOP) */
    wc_showback_pod pods[WC_SHOWBACK_TOP];
} wc_showback;

/* What the table is computed from. */
typedef struct wc_showback_in {
    int64_t model_id;
    const char *model;            /* its name */
    const char *zone;             /* e.g. "package" */
    const char *meter_provenance; /* "measured", "simulated" */
    double node_joules;           /* the zone's node energy under the model */
    wc_boot_cfg boot;
    const wc_levels_report *levels; /* the same model's levels pass, or NULL: its per-pod
                                       totals spare a second pass over the rows */
} wc_showback_in;

/* Computes the table. Returns 0 (n 0 when no pod received energy), -EIO or
 * -ENOMEM with err. */
int wc_showback_compute(wc_store *st, const wc_showback_in *in, wc_showback *out, wc_error *err);

/* The terminal table ("Top pods by ... energy"). */
void wc_showback_text(FILE *out, const wc_showback *s);

/* The "pods" object of validate's JSON into root. */
void wc_showback_json(struct cJSON *root, const wc_showback *s);

/* Writes the table as CSV to path (written in place: a symlink or device is
 * written through): a header row, one row per pod, the interval's start and
 * end in RFC 3339 UTC. Returns 0 or -errno / -EIO with err naming the file. */
int wc_showback_csv_write(const char *path, const wc_showback *s, wc_error *err);

/* wall_ns (UTC ns since the epoch) as RFC 3339 with milliseconds and Z:
 * "2026-01-02T03:04:05.678Z". */
void wc_rfc3339_utc(int64_t wall_ns, char *buf, size_t cap);

#endif
