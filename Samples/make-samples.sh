#!/usr/bin/env bash
# Remakes sample.avif, sample.heic and sample.jxl from kingfisher.jpg with Debian's reference
# encoders (libavif-bin, libheif-examples, libjxl-tools) and Pillow (python3-pil) for the scaling:
#   bash Samples/make-samples.sh
# The JPEG's EXIF orientation is applied first, so every sample is upright as kf shows the JPEG.
set -euo pipefail
cd "$(dirname "$0")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 - "$work/upright.png" <<'PY'
import sys
from PIL import Image, ImageOps
image = ImageOps.exif_transpose(Image.open("kingfisher.jpg")).convert("RGB")
image.resize((image.width // 2, image.height // 2), Image.LANCZOS).save(sys.argv[1])
PY
avifenc --speed 6 --min 20 --max 30 "$work/upright.png" sample.avif
heif-enc --quality 60 -o sample.heic "$work/upright.png"
cjxl "$work/upright.png" sample.jxl --distance 1.0 --effort 7
ls -l sample.avif sample.heic sample.jxl
