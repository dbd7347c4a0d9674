/*
 * avx.h — the vector FMA kernel behind `wattcal stress --class avx`, with
 * runtime dispatch on the CPU's flags.
 *
 * The whole build stays generic (no -mavx* flags): each variant is one
 * function compiled with __attribute__((target(...))) and chosen at run time
 * with __builtin_cpu_supports, best first: "avx512f" (8 zmm registers of 8
 * doubles), "avx2" (needs avx2 and fma; 16 ymm of 4) and "sse2" (the x86-64
 * baseline, 32 xmm of 2, multiply then add). Off x86 a plain C loop runs and
 * is named "generic".
 *
 * Every variant performs the same recurrence on WC_AVX_LANES independent
 * doubles: lane[i] = lane[i] * 0.5 + add[i], `iters` times. The multiplier is
 * a power of two, so the product is exact and a fused multiply-add rounds
 * exactly like a multiply followed by an add: all variants give bit-identical
 * lanes for the same input (the unit tests check this).
 */
#ifndef WC_AVX_H
#define WC_AVX_H

#include <stdint.h>

/* Independent accumulators per kernel call (64 doubles = 512 bytes). */
#define WC_AVX_LANES 64

typedef enum wc_avx_variant {
    WC_AVX_SSE2 = 0, /* x86-64 baseline (or the portable loop off x86) */
    WC_AVX_AVX2,     /* avx2 + fma */
    WC_AVX_AVX512F,  /* avx512f */
} wc_avx_variant;

/* Returns 1 when this CPU (and OS) can run variant v, else 0. sse2 is always 1. */
int wc_avx_supported(wc_avx_variant v);

/* The best variant this CPU supports (avx512f > avx2 > sse2). */
wc_avx_variant wc_avx_detect(void);

/* Printable name of v: "avx512f", "avx2", "sse2" ("generic" for the sse2
 * slot off x86). Static string; "?" for an out-of-range value. */
const char *wc_avx_variant_name(wc_avx_variant v);

/* Runs `iters` steps of lane[i] = lane[i] * 0.5 + add[i] over the
 * WC_AVX_LANES doubles of `lanes` (in place) with variant v. Returns 0, or
 * -ENOTSUP (nothing done) when the CPU cannot run v. */
int wc_avx_kernel(wc_avx_variant v, double *lanes, const double *add, uint64_t iters);

#endif
