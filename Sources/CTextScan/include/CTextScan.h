#ifndef CLSFILE_CTEXTSCAN_H
#define CLSFILE_CTEXTSCAN_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// Bit masks of one 64-byte block of text: bit k describes byte k. Classes are exact for ASCII
/// bytes only; `non_ascii` marks the bytes from 0x80 on, which the caller hands to its UTF-8 path.
typedef struct {
    uint64_t non_ascii;
    uint64_t separator;   /* 0x00-0x20 and 0x7F: white space and controls */
    uint64_t space;       /* space and tab */
    uint64_t line_break;  /* LF, VT, FF and CR */
    uint64_t carriage_return;
    uint64_t letter;
    uint64_t alnum;
    uint64_t vowel;       /* a e i o u y, either case */
    uint64_t terminator;  /* . ! ? */
    uint64_t closing;     /* ) ] } " ' */
    uint64_t e;           /* e or E, and d, D, s or S: the endings the English suffix rules look at */
    uint64_t d_or_s;
} clsfile_text_masks;

#if defined(__SSE2__)

static inline uint64_t clsfile_bits(__m128i m, int lane) {
    return (uint64_t)(uint16_t)_mm_movemask_epi8(m) << (16 * lane);
}

static inline __m128i clsfile_eq(__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); }

/// Bytes whose value minus `low` (wrapping) is at most `span`: the range low...low+span.
static inline __m128i clsfile_in_range(__m128i v, char low, char span) {
    __m128i t = _mm_sub_epi8(v, _mm_set1_epi8(low));
    return _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(span)), t);
}

/// Classifies 64 bytes at `p` (unaligned) with SSE2: 16 bytes per compare, one movemask per class.
static inline clsfile_text_masks clsfile_classify64(const uint8_t *p) {
    clsfile_text_masks m;
    memset(&m, 0, sizeof m);
#pragma clang loop unroll(full)
    for (int lane = 0; lane < 4; lane++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * lane));
        __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
        m.non_ascii |= clsfile_bits(v, lane);
        m.separator |= clsfile_bits(_mm_or_si128(clsfile_in_range(v, 0, 0x20), clsfile_eq(v, 0x7F)), lane);
        m.space |= clsfile_bits(_mm_or_si128(clsfile_eq(v, ' '), clsfile_eq(v, '\t')), lane);
        m.line_break |= clsfile_bits(clsfile_in_range(v, 0x0A, 3), lane);
        m.carriage_return |= clsfile_bits(clsfile_eq(v, '\r'), lane);
        __m128i letter = clsfile_in_range(lower, 'a', 25);
        m.letter |= clsfile_bits(letter, lane);
        m.alnum |= clsfile_bits(_mm_or_si128(letter, clsfile_in_range(v, '0', 9)), lane);
        __m128i e = clsfile_eq(lower, 'e');
        __m128i vowel = _mm_or_si128(_mm_or_si128(clsfile_eq(lower, 'a'), e),
                                     _mm_or_si128(_mm_or_si128(clsfile_eq(lower, 'i'), clsfile_eq(lower, 'o')),
                                                  _mm_or_si128(clsfile_eq(lower, 'u'), clsfile_eq(lower, 'y'))));
        m.vowel |= clsfile_bits(vowel, lane);
        m.terminator |= clsfile_bits(_mm_or_si128(clsfile_eq(v, '.'), _mm_or_si128(clsfile_eq(v, '!'), clsfile_eq(v, '?'))), lane);
        m.closing |= clsfile_bits(_mm_or_si128(_mm_or_si128(clsfile_eq(v, ')'), clsfile_eq(v, ']')),
                                               _mm_or_si128(clsfile_eq(v, '}'), _mm_or_si128(clsfile_eq(v, '"'), clsfile_eq(v, '\'')))), lane);
        m.e |= clsfile_bits(e, lane);
        m.d_or_s |= clsfile_bits(_mm_or_si128(clsfile_eq(lower, 'd'), clsfile_eq(lower, 's')), lane);
    }
    return m;
}

#else

/// Portable version of the classification above, one byte at a time.
static inline clsfile_text_masks clsfile_classify64(const uint8_t *p) {
    clsfile_text_masks m;
    memset(&m, 0, sizeof m);
    for (int k = 0; k < 64; k++) {
        uint8_t b = p[k], lower = b | 0x20;
        uint64_t bit = (uint64_t)1 << k;
        int letter = lower >= 'a' && lower <= 'z';
        if (b >= 0x80) m.non_ascii |= bit;
        if (b <= 0x20 || b == 0x7F) m.separator |= bit;
        if (b == ' ' || b == '\t') m.space |= bit;
        if (b >= 0x0A && b <= 0x0D) m.line_break |= bit;
        if (b == '\r') m.carriage_return |= bit;
        if (letter) m.letter |= bit;
        if (letter || (b >= '0' && b <= '9')) m.alnum |= bit;
        if (lower == 'a' || lower == 'e' || lower == 'i' || lower == 'o' || lower == 'u' || lower == 'y') m.vowel |= bit;
        if (b == '.' || b == '!' || b == '?') m.terminator |= bit;
        if (b == ')' || b == ']' || b == '}' || b == '"' || b == '\'') m.closing |= bit;
        if (lower == 'e') m.e |= bit;
        if (lower == 'd' || lower == 's') m.d_or_s |= bit;
    }
    return m;
}

#endif

#endif
