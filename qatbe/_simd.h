/* Which vector width qatbe's byte scans use (qatbe/_core.pyx, qatbe/segmentation/html_fastwalk.pyx): AVX2, 32
   bytes a step, where the processor has it, read once when a module is imported (qatbe_simd_init); else SSE2, 16.

   Why both: the scans run over every page's bytes several times (the encoding, the binary check, the "<" count,
   the formula check, the search for each segment's position), a few per cent of extract at SSE2 width. Only the
   functions marked QATBE_TARGET_AVX2 are compiled for AVX2, so a module still loads on any x86-64 processor,
   and other machines build the SSE2 or plain C loops alone. Each module including this keeps its own flag. */
#ifndef QATBE_SIMD_H
#define QATBE_SIMD_H

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__SSE2__) && defined(__GNUC__) && defined(__x86_64__)
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

#endif
