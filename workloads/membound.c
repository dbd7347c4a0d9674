/*
 * membound.c — random cyclic pointer chase (see membound.h).
 */
#include "workloads/membound.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* splitmix64: a full-period 64-bit generator, enough for a shuffle. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform-enough integer in [0, bound) (Lemire's multiply-shift; bound > 0). */
static size_t below(uint64_t *state, size_t bound)
{
    return (size_t)(((unsigned __int128)splitmix64(state) * bound) >> 64);
}

/* Sattolo's algorithm over the successor slots: yields a single cycle of
 * length n (a plain Fisher-Yates shuffle could leave several cycles). */
static void link_one_cycle(uint64_t *buf, size_t n, uint64_t seed)
{
    const size_t stride = WC_CHASE_LINE / sizeof(uint64_t);
    for (size_t i = 0; i < n; i++)
        buf[i * stride] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = below(&seed, i); /* j < i, never i itself */
        uint64_t t = buf[i * stride];
        buf[i * stride] = buf[j * stride];
        buf[j * stride] = t;
    }
}

int wc_chase_init(wc_chase *c, size_t bytes, uint64_t seed, wc_error *err)
{
    c->buf = NULL;
    c->nlines = bytes / WC_CHASE_LINE;
    c->pos = 0;
    if (c->nlines < 2)
        return wc_error_set(err, -EINVAL, "membound: buffer of %zu bytes is below 2 lines of %d",
                            bytes, WC_CHASE_LINE);
    c->buf = calloc(c->nlines, WC_CHASE_LINE);
    if (!c->buf)
        return wc_error_set(err, -ENOMEM, "membound: cannot allocate %zu bytes", bytes);
    link_one_cycle(c->buf, c->nlines, seed);
    return 0;
}

size_t wc_chase_walk(wc_chase *c, uint64_t steps)
{
    const size_t stride = WC_CHASE_LINE / sizeof(uint64_t);
    size_t p = c->pos;
    for (uint64_t s = 0; s < steps; s++)
        p = (size_t)c->buf[p * stride];
    c->pos = p;
    return p;
}

void wc_chase_free(wc_chase *c)
{
    free(c->buf);
    c->buf = NULL;
    c->nlines = 0;
}

/* Parses one sysfs cache size ("32768K", "1M", "512"); 0 when unreadable. */
static size_t read_cache_size(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned long long v = 0;
    char unit = 0;
    int n = fscanf(f, "%llu%c", &v, &unit);
    fclose(f);
    if (n < 1)
        return 0;
    if (unit == 'K')
        v <<= 10;
    else if (unit == 'M')
        v <<= 20;
    else if (unit == 'G')
        v <<= 30;
    return (size_t)v;
}

size_t wc_llc_bytes(const char *cache_dir)
{
    size_t best = 0;
    for (int i = 0; i < 16; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/index%d/size", cache_dir, i);
        size_t v = read_cache_size(path);
        if (v > best)
            best = v;
    }
    return best;
}
