#!/usr/bin/env bash
# Download benchmark (issue 5): 1000 files of ~25 KB (copies of Samples/kingfisher.jpg) from a
# local nginx, 8 at a time, fetched in one run by ImageDownloader (Benchmarks download-bench,
# release), by one `curl -Z --parallel-max 8`, and by a Python ThreadPoolExecutor(8) with urllib.
# Prints medians and ratios. nginx runs from a temporary directory on a free 127.0.0.1 port and is
# stopped on exit.
#
#   scripts/bench-download.sh [RUNS]      (default 5 timed runs per client)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
runs="${1:-5}"
bash scripts/install-deps.sh nginx-light curl
swift build -c release --package-path Benchmarks --product download-bench >/dev/null
bench="$(swift build -c release --package-path Benchmarks --show-bin-path)/download-bench"

work="$(mktemp -d)"
nginx_pid=""
cleanup() {
    if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
        kill "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/www" "$work/logs"
for i in $(seq -w 0 999); do cp Samples/kingfisher.jpg "$work/www/img-$i.jpg"; done
port="$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
cat > "$work/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    keepalive_timeout 60s;
    client_body_temp_path $work/tmp;
    proxy_temp_path $work/tmp;
    fastcgi_temp_path $work/tmp;
    uwsgi_temp_path $work/tmp;
    scgi_temp_path $work/tmp;
    types { image/jpeg jpg; }
    server {
        listen 127.0.0.1:$port;
        root $work/www;
    }
}
CONF
mkdir -p "$work/tmp"
# nginx's worker runs as an unprivileged user when started by root: let it read the files.
chmod -R a+rX "$work"
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
"$nginx_bin" -p "$work" -c "$work/nginx.conf" &
nginx_pid=$!

# Wait (bounded) for nginx to answer.
for _ in $(seq 1 100); do
    if curl -sf -o /dev/null "http://127.0.0.1:$port/img-000.jpg"; then break; fi
    sleep 0.05
done
curl -sf -o /dev/null "http://127.0.0.1:$port/img-000.jpg" || { echo "nginx did not start" >&2; cat "$work/logs/error.log" >&2; exit 1; }

for i in $(seq -w 0 999); do echo "http://127.0.0.1:$port/img-$i.jpg"; done > "$work/urls.txt"
awk '{ print "url = \"" $0 "\"\noutput = \"/dev/null\"" }' "$work/urls.txt" > "$work/urls.curl"

/usr/bin/python3 - "$bench" "$work" "$runs" <<'PY'
import concurrent.futures, json, resource, statistics, subprocess, sys, time, urllib.request

bench, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
urls = open(f"{work}/urls.txt").read().split()

def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

def ours(decode):
    args = [bench, f"{work}/urls.txt", "--concurrency", "8", "--runs", str(runs)] + (["--decode"] if decode else [])
    result = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return result["median_s"], result["cpu_us_per_request"]

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

rows = [
    ("ImageDownloader (no decode)", *ours(False)),
    ("curl -Z --parallel-max 8", *curl()),
    ("Python ThreadPoolExecutor(8) + urllib", *python_pool()),
    ("ImageDownloader + JPEG decode", *ours(True)),
]
curl_rate = len(urls) / rows[1][1]
print(f"\n{len(urls)} files of {len(open(f'{work}/www/img-000.jpg', 'rb').read())} bytes from nginx on 127.0.0.1, 8 at a time, median of {runs} runs\n")
print("| client | median s | requests/s | vs curl -Z | client CPU µs/request |")
print("|---|---|---|---|---|")
for name, seconds, cpu in rows:
    rate = len(urls) / seconds
    print(f"| {name} | {seconds:.3f} | {rate:,.0f} | {rate / curl_rate:.2f}x | {cpu:.0f} |")
PY
