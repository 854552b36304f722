#include "kf_png.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

typedef struct {
    jmp_buf jump;
    const unsigned char *data;
    size_t size;
    size_t offset;
} kf_png_reader;

static void kf_png_error(png_structp png, png_const_charp message) {
    (void)message;
    kf_png_reader *reader = (kf_png_reader *)png_get_error_ptr(png);
    longjmp(reader->jump, 1);
}

static void kf_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void kf_png_read(png_structp png, png_bytep target, size_t length) {
    kf_png_reader *reader = (kf_png_reader *)png_get_io_ptr(png);
    if (length > reader->size - reader->offset) {
        png_error(png, "read past the end of the data");
    }
    memcpy(target, reader->data + reader->offset, length);
    reader->offset += length;
}

int kf_png_read_icc(const unsigned char *data, size_t size, unsigned char **out, size_t *out_size) {
    if (data == NULL || out == NULL || out_size == NULL) {
        return 0;
    }
    *out = NULL;
    *out_size = 0;
    kf_png_reader reader = {.data = data, .size = size, .offset = 0};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, kf_png_error, kf_png_warning);
    if (png == NULL) {
        return 0;
    }
    png_infop info = png_create_info_struct(png);
    /* volatile: changed between setjmp and a possible longjmp. */
    unsigned char *volatile copy = NULL;
    if (info == NULL || setjmp(reader.jump)) {
        free(copy);
        png_destroy_read_struct(&png, info == NULL ? NULL : &info, NULL);
        return 0;
    }
    /* A profile is at most a few megabytes; refuse to inflate more (libpng's own default is 8 MB). */
    png_set_chunk_malloc_max(png, 16 * 1024 * 1024);
    png_set_read_fn(png, &reader, kf_png_read);
    png_read_info(png, info);
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 length = 0;
    int found = 0;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &length) != 0 && profile != NULL && length > 0) {
        copy = malloc(length);
        if (copy != NULL) {
            memcpy(copy, profile, length);
            *out = copy;
            *out_size = length;
            found = 1;
        }
    }
    png_destroy_read_struct(&png, &info, NULL);
    return found;
}

void kf_png_free(void *pointer) {
    free(pointer);
}
