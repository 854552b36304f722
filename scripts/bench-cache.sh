#!/usr/bin/env bash
# Cache benchmark: MemoryStorage against Foundation's NSCache, and DiskStorage against
# plain Data.write / Data(contentsOf:) of the same files, in one run. Prints one table per level.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh
swift build -c release --package-path Benchmarks --scratch-path .build --product memory-cache-bench
swift build -c release --package-path Benchmarks --scratch-path .build --product disk-cache-bench
bin="$(swift build -c release --package-path Benchmarks --scratch-path .build --show-bin-path)"
echo "## Memory cache"
memory_out="$(mktemp)"
trap 'rm -f "$memory_out"' EXIT
"$bin/memory-cache-bench" | tee "$memory_out"
# Under scripts/bench-peers.sh the hit rows also go into the one table of the run.
if [ -n "${BENCH_ROWS:-}" ]; then
    /usr/bin/python3 Benchmarks/bench_rows.py memory-cache "$BENCH_ROWS" < "$memory_out"
fi
echo
echo "## Disk cache (files under ${TMPDIR:-/tmp})"
"$bin/disk-cache-bench"
