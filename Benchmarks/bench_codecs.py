#!/usr/bin/env python3
"""Decodes and encodes the same images with Kingfisher's codecs and with the C libraries' own tools
(djpeg, cjpeg, dwebp, cwebp, gif2rgb) in one run, and prints a table of medians and ratios.

Our figures are in-process medians from `codec-bench` (bytes already in memory). djpeg, cjpeg and
gif2rgb are timed as whole processes writing to /dev/null (their start-up is under 1 ms, small
beside these sizes); dwebp and cwebp report their own decode and encode times with -v, which we
read (they print whole milliseconds). For cwebp that is the time to read and import the PPM plus
the time to encode, because cwebp converts RGB to YUV while importing, which our figure includes.
Run through scripts/bench-codecs.sh, which installs the tools and builds codec-bench.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_rows  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, ".build-bench-data")
# Built by the bench scripts into the root package's build folder (--scratch-path .build).
BENCH = os.path.join(ROOT, ".build", "release", "codec-bench")
RUNS = int(os.environ.get("BENCH_RUNS", "9"))


def photo(width, height, seed):
    """A photo-like picture: smooth structure plus sensor-like noise, so entropy is realistic."""
    base = Image.effect_mandelbrot((width, height), (-2.1 + seed * 0.01, -1.2, 0.9, 1.2), 48)
    gradient = Image.linear_gradient("L").resize((width, height))
    noise = Image.effect_noise((width, height), 18)
    red = Image.blend(base, noise, 0.25)
    green = Image.blend(gradient, noise, 0.3)
    blue = Image.blend(base.transpose(Image.Transpose.FLIP_LEFT_RIGHT), gradient, 0.5)
    return Image.merge("RGB", (red, green, blue))


def make_images():
    os.makedirs(DATA, exist_ok=True)
    marker = os.path.join(DATA, "ready-v4")
    if os.path.exists(marker):
        return
    print("generating images in", DATA, file=sys.stderr)
    big = photo(6000, 4000, 0)
    big.save(os.path.join(DATA, "photo24.jpg"), quality=85)
    big.save(os.path.join(DATA, "photo24p.jpg"), quality=85, progressive=True)
    subprocess.run(["djpeg", "-outfile", os.path.join(DATA, "photo24.ppm"), os.path.join(DATA, "photo24.jpg")], check=True)
    web = photo(2000, 1500, 3)
    web.save(os.path.join(DATA, "web.ppm"))
    web.save(os.path.join(DATA, "web.png"), compress_level=1)
    subprocess.run(["cwebp", "-quiet", "-q", "80", os.path.join(DATA, "web.ppm"), "-o", os.path.join(DATA, "web.webp")], check=True)
    small = photo(1500, 1000, 5).convert("RGBA")
    small.save(os.path.join(DATA, "webl.png"), compress_level=1)
    small.convert("RGB").save(os.path.join(DATA, "webl.ppm"))
    subprocess.run(["cwebp", "-quiet", "-lossless", os.path.join(DATA, "webl.ppm"), "-o", os.path.join(DATA, "webl.webp")], check=True)
    still = photo(1000, 1000, 7).quantize(256, dither=Image.Dither.FLOYDSTEINBERG)
    still.save(os.path.join(DATA, "still.gif"))
    subprocess.run(["gif2rgb", "-1", "-o", os.path.join(DATA, "still.rgb"), os.path.join(DATA, "still.gif")], check=True)
    frames = [photo(400, 400, i).quantize(256) for i in range(30)]
    frames[0].save(os.path.join(DATA, "anim.gif"), save_all=True, append_images=frames[1:], duration=50, loop=0)
    open(marker, "w").close()


def ours(*args):
    output = subprocess.run([BENCH, *args, "--runs", str(RUNS)], check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])["median_ms"]


def wall(command, stdout=subprocess.DEVNULL):
    subprocess.run(command, check=True, stdout=stdout, stderr=subprocess.DEVNULL)
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=stdout, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def reported(command, *patterns):
    """The median of the sum of the times the tool prints after each of `patterns`."""
    times = []
    for _ in range(RUNS + 1):
        result = subprocess.run(command, check=True, capture_output=True, text=True)
        total = 0.0
        for pattern in patterns:
            match = re.search(pattern + r"\s*([0-9.]+)s", result.stderr)
            if not match:
                raise RuntimeError(f"no timing in output of {command}: {result.stderr}")
            total += float(match.group(1)) * 1000
        times.append(total)
    return statistics.median(times[1:])


def main():
    make_images()
    d = lambda name: os.path.join(DATA, name)
    null = open(os.devnull, "w")
    rows = [
        ("JPEG decode 24 MP", ours("decode", d("photo24.jpg")), "djpeg",
         wall(["djpeg", "-outfile", "/dev/null", d("photo24.jpg")])),
        ("JPEG decode 24 MP at 1/8", ours("decode", d("photo24.jpg"), "--min", "750x500"), "djpeg -scale 1/8",
         wall(["djpeg", "-scale", "1/8", "-outfile", "/dev/null", d("photo24.jpg")])),
        ("JPEG decode 24 MP progressive at 1/8", ours("decode", d("photo24p.jpg"), "--min", "750x500"), "djpeg -scale 1/8",
         wall(["djpeg", "-scale", "1/8", "-outfile", "/dev/null", d("photo24p.jpg")])),
        ("JPEG encode 24 MP q85", ours("encode", d("photo24.jpg"), "jpeg", "--quality", "0.85"), "cjpeg -quality 85",
         wall(["cjpeg", "-quality", "85", "-outfile", "/dev/null", d("photo24.ppm")])),
        ("WebP lossy decode 3 MP", ours("decode", d("web.webp")), "dwebp",
         reported(["dwebp", "-v", "-pam", d("web.webp"), "-o", "/dev/null"], r"Time to decode picture:")),
        ("WebP lossy encode 3 MP q80", ours("encode", d("web.png"), "webp", "--quality", "0.8"), "cwebp -q 80",
         reported(["cwebp", "-v", "-q", "80", d("web.ppm"), "-o", "/dev/null"],
                  r"Time to read input:", r"Time to encode picture:")),
        ("WebP lossless decode 1.5 MP", ours("decode", d("webl.webp")), "dwebp",
         reported(["dwebp", "-v", "-pam", d("webl.webp"), "-o", "/dev/null"], r"Time to decode picture:")),
        ("WebP lossless encode 1.5 MP", ours("encode", d("webl.png"), "webp", "--lossless", "--quality", "0.75"), "cwebp -lossless",
         reported(["cwebp", "-v", "-lossless", d("webl.ppm"), "-o", "/dev/null"],
                  r"Time to read input:", r"Time to encode picture:")),
        ("GIF decode 1 MP", ours("decode", d("still.gif")), "gif2rgb",
         wall(["gif2rgb", "-1", "-o", "/dev/null", d("still.gif")])),
        ("GIF decode 400² × 30 frames", ours("decode", d("anim.gif")), "gif2rgb",
         wall(["gif2rgb", "-1", "-o", "/dev/null", d("anim.gif")])),
        ("GIF encode 1 MP, 256 colours", ours("encode", d("still.gif"), "gif"), "gif2rgb -c 8",
         wall(["gif2rgb", "-1", "-c", "8", "-s", "1000", "1000", d("still.rgb")], stdout=null)),
    ]
    print(f"Medians of {RUNS} runs, milliseconds; ratio = ours / C tool (target ≤ 1.10).")
    print()
    print("| work | ours | C tool | tool | ratio |")
    print("|---|---:|---|---:|---:|")
    for name, mine, tool, theirs in rows:
        flag = "" if mine <= theirs * 1.10 else " ✗"
        print(f"| {name} | {mine:.1f} | {tool} | {theirs:.1f} | {mine / theirs:.2f}{flag} |")
        bench_rows.record("codecs", name, mine, "ms", tool, theirs, mine / theirs, "≤ 1.1")


if __name__ == "__main__":
    main()
