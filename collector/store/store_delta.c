/*
 * store_delta.c — which process samples a tick writes (issue 15: a 24 h run
 * 7× smaller). A tick is either a KEYFRAME, one proc_sample row for every
 * process of the snapshot in scan order (tick.proc_delta NULL: every run
 * before this, and this one's keyframes), or a DELTA tick (tick.proc_delta
 * = 1): rows only for the processes whose utime, stime or num_threads
 * changed since the row last written for them, and for new ones. A reader
 * rebuilds a delta tick's complete list (store_replay.c) from the processes
 * alive at the previous tick, minus those whose process.last_tick_id is
 * before it, with each one's last written counters, in ascending pid order.
 *
 * Keyframe rule (what keeps `wattcal attribute` exact): the first tick a
 * store writes; every WC_STORE_KEYFRAME_TICKS-th tick after it (or every
 * tick when set to 1, the old format, wc_store_set_keyframe_every); the
 * first tick after a rolled-back transaction (the cache below no longer
 * matches the file); and every tick whose scan order is not ascending pid,
 * since the rebuilt order must be the scan order (Kepler sums the deltas in
 * scan order: floating point). /proc lists pids in ascending order, so on a
 * real node only the periodic keyframes are full; a fixture tree in another
 * readdir order is all keyframes (as large as before, still exact).
 *
 * The cache: the last written counters of each live process by its row id,
 * an open-addressing hash (linear probing, backward-shift deletion, at most
 * 3/4 full) grown by doubling, and a reused list of the rows to write: nothing is allocated per
 * tick in the steady state. Gone processes are forgotten.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collector/store/store_internal.h"

/* The last written counters of one process (id 0 = empty slot). */
typedef struct delta_ent {
    int64_t id;
    uint64_t utime, stime;
    int64_t threads;
} delta_ent;

struct wc_store_delta {
    delta_ent *slots;
    size_t cap, count;          /* cap: a power of two (0 before the first tick) */
    int64_t since_key;          /* delta ticks written since the last keyframe */
    int64_t every;              /* keyframe period in ticks (1 = every tick) */
    int need_key;               /* the next tick must be a keyframe */
    const wc_proc_sample **rows; /* this tick's rows to write */
    sqlite3_stmt *mark;         /* UPDATE tick SET proc_delta = 1 (prepared on first use) */
    size_t nrows, rows_cap;
};

static size_t home(const struct wc_store_delta *d, int64_t id)
{
    return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 20) & (d->cap - 1);
}

static size_t find(const struct wc_store_delta *d, int64_t id)
{
    size_t i = home(d, id);
    while (d->slots[i].id && d->slots[i].id != id)
        i = (i + 1) & (d->cap - 1);
    return i;
}

static int rehash(struct wc_store_delta *d, size_t cap)
{
    delta_ent *old = d->slots;
    size_t old_cap = d->cap;
    d->slots = calloc(cap, sizeof *d->slots);
    if (!d->slots) {
        d->slots = old;
        return -ENOMEM;
    }
    d->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].id)
            d->slots[find(d, old[i].id)] = old[i];
    free(old);
    return 0;
}

/* Removes slot i, shifting later members of its probe run back. */
static void delete_at(struct wc_store_delta *d, size_t i)
{
    size_t mask = d->cap - 1;
    for (size_t j = (i + 1) & mask; d->slots[j].id; j = (j + 1) & mask) {
        size_t h = home(d, d->slots[j].id);
        int stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (!stays) {
            d->slots[i] = d->slots[j];
            i = j;
        }
    }
    d->slots[i].id = 0;
    d->count--;
}

int wc_store_delta_init(wc_store *st)
{
    st->delta = calloc(1, sizeof *st->delta);
    if (!st->delta)
        return -ENOMEM;
    st->delta->every = WC_STORE_KEYFRAME_TICKS;
    st->delta->need_key = 1;
    return 0;
}

void wc_store_delta_free(wc_store *st)
{
    if (!st->delta)
        return;
    sqlite3_finalize(st->delta->mark);
    free(st->delta->slots);
    free(st->delta->rows);
    free(st->delta);
    st->delta = NULL;
}

void wc_store_delta_reset(wc_store *st)
{
    struct wc_store_delta *d = st->delta;
    if (!d)
        return;
    if (d->slots)
        memset(d->slots, 0, d->cap * sizeof *d->slots);
    d->count = 0;
    d->need_key = 1;
}

void wc_store_set_keyframe_every(wc_store *st, int64_t ticks)
{
    if (st->delta)
        st->delta->every = ticks < 1 ? 1 : ticks;
}

/* 1 when the snapshot lists its pids in strictly ascending order. */
static int ascending(const wc_proc_snapshot *snap)
{
    for (size_t i = 1; i < snap->count; i++)
        if (snap->samples[i].id->pid <= snap->samples[i - 1].id->pid)
            return 0;
    return 1;
}

/* 1 when one more process would make the cache over 3/4 full. */
static int crowded(const struct wc_store_delta *d)
{
    return (d->count + 1) * 4 > d->cap * 3;
}

/* Room for the snapshot's rows, and a cache sized for the larger of the
 * live processes and the snapshot (the same processes, mostly: a sum would
 * double the cache); changed() grows it when births need more. Returns 0
 * or -ENOMEM. */
static int reserve(struct wc_store_delta *d, size_t n)
{
    if (n > d->rows_cap) {
        size_t cap = n + n / 8 + 16; /* a few births do not reallocate it each tick */
        const wc_proc_sample **r = realloc(d->rows, cap * sizeof *r);
        if (!r)
            return -ENOMEM;
        d->rows = r;
        d->rows_cap = cap;
    }
    size_t want = (d->count > n ? d->count : n) + 1, cap = d->cap ? d->cap : 1024;
    while (want * 4 > cap * 3)
        cap *= 2;
    return cap != d->cap ? rehash(d, cap) : 0;
}

/* Records p's counters: 1 when they differ from the last written (or are
 * new), 0 when not, -ENOMEM when the cache could not grow for a new one. */
static int changed(struct wc_store_delta *d, const wc_proc_sample *p)
{
    size_t i = find(d, p->id->store_id);
    if (!d->slots[i].id && crowded(d)) {
        if (rehash(d, d->cap * 2) != 0)
            return -ENOMEM;
        i = find(d, p->id->store_id);
    }
    delta_ent *e = &d->slots[i];
    int differs = !e->id || e->utime != p->utime || e->stime != p->stime ||
                  e->threads != p->num_threads;
    if (!e->id)
        d->count++;
    *e = (delta_ent){p->id->store_id, p->utime, p->stime, p->num_threads};
    return differs;
}

int wc_store_delta_select(wc_store *st, const wc_proc_snapshot *snap, int *keyframe)
{
    struct wc_store_delta *d = st->delta;
    int rc = reserve(d, snap->count + snap->gone_count);
    if (rc)
        return rc;
    for (size_t i = 0; i < snap->gone_count; i++) {
        size_t k = find(d, snap->gone[i]->store_id);
        if (snap->gone[i]->store_id > 0 && d->slots[k].id)
            delete_at(d, k);
    }
    *keyframe = d->need_key || d->since_key + 1 >= d->every || !ascending(snap);
    d->nrows = 0;
    for (size_t i = 0; i < snap->count; i++) {
        int c = changed(d, &snap->samples[i]);
        if (c < 0) {
            d->need_key = 1; /* the cache is half updated: the next tick writes all */
            return c;
        }
        if (c || *keyframe)
            d->rows[d->nrows++] = &snap->samples[i];
    }
    d->since_key = *keyframe ? 0 : d->since_key + 1;
    d->need_key = 0;
    return 0;
}

const wc_proc_sample *const *wc_store_delta_rows(const wc_store *st, size_t *n)
{
    *n = st->delta->nrows;
    return st->delta->rows;
}

int wc_store_delta_mark(wc_store *st, int64_t tick_id, wc_error *err)
{
    struct wc_store_delta *d = st->delta;
    if (!d->mark && sqlite3_prepare_v3(st->db, "UPDATE tick SET proc_delta = 1 WHERE id = ?", -1,
                                       SQLITE_PREPARE_PERSISTENT, &d->mark, NULL) != SQLITE_OK)
        return wc_store_fail(st, err, "marking a delta tick");
    sqlite3_bind_int64(d->mark, 1, tick_id);
    int rc = sqlite3_step(d->mark);
    sqlite3_reset(d->mark);
    return rc == SQLITE_DONE ? 0 : wc_store_fail(st, err, "marking a delta tick");
}
