#!/usr/bin/env bash
# Remakes the format-pipeline fixtures with Pillow and Debian's reference encoders:
#   bash Tests/KingfisherTests/Fixtures/pipeline/make-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")"
python3 - <<'PY'
from PIL import Image
w, h = 48, 32
opaque = Image.new("RGB", (w, h))
alpha = Image.new("RGBA", (w, h))
for y in range(h):
    for x in range(w):
        opaque.putpixel((x, y), (x * 255 // (w - 1), y * 255 // (h - 1), 96))
        alpha.putpixel((x, y), (x * 255 // (w - 1), y * 255 // (h - 1), 96, 64 + x * 191 // (w - 1)))
opaque.save("gradient.png")
alpha.save("gradient-alpha.png")
PY
avifenc --speed 6 --min 8 --max 8 gradient.png gradient.avif >/dev/null
heif-enc --quality 90 -o gradient.heic gradient.png >/dev/null
heif-enc --quality 90 -o gradient-alpha.heic gradient-alpha.png >/dev/null
cjxl gradient.png gradient.jxl --distance 0.5 >/dev/null 2>&1
rm gradient-alpha.png
