#!/usr/bin/env bash
# Prefetch benchmark: 1000 downloads from a local nginx on 127.0.0.1 into a cold cache by
# `kf prefetch` (release, whole process), against one `curl -Z` writing the same 1000 files, at
# the same concurrency, in one run. Two sets: a ~490 KB photo (1600×1067, generated here) and the
# 25 KB Samples/kingfisher.jpg, each served under 1000 names (hard links of one file). For each
# set it also times `kf prefetch --re-encode` (decode, then JPEG at quality 1, as Kingfisher's
# DefaultCacheSerializer does), and checks that the default run cached exactly the bytes served.
# Prints medians and ratios (kf's images/s over curl's; the target is at least 0.5).
#
#   scripts/bench-prefetch.sh [RUNS] [CONCURRENCY]      (default 3 timed runs, 8 at once)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
runs="${1:-3}"
concurrency="${2:-8}"
bash scripts/install-deps.sh nginx-light curl
swift build -c release --static-swift-stdlib --product kf >/dev/null
kf="$(swift build -c release --show-bin-path)/kf"

work="$(mktemp -d)"
source scripts/local-nginx.sh
cleanup() {
    stop_local_nginx
    rm -rf "$work"
}
trap cleanup EXIT

# The photo: smooth colour waves with noise, so JPEG at quality 88 gives about 490 KB.
/usr/bin/python3 - "$work/photo.png" <<'PY'
import math, random, struct, sys, zlib
width, height, rng = 1600, 1067, random.Random(7)
rows = []
for y in range(height):
    row = bytearray(b"\x00")
    for x in range(width):
        n = rng.randint(-12, 12)
        for v in (128 + 100 * math.sin(x / 97.0 + y / 211.0), 128 + 90 * math.cos(y / 73.0 - x / 301.0),
                  128 + 80 * math.sin((x + y) / 157.0)):
            row.append(max(0, min(255, int(v + n))))
    rows.append(bytes(row))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
with open(sys.argv[1], "wb") as out:
    out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
              + chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b""))
PY
"$kf" convert "$work/photo.png" "$work/photo.jpg" --quality 88 -q
cp Samples/kingfisher.jpg "$work/small.jpg"

mkdir -p "$work/www"
for set in photo small; do
    mkdir -p "$work/www/$set"
    for i in $(seq -w 0 999); do ln "$work/$set.jpg" "$work/www/$set/img-$i.jpg"; done
done
# local-nginx.sh waits for img-000.jpg at the root.
ln "$work/small.jpg" "$work/www/img-000.jpg"
start_local_nginx

/usr/bin/python3 - "$kf" "$work" "$runs" "$concurrency" "$port" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time
sys.path.insert(0, "Benchmarks")
import bench_rows

kf, work, runs, concurrency, port = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
n = 1000

def cache_files(path):
    for root, dirs, names in os.walk(path):
        dirs[:] = [d for d in dirs if d != ".kf"]
        for name in names:
            yield os.path.join(root, name)

def folder_bytes(path):
    sizes = [os.path.getsize(file) for file in cache_files(path)]
    return sum(sizes), len(sizes)

def all_equal(path, expected):
    """Whether every file under `path` holds exactly `expected` (read after the timed run)."""
    for file in cache_files(path):
        with open(file, "rb") as handle:
            if handle.read() != expected:
                return False
    return True

def measure(set_name):
    served = open(f"{work}/{set_name}.jpg", "rb").read()
    urls = [f"http://127.0.0.1:{port}/{set_name}/img-{i:03d}.jpg" for i in range(n)]
    with open(f"{work}/{set_name}-urls.txt", "w") as listing:
        listing.write("\n".join(urls) + "\n")
    scratch = f"{work}/scratch"

    def curl(extra):
        out = f"{scratch}/curl"
        os.makedirs(out)
        with open(f"{work}/{set_name}.curl", "w") as config:
            for index, url in enumerate(urls):
                config.write(f'url = "{url}"\noutput = "{out}/{index:03d}.jpg"\n')
        start = time.perf_counter()
        subprocess.run(["curl", "-s", "-f", "-Z", "--parallel-max", str(concurrency), "-K", f"{work}/{set_name}.curl"],
                       check=True, stderr=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        size, count = folder_bytes(out)
        assert count == n and size == n * len(served), (count, size)
        assert all_equal(out, served), "curl wrote other bytes than those served"
        return elapsed, size

    def prefetch(extra):
        cache = f"{scratch}/kf"
        os.makedirs(cache)
        start = time.perf_counter()
        result = subprocess.run(
            [kf, "prefetch", "--file", f"{work}/{set_name}-urls.txt", "--cache-dir", cache,
             "--concurrency", str(concurrency), "--json"] + extra,
            check=True, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        summary = json.loads(result.stdout.strip().splitlines()[-1])
        assert summary == {"completed": n, "skipped": 0, "failed": 0}, summary
        size, count = folder_bytes(cache)
        assert count == n, count
        if not extra:
            # The default keeps the downloaded bytes: every entry is the file served.
            assert size == n * len(served), (size, n * len(served))
            assert all_equal(cache, served), "the cache holds other bytes than those served"
        return elapsed, size

    clients = [("curl -Z", curl, []), ("kf prefetch", prefetch, []), ("kf prefetch --re-encode", prefetch, ["--re-encode"])]
    times = {name: [] for name, _, _ in clients}
    stored = {}
    # One untimed curl run warms nginx and the page cache.
    shutil.rmtree(scratch, ignore_errors=True)
    curl([])
    for _ in range(runs):
        # Interleaved, so a slower moment of the machine hits every client alike.
        for name, run, extra in clients:
            shutil.rmtree(scratch, ignore_errors=True)
            elapsed, size = run(extra)
            times[name].append(elapsed)
            stored[name] = size
    shutil.rmtree(scratch, ignore_errors=True)
    medians = {name: statistics.median(values) for name, values in times.items()}
    curl_rate = n / medians["curl -Z"]
    print(f"\n{n} downloads of a {len(served):,}-byte JPEG ({set_name}) from nginx on 127.0.0.1, "
          f"{concurrency} at once, median of {runs} runs (whole process)\n")
    print("| client | median s | images/s | MB/s | vs curl -Z | stored |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, _, _ in clients:
        rate = n / medians[name]
        print(f"| {name} | {medians[name]:.3f} | {rate:,.0f} | {rate * len(served) / 1e6:,.0f} | "
              f"{rate / curl_rate:.2f}x | {stored[name] / 1e6:,.1f} MB |")
    return len(served), medians, curl_rate

rows = [("photo", measure("photo")), ("small", measure("small"))]
print()
for set_name, (size, medians, curl_rate) in rows:
    kf_rate = n / medians["kf prefetch"]
    print(f"kf prefetch / curl -Z, {set_name}: {kf_rate / curl_rate:.2f}x (target ≥ 0.5x)")
    bench_rows.record("download", f"kf prefetch, {n} × {size // 1000} KB JPEG from local nginx, {concurrency} at once",
                      kf_rate, "images/s", "curl -Z", curl_rate, kf_rate / curl_rate, "≥ 0.5")
PY
