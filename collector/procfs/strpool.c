/*
 * strpool.c — interned, reference-counted strings (see strpool.h).
 *
 * Each string is one allocation: a header (hash, references, length) and
 * the bytes; the pool is an open-addressing hash of those (linear probing,
 * backward-shift deletion, at most half full, grown by doubling). The
 * pointer handed out is the bytes; the header sits just before them.
 */
#include "collector/procfs/strpool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One pooled string. */
typedef struct pool_str {
    uint64_t hash;
    uint32_t refs;
    uint32_t len;
    char s[];
} pool_str;

struct wc_strpool {
    pool_str **slots;   /* NULL = empty; cap a power of two */
    size_t cap, count;
};

static const char empty_str[1] = "";

/* FNV-1a of [s, s+len). */
static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static size_t slot_of(const wc_strpool *p, uint64_t h)
{
    return (size_t)(h * 0x9E3779B97F4A7C15ull >> 32) & (p->cap - 1);
}

/* Index of the slot holding [s, len), or of the empty slot where it goes. */
static size_t find(const wc_strpool *p, const char *s, size_t len, uint64_t h)
{
    size_t i = slot_of(p, h);
    for (; p->slots[i]; i = (i + 1) & (p->cap - 1)) {
        const pool_str *e = p->slots[i];
        if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
            break;
    }
    return i;
}

static int grow(wc_strpool *p, size_t cap)
{
    pool_str **ns = calloc(cap, sizeof *ns);
    if (!ns)
        return -1;
    pool_str **old = p->slots;
    size_t old_cap = p->cap;
    p->slots = ns;
    p->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            p->slots[find(p, old[i]->s, old[i]->len, old[i]->hash)] = old[i];
    free(old);
    return 0;
}

wc_strpool *wc_strpool_new(void)
{
    wc_strpool *p = calloc(1, sizeof *p);
    if (p && grow(p, 64) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

const char *wc_strpool_get(wc_strpool *p, const char *s, size_t len)
{
    len = strnlen(s, len);
    if (len == 0)
        return empty_str;
    if (len > UINT32_MAX - 1 || ((p->count + 1) * 2 > p->cap && grow(p, p->cap * 2) != 0))
        return NULL;
    uint64_t h = hash_bytes(s, len);
    size_t i = find(p, s, len, h);
    pool_str *e = p->slots[i];
    if (e) {
        e->refs++;
        return e->s;
    }
    e = malloc(sizeof *e + len + 1);
    if (!e)
        return NULL;
    e->hash = h;
    e->refs = 1;
    e->len = (uint32_t)len;
    memcpy(e->s, s, len);
    e->s[len] = '\0';
    p->slots[i] = e;
    p->count++;
    return e->s;
}

/* Empties slot i, shifting later members of its probe run back. */
static void delete_at(wc_strpool *p, size_t i)
{
    size_t mask = p->cap - 1;
    for (size_t j = (i + 1) & mask; p->slots[j]; j = (j + 1) & mask) {
        size_t home = slot_of(p, p->slots[j]->hash);
        int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            p->slots[i] = p->slots[j];
            i = j;
        }
    }
    p->slots[i] = NULL;
    p->count--;
}

void wc_strpool_put(wc_strpool *p, const char *s)
{
    if (!p || !s || !s[0])
        return;
    pool_str *e = (pool_str *)(void *)(s - offsetof(pool_str, s));
    if (--e->refs > 0)
        return;
    delete_at(p, find(p, e->s, e->len, e->hash));
    free(e);
}

size_t wc_strpool_count(const wc_strpool *p) { return p ? p->count : 0; }

void wc_strpool_free(wc_strpool *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->cap; i++)
        free(p->slots[i]);
    free(p->slots);
    free(p);
}
