#!/usr/bin/env bash
# Progressive JPEG figure: a 1920×1080 progressive JPEG, made from Samples/kingfisher.jpg,
# served at 2 MB/s from a loopback server; time from `setImage` to the first partial image and to
# the final image, median of 5 runs, and their ratio (goal ≤ 0.25).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh
swift build -c release --package-path Benchmarks --scratch-path .build --product progressive-bench >/dev/null
bench="$(swift build -c release --package-path Benchmarks --scratch-path .build --show-bin-path)/progressive-bench"
work="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
"$bench" --make Samples/kingfisher.jpg "$work/photo.jpg"
python3 Benchmarks/throttled_server.py "$work" 2000000 "$work/port" &
server_pid=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port="$(cat "$work/port")"
echo "file: $(stat -c %s "$work/photo.jpg") bytes at 2 MB/s"
"$bench" "http://127.0.0.1:$port/photo.jpg" --runs 5
