#!/usr/bin/env bash
# Runs the built avatar service once, as scripts/test.sh does: an origin serving Samples/ on
# 127.0.0.1 (python3 -m http.server), the service on a free port with a throw-away cache, one
# avatar asked twice (the second time with its ETag: 304, and no second download), then SIGTERM,
# which must end the service cleanly.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"
bin="$(swift build --package-path Examples/VaporAvatar --scratch-path .build --show-bin-path)/VaporAvatar"
work="$(mktemp -d)"
source scripts/lib/processes.sh
origin_port="$(free_port)"
avatar_port="$(free_port)"
python3 -m http.server "$origin_port" --bind 127.0.0.1 --directory Samples >"$work/origin.log" 2>&1 &
origin_pid=$!
AVATAR_CACHE_DIR="$work/cache" "$bin" serve --hostname 127.0.0.1 --port "$avatar_port" >"$work/avatar.log" 2>&1 &
avatar_pid=$!
cleanup() {
    kill "$avatar_pid" "$origin_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

url="http://127.0.0.1:$avatar_port/avatar?url=http://127.0.0.1:$origin_port/kingfisher.jpg&size=64"
# Retries until both servers listen (connection refused, or 502 while the origin starts).
if ! curl -fsS --retry 30 --retry-connrefused --retry-delay 1 -D "$work/headers" -o "$work/avatar.png" "$url" 2>"$work/curl.log"; then
    cat "$work/curl.log" "$work/avatar.log" >&2
    exit 1
fi
python3 - "$work/avatar.png" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "the avatar is not a PNG"
width, height = struct.unpack(">II", data[16:24])
assert max(width, height) == 64, f"the avatar is {width}x{height}, not within 64x64"
print(f"VaporAvatar: {width}x{height} PNG, {len(data)} bytes")
PY
grep -qi '^content-type: image/png' "$work/headers"
etag="$(grep -i '^etag:' "$work/headers" | cut -d' ' -f2 | tr -d '\r')"
status="$(curl -sS -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$url")"
[ "$status" = 304 ] || { echo "VaporAvatar: expected 304 for a matching ETag, got $status" >&2; exit 1; }
downloads="$(grep -c 'GET /kingfisher.jpg' "$work/origin.log")"
[ "$downloads" = 1 ] || { echo "VaporAvatar: the origin was asked $downloads times, not once" >&2; exit 1; }
kill -TERM "$avatar_pid"
if ! wait "$avatar_pid"; then
    echo "VaporAvatar did not stop cleanly on SIGTERM:" >&2
    cat "$work/avatar.log" >&2
    exit 1
fi
echo "VaporAvatar: 200 then 304, one download, clean stop"
