/*
 * avx.c — the FMA kernels and their runtime dispatch (see avx.h).
 */
#include "workloads/avx.h"

#include <errno.h>

#if defined(__x86_64__) || defined(__i386__)
#define WC_AVX_X86 1
#include <immintrin.h>
#else
#define WC_AVX_X86 0
#endif

#if WC_AVX_X86

/* 8 zmm accumulators of 8 doubles each. */
__attribute__((target("avx512f"))) static void kernel_avx512(double *lanes, const double *add,
                                                             uint64_t iters)
{
    __m512d acc[8], inc[8];
    const __m512d half = _mm512_set1_pd(0.5);
    for (int r = 0; r < 8; r++) {
        acc[r] = _mm512_loadu_pd(lanes + 8 * r);
        inc[r] = _mm512_loadu_pd(add + 8 * r);
    }
    for (uint64_t n = 0; n < iters; n++)
        for (int r = 0; r < 8; r++)
            acc[r] = _mm512_fmadd_pd(acc[r], half, inc[r]);
    for (int r = 0; r < 8; r++)
        _mm512_storeu_pd(lanes + 8 * r, acc[r]);
}

/* 16 ymm accumulators of 4 doubles each. */
__attribute__((target("avx2,fma"))) static void kernel_avx2(double *lanes, const double *add,
                                                            uint64_t iters)
{
    __m256d acc[16], inc[16];
    const __m256d half = _mm256_set1_pd(0.5);
    for (int r = 0; r < 16; r++) {
        acc[r] = _mm256_loadu_pd(lanes + 4 * r);
        inc[r] = _mm256_loadu_pd(add + 4 * r);
    }
    for (uint64_t n = 0; n < iters; n++)
        for (int r = 0; r < 16; r++)
            acc[r] = _mm256_fmadd_pd(acc[r], half, inc[r]);
    for (int r = 0; r < 16; r++)
        _mm256_storeu_pd(lanes + 4 * r, acc[r]);
}

/* 32 xmm accumulators of 2 doubles each; SSE2 has no FMA: multiply, then add. */
static void kernel_sse2(double *lanes, const double *add, uint64_t iters)
{
    __m128d acc[32], inc[32];
    const __m128d half = _mm_set1_pd(0.5);
    for (int r = 0; r < 32; r++) {
        acc[r] = _mm_loadu_pd(lanes + 2 * r);
        inc[r] = _mm_loadu_pd(add + 2 * r);
    }
    for (uint64_t n = 0; n < iters; n++)
        for (int r = 0; r < 32; r++)
            acc[r] = _mm_add_pd(_mm_mul_pd(acc[r], half), inc[r]);
    for (int r = 0; r < 32; r++)
        _mm_storeu_pd(lanes + 2 * r, acc[r]);
}

int wc_avx_supported(wc_avx_variant v)
{
    __builtin_cpu_init();
    switch (v) {
    case WC_AVX_SSE2: return 1;
    case WC_AVX_AVX2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case WC_AVX_AVX512F: return __builtin_cpu_supports("avx512f") != 0;
    }
    return 0;
}

#else /* not x86: one portable loop stands in for the "sse2" slot */

static void kernel_sse2(double *lanes, const double *add, uint64_t iters)
{
    for (uint64_t n = 0; n < iters; n++)
        for (int i = 0; i < WC_AVX_LANES; i++)
            lanes[i] = lanes[i] * 0.5 + add[i];
}

int wc_avx_supported(wc_avx_variant v)
{
    return v == WC_AVX_SSE2;
}

#endif

wc_avx_variant wc_avx_detect(void)
{
    if (wc_avx_supported(WC_AVX_AVX512F))
        return WC_AVX_AVX512F;
    if (wc_avx_supported(WC_AVX_AVX2))
        return WC_AVX_AVX2;
    return WC_AVX_SSE2;
}

const char *wc_avx_variant_name(wc_avx_variant v)
{
    switch (v) {
    case WC_AVX_SSE2: return WC_AVX_X86 ? "sse2" : "generic";
    case WC_AVX_AVX2: return "avx2";
    case WC_AVX_AVX512F: return "avx512f";
    }
    return "?";
}

int wc_avx_kernel(wc_avx_variant v, double *lanes, const double *add, uint64_t iters)
{
    if (!wc_avx_supported(v))
        return -ENOTSUP;
#if WC_AVX_X86
    if (v == WC_AVX_AVX512F) {
        kernel_avx512(lanes, add, iters);
        return 0;
    }
    if (v == WC_AVX_AVX2) {
        kernel_avx2(lanes, add, iters);
        return 0;
    }
#endif
    kernel_sse2(lanes, add, iters);
    return 0;
}
