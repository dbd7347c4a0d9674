/*
 * fleet_report.c — the fleet's HTML and Markdown report (fleet_report.h),
 * composed once through doc.h: summary, breakdowns by hardware profile and
 * exporter version, the node table by risk, the failing nodes' details.
 */
#include "reports/fleet_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/wc_text.h"
#include "reports/doc.h"
#include "reports/report_io.h"

/* One row of a breakdown: a profile or version and its counts. */
typedef struct group_row {
    char key[96];
    size_t nodes, within, failed, skipped;
} group_row;

#define MAX_GROUPS 64

static void add_group(group_row *g, size_t *ng, const char *key, const wc_fleet_node *n)
{
    size_t i = 0;
    while (i < *ng && strcmp(g[i].key, key))
        i++;
    if (i == *ng) {
        if (*ng == MAX_GROUPS)
            i = MAX_GROUPS - 1, key = "(others)";
        else
            (*ng)++;
        snprintf(g[i].key, sizeof g[i].key, "%s", key);
    }
    g[i].nodes++;
    g[i].within += n->status == WC_CHECK_PASS;
    g[i].failed += n->status == WC_CHECK_FAIL;
    g[i].skipped += n->status == WC_CHECK_SKIP;
}

/* A breakdown table: by hardware (by_version 0) or exporter version (1). */
static void breakdown(wc_doc *d, const wc_fleet_node *nodes, size_t n, int by_version)
{
    static group_row g[MAX_GROUPS];
    size_t ng = 0;
    memset(g, 0, sizeof g);
    for (size_t i = 0; i < n; i++) {
        const wc_fleet_node *x = &nodes[i];
        const char *key = by_version ? (x->nversions ? x->versions[x->nversions - 1] : "unknown")
                                     : x->hardware;
        add_group(g, &ng, key, x);
    }
    const char *hdr[5] = {by_version ? "exporter version (last seen)" : "hardware profile (CPU)",
                          "nodes", "passed", "failed", "unchecked"};
    wc_doc_table_begin(d, hdr, 5);
    for (size_t i = 0; i < ng; i++) {
        char c[4][24];
        snprintf(c[0], sizeof c[0], "%zu", g[i].nodes);
        snprintf(c[1], sizeof c[1], "%zu", g[i].within);
        snprintf(c[2], sizeof c[2], "%zu", g[i].failed);
        snprintf(c[3], sizeof c[3], "%zu", g[i].skipped);
        const char *cells[5] = {g[i].key, c[0], c[1], c[2], c[3]};
        wc_doc_table_row(d, g[i].failed ? "fail" : NULL, cells);
    }
    wc_doc_table_end(d);
}

static void summary(wc_doc *d, const wc_fleet_summary *s, const wc_fleet_report_meta *m)
{
    wc_doc_para(d, "Prometheus %s, %s. Node power is the exporter's package + dram energy "
                "counters (attributed by the exporter, as Prometheus kept them); ground truth: %s. "
                "Tolerances: %s.", m->prometheus, m->range,
                m->truth_template ? m->truth_template : "none (node power unchecked)",
                m->tolerances);
    if (s->failed)
        wc_doc_note(d, "bad", "Failed:", "%zu of %zu nodes break a rule; the first rows below "
                    "must not reach showback as they are.", s->failed, s->nodes);
    if (s->skipped)
        wc_doc_note(d, "warn", "Unchecked:", "%zu node%s had no ground truth: not passed.",
                    s->skipped, s->skipped == 1 ? "" : "s");
    if (!s->failed && !s->skipped)
        wc_doc_note(d, "good", "Passed:", "every node is measured and within tolerance.");
    wc_doc_para(d, "%zu nodes: %zu measured, %zu not measured, %zu of unknown source; %zu "
                "checked against ground truth; %zu passed, %zu failed, %zu unchecked. %lld "
                "requests, %.1f MB from the server in %.1f s of %.1f s.", s->nodes, s->measured,
                s->not_measured, s->unknown_source, s->checked, s->within, s->failed, s->skipped,
                (long long)s->requests, (double)s->bytes / 1e6, s->http_s, s->total_s);
}

/* "5.0 / -": package / dram, "-" where the zone has no active energy. */
static void gap_text(const wc_fleet_node *x, char *buf, size_t cap)
{
    char z[2][24];
    for (int i = 0; i < 2; i++)
        if (isfinite(x->gap_pct[i]))
            snprintf(z[i], sizeof z[i], "%.1f", x->gap_pct[i]);
        else
            snprintf(z[i], sizeof z[i], "-");
    wc_textf(buf, cap, "%s / %s", z[0], z[1]);
}

static void node_row(wc_doc *d, const wc_fleet_node *x)
{
    char bias[96] = "-", wape[32] = "-", gap[48], ver[128], top[200] = "-";
    if (x->have_accuracy) {
        snprintf(bias, sizeof bias, "%.2f [%.2f .. %.2f]", x->acc.bias_pct.est,
                 x->acc.bias_pct.lo, x->acc.bias_pct.hi);
        snprintf(wape, sizeof wape, "%.2f", x->acc.wape_pct.est);
    }
    gap_text(x, gap, sizeof gap);
    size_t used = 0;
    ver[0] = '\0';
    for (size_t i = 0; i < x->nversions; i++)
        used += (size_t)snprintf(ver + used, sizeof ver - used, "%s%s", i ? " -> " : "",
                                 x->versions[i]);
    if (x->ntop)
        snprintf(top, sizeof top, "%s/%s %.0f J", x->top[0].ns, x->top[0].name, x->top[0].joules);
    const char *st = x->status == WC_CHECK_PASS ? "pass" : x->status == WC_CHECK_FAIL ? "FAIL"
                         : x->query_error ? "NO VERDICT" : "unchecked";
    const char *cells[10] = {x->node, st, wc_fleet_risk_name(x->risk), x->power_source,
                             x->nversions ? ver : "unknown", x->hardware, bias, wape, gap, top};
    wc_doc_table_row(d, x->status == WC_CHECK_PASS ? "pass" : x->status == WC_CHECK_FAIL
                                                              ? "fail" : "skip", cells);
}

static void node_table(wc_doc *d, const wc_fleet_node *nodes, size_t n)
{
    const char *hdr[10] = {"node", "verdict", "risk", "power source", "exporter version",
                           "hardware", "bias % vs truth [95% CI]", "WAPE %",
                           "pod gap % package / dram", "top pod (energy)"};
    wc_doc_table_begin(d, hdr, 10);
    for (size_t i = 0; i < n; i++)
        node_row(d, &nodes[i]);
    wc_doc_table_end(d);
}

static void details(wc_doc *d, const wc_fleet_node *nodes, size_t n)
{
    for (size_t i = 0; i < n && nodes[i].status != WC_CHECK_PASS; i++) {
        const wc_fleet_node *x = &nodes[i];
        wc_doc_heading(d, 3, x->node);
        wc_doc_para(d, "%s: %s (layout %s)", x->status == WC_CHECK_FAIL ? "FAILED"
                    : x->query_error ? "NO VERDICT" : "UNCHECKED", x->reasons, x->layout);
        if (x->have_accuracy)
            wc_doc_para(d, "Exporter %.1f kJ against ground truth %.1f kJ over %zu intervals; "
                        "MAE %.2f W, RMSE %.2f W, Bland-Altman limits %.2f .. %.2f W.",
                        x->exporter_joules / 1e3, x->truth_joules / 1e3, x->npairs,
                        x->acc.mae_w.est, x->acc.rmse_w.est, x->acc.loa_lo_w.est,
                        x->acc.loa_hi_w.est);
        for (size_t k = 0; k < x->ntop; k++)
            wc_doc_para(d, "Top pod %zu: %s/%s, %.1f J (attributed by the exporter).", k + 1,
                        x->top[k].ns, x->top[k].name, x->top[k].joules);
    }
}

static void compose(wc_doc *d, const wc_fleet_node *nodes, size_t n, const wc_fleet_summary *s,
                    const wc_fleet_report_meta *m)
{
    wc_doc_begin(d, "wattcal fleet: which nodes' energy numbers can reach showback?");
    wc_doc_heading(d, 2, "Fleet summary");
    summary(d, s, m);
    wc_doc_heading(d, 3, "By hardware profile");
    breakdown(d, nodes, n, 0);
    wc_doc_heading(d, 3, "By exporter version");
    breakdown(d, nodes, n, 1);
    wc_doc_heading(d, 2, "Nodes by risk");
    wc_doc_para(d, "Riskiest first: not measured, unknown source, node error beyond tolerance, "
                "version changed, pod gap beyond tolerance, unchecked, passed; within a "
                "class the larger |bias| first. Bias and WAPE: exporter node power (package + "
                "dram) against ground truth per step interval, 95 %% block-bootstrap intervals. Pod gap: "
                "energy outside pods, %% of active (1 - sum of pods / active), not validate's "
                "gap= (unattributed by the model).");
    node_table(d, nodes, n);
    wc_doc_heading(d, 2, "Nodes that did not pass");
    details(d, nodes, n);
    wc_doc_end(d);
}

int wc_fleet_report_write(const char *dir, const wc_fleet_node *nodes, size_t n,
                          const wc_fleet_summary *sum, const wc_fleet_report_meta *m,
                          wc_error *err)
{
    wc_outfile html, md;
    char stale[4200];
    int rc = wc_outdir_ensure(dir, err);
    if (rc)
        return rc;
    snprintf(stale, sizeof stale, "%s/fleet.html", dir);
    unlink(stale); /* a link left there is replaced, never written through */
    snprintf(stale, sizeof stale, "%s/fleet.md", dir);
    unlink(stale);
    rc = wc_outfile_open(&html, dir, "fleet.html", err);
    if (rc)
        return rc;
    rc = wc_outfile_open(&md, dir, "fleet.md", err);
    if (rc) {
        wc_outfile_close(&html, NULL);
        return rc;
    }
    wc_doc d = {.html = html.f, .md = md.f, .dir = dir};
    compose(&d, nodes, n, sum, m);
    int rh = wc_outfile_close(&html, err);
    wc_error e2 = {{0}};
    int rm = wc_outfile_close(&md, rh ? &e2 : err);
    return rh ? rh : rm;
}
