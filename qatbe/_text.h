/* Whole-text scans over a str's storage or a page's bytes (used by _core_text.pxi): control characters,
   two spaces side by side, a pair of characters, the count of one byte value, and a case-blind
   ASCII search. Each runs AVX2 and SSE2 steps where _simd.h allows them and finishes with a scalar loop,
   which alone does the whole scan where there is no SSE2. */
#ifndef QATBE_TEXT_H
#define QATBE_TEXT_H

#include <Python.h>
#include <stdint.h>
#include <string.h>
#include "_simd.h"

/* How many of s[:n] are control characters or U+FFFD ([\x00-\x08\x0e-\x1f\ufffd]), sixteen (eight) a step:
   c <= 8 is a saturating c - 8 of zero, 0x0e <= c <= 0x1f a wrapping c - 0x0e at most 0x11. */
static inline Py_ssize_t qatbe_is_control(uint32_t c) {
    return c <= 8 || (c >= 0x0e && c <= 0x1f) || c == 0xfffd;
}
static Py_ssize_t qatbe_controls8(const uint8_t* s, Py_ssize_t n) {
    Py_ssize_t i = 0, count = 0;
#if QATBE_SSE2
    const __m128i zero = _mm_setzero_si128(), eight = _mm_set1_epi8(8), low = _mm_set1_epi8(0x0e),
                  span = _mm_set1_epi8(0x11);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
        __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(_mm_subs_epu8(v, eight), zero),
                                   _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8(v, low), span), zero));
        count += qatbe_popcount32(_mm_movemask_epi8(hit));
    }
#endif
    for (; i < n; i++) count += qatbe_is_control(s[i]);
    return count;
}
/* Any character source.py strips or refuses (source._ANY_CONTROL): C0 controls but tab, line feed and carriage
   return, DEL and the C1 controls U+007F-U+009F, and surrogates U+D800-U+DFFF. A whole-page check on every
   input: 32 bytes a step (AVX2), then 16 (SSE2), for one- and two-byte storage, each range tested as
   "unsigned distance from its start within its span" with saturating subtraction, stopping at the first block
   that holds one. */
static inline int qatbe_strip_char(uint32_t c) {
    return (c <= 0x1f && c != 9 && c != 10 && c != 13) || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xdfff);
}
#if defined(QATBE_AVX2)
/* The same tests as below, 32 bytes a step, over one- or two-byte storage; *at is where the scalar and SSE2
   steps go on. */
QATBE_TARGET_AVX2 static int qatbe_any_control_avx2(const void* data, Py_ssize_t n, int kind, Py_ssize_t* at) {
    Py_ssize_t i = 0;
    const int step = 32 / kind;
    const __m256i zero = _mm256_setzero_si256();
    const __m256i c1f = kind == 1 ? _mm256_set1_epi8(0x1f) : _mm256_set1_epi16(0x1f);
    const __m256i tab = kind == 1 ? _mm256_set1_epi8(9) : _mm256_set1_epi16(9);
    const __m256i lf = kind == 1 ? _mm256_set1_epi8(10) : _mm256_set1_epi16(10);
    const __m256i cr = kind == 1 ? _mm256_set1_epi8(13) : _mm256_set1_epi16(13);
    const __m256i del = kind == 1 ? _mm256_set1_epi8(0x7f) : _mm256_set1_epi16(0x7f);
    const __m256i span = kind == 1 ? _mm256_set1_epi8(0x20) : _mm256_set1_epi16(0x20);
    const __m256i sur = _mm256_set1_epi16((short) 0xd800), sur_span = _mm256_set1_epi16(0x7ff);
    for (; i + step <= n; i += step) {
        __m256i v = _mm256_loadu_si256((const __m256i*) ((const char*) data + i * kind)), hit;
        if (kind == 1) {
            __m256i allowed = _mm256_or_si256(_mm256_cmpeq_epi8(v, tab),
                                              _mm256_or_si256(_mm256_cmpeq_epi8(v, lf), _mm256_cmpeq_epi8(v, cr)));
            __m256i low = _mm256_andnot_si256(allowed, _mm256_cmpeq_epi8(_mm256_subs_epu8(v, c1f), zero));
            __m256i high = _mm256_cmpeq_epi8(_mm256_subs_epu8(_mm256_sub_epi8(v, del), span), zero);
            hit = _mm256_or_si256(low, high);
        } else {
            __m256i allowed = _mm256_or_si256(_mm256_cmpeq_epi16(v, tab),
                                              _mm256_or_si256(_mm256_cmpeq_epi16(v, lf), _mm256_cmpeq_epi16(v, cr)));
            __m256i low = _mm256_andnot_si256(allowed, _mm256_cmpeq_epi16(_mm256_subs_epu16(v, c1f), zero));
            __m256i high = _mm256_cmpeq_epi16(_mm256_subs_epu16(_mm256_sub_epi16(v, del), span), zero);
            __m256i surrogate = _mm256_cmpeq_epi16(_mm256_subs_epu16(_mm256_sub_epi16(v, sur), sur_span), zero);
            hit = _mm256_or_si256(_mm256_or_si256(low, high), surrogate);
        }
        if (_mm256_movemask_epi8(hit)) return 1;
    }
    *at = i;
    return 0;
}
#endif
static int qatbe_any_control(const void* data, Py_ssize_t n, int kind) {
    Py_ssize_t i = 0;
#if defined(QATBE_AVX2)
    if (kind != 4 && qatbe_avx2 && qatbe_any_control_avx2(data, n, kind, &i)) return 1;
#endif
    if (kind == 1) {
        const uint8_t* s = (const uint8_t*) data;
#if QATBE_SSE2
        const __m128i zero = _mm_setzero_si128(), c1f = _mm_set1_epi8(0x1f), tab = _mm_set1_epi8(9),
                      lf = _mm_set1_epi8(10), cr = _mm_set1_epi8(13), del = _mm_set1_epi8(0x7f),
                      span = _mm_set1_epi8(0x20);
        for (; i + 16 <= n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
            __m128i low = _mm_andnot_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr))),
                _mm_cmpeq_epi8(_mm_subs_epu8(v, c1f), zero));
            __m128i high = _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8(v, del), span), zero);
            if (_mm_movemask_epi8(_mm_or_si128(low, high))) return 1;
        }
#endif
        for (; i < n; i++) if (qatbe_strip_char(s[i])) return 1;
        return 0;
    }
    if (kind == 2) {
        const uint16_t* s = (const uint16_t*) data;
#if QATBE_SSE2
        const __m128i zero = _mm_setzero_si128(), c1f = _mm_set1_epi16(0x1f), tab = _mm_set1_epi16(9),
                      lf = _mm_set1_epi16(10), cr = _mm_set1_epi16(13), del = _mm_set1_epi16(0x7f),
                      span = _mm_set1_epi16(0x20), sur = _mm_set1_epi16((short) 0xd800),
                      sur_span = _mm_set1_epi16(0x7ff);
        for (; i + 8 <= n; i += 8) {
            __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
            __m128i low = _mm_andnot_si128(
                _mm_or_si128(_mm_cmpeq_epi16(v, tab), _mm_or_si128(_mm_cmpeq_epi16(v, lf), _mm_cmpeq_epi16(v, cr))),
                _mm_cmpeq_epi16(_mm_subs_epu16(v, c1f), zero));
            __m128i high = _mm_cmpeq_epi16(_mm_subs_epu16(_mm_sub_epi16(v, del), span), zero);
            __m128i surrogate = _mm_cmpeq_epi16(_mm_subs_epu16(_mm_sub_epi16(v, sur), sur_span), zero);
            if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(low, high), surrogate))) return 1;
        }
#endif
        for (; i < n; i++) if (qatbe_strip_char(s[i])) return 1;
        return 0;
    }
    for (; i < n; i++) if (qatbe_strip_char(((const uint32_t*) data)[i])) return 1;
    return 0;
}
static Py_ssize_t qatbe_controls16(const uint16_t* s, Py_ssize_t n) {
    Py_ssize_t i = 0, count = 0;
#if QATBE_SSE2
    const __m128i zero = _mm_setzero_si128(), eight = _mm_set1_epi16(8), low = _mm_set1_epi16(0x0e),
                  span = _mm_set1_epi16(0x11), fffd = _mm_set1_epi16((short) 0xfffd);
    for (; i + 8 <= n; i += 8) {
        __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
        __m128i hit = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi16(_mm_subs_epu16(v, eight), zero),
                         _mm_cmpeq_epi16(_mm_subs_epu16(_mm_sub_epi16(v, low), span), zero)),
            _mm_cmpeq_epi16(v, fffd));
        count += qatbe_popcount32(_mm_movemask_epi8(hit)) / 2;
    }
#endif
    for (; i < n; i++) count += qatbe_is_control(s[i]);
    return count;
}

/* The first i >= start with s[i] == a and s[i + 1] == b in a str's storage (one, two or four bytes a
   character), or -1: sixteen (eight) start positions a step (SSE2), 32 (16) with AVX2, each block compared
   at i and at i + 1 and the two masks AND-ed, then the tail one by one. Why not str.find: for a two-character
   needle it steps a character at a time, and on a page held two bytes a character that costs about 8 % of
   the page's extract. */
#define QATBE_PAIR_TAIL(T)                                                                          \
    for (; i + 1 < n; i++)                                                                          \
        if (((const T*) data)[i] == a && ((const T*) data)[i + 1] == b) return i;                   \
    return -1;
#if defined(QATBE_AVX2)
QATBE_TARGET_AVX2 static Py_ssize_t qatbe_find_pair_avx2(const void* data, Py_ssize_t n, int kind, uint32_t a,
                                                         uint32_t b, Py_ssize_t* at) {
    Py_ssize_t i = *at;
    const int step = 32 / kind;  /* characters a block */
    const __m256i va = kind == 1 ? _mm256_set1_epi8((char) a) : _mm256_set1_epi16((short) a);
    const __m256i vb = kind == 1 ? _mm256_set1_epi8((char) b) : _mm256_set1_epi16((short) b);
    for (; i + step + 1 <= n; i += step) {
        const char* s = (const char*) data + i * kind;
        __m256i x = _mm256_loadu_si256((const __m256i*) s), y = _mm256_loadu_si256((const __m256i*) (s + kind));
        unsigned mask = (unsigned) _mm256_movemask_epi8(kind == 1
            ? _mm256_and_si256(_mm256_cmpeq_epi8(x, va), _mm256_cmpeq_epi8(y, vb))
            : _mm256_and_si256(_mm256_cmpeq_epi16(x, va), _mm256_cmpeq_epi16(y, vb)));
        if (mask) return i + qatbe_ctz32(mask) / kind;
    }
    *at = i;
    return -1;
}
#endif
static Py_ssize_t qatbe_find_pair(const void* data, Py_ssize_t n, int kind, uint32_t a, uint32_t b,
                                  Py_ssize_t start) {
    Py_ssize_t i = start < 0 ? 0 : start;
    if (kind == 4) {
        QATBE_PAIR_TAIL(uint32_t)
    }
    if ((kind == 1 && (a > 0xff || b > 0xff)) || a > 0xffff || b > 0xffff) return -1;
#if defined(QATBE_AVX2)
    if (qatbe_avx2) {
        Py_ssize_t found = qatbe_find_pair_avx2(data, n, kind, a, b, &i);
        if (found >= 0) return found;
    }
#endif
#if QATBE_SSE2
    {
        const int step = 16 / kind;
        const __m128i va = kind == 1 ? _mm_set1_epi8((char) a) : _mm_set1_epi16((short) a);
        const __m128i vb = kind == 1 ? _mm_set1_epi8((char) b) : _mm_set1_epi16((short) b);
        for (; i + step + 1 <= n; i += step) {
            const char* s = (const char*) data + i * kind;
            __m128i x = _mm_loadu_si128((const __m128i*) s), y = _mm_loadu_si128((const __m128i*) (s + kind));
            unsigned mask = (unsigned) _mm_movemask_epi8(kind == 1
                ? _mm_and_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(y, vb))
                : _mm_and_si128(_mm_cmpeq_epi16(x, va), _mm_cmpeq_epi16(y, vb)));
            if (mask) return i + qatbe_ctz32(mask) / kind;
        }
    }
#endif
    if (kind == 1) {
        QATBE_PAIR_TAIL(uint8_t)
    }
    QATBE_PAIR_TAIL(uint16_t)
}
#undef QATBE_PAIR_TAIL

/* How many bytes of s[:n] equal value: sixteen a step (SSE2), each lane's matches gathered in a byte (at most
   255 steps a block), the block's bytes summed by psadbw. */
#if defined(QATBE_AVX2)
QATBE_TARGET_AVX2 static Py_ssize_t qatbe_byte_count_avx2(const uint8_t* s, Py_ssize_t n, uint8_t value,
                                                           Py_ssize_t* at) {
    Py_ssize_t i = 0, count = 0;
    const __m256i want = _mm256_set1_epi8((char) value), zero = _mm256_setzero_si256();
    while (i + 32 <= n) {
        __m256i lanes = zero;
        for (int step = 0; step < 255 && i + 32 <= n; step++, i += 32)
            lanes = _mm256_sub_epi8(lanes, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i*) (s + i)), want));
        __m256i sums = _mm256_sad_epu8(lanes, zero);
        count += _mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1) + _mm256_extract_epi64(sums, 2)
            + _mm256_extract_epi64(sums, 3);
    }
    *at = i;
    return count;
}
#endif
static Py_ssize_t qatbe_byte_count(const uint8_t* s, Py_ssize_t n, uint8_t value) {
    Py_ssize_t i = 0, count = 0;
#if defined(QATBE_AVX2)
    if (qatbe_avx2) count = qatbe_byte_count_avx2(s, n, value, &i);
#endif
#if QATBE_SSE2
    const __m128i want = _mm_set1_epi8((char) value), zero = _mm_setzero_si128();
    while (i + 16 <= n) {
        __m128i lanes = zero;
        for (int step = 0; step < 255 && i + 16 <= n; step++, i += 16)
            lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*) (s + i)), want));
        __m128i sums = _mm_sad_epu8(lanes, zero);
        count += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    for (; i < n; i++) count += s[i] == value;
    return count;
}

/* Whether s[:n] holds needle[:m] with its ASCII letters in either case (needle given in lower case, m >= 1):
   candidates where the first and the last bytes match (either case), sixteen start positions a step (SSE2),
   then the bytes between compared case-blind. */
static inline uint8_t qatbe_up(uint8_t c) { return (c >= 'a' && c <= 'z') ? (uint8_t) (c - 32) : c; }
static inline uint8_t qatbe_lo(uint8_t c) { return (c >= 'A' && c <= 'Z') ? (uint8_t) (c + 32) : c; }
static int qatbe_same_ci(const uint8_t* s, const uint8_t* needle, size_t m) {
    size_t k;
    for (k = 0; k < m; k++) if (qatbe_lo(s[k]) != needle[k]) return 0;
    return 1;
}
#if defined(QATBE_AVX2)
QATBE_TARGET_AVX2 static int qatbe_contains_ci_avx2(const uint8_t* s, size_t n, const uint8_t* needle,
                                                    size_t m, size_t* at) {
    size_t i = 0;
    const __m256i f1 = _mm256_set1_epi8((char) needle[0]), f2 = _mm256_set1_epi8((char) qatbe_up(needle[0]));
    const __m256i l1 = _mm256_set1_epi8((char) needle[m - 1]);
    const __m256i l2 = _mm256_set1_epi8((char) qatbe_up(needle[m - 1]));
    for (; i + m - 1 + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i*) (s + i));
        __m256i b = _mm256_loadu_si256((const __m256i*) (s + i + m - 1));
        unsigned mask = (unsigned) _mm256_movemask_epi8(_mm256_and_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(a, f1), _mm256_cmpeq_epi8(a, f2)),
            _mm256_or_si256(_mm256_cmpeq_epi8(b, l1), _mm256_cmpeq_epi8(b, l2))));
        while (mask) {
            unsigned bit = (unsigned) qatbe_ctz32(mask);
            if (qatbe_same_ci(s + i + bit, needle, m)) return 1;
            mask &= mask - 1;
        }
    }
    *at = i;
    return 0;
}
#endif
static int qatbe_contains_ci(const uint8_t* s, size_t n, const uint8_t* needle, size_t m) {
    size_t i = 0;
    if (n < m) return 0;
#if defined(QATBE_AVX2)
    if (qatbe_avx2 && qatbe_contains_ci_avx2(s, n, needle, m, &i)) return 1;
#endif
#if QATBE_SSE2
    const __m128i f1 = _mm_set1_epi8((char) needle[0]), f2 = _mm_set1_epi8((char) qatbe_up(needle[0]));
    const __m128i l1 = _mm_set1_epi8((char) needle[m - 1]), l2 = _mm_set1_epi8((char) qatbe_up(needle[m - 1]));
    for (; i + m - 1 + 16 <= n; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i*) (s + i));
        __m128i b = _mm_loadu_si128((const __m128i*) (s + i + m - 1));
        unsigned mask = (unsigned) _mm_movemask_epi8(_mm_and_si128(
            _mm_or_si128(_mm_cmpeq_epi8(a, f1), _mm_cmpeq_epi8(a, f2)),
            _mm_or_si128(_mm_cmpeq_epi8(b, l1), _mm_cmpeq_epi8(b, l2))));
        while (mask) {
            unsigned bit = (unsigned) qatbe_ctz32(mask);
            if (qatbe_same_ci(s + i + bit, needle, m)) return 1;
            mask &= mask - 1;
        }
    }
#endif
    for (; i + m <= n; i++) if (qatbe_same_ci(s + i, needle, m)) return 1;
    return 0;
}

#endif
