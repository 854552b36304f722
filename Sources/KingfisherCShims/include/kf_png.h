#ifndef KF_PNG_H
#define KF_PNG_H

/*
 * Reads a PNG's embedded ICC profile with libpng's full API, which reports errors by longjmp: the
 * jump is caught here, so none crosses a Swift frame. Only plain C types cross this header.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Reads the chunks of `data` up to the first IDAT and returns 1 with the decompressed iCCP profile in
 * *out (release with kf_png_free) when libpng accepts one; 0 when there is none, or it or the file
 * is broken. A profile libpng finds inconsistent with the image (an RGB profile on a gray image) is
 * not returned.
 */
int kf_png_read_icc(const unsigned char *data, size_t size, unsigned char **out, size_t *out_size);

void kf_png_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
