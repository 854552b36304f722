#ifndef KF_COLOR_H
#define KF_COLOR_H

/*
 * The inner loop of the matrix/TRC colour conversion (see MatrixShaperTransform.swift), in C so that
 * it compiles to plain integer code without Swift's overflow and conversion checks.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Converts `count` RGBA pixels in place, alpha untouched: each of R, G, B through its 256-entry
 * `input` table (R, G, B one after the other; linear light scaled to 0...16383), then the 3x3
 * `matrix` (row by row, 2^14 = 1.0), then, clamped to 0...16383, through the 16384-entry `output`
 * table. The caller keeps each matrix row's absolute sum below 8, so no sum overflows. On CPUs with
 * AVX-512 (F and BW) sixteen pixels go at a time, the input tables looked up by permutes; with AVX2,
 * eight at a time through gathers. Gathers read 4 bytes at each entry: `input` must have 2 entries
 * and `output` 4 bytes of padding past their ends. Every path gives the same bytes.
 */
void kf_color_matrix_shaper(unsigned char *pixels, size_t count, const unsigned short *input,
                            const int *matrix, const unsigned char *output);

#ifdef __cplusplus
}
#endif

#endif
