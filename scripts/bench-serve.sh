#!/usr/bin/env bash
# Image-server benchmark (issue 17): `kf serve` against thumbor, both in front of the same local
# nginx origin serving 1920×1080 JPEGs, loaded by wrk on this machine, in one run:
#   1. uncached: every request a distinct URL (a distinct image or fit box), 1080p → ~200 px;
#   2. cached: the same 200 URLs again and again, after one warm-up pass;
#   3. 304: kf serve answering If-None-Match with its ETag (thumbor sends no ETag here).
# Reports requests/s and wrk's p99 latency for each, and each server's peak RSS (VmHWM, summed
# over thumbor's processes). thumbor is installed with pip into a venv and run as its docs say,
# with the PIL engine, 2 processes and file result storage (for the cached figure).
#
#   scripts/bench-serve.sh [SECONDS]     (default 10 s per wrk run; 2 threads, 16 connections)
#   KF_BIN=path/to/kf scripts/bench-serve.sh   (that binary instead of a fresh release build)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
seconds="${1:-10}"
bash scripts/install-deps.sh nginx-light curl wrk python3-pil python3-venv
# KF_BIN measures another kf binary (an earlier build, for a before-and-after) instead of building.
if [ -n "${KF_BIN:-}" ]; then
    kf="$KF_BIN"
else
    swift build -c release --static-swift-stdlib --product kf >/dev/null
    kf="$(swift build -c release --show-bin-path)/kf"
fi

work="$(mktemp -d)"
source scripts/local-nginx.sh
pids=()
cleanup() {
    # thumbor's worker processes first (children of the pids started here), then those pids.
    for pid in "${pids[@]}"; do
        for child in $(pgrep -P "$pid" || true); do kill "$child" 2>/dev/null || true; done
        kill "$pid" 2>/dev/null || true
    done
    stop_local_nginx
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
wait_for() { for _ in $(seq 1 200); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }
peak_rss_kb() { local total=0; for pid in "$@"; do total=$((total + $(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0))); done; echo "$total"; }

# 200 distinct 1920×1080 photo-like JPEGs (gradients and seeded noise), named as local-nginx.sh expects.
mkdir -p "$work/www"
/usr/bin/python3 - "$work/www" <<'PY'
import random, sys
from PIL import Image, ImageFilter
out = sys.argv[1]
base = Image.linear_gradient("L").resize((1920, 1080))
for i in range(200):
    rng = random.Random(i)
    r = base.point(lambda v, k=rng.randint(0, 255): (v + k) % 256)
    g = base.transpose(Image.Transpose.FLIP_LEFT_RIGHT).point(lambda v, k=rng.randint(0, 255): (v + k) % 256)
    b = Image.effect_noise((1920, 1080), 30 + i % 20).filter(ImageFilter.GaussianBlur(2))
    Image.merge("RGB", (r, g, b)).save(f"{out}/img-{i:03d}.jpg", quality=85)
PY
for i in $(seq 200 999); do ln -sf "img-$(printf %03d $((i % 200))).jpg" "$work/www/img-$(printf %03d "$i").jpg"; done
start_local_nginx
origin="127.0.0.1:$port"

# kf serve: one process, as many jobs as cores, its own cache folder.
key="bench-$(date +%s)"
kf_port="$(free_port)"
"$kf" serve --port "$kf_port" --key "$key" --allow-host 127.0.0.1 --allow-address 127.0.0.1 \
    --cache-dir "$work/kf-cache" --log-level error >"$work/kf.log" 2>&1 &
kf_pid=$!
pids+=("$kf_pid")

# thumbor from pip, PIL engine, 2 processes, file result storage.
/usr/bin/python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q thumbor >/dev/null
thumbor_port="$(free_port)"
cat > "$work/thumbor.conf" <<CONF
ALLOW_UNSAFE_URL = True
ENGINE = 'thumbor.engines.pil'
LOADER = 'thumbor.loaders.http_loader'
RESULT_STORAGE = 'thumbor.result_storages.file_storage'
RESULT_STORAGE_FILE_STORAGE_ROOT_PATH = '$work/thumbor-results'
RESULT_STORAGE_STORES_UNSAFE = True
STORAGE = 'thumbor.storages.no_storage'
CONF
"$work/venv/bin/thumbor" --port "$thumbor_port" --conf "$work/thumbor.conf" --processes 2 -l error >"$work/thumbor.log" 2>&1 &
thumbor_pid=$!
pids+=("$thumbor_pid")
wait_for "http://127.0.0.1:$kf_port/health"
wait_for "http://127.0.0.1:$thumbor_port/healthcheck"

# URL lists: 1000 images × 20 fit boxes (200×200 … 219×219) distinct URLs; 200 for the cached run.
for i in $(seq 0 999); do
    for size in $(seq 200 219); do echo "http://$origin/img-$(printf %03d "$i").jpg $size"; done
done > "$work/sources.txt"
awk '{print "/unsafe/fit-in/" $2 "x" $2 "/" substr($1, 8)}' "$work/sources.txt" > "$work/thumbor-uncached.txt"
: > "$work/kf-uncached.txt"
while read -r size; do
    awk -v s="$size" '$2 == s {print $1}' "$work/sources.txt" \
        | xargs "$kf" serve sign --key "$key" --format jpeg --processor "downsample(${size}x${size})" >> "$work/kf-uncached.txt"
done < <(seq 200 219)
/usr/bin/python3 - "$work" <<'PY'
import random, sys
work = sys.argv[1]
for name in ("kf", "thumbor"):
    lines = open(f"{work}/{name}-uncached.txt").read().split()
    random.Random(7).shuffle(lines)
    open(f"{work}/{name}-uncached.txt", "w").write("\n".join(lines) + "\n")
    open(f"{work}/{name}-cached.txt", "w").write("\n".join(lines[-200:]) + "\n")
PY

cat > "$work/paths.lua" <<'LUA'
local paths = {}
for line in io.lines(os.getenv("PATHS")) do paths[#paths + 1] = line end
local threads = 0
function setup(thread) thread:set("id", threads); threads = threads + 1 end
local n = 0
function request()
    local index = (id + n * 2) % #paths + 1
    n = n + 1
    return wrk.format("GET", paths[index])
end
LUA

run_wrk() { # name url pathfile [header]
    local extra=()
    if [ -n "${4:-}" ]; then extra=(-H "$4"); fi
    PATHS="$3" wrk -t2 -c16 -d"${seconds}s" --latency -s "$work/paths.lua" "${extra[@]}" "$2" > "$work/wrk-$1.txt" 2>&1
    local rps p99 non2xx
    rps="$(awk '/Requests\/sec/ {print $2}' "$work/wrk-$1.txt")"
    p99="$(awk '$1 == "99%" {print $2}' "$work/wrk-$1.txt")"
    non2xx="$(awk '/Non-2xx/ {print $4}' "$work/wrk-$1.txt")"
    printf '%-22s %12s req/s   p99 %8s   non-2xx/3xx %s\n' "$1" "$rps" "$p99" "${non2xx:-0}"
    echo "$rps" > "$work/rps-$1"
}

echo "== uncached (distinct URLs, 1080p JPEG → fit ~200 px) =="
run_wrk kf-uncached "http://127.0.0.1:$kf_port" "$work/kf-uncached.txt"
run_wrk thumbor-uncached "http://127.0.0.1:$thumbor_port" "$work/thumbor-uncached.txt"
echo "== cached (200 URLs, warmed) =="
while read -r path; do curl -sf -o /dev/null "http://127.0.0.1:$kf_port$path"; done < "$work/kf-cached.txt"
while read -r path; do curl -sf -o /dev/null "http://127.0.0.1:$thumbor_port$path"; done < "$work/thumbor-cached.txt"
run_wrk kf-cached "http://127.0.0.1:$kf_port" "$work/kf-cached.txt"
run_wrk thumbor-cached "http://127.0.0.1:$thumbor_port" "$work/thumbor-cached.txt"
echo "== 304 (If-None-Match) =="
head -1 "$work/kf-cached.txt" > "$work/kf-304.txt"
etag="$(curl -sf -D - -o /dev/null "http://127.0.0.1:$kf_port$(cat "$work/kf-304.txt")" | awk 'tolower($1) == "etag:" {print $2}' | tr -d '\r')"
run_wrk kf-304 "http://127.0.0.1:$kf_port" "$work/kf-304.txt" "If-None-Match: $etag"

thumbor_pids=("$thumbor_pid" $(pgrep -P "$thumbor_pid" || true))
kf_rss="$(peak_rss_kb "$kf_pid")"
thumbor_rss="$(peak_rss_kb "${thumbor_pids[@]}")"
echo "== peak RSS =="
echo "kf serve: $((kf_rss / 1024)) MB   thumbor (${#thumbor_pids[@]} processes): $((thumbor_rss / 1024)) MB"
/usr/bin/python3 - "$work" "$kf_rss" "$thumbor_rss" <<'PY'
import sys
work, kf_rss, thumbor_rss = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rps = lambda name: float(open(f"{work}/rps-{name}").read() or 0)
print(f"uncached: {rps('kf-uncached') / max(rps('thumbor-uncached'), 1e-9):.1f}x thumbor (target >= 3x)")
print(f"cached:   {rps('kf-cached') / max(rps('thumbor-cached'), 1e-9):.1f}x thumbor (target >= 5x)")
print(f"304:      {rps('kf-304'):.0f} req/s (target >= 20,000)")
print(f"RSS:      {kf_rss / max(thumbor_rss, 1):.2f} of thumbor's (target <= 0.33)")
PY
