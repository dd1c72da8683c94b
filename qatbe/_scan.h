/* The tokenizer's character scans over a str's one- or two-byte storage (used by _core_scan.pxi): the length of
   a run of ASCII word characters, and per-text bitmaps of character classes. Vector code comes from _simd.h;
   each function ends in a scalar loop, so without SSE2 the same results come one character at a time. */
#ifndef QATBE_SCAN_H
#define QATBE_SCAN_H

#include <Python.h>
#include <stdint.h>
#include "_simd.h"

/* How many code points from s[i] on are ASCII letters, digits or '_' (a token's body), sixteen a step (SSE2),
   with their classes ORed into *late (1 lower, 2 upper, 8 underscore: _ACLASS's bits; not 4, digit, which the
   scan never reads). It stops at the first other code point, or with fewer than sixteen left; the caller's
   scalar loop goes on from there.
   Why: the scalar loop's exit at a token's end is a branch that mispredicts once a token, and the loop itself
   was most of the scan's time; here a token's length is one count of trailing ones. Two-byte storage is
   packed to bytes with unsigned saturation first (anything above 255 becomes 255, which is no word byte). */
#if QATBE_SSE2
/* Which of sixteen bytes are ASCII lower-case letters, upper-case letters, digits and '_', a bit each: a
   byte in a range of k is below -128 + k once the range's first value is moved to -128. */
static inline void qatbe_ascii_classes(__m128i v, unsigned* lo, unsigned* up, unsigned* dg, unsigned* us) {
    const __m128i lim26 = _mm_set1_epi8((char) (-128 + 26)), lim10 = _mm_set1_epi8((char) (-128 + 10));
    *lo = (unsigned) _mm_movemask_epi8(
        _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char) (128 - 'a'))), lim26));
    *up = (unsigned) _mm_movemask_epi8(
        _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char) (128 - 'A'))), lim26));
    *dg = (unsigned) _mm_movemask_epi8(
        _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char) (128 - '0'))), lim10));
    *us = (unsigned) _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')));
}
static inline unsigned qatbe_run16(__m128i v, unsigned char* late) {
    unsigned lo, up, dg, us;
    qatbe_ascii_classes(v, &lo, &up, &dg, &us);
    unsigned run = (unsigned) qatbe_ctz32(~(lo | up | dg | us));  /* 16 bits of word bytes: at most 16 */
    unsigned keep = (1u << run) - 1u;
    /* the digit bit is left out: the scan never reads it (only lower, upper and underscore decide "simple") */
    *late |= (unsigned char) (((lo & keep) != 0) | (((up & keep) != 0) << 1) | (((us & keep) != 0) << 3));
    return run;
}
#endif
static inline Py_ssize_t qatbe_word_run8(const uint8_t* s, Py_ssize_t i, Py_ssize_t n, unsigned char* late) {
    Py_ssize_t start = i;
#if QATBE_SSE2
    unsigned run;
    while (i + 16 <= n) {
        run = qatbe_run16(_mm_loadu_si128((const __m128i*) (s + i)), late);
        i += run;
        if (run < 16) break;
    }
#endif
    return i - start;
}
static inline Py_ssize_t qatbe_word_run16(const uint16_t* s, Py_ssize_t i, Py_ssize_t n, unsigned char* late) {
    Py_ssize_t start = i;
#if QATBE_SSE2
    unsigned run;
    while (i + 16 <= n) {
        run = qatbe_run16(_mm_packus_epi16(_mm_loadu_si128((const __m128i*) (s + i)),
                                           _mm_loadu_si128((const __m128i*) (s + i + 8))), late);
        i += run;
        if (run < 16) break;
    }
#endif
    return i - start;
}

/* The character classes of a text's code points, a bit each, 64 to a word (bit b of word k: code point
   64 k + b): ASCII word characters (letters, digits, '_'), upper case, lower case, '_', the ASCII joiners
   (- ' . ,) and every code point above 127, which the caller classifies itself. Sixteen a step (SSE2); the
   last few, and every one where SSE2 is missing, one at a time. Two-byte storage is narrowed to bytes first,
   each code point above 127 to 0x80 (a saturating pack alone would turn those above 0x7FFF into 0).
   ``out`` holds six arrays of ``stride`` words each (W, U, L, S, J, H), of which the first (n + 63) / 64 are
   written. Why: ``_find_masked`` (qatbe/_core.pyx) finds a text's tokens from these. */
#if QATBE_SSE2
static inline void qatbe_classes16(__m128i v, uint64_t* m, unsigned shift) {
    unsigned lo32, up32, dg32, us32;
    qatbe_ascii_classes(v, &lo32, &up32, &dg32, &us32);
    uint64_t lo = lo32, up = up32, dg = dg32, us = us32;
    uint64_t jn = (unsigned) _mm_movemask_epi8(_mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('-')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\''))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')), _mm_cmpeq_epi8(v, _mm_set1_epi8(',')))));
    uint64_t hi = (unsigned) _mm_movemask_epi8(v);
    m[0] |= (lo | up | dg | us) << shift;
    m[1] |= up << shift;
    m[2] |= lo << shift;
    m[3] |= us << shift;
    m[4] |= jn << shift;
    m[5] |= hi << shift;
}
static inline __m128i qatbe_narrow16(const uint16_t* s) {
    const __m128i high = _mm_set1_epi16((short) 0xFF80), mark = _mm_set1_epi16(0x80);
    const __m128i zero = _mm_setzero_si128();
    __m128i a = _mm_loadu_si128((const __m128i*) s), b = _mm_loadu_si128((const __m128i*) (s + 8));
    __m128i ma = _mm_cmpeq_epi16(_mm_and_si128(a, high), zero);
    __m128i mb = _mm_cmpeq_epi16(_mm_and_si128(b, high), zero);
    a = _mm_or_si128(_mm_and_si128(a, ma), _mm_andnot_si128(ma, mark));
    b = _mm_or_si128(_mm_and_si128(b, mb), _mm_andnot_si128(mb, mark));
    return _mm_packus_epi16(a, b);
}
#endif
static inline void qatbe_class_one(uint32_t c, uint64_t* m, unsigned b) {
    uint64_t bit = (uint64_t) 1 << b;
    if (c >= 128) { m[5] |= bit; return; }
    if (c >= 'a' && c <= 'z') { m[0] |= bit; m[2] |= bit; }
    else if (c >= 'A' && c <= 'Z') { m[0] |= bit; m[1] |= bit; }
    else if (c >= '0' && c <= '9') m[0] |= bit;
    else if (c == '_') { m[0] |= bit; m[3] |= bit; }
    else if (c == '-' || c == '\'' || c == '.' || c == ',') m[4] |= bit;
}
static void qatbe_class_masks(const void* data, int width, Py_ssize_t n, uint64_t* out, Py_ssize_t stride) {
    Py_ssize_t nw = (n + 63) >> 6, k, i, end;
    for (k = 0; k < nw; k++) {
        uint64_t m[6] = {0, 0, 0, 0, 0, 0};
        Py_ssize_t base = k << 6;
        i = base;
        end = base + 64 < n ? base + 64 : n;
#if QATBE_SSE2
        if (width == 1) {
            for (; i + 16 <= end; i += 16)
                qatbe_classes16(_mm_loadu_si128((const __m128i*) ((const uint8_t*) data + i)), m,
                                (unsigned) (i - base));
        } else {
            for (; i + 16 <= end; i += 16)
                qatbe_classes16(qatbe_narrow16((const uint16_t*) data + i), m, (unsigned) (i - base));
        }
#endif
        for (; i < end; i++)
            qatbe_class_one(width == 1 ? ((const uint8_t*) data)[i] : ((const uint16_t*) data)[i], m,
                            (unsigned) (i - base));
        for (int a = 0; a < 6; a++)
            out[a * stride + k] = m[a];
    }
}

#endif
