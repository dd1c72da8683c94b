/* html_fastwalk's whitespace collapsing tests, eight bytes at a time (used by html_fastwalk_text.pxi). */
#ifndef QATBE_FASTWALK_SWAR_H
#define QATBE_FASTWALK_SWAR_H

#include <Python.h>

/* Bit 7 of each zero byte of y, the rest 0: exact, since no carry crosses a byte (the usual
   (y - 0x0101...) & ~y & H may also flag the byte after a zero one). */
#include <stdint.h>
#include <string.h>
static inline uint64_t qatbe_zero_bytes(uint64_t y) {
    const uint64_t H = 0x8080808080808080ULL, L = 0x7F7F7F7F7F7F7F7FULL;
    return ~(((y & L) + L) | y) & H;
}
/* Eight bytes that whitespace collapsing leaves as they are, after a non-space: printable ASCII (0x20-0x7F),
   no two spaces side by side, and not ending in a space (whose fate depends on what follows). SWAR tests with
   no carry between bytes, so each is exact; the byte order matters (the last byte is the top one), so other
   machines take the byte loop. */
static inline int qatbe_plain8(const unsigned char* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t H = 0x8080808080808080ULL;
    uint64_t x, spaces;
    memcpy(&x, p, 8);
    if (x & H) return 0;                                     /* a byte >= 0x80 */
    if (~(x + 0x6060606060606060ULL) & H) return 0;          /* a byte < 0x20 (tab, newline, controls) */
    spaces = qatbe_zero_bytes(x ^ 0x2020202020202020ULL);    /* bit 7 of each space byte */
    return !(spaces & (spaces << 8)) && !(spaces >> 63);
#else
    (void) p;
    return 0;
#endif
}
/* Eight bytes of layout whitespace (space, tab, newline, carriage return): the indentation between tags, which
   collapsing drops or turns into one space. Each byte compared exactly (a zero-byte test per value). */
static inline int qatbe_blank8(const unsigned char* p) {
    uint64_t x;
    memcpy(&x, p, 8);
    return (qatbe_zero_bytes(x ^ 0x2020202020202020ULL) | qatbe_zero_bytes(x ^ 0x0A0A0A0A0A0A0A0AULL)
            | qatbe_zero_bytes(x ^ 0x0909090909090909ULL) | qatbe_zero_bytes(x ^ 0x0D0D0D0D0D0D0D0DULL))
           == 0x8080808080808080ULL;
}

#endif
