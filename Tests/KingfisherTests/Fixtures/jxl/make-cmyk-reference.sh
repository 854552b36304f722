#!/bin/sh
# Writes cmyk_layers-lcms2.png, the reference for cmyk_layers.jxl rendered the way Kingfisher
# renders CMYK: libjxl (0.7) composites the layers and hands out C, M, Y, alpha and the black extra
# channel (1.0 meaning no ink); lcms2 2.14 converts the CMYK through the embedded profile to sRGB,
# relative colorimetric intent, no black-point compensation. Needs cc, libjxl-dev, liblcms2-dev and
# Python 3.
#
# cmyk_layers.jxl and cmyk_layers-ref.png are testcases/cmyk_layers/input.jxl and ref.png of
# github.com/libjxl/conformance (commit 4bf05352, BSD-3-Clause). That ref.png renders the profile
# with another intent: lcms2's perceptual intent comes within 15 of it (46 dB PSNR).
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/reference.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jxl/decode.h>
#include <lcms2.h>
int main(int argc, char **argv) {
    FILE *file = fopen(argv[1], "rb");
    if (file == NULL) return 1;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *data = malloc(size);
    if (fread(data, 1, size, file) != (size_t)size) return 1;
    JxlDecoder *decoder = JxlDecoderCreate(NULL);
    JxlDecoderSubscribeEvents(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE);
    JxlDecoderSetInput(decoder, data, size);
    JxlDecoderCloseInput(decoder);
    JxlBasicInfo info;
    JxlPixelFormat rgba = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0}, gray = {1, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    unsigned char *pixels = NULL, *black = NULL, *icc = NULL;
    size_t icc_size = 0;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_BASIC_INFO) {
            JxlDecoderGetBasicInfo(decoder, &info);
        } else if (status == JXL_DEC_COLOR_ENCODING) {
            JxlDecoderGetICCProfileSize(decoder, &rgba, JXL_COLOR_PROFILE_TARGET_DATA, &icc_size);
            icc = malloc(icc_size);
            JxlDecoderGetColorAsICCProfile(decoder, &rgba, JXL_COLOR_PROFILE_TARGET_DATA, icc, icc_size);
        } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            pixels = malloc((size_t)info.xsize * info.ysize * 4);
            black = malloc((size_t)info.xsize * info.ysize);
            JxlDecoderSetImageOutBuffer(decoder, &rgba, pixels, (size_t)info.xsize * info.ysize * 4);
            JxlDecoderSetExtraChannelBuffer(decoder, &gray, black, (size_t)info.xsize * info.ysize, 0);
        } else if (status == JXL_DEC_FULL_IMAGE) {
            break;
        } else {
            return 2;
        }
    }
    size_t count = (size_t)info.xsize * info.ysize;
    unsigned char *cmyk = malloc(count * 4), *rgb = malloc(count * 3);
    for (size_t i = 0; i < count; i++) {
        memcpy(cmyk + i * 4, pixels + i * 4, 3);
        cmyk[i * 4 + 3] = black[i];
    }
    cmsHPROFILE source = cmsOpenProfileFromMem(icc, (cmsUInt32Number)icc_size), target = cmsCreate_sRGBProfile();
    cmsHTRANSFORM transform = cmsCreateTransform(source, TYPE_CMYK_8_REV, target, TYPE_RGB_8,
                                                 INTENT_RELATIVE_COLORIMETRIC, 0);
    if (transform == NULL) return 3;
    cmsDoTransform(transform, cmyk, rgb, (cmsUInt32Number)count);
    printf("P7\nWIDTH %u\nHEIGHT %u\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", info.xsize, info.ysize);
    for (size_t i = 0; i < count; i++) {
        fwrite(rgb + i * 3, 1, 3, stdout);
        fputc(pixels[i * 4 + 3], stdout);
    }
    return 0;
}
C
cc -O2 "$work/reference.c" -o "$work/reference" -ljxl -llcms2
"$work/reference" cmyk_layers.jxl > "$work/reference.pam"
python3 - "$work/reference.pam" cmyk_layers-lcms2.png <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
header, pixels = data.split(b"ENDHDR\n", 1)
fields = dict(line.split(b" ", 1) for line in header.split(b"\n")[1:] if b" " in line)
width, height = int(fields[b"WIDTH"]), int(fields[b"HEIGHT"])
raw = b"".join(b"\0" + pixels[y * width * 4:(y + 1) * width * 4] for y in range(height))
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
with open(sys.argv[2], "wb") as out:
    out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
              + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
PY
