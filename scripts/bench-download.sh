#!/usr/bin/env bash
# Download benchmark: 1000 files of ~25 KB (copies of Samples/kingfisher.jpg) from a
# local nginx, 8 at a time, fetched in one run by ImageDownloader (Benchmarks download-bench,
# release), by one `curl -Z --parallel-max 8`, and by a Python ThreadPoolExecutor(8) with urllib.
# curl and ImageDownloader are compared as whole processes, one per run; the warm rows (every
# timed pass in one process) are for long-lived programs and are compared with Python's warm pool.
# Prints medians and ratios. nginx runs from a temporary directory on a free 127.0.0.1 port and is
# stopped on exit.
#
#   scripts/bench-download.sh [RUNS]      (default 5 timed runs per client)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
runs="${1:-5}"
bash scripts/install-deps.sh nginx-light curl
swift build -c release --package-path Benchmarks --scratch-path .build --product download-bench >/dev/null
bench="$(swift build -c release --package-path Benchmarks --scratch-path .build --show-bin-path)/download-bench"

work="$(mktemp -d)"
source scripts/local-nginx.sh
cleanup() {
    stop_local_nginx
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/www" "$work/logs"
for i in $(seq -w 0 999); do cp Samples/kingfisher.jpg "$work/www/img-$i.jpg"; done
start_local_nginx
awk '{ print "url = \"" $0 "\"\noutput = \"/dev/null\"" }' "$work/urls.txt" > "$work/urls.curl"

/usr/bin/python3 - "$bench" "$work" "$runs" <<'PY'
import concurrent.futures, json, resource, statistics, subprocess, sys, time, urllib.request
sys.path.insert(0, "Benchmarks")
import bench_rows

bench, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
urls = open(f"{work}/urls.txt").read().split()

def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

def ours(decode):
    args = [bench, f"{work}/urls.txt", "--concurrency", "8", "--runs", str(runs)] + (["--decode"] if decode else [])
    result = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return result["median_s"], result["cpu_us_per_request"]

def ours_process():
    """ImageDownloader as curl is measured: a new process per run, timed from outside."""
    times, cpu = [], []
    for _ in range(runs + 1):  # the first run warms the page cache and is dropped
        before, start = child_cpu(), time.perf_counter()
        subprocess.run([bench, f"{work}/urls.txt", "--concurrency", "8", "--runs", "1", "--no-warm-up"], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
        cpu.append(child_cpu() - before)
    return statistics.median(times[1:]), statistics.median(cpu[1:]) / len(urls) * 1e6

def curl():
    times, cpu = [], []
    for _ in range(runs + 1):  # the first run warms the page cache and is dropped
        before, start = child_cpu(), time.perf_counter()
        subprocess.run(["curl", "-s", "-Z", "--parallel-max", "8", "-K", f"{work}/urls.curl"], check=True,
                       stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
        cpu.append(child_cpu() - before)
    return statistics.median(times[1:]), statistics.median(cpu[1:]) / len(urls) * 1e6

def python_pool():
    def fetch(url):
        with urllib.request.urlopen(url) as response:
            return len(response.read())
    times, cpu = [], []
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        for _ in range(runs + 1):
            before, start = time.process_time(), time.perf_counter()
            sizes = list(pool.map(fetch, urls))
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - before)
            assert all(sizes), "empty body"
    return statistics.median(times[1:]), statistics.median(cpu[1:]) / len(urls) * 1e6

# Rows 0 and 1 are alike: a whole process per run, start-up included. The warm rows run every
# timed pass in one process after an untimed one, as a long-lived app would; curl has no such row.
rows = [
    ("ImageDownloader, a process per run (no decode)", *ours_process()),
    ("curl -Z --parallel-max 8, a process per run", *curl()),
    ("Python ThreadPoolExecutor(8) + urllib, warm pool", *python_pool()),
    ("ImageDownloader, warm in one process (no decode)", *ours(False)),
    ("ImageDownloader, warm in one process + JPEG decode", *ours(True)),
]
curl_rate = len(urls) / rows[1][1]
print(f"\n{len(urls)} files of {len(open(f'{work}/www/img-000.jpg', 'rb').read())} bytes from nginx on 127.0.0.1, 8 at a time, median of {runs} runs\n")
print("| client | median s | requests/s | vs curl -Z | client CPU µs/request |")
print("|---|---|---|---|---|")
for name, seconds, cpu in rows:
    rate = len(urls) / seconds
    print(f"| {name} | {seconds:.3f} | {rate:,.0f} | {rate / curl_rate:.2f}x | {cpu:.0f} |")
ours_rate, python_rate, warm_rate = len(urls) / rows[0][1], len(urls) / rows[2][1], len(urls) / rows[3][1]
work = f"{len(urls)} × ~25 KB downloads from local nginx, 8 at once"
bench_rows.record("download", work, ours_rate, "requests/s", "curl -Z", curl_rate, ours_rate / curl_rate, "≥ 0.6")
bench_rows.record("download", "  same, warm in one process", warm_rate, "requests/s", "Python threads + urllib (warm)",
                  python_rate, warm_rate / python_rate)
PY
