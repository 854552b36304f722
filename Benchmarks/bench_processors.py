#!/usr/bin/env python3
"""Image processing against Pillow, libjpeg and libvips in one run (SPEC §11), printing medians
and ratios.

In-process rows: ours from `codec-bench process` (the processor chain `kf process` would run),
Pillow timed in this Python process, `djpeg -scale 1/8` as a whole process (the floor: a 1/8 DCT
decode of the same file, nothing else). Whole-process rows: `kf process` against `vipsthumbnail`
and a Pillow script, wall time and peak RSS (GNU time's %M) of each process. Run through
scripts/bench-processors.sh, which installs the tools and builds both binaries.
"""
import os
import statistics
import subprocess
import sys
import time

from PIL import Image, ImageFilter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_codecs  # noqa: E402  (shares the generated images and the helpers)
import bench_rows  # noqa: E402

ROOT = bench_codecs.ROOT
DATA = bench_codecs.DATA
RUNS = bench_codecs.RUNS
KF = os.path.join(ROOT, ".build", "release", "kf")
BLUR_SPEC = os.environ.get("BENCH_BLUR_SPEC", "blur(10)")


def pillow(body):
    body()
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        body()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def process_stats(command):
    """Median wall time and the largest peak RSS (MB) of `command` over the runs."""
    walls, peaks = [], []
    for index in range(RUNS + 1):
        start = time.perf_counter()
        result = subprocess.run(["/usr/bin/time", "-f", "%M", *command], check=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = (time.perf_counter() - start) * 1000
        if index == 0:
            continue
        walls.append(wall)
        peaks.append(int(result.stderr.strip().splitlines()[-1]) / 1024)
    return statistics.median(walls), max(peaks)


def thumbnail_pillow(path):
    image = Image.open(path)
    image.draft("RGB", (200, 200))
    image.thumbnail((200, 200), Image.LANCZOS)
    return image


def main():
    bench_codecs.make_images()
    photo = os.path.join(DATA, "photo24.jpg")
    progressive = os.path.join(DATA, "photo24p.jpg")
    hd = os.path.join(DATA, "hd.png")
    if not os.path.exists(hd):
        bench_codecs.photo(1920, 1080, 9).save(hd, compress_level=1)
    hd_image = Image.open(hd)
    hd_image.load()
    out = os.path.join(DATA, "out")
    os.makedirs(out, exist_ok=True)
    pillow_cli = ("import sys; from PIL import Image; i = Image.open(sys.argv[1]); i.draft('RGB', (200, 200)); "
                  "i.thumbnail((200, 200), Image.LANCZOS); i.save(sys.argv[2], quality=85)")

    fit_ours = bench_codecs.ours("process", photo, "downsample(200x200)")
    fit_floor = bench_codecs.wall(["djpeg", "-scale", "1/8", "-outfile", "/dev/null", photo])
    fit_pillow = pillow(lambda: thumbnail_pillow(photo))
    progressive_ours = bench_codecs.ours("process", progressive, "downsample(200x200)")
    progressive_floor = bench_codecs.wall(["djpeg", "-scale", "1/8", "-outfile", "/dev/null", progressive])
    cli_ours, rss_ours = process_stats([KF, "process", photo, os.path.join(out, "kf.jpg"), "--processor", "downsample(200x200)"])
    cli_vips, rss_vips = process_stats(["vipsthumbnail", photo, "-s", "200", "-o", os.path.join(out, "vips.jpg")])
    cli_pillow, rss_pillow = process_stats(["/usr/bin/python3", "-c", pillow_cli, photo, os.path.join(out, "pil.jpg")])
    blur_ours = bench_codecs.ours("process", hd, BLUR_SPEC, "--predecode")
    blur_pillow = pillow(lambda: hd_image.filter(ImageFilter.GaussianBlur(10)))
    lanczos_ours = bench_codecs.ours("process", hd, "resize(960x540)", "--predecode")
    lanczos_pillow = pillow(lambda: hd_image.resize((960, 540), Image.LANCZOS))

    rows = [
        ("24 MP JPEG → fit 200 px, in process", fit_ours, "djpeg -scale 1/8 (floor)", fit_floor, 1.1),
        ("  same, Pillow draft + thumbnail", fit_ours, "Pillow", fit_pillow, None),
        ("24 MP JPEG → 200 px, whole process", cli_ours, "vipsthumbnail", cli_vips, 0.7),
        ("  same", cli_ours, "Pillow CLI", cli_pillow, None),
        ("24 MP progressive JPEG → fit 200 px, in process", progressive_ours, "djpeg -scale 1/8 (floor)",
         progressive_floor, 1.1),
        (f"Gaussian blur σ 10, 1920×1080 ({BLUR_SPEC})", blur_ours, "Pillow GaussianBlur(10)", blur_pillow, 0.5),
        ("Lanczos 1920×1080 → 960×540", lanczos_ours, "Pillow LANCZOS", lanczos_pillow, 0.7),
    ]
    print(f"Medians of {RUNS} runs, milliseconds; ratio = ours / peer.")
    print()
    print("| work | ours | peer | peer ms | ratio | target |")
    print("|---|---:|---|---:|---:|---:|")
    for name, mine, peer, theirs, target in rows:
        ratio = mine / theirs
        verdict = "" if target is None else (f"≤ {target}" + ("" if ratio <= target else " ✗"))
        print(f"| {name} | {mine:.1f} | {peer} | {theirs:.1f} | {ratio:.2f} | {verdict} |")
        bench_rows.record("processing", name.strip(), mine, "ms", peer, theirs, ratio,
                          None if target is None else f"≤ {target}")
    print()
    print(f"Peak RSS, whole process: kf process {rss_ours:.1f} MB (target ≤ 20), "
          f"vipsthumbnail {rss_vips:.1f} MB, Pillow CLI {rss_pillow:.1f} MB.")
    bench_rows.record("processing", "24 MP JPEG → 200 px, whole process: peak RSS", rss_ours, "MB",
                      "vipsthumbnail", rss_vips, rss_ours / rss_vips, "≤ 20", absolute=True)
    bench_rows.record("processing", "  same: peak RSS", rss_ours, "MB", "Pillow CLI", rss_pillow,
                      rss_ours / rss_pillow)


if __name__ == "__main__":
    main()
