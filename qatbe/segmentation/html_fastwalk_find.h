/* html_fastwalk's byte searches and code-point counts (used by html_fastwalk_spans.pxi). */
#ifndef QATBE_FASTWALK_FIND_H
#define QATBE_FASTWALK_FIND_H

#include <Python.h>

/* The first occurrence of needle in s: candidates where the needle's first and last bytes both match,
   thirty-two start positions at a time (AVX2, where the processor has it) or sixteen (SSE2), each checked
   byte by byte; memmem on other machines. Why by hand: memmem and str.find run at about 0.6 ns a byte on
   these pages (their skip tables do little for a 4-8 byte word), and the spans' scans skip comments with it.
   The candidates are checked by an inline loop, not memcmp: with a call in the loop the compiler kept the
   two comparison vectors on the stack (every vector register is caller-saved) and reloaded them each step. */
#include <string.h>
#include "../_simd.h"

static inline int qatbe_same(const char* a, const char* b, size_t n) {
    size_t k;
    for (k = 0; k < n; k++) if (a[k] != b[k]) return 0;
    return 1;
}

static const char* qatbe_find_tail(const char* s, size_t n, const char* needle, size_t m, size_t i) {
    for (; i + m <= n; i++) if (s[i] == needle[0] && qatbe_same(s + i + 1, needle + 1, m - 1)) return s + i;
    return NULL;
}

#if defined(__SSE2__)
static const char* qatbe_find_sse2(const char* s, size_t n, const char* needle, size_t m, size_t i) {
    const __m128i first = _mm_set1_epi8(needle[0]);
    const __m128i last = _mm_set1_epi8(needle[m - 1]);
    for (; i + m - 1 + 16 <= n; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i*) (s + i));
        __m128i b = _mm_loadu_si128((const __m128i*) (s + i + m - 1));
        unsigned mask = (unsigned) _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first),
                                                                  _mm_cmpeq_epi8(b, last)));
        while (mask) {
            unsigned bit = (unsigned) __builtin_ctz(mask);
            if (qatbe_same(s + i + bit + 1, needle + 1, m - 2)) return s + i + bit;
            mask &= mask - 1;
        }
    }
    return qatbe_find_tail(s, n, needle, m, i);
}
#endif

#if defined(QATBE_AVX2)
QATBE_TARGET_AVX2 static const char* qatbe_find_avx2(const char* s, size_t n, const char* needle, size_t m) {
    size_t i = 0;
    const __m256i first = _mm256_set1_epi8(needle[0]);
    const __m256i last = _mm256_set1_epi8(needle[m - 1]);
    for (; i + m - 1 + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i*) (s + i));
        __m256i b = _mm256_loadu_si256((const __m256i*) (s + i + m - 1));
        unsigned mask = (unsigned) _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(a, first),
                                                                        _mm256_cmpeq_epi8(b, last)));
        while (mask) {
            unsigned bit = (unsigned) __builtin_ctz(mask);
            if (qatbe_same(s + i + bit + 1, needle + 1, m - 2)) return s + i + bit;
            mask &= mask - 1;
        }
    }
    return qatbe_find_sse2(s, n, needle, m, i);
}
#endif

static const char* qatbe_find(const char* s, size_t n, const char* needle, size_t m) {
    if (m < 2 || n < m) return (const char*) memmem(s, n, needle, m);
#if defined(QATBE_AVX2)
    if (qatbe_avx2) return qatbe_find_avx2(s, n, needle, m);
#endif
#if defined(__SSE2__)
    return qatbe_find_sse2(s, n, needle, m, 0);
#else
    return (const char*) memmem(s, n, needle, m);
#endif
}

/* Code points in n bytes of valid UTF-8: every byte but the continuation bytes (10xxxxxx, below -64 as a
   signed byte). Sixteen bytes a step (SSE2; thirty-two with AVX2, read as qatbe_find reads it), each lane's
   continuation bytes counted in a byte for at most 255 steps, then summed by psadbw. */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
static Py_ssize_t qatbe_code_points_sse2(const char* s, Py_ssize_t n, Py_ssize_t i) {
    Py_ssize_t continuation = 0;
#if defined(__SSE2__)
    const __m128i limit = _mm_set1_epi8(-64), zero = _mm_setzero_si128();
    while (i + 16 <= n) {
        __m128i lanes = zero;
        for (int step = 0; step < 255 && i + 16 <= n; step++, i += 16)
            lanes = _mm_sub_epi8(lanes, _mm_cmpgt_epi8(limit, _mm_loadu_si128((const __m128i*) (s + i))));
        __m128i sums = _mm_sad_epu8(lanes, zero);
        continuation += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    for (; i < n; i++) continuation += ((unsigned char) s[i] & 0xC0) == 0x80;
    return continuation;
}
#if defined(QATBE_AVX2)
QATBE_TARGET_AVX2 static Py_ssize_t qatbe_code_points_avx2(const char* s, Py_ssize_t n) {
    Py_ssize_t i = 0, continuation = 0;
    const __m256i limit = _mm256_set1_epi8(-64), zero = _mm256_setzero_si256();
    while (i + 32 <= n) {
        __m256i lanes = zero;
        for (int step = 0; step < 255 && i + 32 <= n; step++, i += 32)
            lanes = _mm256_sub_epi8(lanes, _mm256_cmpgt_epi8(limit,
                                                             _mm256_loadu_si256((const __m256i*) (s + i))));
        __m256i sums = _mm256_sad_epu8(lanes, zero);
        continuation += _mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1)
            + _mm256_extract_epi64(sums, 2) + _mm256_extract_epi64(sums, 3);
    }
    return continuation + qatbe_code_points_sse2(s, n, i);
}
#endif
static Py_ssize_t qatbe_code_points(const char* s, Py_ssize_t n) {
#if defined(QATBE_AVX2)
    if (qatbe_avx2) return n - qatbe_code_points_avx2(s, n);
#endif
    return n - qatbe_code_points_sse2(s, n, 0);
}

/* The index of the first byte of s[i:n] that is a, b or c, or n: sixteen bytes a step (SSE2), then byte by
   byte. The spans' reading of a tag jumps with it from quote to quote to the closing ">", most of a page's
   bytes being inside tags. */
static inline Py_ssize_t qatbe_find_any3(const unsigned char* s, Py_ssize_t i, Py_ssize_t n, unsigned char a,
                                         unsigned char b, unsigned char c) {
#if defined(__SSE2__)
    const __m128i va = _mm_set1_epi8((char) a), vb = _mm_set1_epi8((char) b), vc = _mm_set1_epi8((char) c);
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i*) (s + i));
        unsigned mask = (unsigned) _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va),
                                                                               _mm_cmpeq_epi8(x, vb)),
                                                                  _mm_cmpeq_epi8(x, vc)));
        if (mask) return i + (Py_ssize_t) __builtin_ctz(mask);
    }
#endif
    for (; i < n; i++) if (s[i] == a || s[i] == b || s[i] == c) return i;
    return n;
}

#endif
