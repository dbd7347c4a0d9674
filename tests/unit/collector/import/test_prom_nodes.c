/*
 * test_prom_nodes.c — collector/import/prom_nodes.h's node rule: which node a
 * Kepler series in Prometheus names (node_name, else exported_instance, else
 * instance when asked), the rule import --prometheus and fleet share.
 */
#include <criterion/criterion.h>

#include "collector/import/prom_nodes.h"

static wc_prom_series series(const wc_prom_label *l, size_t n)
{
    return (wc_prom_series){.metric = "kepler_node_package_joules_total", .labels = l,
                            .nlabels = n};
}

Test(prom_nodes, node_name_first)
{
    const wc_prom_label l[] = {{"exported_instance", "b"}, {"instance", "10.0.0.1:9102"},
                               {"node_name", "a"}};
    wc_prom_series s = series(l, 3);
    cr_assert_str_eq(wc_prom_series_node(&s, 1), "a");
    cr_assert_str_eq(wc_prom_series_node(&s, 0), "a");
}

Test(prom_nodes, legacy_exported_instance_then_instance)
{
    const wc_prom_label l[] = {{"exported_instance", "old-1"}, {"instance", "10.0.0.1:9102"}};
    wc_prom_series s = series(l, 2);
    cr_assert_str_eq(wc_prom_series_node(&s, 1), "old-1");
    wc_prom_series t = series(l + 1, 1);
    cr_assert_str_eq(wc_prom_series_node(&t, 1), "10.0.0.1:9102");
    cr_assert_str_eq(wc_prom_series_node(&t, 0), "", "a target's instance is no node for import");
}
