/*
 * exporter_diff.c — the exporter's own per-pod series of two runs compared
 * (exporter_diff.h).
 */
#include "validator/exporter_diff.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_exporter.h"
#include "common/wc_text.h"
#include "validator/exporter_data.h"
#include "validator/text_report.h"

/* One side: its exporter, pod tracks in the zone and full windows. */
typedef struct xside {
    wc_xp_data d;
    wc_xp_track *t;
    size_t nt, nw;
    int64_t t0, w_ns;
} xside;

/* The pod's mean power (W) per window into x, only the windows where every
 * delta of the pod is known (a window holding a reset, a fall or a gap is
 * left out, never read as 0 W); bad[nw] is scratch. Returns how many. */
static size_t pod_windows(const xside *s, const char *zone, const char *uid, double *x,
                          unsigned char *bad)
{
    memset(x, 0, s->nw * sizeof *x);
    memset(bad, 0, s->nw);
    for (size_t i = 0; i < s->nt; i++) {
        const wc_xp_track *t = &s->t[i];
        if (strcmp(t->s->row.key, uid) || strcmp(t->s->row.zone, zone))
            continue;
        for (size_t j = 1; j < t->n; j++) {
            wc_xp_dkind kind;
            double dj = wc_xp_track_delta(&s->d, t, j, &kind);
            /* the interval's midpoint: a scrape a little early or late never
             * moves its delta into the next window */
            int64_t at = (s->d.scrapes[t->scrape[j - 1]].resp_mono_ns +
                          s->d.scrapes[t->scrape[j]].resp_mono_ns) / 2 - s->t0;
            size_t w = at >= 0 ? (size_t)(at / s->w_ns) : s->nw;
            if (w < s->nw && kind == WC_XP_D_OK)
                x[w] += dj / ((double)s->w_ns / 1e9);
            else if (w < s->nw)
                bad[w] = 1;
        }
    }
    size_t m = 0;
    for (size_t w = 0; w < s->nw; w++)
        if (!bad[w])
            x[m++] = x[w];
    return m;
}

/* Loads a side. Returns 1 loaded, 0 no exporter, < 0 error. */
static int side_load(const wc_diff_side *ds, const char *zone, double window_s, xside *s,
                     wc_error *err)
{
    memset(s, 0, sizeof *s);
    wc_exporter_info info[1];
    size_t n = 0;
    int rc = wc_store_exporters(ds->st, info, 1, &n, err);
    if (rc || !n)
        return rc;
    rc = wc_xp_load(ds->st, &info[0], &s->d, err);
    if (!rc && wc_xp_tracks(&s->d, "pod", &s->t, &s->nt))
        rc = wc_error_set(err, -ENOMEM, "out of memory");
    if (rc)
        return rc;
    (void)zone;
    s->w_ns = (int64_t)llround(window_s * 1e9);
    if (s->d.nscrapes >= 2) {
        s->t0 = s->d.scrapes[0].resp_mono_ns;
        s->nw = (size_t)((s->d.scrapes[s->d.nscrapes - 1].resp_mono_ns - s->t0) / s->w_ns);
    }
    return 1;
}

static void side_free(xside *s)
{
    wc_xp_tracks_free(s->t, s->nt);
    wc_xp_free(&s->d);
}

/* A pod of either side, with its run energy on both. */
typedef struct xcand {
    char uid[160], name[200];
    double a_j, b_j;
} xcand;

static int by_energy(const void *x, const void *y)
{
    const xcand *p = x, *q = y;
    double a = fmax(p->a_j, p->b_j), b = fmax(q->a_j, q->b_j);
    return (a < b) - (a > b);
}

/* Adds the pods of side s (b: which side) into c (capacity cap). */
static size_t add_pods(const xside *s, const char *zone, int b, xcand *c, size_t n, size_t cap)
{
    for (size_t i = 0; i < s->nt; i++) {
        const wc_xp_track *t = &s->t[i];
        if (strcmp(t->s->row.zone, zone))
            continue;
        size_t k = 0;
        while (k < n && strcmp(c[k].uid, t->s->row.key))
            k++;
        if (k == n) {
            if (n == cap)
                continue;
            memset(&c[n], 0, sizeof c[n]);
            wc_textf(c[n].uid, sizeof c[n].uid, "%s", t->s->row.key);
            n++;
        }
        wc_textf(c[k].name, sizeof c[k].name, "%s/%s", t->s->row.ns, t->s->row.name);
        double *j = b ? &c[k].b_j : &c[k].a_j;
        for (size_t m = 1; m < t->n; m++) {
            wc_xp_dkind kind;
            double dj = wc_xp_track_delta(&s->d, t, m, &kind);
            *j += kind == WC_XP_D_OK ? dj : 0;
        }
    }
    return n;
}

/* One side's mean power over its n known windows with its interval and
 * bootstrap replicates (n 0: NAN, the verdict is then INCONCLUSIVE). Returns 0
 * or -ENOMEM. */
static int side_mean(const double *x, size_t n, const wc_boot_cfg *cfg, wc_ci *ci, double *reps)
{
    *ci = (wc_ci){NAN, NAN, NAN};
    if (!n) {
        for (int i = 0; i < wc_boot_replicates(cfg); i++)
            reps[i] = NAN;
        return 0;
    }
    int rc = wc_boot_mean_ci(x, n, cfg, ci);
    return rc ? rc : wc_boot_mean_replicates(x, n, cfg, reps);
}

/* One compared row: means, intervals, difference, verdict. */
static int compare_row(const xside *sa, const xside *sb, const wc_diff_opts *o, const char *zone,
                       const xcand *c, wc_xp_diff_report *out)
{
    wc_diff_row *r = &out->pods.rows[out->pods.n];
    memset(r, 0, sizeof *r);
    wc_textf(r->key, sizeof r->key, "%s", c->uid);
    wc_textf(out->names[out->pods.n++], sizeof out->names[0], "%s", c->name);
    r->a_j = c->a_j;
    r->b_j = c->b_j;
    int reps = wc_boot_replicates(&o->boot);
    double *xa = calloc(sa->nw + 1, sizeof *xa), *xb = calloc(sb->nw + 1, sizeof *xb);
    double *ra = calloc((size_t)reps, sizeof *ra), *rb = calloc((size_t)reps, sizeof *rb);
    unsigned char *bad = calloc((sa->nw > sb->nw ? sa->nw : sb->nw) + 1, 1);
    int rc = xa && xb && ra && rb && bad ? 0 : -ENOMEM;
    wc_boot_cfg ca = o->boot, cb = o->boot;
    ca.min_block = cb.min_block = 1;
    cb.seed += 7777; /* independent sides: independent replicates */
    size_t na = rc ? 0 : pod_windows(sa, zone, c->uid, xa, bad);
    size_t nb = rc ? 0 : pod_windows(sb, zone, c->uid, xb, bad);
    if (!rc)
        rc = side_mean(xa, na, &ca, &r->a_w, ra);
    if (!rc)
        rc = side_mean(xb, nb, &cb, &r->b_w, rb);
    if (!rc) {
        r->diff_w = (wc_ci){r->b_w.est - r->a_w.est, NAN, NAN};
        for (int i = 0; i < reps; i++)
            rb[i] -= ra[i];
        if (na >= WC_BOOT_MIN_PAIRS && nb >= WC_BOOT_MIN_PAIRS)
            wc_percentile_ci(rb, (size_t)reps, &r->diff_w.lo, &r->diff_w.hi);
        wc_diff_decide(r, out->tolerance_pct, &out->counts);
    }
    free(xa), free(xb), free(ra), free(rb), free(bad);
    return rc;
}

int wc_xp_diff(const wc_diff_side *a, const wc_diff_side *b, const wc_diff_opts *o,
               wc_xp_diff_report *out, wc_error *err)
{
    memset(out, 0, sizeof *out);
    wc_textf(out->zone, sizeof out->zone, "%s", o->zone ? o->zone : "package");
    out->window_s = o->window_s > 0 ? o->window_s : 60;
    out->tolerance_pct = o->tolerance_pct > 0 ? o->tolerance_pct : 10;
    size_t top = o->top ? (o->top < WC_DIFF_MAX_TOP ? o->top : WC_DIFF_MAX_TOP) : 10;
    xside sa, sb;
    int ha = side_load(a, out->zone, out->window_s, &sa, err);
    int hb = ha == 1 ? side_load(b, out->zone, out->window_s, &sb, err) : 0;
    if (ha == 1 && hb == 1 && sa.nw && sb.nw) {
        out->have = 1;
        wc_textf(out->a_prov, sizeof out->a_prov, "%s", sa.d.info.provenance);
        wc_textf(out->b_prov, sizeof out->b_prov, "%s", sb.d.info.provenance);
        out->a_windows = sa.nw;
        out->b_windows = sb.nw;
        size_t cap = sa.nt + sb.nt + 1, n = 0;
        xcand *c = calloc(cap, sizeof *c);
        int rc = c ? 0 : wc_error_set(err, -ENOMEM, "out of memory");
        n = c ? add_pods(&sb, out->zone, 1, c, add_pods(&sa, out->zone, 0, c, 0, cap), cap) : 0;
        qsort(c, n, sizeof *c, by_energy);
        out->pods.level = WC_DIFF_POD;
        for (size_t i = 0; i < n; i++) {
            out->pods.keys_a += c[i].a_j > 0;
            out->pods.keys_b += c[i].b_j > 0;
        }
        for (size_t i = 0; !rc && i < n && i < top; i++)
            if (compare_row(&sa, &sb, o, out->zone, &c[i], out))
                rc = wc_error_set(err, -ENOMEM, "out of memory");
        free(c);
        ha = rc ? rc : ha;
    }
    if (ha == 1 || ha < 0)
        side_free(&sa);
    if (hb == 1 || hb < 0)
        side_free(&sb);
    return ha < 0 ? ha : hb < 0 ? hb : 0;
}

void wc_xp_diff_text(FILE *out, const wc_xp_diff_report *r)
{
    if (!r->have)
        return;
    char a[200], b[200], k[64], n[64];
    fprintf(out, "\nThe exporters' own per-pod energy (zone %s, full %g s windows from the first scrape:"
                 " A %zu, B %zu; matched by pod uid)\n  A: %s\n  B: %s\n",
            r->zone, r->window_s, r->a_windows, r->b_windows, wc_term_safe(r->a_prov, a, sizeof a),
            wc_term_safe(r->b_prov, b, sizeof b));
    fprintf(out, "  %-36s %-24s %12s %-26s %12s %-26s %-28s %8s %s\n", "pod uid", "namespace/name", "A_J",
            "A_W [95% CI]", "B_J", "B_W [95% CI]", "diff_W (B-A) [95% CI]", "diff_%", "verdict");
    for (size_t i = 0; i < r->pods.n; i++) {
        const wc_diff_row *x = &r->pods.rows[i];
        char aw[64], bw[64], dw[64], p[32];
        const wc_ci *cs[3] = {&x->a_w, &x->b_w, &x->diff_w};
        char *bufs[3] = {aw, bw, dw};
        for (int j = 0; j < 3; j++)
            snprintf(bufs[j], 64, isfinite(cs[j]->lo) ? "%.3f [%.3f,%.3f]" : "%.3f", cs[j]->est, cs[j]->lo,
                     cs[j]->hi);
        snprintf(p, sizeof p, isfinite(x->diff_pct) ? "%+.2f" : "-", x->diff_pct);
        fprintf(out, "  %-36s %-24s %12.3f %-26s %12.3f %-26s %-28s %8s %s\n", wc_term_safe(x->key, k, 37),
                wc_term_safe(r->names[i], n, 25), x->a_j, aw, x->b_j, bw, dw, p, wc_diff_verdict_name(x->verdict));
    }
    fprintf(out, "exporter verdict (tolerance ±%g %% of A's mean power): %zu CHANGED, %zu same, %zu inconclusive,"
                 " %zu new, %zu gone\n", r->tolerance_pct, r->counts.changed, r->counts.same,
            r->counts.inconclusive, r->counts.appeared, r->counts.vanished);
}
