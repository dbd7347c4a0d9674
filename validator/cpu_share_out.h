/*
 * cpu_share_out.h — the CPU-accounting cross-check (cpu_share.h) as the
 * terminal table of `wattcal validate` (text_report.c calls it) and as the
 * "cpu_share" object of the JSON summary (summary_json.c calls it).
 */
#ifndef WC_CPU_SHARE_OUT_H
#define WC_CPU_SHARE_OUT_H

#include <cJSON.h>
#include <stdio.h>

#include "validator/cpu_share.h"

/* Prints the section: per energy source, its pods with the largest
 * disagreement first, each figure with its unit and provenance; one line
 * saying so when the run has no pod cgroup accounting. */
void wc_cpu_share_text(FILE *out, const wc_cpu_share_report *r);

/* Adds "cpu_share" to root: {available, zone, cpu_accounting, node_cpu,
 * sources: [{source, provenance, pods, intervals, too_little_data, rows:
 * [{pod_uid, name, namespace, energy_j, node_active_j, energy_pct, cpu_s,
 * node_busy_s, cpu_pct, diff_pts, ratio, intervals}]}]}; unknowns null. */
void wc_cpu_share_json(cJSON *root, const wc_cpu_share_report *r);

#endif
