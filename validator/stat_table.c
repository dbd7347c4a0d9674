/*
 * stat_table.c — the one table of accuracy statistics (stat_table.h): each
 * row says how the statistic of stats.h is named, shown and gated.
 */
#include "validator/stat_table.h"

#define AT(f) offsetof(wc_accuracy, f)

/* Shown in both terminal tables and the report. */
#define EVERYWHERE (WC_STAT_IN_TEXT | WC_STAT_IN_PHASE | WC_STAT_IN_REPORT)
/* The terminal's accuracy table and the report, not the per-phase table. */
#define MAIN_TABLES (WC_STAT_IN_TEXT | WC_STAT_IN_REPORT)

const wc_stat wc_stats[] = {
    {.key = "bias_w", .unit = "W", .kind = WC_STAT_CI, .off = AT(bias_w), .decimals = 2,
     .flags = EVERYWHERE | WC_STAT_SHOW_CI, .text_label = "bias_W [95% CI]", .text_width = 24,
     .doc_label = "bias W [95% CI]"},
    {.key = "bias_pct", .unit = "%", .kind = WC_STAT_CI, .off = AT(bias_pct), .decimals = 1,
     .flags = EVERYWHERE | WC_STAT_SHOW_CI, .text_label = "bias_% [95% CI]", .text_width = 20,
     .doc_label = "bias % [95% CI]", .tol_name = "node", .tol_rule = WC_STAT_TOL_ABS,
     .tol_what = "|bias|"},
    {.key = "mae_w", .unit = "W", .kind = WC_STAT_CI, .off = AT(mae_w), .decimals = 2,
     .flags = MAIN_TABLES, .text_label = "MAE_W", .text_width = 7, .doc_label = "MAE W",
     .tol_name = "mae", .tol_rule = WC_STAT_TOL_SIGNED, .tol_what = "of the pairs"},
    {.key = "wape_pct", .unit = "%", .kind = WC_STAT_CI, .off = AT(wape_pct), .decimals = 1,
     .flags = EVERYWHERE, .text_label = "WAPE_%", .text_width = 7, .doc_label = "WAPE %",
     .tol_name = "wape", .tol_rule = WC_STAT_TOL_SIGNED, .tol_what = "of the pairs"},
    {.key = "rmse_w", .unit = "W", .kind = WC_STAT_CI, .off = AT(rmse_w), .decimals = 2,
     .flags = EVERYWHERE, .text_label = "RMSE_W", .text_width = 7, .doc_label = "RMSE W",
     .tol_name = "rmse", .tol_rule = WC_STAT_TOL_SIGNED, .tol_what = "of the pairs"},
    {.key = "p95_abs_w", .unit = "W", .kind = WC_STAT_CI, .off = AT(p95_abs_w), .decimals = 2,
     .flags = MAIN_TABLES | WC_STAT_SHOW_CI, .text_label = "p95_abs_W [95% CI]", .text_width = 20,
     .doc_label = "p95 |error| W", .tol_name = "p95", .tol_rule = WC_STAT_TOL_SIGNED,
     .tol_what = "of the pairs"},
    {.key = "mape_pct", .unit = "%", .kind = WC_STAT_CI, .off = AT(mape_pct), .decimals = 1,
     .flags = MAIN_TABLES | WC_STAT_SHOW_CI, .text_label = "MAPE_% (n)", .text_width = 18,
     .doc_label = "MAPE %", .count_key = "n_mape", .count_off = AT(n_mape), .tol_name = "mape",
     .tol_rule = WC_STAT_TOL_SIGNED, .tol_what = "of the pairs"},
    {.key = "sd_diff_w", .unit = "W", .kind = WC_STAT_NUMBER, .off = AT(sd_diff_w), .decimals = 2},
    {.key = "loa_lo_w", .key_hi = "loa_hi_w", .unit = "W", .kind = WC_STAT_RANGE, .off = AT(loa_lo_w),
     .off_hi = AT(loa_hi_w), .decimals = 2, .flags = MAIN_TABLES,
     .text_label = "LoA_W (Bland-Altman)", .text_width = 0, .doc_label = "LoA W", .tol_name = "loa",
     .tol_rule = WC_STAT_TOL_LARGER, .tol_what = "of the pairs"},
    {.key = NULL},
};

_Static_assert(sizeof wc_stats / sizeof *wc_stats <= WC_STAT_MAX + 1,
               "wc_stats has more rows than WC_STAT_MAX");

const wc_ci *wc_stat_ci(const wc_stat *s, const wc_accuracy *a, int hi)
{
    return (const wc_ci *)(const void *)((const char *)a + (hi ? s->off_hi : s->off));
}

double wc_stat_number(const wc_stat *s, const wc_accuracy *a)
{
    return *(const double *)(const void *)((const char *)a + s->off);
}

size_t wc_stat_count(const wc_stat *s, const wc_accuracy *a)
{
    return *(const size_t *)(const void *)((const char *)a + s->count_off);
}
