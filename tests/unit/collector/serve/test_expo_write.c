/*
 * test_expo_write.c — the exposition writer of `wattcal serve`
 * (collector/serve/expo_write.c): names and label names checked, label
 * values and HELP escaped (backslash, quote, newline, invalid UTF-8), values
 * in Go's forms (NaN, ±Inf, the shortest round-trip decimal); and what it
 * writes read back by the project's own parser (collector/exporter/) with
 * the same labels and values.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "collector/serve/expo_write.h"
#include "tests/unit/collector/exporter/expo_collect.h"

Test(serve_expo_write, names)
{
    cr_assert(wc_expow_metric_name_ok("wattcal_node_cpu_watts"));
    cr_assert(wc_expow_metric_name_ok("a:b_c"));
    cr_assert(!wc_expow_metric_name_ok("9abc"));
    cr_assert(!wc_expow_metric_name_ok("a-b"));
    cr_assert(!wc_expow_metric_name_ok(""));
    cr_assert(wc_expow_label_name_ok("pod_id"));
    cr_assert(!wc_expow_label_name_ok("__name__"), "reserved prefix");
    cr_assert(!wc_expow_label_name_ok("a:b"), "no colon in a label name");
    wc_expow_buf b = {0};
    cr_assert_eq(wc_expow_sample(&b, "bad-name", NULL, 1), -EINVAL);
    const char *l[] = {"bad-label", "x", NULL};
    cr_assert_eq(wc_expow_sample(&b, "ok", l, 1), -EINVAL);
    cr_assert_eq(b.len, 0, "nothing written for a refused sample");
    wc_expow_buf_free(&b);
}

Test(serve_expo_write, values)
{
    char v[40];
    wc_expow_format_value(NAN, v, sizeof v);
    cr_assert_str_eq(v, "NaN");
    wc_expow_format_value(INFINITY, v, sizeof v);
    cr_assert_str_eq(v, "+Inf");
    wc_expow_format_value(-INFINITY, v, sizeof v);
    cr_assert_str_eq(v, "-Inf");
    wc_expow_format_value(0.1, v, sizeof v);
    cr_assert_str_eq(v, "0.1", "shortest form that reads back: %s", v);
    wc_expow_format_value(1e21, v, sizeof v);
    cr_assert_str_eq(v, "1e+21");
    wc_expow_format_value(18446744073709.551615, v, sizeof v);
    cr_assert_eq(strtod(v, NULL), 18446744073709.551615, "round trip of %s", v);
    wc_expow_format_value(0, v, sizeof v);
    cr_assert_str_eq(v, "0");
}

Test(serve_expo_write, escaping)
{
    wc_expow_buf b = {0};
    cr_assert_eq(wc_expow_family(&b, "m", "gauge", "a \\ help\nline"), 0);
    const char *l[] = {"comm", "a\"b\\c\nd", "bad", "x\xff" "y", "empty", NULL, NULL};
    cr_assert_eq(wc_expow_sample(&b, "m", l, 2.5), 0);
    cr_assert_str_eq(b.data, "# HELP m a \\\\ help\\nline\n# TYPE m gauge\n"
                             "m{comm=\"a\\\"b\\\\c\\nd\",bad=\"x\xEF\xBF\xBDy\",empty=\"\"} 2.5\n");
    wc_expow_buf_free(&b);
    cr_assert_eq(wc_expow_sample(&b, "bare", NULL, NAN), 0);
    cr_assert_str_eq(b.data, "bare NaN\n", "no braces without labels");
    wc_expow_buf_free(&b);
}

Test(serve_expo_write, read_back_by_the_parser)
{
    wc_expow_buf b = {0};
    wc_expow_family(&b, "wattcal_pod_cpu_watts", "gauge", "pods");
    const char *l1[] = {"pod_name", "we\"ird\\pod\nname", "zone", "package", NULL};
    const char *l2[] = {"pod_name", "plain", "zone", "dram", NULL};
    wc_expow_sample(&b, "wattcal_pod_cpu_watts", l1, 12.25);
    wc_expow_sample(&b, "wattcal_pod_cpu_watts", l2, -INFINITY);
    cr_assert_eq(b.failed, 0);
    expo_got g = {0};
    expo_collect_str(b.data, WC_EXPO_TEXT_004, &g);
    cr_assert_eq(g.rc, 0, "%s", g.err.msg);
    cr_assert_eq(g.n, 2);
    cr_assert_float_eq(g.r[0].value, 12.25, 0);
    cr_assert(isinf(g.r[1].value) && g.r[1].value < 0);
    cr_assert_not_null(strstr(g.r[0].labels, "package"));
    cr_assert_not_null(strstr(g.r[0].labels, "we\\\"ird\\\\pod\\nname"),
                       "the parser's canonical text keeps the escapes: %s", g.r[0].labels);
    expo_got_free(&g);
    wc_expow_buf_free(&b);
}
