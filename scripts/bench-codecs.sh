#!/usr/bin/env bash
# Codec benchmark: our decoders and encoders against djpeg, cjpeg, dwebp, cwebp and gif2rgb,
# in one run on the same generated images. Prints a Markdown table of medians and ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh libjpeg-turbo-progs webp giflib-tools python3-pil
swift build -c release --package-path Benchmarks --scratch-path .build --product codec-bench
/usr/bin/python3 Benchmarks/bench_codecs.py
