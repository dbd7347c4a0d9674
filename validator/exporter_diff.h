/*
 * exporter_diff.h — `wattcal diff A.db B.db` when both runs hold an
 * exporter's own numbers (record --exporter, import --prometheus): the
 * exporter's per-pod energy of run A against run B (old release on one node
 * or before an upgrade, new on another or after), top-N pods by energy,
 * matched by pod uid, each side's mean power over its full windows with a
 * block-bootstrap interval, the difference's interval from independent
 * replicates, and diff.h's verdict rule (wc_diff_decide). Windows are laid
 * from each side's first scrape; a pod's counter deltas land in the window
 * holding their interval's midpoint; a window holding one that is not known
 * (exporter_data.h: a reset, a fall) is left out of that pod's mean.
 */
#ifndef WC_EXPORTER_DIFF_H
#define WC_EXPORTER_DIFF_H

#include <stdio.h>

#include "validator/diff.h"

/* The exporter comparison of two runs. */
typedef struct wc_xp_diff_report {
    int have;                    /* 1 when both runs hold exporter data */
    char a_prov[96], b_prov[96]; /* each side's exporter provenance (its version) */
    char zone[32];
    double window_s, tolerance_pct;
    size_t a_windows, b_windows;
    wc_diff_table pods;          /* level WC_DIFF_POD; key = pod uid */
    char names[WC_DIFF_MAX_TOP][200]; /* "namespace/name" of each row (B's labels, else A's) */
    wc_diff_report counts;       /* changed, same, inconclusive, appeared, vanished */
} wc_xp_diff_report;

/* Compares the first exporter of each side. out->have 0 (not an error) when
 * either run has none. Returns 0, -ENOMEM/-EIO with err. */
int wc_xp_diff(const wc_diff_side *a, const wc_diff_side *b, const wc_diff_opts *o,
               wc_xp_diff_report *out, wc_error *err);

/* Prints the comparison (nothing when !r->have). */
void wc_xp_diff_text(FILE *out, const wc_xp_diff_report *r);

#endif
