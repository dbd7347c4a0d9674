/*
 * prom_nodes.h — which node a Kepler series in Prometheus belongs to, and
 * every node a Prometheus server holds Kepler node energy series for, in
 * either layout. One implementation shared by `wattcal import --prometheus`
 * (import_prom.c: a series is the node's unless another node is named) and
 * `wattcal fleet` (validator/fleet.c: the node list).
 *
 * A series names its node by node_name (Kepler v0.10+'s constant label),
 * else exported_instance (Kepler <= 0.9 put the node in `instance`, which a
 * scrape with honor_labels false renames exported_instance), else instance
 * (a legacy exporter scraped with honor_labels true) — in that order.
 * Node energy series: kepler_node_cpu_joules_total (v0.10+) and
 * kepler_node_<zone>_joules_total (legacy), classified through Kepler's
 * catalogue (collector/exporter/kepler_metrics.h) for the layout and meter.
 *
 * Layer 6 (collector/import/): promapi.h and kepler_metrics.h only.
 */
#ifndef WC_PROM_NODES_H
#define WC_PROM_NODES_H

#include <stddef.h>
#include <stdint.h>

#include "collector/exporter/kepler_metrics.h"
#include "collector/prom/promapi.h"
#include "common/wc_error.h"

/* The series/matchers the node listing asks for (/api/v1/series). */
#define WC_PROM_NODES_V010 "kepler_node_cpu_joules_total"
#define WC_PROM_NODES_LEGACY \
    "{__name__=~\"kepler_node_(package|core|uncore|dram|other|platform)_joules_total\"}"

/* The node a series names: node_name, else exported_instance, else (with
 * use_instance) instance; "" when none. Borrowed from s. */
const char *wc_prom_series_node(const wc_prom_series *s, int use_instance);

/* Called once per node energy series found: its node (non-empty), layout and
 * meter (Kepler's classification of its path / legacy source label). Return
 * 0 to go on or a negative errno (err set) to stop. */
typedef int (*wc_prom_node_cb)(void *ctx, const char *node, wc_kep_layout layout,
                               wc_kep_meter meter, wc_error *err);

/* Every node energy series of both layouts in [start_ms, end_ms] (one
 * /api/v1/series request with the two matchers above), passed to cb (a node
 * repeats once per series: the caller deduplicates). Returns 0, a Prometheus
 * error (promapi.h), or cb's value. */
int wc_prom_nodes_find(wc_prom *api, int64_t start_ms, int64_t end_ms, wc_prom_node_cb cb,
                       void *ctx, wc_error *err);

#endif
