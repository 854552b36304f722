#!/usr/bin/env bash
# Installs what the tests need and runs them: the library's and the image server's suites, the
# example package, the GTK adapter's and the gallery's suites in a real window under Xvfb, the
# Vapor adapter's suite and its avatar example, kf's libcurl loader, kf serve's demo page in
# headless Chromium, and a few seconds of each fuzz target.
# tinyproxy is the real proxy the downloader's proxy tests start on 127.0.0.1; moto the S3 the
# image server's S3 tests start there.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
# nginx and iproute2 also for the fleet transcript of docs/ImageServer.md, which check-docs runs as root.
bash scripts/install-deps.sh libgtk-4-dev xvfb xauth nginx tinyproxy iproute2
# moto from PyPI: the local S3 that the S3 source tests and the S3 transcript of
# docs/ImageServer.md run against (installed once, into ~/.cache/kf-moto).
bash scripts/moto-venv.sh
swift build --build-tests
swift test
# The example package uses the library as a dependency would; build it and run it on a sample,
# twice, against a throw-away cache (the second run must come from the disk cache). Every package
# here shares the root's build folder: they depend on it by path, so its modules build once.
swift build --package-path Examples/Thumbnailer --scratch-path .build
example_cache="$(mktemp -d)"
example="$(swift build --package-path Examples/Thumbnailer --scratch-path .build --show-bin-path)/Thumbnailer"
XDG_CACHE_HOME="$example_cache" "$example" Samples/kingfisher.jpg "$example_cache/thumb.png" | grep -q "from none"
XDG_CACHE_HOME="$example_cache" "$example" Samples/kingfisher.jpg "$example_cache/thumb.png" | grep -q "from disk"
rm -rf "$example_cache"
echo "Example Thumbnailer: built and ran (none, then disk)."
# KingfisherGTK and the gallery: real GTK 4 windows on a virtual display, GSK's cairo renderer for
# pixels that do not depend on a GPU, one test at a time (they share GTK's main loop).
export GSK_RENDERER=cairo GTK_A11Y=none GDK_BACKEND=x11
for package in Integrations/GTK Examples/Gallery; do
    swift build --package-path "$package" --scratch-path .build --build-tests
    xvfb-run -a -s "-screen 0 1280x1024x24" swift test --package-path "$package" --scratch-path .build --no-parallel
done
# KingfisherVapor, a package of its own so the core never depends on Vapor: XCTVapor's in-process
# tester and a real Vapor server on 127.0.0.1, against an origin the tests start. Then the avatar
# example, run once against Samples/ served on 127.0.0.1 (200, then 304, one download, clean stop).
swift build --package-path Integrations/Vapor/KingfisherVapor --scratch-path .build --build-tests
swift test --package-path Integrations/Vapor/KingfisherVapor --scratch-path .build --skip-build
swift build --package-path Examples/VaporAvatar --scratch-path .build
bash Examples/VaporAvatar/run-once.sh
# KFCurlLoader, which loads libcurl for kf on first use, forwards every call with its arguments.
bash scripts/check-curl-loader.sh
# kf serve's demo page in a real browser: Debian's headless Chromium loads it and every image on it
# must decode.
bash scripts/check-serve-demo.sh
bash scripts/check-nginx.sh
bash scripts/check-docs.sh
# kf's man page renders without warnings and documents the environment.
bash scripts/check-manual.sh
# The fuzz targets keep building and a few seconds of each finds nothing (scripts/fuzz.sh runs
# them at length); a debug build here, as the sanitizer build of every dependency is long.
FUZZ_CONFIGURATION=debug bash scripts/fuzz.sh --smoke --seconds 3
