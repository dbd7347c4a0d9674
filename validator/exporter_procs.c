/*
 * exporter_procs.c — the second opinion's process level (exporter_ref.c):
 * the exporter's per-process energy against the reference model's, matched
 * by pid + comm, a reused pid told apart by lifetime.
 *
 * Kepler's process series carry pid and comm, no start time. An exporter
 * INCARNATION is a (pid, comm) track (exporter_data.h) cut where its counter
 * falls outside a restart (a new process under a reused pid starts from 0)
 * or jumps by 2^63 µJ or more (Kepler's per-pid cache meeting a reused pid:
 * that interval is no energy and is not compared); a new comm is another
 * track. A wattcal process is (pid, starttime, comm)
 * alive over the ticks where the model attributed it a row. Each
 * incarnation is the process of its pid and comm its scrapes overlap most
 * (keyed "pid P start S"; an exporter-wide reset that cut a process's
 * counter joins it again); "pid P (no recorded process)" when none. A
 * process no incarnation chose (a reuse the exporter did not show) joins the
 * incarnation it overlaps most, its energy summed there; one overlapping
 * none is not compared (the exporter never exported it). Interval placement
 * and scoring are exporter_ref.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/model/attribution.h"
#include "collector/store/store_read.h"
#include "collector/store/store_results.h"
#include "common/wc_text.h"
#include "validator/exporter_ref_internal.h"

/* One exporter incarnation: samples j0..j1 of track t. */
typedef struct inc {
    const wc_xp_track *t;
    size_t j0, j1;
    long pid;
    int64_t t0, t1;              /* scrape response times spanning it (monotonic ns) */
    long proc;                   /* the wattcal process it is (most overlap), -1 none */
    size_t key;                  /* its ref_key */
    int jumped;                  /* began with Kepler's pid-reuse jump: its first value is no
                                    energy (else: its energy since it started) */
} inc;

/* One wattcal process of the zone: its rows and lifetime. */
typedef struct rproc {
    int64_t id;
    size_t first, last;          /* timebase indexes of its first and last row */
    int32_t pid;
    uint64_t start;
    char comm[64];
    long key;                    /* its ref_key, -1 not compared */
} rproc;

/* One work row of the zone. */
typedef struct prow {
    int64_t id;
    size_t ti;
    double j;
    int excluded;                /* Kepler's NEGATIVE_SHARE (~2^64 µJ): no energy, the
                                    interval is not compared (validator/levels.h) */
} prow;

typedef struct procs_ctx {
    ref_ctx *c;
    const wc_timebase *tb;
    inc *incs;
    size_t ninc;
    prow *rows;
    size_t nrows, caprows;
    rproc *procs;
    size_t nprocs;
} procs_ctx;

/* The incarnations of the zone's process tracks. Returns 0 or -ENOMEM. */
static int incs_build(procs_ctx *p, const wc_xp_track *t, size_t nt)
{
    size_t cap = 0;
    for (size_t i = 0; i < nt; i++)
        cap += t[i].n;
    p->incs = calloc(cap ? cap : 1, sizeof *p->incs);
    if (!p->incs)
        return -ENOMEM;
    const wc_xp_data *d = p->c->d;
    for (size_t i = 0; i < nt; i++) {
        if (strcmp(t[i].s->row.zone, p->c->zone) || !t[i].n)
            continue;
        size_t j0 = 0;
        int jumped = 0;
        for (size_t j = 1; j <= t[i].n; j++) {
            wc_xp_dkind kind = WC_XP_D_OK;
            double dj = j < t[i].n ? wc_xp_track_delta(d, &t[i], j, &kind) : 0;
            int jump = kind == WC_XP_D_OK && dj >= WC_XP_PID_REUSE_J;
            if (j < t[i].n && kind != WC_XP_D_DECREASE && !jump)
                continue;
            inc *n = &p->incs[p->ninc++];
            *n = (inc){.t = &t[i], .j0 = j0, .j1 = j - 1, .pid = strtol(t[i].s->row.key, NULL, 10), .proc = -1,
                       .t0 = d->scrapes[t[i].scrape[j0] ? t[i].scrape[j0] - 1 : 0].resp_mono_ns,
                       .t1 = d->scrapes[t[i].scrape[j - 1]].resp_mono_ns, .jumped = jumped};
            j0 = j, jumped = jump;
        }
    }
    return 0;
}

static int by_id(const void *a, const void *b)
{
    const prow *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id ? 1 : (x->ti > y->ti) - (x->ti < y->ti);
}

/* The model's process rows of the zone (sorted by process, then tick). */
static int rows_load(wc_store *st, int64_t model_id, procs_ctx *p, wc_error *err)
{
    wc_store_iter *it = NULL;
    int rc = wc_store_work_rows_open(st, model_id, 0, &it, err);
    wc_work_row r;
    while (!rc && (rc = wc_store_work_row_next(it, &r, err)) == 1) {
        rc = 0;
        long ti = wc_timebase_index(p->tb, r.tick_id);
        if (r.level != WC_LEVEL_PROCESS || ti < 0 || !r.zone || strcmp(r.zone, p->c->zone))
            continue;
        if (p->nrows == p->caprows) {
            size_t cap = p->caprows ? p->caprows * 2 : 256;
            prow *n = realloc(p->rows, cap * sizeof *n);
            if (!n) {
                rc = wc_error_set(err, -ENOMEM, "out of memory reading process rows");
                break;
            }
            p->rows = n, p->caprows = cap;
        }
        int neg = (r.flags & WC_AF_NEGATIVE_SHARE) != 0;
        p->rows[p->nrows++] = (prow){r.process_id, (size_t)ti, neg ? 0 : r.energy_uj / 1e6, neg};
    }
    wc_store_iter_close(it);
    if (rc < 0)
        return rc;
    if (p->nrows) /* qsort of NULL is UB (an imported run has no process rows) */
        qsort(p->rows, p->nrows, sizeof *p->rows, by_id);
    return 0;
}

/* The distinct processes of the rows with their lifetimes. */
static int procs_build(procs_ctx *p)
{
    p->procs = calloc(p->nrows ? p->nrows : 1, sizeof *p->procs);
    if (!p->procs)
        return -ENOMEM;
    for (size_t i = 0; i < p->nrows; i++) {
        rproc *q = p->nprocs ? &p->procs[p->nprocs - 1] : NULL;
        if (q && q->id == p->rows[i].id) {
            q->last = p->rows[i].ti;
            continue;
        }
        p->procs[p->nprocs++] = (rproc){.id = p->rows[i].id, .first = p->rows[i].ti,
                                        .last = p->rows[i].ti, .key = -1};
    }
    return 0;
}

/* Overlap (ns) of process q's lifetime with incarnation n; -1 none. The
 * lifetime is what an exporter can show of it: from the tick before its first
 * row (the interval that row covers) to the tick after its last (an exporter
 * serves a tick's numbers until the next one), so a process of one tick,
 * exported only once it ended (terminated), still meets its incarnation. */
static int64_t overlap(const procs_ctx *p, const rproc *q, const inc *n)
{
    size_t f = q->first ? q->first - 1 : 0, l = q->last + 1 < p->tb->n ? q->last + 1 : q->last;
    int64_t a = p->tb->mono_ns[f], b = p->tb->mono_ns[l];
    int64_t lo = a > n->t0 ? a : n->t0, hi = b < n->t1 ? b : n->t1;
    return hi >= lo ? hi - lo : -1;
}

/* The pid, start time and comm of every process. Returns 0, -EIO/-ENOMEM. */
static int identities(wc_store *st, procs_ctx *p, wc_error *err)
{
    int64_t *ids = malloc((p->nprocs ? p->nprocs : 1) * sizeof *ids);
    wc_process_row *pr = calloc(p->nprocs ? p->nprocs : 1, sizeof *pr);
    int rc = ids && pr ? 0 : wc_error_set(err, -ENOMEM, "out of memory matching processes");
    for (size_t i = 0; !rc && i < p->nprocs; i++)
        ids[i] = p->procs[i].id;
    if (!rc)
        rc = wc_store_get_processes(st, ids, p->nprocs, pr, err);
    for (size_t i = 0; !rc && i < p->nprocs; i++) {
        p->procs[i].pid = pr[i].found ? pr[i].pid : -1;
        p->procs[i].start = pr[i].starttime;
        wc_textf(p->procs[i].comm, sizeof p->procs[i].comm, "%s", pr[i].comm);
    }
    free(ids);
    free(pr);
    return rc;
}

/* The process of the same pid and comm overlapping incarnation n most, or
 * (proc >= 0) whether incarnation n is one of proc's: its overlap, -1 none. */
static int64_t same(const procs_ctx *p, size_t q, const inc *n)
{
    const rproc *r = &p->procs[q];
    if (r->pid != n->pid || strcmp(r->comm, n->t->s->row.name))
        return -1;
    return overlap(p, r, n);
}

/* Each incarnation goes to the process of its pid and comm it overlaps most
 * (a counter reset by the exporter then joins the same process again); a
 * process no incarnation chose (a reuse the exporter did not show) joins
 * the incarnation it overlaps most, summed under its key. */
static void match(procs_ctx *p)
{
    for (size_t k = 0; k < p->ninc; k++) {
        int64_t best = -1;
        for (size_t q = 0; q < p->nprocs; q++) {
            int64_t o = same(p, q, &p->incs[k]);
            if (o > best)
                best = o, p->incs[k].proc = (long)q;
        }
    }
    for (size_t q = 0; q < p->nprocs; q++) {
        int64_t best = -1;
        long inc_of = -1;
        for (size_t k = 0; k < p->ninc && p->procs[q].key < 0; k++) {
            int64_t o = same(p, q, &p->incs[k]);
            if (p->incs[k].proc == (long)q)
                p->procs[q].key = -2; /* chosen: keyed in keys_alloc */
            else if (o > best)
                best = o, inc_of = (long)k;
        }
        if (p->procs[q].key == -1 && inc_of >= 0)
            p->procs[q].key = -3 - inc_of; /* joins incarnation inc_of */
    }
}

/* One key per process some incarnation chose ("pid P start S") and one per
 * incarnation of no process ("pid P (no recorded process)"); then every
 * incarnation and process points at its key. Returns 0 or -ENOMEM. */
static int keys_alloc(procs_ctx *p)
{
    size_t n = p->c->d->nscrapes;
    p->c->keys = calloc(p->ninc + p->nprocs + 1, sizeof *p->c->keys);
    if (!p->c->keys)
        return -ENOMEM;
    for (size_t q = 0; q < p->nprocs; q++)
        if (p->procs[q].key == -2) {
            p->procs[q].key = (long)p->c->nkeys;
            wc_textf(p->c->keys[p->c->nkeys].key, sizeof p->c->keys[0].key, "pid %ld start %llu",
                     (long)p->procs[q].pid, (unsigned long long)p->procs[q].start);
            wc_textf(p->c->keys[p->c->nkeys++].name, sizeof p->c->keys[0].name, "%s", p->procs[q].comm);
        }
    for (size_t k = 0; k < p->ninc; k++) {
        inc *i = &p->incs[k];
        if (i->proc >= 0) {
            i->key = (size_t)p->procs[i->proc].key;
            continue;
        }
        i->key = p->c->nkeys;
        wc_textf(p->c->keys[p->c->nkeys].key, sizeof p->c->keys[0].key, "pid %ld (no recorded process)",
                 i->pid);
        wc_textf(p->c->keys[p->c->nkeys++].name, sizeof p->c->keys[0].name, "%s", i->t->s->row.name);
    }
    for (size_t q = 0; q < p->nprocs; q++)
        if (p->procs[q].key <= -3)
            p->procs[q].key = (long)p->incs[-3 - p->procs[q].key].key;
    for (size_t i = 0; i < p->c->nkeys; i++) {
        ref_key *k = &p->c->keys[i];
        k->exp_j = calloc(n ? n : 1, sizeof(double));
        k->ref_j = calloc(n ? n : 1, sizeof(double));
        k->known = calloc(n ? n : 1, 1);
        if (!k->exp_j || !k->ref_j || !k->known)
            return -ENOMEM;
    }
    return 0;
}

/* The exporter's deltas of each incarnation into its key: known where both
 * scrapes answered and its step is known; its first sample is its energy
 * since it started (unless a restart lies just before it). Intervals outside
 * its life are 0 J and known. */
static void fill_exporter(procs_ctx *p)
{
    const wc_xp_data *d = p->c->d;
    for (size_t i = 0; i < p->c->nkeys; i++)
        for (size_t s = 0; s < d->nscrapes; s++)
            p->c->keys[i].known[s] = s > 0 && wc_xp_ref_scrape_ok(d, s) && wc_xp_ref_scrape_ok(d, s - 1);
    for (size_t i = 0; i < p->ninc; i++) {
        ref_key *k = &p->c->keys[p->incs[i].key];
        const wc_xp_track *t = p->incs[i].t;
        for (size_t j = p->incs[i].j0; j <= p->incs[i].j1; j++) {
            size_t s = t->scrape[j];
            wc_xp_dkind kind = WC_XP_D_MISSING;
            int first = j == p->incs[i].j0;
            double dj = first ? t->v[j] : wc_xp_track_delta(d, t, j, &kind);
            if (first && s > 0 && !d->restart[s] && isfinite(dj) && !p->incs[i].jumped)
                kind = WC_XP_D_OK;
            if (kind != WC_XP_D_OK || (!first && t->scrape[j - 1] + 1 != s))
                k->known[s] = 0;
            else
                k->exp_j[s] += dj;
        }
    }
}

/* The model's per-tick energy of each matched process into its key; an
 * interval holding a NEGATIVE_SHARE row of it is unknown (not compared). */
static void fill_reference(procs_ctx *p)
{
    size_t q = 0;
    for (size_t i = 0; i < p->nrows; i++) {
        while (q < p->nprocs && p->procs[q].id != p->rows[i].id)
            q++;
        if (q == p->nprocs || p->procs[q].key < 0)
            continue;
        size_t s = p->c->tick_scrape[p->rows[i].ti];
        if (s > 0 && s < p->c->d->nscrapes && p->rows[i].excluded)
            p->c->keys[p->procs[q].key].known[s] = 0;
        else if (s > 0 && s < p->c->d->nscrapes)
            p->c->keys[p->procs[q].key].ref_j[s] += p->rows[i].j;
    }
}

int wc_xp_ref_processes(wc_store *st, int64_t model_id, const wc_timebase *tb,
                        const wc_boot_cfg *boot, ref_ctx *c, wc_xp_one *x, wc_error *err)
{
    procs_ctx p = {.c = c, .tb = tb};
    wc_xp_track *t = NULL;
    size_t nt = 0;
    int rc = wc_xp_tracks(c->d, "process", &t, &nt);
    if (!rc && incs_build(&p, t, nt))
        rc = -ENOMEM;
    if (rc)
        rc = wc_error_set(err, -ENOMEM, "out of memory comparing processes with the reference");
    if (!rc && p.ninc)
        rc = rows_load(st, model_id, &p, err);
    if (!rc && p.ninc && procs_build(&p))
        rc = wc_error_set(err, -ENOMEM, "out of memory comparing processes with the reference");
    if (!rc && p.ninc)
        rc = identities(st, &p, err);
    if (!rc && p.ninc) {
        match(&p);
        if (keys_alloc(&p))
            rc = wc_error_set(err, -ENOMEM, "out of memory comparing processes with the reference");
    }
    if (!rc && p.ninc) {
        fill_exporter(&p);
        fill_reference(&p);
        if (wc_xp_ref_keep_top(c, boot, x))
            rc = wc_error_set(err, -ENOMEM, "out of memory scoring processes");
    }
    wc_xp_ref_keys_free(c);
    wc_xp_tracks_free(t, nt);
    free(p.incs);
    free(p.rows);
    free(p.procs);
    return rc;
}
