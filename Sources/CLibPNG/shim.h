#ifndef CLIBPNG_SHIM_H
#define CLIBPNG_SHIM_H
#include <png.h>

/* Composite macros of the simplified API, which Swift does not import. */
static const unsigned int kf_png_format_rgba = PNG_FORMAT_RGBA;
static const unsigned int kf_png_format_rgb = PNG_FORMAT_RGB;
static const unsigned int kf_png_format_gray = PNG_FORMAT_GRAY;
static const unsigned int kf_png_format_ga = PNG_FORMAT_GA;
static const unsigned int kf_png_image_version = PNG_IMAGE_VERSION;
static const unsigned int kf_png_image_warning = PNG_IMAGE_WARNING;
static const unsigned int kf_png_image_error = PNG_IMAGE_ERROR;
#endif
