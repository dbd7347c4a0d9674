/*
 * fleet_junit.c — `wattcal fleet --junit`: one JUnit testcase per node
 * (fleet.h), its failure listing every broken rule, a node without ground
 * truth skipped (never passed), a node whose query failed an <error> (NO
 * VERDICT, the reason naming the query). Strings from the server (node names,
 * versions, reasons) are XML-escaped with junit.h's wc_xml_escape.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validator/fleet.h"
#include "validator/junit.h"

/* "bias -3.10% [95% CI -3.4 .. -2.8], 2879 pairs; source measured; v0.11.4" */
static void node_line(const wc_fleet_node *n, char *buf, size_t cap)
{
    char acc[160] = "no ground truth pairs";
    if (n->have_accuracy)
        snprintf(acc, sizeof acc, "bias %.2f%% [95%% CI %.2f .. %.2f] over %zu pairs, truth lag "
                 "%g s%s", n->acc.bias_pct.est, n->acc.bias_pct.lo, n->acc.bias_pct.hi,
                 n->npairs, n->lag_s, n->lag_identifiable ? "" : " (not identifiable)");
    snprintf(buf, cap, "%s; layout %s; power source %s; exporter %s%s; hardware %s", acc,
             n->layout[0] ? n->layout : "unknown", n->power_source,
             n->nversions ? n->versions[n->nversions - 1] : "unknown",
             n->nversions > 1 ? " (changed)" : "", n->hardware);
}

static void testcase(FILE *f, const wc_fleet_node *n)
{
    char line[512];
    node_line(n, line, sizeof line);
    fputs("    <testcase classname=\"wattcal.fleet\" name=\"node=", f);
    wc_xml_escape(f, n->node);
    fputs("\" time=\"0\">\n", f);
    if (n->status != WC_CHECK_PASS) {
        fputs(n->query_error ? "      <error type=\"" : n->status == WC_CHECK_FAIL
              ? "      <failure type=\"" : "      <skipped type=\"", f);
        wc_xml_escape(f, wc_fleet_risk_name(n->risk));
        fputs("\" message=\"", f);
        wc_xml_escape(f, n->reasons);
        fputs("\"/>\n", f);
    }
    fputs("      <system-out>", f);
    wc_xml_escape(f, line);
    fputs("</system-out>\n    </testcase>\n", f);
}

int wc_fleet_junit_write(const char *path, const wc_fleet_node *nodes, size_t n,
                         const wc_fleet_summary *sum, wc_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return wc_error_set(err, -errno, "--junit %.200s: cannot write: %s", path, strerror(errno));
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"wattcal fleet\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" "
            "errors=\"%zu\">\n", n, sum->failed, sum->skipped - sum->errors, sum->errors);
    fprintf(f, "  <testsuite name=\"wattcal fleet\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" "
            "errors=\"%zu\">\n", n, sum->failed, sum->skipped - sum->errors, sum->errors);
    for (size_t i = 0; i < n; i++)
        testcase(f, &nodes[i]);
    fputs("  </testsuite>\n</testsuites>\n", f);
    int bad = fflush(f) != 0 || ferror(f);
    int e = errno;
    if (fclose(f) || bad)
        return wc_error_set(err, -EIO, "--junit %.200s: write failed: %s", path,
                            strerror(bad ? e : errno));
    return 0;
}
