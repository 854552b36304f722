#!/usr/bin/env bash
# Image-server benchmark: `kf serve` answering thumbor URLs (`--thumbor /`, unsigned paths with
# --insecure-unsigned) against thumbor 7 itself, both in front of the same local nginx origin,
# loaded by wrk on this machine, in one run:
#   a. imgproxy's benchmark workload: 2K photo JPEGs (2040 px wide, q90) →
#      /unsafe/fit-in/WxW/filters:format(jpeg):quality(80)/http://ORIGIN/FILE with W 505…514, 50
#      files under 24,000 names, every request a distinct URL and source; 2 and 16 connections;
#   b. 1080p JPEG → /unsafe/fit-in/SxS/… (S 200…219) uncached, every request a distinct URL and
#      source (200 files under 20,000 names), 16 connections;
#   c. cached: 200 of those URLs again and again after one warm-up pass; and 304: the same URL
#      with If-None-Match set to the server's ETag (thumbor's ETag is Tornado's, over the body);
#   d. peak memory of each server over the whole run: PSS (smaps_rollup), sampled every 0.2 s and
#      summed over thumbor's parent and forked workers, so the pages they share count once;
#   e. CPU (user + system, /proc/PID/stat) per request of each uncached run for both servers (it
#      varies less than requests/s when other work shares the cores), and the floor: kf serve's
#      CPU per request of (a) at 16 connections, against the CPU per image of the same fetch,
#      decode, fit-in-512 resize and JPEG encode done in one `kf prefetch` process by the library
#      (no HTTP server): 200 distinct photo URLs minus a run of 1 URL (start-up), over 199.
#      prefetch encodes with Kingfisher's default serializer (JPEG quality 1.0, heavier than the
#      server's 80) and writes its disk cache, as kf serve writes its own.
# Ends with a table: requests/s and wrk's p99 for each server, the ratios kf/thumbor, the RSS
# ratio, CPU per request and the floor ratio. thumbor runs as its docs say: pip into a venv, PIL engine, one
# process per core, HTTP loader, no originals storage, file result storage (for the cached runs;
# it also stores the uncached results, as kf serve keeps its own disk cache).
#
#   scripts/bench-serve.sh [SECONDS]     (default 10 s per wrk run, 2 wrk threads)
#   KF_BIN=path/to/kf scripts/bench-serve.sh   (that binary instead of a fresh release build)
#   KF_SERVE_ARGS="--max-jobs 4" scripts/bench-serve.sh   (extra kf serve flags)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
seconds="${1:-10}"
bash scripts/install-deps.sh nginx-light curl wrk python3-venv
started=$SECONDS

source scripts/lib/thumbor.sh
begin_peer_run
# Other work on this machine skews every figure: say how busy it was.
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"

# Sources: 200 1080p JPEGs and 50 2K photos, each under many names (symbolic links), so that no
# two requests of an uncached run name the same source: kf serve keeps fetched originals on disk
# (--keep-originals, its default) and would otherwise skip the fetch for the second size of a
# source. img-000…999 are the names local-nginx.sh expects.
mkdir -p "$work/www/photos"
bench_images hd 200 "$work/www"
bench_images photos 50 "$work/www/photos"
/usr/bin/python3 - "$work/www" <<'PY'
import os, sys
www = sys.argv[1]
for i in range(200, 1000):
    os.symlink(f"img-{i % 200:03d}.jpg", f"{www}/img-{i:03d}.jpg")
for i in range(20000):
    os.symlink(f"img-{i % 200:03d}.jpg", f"{www}/hd-{i:05d}.jpg")
for i in range(24000):
    os.symlink(f"photos/photo-{i % 50:03d}.jpg", f"{www}/photo-{i:05d}.jpg")
for i in range(20):
    os.symlink(f"photos/photo-{i:03d}.jpg", f"{www}/warm-{i:02d}.jpg")
PY
start_local_nginx
origin="127.0.0.1:$port"

# --quality 80: thumbor's default QUALITY, so the URLs without quality() cost both the same encode.
# KF_SERVE_ARGS adds kf serve flags, to measure a setting against the defaults.
# shellcheck disable=SC2086
start_kf --thumbor / --insecure-unsigned --allow-host 127.0.0.1 --allow-address 127.0.0.1 --quality 80 \
    --cache-dir "$work/kf-cache" --log-level error ${KF_SERVE_ARGS:-}
start_thumbor 2 "ALLOW_UNSAFE_URL = True" \
    "RESULT_STORAGE = 'thumbor.result_storages.file_storage'" \
    "RESULT_STORAGE_FILE_STORAGE_ROOT_PATH = '$work/thumbor-results'" \
    "RESULT_STORAGE_STORES_UNSAFE = True"
thumbor_pids=($(process_tree "$thumbor_pid"))
sample_peak_pss "$work/pss-kf" "$kf_pid" & pids+=($!)
sample_peak_pss "$work/pss-thumbor" "$thumbor_pid" & pids+=($!)
servers=("kf=http://127.0.0.1:$kf_port" "thumbor=http://127.0.0.1:$thumbor_port")

# URL lists, every URL naming its own source. (a): boxes 505…514 in turn; the 2-connection run
# takes sources 0…7,999, the 16-connection run 8,000…23,999. (b): boxes 200…219 in turn over
# 20,000 sources; (c) the last 200 of those, again and again.
/usr/bin/python3 - "$work" "$origin" <<'PY'
import sys
work, origin = sys.argv[1:]
def write(name, lines):
    open(f"{work}/{name}", "w").write("\n".join(lines) + "\n")
photo = lambda i: f"/unsafe/fit-in/{505 + i % 10}x{505 + i % 10}/filters:format(jpeg):quality(80)/http://{origin}/photo-{i:05d}.jpg"
write("photos-c2.txt", [photo(i) for i in range(8000)])
write("photos-c16.txt", [photo(i) for i in range(8000, 24000)])
hd = [f"/unsafe/fit-in/{200 + i % 20}x{200 + i % 20}/http://{origin}/hd-{i:05d}.jpg" for i in range(20000)]
write("hd.txt", hd)
write("hd-cached.txt", hd[-200:])
# Warm-up URLs no run uses (first-request costs: connection pools, lazy initialisation).
write("warm.txt", [f"/unsafe/fit-in/600x600/filters:format(jpeg):quality(80)/http://{origin}/warm-{i:02d}.jpg" for i in range(20)])
PY

# run_wrk NAME BASE PATHFILE CONNECTIONS [HEADER]: one wrk run; keeps req/s, p99, the request
# count and the count of answers other than 2xx/3xx in $work/result-NAME, and warns when the run
# wrapped round its list.
run_wrk() {
    local extra=()
    if [ -n "${5:-}" ]; then extra=(-H "$5"); fi
    PATHS="$3" wrk -t2 -c"$4" -d"${seconds}s" --timeout 30s --latency -s scripts/lib/wrk-paths.lua "${extra[@]}" "$2" \
        > "$work/wrk-$1.txt" 2>&1
    local rps p99 requests non2xx
    rps="$(awk '/Requests\/sec/ {print $2}' "$work/wrk-$1.txt")"
    p99="$(awk '$1 == "99%" {print $2}' "$work/wrk-$1.txt")"
    requests="$(awk '/requests in/ {print $1}' "$work/wrk-$1.txt")"
    non2xx="$(awk '/Non-2xx/ {print $NF}' "$work/wrk-$1.txt")"
    # Connections refused, reset or timed out count as failed answers too.
    local socket_errors
    socket_errors="$(awk -F'[ ,]+' '/Socket errors/ { for (i = 1; i < NF; i++) if ($i ~ /^(connect|read|write|timeout)$/) n += $(i + 1); print n + 0 }' "$work/wrk-$1.txt")"
    non2xx=$(( ${non2xx:-0} + ${socket_errors:-0} ))    printf '%-26s %10s req/s   p99 %9s   requests %6s   failed (non-2xx/3xx or socket error) %s\n' "$1" "$rps" "$p99" "$requests" "$non2xx"
    if [ "$(wc -l < "$3")" -gt 1 ] && [ "${requests:-0}" -gt "$(wc -l < "$3")" ]; then
        echo "  (warning: $requests requests over $(wc -l < "$3") URLs: some were repeats)"
    fi
    echo "$rps $p99 $requests ${non2xx:-0}" > "$work/result-$1"
}

# timed_wrk NAME BASE PATHFILE CONNECTIONS: run_wrk, keeping the CPU ticks the server (NAME ends
# in -kf or -thumbor; thumbor's processes summed) spent during the run in $work/ticks-NAME.
timed_wrk() {
    local server_pids=("$kf_pid") before after
    if [ "${1##*-}" = thumbor ]; then server_pids=("${thumbor_pids[@]}"); fi
    before="$(cpu_ticks "${server_pids[@]}")"
    run_wrk "$@"
    after="$(cpu_ticks "${server_pids[@]}")"
    # A server that died during the run has no CPU figure (its ticks would vanish from the sum).
    if ! kill -0 "${server_pids[@]}" 2>/dev/null; then
        echo "  (${1##*-} died during $1: no CPU figure)"
        echo "dead" > "$work/ticks-$1"
        return
    fi
    echo "$((after - before))" > "$work/ticks-$1"
}

for server in "${servers[@]}"; do
    while read -r path; do curl -sf -o /dev/null "${server#*=}$path" || echo "warm-up failed: ${server%%=*} $path"; done < "$work/warm.txt"
done

echo "== a. 2K photo → fit-in/~512, JPEG q80 (imgproxy's benchmark workload), distinct URLs =="
for connections in 2 16; do
    for server in "${servers[@]}"; do
        timed_wrk "2k-c$connections-${server%%=*}" "${server#*=}" "$work/photos-c$connections.txt" "$connections"
    done
done

echo "== b. 1080p → fit-in/~200 (uncached, distinct URLs, 16 connections) =="
for server in "${servers[@]}"; do timed_wrk "1080p-${server%%=*}" "${server#*=}" "$work/hd.txt" 16; done

echo "== c. cached (200 URLs, warmed) and 304 (If-None-Match) =="
for server in "${servers[@]}"; do
    while read -r path; do curl -sf -o /dev/null "${server#*=}$path" || true; done < "$work/hd-cached.txt"
    run_wrk "cached-${server%%=*}" "${server#*=}" "$work/hd-cached.txt" 16
done
head -n 1 "$work/hd-cached.txt" > "$work/one.txt"
for server in "${servers[@]}"; do
    name="${server%%=*}"
    etag="$(curl -s -D - -o /dev/null "${server#*=}$(cat "$work/one.txt")" | awk 'tolower($1) == "etag:" {print $2}' | tr -d '\r')"
    if [ -z "$etag" ]; then
        echo "$name sends no ETag: no 304 run"
        echo "- - 0" > "$work/result-304-$name"
        continue
    fi
    status="$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "${server#*=}$(cat "$work/one.txt")")"
    echo "$name: ETag $etag, If-None-Match answered $status"
    run_wrk "304-$name" "${server#*=}" "$work/one.txt" 16 "If-None-Match: $etag"
done

kf_rss="$(cat "$work/pss-kf")"
thumbor_rss="$(cat "$work/pss-thumbor")"

echo "== e. floor: the same fetch, decode, resize and encode in one kf prefetch process =="
for i in $(seq 0 199); do echo "http://$origin/photo-$(printf %05d "$i").jpg"; done > "$work/floor.txt"
echo "http://$origin/photo-23999.jpg" > "$work/floor-one.txt"
floor_one="$(cpu_seconds "$kf" prefetch --file "$work/floor-one.txt" --processor 'downsample(512x512)' \
    --concurrency 2 --cache-dir "$work/floor-one-cache" -q 2>/dev/null)"
floor_all="$(cpu_seconds "$kf" prefetch --file "$work/floor.txt" --processor 'downsample(512x512)' \
    --concurrency 2 --cache-dir "$work/floor-cache" -q 2>/dev/null)"
echo "kf prefetch CPU: 1 URL ${floor_one} s, 200 URLs ${floor_all} s"

/usr/bin/python3 - "$work" "$kf_rss" "$thumbor_rss" "$floor_one" "$floor_all" "$(getconf CLK_TCK)" <<'PY'
import sys
work, kf_rss, thumbor_rss, floor_one, floor_all, tick = sys.argv[1:]
kf_rss, thumbor_rss, tick = int(kf_rss), int(thumbor_rss), int(tick)


def result(name):
    try:
        rps, p99, requests, errors = open(f"{work}/result-{name}").read().split()
        return (float(rps) if rps != "-" else None), p99, int(requests), int(errors)
    except (OSError, ValueError):
        return None, "-", 0, 0


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


rows = [("2K → fit 512 q80, 2 conn", "2k-c2"), ("2K → fit 512 q80, 16 conn", "2k-c16"),
        ("1080p → fit ~200, uncached", "1080p"), ("cached (200 URLs)", "cached"), ("304 If-None-Match", "304")]
print("== summary (wrk p99; ratios are kf over thumbor) ==")
print(f"{'workload':<28} {'kf req/s':>9} {'kf p99':>9} {'thumbor req/s':>14} {'thumbor p99':>12} {'kf/thumbor':>11}")
for label, key in rows:
    kf, thumbor = result(f"{key}-kf"), result(f"{key}-thumbor")
    fmt = lambda value: f"{value:.1f}" if value is not None else "-"
    errors = [f"{who}: {answer[3]} of {answer[2]} answers failed" for who, answer in (("kf", kf), ("thumbor", thumbor))
              if answer[3]]
    print(f"{label:<28} {fmt(kf[0]):>9} {kf[1]:>9} {fmt(thumbor[0]):>14} {thumbor[1]:>12} {ratio(kf[0], thumbor[0]):>11}"
          + (f"   (INVALID: {'; '.join(errors)})" if errors else ""))
print(f"{'peak PSS (sampled)':<28} {kf_rss / 1024:>8.0f}M {'':>9} {thumbor_rss / 1024:>13.0f}M {'':>12} "
      f"{ratio(kf_rss, thumbor_rss):>11}")
# CPU per request is steadier than requests/s when other work shares the cores.
for label, key in rows[:3]:
    cpu = {}
    for name in ("kf", "thumbor"):
        ticks = open(f"{work}/ticks-{key}-{name}").read().strip()
        requests = result(f"{key}-{name}")[2]
        cpu[name] = int(ticks) / tick * 1000 / requests if requests and ticks.isdigit() else None
    fmt = lambda value: f"{value:.1f} ms" if value is not None else "-"
    print(f"CPU per request, {label:<27} kf serve {fmt(cpu['kf']):>8}, thumbor {fmt(cpu['thumbor']):>8}"
          f"   kf/thumbor {ratio(cpu['kf'], cpu['thumbor'])}")
    if key == "2k-c16":
        floor_cpu = cpu["kf"]
floor = (float(floor_all) - float(floor_one)) * 1000 / 199
print(f"floor: kf prefetch {floor:.1f} ms CPU per image (200 URLs minus 1, over 199); "
      f"kf serve (2K, 16 conn) / floor: {ratio(floor_cpu, floor)}")
PY
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-serve: $((SECONDS - started)) s"
