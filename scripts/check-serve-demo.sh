#!/usr/bin/env bash
# Checks `kf serve --demo` in a real browser: serves Samples/ from a local nginx, starts
# `kf serve --demo` with them as samples, loads the page in Debian's headless Chromium, and
# requires every image on it to decode (naturalWidth > 0, as the page's status line counts them).
# Saves a screenshot to out/serve-demo.png.
#
#   scripts/check-serve-demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh nginx-light curl chromium
swift build --product kf >/dev/null
kf="$(swift build --show-bin-path)/kf"

work="$(mktemp -d)"
source scripts/local-nginx.sh
kf_pid=""
cleanup() {
    if [ -n "$kf_pid" ]; then kill "$kf_pid" 2>/dev/null || true; fi
    stop_local_nginx
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/www" out
cp Samples/kingfisher.jpg "$work/www/img-000.jpg"
cp Samples/spinner.gif "$work/www/spinner.gif"
start_local_nginx

"$kf" serve --port 0 --key "demo-check-$$" --allow-host 127.0.0.1 --allow-address 127.0.0.1 \
    --cache-dir "$work/cache" --log-level warning --demo \
    --demo-sample "http://127.0.0.1:$port/img-000.jpg" --demo-sample "http://127.0.0.1:$port/spinner.gif" \
    >"$work/kf.out" 2>"$work/kf.err" &
kf_pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/kf.out" 2>/dev/null && break; sleep 0.1; done
base="$(awk '/listening on/ {print $NF}' "$work/kf.out")"
[ -n "$base" ] || { echo "kf serve did not start: $(cat "$work/kf.err")" >&2; exit 1; }

chromium_flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=10000 --user-data-dir="$work/profile")
dom="$(chromium "${chromium_flags[@]}" --dump-dom "$base/" 2>/dev/null)"
chromium "${chromium_flags[@]}" --window-size=1000,1100 --screenshot="$PWD/out/serve-demo.png" "$base/" >/dev/null 2>&1
status="$(grep -o '<p id="status">[^<]*' <<<"$dom" | sed 's/.*>//' || true)"
# The result image and one gallery image per sample.
if [ "$status" != "decoded: 3, failed: 0" ]; then
    echo "serve demo: expected 'decoded: 3, failed: 0', got '${status:-no status}'" >&2
    exit 1
fi
[ -s out/serve-demo.png ] || { echo "serve demo: no screenshot" >&2; exit 1; }
echo "serve demo: the page loaded in Chromium and its 3 images decoded; screenshot in out/serve-demo.png"
