/* The one place that decides which vector instructions qatbe's byte and character scans use (the kernels in
   _scan.h, _text.h and _utf8.h, and qatbe/segmentation/html_fastwalk.pyx), and the bit helpers they share.

   QATBE_SSE2   1 where the compiler targets SSE2 (every x86-64 GCC or Clang build): 16 bytes a step.
   QATBE_AVX2   defined on x86-64 GCC/Clang: functions marked QATBE_TARGET_AVX2 are compiled for AVX2 and
                used, 32 bytes a step, only when the processor has it (qatbe_avx2, read by qatbe_simd_init when a
                module is imported). Only those functions are AVX2 code, so a module loads on any x86-64.
   Scalar fallback: every kernel ends in a plain C loop that handles what the vector loop left, so with
   QATBE_SSE2 0 (ARM, MSVC, or a build with -DQATBE_NO_SIMD) the same kernels run one unit at a time and give
   the same results. Each module including this keeps its own qatbe_avx2 flag. */
#ifndef QATBE_SIMD_H
#define QATBE_SIMD_H

#include <stdint.h>

#if defined(__SSE2__) && !defined(QATBE_NO_SIMD)
#define QATBE_SSE2 1
#include <emmintrin.h>
#else
#define QATBE_SSE2 0
#endif

#if QATBE_SSE2 && defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define QATBE_AVX2 1
#define QATBE_TARGET_AVX2 __attribute__((target("avx2")))
static int qatbe_avx2 = 0;
static void qatbe_simd_init(void) {
    __builtin_cpu_init();
    qatbe_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
}
/* For tests: AVX2 on (where the processor has it) or off; returns the setting. */
static int qatbe_simd_use_avx2(int on) {
    qatbe_simd_init();
    qatbe_avx2 = qatbe_avx2 && on;
    return qatbe_avx2;
}
#else
static void qatbe_simd_init(void) {}
static int qatbe_simd_use_avx2(int on) { (void) on; return 0; }
#endif

/* Trailing zeros (x != 0) and set bits of a mask, by the compiler's builtin where there is one. */
static inline int qatbe_ctz32(uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctz(x);
#else
    int count = 0;
    while (!(x & 1)) { x >>= 1; count++; }
    return count;
#endif
}
static inline int qatbe_ctz64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int count = 0;
    while (!(x & 1)) { x >>= 1; count++; }
    return count;
#endif
}
static inline int qatbe_popcount32(uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcount(x);
#else
    int count = 0;
    for (; x; x &= x - 1) count++;
    return count;
#endif
}
static inline int qatbe_popcount64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int count = 0;
    for (; x; x &= x - 1) count++;
    return count;
#endif
}

#endif
