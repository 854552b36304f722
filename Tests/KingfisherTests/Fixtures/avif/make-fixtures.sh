#!/bin/sh
# Regenerates the AVIF fixtures and their reference decodings. Needs Debian's avifenc/avifdec
# (libavif-bin 0.11.1) and Python 3 with Pillow. Run from anywhere; writes next to this script.
#
# Sources: two 48x32 PNGs drawn below (no two corners alike, so every turn and mirror shows).
# References: avifdec's 8-bit PNG output, re-saved by Pillow without ancillary chunks. avifdec
# 0.11 ignores clap, irot and imir, so for files that carry them the reference is avifdec's output
# transformed here as HEIF orders it: crop, then rotate anticlockwise, then mirror (imir 0 swaps
# top and bottom, 1 swaps left and right).
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import sys
from PIL import Image
work = sys.argv[1]
W, H = 48, 32
def pixel(x, y):
    r = int(255 * x / (W - 1))
    g = int(255 * y / (H - 1))
    b = 220 if (x < W // 2) != (y < H // 2) else 40
    if x < 8 and y < 8:
        r, g, b = 250, 30, 30    # top left: red
    elif x >= W - 8 and y < 8:
        r, g, b = 30, 250, 30    # top right: green
    elif x < 8 and y >= H - 8:
        r, g, b = 30, 30, 250    # bottom left: blue
    return r, g, b
rgb = Image.new("RGB", (W, H))
rgb.putdata([pixel(x, y) for y in range(H) for x in range(W)])
rgb.save(f"{work}/base.png")
rgba = Image.new("RGBA", (W, H))
rgba.putdata([pixel(x, y) + (int(255 * x / (W - 1)) if y < H // 2 else (0 if x < 12 else 255),)
              for y in range(H) for x in range(W)])
rgba.save(f"{work}/alpha.png")
for i, (dx, colour) in enumerate([(0, (200, 40, 40)), (12, (40, 200, 40)), (24, (40, 40, 200)), (36, (200, 200, 40))]):
    frame = Image.new("RGB", (W, H), (30, 30, 30))
    frame.paste(colour, (dx, 8, dx + 12, 24))
    frame.save(f"{work}/frame{i}.png")
from PIL import ImageCms
open(f"{work}/srgb.icc", "wb").write(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
PY

enc() { avifenc -s 8 "$@" >/dev/null; }
enc -d 8 -y 420 "$work/base.png" still8.avif
enc -d 10 -y 420 "$work/base.png" still10.avif
enc -d 12 -y 444 "$work/base.png" still12.avif
enc -d 8 -y 420 "$work/alpha.png" alpha.avif
enc -d 8 -y 420 --icc "$work/srgb.icc" "$work/base.png" icc.avif
for r in 0 1 2 3; do
    enc -d 8 -y 444 --irot $r "$work/base.png" rot$r.avif
    for m in 0 1; do enc -d 8 -y 444 --irot $r --imir $m "$work/base.png" rot$r-mir$m.avif; done
done
enc -d 8 -y 444 --crop 6,4,30,20 "$work/base.png" clap.avif
enc -d 8 -y 444 --crop 6,4,30,20 --irot 1 --imir 1 "$work/base.png" clap-rot1-mir1.avif
enc -d 8 -y 420 --timescale 1000 --duration 100 "$work/frame0.png" --duration 250 "$work/frame1.png" \
    --duration 40 "$work/frame2.png" --duration 500 "$work/frame3.png" anim.avif

for f in *.avif; do
    base=${f%.avif}
    if [ "$base" = anim ]; then
        for i in 0 1 2 3; do avifdec -d 8 --index $i "$f" "$work/$base-$i.png" >/dev/null; done
    else
        avifdec -d 8 "$f" "$work/$base.png.raw.png" >/dev/null
    fi
done

python3 - "$work" <<'PY'
import glob, os, sys
from PIL import Image
work = sys.argv[1]
def transform(img, crop, turns, mirror):
    if crop:
        x, y, w, h = crop
        img = img.crop((x, y, x + w, y + h))
    for _ in range(turns):
        img = img.transpose(Image.Transpose.ROTATE_90)  # anticlockwise
    if mirror == 0:
        img = img.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    elif mirror == 1:
        img = img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return img
for path in sorted(glob.glob(f"{work}/*.png.raw.png")):
    base = os.path.basename(path)[: -len(".png.raw.png")]
    crop, turns, mirror = None, 0, None
    if base.startswith("clap"):
        crop = (6, 4, 30, 20)
    for part in base.split("-"):
        if part.startswith("rot"):
            turns = int(part[3:])
        if part.startswith("mir"):
            mirror = int(part[3:])
    img = Image.open(path)
    img.load()
    img.info.pop("icc_profile", None)  # the reference is the pixels, not a profile to apply again
    transform(img, crop, turns, mirror).save(f"{base}.png", optimize=True)
for i in range(4):
    img = Image.open(f"{work}/anim-{i}.png")
    img.load()
    img.save(f"anim-{i}.png", optimize=True)
PY
ls -l
