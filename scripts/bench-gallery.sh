#!/usr/bin/env bash
# The gallery's frame budget: scrolls a grid of 500 generated images (plus the samples) down
# while they load and back up from the memory cache, at 1,500 points per second, and reports the
# main thread's CPU time per frame (GTK's layout and drawing plus every main-actor job) and how many
# memory-cache hits were on screen in the frame that asked for them. Release build, under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh libgtk-4-dev xvfb xauth >&2
swift build -c release --package-path Examples/Gallery --scratch-path .build --product Gallery >&2
bin="$(swift build -c release --package-path Examples/Gallery --scratch-path .build --show-bin-path)/Gallery"
GSK_RENDERER=cairo GTK_A11Y=none GDK_BACKEND=x11 \
    xvfb-run -a -s "-screen 0 1280x1024x24" "$bin" --bench-scroll --generated 500
