#!/usr/bin/env bash
# libFuzzer targets for the parsers that read bytes from strangers.
#
#   scripts/fuzz.sh                          lists the targets
#   scripts/fuzz.sh TARGET --seconds S       builds TARGET and fuzzes it for S seconds
#   scripts/fuzz.sh TARGET --runs N          ... for N executions (both may be given)
#   scripts/fuzz.sh --smoke [--seconds S]    builds every target, fuzzes each for S (default 5) seconds
#   scripts/fuzz.sh --figures [--runs N]     fuzzes every target for N (default 1,000,000) executions
#                                            and ends with a table: runs, crashes, edges, seconds
#   --workers W (with any of the above)      runs W processes per target on one shared corpus,
#                                            splitting --runs between them; their runs are summed
#
# Each run ends with `fuzz: TARGET runs=N crashes=C` (and `edges:` before it, libFuzzer's cov:).
# The targets build in Fuzz/ with -sanitize=fuzzer,address into Fuzz/.build, apart from the root
# package's build. Corpora grow in Fuzz/.build/corpus/TARGET, seeded from Samples/ and from small
# files the targets' own encoders write; crashing inputs land in Fuzz/.build/crashes/TARGET/.
# Extra arguments after `--` go to libFuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

declare -A describe=(
    [decode-jpeg]="KFCrossPlatformImage(data:) on JPEG, eager and lazy, tight limits"
    [decode-png]="KFCrossPlatformImage(data:) on PNG, eager and lazy, tight limits"
    [decode-gif]="KFCrossPlatformImage(data:) on GIF, eager and lazy frames, tight limits"
    [decode-webp]="KFCrossPlatformImage(data:) on WebP, eager and lazy frames, tight limits"
    [decode-avif]="header probe and KFCrossPlatformImage(data:) on AVIF, eager and lazy, tight limits"
    [decode-heic]="header probe and KFCrossPlatformImage(data:) on HEIC, tight limits"
    [decode-jxl]="header probe and KFCrossPlatformImage(data:) on JPEG XL, eager and lazy, tight limits"
    [decode-limits]="any format under fuzzed ImageDecodingLimits (pixels, frames, total)"
    [header]="ImageHeader probe and EXIF orientation, checked against the decoded size"
    [downsample]="DownsamplingImageProcessor on .data with a fuzzed size and scale"
    [processor-spec]="ProcessorSpec(parsing:) and processor()"
    [disk-journal]="the disk cache's .kf/journal replay, repair, compaction and second reader"
    [download]="ImageDownloader on a raw fuzzed HTTP response from a loopback server"
)
targets=(decode-jpeg decode-png decode-gif decode-webp decode-avif decode-heic decode-jxl decode-limits header downsample processor-spec disk-journal download)
fuzz_dir=Fuzz
scratch="$fuzz_dir/.build"
# Release (optimised, still with ASan and overflow checks) runs the targets about ten times faster
# than debug; FUZZ_CONFIGURATION=debug builds quicker.
configuration="${FUZZ_CONFIGURATION:-release}"
build_flags=(--package-path "$fuzz_dir" --scratch-path "$scratch" -c "$configuration"
    -Xswiftc -sanitize=fuzzer,address)

usage() {
    echo "usage: scripts/fuzz.sh [TARGET (--seconds S | --runs N) [-- LIBFUZZER-ARGS] | --smoke [--seconds S] | --figures [--runs N]] [--workers W]"
    echo "targets:"
    for target in "${targets[@]}"; do printf '  %-15s %s\n' "$target" "${describe[$target]}"; done
}

build() { # build [TARGET]: one product, or all of them
    bash scripts/install-deps.sh >/dev/null
    mkdir -p "$scratch"
    local log="$scratch/build.log" product=()
    [[ $# -gt 0 ]] && product=(--product "fuzz-$1")
    if ! swift build "${build_flags[@]}" "${product[@]}" >"$log" 2>&1; then
        tail -n 40 "$log"
        echo "fuzz: the build failed (log: $log)"
        exit 1
    fi
    # Dependencies' warnings and gold's notes on the ASan runtime are not ours.
    grep -E 'warning:|error:' "$log" | grep -vE "'swift-distributed-tracing': found|Cannot export local symbol" || true
    bin="$(swift build "${build_flags[@]}" --show-bin-path)"
}

dictionary() { # dictionary TARGET: the dictionary file for TARGET
    case "$1" in
        decode-jpeg) echo "$fuzz_dir/dicts/jpeg.dict" ;;
        decode-png) echo "$fuzz_dir/dicts/png.dict" ;;
        decode-gif) echo "$fuzz_dir/dicts/gif.dict" ;;
        decode-webp) echo "$fuzz_dir/dicts/webp.dict" ;;
        decode-avif | decode-heic) echo "$fuzz_dir/dicts/isobmff.dict" ;;
        decode-jxl) echo "$fuzz_dir/dicts/jxl.dict" ;;
        processor-spec | disk-journal) echo "$fuzz_dir/dicts/$1.dict" ;;
        download)
            cat "$fuzz_dir"/dicts/{http,png,gif}.dict >"$scratch/download.dict"
            echo "$scratch/download.dict"
            ;;
        *)
            cat "$fuzz_dir"/dicts/{jpeg,png,gif,webp}.dict >"$scratch/images.dict"
            echo "$scratch/images.dict"
            ;;
    esac
}

seed() { # seed TARGET: fills Fuzz/.build/corpus/TARGET when it is empty
    local target="$1" corpus="$scratch/corpus/$1" seeds="$scratch/seeds"
    mkdir -p "$corpus"
    [[ -n "$(ls -A "$corpus")" ]] && return 0
    if [[ ! -d "$seeds" ]]; then
        KF_FUZZ_WRITE_SEEDS="$PWD/$seeds" "$bin/fuzz-$target" >/dev/null 2>&1
        cp Samples/kingfisher.jpg "$seeds/jpeg-sample"
        cp Samples/spinner.gif "$seeds/gif-sample"
    fi
    local file
    case "$target" in
        decode-jpeg | decode-png | decode-gif | decode-webp)
            cp "$seeds/${target#decode-}"-* "$corpus/" ;;
        decode-avif | decode-heic | decode-jxl)
            # The test fixtures (made with Debian's reference encoders) and the samples.
            local extension="${target#decode-}" folder
            for folder in Tests/KingfisherTests/Fixtures/*/; do
                for file in "$folder"*."$extension"; do
                    if [[ -f "$file" ]]; then cp "$file" "$corpus/$(basename "$folder")-$(basename "$file")"; fi
                done
            done
            for file in Samples/*."$extension"; do if [[ -f "$file" ]]; then cp "$file" "$corpus/"; fi; done
            [[ -n "$(ls -A "$corpus")" ]] || { echo "fuzz: no $extension files to seed $target"; exit 1; } ;;
        header) cp "$seeds"/* "$corpus/" ;;
        decode-limits | downsample)
            for file in "$seeds"/*; do
                # Three bytes of parameters (limits or size and scale) before the image.
                { printf '\x10\x04\x14'; cat "$file"; } >"$corpus/$(basename "$file")"
            done ;;
        processor-spec)
            local index=0 spec
            for spec in 'downsample(200x200)|>round(20)|>blur(4)' 'resize(100x50,fill)' 'crop(10x10,0,1)' \
                'tint(#ff000080)' 'overlay(#00ff00,0.5)' 'colorControls(0.1,1.2,0.8,0.5)' 'blackWhite' \
                'border(#000000ff,2,4)' 'blend(multiply,0.5,#336699ff)' 'round(0.5,30x30)'; do
                printf '%s' "$spec" >"$corpus/spec-$index"
                index=$((index + 1))
            done ;;
        disk-journal)
            printf '\x00' >"$corpus/empty"
            printf '\x01KFJRNL\x00\x01' >"$corpus/header-only"
            # Typed records: a put of "a", a touch of "a", a put of "b", a remove of "b".
            printf '\x03\x04\x00\x01\x04\x00\x00\x00\x00\x00\x80\xf6\x8d\x54\xd9\x41\x00\x00\x00\x00\x00\x00\xf0\x7f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x80\xf6\x8d\x54\xd9\x41\x00\x00\x00\x00\x00\x00\xf0\x7f\x04\x01\x01\x09\x00\x00\x00\x00\x00\x80\xf6\x8d\x54\xd9\x41\x00\x00\x00\x00\x00\x00\xf0\x7f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x01\x00' >"$corpus/typed" ;;
        download)
            # Whole responses after one byte of options: framed by length, chunked and by close,
            # short and long bodies, a redirect, errors and a gzip body.
            local name size
            for file in "$seeds"/png-opaque "$seeds"/gif-animated "$seeds"/webp-lossy "$seeds"/jpeg-progressive; do
                name="$(basename "$file")" size="$(stat -c %s "$file")"
                { printf '\x00HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: %d\r\n\r\n' "$size"; cat "$file"; } >"$corpus/length-$name"
                { printf '\x0cHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n' "$size"; cat "$file"; printf '\r\n0\r\n\r\n'; } >"$corpus/chunked-$name"
                { printf '\x02HTTP/1.0 200 OK\r\nConnection: close\r\n\r\n'; cat "$file"; } >"$corpus/close-$name"
                { printf '\x00HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n' "$((size + 100))"; cat "$file"; } >"$corpus/short-$name"
                { printf '\x00HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n' "$((size / 2))"; cat "$file"; } >"$corpus/long-$name"
            done
            gzip -c "$seeds/gif-animated" >"$scratch/seed.gz"
            size="$(stat -c %s "$scratch/seed.gz")"
            { printf '\x00HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n' "$size"; cat "$scratch/seed.gz"; } >"$corpus/gzip"
            printf '\x10HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n' >"$corpus/redirect"
            printf '\x00HTTP/1.1 301 Moved\r\nLocation: http://example.com/x.png\r\n\r\n' >"$corpus/redirect-away"
            printf '\x00HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nnope!' >"$corpus/not-found"
            printf '\x00HTTP/1.1 304 Not Modified\r\nETag: "a"\r\n\r\n' >"$corpus/not-modified"
            printf '\x00HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n' >"$corpus/informational" ;;
    esac
}

run() { # run TARGET LIBFUZZER-ARGS...: fuzzes, prints the summary, returns 1 on a crash
    local target="$1"
    shift
    local artifacts="$scratch/crashes/$target" log="$scratch/logs/$target.log"
    mkdir -p "$artifacts" "$(dirname "$log")"
    seed "$target"
    local marker="$scratch/logs/$target.start"
    touch "$marker"
    local status=0 began="$SECONDS" worker pids=() logs=()
    for ((worker = 1; worker <= workers; worker++)); do
        # One log per worker; libFuzzer's default reload lets each pick up the others' finds.
        if [[ "$workers" -gt 1 ]]; then log="$scratch/logs/$target.$worker.log"; fi
        logs+=("$log")
        # The Swift runtime's backtracer would catch the trap before libFuzzer can save the input.
        SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$bin/fuzz-$target" "$scratch/corpus/$target" \
            -dict="$(dictionary "$target")" -timeout=1 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$artifacts/" "$@" >"$log" 2>&1 &
        pids+=("$!")
    done
    for worker in "${pids[@]}"; do wait "$worker" || status=$?; done
    local runs=0 edges=0 crashes count cov
    for log in "${logs[@]}"; do
        grep -E '^#[0-9]+.*(INITED|DONE|pulse)|ERROR|SUMMARY|fuzz check failed' "$log" | tail -n 6 || true
        count="$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1 || true)"
        [[ -n "$count" ]] || count="$(grep -oE '^#[0-9]+' "$log" | tr -d '#' | tail -n 1 || true)"
        cov="$(grep -oE 'cov: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1 || true)"
        runs=$((runs + ${count:-0}))
        if [[ "${cov:-0}" -gt "$edges" ]]; then edges="$cov"; fi
    done
    crashes="$(find "$artifacts" -type f -newer "$marker" | wc -l)"
    if [[ "$status" -ne 0 && "$crashes" -eq 0 ]]; then crashes=1; fi
    echo "edges: $edges (log: ${logs[*]})"
    echo "fuzz: $target runs=$runs crashes=$crashes"
    figures+=("$(printf '| %s | %s | %s | %s | %s |' "$target" "$runs" "$crashes" "$edges" "$((SECONDS - began))")")
    [[ "$crashes" -eq 0 ]]
}

if [[ $# -eq 0 ]]; then
    usage
    exit 0
fi

seconds="" runs="" workers=1 extra=() figures=()
first="$1"
shift
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --workers) workers="$2"; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) usage; exit 2 ;;
    esac
done

[[ "$workers" =~ ^[1-9][0-9]*$ ]] || { usage; exit 2; }
per_worker() { echo $((($1 + workers - 1) / workers)); } # each worker's share of N runs

if [[ "$first" == "--smoke" || "$first" == "--figures" ]]; then
    limit=(-max_total_time="${seconds:-5}")
    [[ "$first" == "--figures" ]] && limit=(-runs="$(per_worker "${runs:-1000000}")")
    build
    failed=0
    for target in "${targets[@]}"; do
        run "$target" "${limit[@]}" || failed=1
    done
    if [[ "$first" == "--figures" ]]; then
        echo "| target | executions | crashes | edges | seconds |"
        echo "|---|---:|---:|---:|---:|"
        printf '%s\n' "${figures[@]}"
    fi
    exit "$failed"
fi

[[ -n "${describe[$first]:-}" ]] || { usage; exit 2; }
[[ -n "$seconds$runs" ]] || { usage; exit 2; }
limits=()
[[ -n "$seconds" ]] && limits+=(-max_total_time="$seconds")
[[ -n "$runs" ]] && limits+=(-runs="$(per_worker "$runs")")
build "$first"
run "$first" "${limits[@]}" "${extra[@]}"
