#!/bin/sh
# Writes jpeg-decoder-ycck-lcms2.png, the colour-managed reference for jpeg-decoder-ycck.jpg:
# libjpeg-turbo decodes the Adobe YCCK file to CMYK (stored inverted, as its APP14 marker says),
# lcms2 2.14 converts it through the embedded CMYK profile to sRGB, relative colorimetric intent,
# no black-point compensation. Needs cc, libjpeg62-turbo-dev, liblcms2-dev and Python 3.
#
# jpeg-decoder-ycck.jpg and jpeg-decoder-ycck.png are tests/reftest/images/ycck.{jpg,png} of
# github.com/image-rs/jpeg-decoder (commit eb2d7c0f); that PNG was made with ImageMagick's
# `convert`, which ignores the profile and uses the naive (1 - C)(1 - K) formula.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/reference.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
#include <lcms2.h>
int main(int argc, char **argv) {
    FILE *file = fopen(argv[1], "rb");
    if (file == NULL) return 1;
    struct jpeg_decompress_struct info;
    struct jpeg_error_mgr errors;
    info.err = jpeg_std_error(&errors);
    jpeg_create_decompress(&info);
    jpeg_stdio_src(&info, file);
    jpeg_save_markers(&info, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&info, TRUE);
    JOCTET *icc = NULL;
    unsigned int icc_size = 0;
    if (!jpeg_read_icc_profile(&info, &icc, &icc_size)) return 2;
    info.out_color_space = JCS_CMYK;
    jpeg_start_decompress(&info);
    size_t width = info.output_width, height = info.output_height;
    unsigned char *cmyk = malloc(width * height * 4), *rgb = malloc(width * height * 3);
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = cmyk + (size_t)info.output_scanline * width * 4;
        jpeg_read_scanlines(&info, &row, 1);
    }
    cmsHPROFILE source = cmsOpenProfileFromMem(icc, icc_size), target = cmsCreate_sRGBProfile();
    cmsUInt32Number format = info.saw_Adobe_marker ? TYPE_CMYK_8_REV : TYPE_CMYK_8;
    cmsHTRANSFORM transform = cmsCreateTransform(source, format, target, TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC, 0);
    if (transform == NULL) return 3;
    cmsDoTransform(transform, cmyk, rgb, (cmsUInt32Number)(width * height));
    printf("P6\n%zu %zu\n255\n", width, height);
    fwrite(rgb, 1, width * height * 3, stdout);
    return 0;
}
C
cc -O2 "$work/reference.c" -o "$work/reference" -ljpeg -llcms2
"$work/reference" jpeg-decoder-ycck.jpg > "$work/reference.ppm"
python3 - "$work/reference.ppm" jpeg-decoder-ycck-lcms2.png <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
magic, width, height, maximum, pixels = data.split(maxsplit=4)
width, height = int(width), int(height)
raw = b"".join(b"\0" + pixels[y * width * 3:(y + 1) * width * 3] for y in range(height))
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
with open(sys.argv[2], "wb") as out:
    out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
              + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
PY
