/*
 * stat_table.h — the accuracy statistics of stats.h (wc_accuracy) as one
 * table: per statistic its JSON key, its column labels, its unit, where its
 * value lives in wc_accuracy, its decimals, whether its interval is shown,
 * which tables show it, and the tolerance of the CI gate it backs (name,
 * how the checked value derives from it). The terminal tables
 * (text_report.c), the JSON summary's "accuracy" cells (summary_json.c), the
 * report's accuracy table (reports/report.c) and the node tolerances
 * (validation.c: parsing, the help list, the checks) iterate the table; none
 * of them names a statistic.
 *
 * Rows are in display order: the order of the JSON keys and of the columns.
 * The tolerances of the gate that are not accuracy statistics (gap, over,
 * invariants, coverage, class-bias) are listed after these in
 * validation.c's one table of metrics (wc_tol_def_at).
 *
 * Adding a statistic: its field in wc_accuracy (stats.h), its computation
 * (stats.c) and its row in wc_stats (stat_table.c); plus its test and docs.
 */
#ifndef WC_STAT_TABLE_H
#define WC_STAT_TABLE_H

#include <stddef.h>

#include "validator/stats.h"

/* Most rows the table may have (a view sizes its column arrays by it). */
#define WC_STAT_MAX 16

/* What a row reads from wc_accuracy. */
typedef enum wc_stat_kind {
    WC_STAT_CI = 0,  /* a wc_ci at off */
    WC_STAT_NUMBER,  /* a double at off, no interval */
    WC_STAT_RANGE,   /* two wc_ci, off the low end and off_hi the high one: shown as
                        "lo .. hi" of their estimates, two keys in JSON */
} wc_stat_kind;

/* Where a row is shown, and how; the JSON summary has every row. */
enum {
    WC_STAT_IN_TEXT = 1 << 0,   /* the terminal's accuracy table */
    WC_STAT_IN_PHASE = 1 << 1,  /* the terminal's per-phase table of the gated source */
    WC_STAT_IN_REPORT = 1 << 2, /* the report's accuracy table */
    WC_STAT_SHOW_CI = 1 << 3,   /* cells show the 95 % interval beside the estimate */
};

/* How the value a tolerance checks derives from its statistic. */
typedef enum wc_stat_rule {
    WC_STAT_TOL_NONE = 0, /* backs no tolerance */
    WC_STAT_TOL_SIGNED,   /* the estimate and its interval as they are */
    WC_STAT_TOL_ABS,      /* |estimate|, with the interval of |x| */
    WC_STAT_TOL_LARGER,   /* a range: the larger magnitude of its two ends,
                             max(|lo|, |hi|), bounds likewise */
} wc_stat_rule;

/* One statistic. */
typedef struct wc_stat {
    const char *key;        /* JSON key ("bias_w"); a range: its low end's */
    const char *key_hi;     /* a range: its high end's JSON key; else NULL */
    const char *unit;       /* "W" or "%": also the unit of its tolerance */
    wc_stat_kind kind;
    size_t off, off_hi;     /* offsetof(wc_accuracy, ...) of the value(s) */
    int decimals;           /* shown with "%.*f" in every table */
    unsigned flags;         /* WC_STAT_IN_* and WC_STAT_SHOW_CI */
    const char *text_label; /* terminal column header ("bias_W [95% CI]") */
    int text_width;         /* terminal column width; 0: not padded (the last) */
    const char *doc_label;  /* report column header ("bias W [95% CI]") */
    const char *count_key;  /* the pairs it is over when that is not n: its JSON
                               key, after the statistic's, and shown "est (n)" in
                               the terminal; NULL: none */
    size_t count_off;       /* offsetof(wc_accuracy, ...) of that size_t count */
    const char *tol_name;   /* the tolerance it backs ("node"); NULL: none */
    wc_stat_rule tol_rule;
    const char *tol_what;   /* what a check's message calls the value ("|bias|") */
} wc_stat;

/* The statistics in display order, ended by a row whose key is NULL. */
extern const wc_stat wc_stats[];

/* The wc_ci a WC_STAT_CI row reads, or a range's low end (hi: its high end). */
const wc_ci *wc_stat_ci(const wc_stat *s, const wc_accuracy *a, int hi);

/* The double a WC_STAT_NUMBER row reads. */
double wc_stat_number(const wc_stat *s, const wc_accuracy *a);

/* The count a row with a count_key reads. */
size_t wc_stat_count(const wc_stat *s, const wc_accuracy *a);

#endif
