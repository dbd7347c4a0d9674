/*
 * membound.h — the pointer-chasing buffer behind `wattcal stress --class
 * membound`.
 *
 * The buffer is split into 64-byte lines (one cache line each); the first 8
 * bytes of line i hold the index of the next line. The successor map is one
 * random cyclic permutation (Sattolo's algorithm, seeded), so a walk from any
 * line visits every line exactly once before it returns, and each hop is a
 * dependent load the prefetcher cannot predict. With a buffer much larger
 * than the last-level cache (default 256 MiB) almost every hop misses to DRAM.
 */
#ifndef WC_MEMBOUND_H
#define WC_MEMBOUND_H

#include <stddef.h>
#include <stdint.h>

#include "common/wc_error.h"

/* Bytes per chase line: one cache line. */
#define WC_CHASE_LINE 64
/* Default buffer: 256 MiB. */
#define WC_CHASE_DEFAULT_BYTES ((size_t)256 << 20)

typedef struct wc_chase {
    uint64_t *buf;  /* nlines * 8 uint64; buf[i * 8] = successor of line i */
    size_t nlines;  /* >= 2 */
    size_t pos;     /* current line of the walk */
} wc_chase;

/* Allocates bytes (rounded down to whole 64-byte lines; at least 2 lines)
 * and links the lines into one random cycle drawn from `seed` (the same seed
 * gives the same cycle). Every page is written, so the buffer is resident.
 * Returns 0; -EINVAL (with err) when bytes < 128; -ENOMEM when the
 * allocation fails. */
int wc_chase_init(wc_chase *c, size_t bytes, uint64_t seed, wc_error *err);

/* Follows `steps` successor links from c->pos, stores the line reached in
 * c->pos and returns it. */
size_t wc_chase_walk(wc_chase *c, uint64_t steps);

/* Frees the buffer (c may be zeroed or already freed). */
void wc_chase_free(wc_chase *c);

/* Size in bytes of the largest cache listed under cache_dir (normally
 * /sys/devices/system/cpu/cpu0/cache; index*\/size holds e.g. "32768K").
 * Returns 0 when none can be read. */
size_t wc_llc_bytes(const char *cache_dir);

#endif
