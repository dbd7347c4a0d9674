/*
 * expo_series.c — series identity for the exposition parser: the hash of a
 * name and its labels (expo_internal.h), the set of series one body holds
 * (duplicates and the series cap), and the canonical label text
 * wc_expo_labels_canonical writes (expo_parse.h) for the run database.
 *
 * A label whose value is empty is the same as no label, as in Prometheus's
 * data model: {a="",b="x"} and {b="x"} name one series, and the canonical
 * text leaves it out (so a live scrape and a Prometheus query give the same
 * text for one series).
 */
#include "collector/exporter/expo_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define K1 0x9e3779b97f4a7c15ULL
#define K2 0xc2b2ae3d27d4eb4fULL

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static inline uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* A 64-bit hash of n bytes, 8 at a time (not cryptographic: the body is
 * untrusted, but a collision only merges two series of one scrape). */
static uint64_t hash_bytes(const char *p, size_t n, uint64_t seed)
{
    uint64_t h = seed ^ ((uint64_t)n * K1), g = seed ^ K2;
    for (; n >= 16; p += 16, n -= 16) { /* two independent lanes */
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        h = rotl((h ^ a) * K1, 31);
        g = rotl((g ^ b) * K2, 29);
    }
    if (n >= 8) {
        uint64_t a;
        memcpy(&a, p, 8);
        h = rotl((h ^ a) * K1, 31);
        p += 8;
        n -= 8;
    }
    uint64_t k = 0;
    memcpy(&k, p, n);
    return mix64(h ^ rotl(g, 17) ^ (k * K2) ^ n);
}

uint64_t expo_series_hash(const char *name, const wc_expo_label *labels, const size_t *lens,
                          size_t n)
{
    uint64_t sum = 0, kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (!labels[i].value[0])
            continue;
        sum += hash_bytes(labels[i].name, lens[i], K2);
        kept++;
    }
    uint64_t h = mix64(hash_bytes(name, strlen(name), 0) ^ sum ^ (kept * K2));
    return h ? h : 1;
}

static int set_resize(expo_set *s, size_t ncap)
{
    expo_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -ENOMEM;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slot[i].key)
            continue;
        size_t j = (s->slot[i].key >> 1) & (ncap - 1);
        while (ns[j].key)
            j = (j + 1) & (ncap - 1);
        ns[j] = s->slot[i];
    }
    free(s->slot);
    s->slot = ns;
    s->cap = ncap;
    return 0;
}

/* The smallest table: a body of a few lines (a fuzzer's input, a small
 * exporter) zeroes 256 bytes, not the 16 KB a fixed 1,024 slots cost per
 * call; larger bodies are reserved from their length, and the table doubles. */
#define MIN_SLOTS 16

int expo_set_reserve(expo_set *s, size_t n)
{
    size_t cap = MIN_SLOTS;
    while (cap < 2 * n)
        cap *= 2;
    return cap > s->cap ? set_resize(s, cap) : 0;
}

int expo_set_add(expo_set *s, uint64_t hash, int has_ts, int64_t ts_ms, size_t max)
{
    if ((s->count + 1) * 2 > s->cap && s->count < max &&
        set_resize(s, s->cap ? s->cap * 2 : MIN_SLOTS))
        return -ENOMEM;
    uint64_t h = hash & ~1ULL;
    h = h ? h : 2;
    size_t j = (h >> 1) & (s->cap - 1);
    for (; s->slot[j].key; j = (j + 1) & (s->cap - 1)) {
        expo_slot *e = &s->slot[j];
        if ((e->key & ~1ULL) != h)
            continue;
        if (!has_ts || !(e->key & 1) || e->ts_ms == ts_ms)
            return EXPO_DUPLICATE;
        e->ts_ms = ts_ms;
        return EXPO_NEW_POINT;
    }
    if (s->count >= max)
        return EXPO_FULL;
    s->slot[j] = (expo_slot){.key = h | (has_ts ? 1 : 0), .ts_ms = ts_ms};
    s->count++;
    return EXPO_NEW;
}

void expo_set_free(expo_set *s)
{
    free(s->slot);
    s->slot = NULL;
    s->cap = s->count = 0;
}

/* ---- canonical label text ---------------------------------------------- */

/* Appends c to buf if room is left (keeping one byte for the NUL); counts it. */
static inline void put(char *buf, size_t cap, size_t *n, char c)
{
    if (*n + 1 < cap)
        buf[*n] = c;
    (*n)++;
}

/* Appends s quoted and escaped as the exposition escapes label values. */
static void put_quoted(char *buf, size_t cap, size_t *n, const char *s)
{
    put(buf, cap, n, '"');
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            put(buf, cap, n, '\\');
        if (*s == '\n') {
            put(buf, cap, n, '\\');
            put(buf, cap, n, 'n');
        } else {
            put(buf, cap, n, *s);
        }
    }
    put(buf, cap, n, '"');
}

/* The index of the smallest label (by name, then index) after (prev, pi)
 * whose value is not empty; n when none. */
static size_t next_label(const wc_expo_label *l, size_t n, const char *prev, size_t pi)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
        if (!l[i].value[0])
            continue;
        int c = prev ? strcmp(l[i].name, prev) : 1;
        if (c < 0 || (c == 0 && i <= pi))
            continue;
        if (best == n) {
            best = i;
            continue;
        }
        int b = strcmp(l[i].name, l[best].name);
        if (b < 0 || (b == 0 && i < best))
            best = i;
    }
    return best;
}

int wc_expo_labels_canonical(const wc_expo_label *labels, size_t n, char *buf, size_t cap)
{
    size_t used = 0, i = n, k = 0;
    const char *prev = NULL;
    put(buf, cap, &used, '{');
    while ((i = next_label(labels, n, prev, i)) < n) {
        if (k++)
            put(buf, cap, &used, ',');
        const char *nm = labels[i].name;
        if (*expo_name_end(nm, nm + strlen(nm), 1) != '\0' || !*nm)
            put_quoted(buf, cap, &used, nm);
        else
            for (const char *c = nm; *c; c++)
                put(buf, cap, &used, *c);
        put(buf, cap, &used, '=');
        put_quoted(buf, cap, &used, labels[i].value);
        prev = nm;
    }
    put(buf, cap, &used, '}');
    if (cap)
        buf[used < cap ? used : cap - 1] = '\0';
    if (used >= cap || used > (size_t)INT32_MAX)
        return -ENOSPC;
    return (int)used;
}
