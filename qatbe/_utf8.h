/* str -> UTF-8 bytes for the three storages of a CPython str (used by _core_text.pxi's utf8_encode). Runs of
   ASCII go 8, 16 or 32 characters a step (_simd.h); every other character, and everything where there is no
   SSE2, goes through the scalar writers qatbe_utf8_put16/put32. */
#ifndef QATBE_UTF8_H
#define QATBE_UTF8_H

#include <Python.h>
#include <stdint.h>
#include <string.h>
#include "_simd.h"

/* A str stored two or four bytes a character as UTF-8, lone surrogates dropped: str.encode("utf-8",
   "ignore") for those storages. Eight characters at a time when all eight are ASCII (SSE2: the markup of an
   HTML page is), one at a time otherwise. One pass: the bytes object is made for the longest result (three
   bytes a character, four) and shrunk in place to what was written, so the text is read once, not once to size
   the result and again to write it. */
static inline unsigned char* qatbe_utf8_put16(uint16_t c, unsigned char* o) {
    if (c < 0x80) {
        *o++ = (unsigned char) c;
    } else if (c < 0x800) {
        *o++ = (unsigned char) (0xC0 | (c >> 6));
        *o++ = (unsigned char) (0x80 | (c & 0x3F));
    } else if (c < 0xD800 || c >= 0xE000) {
        *o++ = (unsigned char) (0xE0 | (c >> 12));
        *o++ = (unsigned char) (0x80 | ((c >> 6) & 0x3F));
        *o++ = (unsigned char) (0x80 | (c & 0x3F));
    }
    return o;
}
#if defined(QATBE_AVX2)
/* Sixteen characters a step while they are ASCII; a step that is not goes on in the SSE2 loop's halves. */
QATBE_TARGET_AVX2 static Py_ssize_t qatbe_utf8_ascii16_avx2(const uint16_t* s, Py_ssize_t n,
                                                             unsigned char** out) {
    Py_ssize_t i = 0;
    unsigned char* o = *out;
    const __m256i high = _mm256_set1_epi16((short) 0xFF80), zero = _mm256_setzero_si256();
    for (; i + 16 <= n; i += 16) {
        __m256i v = _mm256_loadu_si256((const __m256i*) (s + i));
        if ((unsigned) _mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_and_si256(v, high), zero)) != 0xFFFFFFFFu)
            break;
        _mm_storeu_si128((__m128i*) o, _mm_packus_epi16(_mm256_castsi256_si128(v),
                                                        _mm256_extracti128_si256(v, 1)));
        o += 16;
    }
    *out = o;
    return i;
}
#endif
static unsigned char* qatbe_utf8_write16(const uint16_t* s, Py_ssize_t n, unsigned char* o) {
    Py_ssize_t i = 0;
#if defined(QATBE_AVX2)
    if (qatbe_avx2) {
        /* Runs of sixteen ASCII characters at AVX2 width; each stop leaves eight characters to the loop below
           (at most one step of it), then the wide loop takes over again. */
        while (i + 16 <= n) {
            i += qatbe_utf8_ascii16_avx2(s + i, n - i, &o);
            if (i + 16 > n) break;
            Py_ssize_t stop = i + 8;
            for (; i < stop; i++) o = qatbe_utf8_put16(s[i], o);
        }
    }
#endif
#if QATBE_SSE2
    const __m128i high = _mm_set1_epi16((short) 0xFF80), zero = _mm_setzero_si128();
    for (; i + 8 <= n; i += 8) {
        __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
        if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, high), zero)) == 0xFFFF) {
            _mm_storel_epi64((__m128i*) o, _mm_packus_epi16(v, v));
            o += 8;
        } else {
            for (Py_ssize_t j = i; j < i + 8; j++) o = qatbe_utf8_put16(s[j], o);
        }
    }
#endif
    for (; i < n; i++) o = qatbe_utf8_put16(s[i], o);
    return o;
}
static inline unsigned char* qatbe_utf8_put32(uint32_t c, unsigned char* o) {
    if (c < 0x10000) return qatbe_utf8_put16((uint16_t) c, o);
    *o++ = (unsigned char) (0xF0 | (c >> 18));
    *o++ = (unsigned char) (0x80 | ((c >> 12) & 0x3F));
    *o++ = (unsigned char) (0x80 | ((c >> 6) & 0x3F));
    *o++ = (unsigned char) (0x80 | (c & 0x3F));
    return o;
}
static unsigned char* qatbe_utf8_write32(const uint32_t* s, Py_ssize_t n, unsigned char* o) {
    Py_ssize_t i = 0;
#if QATBE_SSE2
    const __m128i high = _mm_set1_epi32((int) 0xFFFFFF80), zero = _mm_setzero_si128();
    for (; i + 8 <= n; i += 8) {
        __m128i a = _mm_loadu_si128((const __m128i*) (s + i)), b = _mm_loadu_si128((const __m128i*) (s + i + 4));
        /* Sixteen at a time while the markup lasts: the four-byte storage is mostly ASCII too. */
        while (i + 16 <= n) {
            __m128i c = _mm_loadu_si128((const __m128i*) (s + i + 8));
            __m128i d = _mm_loadu_si128((const __m128i*) (s + i + 12));
            __m128i any = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
            if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(any, high), zero)) != 0xFFFF) break;
            _mm_storeu_si128((__m128i*) o, _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
            o += 16;
            i += 16;
            if (i + 8 > n) break;
            a = _mm_loadu_si128((const __m128i*) (s + i));
            b = _mm_loadu_si128((const __m128i*) (s + i + 4));
        }
        if (i + 8 > n) break;
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(_mm_or_si128(a, b), high), zero)) == 0xFFFF) {
            __m128i w = _mm_packs_epi32(a, b);
            _mm_storel_epi64((__m128i*) o, _mm_packus_epi16(w, w));
            o += 8;
        } else {
            for (Py_ssize_t j = i; j < i + 8; j++) o = qatbe_utf8_put32(s[j], o);
        }
    }
#endif
    for (; i < n; i++) o = qatbe_utf8_put32(s[i], o);
    return o;
}
/* One byte a character, some of them outside ASCII (Latin-1: a no-break space or an accented letter, and no
   character past U+00FF): runs of ASCII copied sixteen (AVX2: thirty-two) bytes a step, each other
   character written as its two bytes. CPython encodes such a str one character at a time. */
#if defined(QATBE_AVX2)
QATBE_TARGET_AVX2 static Py_ssize_t qatbe_utf8_ascii8_avx2(const uint8_t* s, Py_ssize_t n, unsigned char** out) {
    Py_ssize_t i = 0;
    unsigned char* o = *out;
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i*) (s + i));
        if (_mm256_movemask_epi8(v)) break;
        _mm256_storeu_si256((__m256i*) o, v);
        o += 32;
    }
    *out = o;
    return i;
}
#endif
static unsigned char* qatbe_utf8_write8(const uint8_t* s, Py_ssize_t n, unsigned char* o) {
    Py_ssize_t i = 0;
    while (i < n) {
#if defined(QATBE_AVX2)
        if (qatbe_avx2 && i + 32 <= n) {
            i += qatbe_utf8_ascii8_avx2(s + i, n - i, &o);
            if (i >= n) break;
        }
#endif
#if QATBE_SSE2
        if (i + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
            unsigned mask = (unsigned) _mm_movemask_epi8(v);
            if (!mask) {
                _mm_storeu_si128((__m128i*) o, v);
                o += 16;
                i += 16;
                continue;
            }
            unsigned ascii = (unsigned) qatbe_ctz32(mask);  /* the ASCII bytes before the first other one */
            memcpy(o, s + i, ascii);
            o += ascii;
            i += ascii;
        }
#endif
        uint8_t c = s[i++];
        if (c < 0x80) {
            *o++ = c;
        } else {
            *o++ = (unsigned char) (0xC0 | (c >> 6));
            *o++ = (unsigned char) (0x80 | (c & 0x3F));
        }
    }
    return o;
}
static PyObject* qatbe_utf8_encode(int kind, const void* data, Py_ssize_t n) {
    Py_ssize_t most = kind == 1 ? 2 : kind == 2 ? 3 : 4;
    if (n > PY_SSIZE_T_MAX / most) return PyErr_NoMemory();
    PyObject* out = PyBytes_FromStringAndSize(NULL, most * n);
    if (out == NULL) return NULL;
    unsigned char* start = (unsigned char*) PyBytes_AS_STRING(out);
    unsigned char* end;
    Py_BEGIN_ALLOW_THREADS
    end = kind == 1 ? qatbe_utf8_write8((const uint8_t*) data, n, start)
        : kind == 2 ? qatbe_utf8_write16((const uint16_t*) data, n, start)
                    : qatbe_utf8_write32((const uint32_t*) data, n, start);
    Py_END_ALLOW_THREADS
    if (_PyBytes_Resize(&out, end - start) < 0) return NULL;
    return out;
}

#endif
