/*
 * test_stat_table.c — the one table of accuracy statistics (stat_table.h)
 * and the gate's table of metrics built on it (validation.h): every row reads
 * the field it names, keys and tolerance names are unique, the JSON keys and
 * the --tolerance lists come out in their documented order, and every metric
 * of the gate parses back to itself.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "validator/stat_table.h"
#include "validator/validation.h"

static const double TRUTH[12] = {100, 120, 95, 150, 200, 180, 90, 5, 110, 130, 160, 140};
static const double SOURCE[12] = {98, 125, 97, 140, 210, 175, 92, 9, 105, 133, 150, 152};

static size_t rows(void)
{
    size_t n = 0;
    while (wc_stats[n].key)
        n++;
    return n;
}

Test(stat_table, rows_are_well_formed)
{
    size_t n = rows();
    cr_assert(n > 0 && n <= WC_STAT_MAX);
    const wc_stat *last_text = NULL;
    for (size_t i = 0; i < n; i++) {
        const wc_stat *s = &wc_stats[i];
        cr_assert(s->unit && (!strcmp(s->unit, "W") || !strcmp(s->unit, "%")), "%s: unit", s->key);
        size_t size = s->kind == WC_STAT_NUMBER ? sizeof(double) : sizeof(wc_ci);
        cr_assert(s->off + size <= sizeof(wc_accuracy));
        cr_assert_eq(s->kind == WC_STAT_RANGE, s->key_hi != NULL, "%s: a range has two keys", s->key);
        if (s->kind == WC_STAT_RANGE)
            cr_assert(s->off_hi + sizeof(wc_ci) <= sizeof(wc_accuracy));
        if (s->count_key)
            cr_assert(s->count_off + sizeof(size_t) <= sizeof(wc_accuracy));
        if (s->flags & (WC_STAT_IN_TEXT | WC_STAT_IN_PHASE))
            cr_assert(s->text_label, "%s: shown in the terminal without a label", s->key);
        if (s->flags & WC_STAT_IN_REPORT)
            cr_assert(s->doc_label, "%s: shown in the report without a label", s->key);
        if (s->flags & WC_STAT_SHOW_CI)
            cr_assert_eq(s->kind, WC_STAT_CI, "%s: only a wc_ci has an interval to show", s->key);
        if (s->flags & WC_STAT_IN_PHASE)
            cr_assert(s->text_width > 0, "%s: the per-phase table pads every column", s->key);
        if (s->flags & WC_STAT_IN_TEXT) {
            cr_assert(!last_text || last_text->text_width > 0, "only the last terminal column is unpadded");
            last_text = s;
        }
    }
}

/* Every key the JSON summary writes for one accuracy cell, in its order. */
Test(stat_table, json_keys_in_their_order)
{
    static const char *const want[] = {"bias_w", "bias_pct", "mae_w", "wape_pct", "rmse_w", "p95_abs_w",
                                       "mape_pct", "n_mape", "sd_diff_w", "loa_lo_w", "loa_hi_w"};
    const char *got[3 * WC_STAT_MAX];
    size_t k = 0;
    for (const wc_stat *s = wc_stats; s->key; s++) {
        got[k++] = s->key;
        if (s->key_hi)
            got[k++] = s->key_hi;
        if (s->count_key)
            got[k++] = s->count_key;
    }
    cr_assert_eq(k, sizeof want / sizeof *want);
    for (size_t i = 0; i < k; i++) {
        cr_assert_str_eq(got[i], want[i]);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(got[i], got[j], "key %s twice", got[i]);
    }
}

/* Each row reads the field its key names. */
Test(stat_table, rows_read_their_fields)
{
    wc_accuracy a;
    wc_boot_cfg cfg = {.replicates = 200, .seed = 1, .min_block = 1};
    cr_assert_eq(wc_accuracy_compute(SOURCE, TRUTH, 12, 10.0, &cfg, &a), 0);
    const struct {
        const char *key;
        const void *field;
    } named[] = {{"bias_w", &a.bias_w},       {"bias_pct", &a.bias_pct}, {"mae_w", &a.mae_w},
                 {"wape_pct", &a.wape_pct},   {"rmse_w", &a.rmse_w},     {"p95_abs_w", &a.p95_abs_w},
                 {"mape_pct", &a.mape_pct},   {"loa_lo_w", &a.loa_lo_w}, {"loa_hi_w", &a.loa_hi_w}};
    for (const wc_stat *s = wc_stats; s->key; s++) {
        if (s->kind == WC_STAT_NUMBER) {
            cr_assert_str_eq(s->key, "sd_diff_w");
            cr_assert_eq(wc_stat_number(s, &a), a.sd_diff_w);
            continue;
        }
        for (int hi = 0; hi <= (s->kind == WC_STAT_RANGE); hi++) {
            const char *key = hi ? s->key_hi : s->key;
            const void *want = NULL;
            for (size_t i = 0; i < sizeof named / sizeof *named; i++)
                if (!strcmp(named[i].key, key))
                    want = named[i].field;
            cr_assert_eq((const void *)wc_stat_ci(s, &a, hi), want, "%s", key);
        }
        if (s->count_key)
            cr_assert_eq(wc_stat_count(s, &a), a.n_mape);
    }
}

Test(stat_table, tolerance_lists_in_their_order)
{
    char buf[320];
    wc_tol_names(buf, sizeof buf, 0);
    cr_assert_str_eq(buf, "node, wape, mape, mae, rmse, p95, loa, gap, over, invariants, coverage,"
                          " class-bias, source, exporter-invariants");
    wc_tol_names(buf, sizeof buf, 1);
    cr_assert_str_eq(buf, "node=P% wape=P% mape=P% mae=W rmse=W p95=W loa=W\n"
                          "gap=P% over=P% invariants=N coverage=P% class-bias=P%\n"
                          "source=measured exporter-invariants=N");
    wc_tol_def d;
    cr_assert_eq(wc_tol_def_at(14, &d), -ENOENT);
}

/* Every metric of the gate parses back to itself, with its unit only. */
Test(stat_table, every_metric_parses_to_itself)
{
    wc_tol_def d, e;
    for (size_t i = 0; !wc_tol_def_at(i, &d); i++) {
        for (size_t j = 0; j < i; j++) {
            cr_assert_eq(wc_tol_def_at(j, &e), 0);
            cr_assert_str_neq(d.name, e.name, "metric %s twice", d.name);
        }
        cr_assert_eq(d.metric == WC_TOL_STAT, d.stat != NULL);
        if (d.stat) {
            cr_assert(d.stat->kind != WC_STAT_NUMBER, "%s: no interval to check", d.name);
            cr_assert_eq(d.stat->tol_rule == WC_STAT_TOL_LARGER, d.stat->kind == WC_STAT_RANGE);
            cr_assert(d.stat->tol_what);
        }
        char spec[64];
        snprintf(spec, sizeof spec, "%s=1%s", d.name, d.unit);
        if (d.metric == WC_TOL_SOURCE) /* a word, not a number: source=measured */
            snprintf(spec, sizeof spec, "source=measured");
        wc_tolerance t[WC_TOL_MAX];
        size_t n = 0;
        wc_error err = {{0}};
        cr_assert_eq(wc_tolerance_parse(spec, t, &n, &err), 0, "%s: %s", spec, err.msg);
        cr_assert_eq(t[0].metric, d.metric);
        cr_assert_eq(t[0].stat, d.stat);
        cr_assert_str_eq(wc_tolerance_name(&t[0]), d.name);
        snprintf(spec, sizeof spec, "%s=1%s", d.name, *d.unit ? "" : "W");
        if (d.metric == WC_TOL_SOURCE)
            snprintf(spec, sizeof spec, "source=1");
        cr_assert_eq(wc_tolerance_parse(spec, t, &n, &err), -EINVAL, "%s: the unit is required", spec);
    }
}
