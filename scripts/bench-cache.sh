#!/usr/bin/env bash
# Cache benchmark (issue 4): MemoryStorage against Foundation's NSCache, and DiskStorage against
# plain Data.write / Data(contentsOf:) of the same files, in one run. Prints one table per level.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh
swift build -c release --package-path Benchmarks --product memory-cache-bench
swift build -c release --package-path Benchmarks --product disk-cache-bench
bin="$(swift build -c release --package-path Benchmarks --show-bin-path)"
echo "## Memory cache"
"$bin/memory-cache-bench"
echo
echo "## Disk cache (files under ${TMPDIR:-/tmp})"
"$bin/disk-cache-bench"
