#ifndef KF_JPEG_H
#define KF_JPEG_H

/*
 * A thin wrapper over libjpeg's classic API. libjpeg reports fatal errors by longjmp; every function
 * here catches them with its own setjmp and returns 0 with a message instead, so no jump ever
 * crosses a Swift frame. Only plain C types cross this header.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf_jpeg_decoder kf_jpeg_decoder;

enum {
    KF_JPEG_COLOR_UNKNOWN = 0,
    KF_JPEG_COLOR_GRAY = 1,
    KF_JPEG_COLOR_RGB = 2,
    KF_JPEG_COLOR_YCBCR = 3,
    KF_JPEG_COLOR_CMYK = 4,
    KF_JPEG_COLOR_YCCK = 5
};

typedef struct {
    int width;
    int height;
    int components;
    int color_space;
    int progressive;
    int saw_adobe_marker;
    const unsigned char *exif;  /* APP1 "Exif" payload after the 6-byte id, or NULL; owned by the decoder */
    size_t exif_size;
    const unsigned char *icc;   /* the APP2 "ICC_PROFILE" chunks joined in sequence order, or NULL; owned by the decoder */
    size_t icc_size;
} kf_jpeg_header;

/* Reads the header of `data` (which must outlive the decoder). NULL on failure, message in `error`. */
kf_jpeg_decoder *kf_jpeg_decoder_create(const unsigned char *data, size_t size, int max_scans,
                                        kf_jpeg_header *header, char *error, size_t error_size);

/*
 * Starts decompression at 1/scale_denom (1, 2, 4 or 8). Colour images come out as RGBA with alpha 255,
 * CMYK and YCCK images as 4-byte CMYK. Returns 0 on failure.
 */
int kf_jpeg_decoder_start(kf_jpeg_decoder *decoder, int scale_denom, int *out_width, int *out_height,
                          int *out_cmyk, char *error, size_t error_size);

/* Reads every scanline into `pixels` (out_height rows of `row_bytes`). Returns 0 on failure. */
int kf_jpeg_decoder_read(kf_jpeg_decoder *decoder, unsigned char *pixels, size_t row_bytes,
                         char *error, size_t error_size);

/*
 * Reads up to `max_rows` more scanlines into `pixels` (which holds all out_height rows of `row_bytes`),
 * finishing decompression after the last. Returns the number of rows read so far in total, or -1 on
 * failure.
 */
int kf_jpeg_decoder_read_rows(kf_jpeg_decoder *decoder, unsigned char *pixels, size_t row_bytes, int max_rows,
                              char *error, size_t error_size);

void kf_jpeg_decoder_destroy(kf_jpeg_decoder *decoder);

/*
 * Encodes RGBX rows (the fourth byte ignored) at quality 1...100 with 4:2:0 chroma subsampling.
 * On success *out holds a buffer to release with kf_jpeg_free.
 */
int kf_jpeg_encode(const unsigned char *pixels, int width, int height, size_t row_bytes, int quality,
                   int progressive, unsigned char **out, unsigned long *out_size,
                   char *error, size_t error_size);

void kf_jpeg_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
