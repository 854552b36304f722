#!/usr/bin/env bash
# Installs what the tests need and runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh
swift build --build-tests
swift test
