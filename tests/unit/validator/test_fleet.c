/*
 * test_fleet.c — the pure parts of `wattcal fleet` (validator/fleet.h): the
 * truth template ({{node}} substituted, escaped for a PromQL string; refused
 * without it or when too long), the risk order of the node table, the risk
 * class names, and the JUnit file (one testcase per node, a failure or a
 * skipped element, names escaped). The Prometheus half is
 * tests/integration/fleet.sh.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/support/test_support.h"
#include "validator/fleet.h"

Test(fleet, truth_template_substitutes_and_escapes)
{
    char buf[256];
    cr_assert_eq(wc_fleet_truth_query("ipmi_w{node_name=\"{{node}}\"}", "n1", buf, sizeof buf), 0);
    cr_assert_str_eq(buf, "ipmi_w{node_name=\"n1\"}");
    cr_assert_eq(wc_fleet_truth_query("max(a{n=\"{{node}}\"}) + b{m=\"{{node}}\"}", "x\"y\\z", buf,
                                      sizeof buf), 0);
    cr_assert_str_eq(buf, "max(a{n=\"x\\\"y\\\\z\"}) + b{m=\"x\\\"y\\\\z\"}");
    cr_assert_eq(wc_fleet_truth_query("ipmi_w", "n1", buf, sizeof buf), -EINVAL);
    cr_assert_eq(wc_fleet_truth_query("a{n=\"{{node}}\"}", "a-long-node-name", buf, 12), -ENOSPC);
}

static wc_fleet_node node(const char *name, wc_fleet_risk r, double bias, int have)
{
    wc_fleet_node n;
    memset(&n, 0, sizeof n);
    snprintf(n.node, sizeof n.node, "%s", name);
    n.risk = r;
    n.status = r == WC_FLEET_PASSED ? WC_CHECK_PASS : r == WC_FLEET_UNCHECKED ? WC_CHECK_SKIP
                                                                              : WC_CHECK_FAIL;
    n.have_accuracy = have;
    n.acc.bias_pct.est = bias;
    snprintf(n.reasons, sizeof n.reasons, "why <%s>", name);
    return n;
}

Test(fleet, sorted_by_risk_then_larger_bias)
{
    wc_fleet_node n[6] = {
        node("ok-small", WC_FLEET_PASSED, 0.5, 1), node("gap", WC_FLEET_GAP, 1, 1),
        node("ok-large", WC_FLEET_PASSED, -3, 1), node("fake", WC_FLEET_NOT_MEASURED, 0, 1),
        node("nobmc", WC_FLEET_UNCHECKED, 0, 0), node("off", WC_FLEET_NODE_ERROR, -20, 1)};
    wc_fleet_sort(n, 6);
    const char *want[6] = {"fake", "off", "gap", "nobmc", "ok-large", "ok-small"};
    for (int i = 0; i < 6; i++)
        cr_assert_str_eq(n[i].node, want[i], "position %d", i);
    cr_assert_str_eq(wc_fleet_risk_name(WC_FLEET_NOT_MEASURED), "not measured");
    cr_assert_str_eq(wc_fleet_risk_name(WC_FLEET_PASSED), "passed");
}

Test(fleet, junit_one_testcase_per_node)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fleet.xml", wc_test_tmpdir()); /* under $TMPDIR, removed */
    wc_fleet_node n[3] = {node("a&b", WC_FLEET_NOT_MEASURED, 0, 1),
                          node("c", WC_FLEET_UNCHECKED, 0, 0), node("d", WC_FLEET_PASSED, 1, 1)};
    wc_fleet_summary s = {.nodes = 3, .failed = 1, .skipped = 1, .within = 1};
    wc_error err = {{0}};
    cr_assert_eq(wc_fleet_junit_write(path, n, 3, &s, &err), 0, "%s", err.msg);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s not written", path);
    char text[8192] = "";
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    cr_assert(strstr(text, "tests=\"3\" failures=\"1\" skipped=\"1\""));
    cr_assert(strstr(text, "name=\"node=a&amp;b\""));
    cr_assert(strstr(text, "<failure type=\"not measured\" message=\"why &lt;a&amp;b&gt;\"/>"));
    cr_assert(strstr(text, "<skipped type=\"unchecked\""));
    size_t cases = 0;
    for (const char *p = text; (p = strstr(p, "<testcase")); p++)
        cases++;
    cr_assert_eq(cases, 3);
}
