/*
 * test_expo_parse.c — the exposition parser (collector/exporter/expo_parse.c):
 * EVERY exposition of the shared corpus (corpus/kepler-metrics/: Kepler's
 * releases from v0.5 to the v0.10 dev tree, other exporters), with the
 * sample counts and values each file holds, skipped when absent; and the
 * grammar's edges written here: numbers as Go's ParseFloat reads them,
 * timestamps, OpenMetrics' strict form and the 0.0.4 text's lenient one,
 * metadata lines, label sets, limits, the callback's stop, canonical labels
 * and the Content-Type. Every error names the source, line and column.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/collector/exporter/expo_collect.h"
#include "tests/unit/support/test_support.h"

/* ---- the shared corpus -------------------------------------------------- */

static void parse_corpus(const char *rel, expo_got *g)
{
    char path[256];
    snprintf(path, sizeof path, "corpus/kepler-metrics/%s", rel);
    expo_collect_file(wc_shared_fixture(path), WC_EXPO_TEXT_004, g);
}

/* Every .prom of the corpus, with what it holds. */
static const struct {
    const char *file;
    size_t samples, duplicates, kepler;
} corpus[] = {
    {"other-exporters/ipmi-exporter-pr-160-dcmi-present-and-absent.prom", 10, 1, 0},
    {"other-exporters/node-exporter-rapl-e2e.prom", 2, 0, 0},
    {"v0.10-dev/pr-2037-energy-zone.prom", 4, 0, 4},
    {"v0.5/pr-513-process-core-joules.prom", 5, 0, 5},
    {"v0.6-0.7/issue-543-s390x-garbage-pid.prom", 3, 0, 3},
    {"v0.7/issue-1152-vm-metrics.prom", 10, 0, 10},
    {"v0.7/issue-1349-rhel9-rapl-sysfs-excerpt-a.prom", 4, 0, 4},
    {"v0.7/issue-1349-rhel9-rapl-sysfs-excerpt-b.prom", 11, 0, 11},
    {"v0.7/issue-1617-1615-1345-node-rapl-mixed.prom", 5, 0, 5},
    {"v0.7/issue-707-container-package-zero-ec2.prom", 3, 0, 3},
    {"v0.7/issue-907-container-joules-eks.prom", 3, 0, 3},
    {"v0.7/pr-1230-container-components-intel_rapl-acpi.prom", 6, 0, 6},
    {"v0.7/pr-1546-process-bpf-cpu-time.prom", 10, 0, 10},
    {"v0.7/pr-635-container-core-empty-container-id.prom", 4, 0, 4},
};

Test(expo_corpus, every_exposition_parses)
{
    for (size_t i = 0; i < sizeof corpus / sizeof corpus[0]; i++) {
        expo_got g;
        parse_corpus(corpus[i].file, &g);
        cr_assert_eq(g.rc, 0, "%s: %s", corpus[i].file, g.err.msg);
        cr_assert_eq(g.st.samples, corpus[i].samples, "%s: %zu samples", corpus[i].file,
                     g.st.samples);
        cr_assert_eq(g.st.duplicates, corpus[i].duplicates, "%s", corpus[i].file);
        size_t k = 0;
        for (size_t j = 0; j < g.n; j++)
            k += (size_t)g.r[j].kepler;
        cr_assert_eq(k, corpus[i].kepler, "%s: %zu Kepler series", corpus[i].file, k);
        expo_got_free(&g);
    }
}

/* issue-1675 quotes a TYPE line that lost its '#': Prometheus refuses it too. */
Test(expo_corpus, node_info_excerpt_without_its_hash_is_refused)
{
    expo_got g;
    parse_corpus("v0.7/issue-1675-node-info.prom", &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert_str_eq(g.err.msg, "issue-1675-node-info.prom:1:6: expected the value (a number, "
                                "NaN, +Inf or -Inf), got 'kepler_node_info'");
    cr_assert_eq(g.n, 0);
    expo_got_free(&g);
}

Test(expo_corpus, values_and_labels_as_reported)
{
    expo_got g;
    parse_corpus("other-exporters/ipmi-exporter-pr-160-dcmi-present-and-absent.prom", &g);
    const expo_rec *r = expo_first(&g, "ipmi_dcmi_power_consumption_watts");
    cr_assert_float_eq(r->value, 372, 0);
    cr_assert_eq(r->type, WC_EXPO_GAUGE);
    cr_assert_eq(g.st.nonfinite, 4, "NaN sensor values are passed on and counted");
    cr_assert(strstr(g.st.warning, ":14: 1 samples repeat a series"), "%s", g.st.warning);
    expo_got_free(&g);
    parse_corpus("v0.7/issue-907-container-joules-eks.prom", &g);
    cr_assert_float_eq(g.r[0].value, 486.63599999999997, 0);
    cr_assert_eq(g.r[0].type, WC_EXPO_COUNTER);
    expo_got_free(&g);
    parse_corpus("v0.6-0.7/issue-543-s390x-garbage-pid.prom", &g);
    cr_assert_float_eq(g.r[2].value, 3.627368024870224e18, 0);
    cr_assert(strstr(g.r[0].labels, "pid=\"10310146921934618624\""));
    expo_got_free(&g);
    parse_corpus("v0.7/issue-1349-rhel9-rapl-sysfs-excerpt-a.prom", &g);
    r = expo_first(&g, "kepler_exporter_build_info");
    cr_assert(strstr(r->labels, "goversion=\"go1.21.9 (Red Hat 1.21.9-2.el9_4)\""));
    cr_assert_eq(r->nlabels, 7, "version=\"\" and branch=\"\" are read, left out of the text");
    expo_got_free(&g);
}

/* ---- numbers ------------------------------------------------------------- */

/* Parses "m <value>\n" and returns rc; *v the value. */
static int value_rc(const char *value, wc_expo_format fmt, double *v)
{
    char text[256];
    snprintf(text, sizeof text, "m %s\n%s", value, fmt == WC_EXPO_OPENMETRICS ? "# EOF\n" : "");
    expo_got g;
    expo_collect_str(text, fmt, &g);
    int rc = g.rc;
    if (!rc)
        *v = g.r[0].value;
    expo_got_free(&g);
    return rc;
}

Test(expo_parse, values_as_go_parsefloat_reads_them)
{
    static const struct {
        const char *text;
        double want;
    } ok[] = {
        {"0", 0},           {"42", 42},          {"-7", -7},         {"+7", 7},
        {"1.5", 1.5},       {"1.", 1},           {".25", 0.25},      {"1e3", 1000},
        {"1E+3", 1000},     {"2.5e-3", 0.0025},  {"007", 7},         {"0.1", 0.1},
        {"123456789012345678901234567890", 1.2345678901234568e29},
        {"0.30000000000000004", 0.30000000000000004},
        {"9007199254740993", 9007199254740992.0}, /* ties to even, correctly rounded */
        {"2.2250738585072014e-308", 2.2250738585072014e-308},
        {"1e-400", 0},      {"4.9e-324", 4.9e-324},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        for (int f = 0; f < 2; f++) {
            double v = -1;
            cr_assert_eq(value_rc(ok[i].text, (wc_expo_format)f, &v), 0, "%s", ok[i].text);
            cr_assert_eq(v, ok[i].want, "%s: %.17g", ok[i].text, v);
        }
    static const char *const special[] = {"NaN", "nan", "NAN", "+Inf", "-Inf", "inf",
                                          "-infinity", "+INFINITY"};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
        double v = 0;
        cr_assert_eq(value_rc(special[i], WC_EXPO_TEXT_004, &v), 0, "%s", special[i]);
        cr_assert(!isfinite(v), "%s", special[i]);
    }
}

Test(expo_parse, values_refused)
{
    static const char *const bad[] = {"0x10", "1_000", "1e", "e5", ".", "+", "+nan", "-NaN",
                                      "infinit", "1.2.3", "1,5", "1e+", "--1", "12abc", "1p3",
                                      "nan(1)"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v;
        cr_assert_eq(value_rc(bad[i], WC_EXPO_TEXT_004, &v), -EINVAL, "%s", bad[i]);
    }
    expo_got g;
    expo_collect_str("m 1e999\n", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert_str_eq(g.err.msg, "test:1:3: the value '1e999' is beyond the range of a double");
    expo_collect_str("m 0x1p3\n", WC_EXPO_TEXT_004, &g);
    cr_assert_str_eq(g.err.msg, "test:1:3: expected the value (a number, NaN, +Inf or -Inf), got "
                                "'0x1p3'");
}

Test(expo_parse, timestamps_of_both_formats)
{
    expo_got g;
    expo_collect_str("m 1 -0\nn 1 9223372036854775807\no 1 -9223372036854775808\n",
                     WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.r[1].ts_ms, INT64_MAX);
    cr_assert_eq(g.r[2].ts_ms, INT64_MIN);
    expo_got_free(&g);
    expo_collect_str("m 1 9223372036854775808\n", WC_EXPO_TEXT_004, &g);
    cr_assert_str_eq(g.err.msg, "test:1:5: out-of-range timestamp '9223372036854775808' (0.0.4: "
                                "integer milliseconds)");
    expo_collect_str("m 1 1.5\n", WC_EXPO_TEXT_004, &g);
    cr_assert_str_eq(g.err.msg, "test:1:5: bad timestamp '1.5' (0.0.4: integer milliseconds)");
    expo_collect_str("m 1 2 3\n", WC_EXPO_TEXT_004, &g);
    cr_assert_str_eq(g.err.msg, "test:1:7: unexpected text after the timestamp");
    expo_collect_str("a 1 0.0005\nb 1 -1.5\nc 1 1e3\nd 1 1520879607.7899999\n# EOF\n",
                     WC_EXPO_OPENMETRICS, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.r[0].ts_ms, 0, "below a millisecond: truncated");
    cr_assert_eq(g.r[1].ts_ms, -1500);
    cr_assert_eq(g.r[2].ts_ms, 1000000);
    cr_assert_eq(g.r[3].ts_ms, 1520879607789LL, "decimal digits, no float rounding");
    expo_got_free(&g);
    expo_collect_str("a 1 NaN\n# EOF\n", WC_EXPO_OPENMETRICS, &g);
    cr_assert_str_eq(g.err.msg, "test:1:5: bad timestamp 'NaN' (OpenMetrics: seconds)");
    expo_collect_str("a 1 1e30\n# EOF\n", WC_EXPO_OPENMETRICS, &g);
    cr_assert_str_eq(g.err.msg, "test:1:5: out-of-range timestamp '1e30' (OpenMetrics: seconds)");
}

/* ---- the two formats ------------------------------------------------------ */

/* Parses text in fmt; asserts the error message. */
static void expect_error(const char *text, wc_expo_format fmt, const char *msg)
{
    expo_got g;
    expo_collect_str(text, fmt, &g);
    cr_assert_eq(g.rc, -EINVAL, "%s: rc %d", text, g.rc);
    cr_assert_str_eq(g.err.msg, msg, "for %s: %s", text, g.err.msg);
    expo_got_free(&g);
}

Test(expo_parse, text_format_is_lenient_where_its_spec_is)
{
    expo_got g;
    expo_collect_str("\n  # a comment\n#HELP not metadata\n# HELP\n\t m { a = \"x\" , b=\"y\", } "
                     "1  \nn{a=\"x\"}2\n# TYPE m gauge   \nm{} 3\n",
                     WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.n, 3);
    cr_assert_str_eq(g.r[0].labels, "{a=\"x\",b=\"y\"}");
    cr_assert_eq(g.r[0].line, 5);
    cr_assert_eq(g.r[0].type, WC_EXPO_UNTYPED);
    cr_assert_float_eq(g.r[1].value, 2, 0);
    cr_assert_eq(g.r[2].type, WC_EXPO_GAUGE);
    cr_assert_eq(g.st.lines, 8);
    expo_got_free(&g);
}

Test(expo_parse, openmetrics_is_strict_as_its_abnf)
{
    const wc_expo_format om = WC_EXPO_OPENMETRICS;
    expect_error("a 1\n\n# EOF\n", om, "test:2:1: an empty line (OpenMetrics has none)");
    expect_error("# a comment\n# EOF\n", om,
                 "test:1:1: OpenMetrics allows no comments: a '#' line is '# HELP', '# TYPE', "
                 "'# UNIT' or '# EOF'");
    expect_error(" a 1\n# EOF\n", om, "test:1:1: expected a metric name, got ' a 1'");
    expect_error("a  1\n# EOF\n", om,
                 "test:1:3: expected the value (a number, NaN, +Inf or -Inf), got ''");
    expect_error("a\t1\n# EOF\n", om, "test:1:2: expected one space, then the value");
    expect_error("a{b=\"c\",} 1\n# EOF\n", om,
                 "test:1:8: a comma before '}' (OpenMetrics allows none)");
    expect_error("a{b=\"c\", d=\"e\"} 1\n# EOF\n", om,
                 "test:1:9: expected a label name, got ' d=\"e\"} 1'");
    expect_error("{\"a.b\"} 1\n# EOF\n", om, "test:1:2: expected a label name, got '\"a.b\"} 1'");
    expect_error("a 1\n# EOF\nb 2\n", om, "test:3:1: data after '# EOF'");
    expect_error("a 1\n# EOF\n\n", om, "test:3:1: data after '# EOF'");
    expect_error("a 1 \n# EOF\n", om, "test:1:5: expected one space, then a timestamp or an "
                                      "exemplar");
    expect_error("a 1 # {x=\"y\"}\n# EOF\n", om,
                 "test:1:14: expected one space and the exemplar's value");
    expect_error("a 1 # x\n# EOF\n", om, "test:1:5: expected a timestamp or an exemplar ' # {...}'");
    expect_error("# TYPE a untyped\n# EOF\n", om,
                 "test:1:10: unknown metric type 'untyped' (OpenMetrics has counter, gauge, "
                 "histogram, gaugehistogram, stateset, info, summary, unknown)");
    expect_error("# HELP a\n# EOF\n", om, "test:1:9: expected one space after the metric name of "
                                          "# HELP");
    expect_error("# UNIT a_seconds bytes\n# EOF\n", om,
                 "test:1:18: unit 'bytes' is not the suffix of the family name 'a_seconds'");
    expect_error("# EOF x\n", om, "test:1:1: OpenMetrics allows no comments: a '#' line is '# "
                                  "HELP', '# TYPE', '# UNIT' or '# EOF'");
    expo_got g;
    expo_collect_str("# TYPE a_seconds counter\n# UNIT a_seconds seconds\n# HELP a_seconds \n"
                     "a_seconds_total{} 1 # {} 0.5\n# EOF",
                     om, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.r[0].type, WC_EXPO_COUNTER);
    cr_assert_str_eq(g.r[0].family, "a_seconds");
    expo_got_free(&g);
}

Test(expo_parse, metadata_lines)
{
    const wc_expo_format t = WC_EXPO_TEXT_004;
    expect_error("# TYPE m counters\n", t,
                 "test:1:10: unknown metric type 'counters' (0.0.4 has counter, gauge, histogram, "
                 "summary, untyped)");
    expect_error("# TYPE m info\n", t, "test:1:10: unknown metric type 'info' (0.0.4 has counter, "
                                       "gauge, histogram, summary, untyped)");
    expect_error("# TYPE\tm\n", t, "test:1:9: unknown metric type '' (0.0.4 has counter, gauge, "
                                   "histogram, summary, untyped)");
    expect_error("# HELP \n", t, "test:1:8: expected a metric name after # HELP, got ''");
    expect_error("# HELP m.x text\n", t, "test:1:9: unexpected '.' after the metric name of # HELP");
    expect_error("# HELP m \xff\n", t, "test:1:10: the HELP text is not valid UTF-8");
    /* families: the current one for its own name and its type's suffixes */
    expo_got g;
    expo_collect_str("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\nh_total 1\n"
                     "# HELP h Help after the type keeps it.\nh_sum 2\n# TYPE \"q.x\" summary\n"
                     "{\"q.x\",quantile=\"0.5\"} 3\n",
                     t, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_str_eq(g.r[0].family, "h");
    cr_assert_eq(g.r[1].type, WC_EXPO_HISTOGRAM);
    cr_assert_str_eq(g.r[2].family, "h_total", "_total is no histogram suffix");
    cr_assert_eq(g.r[2].type, WC_EXPO_UNTYPED);
    cr_assert_eq(g.r[3].type, WC_EXPO_HISTOGRAM);
    cr_assert_str_eq(g.r[4].family, "q.x");
    cr_assert_eq(g.r[4].type, WC_EXPO_SUMMARY);
    expo_got_free(&g);
    expo_collect_str("# TYPE i info\ni_info{v=\"1\"} 1\n# TYPE s stateset\ns{s=\"a\"} 1\n"
                     "# TYPE gh gaugehistogram\ngh_gsum 1\n# TYPE u unknown\nu 1\n# EOF\n",
                     WC_EXPO_OPENMETRICS, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.r[0].type, WC_EXPO_INFO);
    cr_assert_eq(g.r[1].type, WC_EXPO_STATESET);
    cr_assert_eq(g.r[2].type, WC_EXPO_GAUGEHISTOGRAM);
    cr_assert_eq(g.r[3].type, WC_EXPO_UNKNOWN);
    expo_got_free(&g);
}

Test(expo_parse, label_set_errors)
{
    const wc_expo_format t = WC_EXPO_TEXT_004;
    expect_error("m{a=\"1\",a=\"2\"} 1\n", t, "test:1:9: label 'a' given twice");
    expect_error("m{b=\"1\",a=\"2\",b=\"3\"} 1\n", t, "test:1:15: label 'b' given twice");
    expect_error("m{a \"1\"} 1\n", t, "test:1:5: expected '=' after label name 'a'");
    expect_error("m{a=1} 1\n", t, "test:1:5: expected a quoted value for label 'a'");
    expect_error("m{a=\"1\" b=\"2\"} 1\n", t, "test:1:9: expected ',' or '}' after a label, got 'b'");
    expect_error("m{a=\"1\n", t, "test:1:5: the value of label 'a': no closing quote on this "
                                 "line");
    expect_error("m{a=\"1\"\n", t, "test:1:2: the label set has no closing '}' on this line");
    expect_error("m{a=\"1\"", t, "test:1:8: truncated: the body ends in the middle of line 1 (no "
                                 "line feed after it)");
    expect_error("m{a=\"1\\\n", t, "test:1:7: the value of label 'a': a backslash ends the line");
    expect_error("m{a=\"1\" 1\n", t, "test:1:9: expected ',' or '}' after a label, got '1'");
    expect_error("m{a=\"1\",\n", t, "test:1:2: the label set has no closing '}' on this line");
    expect_error("m{a=\"\xc3\x28\"} 1\n", t, "test:1:6: the value of label 'a' is not valid UTF-8 "
                                             "(byte 0xc3)");
    expect_error("m{a=\"\xed\xa0\x80\"} 1\n", t, "test:1:6: the value of label 'a' is not valid "
                                                 "UTF-8 (byte 0xed)");
    expect_error("m{9a=\"1\"} 1\n", t, "test:1:3: expected a label name, got '9a=\"1\"} 1'");
    expect_error("m-1 1\n", t, "test:1:2: unexpected '-' in the metric name");
    expect_error("{a=\"1\"} 1\n", t, "test:1:1: the sample has no metric name");
    expect_error("m{\"x\",\"y\"} 1\n", t, "test:1:3: a second metric name in the label set");
    expect_error("m\n", t, "test:1:2: expected the value (a number, NaN, +Inf or -Inf), got ''");
    /* a NUL byte in a value: labels are C strings */
    expo_got g;
    expo_collect("m{a=\"x\0y\"} 1\n", 13, t, "nul", NULL, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert_str_eq(g.err.msg, "nul:1:7: the value of label 'a' holds a NUL byte");
}

Test(expo_parse, label_count_cap)
{
    char text[4096] = "m{";
    for (int i = 0; i < 65; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "l%02d=\"v\",", i);
    strcat(text, "} 1\n");
    expo_got g;
    expo_collect_str(text, WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert_str_eq(g.err.msg, "test:1:515: more than 64 labels on one sample");
    wc_expo_limits lim = {.max_labels = 65};
    expo_collect(text, strlen(text), WC_EXPO_TEXT_004, "test", &lim, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.r[0].nlabels, 65);
    expo_got_free(&g);
}

static int stop_at_two(void *ctx, const wc_expo_sample *s)
{
    (void)s;
    return ++*(int *)ctx == 2 ? 42 : 0;
}

Test(expo_parse, callback_stops_the_parse)
{
    int n = 0;
    wc_expo_stats st;
    wc_error err = {{0}};
    const char *text = "a 1\nb 2\nc 3\n";
    cr_assert_eq(wc_expo_parse(text, strlen(text), WC_EXPO_TEXT_004, "t", NULL, stop_at_two, &n,
                               &st, &err),
                 42);
    cr_assert_eq(n, 2);
    cr_assert_eq(st.samples, 2);
    cr_assert_str_empty(err.msg, "the callback's own code, no message");
    /* no callback and no stats: counts nothing, checks everything */
    cr_assert_eq(wc_expo_parse(text, strlen(text), WC_EXPO_TEXT_004, NULL, NULL, NULL, NULL, NULL,
                               NULL),
                 0);
    cr_assert_eq(wc_expo_parse("x\n", 2, WC_EXPO_TEXT_004, NULL, NULL, NULL, NULL, NULL, &err),
                 -EINVAL);
    cr_assert_str_eq(err.msg, "exposition:1:2: expected the value (a number, NaN, +Inf or -Inf), "
                              "got ''");
}

Test(expo_parse, canonical_labels)
{
    wc_expo_label l[] = {{"zone", "package"}, {"a", "x\"y\\z\nw"}, {"empty", ""},
                         {"my.name", "v"},    {"b", "2"}};
    char buf[128];
    int n = wc_expo_labels_canonical(l, 5, buf, sizeof buf);
    const char *want = "{a=\"x\\\"y\\\\z\\nw\",b=\"2\",\"my.name\"=\"v\",zone=\"package\"}";
    cr_assert_str_eq(buf, want);
    cr_assert_eq(n, (int)strlen(want));
    cr_assert_eq(wc_expo_labels_canonical(l, 5, buf, 10), -ENOSPC);
    cr_assert_str_eq(buf, "{a=\"x\\\"y\\", "cap - 1 bytes, cut anywhere");
    cr_assert_eq(wc_expo_labels_canonical(l, 0, buf, sizeof buf), 2);
    cr_assert_str_eq(buf, "{}");
    cr_assert_eq(wc_expo_labels_canonical(l, 0, buf, 2), -ENOSPC);
    cr_assert_str_eq(buf, "{");
    cr_assert_eq(wc_expo_labels_canonical(l, 0, NULL, 0), -ENOSPC);
}

Test(expo_parse, format_of_content_type)
{
    cr_assert_eq(wc_expo_format_of("application/openmetrics-text; version=1.0.0; charset=utf-8"),
                 WC_EXPO_OPENMETRICS);
    cr_assert_eq(wc_expo_format_of("Application/OpenMetrics-Text"), WC_EXPO_OPENMETRICS);
    cr_assert_eq(wc_expo_format_of("text/plain; version=0.0.4; charset=utf-8"), WC_EXPO_TEXT_004);
    cr_assert_eq(wc_expo_format_of("application/openmetrics-textual"), WC_EXPO_TEXT_004);
    cr_assert_eq(wc_expo_format_of(""), WC_EXPO_TEXT_004);
    cr_assert_eq(wc_expo_format_of(NULL), WC_EXPO_TEXT_004);
}

/* Samples "m{i="k"} v" of random decimals: every value as strtod reads it. */
static int strtod_cb(void *ctx, const wc_expo_sample *s)
{
    char **vals = ctx;
    char *end;
    double want = strtod(vals[atoi(s->labels[0].value)], &end);
    cr_assert(s->value == want || (isnan(s->value) && isnan(want)), "%s: %.17g, strtod %.17g",
              vals[atoi(s->labels[0].value)], s->value, want);
    return 0;
}

/* A random decimal of up to 21 digits, a point anywhere, an exponent. */
static void random_decimal(char *out, size_t cap, unsigned *seed)
{
    int digits = 1 + rand_r(seed) % 21, point = rand_r(seed) % (digits + 1), n = 0;
    if (rand_r(seed) % 4 == 0)
        out[n++] = '-';
    for (int i = 0; i < digits; i++) {
        if (i == point && i > 0)
            out[n++] = '.';
        out[n++] = (char)('0' + rand_r(seed) % 10);
    }
    if (rand_r(seed) % 2)
        n += snprintf(out + n, cap - (size_t)n, "e%d", rand_r(seed) % 61 - 30);
    out[n] = '\0';
}

Test(expo_parse, values_are_correctly_rounded, .timeout = 60)
{
    enum { N = 200000 };
    static const char *const fixed[] = {"9007199254740993", "9007199254740995",
                                        "1.2345678901234567", "0.1000000000000000055511151231257827",
                                        "486.63599999999997", "1e23", "8.98846567431158e307",
                                        "2.4703282292062328e-324"};
    char **vals = calloc(N, sizeof *vals);
    size_t cap = (size_t)N * 64, len = 0;
    char *body = malloc(cap);
    cr_assert(vals && body);
    unsigned seed = 20261201;
    for (int i = 0; i < N; i++) {
        char v[48];
        random_decimal(v, sizeof v, &seed);
        if (i < 8) /* halfway cases, 17-digit values as Go prints them, extremes */
            snprintf(v, sizeof v, "%s", fixed[i]);
        vals[i] = strdup(v);
        len += (size_t)snprintf(body + len, cap - len, "m{i=\"%d\"} %s\n", i, v);
    }
    wc_expo_stats st;
    wc_error err = {{0}};
    wc_expo_limits lim = {.max_series = N};
    cr_assert_eq(wc_expo_parse(body, len, WC_EXPO_TEXT_004, "rnd", &lim, strtod_cb, vals, &st,
                               &err),
                 0, "%s", err.msg);
    cr_assert_eq(st.samples, N);
    for (int i = 0; i < N; i++)
        free(vals[i]);
    free(vals);
    free(body);
}
