#!/usr/bin/env bash
# Image-server benchmark: `kf serve` answering thumbor URLs (`--thumbor /`, unsigned paths with
# --insecure-unsigned) against thumbor 7 itself, both in front of the same local nginx origin,
# loaded by wrk on this machine, in one run:
#   a. imgproxy's benchmark workload in each of its four formats: 2K photos (2040 px wide) stored as
#      JPEG q90, PNG, WebP q90 and AVIF (written by the venv's Pillow), each request
#      /unsafe/fit-in/WxW/filters:format(F):quality(Q)/http://ORIGIN/FILE with W 505…514, the
#      output in the source's format at imgproxy's settings (JPEG 80, WebP 75, AVIF 65, PNG
#      lossless), 50 files per format under 16,000 names, every request a distinct URL and
#      source; 2 and 8 connections;
#   b. 1080p JPEG → /unsafe/fit-in/SxS/… (S 200…219) uncached, every request a distinct URL and
#      source (200 files under 20,000 names), 8 connections;
#   c. five widths of one source (a page's srcset, a CDN warming its sizes): each 2K JPEG asked
#      for at 1600, 1280, 960, 640 and 320 px in a row, 8 connections, every source new;
#   d. cached: 200 of (b)'s URLs again and again after one warm-up pass; and 304: the same URL
#      with If-None-Match set to the server's ETag (thumbor's ETag is Tornado's, over the body);
#   e. peak memory of each server over the whole run: PSS (smaps_rollup), sampled every 0.2 s and
#      summed over thumbor's parent and forked workers, so the pages they share count once;
#   f. CPU (user + system, /proc/PID/stat) per request of each uncached run for both servers (it
#      varies less than requests/s when other work shares the cores), and the codec floor of
#      each format (Benchmarks/serve/codec_floor.py: the C libraries alone decoding the same
#      sources at the size kf decodes them and encoding the output at the same settings).
# Ends with a table: requests/s and wrk's p99 for each server, CPU per request, thumbor's CPU per
# request over kf serve's, kf serve's over the floor, and the output bytes and PSNR of each server
# against Pillow's LANCZOS fit of the same source. thumbor runs as its docs say: pip into a venv,
# PIL engine, one process per core, HTTP loader, no originals storage, file result storage (for the
# cached runs; it also stores the uncached results, as kf serve keeps its own disk cache).
#
#   scripts/bench-serve.sh [SECONDS]     (default 10 s per wrk run, 2 wrk threads)
#   KF_BIN=path/to/kf scripts/bench-serve.sh   (that binary instead of a fresh release build)
#   KF_SERVE_ARGS="--max-jobs 4" scripts/bench-serve.sh   (extra kf serve flags)
#   BENCH_FORMATS="jpeg png" scripts/bench-serve.sh   (only those formats in a.)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
seconds="${1:-10}"
bash scripts/install-deps.sh nginx-light curl wrk python3-venv libjpeg-turbo-progs webp libavif-bin libdeflate-dev
started=$SECONDS

source scripts/lib/thumbor.sh
begin_peer_run
# Other work on this machine skews every figure: say how busy it was.
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"

formats=(${BENCH_FORMATS:-jpeg png webp avif})

# Sources: 200 1080p JPEGs and 50 2K photos in each format, each under many names (symbolic
# links), so that no two requests of an uncached run name the same source: kf serve keeps fetched
# originals on disk (--keep-originals, its default) and would otherwise skip the fetch for the
# second size of a source. img-000…999 are the names local-nginx.sh expects.
for format in "${formats[@]}"; do
    mkdir -p "$work/www/photos-$format"
    bench_images "photos-$format" 50 "$work/www/photos-$format"
done
if [[ " ${formats[*]} " != *" jpeg "* ]]; then
    mkdir -p "$work/www/photos-jpeg"
    bench_images photos-jpeg 50 "$work/www/photos-jpeg"
fi
bench_images hd 200 "$work/www"
/usr/bin/python3 - "$work/www" <<'PY'
import os, sys
www = sys.argv[1]
extensions = {"jpeg": "jpg", "png": "png", "webp": "webp", "avif": "avif"}
for i in range(200, 1000):
    os.symlink(f"img-{i % 200:03d}.jpg", f"{www}/img-{i:03d}.jpg")
for i in range(20000):
    os.symlink(f"img-{i % 200:03d}.jpg", f"{www}/hd-{i:05d}.jpg")
for format, extension in extensions.items():
    if not os.path.isdir(f"{www}/photos-{format}"):
        continue
    for i in range(16000):
        os.symlink(f"photos-{format}/photo-{i % 50:03d}.{extension}", f"{www}/{format}-{i:05d}.{extension}")
# The five-widths sources, and warm-up sources no run uses.
for i in range(4000):
    os.symlink(f"photos-jpeg/photo-{i % 50:03d}.jpg", f"{www}/widths-{i:05d}.jpg")
for i in range(20):
    os.symlink(f"photos-jpeg/photo-{i:03d}.jpg", f"{www}/warm-{i:02d}.jpg")
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
# takes sources 0…3,999 of its format, the 8-connection run 4,000…15,999. (b): boxes 200…219 in
# turn over 20,000 sources; (d) the last 200 of those, again and again. (c): five widths of each
# source in a row.
/usr/bin/python3 - "$work" "$origin" <<'PY'
import sys
work, origin = sys.argv[1:]
def write(name, lines):
    open(f"{work}/{name}", "w").write("\n".join(lines) + "\n")
settings = {"jpeg": ("jpg", "format(jpeg):quality(80)"), "png": ("png", "format(png)"),
            "webp": ("webp", "format(webp):quality(75)"), "avif": ("avif", "format(avif):quality(65)")}
for format, (extension, filters) in settings.items():
    url = lambda i: f"/unsafe/fit-in/{505 + i % 10}x{505 + i % 10}/filters:{filters}/http://{origin}/{format}-{i:05d}.{extension}"
    write(f"{format}-c2.txt", [url(i) for i in range(4000)])
    write(f"{format}-c8.txt", [url(i) for i in range(4000, 16000)])
    # One URL of each of ten sources, for the output comparison.
    write(f"{format}-sample.txt", [url(i) for i in range(15990, 16000)])
hd = [f"/unsafe/fit-in/{200 + i % 20}x{200 + i % 20}/http://{origin}/hd-{i:05d}.jpg" for i in range(20000)]
write("hd.txt", hd)
write("hd-cached.txt", hd[-200:])
write("widths.txt", [f"/unsafe/fit-in/{width}x{width}/filters:format(jpeg):quality(80)/http://{origin}/widths-{i:05d}.jpg"
                     for i in range(4000) for width in (1600, 1280, 960, 640, 320)])
# Warm-up URLs no run uses (first-request costs: connection pools, lazy initialisation).
write("warm.txt", [f"/unsafe/fit-in/600x600/filters:{filters}/http://{origin}/warm-{i:02d}.jpg"
                   for i in range(20) for filters in ("format(jpeg):quality(80)", "format(png)", "format(webp):quality(75)",
                                                      "format(avif):quality(65)")])
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
    non2xx=$(( ${non2xx:-0} + ${socket_errors:-0} ))
    printf '%-26s %10s req/s   p99 %9s   requests %6s   failed (non-2xx/3xx or socket error) %s\n' "$1" "$rps" "$p99" "$requests" "$non2xx"
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

for format in "${formats[@]}"; do
    echo "== a. 2K $format → fit-in/~512 in $format (imgproxy's benchmark workload), distinct URLs =="
    for connections in 2 8; do
        for server in "${servers[@]}"; do
            timed_wrk "$format-c$connections-${server%%=*}" "${server#*=}" "$work/$format-c$connections.txt" "$connections"
        done
    done
done

echo "== b. 1080p → fit-in/~200 (uncached, distinct URLs, 8 connections) =="
for server in "${servers[@]}"; do timed_wrk "1080p-${server%%=*}" "${server#*=}" "$work/hd.txt" 8; done

echo "== c. five widths of each source in a row (1600…320 px JPEG, 8 connections) =="
for server in "${servers[@]}"; do timed_wrk "widths-${server%%=*}" "${server#*=}" "$work/widths.txt" 8; done

echo "== d. cached (200 URLs, warmed) and 304 (If-None-Match) =="
for server in "${servers[@]}"; do
    while read -r path; do curl -sf -o /dev/null "${server#*=}$path" || true; done < "$work/hd-cached.txt"
    run_wrk "cached-${server%%=*}" "${server#*=}" "$work/hd-cached.txt" 8
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
    run_wrk "304-$name" "${server#*=}" "$work/one.txt" 8 "If-None-Match: $etag"
done

kf_rss="$(cat "$work/pss-kf")"
thumbor_rss="$(cat "$work/pss-thumbor")"

echo "== f. codec floors (the C libraries alone, same sources) and output comparison =="
for format in "${formats[@]}"; do
    floor="$("$venv/bin/python" Benchmarks/serve/codec_floor.py "$format" "$work/www/photos-$format" 512)" || floor="0 0"
    echo "$floor" > "$work/floor-$format"
    echo "$format floor: decode ${floor% *} ms + encode ${floor#* } ms per image"
    for server in "${servers[@]}"; do
        sed "s|^|${server#*=}|" "$work/$format-sample.txt" > "$work/sample-urls"
        # A failed comparison is reported and leaves its cells empty, not the figures measured so far.
        "$venv/bin/python" Benchmarks/serve/serve_output.py "$work/www" "$work/sample-urls" > "$work/output-$format-${server%%=*}" \
            || echo "output comparison failed: $format ${server%%=*}"
    done
done

/usr/bin/python3 - "$work" "$kf_rss" "$thumbor_rss" "$(getconf CLK_TCK)" "${formats[@]}" <<'PY'
import sys
work, kf_rss, thumbor_rss, tick, *formats = sys.argv[1:]
kf_rss, thumbor_rss, tick = int(kf_rss), int(thumbor_rss), int(tick)


def result(name):
    try:
        rps, p99, requests, errors = open(f"{work}/result-{name}").read().split()
        return (float(rps) if rps != "-" else None), p99, int(requests), int(errors)
    except (OSError, ValueError):
        return None, "-", 0, 0


def cpu(key, name):
    try:
        ticks = open(f"{work}/ticks-{key}-{name}").read().strip()
    except OSError:
        return None
    requests = result(f"{key}-{name}")[2]
    return int(ticks) / tick * 1000 / requests if requests and ticks.isdigit() else None


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


fmt = lambda value, unit="": f"{value:.1f}{unit}" if value is not None else "-"
rows = [(f"{f} 2K → 512, {c} conn", f"{f}-c{c}", f) for f in formats for c in (2, 8)]
rows += [("1080p → ~200, 8 conn", "1080p", None), ("five widths, 8 conn", "widths", None)]
print("== summary: CPU per request (user + system over the run / answers); thumbor/kf is thumbor's CPU over kf's ==")
print(f"{'workload':<24} {'kf req/s':>9} {'thumbor req/s':>14} {'kf CPU':>9} {'thumbor CPU':>12} {'thumbor/kf':>11} "
      f"{'floor':>8} {'kf/floor':>9}")
for label, key, floor_format in rows:
    kf, thumbor = result(f"{key}-kf"), result(f"{key}-thumbor")
    errors = [f"{who}: {answer[3]} of {answer[2]} answers failed" for who, answer in (("kf", kf), ("thumbor", thumbor))
              if answer[3]]
    kf_cpu, thumbor_cpu = cpu(key, "kf"), cpu(key, "thumbor")
    floor = None
    if floor_format:
        decode, encode = map(float, open(f"{work}/floor-{floor_format}").read().split())
        floor = decode + encode
    print(f"{label:<24} {fmt(kf[0]):>9} {fmt(thumbor[0]):>14} {fmt(kf_cpu, ' ms'):>9} {fmt(thumbor_cpu, ' ms'):>12} "
          f"{ratio(thumbor_cpu, kf_cpu):>11} {fmt(floor, ' ms'):>8} {ratio(kf_cpu, floor):>9}"
          + (f"   (INVALID: {'; '.join(errors)})" if errors else ""))
for label, key in (("cached (200 URLs)", "cached"), ("304 If-None-Match", "304")):
    kf, thumbor = result(f"{key}-kf"), result(f"{key}-thumbor")
    print(f"{label:<24} {fmt(kf[0]):>9} {fmt(thumbor[0]):>14}   kf/thumbor {ratio(kf[0], thumbor[0])}")
print(f"{'peak PSS (sampled)':<24} {kf_rss / 1024:>8.0f}M {thumbor_rss / 1024:>13.0f}M   kf/thumbor {ratio(kf_rss, thumbor_rss)}")
print("== output of ten URLs per format: mean bytes, and PSNR against Pillow's LANCZOS fit of the source ==")
for f in formats:
    line = []
    for name in ("kf", "thumbor"):
        try:
            size, psnr = open(f"{work}/output-{f}-{name}").read().split()
            line.append((float(size), float(psnr)))
        except (OSError, ValueError):
            line.append((None, None))
    (kb, kp), (tb, tp) = line
    print(f"{f:<6} kf {fmt(kb and kb / 1024, ' KiB'):>10} {fmt(kp, ' dB'):>8}   thumbor {fmt(tb and tb / 1024, ' KiB'):>10} "
          f"{fmt(tp, ' dB'):>8}   bytes kf/thumbor {ratio(kb, tb)}")
PY
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-serve: $((SECONDS - started)) s"
