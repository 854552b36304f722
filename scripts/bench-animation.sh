#!/usr/bin/env bash
# Animation figure: a 400×400, 300-frame GIF played through Animator with the default
# window (10 frames) for 10 loops in real time on one core. Prints the peak decoded-frame memory
# against decoding every frame (192 MB) and the late frames.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh
swift build -c release --package-path Benchmarks --scratch-path .build --product animation-bench >/dev/null
bench="$(swift build -c release --package-path Benchmarks --scratch-path .build --show-bin-path)/animation-bench"
taskset -c 0 "$bench" "$@"
