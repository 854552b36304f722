#!/usr/bin/env bash
# Builds and runs the GTK gallery (Examples/Gallery):
#   bash scripts/gallery.sh [--screenshot FILE.png] [--generated N] [URL… | DIR]
# With no URL or folder it serves Samples/ and 300 generated images from a loopback server.
# Without a display (no DISPLAY or WAYLAND_DISPLAY) it runs under Xvfb, which suits --screenshot.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh libgtk-4-dev xvfb xauth >&2
swift build --package-path Examples/Gallery --scratch-path .build --product Gallery >&2
bin="$(swift build --package-path Examples/Gallery --scratch-path .build --show-bin-path)/Gallery"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    GSK_RENDERER=cairo GTK_A11Y=none GDK_BACKEND=x11 exec xvfb-run -a -s "-screen 0 1280x1024x24" "$bin" "$@"
fi
exec "$bin" "$@"
