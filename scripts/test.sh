#!/usr/bin/env bash
# Installs what the tests need and runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh
swift build --build-tests
swift test
# The example package uses the library as a dependency would; build it and run it on a sample,
# twice, against a throw-away cache (the second run must come from the disk cache).
swift build --package-path Examples/Thumbnailer
example_cache="$(mktemp -d)"
example="$(swift build --package-path Examples/Thumbnailer --show-bin-path)/Thumbnailer"
XDG_CACHE_HOME="$example_cache" "$example" Samples/kingfisher.jpg "$example_cache/thumb.png" | grep -q "from none"
XDG_CACHE_HOME="$example_cache" "$example" Samples/kingfisher.jpg "$example_cache/thumb.png" | grep -q "from disk"
rm -rf "$example_cache"
echo "Example Thumbnailer: built and ran (none, then disk)."
