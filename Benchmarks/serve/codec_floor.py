#!/usr/bin/env python3
"""The codec floor of bench-serve.sh's per-format workloads: the CPU the C libraries alone spend to
decode one 2K source at the size kf serve decodes it and to encode the ~512-px output at the
workload's settings, per image, measured on the same files.

    codec_floor.py FORMAT DIR BOX        prints "decode_ms encode_ms" for the photo-NNN.EXT of DIR

JPEG, WebP and AVIF run the libraries' own command-line tools (djpeg and cjpeg of libjpeg-turbo,
dwebp and cwebp of libwebp, avifdec and avifenc of libavif with dav1d and libaom), one process per
image; each tool's cost on an 8x8 image of the same format (process start, loading the libraries,
reading and writing files) is measured the same way and subtracted. PNG has no such tool over a
fast library, so its floor is libdeflate itself, through ctypes and timed in this process: inflating
the source's image data and deflating the output's filtered rows at kf's level (4), the two steps
that dominate, with row filtering, which kf does in Swift, left out.

Outputs are made once with Pillow's LANCZOS fit into BOX x BOX (what the servers return, within a
pixel); the decode of JPEG is at the scale kf chooses (the largest 1/2^k reduction that keeps the
fitted size), WebP decodes straight to the output size as kf asks libwebp to, PNG and AVIF decode in
full (neither can scale while decoding).
"""
import ctypes
import glob
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time
import zlib

from PIL import Image

QUALITY = {"jpeg": 80, "webp": 75, "avif": 65}
EXTENSION = {"jpeg": "jpg", "png": "png", "webp": "webp", "avif": "avif"}


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_all(commands):
    """CPU seconds of running every command in turn (their output discarded)."""
    before = children_cpu()
    for command in commands:
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return children_cpu() - before


def fitted(width, height, box):
    if width >= height:
        return box, max(1, round(height * box / width))
    return max(1, round(width * box / height)), box


def jpeg_scale(width, height, box):
    """The denominator kf's JPEG decoder picks: the largest of 8, 4, 2 that keeps the fitted size."""
    target_width, target_height = fitted(width, height, box)
    for denominator in (8, 4, 2):
        if -(-width // denominator) >= target_width and -(-height // denominator) >= target_height:
            return denominator
    return 1


def y4m(image, path):
    """`image` as one 4:2:0 full-range BT.601 frame of a Y4M file, the encoders' raw input."""
    width, height = image.size
    luma, blue, red = image.convert("YCbCr").split()
    half = ((width + 1) // 2, (height + 1) // 2)
    with open(path, "wb") as file:
        file.write(f"YUV4MPEG2 W{width} H{height} F25:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL\nFRAME\n".encode())
        file.write(luma.tobytes() + blue.resize(half, Image.BOX).tobytes() + red.resize(half, Image.BOX).tobytes())


def tool_floor(kind, sources, box, work):
    decodes, encodes, tiny_decode, tiny_encode = [], [], [], []
    tiny_image = Image.new("RGB", (8, 8), (120, 60, 30))
    tiny = os.path.join(work, f"tiny.{EXTENSION[kind]}")
    tiny_image.save(tiny, quality=90)
    tiny_raw = os.path.join(work, "tiny.ppm" if kind != "avif" else "tiny.y4m")
    tiny_image.save(tiny_raw) if kind != "avif" else y4m(tiny_image, tiny_raw)
    quality = str(QUALITY[kind])
    for index, source in enumerate(sources):
        image = Image.open(source)
        width, height = image.size
        output = image.convert("RGB")
        output.thumbnail((box, box), Image.LANCZOS)
        raw = os.path.join(work, f"out-{index}.ppm")
        if kind == "avif":
            raw = os.path.join(work, f"out-{index}.y4m")
            y4m(output, raw)
        elif kind == "webp":
            raw = os.path.join(work, f"out-{index}.png")
            output.save(raw)
        else:
            output.save(raw)
        if kind == "jpeg":
            scale = f"1/{jpeg_scale(width, height, box)}"
            decodes.append(["djpeg", "-scale", scale, "-outfile", os.devnull, source])
            encodes.append(["cjpeg", "-quality", quality, "-outfile", os.devnull, raw])
            tiny_decode.append(["djpeg", "-outfile", os.devnull, tiny])
            tiny_encode.append(["cjpeg", "-quality", quality, "-outfile", os.devnull, tiny_raw])
        elif kind == "webp":
            target_width, target_height = fitted(width, height, box)
            decodes.append(["dwebp", "-quiet", "-ppm", "-scale", str(target_width), str(target_height), source, "-o", os.devnull])
            encodes.append(["cwebp", "-quiet", "-q", quality, "-m", "4", raw, "-o", os.devnull])
            tiny_decode.append(["dwebp", "-quiet", "-ppm", tiny, "-o", os.devnull])
            tiny_encode.append(["cwebp", "-quiet", "-q", quality, "-m", "4", tiny_raw, "-o", os.devnull])
        else:
            scratch = os.path.join(work, "scratch")
            decodes.append(["avifdec", "-j", "1", source, scratch + ".y4m"])
            # kf's mapping of quality to one AV1 quantizer, as --min and --max (libavif 0.11 has no -q).
            quantizer = str(round((100 - QUALITY[kind]) * 63 / 100))
            encoder = ["avifenc", "-j", "1", "-s", os.environ.get("AVIF_SPEED", "8"), "--min", quantizer, "--max", quantizer]
            encodes.append(encoder + [raw, scratch + ".avif"])
            tiny_decode.append(["avifdec", "-j", "1", tiny, scratch + ".y4m"])
            tiny_encode.append(encoder + [tiny_raw, scratch + ".avif"])
    count = len(sources)
    decode = (run_all(decodes) - run_all(tiny_decode)) / count
    encode = (run_all(encodes) - run_all(tiny_encode)) / count
    return decode, encode


def idat(data):
    """The concatenated image data of a PNG."""
    offset, chunks = 8, []
    while offset + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        if kind == b"IDAT":
            chunks.append(data[offset + 8:offset + 8 + length])
        offset += 12 + length
    return b"".join(chunks)


def png_floor(sources, box):
    library = ctypes.CDLL("libdeflate.so.0")
    library.libdeflate_alloc_decompressor.restype = ctypes.c_void_p
    library.libdeflate_alloc_compressor.restype = ctypes.c_void_p
    library.libdeflate_alloc_compressor.argtypes = [ctypes.c_int]
    library.libdeflate_zlib_decompress.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                                                   ctypes.c_size_t, ctypes.c_void_p]
    library.libdeflate_zlib_compress.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                                                 ctypes.c_size_t]
    library.libdeflate_zlib_compress.restype = ctypes.c_size_t
    library.libdeflate_zlib_compress_bound.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    library.libdeflate_zlib_compress_bound.restype = ctypes.c_size_t
    decompressor = library.libdeflate_alloc_decompressor()
    compressor = library.libdeflate_alloc_compressor(4)
    decode = encode = 0.0
    for source in sources:
        data = open(source, "rb").read()
        stream = idat(data)
        width, height = struct.unpack(">II", data[16:24])
        channels = {2: 3, 6: 4}[data[25]]
        raw = ctypes.create_string_buffer((width * channels + 1) * height)
        started = time.process_time()
        status = library.libdeflate_zlib_decompress(decompressor, stream, len(stream), raw, len(raw), None)
        decode += time.process_time() - started
        assert status == 0, f"libdeflate could not inflate {source}"
        output = Image.open(source).convert("RGB")
        output.thumbnail((box, box), Image.LANCZOS)
        # Pillow's adaptive filtering stands in for kf's (the same rule): the rows kf would deflate.
        with tempfile.TemporaryFile() as file:
            output.save(file, "PNG", compress_level=1)
            file.seek(0)
            rows = zlib.decompress(idat(file.read()))
        bound = library.libdeflate_zlib_compress_bound(compressor, len(rows))
        target = ctypes.create_string_buffer(bound)
        started = time.process_time()
        written = library.libdeflate_zlib_compress(compressor, rows, len(rows), target, bound)
        encode += time.process_time() - started
        assert written > 0
    return decode / len(sources), encode / len(sources)


def main():
    kind, folder, box = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sources = sorted(glob.glob(os.path.join(folder, f"photo-*.{EXTENSION[kind]}")))
    if not sources:
        sys.exit(f"no photo-*.{EXTENSION[kind]} in {folder}")
    with tempfile.TemporaryDirectory() as work:
        decode, encode = png_floor(sources, box) if kind == "png" else tool_floor(kind, sources, box, work)
    print(f"{decode * 1000:.2f} {encode * 1000:.2f}")


if __name__ == "__main__":
    main()
