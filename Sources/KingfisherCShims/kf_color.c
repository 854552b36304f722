#include "kf_color.h"

static inline int kf_clamp_index(int value) {
    return value < 0 ? 0 : (value > 16383 ? 16383 : value);
}

void kf_color_matrix_shaper(unsigned char *pixels, size_t count, const unsigned short *input,
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
