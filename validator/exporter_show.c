/*
 * exporter_show.c — the showback table from the exporter's own numbers: per
 * pod its name and namespace (Kepler's labels), joules over the run, share
 * of the node and an error bar (exporter_report.h; exporter_check.c's top
 * comment says how the error bar is derived).
 */
#include "validator/exporter_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/wc_text.h"

/* The run energy of a track: every known delta, and its first value when it
 * appeared after the first scrape (its energy since it started). */
static double track_joules(const wc_xp_data *d, const wc_xp_track *t)
{
    double j = t->n && t->scrape[0] > 0 && isfinite(t->v[0]) && !d->restart[t->scrape[0]] ? t->v[0] : 0;
    for (size_t i = 1; i < t->n; i++) {
        wc_xp_dkind kind;
        double dj = wc_xp_track_delta(d, t, i, &kind);
        if (kind == WC_XP_D_OK)
            j += dj;
        else if (kind == WC_XP_D_RESET && isfinite(t->v[i]))
            j += t->v[i]; /* restarted from 0: its value is the energy since */
    }
    return j;
}

/* The node's relative error (%) against truth of the exporter's source for
 * zone z, from acc; NAN when not scored. */
static double node_err_pct(const wc_accuracy_report *acc, const wc_xp_one *x, const char *z)
{
    for (size_t i = 0; acc && i < x->nsources; i++) {
        if (strcmp(x->source_zone[i], z) || x->source_index[i] < 0 || !acc->ntruth)
            continue;
        const wc_acc_cell *c = wc_accuracy_cell(acc, (size_t)x->source_index[i], 0, 0, -1);
        if (!c)
            return NAN;
        const wc_ci *b = &c->acc.bias_pct;
        if (isfinite(b->lo) && isfinite(b->hi))
            return fmax(fabs(b->lo), fabs(b->hi));
        return fabs(b->est);
    }
    return NAN;
}

static int by_joules(const void *a, const void *b)
{
    const wc_xp_show *x = a, *y = b;
    return x->joules < y->joules ? 1 : x->joules > y->joules ? -1 : strcmp(x->uid, y->uid);
}

/* The error basis: which node source and class figure the error bar reads. */
static void error_basis(const wc_accuracy_report *acc, double class_err_pct, wc_xp_one *x)
{
    const char *basis = "platform";
    double e = node_err_pct(acc, x, basis);
    if (!isfinite(e)) {
        basis = x->show_zone;
        e = node_err_pct(acc, x, basis);
    }
    double ec = isfinite(class_err_pct) ? class_err_pct : 0;
    x->show_err_pct = isfinite(e) ? sqrt(e * e + ec * ec) : NAN;
    if (!isfinite(e))
        wc_textf(x->show_err_basis, sizeof x->show_err_basis,
                 "no error bar: the exporter's node energy was not scored against ground truth");
    else
        wc_textf(x->show_err_basis, sizeof x->show_err_basis,
                 "+-%.1f %% = sqrt(node %s vs truth %.1f %%^2 + class bias %.1f %%^2)%s", x->show_err_pct,
                 basis, e, ec, isfinite(class_err_pct) ? "" : " (no workload classes in the run)");
}

int wc_xp_showback(const wc_xp_data *d, const wc_accuracy_report *acc, double class_err_pct,
                   wc_xp_one *x)
{
    wc_textf(x->show_zone, sizeof x->show_zone, "%s", x->ngap ? x->gap[0].zone : "package");
    for (size_t g = 0; g < x->ngap; g++)
        if (!strcmp(x->gap[g].zone, "package"))
            wc_textf(x->show_zone, sizeof x->show_zone, "package");
    for (size_t g = 0; g < x->ngap; g++)
        if (!strcmp(x->gap[g].zone, x->show_zone))
            x->show_node_j = x->gap[g].total_j;
    wc_xp_track *t = NULL;
    size_t nt = 0;
    if (wc_xp_tracks(d, "pod", &t, &nt))
        return -ENOMEM;
    wc_xp_show *all = calloc(nt ? nt : 1, sizeof *all);
    if (!all) {
        wc_xp_tracks_free(t, nt);
        return -ENOMEM;
    }
    size_t n = 0;
    for (size_t i = 0; i < nt; i++) {
        if (strcmp(t[i].s->row.zone, x->show_zone))
            continue;
        wc_xp_show *s = &all[n++];
        wc_textf(s->uid, sizeof s->uid, "%s", t[i].s->row.key);
        wc_textf(s->name, sizeof s->name, "%s", t[i].s->row.name);
        wc_textf(s->ns, sizeof s->ns, "%s", t[i].s->row.ns);
        s->joules = track_joules(d, &t[i]);
    }
    wc_xp_tracks_free(t, nt);
    qsort(all, n, sizeof *all, by_joules);
    error_basis(acc, class_err_pct, x);
    x->show_pods = 0;
    for (size_t i = 0; i < n; i++) {
        x->show_pods += all[i].joules > 0;
        all[i].share_pct = x->show_node_j > 0 ? 100.0 * all[i].joules / x->show_node_j : NAN;
        all[i].err_j = all[i].joules * x->show_err_pct / 100.0;
        if (x->nshow < WC_XP_MAX_SHOW && all[i].joules > 0)
            x->show[x->nshow++] = all[i];
    }
    free(all);
    return 0;
}
