/*
 * report_cpu_share.c — the CPU-accounting cross-check in the HTML/Markdown
 * report (report_cpu_share.h); the terminal and JSON forms are
 * validator/cpu_share_out.c's.
 */
#include "reports/report_cpu_share.h"

#include <math.h>
#include <stdio.h>

/* A number with prec decimals (sign: always signed) into buf, or "-". */
static const char *num(double v, int prec, int sign, char *buf, size_t cap)
{
    if (!isfinite(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, sign ? "%+.*f" : "%.*f", prec, v);
    return buf;
}

/* One pod's row; its class "warn" when the shares differ by 5 points or more. */
static void share_row(wc_doc *d, const wc_share_row *w)
{
    char e[32], ep[32], c[32], cp[32], dp[32], ra[32];
    const char *cells[9] = {w->pod_uid, w->name[0] ? w->name : "-", w->ns[0] ? w->ns : "-",
                            num(w->energy_j, 1, 0, e, sizeof e), num(w->energy_pct, 2, 0, ep, sizeof ep),
                            num(w->cpu_s, 2, 0, c, sizeof c), num(w->cpu_pct, 2, 0, cp, sizeof cp),
                            num(w->diff_pts, 2, 1, dp, sizeof dp), num(w->ratio, 3, 0, ra, sizeof ra)};
    wc_doc_table_row(d, isfinite(w->diff_pts) && fabs(w->diff_pts) >= 5 ? "warn" : NULL, cells);
}

static void share_source(wc_doc *d, const wc_share_source *s)
{
    static const char *const H[] = {"pod uid", "name", "namespace", "energy J", "energy %",
                                    "CPU s", "CPU %", "diff (points)", "ratio"};
    if (s->too_little)
        wc_doc_note(d, "warn", "Too little data.", "%s: %zu pod(s) over %lld interval(s), fewer than %d:"
                    " not a finding.", s->provenance, s->npods, (long long)s->intervals,
                    WC_CPU_SHARE_MIN_INTERVALS);
    else
        wc_doc_para(d, "%s: %zu pod(s) over %lld interval(s).", s->provenance, s->npods,
                    (long long)s->intervals);
    if (!s->nrows) {
        wc_doc_para(d, "No interval where the pod's energy, the node's active energy and both CPU"
                       " figures were known.");
        return;
    }
    wc_doc_table_begin(d, H, 9);
    for (size_t i = 0; i < s->nrows; i++)
        share_row(d, &s->rows[i]);
    wc_doc_table_end(d);
}

void wc_report_cpu_share(wc_doc *d, const wc_cpu_share_report *r)
{
    wc_doc_heading(d, 3, "CPU accounting cross-check");
    if (!r->have) {
        wc_doc_para(d, "Not available: the run has no pod cgroup CPU accounting (no pod processes"
                       " seen, an imported run, or a run recorded before wattcal read cpu.stat).");
        return;
    }
    wc_doc_para(d, "Each pod's share of the node's active energy (zone %s) against its share of the"
                   " node's busy CPU over the same intervals: pod CPU from %zu pod cgroup(s) (%s), node"
                   " CPU from /proc/stat (total - idle - iowait, Kepler's active time). Kepler splits"
                   " active energy by CPU time, so the shares agree unless the exporter mis-attributes,"
                   " misses short-lived processes or uses another denominator. Largest disagreement"
                   " first; diff = energy %% - CPU %%.",
                r->zone, r->pods, r->accounting[0] ? r->accounting : "never read");
    for (size_t i = 0; i < r->nsrc; i++)
        share_source(d, &r->src[i]);
}
