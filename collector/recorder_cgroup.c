/*
 * recorder_cgroup.c — the pods' and containers' CPU accounting read every
 * tick (see recorder_cgroup.h): a table of the cgroups with live processes,
 * reference-counted by process, and one read of each per tick.
 */
#include "collector/recorder_cgroup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/procfs/cgroup_cpu.h"
#include "collector/store/store_cgroup_cpu.h"

/* One pod or container cgroup. */
typedef struct cg_entry {
    int pod;                     /* 1 pod, 0 container */
    char key[72];                /* pod uid | container id */
    char dir[512];
    int64_t id;                  /* its cgroup row */
    size_t live;                 /* processes alive in it */
    int accounted;               /* its accounting file was recorded */
} cg_entry;

struct wc_rec_cgroups {
    char sysfs_root[512];
    cg_entry *e;
    size_t n, cap;
    wc_cgroup_cpu_in *reads;
    size_t reads_cap;
};

wc_rec_cgroups *wc_rec_cgroups_new(const char *sysfs_root)
{
    wc_rec_cgroups *c = calloc(1, sizeof *c);
    if (c)
        snprintf(c->sysfs_root, sizeof c->sysfs_root, "%s", sysfs_root);
    return c;
}

void wc_rec_cgroups_free(wc_rec_cgroups *c)
{
    if (!c)
        return;
    free(c->e);
    free(c->reads);
    free(c);
}

static cg_entry *find(wc_rec_cgroups *c, int pod, const char *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->e[i].pod == pod && strcmp(c->e[i].key, key) == 0)
            return &c->e[i];
    return NULL;
}

/* The entry of (pod, key), registered in the store when new. */
static int enter(wc_rec_cgroups *c, wc_store *st, int pod, const char *key, const char *dir,
                 wc_error *err)
{
    cg_entry *e = find(c, pod, key);
    if (!e) {
        if (c->n == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 32;
            cg_entry *p = realloc(c->e, cap * sizeof *p);
            if (!p)
                return wc_error_set(err, -ENOMEM, "out of memory");
            c->e = p;
            c->cap = cap;
        }
        e = &c->e[c->n];
        memset(e, 0, sizeof *e);
        e->pod = pod;
        snprintf(e->key, sizeof e->key, "%s", key);
        snprintf(e->dir, sizeof e->dir, "%s", dir);
        int rc = wc_store_put_cgroup(st, pod ? "pod" : "container", key, dir, &e->id, err);
        if (rc)
            return rc;
        c->n++;
    }
    e->live++;
    return 0;
}

/* A process appears (delta +1) or goes (-1): its pod and container. */
static int follow(wc_rec_cgroups *c, wc_store *st, const wc_proc_identity *p, int delta,
                  wc_error *err)
{
    const wc_cgroup_ids *g = &p->cgroup;
    const char *path = p->cgroup_path ? p->cgroup_path : "";
    char pod_dir[512];
    int has_pod = g->pod_uid[0] && wc_cgroup_pod_dir(path, g->pod_uid, pod_dir,
                                                     sizeof pod_dir) == 0;
    int has_ctr = g->container_id[0] && !g->is_runtime_monitor;
    for (int pod = 0; pod <= 1; pod++) {
        if (!(pod ? has_pod : has_ctr))
            continue;
        const char *key = pod ? g->pod_uid : g->container_id;
        if (delta > 0) {
            int rc = enter(c, st, pod, key, pod ? pod_dir : path, err);
            if (rc)
                return rc;
        } else {
            cg_entry *e = find(c, pod, key);
            if (e && e->live)
                e->live--;
        }
    }
    return 0;
}

/* Reads one live cgroup into r (status and usage). */
static void read_one(wc_rec_cgroups *c, cg_entry *e, wc_cgroup_cpu_in *r, wc_cgcpu_kind *kind,
                     int64_t *read_errors, wc_error *why)
{
    wc_error e1 = {{0}};
    r->cgroup_id = e->id;
    r->usage_ns = 0;
    r->status = wc_cgroup_cpu_read(c->sysfs_root, e->dir, &r->usage_ns, kind, &e1);
    if (r->status) {
        (*read_errors)++;
        if (!why->msg[0])
            *why = e1;
    }
}

int wc_rec_cgroups_tick(wc_rec_cgroups *c, wc_store *st, int64_t tick_id,
                        const wc_proc_snapshot *snap, int64_t *read_errors, wc_error *why,
                        wc_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < snap->gone_count && !rc; i++)
        rc = follow(c, st, snap->gone[i], -1, err);
    for (size_t i = 0; i < snap->count && !rc; i++)
        if (snap->samples[i].is_new)
            rc = follow(c, st, snap->samples[i].id, +1, err);
    if (rc)
        return rc;
    if (c->n > c->reads_cap) {
        wc_cgroup_cpu_in *p = realloc(c->reads, c->n * sizeof *p);
        if (!p)
            return wc_error_set(err, -ENOMEM, "out of memory");
        c->reads = p;
        c->reads_cap = c->n;
    }
    size_t m = 0;
    for (size_t i = 0; i < c->n && !rc; i++) {
        cg_entry *e = &c->e[i];
        if (!e->live)
            continue;
        wc_cgcpu_kind kind = WC_CGCPU_NONE;
        read_one(c, e, &c->reads[m], &kind, read_errors, why);
        if (c->reads[m++].status == 0 && !e->accounted) {
            e->accounted = 1;
            rc = wc_store_set_cgroup_accounting(st, e->id, wc_cgcpu_kind_name(kind), err);
        }
    }
    return rc ? rc : wc_store_put_cgroup_cpu(st, tick_id, c->reads, m, err);
}
