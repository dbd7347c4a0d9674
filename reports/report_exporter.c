/*
 * report_exporter.c — the exporter section of the HTML/Markdown report
 * (report_exporter.h), followed by the CPU-accounting cross-check
 * (report_cpu_share.h).
 */
#include "reports/report_exporter.h"

#include "reports/report_cpu_share.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Cells live in a small pool: a row's cells stay valid until the row is written. */
static char *cell(void)
{
    static char pool[16][200];
    static unsigned next;
    return pool[next++ % 16];
}

static const char *num(double v, int prec)
{
    char *b = cell();
    if (isfinite(v))
        snprintf(b, 200, "%.*f", prec, v);
    else
        snprintf(b, 200, "-");
    return b;
}

static const char *ci(const wc_ci *c)
{
    char *b = cell();
    if (!isfinite(c->est))
        snprintf(b, 200, "-");
    else if (!isfinite(c->lo) || !isfinite(c->hi))
        snprintf(b, 200, "%+.1f (no CI)", c->est);
    else
        snprintf(b, 200, "%+.1f [%+.1f, %+.1f]", c->est, c->lo, c->hi);
    return b;
}

/* The exporter's node sources against the first truth, native pairs. */
static void node_vs_truth(wc_doc *d, const wc_validation *v, const wc_xp_one *x)
{
    char *truth = cell();
    const char *tp = v->acc.ntruth ? v->acc.truth[0].provenance : "";
    snprintf(truth, 200, "%.150s [%s]", v->acc.ntruth ? v->acc.truth[0].spec : "",
             !strcmp(tp, "simulated") ? "SIMULATED" : !strcmp(tp, "estimated") ? "ESTIMATED" : tp);
    static const char *const H[] = {"source", "truth", "n", "bias W [95% CI]", "bias % [95% CI]", "WAPE %"};
    if (!v->have_accuracy || !v->acc.ntruth || !x->nsources) {
        wc_doc_para(d, "Node vs ground truth: not scored (%s).",
                    !x->nsources ? "no node energy series" : "the run has no ground truth");
        return;
    }
    wc_doc_table_begin(d, H, 6);
    for (size_t i = 0; i < x->nsources; i++) {
        const wc_acc_cell *c = x->source_index[i] < 0 ? NULL
                             : wc_accuracy_cell(&v->acc, (size_t)x->source_index[i], 0, 0, -1);
        const char *r[6] = {v->acc.sources[x->source_index[i] < 0 ? 0 : x->source_index[i]].name,
                            truth, c ? num((double)c->acc.n, 0) : "-",
                            c ? ci(&c->acc.bias_w) : "-", c ? ci(&c->acc.bias_pct) : "-",
                            c ? num(c->acc.wape_pct.est, 1) : "-"};
        wc_doc_table_row(d, NULL, r);
    }
    wc_doc_table_end(d);
    if (x->sources_note[0])
        wc_doc_para(d, "Exporter #%lld: %s.", (long long)x->info.id, x->sources_note);
}

static void reference(wc_doc *d, const wc_xp_one *x)
{
    static const char *const H[] = {"level", "key", "name", "exporter J", "reference J", "intervals",
                                    "bias % [95% CI]"};
    wc_doc_para(d, "Second opinion: the exporter against the reference model %s over the same intervals (%s).",
                x->ref_model, x->ref_note);
    if (!x->nref)
        return;
    wc_doc_para(d, "Rows: per level, the largest |exporter − reference| first, then the largest workloads:"
                   " %zu shown of %zu workloads compared; %zu agree within 1 mJ.", x->nref, x->ref_compared,
                x->ref_agree);
    wc_doc_table_begin(d, H, 7);
    for (size_t i = 0; i < x->nref; i++) {
        const wc_xp_ref *f = &x->ref[i];
        const char *r[7] = {f->level, f->key, f->name, num(f->exp_j, 3), num(f->ref_j, 3),
                            num((double)f->n, 0), ci(&f->bias_pct)};
        wc_doc_table_row(d, NULL, r);
    }
    wc_doc_table_end(d);
}

static void invariants(wc_doc *d, const wc_xp_one *x)
{
    static const char *const H[] = {"invariant", "zone", "checked", "violated", "worst", "verdict", "note"};
    wc_doc_table_begin(d, H, 7);
    for (size_t i = 0; i < x->ninv; i++) {
        const wc_xp_invariant *n = &x->inv[i];
        char *w = cell();
        if (isfinite(n->worst))
            snprintf(w, 200, "%.3f %s", n->worst, n->unit);
        else
            snprintf(w, 200, "-");
        const char *r[7] = {n->name, n->zone[0] ? n->zone : "-", num((double)n->checked, 0),
                            num((double)n->violations, 0), w, wc_xp_verdict_name(n->verdict),
                            n->violations ? n->worst_at : n->note};
        wc_doc_table_row(d, n->verdict == WC_XP_PASS ? "pass" : n->verdict == WC_XP_FAIL ? "fail" : "skip", r);
    }
    wc_doc_table_end(d);
}

static void showback(wc_doc *d, const wc_xp_one *x)
{
    static const char *const H[] = {"pod", "namespace", "uid", "joules", "share of node %", "± J"};
    wc_doc_para(d, "Showback from the exporter's numbers (zone %s, node %.3f J): error bar %s.", x->show_zone,
                x->show_node_j, x->show_err_basis);
    if (!x->nshow)
        return;
    wc_doc_table_begin(d, H, 6);
    for (size_t i = 0; i < x->nshow; i++) {
        const wc_xp_show *p = &x->show[i];
        const char *r[6] = {p->name, p->ns, p->uid, num(p->joules, 3), num(p->share_pct, 2), num(p->err_j, 3)};
        wc_doc_table_row(d, NULL, r);
    }
    wc_doc_table_end(d);
}

void wc_report_exporters(wc_doc *d, const wc_validation *v)
{
    wc_doc_heading(d, 2, "The deployed exporter's own numbers");
    if (!v->xp || !v->xp->n) {
        wc_doc_para(d, "The run holds no exporter data (record --exporter, import --prometheus): what is"
                       " validated above is wattcal's reference model, not a deployed exporter.");
        wc_report_cpu_share(d, &v->cpu_share);
        return;
    }
    for (size_t i = 0; i < v->xp->n; i++) {
        const wc_xp_one *x = &v->xp->x[i];
        char h[300];
        snprintf(h, sizeof h, "Exporter #%lld: %s", (long long)x->info.id, x->info.provenance);
        wc_doc_heading(d, 3, h);
        int measured = !strcmp(x->info.power_source, "measured");
        char cancelled[64] = ""; /* neither ok nor failed (exporter_report.h) */
        if (x->scrapes_cancelled)
            snprintf(cancelled, sizeof cancelled, ", %zu cancelled by the run's end", x->scrapes_cancelled);
        wc_doc_note(d, measured ? "good" : "bad", "Power source.", "%s (node %s, %s, %zu scrapes (%zu ok%s), %zu restart(s)).",
                    x->info.power_source[0] ? x->info.power_source : "unknown", x->info.node,
                    x->info.origin, x->nscrapes, x->scrapes_ok,
                    cancelled,
                    x->nrestarts);
        node_vs_truth(d, v, x);
        reference(d, x);
        invariants(d, x);
        showback(d, x);
    }
    wc_report_cpu_share(d, &v->cpu_share);
}
