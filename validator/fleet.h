/*
 * fleet.h — `wattcal fleet`: every node a power exporter (Kepler v0.10+)
 * reports to a Prometheus server, checked one node at a time from the data
 * the server already holds, in bounded memory (one node's samples at a
 * time: queried, scored, dropped; only a small summary per node is kept).
 *
 * Nodes: every node with Kepler node energy series in the range, of either
 * layout, found and named as `import --prometheus` finds a node
 * (collector/import/prom_nodes.h: node_name, else exported_instance, else
 * instance), optionally filtered by a regular expression (POSIX ERE,
 * anchored at both ends as PromQL's =~ is). A Kepler <= 0.9 (legacy layout)
 * node is listed with its layout and power source (its source label) and not
 * scored here (never passed: unchecked, or failed when not measured); the
 * report says to import it. Per v0.10+ node:
 *   - the node's series (/api/v1/series): zones, paths and scrape targets
 *     (job, instance); the power source from the path labels through
 *     Kepler's catalogue (collector/exporter/kepler_metrics.h: measured /
 *     not measured / unknown, exactly as import and record classify it);
 *   - kepler_build_info and kepler_node_cpu_info of those targets
 *     (query_range): the exporter versions in order of appearance (more than
 *     one: the version changed in the range) and the hardware profile (the
 *     CPU's model_name);
 *   - node power: the package and dram energy counters at every step
 *     instant (query_range), differenced per series (a counter reset voids
 *     that interval), summed over series: W over (t_k, t_k+1]. Zones overlap
 *     (package contains core, psys contains package): only package and dram
 *     are summed;
 *   - ground truth: the truth template with {{node}} replaced by the node
 *     name (escaped for a PromQL string), one series of watts; each value at
 *     t_k a reading of the interval since the previous value (as import
 *     --prometheus stores it and validator/series.c reads it), its lag and
 *     averaging window estimated and the pairs made by validator/align.h
 *     exactly as `validate` does on the imported node; the accuracy
 *     statistics of validator/stats.h with their block-bootstrap 95 %
 *     intervals;
 *   - the exporter's own attribution gap per zone (package, dram): 1 − Σ
 *     pod energy / node active energy, both increase() over the range;
 *   - the top pods by energy (package + dram) over the range.
 * A node FAILS when it is not measured or its source is unknown (its pod
 * numbers must not reach showback), its version changed, a node tolerance
 * (an accuracy statistic, stat_table.h) or the gap tolerance is broken; it
 * is SKIPPED (never passed) when it has no ground truth pairs; else it
 * passes. Risk order (the node table's): not measured, unknown source,
 * beyond the node tolerance, version changed, beyond the gap tolerance,
 * query error, unchecked, passed; within a class the larger |bias %| first.
 * A node whose queries fail (a server error, a timeout, an answer that does
 * not parse) gets NO VERDICT: status skipped, risk "query error", the
 * reason naming the query; the run goes on. Only an unreachable server (the
 * node list, or a connection refused / unresolvable / unauthorised later),
 * no node at all, or running out of memory stops the run.
 *
 * Layer 8 (validator/): reads Prometheus through collector/prom/promapi.h and
 * classifies through collector/exporter/kepler_metrics.h.
 */
#ifndef WC_FLEET_H
#define WC_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "collector/prom/promapi.h"
#include "common/wc_error.h"
#include "validator/stats.h"
#include "validator/validation.h"

#define WC_FLEET_MAX_TOP 10
#define WC_FLEET_MAX_VERSIONS 4
#define WC_FLEET_MAX_NODES 100000

/* What to check. Strings are borrowed for the run. */
typedef struct wc_fleet_opts {
    wc_prom_config prom;
    int64_t start_ms, end_ms, step_ms; /* the range; step: the evaluation grid */
    const char *nodes_regex;           /* NULL: every node */
    const char *truth_template;        /* PromQL with {{node}}; NULL: no ground truth */
    wc_tolerance tol[WC_TOL_MAX];      /* accuracy statistics and gap only */
    size_t ntol;
    size_t top_pods;                   /* 1..WC_FLEET_MAX_TOP */
    wc_boot_cfg boot;
} wc_fleet_opts;

/* Why a node is where it is in the risk order (lower: riskier). */
typedef enum wc_fleet_risk {
    WC_FLEET_NOT_MEASURED = 0, WC_FLEET_UNKNOWN_SOURCE, WC_FLEET_NODE_ERROR,
    WC_FLEET_VERSION_CHANGED, WC_FLEET_GAP, WC_FLEET_QUERY_ERROR, WC_FLEET_UNCHECKED,
    WC_FLEET_PASSED
} wc_fleet_risk;

/* One pod's energy over the range (package + dram, J, as the exporter says). */
typedef struct wc_fleet_pod {
    char name[128], ns[64];
    double joules;
} wc_fleet_pod;

/* What one node's check found: everything the report and JUnit print. */
typedef struct wc_fleet_node {
    char node[160];
    char versions[WC_FLEET_MAX_VERSIONS][48]; /* in order of first appearance */
    size_t nversions;                   /* > 1: changed in the range */
    char power_source[16];              /* measured / not measured / unknown */
    char hardware[96];                  /* CPU model_name, "unknown" */
    char zones[64];                     /* zones summed ("package+dram") */
    char layout[16];                    /* "v0.10+" or "legacy" (kepler_metrics.h) */
    int query_error;                    /* 1: a query failed: no verdict (reasons: which) */
    double lag_s;                       /* truth lag applied (align.h; 0 when not identifiable) */
    int lag_identifiable;               /* the lag was estimated from the data */
    size_t npairs;                      /* intervals scored against truth */
    int have_accuracy;                  /* npairs > 0 */
    wc_accuracy acc;                    /* exporter node power vs truth */
    double exporter_joules, truth_joules; /* over the scored intervals */
    double gap_pct[2];                  /* package, dram: unattributed % of active (NAN: none) */
    wc_fleet_pod top[WC_FLEET_MAX_TOP];
    size_t ntop;
    wc_check_status status;
    wc_fleet_risk risk;
    char reasons[512];                  /* every broken rule, "; "-separated */
} wc_fleet_node;

/* The fleet's counts, filled while nodes are checked. */
typedef struct wc_fleet_summary {
    size_t nodes, measured, not_measured, unknown_source, checked, within, failed, skipped;
    size_t errors, legacy;              /* nodes with a failed query (in skipped); legacy layout */
    int64_t requests, bytes;
    double http_s, total_s;             /* seconds inside HTTP requests, and overall */
} wc_fleet_summary;

/* Called after each node (done of total), with its result. Return 0 to go
 * on, or a negative errno (err set) to stop. */
typedef int (*wc_fleet_node_cb)(void *ctx, const wc_fleet_node *n, size_t done, size_t total,
                                wc_error *err);

/* Finds the nodes and checks each in name order, calling cb per node.
 * Returns 0; -EINVAL for bad options (a bad regex, a range of more than
 * 11,000 instants ... per node is allowed: chunked); -ENOENT when no node
 * has exporter series (the message lists what the server has); a Prometheus
 * error (promapi.h) listing the nodes or one that means the server cannot be
 * reached at all (a node's other query errors are that node's result, see
 * above); -ENOMEM; or cb's value. */
int wc_fleet_run(const wc_fleet_opts *o, wc_fleet_node_cb cb, void *ctx,
                 wc_fleet_summary *sum, wc_error *err);

/* Sorts nodes by risk (see the top of this file). */
void wc_fleet_sort(wc_fleet_node *nodes, size_t n);

/* The risk class's words ("not measured", "node error", ...). */
const char *wc_fleet_risk_name(wc_fleet_risk r);

/* Substitutes every {{node}} in tmpl by node, escaped as inside a PromQL
 * string (\\, \", \n), into buf. Returns 0, -EINVAL (no {{node}} in tmpl),
 * -ENOSPC. */
int wc_fleet_truth_query(const char *tmpl, const char *node, char *buf, size_t cap);

/* Writes the nodes as JUnit XML to path: one testsuite, one testcase per
 * node (a <failure> with the reasons, a <skipped> when unchecked). Returns
 * 0 or -errno with err naming the file. */
int wc_fleet_junit_write(const char *path, const wc_fleet_node *nodes, size_t n,
                         const wc_fleet_summary *sum, wc_error *err);

#endif
