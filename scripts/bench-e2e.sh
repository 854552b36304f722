#!/usr/bin/env bash
# End-to-end benchmark: 1000 × 256×256 JPEGs served by a local nginx, fetched, decoded,
# downsampled to 64×64 and stored, in one run by:
#   1. `kf prefetch --processor 'downsample(64x64)' --concurrency 8` into a cold cache (a fresh
#      cache folder for every timed run),
#   2. the same command again on the filled cache (every image skipped),
#   3. a Python script with multiprocessing Pool(2), each process with its own requests.Session,
#      downloading, decoding with Pillow, thumbnail((64, 64)) and saving JPEGs,
#   4. SPEC §11's batch row without the network: `kf prefetch` of the same files by path into a
#      cold cache, against Pillow in Pool(2) reading the files, thumbnail((64, 64)), saving JPEGs,
#   5. the floor under both: a Python loop creating as many files of the thumbnails' size.
# The warm figure's peer does what a warm run does at the least, as a whole process too: a new
# Python process that stats every cache file (a batch script skipping outputs that exist), since
# a warm run reads the cache index and no image. Prints medians and ratios.
#
#   scripts/bench-e2e.sh [RUNS]      (default 3 timed runs each)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
runs="${1:-3}"
bash scripts/install-deps.sh nginx-light curl python3-pil python3-requests
swift build -c release --static-swift-stdlib --product kf >/dev/null
kf="$(swift build -c release --show-bin-path)/kf"

work="$(mktemp -d)"
source scripts/local-nginx.sh
cleanup() {
    stop_local_nginx
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/www" "$work/logs" "$work/tmp"
# 1000 deterministic 256×256 JPEGs: smooth gradients plus seeded noise, so each one differs.
/usr/bin/python3 - "$work/www" <<'PY'
import random, sys
from PIL import Image
out = sys.argv[1]
for i in range(1000):
    rng = random.Random(i)
    base = Image.linear_gradient("L").resize((256, 256))
    r = base.point(lambda v, k=rng.randint(0, 255): (v + k) % 256)
    g = base.rotate(90).point(lambda v, k=rng.randint(0, 255): (v + k) % 256)
    b = Image.effect_noise((256, 256), 40 + i % 30).point(lambda v, k=rng.randint(0, 128): (v + k) % 256)
    Image.merge("RGB", (r, g, b)).save(f"{out}/img-{i:03d}.jpg", quality=85)
PY

start_local_nginx

/usr/bin/python3 - "$kf" "$work" "$runs" <<'PY'
import io, json, os, statistics, subprocess, sys, time
from multiprocessing import Pool
sys.path.insert(0, "Benchmarks")
import bench_rows

kf, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
urls = open(f"{work}/urls.txt").read().split()
n = len(urls)
paths = [f"{work}/www/img-{i:03d}.jpg" for i in range(n)]
with open(f"{work}/files.txt", "w") as listing:
    listing.write("\n".join(paths) + "\n")

def prefetch(cache_dir, listing="urls.txt"):
    start = time.perf_counter()
    result = subprocess.run(
        [kf, "prefetch", "--file", f"{work}/{listing}", "--processor", "downsample(64x64)",
         "--cache-dir", cache_dir, "--concurrency", "8", "--json"],
        check=True, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    return elapsed, json.loads(result.stdout.strip().splitlines()[-1])

# Pillow + requests, 2 processes.
session = None
def init_worker():
    global session
    import requests
    session = requests.Session()

def pillow_one(job):
    from PIL import Image
    index, url, out = job
    image = Image.open(io.BytesIO(session.get(url).content))
    image.draft("RGB", (64, 64))
    image.thumbnail((64, 64))
    image.save(f"{out}/{index:03d}.jpg", quality=90)

def pillow_file_one(job):
    from PIL import Image
    index, path, out = job
    image = Image.open(path)
    image.draft("RGB", (64, 64))
    image.thumbnail((64, 64))
    image.save(f"{out}/{index:03d}.jpg", quality=90)

def pillow_run(out, one=pillow_one, inputs=urls):
    os.makedirs(out, exist_ok=True)
    with Pool(2, initializer=init_worker) as pool:
        start = time.perf_counter()
        pool.map(one, [(i, u, out) for i, u in enumerate(inputs)], chunksize=16)
        return time.perf_counter() - start

def create_files(out, size):
    """The floor for any client that stores its results: creating n files of `size` bytes,
    one thread (ext4 allocates inodes under a per-group lock, so more threads do not help)."""
    os.makedirs(out)
    data = os.urandom(size)
    start = time.perf_counter()
    for index in range(n):
        with open(f"{out}/{index:03d}.jpg", "wb") as file:
            file.write(data)
    return time.perf_counter() - start

cold, warm, pillow, reads, files_cold, pillow_files, creates = [], [], [], [], [], [], []
# One untimed cold run warms nginx and the page cache of the served files.
prefetch(f"{work}/cache-warmup")
for run in range(runs):
    cache_dir = f"{work}/cache-{run}"
    elapsed, summary = prefetch(cache_dir)
    assert summary == {"completed": n, "skipped": 0, "failed": 0}, summary
    cold.append(elapsed)
    elapsed, summary = prefetch(cache_dir)
    assert summary == {"completed": 0, "skipped": n, "failed": 0}, summary
    warm.append(elapsed)
    files = [os.path.join(root, name) for root, _, names in os.walk(cache_dir) for name in names]
    with open(f"{work}/cache-files-{run}.txt", "w") as listing:
        listing.write("\n".join(files) + "\n")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import os, sys\nfor path in open(sys.argv[1]).read().split(): os.stat(path)",
                    f"{work}/cache-files-{run}.txt"], check=True)
    reads.append((time.perf_counter() - start, len(files)))
    # Nothing is deleted until the end: on ext4 without a journal, creating files within
    # seconds of deleting many others walks the recently freed inodes (`recently_deleted`), a
    # cost of the benchmark's own clean-up rather than of either client.
    pillow.append(pillow_run(f"{work}/pillow-{run}"))
    elapsed, summary = prefetch(f"{work}/files-cache-{run}", listing="files.txt")
    assert summary == {"completed": n, "skipped": 0, "failed": 0}, summary
    files_cold.append(elapsed)
    pillow_files.append(pillow_run(f"{work}/pillow-files-{run}", pillow_file_one, paths))
    sizes = [os.path.getsize(os.path.join(f"{work}/pillow-files-{run}", name)) for name in os.listdir(f"{work}/pillow-files-{run}")]
    creates.append(create_files(f"{work}/create-{run}", sum(sizes) // len(sizes)))

def rate(seconds): return n / seconds
m_cold, m_warm, m_pillow = statistics.median(cold), statistics.median(warm), statistics.median(pillow)
m_read = statistics.median(r[0] for r in reads)
m_files, m_pillow_files = statistics.median(files_cold), statistics.median(pillow_files)
m_create = statistics.median(creates)
print(f"\n{n} × 256×256 JPEG → downsample(64x64), from nginx on 127.0.0.1, median of {runs} runs (whole process for kf)\n")
print("| work | median s | images/s | vs Pillow |")
print("|---|---|---|---|")
print(f"| kf prefetch, cold cache, 8 at once | {m_cold:.3f} | {rate(m_cold):,.0f} | {m_pillow / m_cold:.2f}x |")
print(f"| Pillow + requests, Pool(2) | {m_pillow:.3f} | {rate(m_pillow):,.0f} | 1.00x |")
print(f"| kf prefetch, warm cache (all skipped) | {m_warm:.3f} | {rate(m_warm):,.0f} | {m_pillow / m_warm:.2f}x |")
print(f"| a Python process stating every cache file ({reads[0][1]} files) | {m_read:.3f} | {rate(m_read):,.0f} | |")
print(f"| kf prefetch of the files by path, cold cache | {m_files:.3f} | {rate(m_files):,.0f} | {m_pillow_files / m_files:.2f}x (vs Pillow on files) |")
print(f"| Pillow on the files, Pool(2) | {m_pillow_files:.3f} | {rate(m_pillow_files):,.0f} | 1.00x |")
print(f"| creating {n} files of the thumbnails' size, nothing else | {m_create:.3f} | {rate(m_create):,.0f} | |")
print(f"\nkf cold / Pillow: {m_pillow / m_cold:.2f}x (target ≥ 1.5x)")
print(f"kf warm / a process stating every cache file: {m_warm / m_read:.2f}x the time (both whole processes; neither reads an image)")
print(f"kf on files / Pillow on files: {m_pillow_files / m_files:.2f}x (target ≥ 1.5x)")
bench_rows.record("batch", f"{n} × 256² JPEG → 64² JPEG, 2 cores (files, whole process)", rate(m_files), "images/s",
                  "Pillow, 2 processes", rate(m_pillow_files), m_pillow_files / m_files, "≥ 1.5")
bench_rows.record("batch", f"  floor: creating {n} files of that size, one thread", rate(m_create), "images/s",
                  "Pillow, 2 processes", rate(m_pillow_files), m_pillow_files / m_create)
bench_rows.record("batch", "  same, served by local nginx (kf prefetch, 8 at once)", rate(m_cold), "images/s",
                  "Pillow + requests, 2 processes", rate(m_pillow), m_pillow / m_cold)
bench_rows.record("batch", "  same, warm cache (every image skipped)", rate(m_warm), "images/s",
                  "a Python process stating every cache file", rate(m_read), m_read / m_warm)
PY
