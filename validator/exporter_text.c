/*
 * exporter_text.c — the exporter section of `validate`'s terminal output
 * and its JSON ("exporters" of wattcal-validate/1) and JUnit (one testsuite
 * of invariants) forms (exporter_text.h). Untrusted strings (labels, names,
 * specs) go through wc_term_safe in the terminal; cJSON escapes JSON, and
 * wc_xml_escape the XML.
 */
#include "validator/exporter_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validator/junit.h"
#include "validator/text_report.h"

/* "%.*f" of v, or "-" when not finite. */
static const char *num(char *buf, size_t cap, double v, int decimals)
{
    if (isfinite(v))
        snprintf(buf, cap, "%.*f", decimals, v);
    else
        snprintf(buf, cap, "-");
    return buf;
}

/* "est [lo, hi]" of a percentage interval. */
static const char *ci_text(char *buf, size_t cap, const wc_ci *c)
{
    if (!isfinite(c->est))
        snprintf(buf, cap, "-");
    else if (isfinite(c->lo) && isfinite(c->hi))
        snprintf(buf, cap, "%+.1f [%+.1f, %+.1f]", c->est, c->lo, c->hi);
    else
        snprintf(buf, cap, "%+.1f (no CI: < %d intervals)", c->est, WC_BOOT_MIN_PAIRS);
    return buf;
}

/* ", N cancelled by the run's end" (neither ok nor failed), or "". */
static const char *cancelled_text(const wc_xp_one *x, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (x->scrapes_cancelled)
        snprintf(buf, cap, ", %zu cancelled by the run's end", x->scrapes_cancelled);
    return buf;
}

static void print_head(FILE *out, const wc_xp_one *x)
{
    char a[600], b[200], c[200];
    fprintf(out, "\nExporter #%lld: %s — node %s, %s, power source %s\n", (long long)x->info.id,
            wc_term_safe(x->info.provenance, a, sizeof a),
            wc_term_safe(x->info.node[0] ? x->info.node : "?", b, sizeof b),
            wc_term_safe(x->info.origin, c, sizeof c),
            x->info.power_source[0] ? x->info.power_source : "unknown");
    fprintf(out, "  %s\n", wc_term_safe(x->info.spec, a, sizeof a));
    fprintf(out, "  %zu scrapes (%zu ok%s), %zu series, %zu restart(s) (counter falls there are resets,"
                 " not wraps), %zu wrap(s) bridged by active+idle\n",
            x->nscrapes, x->scrapes_ok, cancelled_text(x, b, sizeof b), x->nseries, x->nrestarts, x->nwraps);
    fprintf(out, "  node vs ground truth: the sources exporter#%lld:<zone> in the accuracy table%s%s\n",
            (long long)x->info.id, x->sources_note[0] ? "; " : "", x->sources_note);
}

static void print_invariants(FILE *out, const wc_xp_one *x)
{
    char w[32], at[200], note[200];
    fprintf(out, "  Invariants over the whole run (the exporter's own numbers)\n");
    fprintf(out, "  %-32s %-8s %8s %10s %12s  %-10s %s\n", "invariant", "zone", "checked",
            "violated", "worst", "verdict", "worst at / note");
    for (size_t i = 0; i < x->ninv; i++) {
        const wc_xp_invariant *v = &x->inv[i];
        char worst[48];
        snprintf(worst, sizeof worst, "%s%s%s", num(w, sizeof w, v->worst, 3), isfinite(v->worst) ? " " : "",
                 isfinite(v->worst) ? v->unit : "");
        fprintf(out, "  %-32s %-8s %8zu %10zu %12s  %-10s %s%s%s\n", v->name, v->zone[0] ? v->zone : "-",
                v->checked, v->violations, worst, wc_xp_verdict_name(v->verdict),
                wc_term_safe(v->violations ? v->worst_at : "", at, sizeof at),
                v->violations && v->note[0] ? "; " : "", wc_term_safe(v->note, note, sizeof note));
    }
}

static void print_gap(FILE *out, const wc_xp_one *x)
{
    fprintf(out, "  Gap split from the exporter's numbers (J over %s intervals)\n",
            x->ngap ? "its" : "no");
    fprintf(out, "  %-8s %12s %12s %12s %12s %12s %8s\n", "zone", "total_J", "idle_J", "active_J",
            "pods_J", "outside_J", "pods_%");
    for (size_t i = 0; i < x->ngap; i++) {
        const wc_xp_gap *g = &x->gap[i];
        char p[32];
        fprintf(out, "  %-8s %12.3f %12.3f %12.3f %12.3f %12.3f %8s\n", g->zone, g->total_j, g->idle_j,
                g->active_j, g->pods_j, g->outside_j,
                num(p, sizeof p, g->total_j > 0 ? 100 * g->pods_j / g->total_j : NAN, 2));
    }
}

static void print_reference(FILE *out, const wc_xp_one *x)
{
    char a[200], b[200], c[96], note[200];
    fprintf(out, "  Second opinion: exporter vs reference model %s, same intervals (%s)\n",
            x->ref_model, wc_term_safe(x->ref_note, note, sizeof note));
    if (!x->nref)
        return;
    fprintf(out, "  rows: per level, the largest |exporter_J - reference_J| first, then the largest"
                 " workloads: %zu shown of %zu workloads compared; %zu agree within 1 mJ\n", x->nref,
            x->ref_compared, x->ref_agree);
    fprintf(out, "  %-9s %-38s %-16s %12s %12s %5s  %s\n", "level", "key", "name", "exporter_J",
            "reference_J", "n", "bias_% [95% CI]");
    for (size_t i = 0; i < x->nref; i++) {
        const wc_xp_ref *r = &x->ref[i];
        fprintf(out, "  %-9s %-38s %-16s %12.3f %12.3f %5zu  %s\n", r->level,
                wc_term_safe(r->key, a, 39), wc_term_safe(r->name, b, 17), r->exp_j, r->ref_j, r->n,
                ci_text(c, sizeof c, &r->bias_pct));
    }
}

static void print_showback(FILE *out, const wc_xp_one *x)
{
    char a[200], b[200], c[330], s[32], e[32];
    fprintf(out, "  Showback (zone %s, node %.3f J; %zu pod(s) with energy): error bar %s\n",
            x->show_zone, x->show_node_j, x->show_pods, wc_term_safe(x->show_err_basis, c, sizeof c));
    if (!x->nshow)
        return;
    fprintf(out, "  %-24s %-16s %-38s %12s %8s %12s\n", "pod", "namespace", "uid", "joules", "share_%",
            "+-J");
    for (size_t i = 0; i < x->nshow; i++) {
        const wc_xp_show *p = &x->show[i];
        fprintf(out, "  %-24s %-16s %-38s %12.3f %8s %12s\n", wc_term_safe(p->name, a, 25),
                wc_term_safe(p->ns, b, 17), wc_term_safe(p->uid, c, 39), p->joules,
                num(s, sizeof s, p->share_pct, 2), num(e, sizeof e, p->err_j, 3));
    }
}

void wc_xp_text(FILE *out, const wc_xp_report *r)
{
    if (!r || !r->n)
        return;
    for (size_t i = 0; i < r->n; i++) {
        print_head(out, &r->x[i]);
        print_invariants(out, &r->x[i]);
        print_gap(out, &r->x[i]);
        print_reference(out, &r->x[i]);
        print_showback(out, &r->x[i]);
    }
    if (r->skipped)
        fprintf(out, "note: the run holds more than %d exporters: the others are not analysed\n", WC_XP_MAX);
}
