#!/usr/bin/env bash
# AVIF, HEIC and JPEG XL benchmark: our decoders and encoders against avifdec, avifenc,
# heif-convert, djxl, cjxl and vipsthumbnail, in one run on the same generated files. Prints a
# Markdown table of medians and ratios, and the peak RSS of the HEIC thumbnail row.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh libavif-bin libheif-examples libjxl-tools libvips-tools python3-pil time
swift build -c release --package-path Benchmarks --scratch-path .build --product codec-bench
swift build -c release --static-swift-stdlib --product kf
/usr/bin/python3 Benchmarks/bench_formats.py
