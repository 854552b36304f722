#!/usr/bin/env bash
# Processing benchmark: SPEC §11's thumbnail, blur and resize rows against libjpeg, libvips and
# Pillow, in one run on the same generated images. Prints a Markdown table of medians and ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh libjpeg-turbo-progs webp giflib-tools python3-pil libvips-tools time
swift build -c release --static-swift-stdlib --product kf
swift build -c release --package-path Benchmarks --scratch-path .build --product codec-bench
/usr/bin/python3 Benchmarks/bench_processors.py
