/*
 * serve_workloads.c — the workloads `wattcal serve` exposes (serve_state.h):
 * one tick's attribution rows grouped into processes, containers and pods,
 * merged into the sorted list of those already exposed; workloads no longer
 * seen become terminated and expire, new ones beyond the cap are refused
 * and counted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/serve/serve_internal.h"
#include "common/wc_text.h"

static int wl_cmp(const void *a, const void *b)
{
    const serve_wl *x = a, *y = b;
    if (x->level != y->level)
        return x->level < y->level ? -1 : 1;
    return strcmp(x->key, y->key);
}

static int level_of(wc_attr_level l)
{
    return l == WC_LEVEL_PROCESS ? SV_PROCESS : l == WC_LEVEL_CONTAINER ? SV_CONTAINER : SV_POD;
}

/* The identity fields of the workload of row w. */
static void describe(serve_wl *e, const wc_attr_work_out *w, const wc_record_tick *t)
{
    const wc_attr_proc_in *p = &t->in->procs[w->proc_index];
    const char *cid = p->container_id ? p->container_id : "";
    const char *pod = p->pod_uid ? p->pod_uid : "";
    e->level = level_of(w->level);
    if (e->level == SV_PROCESS) {
        wc_textf(e->key, sizeof e->key, "%d/%llu", (int)p->pid, (unsigned long long)p->starttime);
        wc_textf(e->pid, sizeof e->pid, "%d", (int)p->pid);
        if (w->proc_index < t->snap->count)
            wc_copy_trunc(e->comm, sizeof e->comm, t->snap->samples[w->proc_index].id->comm);
        wc_copy_trunc(e->container_id, sizeof e->container_id, cid);
    } else if (e->level == SV_CONTAINER) {
        wc_copy_trunc(e->key, sizeof e->key, w->key);
        wc_copy_trunc(e->container_id, sizeof e->container_id, w->key);
    } else {
        wc_copy_trunc(e->key, sizeof e->key, w->key);
    }
    wc_copy_trunc(e->pod_id, sizeof e->pod_id, e->level == SV_POD ? w->key : pod);
    e->running = 1;
    e->last_seen_ns = t->mono_ns;
}

/* True when row w belongs to the workload e (rows of one workload are
 * consecutive: one per zone). */
static int same_workload(const serve_wl *e, const wc_attr_work_out *w, const wc_record_tick *t)
{
    if (e->level != level_of(w->level))
        return 0;
    if (e->level != SV_PROCESS)
        return strncmp(e->key, w->key, sizeof e->key - 1) == 0;
    const wc_attr_proc_in *p = &t->in->procs[w->proc_index];
    char key[96];
    wc_textf(key, sizeof key, "%d/%llu", (int)p->pid, (unsigned long long)p->starttime);
    return strcmp(e->key, key) == 0;
}

/* The tick's workloads, sorted (*out malloc'd; *n of them). 0 or -ENOMEM. */
static int current(const wc_record_tick *t, serve_wl **out, size_t *n)
{
    size_t cap = t->out->nwork ? t->out->nwork : 1, k = 0;
    serve_wl *cur = calloc(cap, sizeof *cur);
    if (!cur)
        return -ENOMEM;
    for (size_t i = 0; i < t->out->nwork; i++) {
        const wc_attr_work_out *w = &t->out->work[i];
        if (w->proc_index >= t->in->nprocs || w->level == WC_LEVEL_VM)
            continue; /* a VM row is no pod: serve publishes no VM level */
        if (k == 0 || !same_workload(&cur[k - 1], w, t))
            describe(&cur[k++], w, t);
        if (w->zone < SERVE_ZONES) {
            cur[k - 1].total_j[w->zone] = (double)w->total_uj / 1e6;
            cur[k - 1].watts[w->zone] = w->power_uw / 1e6;
        }
    }
    qsort(cur, k, sizeof *cur, wl_cmp);
    *out = cur;
    *n = k;
    return 0;
}

/* An exposed workload not seen this tick: terminated, and 1 when it is to
 * be removed (expired). */
static int age(wc_serve_state *s, serve_wl *e, int64_t now)
{
    if (e->running) {
        e->running = 0;
        for (size_t z = 0; z < SERVE_ZONES; z++)
            e->watts[z] = 0;
    }
    if (now - e->last_seen_ns < s->expire_ns)
        return 0;
    s->expired[e->level]++;
    return 1;
}

/* How many exposed workloads stay (seen now, or terminated but not expired). */
static size_t survivors(const wc_serve_state *s, const serve_wl *cur, size_t ncur, int64_t now)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->nwl; i++) {
        const serve_wl *e = &s->wl[i];
        if (bsearch(e, cur, ncur, sizeof *cur, wl_cmp) || now - e->last_seen_ns < s->expire_ns)
            kept++;
    }
    return kept;
}

int wc_serve_fold_workloads(wc_serve_state *s, const wc_record_tick *t)
{
    serve_wl *cur = NULL;
    size_t ncur = 0, i = 0, j = 0, k = 0;
    if (current(t, &cur, &ncur))
        return -ENOMEM;
    size_t kept = survivors(s, cur, ncur, t->mono_ns);
    size_t budget = s->max_workloads > kept ? s->max_workloads - kept : 0;
    serve_wl *next = calloc(s->nwl + ncur + 1, sizeof *next);
    if (!next) {
        free(cur);
        return -ENOMEM;
    }
    while (i < s->nwl || j < ncur) {
        int c = i == s->nwl ? 1 : j == ncur ? -1 : wl_cmp(&s->wl[i], &cur[j]);
        if (c == 0) {
            next[k++] = cur[j++];
            i++;
        } else if (c < 0) {
            if (!age(s, &s->wl[i], t->mono_ns))
                next[k++] = s->wl[i];
            i++;
        } else if (budget > 0) {
            budget--;
            next[k++] = cur[j++];
        } else {
            s->dropped[cur[j++].level]++;
        }
    }
    free(cur);
    free(s->wl);
    s->wl = next;
    s->nwl = k;
    return 0;
}
