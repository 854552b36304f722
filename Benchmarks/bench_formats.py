#!/usr/bin/env python3
"""AVIF, HEIC and JPEG XL against their own reference tools, in one run on the same files.

Decoding: ours is `codec-bench decode` (in process, bytes already in memory, to premultiplied 8-bit
RGBA in sRGB). The tools run as whole processes that decode and write as little as they can:
`avifdec` to an uncompressed PNG in /dev/shm (it has no "decode only" mode that converts to RGB;
`--info` stops at YUV), `djxl` with no output (it decodes to pixels and drops them), and
`heif-convert` to Y4M in /dev/shm (its only output that needs no compression; Y4M keeps YUV, so
heif-convert skips the RGB conversion our figure includes). For 100 small images ours decodes
every file in one process and the tool runs once per file: the tool's figure includes 100 process
start-ups, which the table states beside it.

Encoding: ours is `codec-bench encode` of an already decoded image; `avifenc` reads a PNG saved
with zlib level 1 (told to write 4:2:0 as ours does; for PNG input it would write 4:4:4) and `cjxl`
a PPM, both whole processes at the same speed/effort and quality.

Thumbnail: `kf process` and `vipsthumbnail`, whole processes, on a 12 MP HEIC that carries a
320-pixel thumbnail (as phones write them), with the peak RSS of each.

Run through scripts/bench-formats.sh, which installs the tools and builds codec-bench and kf.
"""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_codecs  # noqa: E402
import bench_rows  # noqa: E402
from bench_codecs import ours, wall  # noqa: E402
from bench_processors import process_stats  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, ".build-bench-data", "formats")
KF = os.path.join(ROOT, ".build", "release", "kf")
RUNS = bench_codecs.RUNS
SMALL = 100
# The quality every encoder is asked for: cjxl -q 90 and our 0.9; avifenc gets the quantizers our
# AVIF encoder derives from 0.9 (see avif_quantizers).
AVIF_SPEED = 6
JXL_EFFORT = 7
SHM = "/dev/shm/kf-bench-formats"


def run(command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_images():
    os.makedirs(DATA, exist_ok=True)
    marker = os.path.join(DATA, "ready-v1")
    if os.path.exists(marker):
        return
    print("generating images in", DATA, file=sys.stderr)
    d = lambda name: os.path.join(DATA, name)
    big = bench_codecs.photo(4000, 3000, 11)
    big.save(d("big.png"), compress_level=1)
    big.save(d("big.ppm"))
    run(["avifenc", "-s", str(AVIF_SPEED), "-j", "1", "--min", "10", "--max", "30", d("big.png"), d("big.avif")])
    run(["heif-enc", "-q", "80", "-t", "320", d("big.png"), "-o", d("big.heic")])
    run(["cjxl", d("big.ppm"), d("big.jxl"), "-q", "90", "-e", str(JXL_EFFORT)])
    for index in range(SMALL):
        small = bench_codecs.photo(400, 300, 20 + index)
        png = d(f"small-{index}.png")
        small.save(png, compress_level=1)
        run(["avifenc", "-s", str(AVIF_SPEED), "-j", "1", "--min", "10", "--max", "30", png, d(f"small-{index}.avif")])
        run(["heif-enc", "-q", "80", png, "-o", d(f"small-{index}.heic")])
        run(["cjxl", png, d(f"small-{index}.jxl"), "-q", "90", "-e", str(JXL_EFFORT)])
    for extension in ("avif", "heic", "jxl"):
        with open(d(f"small-{extension}.list"), "w") as listing:
            listing.write("\n".join(d(f"small-{index}.{extension}") for index in range(SMALL)))
    open(marker, "w").close()


def tool_many(command_for):
    """Median over the runs of the total time of one tool process per small file."""
    totals = []
    for index in range(RUNS + 1):
        start = time.perf_counter()
        for file_index in range(SMALL):
            run(command_for(file_index))
        if index > 0:
            totals.append((time.perf_counter() - start) * 1000)
    return statistics.median(totals)


def main():
    make_images()
    os.makedirs(SHM, exist_ok=True)
    d = lambda name: os.path.join(DATA, name)
    s = lambda name: os.path.join(SHM, name)
    startup = wall(["avifdec", "--version"])
    rows = [
        ("AVIF decode 12 MP", ours("decode", d("big.avif")), "avifdec -j 1 → PNG level 0",
         wall(["avifdec", "-j", "1", "--png-compress", "0", d("big.avif"), s("big.png")]), 1.1),
        (f"AVIF decode {SMALL} × 400×300", ours("decode-all", d("small-avif.list")), f"{SMALL} × avifdec -j 1",
         tool_many(lambda i: ["avifdec", "-j", "1", "--png-compress", "0", d(f"small-{i}.avif"), s("small.png")]), 1.1),
        ("HEIC decode 12 MP", ours("decode", d("big.heic")), "heif-convert → Y4M",
         wall(["heif-convert", d("big.heic"), s("big.y4m")]), 1.1),
        (f"HEIC decode {SMALL} × 400×300", ours("decode-all", d("small-heic.list")), f"{SMALL} × heif-convert",
         tool_many(lambda i: ["heif-convert", d(f"small-{i}.heic"), s("small.y4m")]), 1.1),
        ("JPEG XL decode 12 MP", ours("decode", d("big.jxl")), "djxl (no output)",
         wall(["djxl", d("big.jxl")]), 1.1),
        (f"JPEG XL decode {SMALL} × 400×300", ours("decode-all", d("small-jxl.list")), f"{SMALL} × djxl",
         tool_many(lambda i: ["djxl", d(f"small-{i}.jxl")]), 1.1),
        (f"AVIF encode 12 MP, speed {AVIF_SPEED}, q 0.9",
         ours("encode", d("big.png"), "avif", "--quality", "0.9", "--speed", str(AVIF_SPEED)),
         f"avifenc -s {AVIF_SPEED} -j 1 -y 420",
         wall(["avifenc", "-s", str(AVIF_SPEED), "-j", "1", "-y", "420", *avif_quantizers(0.9), d("big.png"),
               s("big.avif")]), 1.1),
        (f"JPEG XL encode 12 MP, effort {JXL_EFFORT}, q 90",
         ours("encode", d("big.png"), "jxl", "--quality", "0.9", "--effort", str(JXL_EFFORT)),
         f"cjxl -e {JXL_EFFORT} -q 90",
         wall(["cjxl", d("big.ppm"), s("big.jxl"), "-q", "90", "-e", str(JXL_EFFORT)]), 1.1),
    ]
    kf_thumb, kf_rss = process_stats([KF, "process", d("big.heic"), s("kf.jpg"), "--processor", "downsample(200x200)"])
    vips_thumb, vips_rss = process_stats(["vipsthumbnail", d("big.heic"), "-s", "200", "-o", s("vips.jpg")])
    rows.append(("12 MP HEIC → 200 px, whole process", kf_thumb, "vipsthumbnail", vips_thumb, 0.7))
    print(f"Medians of {RUNS} runs, milliseconds; ratio = ours / tool. One tool start-up (avifdec --version) "
          f"takes {startup:.1f} ms; the {SMALL}-file tool rows include {SMALL} of them.")
    print()
    print("| work | ours | tool | tool ms | ratio | target |")
    print("|---|---:|---|---:|---:|---:|")
    for name, mine, tool, theirs, target in rows:
        flag = "" if mine <= theirs * target else " ✗"
        print(f"| {name} | {mine:.1f} | {tool} | {theirs:.1f} | {mine / theirs:.2f}{flag} | ≤ {target} |")
        bench_rows.record("formats", name, mine, "ms", tool, theirs, mine / theirs, f"≤ {target}")
    print()
    flag = "" if kf_rss < vips_rss else " ✗"
    print(f"Peak RSS, 12 MP HEIC → 200 px: kf process {kf_rss:.1f} MB, vipsthumbnail {vips_rss:.1f} MB{flag}.")
    bench_rows.record("formats", "12 MP HEIC → 200 px peak RSS", kf_rss, "MB", "vipsthumbnail", vips_rss,
                      kf_rss / vips_rss, "< 1")


def avif_quantizers(quality):
    """avifenc's quantizer flags for our compression quality: the AVIF encoder documents its one
    quantizer as round((1 - quality) × 63) for colour and alpha alike."""
    quantizer = str(round((1 - quality) * 63))
    return ["--min", quantizer, "--max", quantizer, "--minalpha", quantizer, "--maxalpha", quantizer]


if __name__ == "__main__":
    main()
