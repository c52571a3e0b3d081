// The counting rule on runs of 64-byte ASCII blocks, with bit masks; see CTextScan.h.
#include "CTextScan.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#if defined(CPU_FEATURE_ACTIVE) /* glibc 2.33 on; 2.32's header has another name */
#define CLSFILE_HAS_GLIBC_CPU_FEATURES 1
#endif
#endif
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

#define CLSFILE_INLINE static inline __attribute__((always_inline))

CLSFILE_INLINE int clsfile_popcount(uint64_t x) { return __builtin_popcountll(x); }

/// The bits of `x` that are the first of `x` since the last bit of `separators` (or since bit 0,
/// which starts outside a token). Each separator starts a carry that runs up through the bits that
/// are neither; adding lands it on the next bit of either mask, a first of `x` when it lands on `x`.
CLSFILE_INLINE uint64_t clsfile_firsts(uint64_t x, uint64_t separators) {
    uint64_t gaps = ~(x | separators);
    uint64_t starts = separators << 1 | 1;
    return x & (starts | (gaps + (starts & gaps)));
}

/// Whether the letter run ending at `r` is the last of its token, the token has two or more vowel
/// groups and a suffix rule removes one. `r` < 63: the block ends in a separator after it.
CLSFILE_INLINE int clsfile_suffix_removes_syllable(
    const uint8_t *p, int r, uint64_t letters, uint64_t separators, uint64_t group_starts) {
    // The next letter or separator after r must be a separator.
    uint64_t through_r = (UINT64_C(2) << r) - 1;
    uint64_t after = (letters | separators) & ~through_r;
    if ((separators & (after & (0 - after))) == 0) return 0;
    uint64_t before = separators & ((UINT64_C(1) << r) - 1);
    int token_start = before == 0 ? 0 : 64 - __builtin_clzll(before);
    uint64_t groups = group_starts & through_r & ~((UINT64_C(1) << token_start) - 1);
    if ((groups & (groups - 1)) == 0) return 0;
    uint8_t l2 = r >= 1 && ((letters >> (r - 1)) & 1) ? (uint8_t)(p[r - 1] | 0x20) : 0;
    uint8_t l3 = l2 != 0 && r >= 2 && ((letters >> (r - 2)) & 1) ? (uint8_t)(p[r - 2] | 0x20) : 0;
    return clsfile_suffix_is_silent((uint8_t)(p[r] | 0x20), l2, l3);
}

/// Counts one classified block into `run`; returns its length through its last separator, or 0
/// when it is not for this path (see clsfile_count_ascii_blocks), leaving `run` as it was.
CLSFILE_INLINE int clsfile_count_block(const uint8_t *p, clsfile_text_masks m, clsfile_ascii_run *run) {
    int ascii_end = m.non_ascii == 0 ? 64 : __builtin_ctzll(m.non_ascii);
    if (ascii_end == 0) return 0;
    uint64_t ascii = ascii_end == 64 ? ~UINT64_C(0) : (UINT64_C(1) << ascii_end) - 1;
    uint64_t separators = m.separator & ascii;
    if (separators == 0) return 0;
    int length = 64 - __builtin_clzll(separators);
    if ((m.carriage_return >> (length - 1)) & 1) return 0;
    uint64_t in_block = length == 64 ? ~UINT64_C(0) : (UINT64_C(1) << length) - 1;
    separators &= in_block;
    uint64_t visible = ~separators & in_block;
    uint64_t letters = m.letter & in_block;
    uint64_t vowels = m.vowel & in_block;

    run->characters += clsfile_popcount(visible | (m.space & in_block));
    run->characters_excluding_spaces += clsfile_popcount(visible);

    // Words, each marked at its first letter or digit.
    uint64_t word_marks = clsfile_firsts(m.alnum & in_block, separators);
    int words = clsfile_popcount(word_marks);
    run->words += words;

    // Syllables: vowel groups, at least one per word, less the suffix rules (silent e, -ed, -es),
    // checked only at the letter runs that end in e, d or s.
    uint64_t group_starts = vowels & ~(vowels << 1);
    int64_t syllables = clsfile_popcount(group_starts) + words - clsfile_popcount(clsfile_firsts(vowels, separators));
    uint64_t suffixes = letters & ~(letters >> 1) & (m.e | (m.d_or_s & (m.e << 1)));
    while (suffixes != 0) {
        int r = __builtin_ctzll(suffixes);
        suffixes &= suffixes - 1;
        syllables -= clsfile_suffix_removes_syllable(p, r, letters, separators, group_starts);
    }
    run->syllables += syllables;

    // Tokens ending in a terminator and closing punctuation: the separator after them.
    uint64_t after_terminator = m.terminator << 1;
    uint64_t closing = m.closing & in_block;
    uint64_t through_closing = (after_terminator | (closing + (after_terminator & closing))) & ~closing;
    uint64_t sentence_ends = through_closing & separators;
    // Line breaks; an LF right after a CR belongs to the CR's break (CR VT and CR FF are two).
    uint64_t line_breaks = m.line_break & in_block;
    uint64_t after_cr = (m.carriage_return << 1) & line_breaks & ~m.carriage_return;
    while (after_cr != 0) {
        int k = __builtin_ctzll(after_cr);
        after_cr &= after_cr - 1;
        if (p[k] == 0x0A) line_breaks &= ~(UINT64_C(1) << k);
    }

    // Sentence and paragraph ends in order: only whether the open ones hold a word matters.
    int64_t segment = run->segment_words, paragraph = run->paragraph_words, newlines = run->newline_run;
    uint64_t events = sentence_ends | line_breaks;
    uint64_t from = ~UINT64_C(0);
    while (events != 0) {
        uint64_t bit = events & (0 - events);
        events &= events - 1;
        uint64_t range = (bit - 1) & from;
        if (word_marks & range) {
            segment = 1;
            paragraph = 1;
        }
        if (visible & range) newlines = 0;
        if ((sentence_ends & bit) && segment > 0) {
            run->sentences += 1;
            segment = 0;
        }
        if (line_breaks & bit) {
            newlines += 1;
            if (newlines == 2) {
                if (segment > 0) {
                    run->sentences += 1;
                    segment = 0;
                }
                if (paragraph > 0) {
                    run->paragraphs += 1;
                    paragraph = 0;
                }
            }
        }
        from = ~(bit | (bit - 1));
    }
    if (word_marks & from) {
        segment = 1;
        paragraph = 1;
    }
    if (visible & from) newlines = 0;
    run->segment_words = segment;
    run->paragraph_words = paragraph;
    run->newline_run = newlines;
    return length;
}

/// Whether `c` is whitespace that collapses: tab, LF, form feed or CR (0x0B is not).
#define CLSFILE_COLLAPSES(c) ((c) == 0x09 || (c) == 0x0A || (c) == 0x0C || (c) == 0x0D)

int clsfile_needs_collapsing(const uint8_t *p, size_t count) {
    size_t i = 0;
#if defined(__SSE2__)
    // 16 bytes at a time; a space is compared with the byte after it, so the last byte is left
    // for the loop below.
    const __m128i space = _mm_set1_epi8(' ');
    for (; i + 17 <= count; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i next = _mm_loadu_si128((const __m128i *)(p + i + 1));
        __m128i breaks = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x09)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x0A))),
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x0C)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x0D))));
        __m128i double_space = _mm_and_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(next, space));
        if (_mm_movemask_epi8(_mm_or_si128(breaks, double_space)) != 0) return 1;
    }
#endif
    for (; i < count; i++) {
        if (CLSFILE_COLLAPSES(p[i])) return 1;
        if (p[i] == ' ' && i + 1 < count && p[i + 1] == ' ') return 1;
    }
    return 0;
}

// The loop over blocks, written once and compiled for each classifier.
#define CLSFILE_BLOCK_LOOP(classify)                                         \
    {                                                                        \
        size_t i = 0;                                                        \
        while (count - i >= 64) {                                            \
            int length = clsfile_count_block(p + i, classify(p + i), run);   \
            if (length == 0) break;                                          \
            i += (size_t)length;                                             \
        }                                                                    \
        return i;                                                            \
    }

static size_t clsfile_count_blocks_portable(const uint8_t *p, size_t count, clsfile_ascii_run *run)
    CLSFILE_BLOCK_LOOP(clsfile_classify64)

#if defined(__x86_64__)

CLSFILE_INLINE __attribute__((target("avx2"))) uint64_t clsfile_bits256(__m256i m, int lane) {
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(m) << (32 * lane);
}

CLSFILE_INLINE __attribute__((target("avx2"))) __m256i clsfile_eq256(__m256i v, char c) {
    return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c));
}

/// Bytes whose value minus `low` (wrapping) is at most `span`: the range low...low+span.
CLSFILE_INLINE __attribute__((target("avx2"))) __m256i clsfile_in_range256(__m256i v, char low, char span) {
    __m256i t = _mm256_sub_epi8(v, _mm256_set1_epi8(low));
    return _mm256_cmpeq_epi8(_mm256_min_epu8(t, _mm256_set1_epi8(span)), t);
}

/// The classification of clsfile_classify64, 32 bytes per compare (AVX2).
CLSFILE_INLINE __attribute__((target("avx2"))) clsfile_text_masks clsfile_classify64_avx2(const uint8_t *p) {
    clsfile_text_masks m;
    memset(&m, 0, sizeof m);
#pragma clang loop unroll(full)
    for (int lane = 0; lane < 2; lane++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(p + 32 * lane));
        __m256i lower = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        m.non_ascii |= clsfile_bits256(v, lane);
        m.separator |= clsfile_bits256(_mm256_or_si256(clsfile_in_range256(v, 0, 0x20), clsfile_eq256(v, 0x7F)), lane);
        m.space |= clsfile_bits256(_mm256_or_si256(clsfile_eq256(v, ' '), clsfile_eq256(v, '\t')), lane);
        m.line_break |= clsfile_bits256(clsfile_in_range256(v, 0x0A, 3), lane);
        m.carriage_return |= clsfile_bits256(clsfile_eq256(v, '\r'), lane);
        __m256i letter = clsfile_in_range256(lower, 'a', 25);
        m.letter |= clsfile_bits256(letter, lane);
        m.alnum |= clsfile_bits256(_mm256_or_si256(letter, clsfile_in_range256(v, '0', 9)), lane);
        __m256i e = clsfile_eq256(lower, 'e');
        __m256i vowel = _mm256_or_si256(
            _mm256_or_si256(clsfile_eq256(lower, 'a'), e),
            _mm256_or_si256(_mm256_or_si256(clsfile_eq256(lower, 'i'), clsfile_eq256(lower, 'o')),
                            _mm256_or_si256(clsfile_eq256(lower, 'u'), clsfile_eq256(lower, 'y'))));
        m.vowel |= clsfile_bits256(vowel, lane);
        m.terminator |= clsfile_bits256(
            _mm256_or_si256(clsfile_eq256(v, '.'), _mm256_or_si256(clsfile_eq256(v, '!'), clsfile_eq256(v, '?'))), lane);
        m.closing |= clsfile_bits256(
            _mm256_or_si256(_mm256_or_si256(clsfile_eq256(v, ')'), clsfile_eq256(v, ']')),
                            _mm256_or_si256(clsfile_eq256(v, '}'), _mm256_or_si256(clsfile_eq256(v, '"'), clsfile_eq256(v, '\'')))),
            lane);
        m.e |= clsfile_bits256(e, lane);
        m.d_or_s |= clsfile_bits256(_mm256_or_si256(clsfile_eq256(lower, 'd'), clsfile_eq256(lower, 's')), lane);
    }
    return m;
}

// With AVX2 come the bit instructions the mask arithmetic uses (popcnt, tzcnt), which the
// baseline x86-64 the portable loop is built for lacks: its popcount is a dozen instructions.
__attribute__((target("avx2,popcnt,bmi,bmi2")))
static size_t clsfile_count_blocks_avx2(const uint8_t *p, size_t count, clsfile_ascii_run *run)
    CLSFILE_BLOCK_LOOP(clsfile_classify64_avx2)

// glibc (2.33 on) answers from the features its loader found at start (and honours its
// glibc.cpu.hwcaps tunable). The compiler's __builtin_cpu_supports would link libgcc's
// __cpu_indicator_init, an initializer every process runs: thirteen CPUID instructions, each a
// trap to the hypervisor on a virtual machine (about 15 µs, 1 % of a `clsfile stats` of a
// 10,000-word ODT on the machine the benchmarks run on).
int clsfile_has_wide_blocks(void) {
#if defined(CLSFILE_HAS_GLIBC_CPU_FEATURES)
    return CPU_FEATURE_ACTIVE(AVX2) && CPU_FEATURE_ACTIVE(POPCNT) && CPU_FEATURE_ACTIVE(BMI1) && CPU_FEATURE_ACTIVE(BMI2);
#else
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#endif
}

size_t clsfile_count_ascii_blocks_using(int wide, const uint8_t *p, size_t count, clsfile_ascii_run *run) {
    return wide ? clsfile_count_blocks_avx2(p, count, run) : clsfile_count_blocks_portable(p, count, run);
}

#else

int clsfile_has_wide_blocks(void) { return 0; }

size_t clsfile_count_ascii_blocks_using(int wide, const uint8_t *p, size_t count, clsfile_ascii_run *run) {
    (void)wide;
    return clsfile_count_blocks_portable(p, count, run);
}

#endif
