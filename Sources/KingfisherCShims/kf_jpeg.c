#include "kf_jpeg.h"

#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int hit_eof;
} kf_error_mgr;

typedef struct {
    struct jpeg_progress_mgr base;
    int max_scans;
    j_common_ptr owner;
} kf_progress_mgr;

struct kf_jpeg_decoder {
    struct jpeg_decompress_struct info;
    kf_error_mgr error;
    kf_progress_mgr progress;
    int started;
    JOCTET *icc;
};

static void kf_error_exit(j_common_ptr cinfo) {
    kf_error_mgr *error = (kf_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->jump, 1);
}

static void kf_emit_message(j_common_ptr cinfo, int level) {
    kf_error_mgr *error = (kf_error_mgr *)cinfo->err;
    if (level < 0) {
        /* A warning. Running out of data is the one we refuse: the image would be half grey. */
        if (cinfo->err->msg_code == JWRN_JPEG_EOF) {
            error->hit_eof = 1;
        }
        cinfo->err->num_warnings++;
    }
}

static void kf_output_message(j_common_ptr cinfo) {
    (void)cinfo;
}

static void kf_progress(j_common_ptr cinfo) {
    kf_progress_mgr *progress = (kf_progress_mgr *)cinfo->progress;
    if (cinfo->is_decompressor) {
        struct jpeg_decompress_struct *dinfo = (struct jpeg_decompress_struct *)cinfo;
        if (progress->max_scans > 0 && dinfo->input_scan_number > progress->max_scans) {
            kf_error_mgr *error = (kf_error_mgr *)cinfo->err;
            snprintf(error->message, sizeof(error->message),
                     "progressive JPEG has more than %d scans", progress->max_scans);
            longjmp(error->jump, 1);
        }
    }
}

static void kf_copy_error(const char *message, char *error, size_t error_size) {
    if (error != NULL && error_size > 0) {
        snprintf(error, error_size, "%s", message);
    }
}

static void kf_install_errors(kf_error_mgr *error, j_common_ptr cinfo) {
    cinfo->err = jpeg_std_error(&error->base);
    error->base.error_exit = kf_error_exit;
    error->base.emit_message = kf_emit_message;
    error->base.output_message = kf_output_message;
    error->message[0] = 0;
    error->hit_eof = 0;
}

kf_jpeg_decoder *kf_jpeg_decoder_create(const unsigned char *data, size_t size, int max_scans,
                                        kf_jpeg_header *header, char *error, size_t error_size) {
    if (data == NULL || size == 0 || header == NULL) {
        kf_copy_error("empty data", error, error_size);
        return NULL;
    }
    kf_jpeg_decoder *decoder = calloc(1, sizeof(kf_jpeg_decoder));
    if (decoder == NULL) {
        kf_copy_error("out of memory", error, error_size);
        return NULL;
    }
    kf_install_errors(&decoder->error, (j_common_ptr)&decoder->info);
    if (setjmp(decoder->error.jump)) {
        kf_copy_error(decoder->error.message, error, error_size);
        jpeg_destroy_decompress(&decoder->info);
        free(decoder->icc);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->info);
    decoder->progress.base.progress_monitor = kf_progress;
    decoder->progress.max_scans = max_scans;
    decoder->info.progress = &decoder->progress.base;
    jpeg_mem_src(&decoder->info, data, (unsigned long)size);
    jpeg_save_markers(&decoder->info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&decoder->info, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&decoder->info, TRUE);
    if (decoder->error.hit_eof) {
        kf_copy_error("data ends inside the header", error, error_size);
        jpeg_destroy_decompress(&decoder->info);
        free(decoder);
        return NULL;
    }

    memset(header, 0, sizeof(*header));
    header->width = (int)decoder->info.image_width;
    header->height = (int)decoder->info.image_height;
    header->components = decoder->info.num_components;
    header->progressive = decoder->info.progressive_mode ? 1 : 0;
    header->saw_adobe_marker = decoder->info.saw_Adobe_marker ? 1 : 0;
    switch (decoder->info.jpeg_color_space) {
    case JCS_GRAYSCALE: header->color_space = KF_JPEG_COLOR_GRAY; break;
    case JCS_RGB: header->color_space = KF_JPEG_COLOR_RGB; break;
    case JCS_YCbCr: header->color_space = KF_JPEG_COLOR_YCBCR; break;
    case JCS_CMYK: header->color_space = KF_JPEG_COLOR_CMYK; break;
    case JCS_YCCK: header->color_space = KF_JPEG_COLOR_YCCK; break;
    default: header->color_space = KF_JPEG_COLOR_UNKNOWN; break;
    }
    for (jpeg_saved_marker_ptr marker = decoder->info.marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length > 6 &&
            memcmp(marker->data, "Exif\0\0", 6) == 0) {
            header->exif = marker->data + 6;
            header->exif_size = marker->data_length - 6;
            break;
        }
    }
    /* A missing, incomplete or inconsistent chunk sequence gives no profile (a warning, not an error). */
    unsigned int icc_size = 0;
    if (jpeg_read_icc_profile(&decoder->info, &decoder->icc, &icc_size) && decoder->icc != NULL) {
        header->icc = decoder->icc;
        header->icc_size = icc_size;
    }
    return decoder;
}

int kf_jpeg_decoder_start(kf_jpeg_decoder *decoder, int scale_denom, int *out_width, int *out_height,
                          int *out_cmyk, char *error, size_t error_size) {
    if (setjmp(decoder->error.jump)) {
        kf_copy_error(decoder->error.message, error, error_size);
        return 0;
    }
    struct jpeg_decompress_struct *info = &decoder->info;
    int cmyk = info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK;
    if (cmyk) {
        info->out_color_space = JCS_CMYK;
    } else if (info->num_components == 1 || info->num_components == 3) {
        info->out_color_space = JCS_EXT_RGBA;
    } else {
        kf_copy_error("unsupported colour space", error, error_size);
        return 0;
    }
    info->scale_num = 1;
    info->scale_denom = (unsigned int)(scale_denom == 2 || scale_denom == 4 || scale_denom == 8 ? scale_denom : 1);
    jpeg_start_decompress(info);
    decoder->started = 1;
    if (info->output_components != 4) {
        kf_copy_error("unexpected output component count", error, error_size);
        return 0;
    }
    *out_width = (int)info->output_width;
    *out_height = (int)info->output_height;
    *out_cmyk = cmyk;
    return 1;
}

int kf_jpeg_decoder_read(kf_jpeg_decoder *decoder, unsigned char *pixels, size_t row_bytes,
                         char *error, size_t error_size) {
    return kf_jpeg_decoder_read_rows(decoder, pixels, row_bytes, INT_MAX, error, error_size) >= 0;
}

int kf_jpeg_decoder_read_rows(kf_jpeg_decoder *decoder, unsigned char *pixels, size_t row_bytes, int max_rows,
                              char *error, size_t error_size) {
    if (setjmp(decoder->error.jump)) {
        kf_copy_error(decoder->error.message, error, error_size);
        return -1;
    }
    struct jpeg_decompress_struct *info = &decoder->info;
    JDIMENSION stop = info->output_scanline + (JDIMENSION)(max_rows > 0 ? max_rows : 1);
    if (stop > info->output_height) {
        stop = info->output_height;
    }
    JSAMPROW rows[16];
    while (info->output_scanline < stop) {
        JDIMENSION remaining = stop - info->output_scanline;
        JDIMENSION count = remaining < 16 ? remaining : 16;
        for (JDIMENSION i = 0; i < count; i++) {
            rows[i] = pixels + (size_t)(info->output_scanline + i) * row_bytes;
        }
        jpeg_read_scanlines(info, rows, count);
        if (decoder->error.hit_eof) {
            kf_copy_error("data is truncated (premature end of JPEG file)", error, error_size);
            return -1;
        }
    }
    if (info->output_scanline == info->output_height) {
        jpeg_finish_decompress(info);
        if (decoder->error.hit_eof) {
            kf_copy_error("data is truncated (premature end of JPEG file)", error, error_size);
            return -1;
        }
    }
    return (int)info->output_scanline;
}

void kf_jpeg_decoder_destroy(kf_jpeg_decoder *decoder) {
    if (decoder == NULL) {
        return;
    }
    if (setjmp(decoder->error.jump) == 0) {
        jpeg_destroy_decompress(&decoder->info);
    }
    free(decoder->icc);
    free(decoder);
}

int kf_jpeg_encode(const unsigned char *pixels, int width, int height, size_t row_bytes, int quality,
                   int progressive, unsigned char **out, unsigned long *out_size,
                   char *error, size_t error_size) {
    struct jpeg_compress_struct info;
    kf_error_mgr errors;
    unsigned char *buffer = NULL;
    unsigned long buffer_size = 0;
    memset(&info, 0, sizeof(info));
    kf_install_errors(&errors, (j_common_ptr)&info);
    if (setjmp(errors.jump)) {
        kf_copy_error(errors.message, error, error_size);
        jpeg_destroy_compress(&info);
        free(buffer);
        return 0;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, &buffer, &buffer_size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 4;
    info.in_color_space = JCS_EXT_RGBX;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality < 1 ? 1 : (quality > 100 ? 100 : quality), TRUE);
    if (progressive) {
        jpeg_simple_progression(&info);
    }
    jpeg_start_compress(&info, TRUE);
    JSAMPROW rows[16];
    while (info.next_scanline < info.image_height) {
        JDIMENSION remaining = info.image_height - info.next_scanline;
        JDIMENSION count = remaining < 16 ? remaining : 16;
        for (JDIMENSION i = 0; i < count; i++) {
            rows[i] = (JSAMPROW)(pixels + (size_t)(info.next_scanline + i) * row_bytes);
        }
        jpeg_write_scanlines(&info, rows, count);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *out = buffer;
    *out_size = buffer_size;
    return 1;
}

void kf_jpeg_free(void *pointer) {
    free(pointer);
}
