/*
 * fleet_report.h — `wattcal fleet`'s report: DIR/fleet.html (self-contained,
 * as report.html: inline CSS, no script, no fetch) and DIR/fleet.md, written
 * once through doc.h: a fleet summary (nodes measured, within tolerance,
 * failed, unchecked; by hardware profile and by exporter version), then the
 * node table sorted by risk (the nodes whose numbers must not reach
 * showback first) and each failing node's reasons and top pods. Every
 * string from the server is escaped for each format (escape.h).
 */
#ifndef WC_FLEET_REPORT_H
#define WC_FLEET_REPORT_H

#include <stddef.h>

#include "common/wc_error.h"
#include "validator/fleet.h"

/* What the report says about how it was made. */
typedef struct wc_fleet_report_meta {
    const char *prometheus;       /* the server's URL */
    const char *range;            /* "START .. END, step 30 s" */
    const char *truth_template;   /* NULL: none */
    const char *tolerances;       /* "node=10%,gap=10%" */
} wc_fleet_report_meta;

/* Writes DIR/fleet.html and DIR/fleet.md (DIR created when missing; nodes
 * already sorted by risk). Returns 0, or -errno with err naming the file. */
int wc_fleet_report_write(const char *dir, const wc_fleet_node *nodes, size_t n,
                          const wc_fleet_summary *sum, const wc_fleet_report_meta *m,
                          wc_error *err);

#endif
