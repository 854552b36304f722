#!/usr/bin/env bash
# Every SPEC §11 row, for us and the peers, in one run. Installs the peer tools (libjpeg-turbo's
# djpeg/cjpeg, libwebp's dwebp/cwebp, giflib's gif2rgb, libvips' vipsthumbnail, Pillow, requests,
# nginx, curl, GNU time), generates the images, builds `kf` and the Benchmarks package in release
# mode, runs the five section scripts one after the other, and ends with one Markdown table of
# every row: medians, the peer's figure, the ratio as the target states it, and met or missed.
#
#   scripts/bench-peers.sh                 (about 15 minutes on 2 cores, half of it building)
#
# BENCH_RUNS (default 9) sets the runs of the codec and processing rows, DOWNLOAD_RUNS (7) and
# E2E_RUNS (3) those of the network rows. Each section's own table is printed as it finishes; the
# whole output is also kept in .build-bench-data/bench-peers-latest.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh libjpeg-turbo-progs webp giflib-tools libvips-tools python3-pil \
    python3-requests nginx-light curl time

mkdir -p .build-bench-data
export BENCH_ROWS
BENCH_ROWS="$(mktemp)"
trap 'rm -f "$BENCH_ROWS"' EXIT
latest=.build-bench-data/bench-peers-latest.md

{
    echo "# Kingfisher for Linux against its peers, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores"
    echo
    echo "## Processing"
    bash scripts/bench-processors.sh
    echo
    echo "## Codecs"
    bash scripts/bench-codecs.sh
    echo
    echo "## AVIF, HEIC and JPEG XL"
    bash scripts/bench-formats.sh
    echo
    # Before the sections that delete thousands of files: on ext4 without a journal, creating
    # files within a minute or so of mass deletions scans the freed inodes, and the batch rows
    # create 1000 files per client and run.
    echo "## Batch and end to end"
    bash scripts/bench-e2e.sh "${E2E_RUNS:-3}"
    echo
    bash scripts/bench-cache.sh
    echo
    echo "## Downloading"
    bash scripts/bench-download.sh "${DOWNLOAD_RUNS:-7}"
    echo
    echo "## Every SPEC §11 row in this run"
    echo
    /usr/bin/python3 Benchmarks/bench_rows.py table "$BENCH_ROWS"
} 2>&1 | tee "$latest"
