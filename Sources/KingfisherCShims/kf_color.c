#include "kf_color.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

static inline int kf_clamp_index(int value) {
    return value < 0 ? 0 : (value > 16383 ? 16383 : value);
}

static void kf_color_scalar(unsigned char *pixels, size_t count, const unsigned short *input,
                            const int *matrix, const unsigned char *output) {
    const int m0 = matrix[0], m1 = matrix[1], m2 = matrix[2];
    const int m3 = matrix[3], m4 = matrix[4], m5 = matrix[5];
    const int m6 = matrix[6], m7 = matrix[7], m8 = matrix[8];
    const unsigned short *red = input, *green = input + 256, *blue = input + 512;
    unsigned char *pixel = pixels;
    for (size_t index = 0; index < count; index++, pixel += 4) {
        const int r = red[pixel[0]], g = green[pixel[1]], b = blue[pixel[2]];
        /* Rounded to 2^-14 (an arithmetic shift: a negative result clamps to 0 either way); the sums
           stay within int (see the header). */
        const int x = (m0 * r + m1 * g + m2 * b + 8192) >> 14;
        const int y = (m3 * r + m4 * g + m5 * b + 8192) >> 14;
        const int z = (m6 * r + m7 * g + m8 * b + 8192) >> 14;
        pixel[0] = output[kf_clamp_index(x)];
        pixel[1] = output[kf_clamp_index(y)];
        pixel[2] = output[kf_clamp_index(z)];
    }
}

#if defined(__x86_64__)
/* Whether the CPU and the OS support AVX2 (CPUID leaf 7 EBX bit 5, and YMM state enabled in XCR0). */
static int kf_has_avx2(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE) || !(ecx & bit_AVX)) {
        return 0;
    }
    unsigned int xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 6) != 6) {
        return 0;
    }
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
        return 0;
    }
    return (ebx & bit_AVX2) != 0;
}

/* Eight pixels at a time: the same integer arithmetic as kf_color_scalar, so both give equal bytes.
   The gathers read 32 bits at each entry, so the tables carry padding past their last entry. */
__attribute__((target("avx2")))
static size_t kf_color_avx2(unsigned char *pixels, size_t count, const unsigned short *input,
                            const int *matrix, const unsigned char *output) {
    const __m256i low8 = _mm256_set1_epi32(0xFF), low16 = _mm256_set1_epi32(0xFFFF);
    const __m256i alpha = _mm256_set1_epi32((int)0xFF000000u), round = _mm256_set1_epi32(8192);
    const __m256i zero = _mm256_setzero_si256(), top = _mm256_set1_epi32(16383);
    __m256i m[9];
    for (int i = 0; i < 9; i++) {
        m[i] = _mm256_set1_epi32(matrix[i]);
    }
    const int *red = (const int *)(const void *)input;
    const int *green = (const int *)(const void *)(input + 256);
    const int *blue = (const int *)(const void *)(input + 512);
    const int *encode = (const int *)(const void *)output;
    size_t done = 0;
    for (; done + 8 <= count; done += 8) {
        __m256i *slot = (__m256i *)(void *)(pixels + done * 4);
        const __m256i px = _mm256_loadu_si256(slot);
        const __m256i r = _mm256_and_si256(
            _mm256_i32gather_epi32(red, _mm256_and_si256(px, low8), 2), low16);
        const __m256i g = _mm256_and_si256(
            _mm256_i32gather_epi32(green, _mm256_and_si256(_mm256_srli_epi32(px, 8), low8), 2), low16);
        const __m256i b = _mm256_and_si256(
            _mm256_i32gather_epi32(blue, _mm256_and_si256(_mm256_srli_epi32(px, 16), low8), 2), low16);
        __m256i channel[3];
        for (int row = 0; row < 3; row++) {
            __m256i sum = _mm256_add_epi32(_mm256_mullo_epi32(m[row * 3], r), _mm256_mullo_epi32(m[row * 3 + 1], g));
            sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(m[row * 3 + 2], b));
            sum = _mm256_srai_epi32(_mm256_add_epi32(sum, round), 14);
            sum = _mm256_min_epi32(_mm256_max_epi32(sum, zero), top);
            channel[row] = _mm256_and_si256(_mm256_i32gather_epi32(encode, sum, 1), low8);
        }
        __m256i result = _mm256_or_si256(channel[0], _mm256_slli_epi32(channel[1], 8));
        result = _mm256_or_si256(result, _mm256_slli_epi32(channel[2], 16));
        result = _mm256_or_si256(result, _mm256_and_si256(px, alpha));
        _mm256_storeu_si256(slot, result);
    }
    return done;
}

/* Whether the CPU and the OS support AVX-512 F and BW (CPUID leaf 7 EBX bits 16 and 30, and the
   opmask and ZMM state enabled in XCR0). */
static int kf_has_avx512bw(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE)) {
        return 0;
    }
    unsigned int xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 0xE6) != 0xE6) {
        return 0;
    }
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
        return 0;
    }
    return (ebx & bit_AVX512F) != 0 && (ebx & bit_AVX512BW) != 0;
}

/* A 256-entry 16-bit table held in eight registers of 32 entries. */
typedef struct {
    __m512i part[8];
} kf_table256;

__attribute__((target("avx512f,avx512bw")))
static inline __m512i kf_lookup256(const kf_table256 *table, __m512i index) {
    const __m512i a = _mm512_permutex2var_epi16(table->part[0], index, table->part[1]);
    const __m512i b = _mm512_permutex2var_epi16(table->part[2], index, table->part[3]);
    const __m512i c = _mm512_permutex2var_epi16(table->part[4], index, table->part[5]);
    const __m512i d = _mm512_permutex2var_epi16(table->part[6], index, table->part[7]);
    const __mmask32 bit6 = _mm512_test_epi16_mask(index, _mm512_set1_epi16(64));
    const __mmask32 bit7 = _mm512_test_epi16_mask(index, _mm512_set1_epi16(128));
    const __m512i low = _mm512_mask_blend_epi16(bit6, a, b);
    const __m512i high = _mm512_mask_blend_epi16(bit6, c, d);
    return _mm512_mask_blend_epi16(bit7, low, high);
}

/* Sixteen pixels at a time: the input tables are looked up by permutes from registers, the output
   table by gathers; the same integer arithmetic as kf_color_scalar. */
__attribute__((target("avx512f,avx512bw")))
static size_t kf_color_avx512(unsigned char *pixels, size_t count, const unsigned short *input,
                              const int *matrix, const unsigned char *output) {
    kf_table256 tables[3];
    for (int channel = 0; channel < 3; channel++) {
        for (int part = 0; part < 8; part++) {
            tables[channel].part[part] = _mm512_loadu_si512((const void *)(input + channel * 256 + part * 32));
        }
    }
    const __m512i low8 = _mm512_set1_epi32(0xFF), low16 = _mm512_set1_epi32(0xFFFF);
    const __m512i alpha = _mm512_set1_epi32((int)0xFF000000u), round = _mm512_set1_epi32(8192);
    const __m512i zero = _mm512_setzero_si512(), top = _mm512_set1_epi32(16383);
    __m512i m[9];
    int narrow = 1;
    for (int i = 0; i < 9; i++) {
        m[i] = _mm512_set1_epi32(matrix[i]);
        narrow = narrow && matrix[i] >= -32768 && matrix[i] <= 32767;
    }
    /* Coefficients of 16 bits (below 2.0) also go as pairs through madd: (m0, m1) and (m2, 8192). */
    __m512i pair[6];
    for (int row = 0; row < 3; row++) {
        pair[row * 2] = _mm512_set1_epi32((int)(((unsigned)matrix[row * 3] & 0xFFFFu) | ((unsigned)matrix[row * 3 + 1] << 16)));
        pair[row * 2 + 1] = _mm512_set1_epi32((int)(((unsigned)matrix[row * 3 + 2] & 0xFFFFu) | (8192u << 16)));
    }
    const __m512i one_high = _mm512_set1_epi32(1 << 16);
    size_t done = 0;
    for (; done + 16 <= count; done += 16) {
        void *slot = (void *)(pixels + done * 4);
        const __m512i px = _mm512_loadu_si512(slot);
        const __m512i r = _mm512_and_si512(kf_lookup256(&tables[0], _mm512_and_si512(px, low8)), low16);
        const __m512i g = _mm512_and_si512(
            kf_lookup256(&tables[1], _mm512_and_si512(_mm512_srli_epi32(px, 8), low8)), low16);
        const __m512i b = _mm512_and_si512(
            kf_lookup256(&tables[2], _mm512_and_si512(_mm512_srli_epi32(px, 16), low8)), low16);
        __m512i channel[3];
        const __m512i rg = _mm512_or_si512(r, _mm512_slli_epi32(g, 16));
        const __m512i b1 = _mm512_or_si512(b, one_high);
        for (int row = 0; row < 3; row++) {
            __m512i sum;
            if (narrow) {
                /* r·m0 + g·m1 and b·m2 + 8192·1 as pairs of 16-bit products. */
                sum = _mm512_add_epi32(_mm512_madd_epi16(rg, pair[row * 2]), _mm512_madd_epi16(b1, pair[row * 2 + 1]));
            } else {
                sum = _mm512_add_epi32(_mm512_mullo_epi32(m[row * 3], r), _mm512_mullo_epi32(m[row * 3 + 1], g));
                sum = _mm512_add_epi32(_mm512_add_epi32(sum, _mm512_mullo_epi32(m[row * 3 + 2], b)), round);
            }
            sum = _mm512_srai_epi32(sum, 14);
            sum = _mm512_min_epi32(_mm512_max_epi32(sum, zero), top);
            channel[row] = _mm512_and_si512(_mm512_i32gather_epi32(sum, (const void *)output, 1), low8);
        }
        __m512i result = _mm512_or_si512(channel[0], _mm512_slli_epi32(channel[1], 8));
        result = _mm512_or_si512(result, _mm512_slli_epi32(channel[2], 16));
        result = _mm512_or_si512(result, _mm512_and_si512(px, alpha));
        _mm512_storeu_si512(slot, result);
    }
    return done;
}
#endif

void kf_color_matrix_shaper(unsigned char *pixels, size_t count, const unsigned short *input,
                            const int *matrix, const unsigned char *output) {
    size_t done = 0;
#if defined(__x86_64__)
    /* 0 until first asked, then 1 (scalar), 2 (AVX2) or 3 (AVX-512); racing threads store the same. */
    static int level = 0;
    int known = __atomic_load_n(&level, __ATOMIC_RELAXED);
    if (known == 0) {
        known = kf_has_avx512bw() ? 3 : (kf_has_avx2() ? 2 : 1);
        __atomic_store_n(&level, known, __ATOMIC_RELAXED);
    }
    if (known == 3) {
        done = kf_color_avx512(pixels, count, input, matrix, output);
    } else if (known == 2) {
        done = kf_color_avx2(pixels, count, input, matrix, output);
    }
#endif
    kf_color_scalar(pixels + done * 4, count - done, input, matrix, output);
}
