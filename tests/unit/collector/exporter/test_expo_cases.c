/*
 * test_expo_cases.c — the exposition parser (collector/exporter/expo_parse.c)
 * on the project's own fixtures, tests/fixtures/exposition/ (its README.md
 * says what each stands for): one exposition per Kepler catalogue version
 * (v0.10.2, v0.11.4, main as OpenMetrics, legacy v0.7), escaping, garbage,
 * truncated bodies, NaN/Inf, duplicates, timestamps in both formats, CRLF;
 * and bodies generated here because nobody writes them by hand: a label
 * value over the cap, 100,000+ series (the series cap), a 10 MB body, the
 * body cap, the empty body. Values are asserted, not only "no crash".
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/collector/exporter/expo_collect.h"
#include "tests/unit/support/test_support.h"

static void parse_own(const char *rel, wc_expo_format fmt, expo_got *g)
{
    char path[256];
    snprintf(path, sizeof path, "exposition/%s", rel);
    expo_collect_file(wc_own_fixture(path), fmt, g);
}

/* The value of the sample (name, labels), which must exist. */
static double value_of(const expo_got *g, const char *name, const char *labels)
{
    const expo_rec *r = expo_find(g, name, labels);
    cr_assert_not_null(r, "no sample %s%s", name, labels);
    return r->value;
}

#define PKG010 "/sys/class/powercap/intel-rapl:0"
#define NGINX_CID "5f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff"

Test(expo_cases, kepler_v0_10_2_every_sample)
{
    expo_got g;
    parse_own("kepler-v0.10.2.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.st.samples, 31);
    cr_assert_eq(g.n, 31);
    cr_assert_eq(g.st.lines, 68);
    cr_assert_eq(g.st.duplicates, 0);
    cr_assert_str_empty(g.st.warning);
    cr_assert_float_eq(value_of(&g, "kepler_node_cpu_joules_total",
                                "{node_name=\"worker-1\",path=\"" PKG010 "\",zone=\"package\"}"),
                       99999.75, 0);
    cr_assert_float_eq(value_of(&g, "kepler_node_cpu_usage_ratio", "{node_name=\"worker-1\"}"),
                       0.29411764705882354, 0);
    /* an empty label value is no label: vm_id="" is left out */
    const expo_rec *r = expo_find(
        &g, "kepler_process_cpu_joules_total",
        "{comm=\"sort\",container_id=\"\",exe=\"/usr/bin/sort\",node_name=\"worker-1\",pid=\"31337\","
        "state=\"terminated\",type=\"regular\",vm_id=\"\",zone=\"package\"}");
    cr_assert_null(r);
    r = expo_find(&g, "kepler_process_cpu_joules_total",
                  "{comm=\"sort\",exe=\"/usr/bin/sort\",node_name=\"worker-1\",pid=\"31337\","
                  "state=\"terminated\",type=\"regular\",zone=\"package\"}");
    cr_assert_not_null(r);
    cr_assert_float_eq(r->value, 88.125, 0);
    cr_assert_eq(r->nlabels, 9, "the labels as written: %zu", r->nlabels);
    cr_assert_str_eq(r->family, "kepler_process_cpu_joules_total");
    cr_assert_eq(r->type, WC_EXPO_COUNTER);
    cr_assert_eq(r->line, 41);
    cr_assert_not(r->has_ts);
    r = expo_first(&g, "kepler_node_cpu_info");
    cr_assert_eq(r->type, WC_EXPO_GAUGE);
    cr_assert_str_eq(r->labels, "{core_id=\"0\",model_name=\"Intel(R) Xeon(R) Gold 6338N CPU @ "
                                "2.20GHz\",physical_id=\"0\",processor=\"0\",vendor_id="
                                "\"GenuineIntel\"}");
    expo_got_free(&g);
}

Test(expo_cases, kepler_v0_11_4_every_sample)
{
    expo_got g;
    parse_own("kepler-v0.11.4.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.st.samples, 27);
    cr_assert_float_eq(value_of(&g, "kepler_node_cpu_joules_total",
                                "{node_name=\"gpu-node-7\",path=\"aggregated-package\","
                                "zone=\"package\"}"),
                       524287.999, 0);
    cr_assert_float_eq(value_of(&g, "kepler_node_gpu_joules_total",
                                "{gpu=\"0\",gpu_name=\"NVIDIA A100-SXM4-40GB\",gpu_uuid=\"GPU-5f8a2c1e-"
                                "9b3d-4e7f-a1c2-d3e4f5a6b7c8\",node_name=\"gpu-node-7\",vendor="
                                "\"nvidia\"}"),
                       75000, 0);
    cr_assert_float_eq(value_of(&g, "kepler_platform_watts",
                                "{bmc_id=\"bmc-gpu-node-7\",chassis_id=\"1U\",node_name=\"gpu-node-7\","
                                "source=\"redfish\",source_id=\"0\",source_name=\"System Power "
                                "Control\",source_type=\"PowerControl\"}"),
                       812, 0);
    const expo_rec *r = expo_first(&g, "kepler_build_info");
    cr_assert_str_eq(r->labels, "{arch=\"amd64\",goversion=\"go1.24.6\",revision=\"v0.11.4-0-"
                                "g7a1b2c3\",version=\"v0.11.4\"}");
    expo_got_free(&g);
}

Test(expo_cases, kepler_main_as_openmetrics)
{
    expo_got g;
    parse_own("kepler-main.om", WC_EXPO_OPENMETRICS, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert(g.st.saw_eof);
    cr_assert_eq(g.st.samples, 18);
    const expo_rec *r = expo_find(&g, "kepler_node_cpu_idle_joules_total",
                                  "{node_name=\"devbox\",path=\"/sys/class/powercap/intel-rapl/"
                                  "energy_package\",zone=\"package\"}");
    cr_assert_not_null(r);
    cr_assert_float_eq(r->value, 600.0, 0);
    cr_assert_str_eq(r->family, "kepler_node_cpu_idle_joules", "OpenMetrics counter family");
    cr_assert_eq(r->type, WC_EXPO_COUNTER);
    r = expo_first(&g, "kepler_container_cpu_seconds_total");
    cr_assert_float_eq(r->value, 31.25, 0);
    cr_assert_str_eq(r->family, "kepler_container_cpu_seconds");
    r = expo_first(&g, "kepler_node_cpu_usage_ratio");
    cr_assert_str_eq(r->family, "kepler_node_cpu_usage_ratio");
    cr_assert_eq(r->type, WC_EXPO_GAUGE);
    /* read as the 0.0.4 text, "# EOF" is a comment and the body is fine too */
    expo_got t;
    parse_own("kepler-main.om", WC_EXPO_TEXT_004, &t);
    cr_assert_eq(t.rc, 0, "%s", t.err.msg);
    cr_assert_eq(t.st.samples, 18);
    cr_assert_not(t.st.saw_eof);
    expo_got_free(&t);
    expo_got_free(&g);
}

Test(expo_cases, kepler_v0_7_legacy)
{
    expo_got g;
    parse_own("kepler-v0.7.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.st.samples, 24);
    cr_assert_float_eq(value_of(&g, "kepler_node_package_joules_total",
                                "{instance=\"legacy-node-3\",mode=\"idle\",package=\"0\","
                                "source=\"rapl-sysfs\"}"),
                       55646.229, 0);
    cr_assert_float_eq(value_of(&g, "kepler_node_platform_joules_total",
                                "{instance=\"legacy-node-3\",mode=\"idle\",package=\"0\","
                                "source=\"trained_power_model\"}"),
                       98765, 0);
    cr_assert_float_eq(value_of(&g, "kepler_vm_cpu_cycles_total",
                                "{source=\"bpf\",vm_id=\"machine-qemu-1-ci\"}"),
                       1301305204, 0);
    expo_got_free(&g);
}

Test(expo_cases, escaping_and_utf8)
{
    expo_got g;
    parse_own("escaping.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.n, 5);
    /* canonical text: sorted by name, escaped again as written */
    const expo_rec *r = expo_find(&g, "esc_demo",
                                  "{error=\"Cannot find file:\\n\\\"FILE.TXT\\\"\","
                                  "path=\"C:\\\\DIR\\\\FILE.TXT\"}");
    cr_assert_not_null(r);
    cr_assert_float_eq(r->value, 1458255915.0, 0);
    cr_assert_eq(r->type, WC_EXPO_GAUGE);
    /* \a and \t are no escapes: the backslash stays; a raw tab is a tab */
    r = expo_find(&g, "esc_demo",
                  "{error=\"bell \\\\a and tab \\\\t kept as written, raw\ttab\",path=\"plain\"}");
    cr_assert_not_null(r, "got %s", g.r[1].labels);
    r = expo_first(&g, "kepler_process_cpu_joules_total");
    cr_assert_str_eq(r->fact.name, "café-👩‍💻");
    cr_assert_str_eq(r->fact.node, "wörker-1");
    cr_assert(strstr(r->labels, "exe=\"/opt/ünïcödé/bin/app \\\"quoted\\\"\""));
    r = expo_first(&g, "kepler_pod_cpu_joules_total");
    cr_assert_str_eq(r->fact.name, "名前-pod");
    cr_assert_str_eq(r->fact.ns, "名前空間");
    r = expo_first(&g, "my.dotted.metric");
    cr_assert_not_null(r, "the quoted UTF-8 metric name");
    cr_assert_str_eq(r->labels, "{\"error.message\"=\"Not Found\"}");
    cr_assert_float_eq(r->value, 5, 0);
    expo_got_free(&g);
}

/* The labels a sample really had, unescaped (not the canonical text). */
static int raw_labels_cb(void *ctx, const wc_expo_sample *s)
{
    if (strcmp(s->name, "esc_demo") || s->value != 1458255915.0)
        return 0;
    cr_assert_eq(s->nlabels, 2);
    cr_assert_str_eq(s->labels[0].name, "path", "order kept as written");
    cr_assert_str_eq(s->labels[0].value, "C:\\DIR\\FILE.TXT");
    cr_assert_str_eq(s->labels[1].value, "Cannot find file:\n\"FILE.TXT\"");
    (*(int *)ctx)++;
    return 0;
}

Test(expo_cases, escaped_values_reach_the_callback_unescaped)
{
    size_t n;
    char *text = wc_test_slurp(wc_own_fixture("exposition/escaping.prom"), &n);
    int seen = 0;
    wc_error err = {{0}};
    cr_assert_eq(wc_expo_parse(text, n, WC_EXPO_TEXT_004, "escaping.prom", NULL, raw_labels_cb,
                               &seen, NULL, &err),
                 0, "%s", err.msg);
    cr_assert_eq(seen, 1);
    free(text);
}

Test(expo_cases, garbage_is_an_error_naming_line_and_column)
{
    expo_got g;
    parse_own("garbage-html.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert_str_eq(g.err.msg,
                     "garbage-html.prom:2:1: expected a metric name, got '<!DOCTYPE html>'");
    cr_assert_eq(g.n, 0);
    expo_got_free(&g);
    parse_own("garbage-json.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert_str_eq(g.err.msg, "garbage-json.prom:2:10: expected '=' after label name 'status'");
    expo_got_free(&g);
    parse_own("garbage-json.prom", WC_EXPO_OPENMETRICS, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert(strstr(g.err.msg, "garbage-json.prom:1:1: OpenMetrics allows no comments"),
              "%s", g.err.msg);
    expo_got_free(&g);
}

Test(expo_cases, truncated_mid_line_passes_the_whole_lines_only)
{
    expo_got g;
    parse_own("truncated-mid-line.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert_str_eq(g.err.msg, "truncated-mid-line.prom:4:101: truncated: the body ends in the "
                                "middle of line 4 (no line feed after it)");
    cr_assert_eq(g.n, 2, "the cut line is not read as a sample");
    cr_assert_float_eq(g.r[1].value, 4422, 0);
    expo_got_free(&g);
}

Test(expo_cases, openmetrics_without_eof_is_truncated)
{
    expo_got g;
    parse_own("truncated-no-eof.om", WC_EXPO_OPENMETRICS, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert_str_eq(g.err.msg, "truncated-no-eof.om:5:1: truncated: the OpenMetrics body has no "
                                "'# EOF' line");
    cr_assert_eq(g.n, 2);
    cr_assert_not(g.st.saw_eof);
    expo_got_free(&g);
}

Test(expo_cases, nan_and_infinities)
{
    expo_got g;
    parse_own("nan-inf.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.n, 12);
    cr_assert_eq(g.st.nonfinite, 6);
    cr_assert(isnan(g.r[0].value));
    cr_assert(isinf(value_of(&g, "special", "{v=\"plus-inf\"}")) &&
              value_of(&g, "special", "{v=\"plus-inf\"}") > 0);
    cr_assert(value_of(&g, "special", "{v=\"minus-inf\"}") == -INFINITY);
    cr_assert(value_of(&g, "special", "{v=\"inf\"}") == INFINITY);
    cr_assert(value_of(&g, "special", "{v=\"Infinity\"}") == -INFINITY);
    cr_assert(isnan(value_of(&g, "special", "{v=\"nan\"}")));
    double z = value_of(&g, "special", "{v=\"neg-zero\"}");
    cr_assert(z == 0 && signbit(z));
    cr_assert_eq(value_of(&g, "special", "{v=\"exp\"}"), 1.5e-3);
    cr_assert_eq(value_of(&g, "special", "{v=\"max\"}"), 1.7976931348623157e308);
    cr_assert_eq(value_of(&g, "special", "{v=\"min\"}"), 4.9e-324);
    cr_assert_eq(value_of(&g, "special", "{v=\"dot\"}"), 0.5);
    cr_assert_eq(value_of(&g, "special", "{v=\"trailing-dot\"}"), 5.0);
    expo_got_free(&g);
}

Test(expo_cases, duplicates_counted_first_kept)
{
    expo_got g;
    parse_own("duplicates.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.n, 3);
    cr_assert_eq(g.st.duplicates, 3);
    cr_assert_eq(g.st.samples, 3);
    cr_assert_float_eq(g.r[0].value, 42.5, 0, "the first is kept");
    cr_assert_float_eq(g.r[1].value, 4.75, 0);
    cr_assert_float_eq(g.r[2].value, 1.5, 0);
    cr_assert_str_eq(g.st.warning, "duplicates.prom:3: 3 samples repeat a series (same name and "
                                   "labels; the first kept), the first of kepler_node_cpu_watts");
    expo_got_free(&g);
}

Test(expo_cases, timestamps_in_milliseconds)
{
    expo_got g;
    parse_own("timestamps.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.n, 4);
    cr_assert(g.r[0].has_ts);
    cr_assert_eq(g.r[0].ts_ms, 1395066363000LL);
    cr_assert_eq(g.r[1].ts_ms, 1395066363000LL);
    cr_assert_float_eq(g.r[1].value, 3, 0);
    cr_assert_eq(g.r[2].ts_ms, -3982045LL);
    cr_assert(isinf(g.r[2].value));
    cr_assert_not(g.r[3].has_ts);
    cr_assert_float_eq(g.r[3].value, 12.47, 0);
    expo_got_free(&g);
}

Test(expo_cases, timestamps_in_seconds_points_and_exemplars)
{
    expo_got g;
    parse_own("timestamps.om", WC_EXPO_OPENMETRICS, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.n, 8);
    const expo_rec *r = expo_first(&g, "foo_seconds_total");
    cr_assert_eq(r->ts_ms, 1520879607789LL, "the exemplar's value and timestamp are ignored");
    cr_assert_float_eq(r->value, 17, 0);
    cr_assert_str_eq(r->family, "foo_seconds");
    r = expo_first(&g, "foo_seconds_created");
    cr_assert_str_eq(r->family, "foo_seconds");
    cr_assert_not(r->has_ts);
    cr_assert_float_eq(r->value, 1520430000.123, 0);
    /* g: two points (ts 123 s and 123.456789 s), the third repeats the second's ms */
    cr_assert_eq(g.r[2].ts_ms, 123000);
    cr_assert_eq(g.r[3].ts_ms, 123456);
    cr_assert_float_eq(g.r[3].value, 18, 0);
    cr_assert_eq(g.st.duplicates, 1);
    r = expo_find(&g, "h_bucket", "{le=\"0.1\"}");
    cr_assert_float_eq(r->value, 8, 0);
    cr_assert_eq(r->type, WC_EXPO_HISTOGRAM);
    cr_assert_str_eq(expo_first(&g, "h_sum")->family, "h");
    expo_got_free(&g);
}

Test(expo_cases, crlf_is_refused_naming_it)
{
    expo_got g;
    parse_own("crlf.prom", WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert(strstr(g.err.msg, "crlf.prom:1:109: a carriage return ends the line: CRLF line "
                                "endings"),
              "%s", g.err.msg);
    cr_assert_eq(g.n, 0);
    expo_got_free(&g);
    parse_own("crlf.prom", WC_EXPO_OPENMETRICS, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert(strstr(g.err.msg, "CRLF"), "%s", g.err.msg);
    expo_got_free(&g);
}

Test(expo_cases, empty_body)
{
    expo_got g;
    expo_collect("", 0, WC_EXPO_TEXT_004, "empty", NULL, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.st.samples, 0);
    cr_assert_eq(g.st.lines, 0);
    expo_collect("", 0, WC_EXPO_OPENMETRICS, "empty", NULL, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert_str_eq(g.err.msg, "empty:1:1: truncated: the OpenMetrics body has no '# EOF' line");
    expo_collect("# EOF", 5, WC_EXPO_OPENMETRICS, "eof-only", NULL, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert(g.st.saw_eof);
}

/* ---- generated bodies --------------------------------------------------- */

typedef struct gen {
    char *buf;
    size_t len, cap;
} gen;

static void gen_put(gen *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->buf = realloc(b->buf, b->cap);
        cr_assert_not_null(b->buf);
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
}

static void gen_line(gen *b, const char *line)
{
    gen_put(b, line, strlen(line));
}

/* One sample line with a label value of n bytes of 'x'. */
static gen label_of(size_t n)
{
    gen b = {0};
    gen_line(&b, "kepler_process_cpu_joules_total{comm=\"");
    char *x = malloc(n);
    cr_assert_not_null(x);
    memset(x, 'x', n);
    gen_put(&b, x, n);
    free(x);
    gen_line(&b, "\",pid=\"1\"} 1\n");
    return b;
}

Test(expo_cases, label_value_cap)
{
    expo_got g;
    gen b = label_of(4096);
    expo_collect(b.buf, b.len, WC_EXPO_TEXT_004, "big", NULL, &g);
    cr_assert_eq(g.rc, 0, "at the cap: %s", g.err.msg);
    cr_assert_eq(strlen(g.r[0].fact.name), 255, "the fact keeps a bounded copy");
    expo_got_free(&g);
    free(b.buf);
    b = label_of(4097);
    expo_collect(b.buf, b.len, WC_EXPO_TEXT_004, "big", NULL, &g);
    cr_assert_eq(g.rc, -EINVAL);
    cr_assert_str_eq(g.err.msg, "big:1:38: the value of label 'comm' is over the limit of 4096 "
                                "bytes");
    cr_assert_eq(g.n, 0);
    free(b.buf);
    /* a value of 1 MB with a raised cap */
    b = label_of(1 << 20);
    wc_expo_limits lim = {.max_label_value = 2 << 20};
    expo_collect(b.buf, b.len, WC_EXPO_TEXT_004, "big", &lim, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(strlen(g.r[0].labels), (1u << 20) + strlen("{comm=\"\",pid=\"1\"}"));
    expo_got_free(&g);
    free(b.buf);
}

typedef struct counter {
    size_t n;
    double sum;
    size_t last_line;
} counter;

static int count_cb(void *ctx, const wc_expo_sample *s)
{
    counter *c = ctx;
    c->n++;
    c->sum += s->value;
    c->last_line = s->line;
    return 0;
}

/* n process series of Kepler's shape, value i for series i. */
static gen many_series(size_t n)
{
    gen b = {0};
    char line[256];
    gen_line(&b, "# TYPE kepler_process_cpu_joules_total counter\n");
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(line, sizeof line,
                         "kepler_process_cpu_joules_total{comm=\"w\",container_id=\"\","
                         "node_name=\"n\",pid=\"%zu\",state=\"running\",zone=\"package\"} %zu\n",
                         i, i);
        gen_put(&b, line, (size_t)k);
    }
    return b;
}

Test(expo_cases, series_cap_drops_and_warns, .timeout = 60)
{
    gen b = many_series(100500);
    counter c = {0};
    wc_expo_stats st;
    wc_error err = {{0}};
    int rc = wc_expo_parse(b.buf, b.len, WC_EXPO_TEXT_004, "many", NULL, count_cb, &c, &st, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(c.n, 100000, "the default cap");
    cr_assert_eq(st.samples, 100000);
    cr_assert_eq(st.series_dropped, 500);
    cr_assert_eq(c.last_line, 100001, "the first 100,000 series are the ones kept");
    cr_assert_float_eq(c.sum, 99999.0 * 100000 / 2, 0);
    cr_assert_str_eq(st.warning, "many:100002: more than 100000 distinct series: 500 samples of "
                                 "further series dropped");
    /* a repeated series is still found as a duplicate when the cap is reached */
    gen_line(&b, "kepler_process_cpu_joules_total{comm=\"w\",container_id=\"\",node_name=\"n\","
                 "pid=\"7\",state=\"running\",zone=\"package\"} 1\n");
    memset(&c, 0, sizeof c);
    rc = wc_expo_parse(b.buf, b.len, WC_EXPO_TEXT_004, "many", NULL, count_cb, &c, &st, &err);
    cr_assert_eq(rc, 0);
    cr_assert_eq(st.duplicates, 1);
    cr_assert_eq(st.series_dropped, 500);
    /* a smaller cap */
    wc_expo_limits lim = {.max_series = 10};
    memset(&c, 0, sizeof c);
    rc = wc_expo_parse(b.buf, b.len, WC_EXPO_TEXT_004, "many", &lim, count_cb, &c, &st, &err);
    cr_assert_eq(rc, 0);
    cr_assert_eq(c.n, 10);
    cr_assert_eq(st.series_dropped, 100490);
    free(b.buf);
}

Test(expo_cases, ten_megabyte_body, .timeout = 60)
{
    gen b = many_series(90000);
    cr_assert_gt(b.len, 10u << 20, "%zu bytes", b.len);
    counter c = {0};
    wc_expo_stats st;
    wc_error err = {{0}};
    int rc = wc_expo_parse(b.buf, b.len, WC_EXPO_TEXT_004, "10mb", NULL, count_cb, &c, &st, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(c.n, 90000);
    cr_assert_eq(st.lines, 90001);
    cr_assert_float_eq(c.sum, 89999.0 * 90000 / 2, 0);
    cr_assert_str_empty(st.warning);
    /* the body cap */
    wc_expo_limits lim = {.max_body = 10u << 20};
    memset(&c, 0, sizeof c);
    rc = wc_expo_parse(b.buf, b.len, WC_EXPO_TEXT_004, "10mb", &lim, count_cb, &c, &st, &err);
    cr_assert_eq(rc, -EFBIG);
    cr_assert_eq(c.n, 0, "nothing is passed on from a body over the cap");
    char want[160];
    snprintf(want, sizeof want, "10mb: a body of %zu bytes is over the limit of 10485760 bytes",
             b.len);
    cr_assert_str_eq(err.msg, want);
    free(b.buf);
}
