#!/usr/bin/env bash
# The main job: builds `kf` and runs it on the sample images the repository ships.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh
swift build -c release --static-swift-stdlib --product kf
kf=".build/release/kf"
mkdir -p out

echo "== kf info Samples/kingfisher.jpg (stored on its side, EXIF orientation 6)"
"$kf" info Samples/kingfisher.jpg
echo "== kf convert Samples/kingfisher.jpg out/kingfisher.png (turned upright)"
"$kf" convert Samples/kingfisher.jpg out/kingfisher.png
"$kf" info out/kingfisher.png --json
echo "== kf convert Samples/kingfisher.jpg out/kingfisher.webp --quality 80"
"$kf" convert Samples/kingfisher.jpg out/kingfisher.webp --quality 80
"$kf" info out/kingfisher.webp --json
echo "== kf convert Samples/spinner.gif out/spinner.webp (an animation, every frame kept)"
"$kf" info Samples/spinner.gif --json
"$kf" convert Samples/spinner.gif out/spinner.webp --lossless
"$kf" info out/spinner.webp --json --verify
echo "== a damaged file is an error (exit 1), never a crash"
head -c 4000 Samples/kingfisher.jpg > out/truncated.jpg
status=0
"$kf" convert out/truncated.jpg out/truncated.png || status=$?
echo "exit status: $status"
[ "$status" -eq 1 ]
echo "Outputs are in out/."
