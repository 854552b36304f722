# Sourced by scripts/check-thumbor.sh and scripts/bench-serve.sh: the pieces both need to run
# `kf serve` next to thumbor. Keeps the ids of the processes it starts in `pids` (stopped by
# `stop_started`, from the EXIT trap `begin_peer_run` sets).
#
#   begin_peer_run             makes the scratch folder `work`, loads scripts/local-nginx.sh, sets the
#                              EXIT trap, then runs bench_venv and build_kf
#   bench_venv                 the Python venv with thumbor, libthumbor and imgproxy (klen) from
#                              PyPI, kept in ${KF_BENCH_CACHE:-~/.cache/kf-bench}; sets `venv`
#   build_kf                   $KF_BIN, else a release kf as the other benchmarks build it; sets `kf`
#   start_thumbor PROCS [LINE...]  thumbor 7 (PIL engine, HTTP loader, no storages) on a free port,
#                              extra thumbor.conf lines appended; sets `thumbor_port`, `thumbor_pid`
#   start_kf ARG...            `kf serve --port P ARG...`; sets `kf_port`, `kf_pid`
#   wait_for URL, process_tree PID
#   (and free_port, cpu_ticks, pss_kb, sample_peak_pss from scripts/lib/processes.sh)

source scripts/lib/processes.sh
pids=()
export PYTHONDONTWRITEBYTECODE=1

wait_for() {
    for _ in $(seq 1 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done
    echo "no answer from $1" >&2
    return 1
}

# A process and its children (thumbor's --processes workers), one id a line.
process_tree() { echo "$1"; pgrep -P "$1" || true; }

bench_venv() {
    local cache="${KF_BENCH_CACHE:-$HOME/.cache/kf-bench}"
    venv="$cache/venv"
    if ! "$venv/bin/python" -c 'import thumbor, libthumbor, imgproxy, PIL' 2>/dev/null; then
        mkdir -p "$cache"
        /usr/bin/python3 -m venv "$venv"
        "$venv/bin/pip" install -q thumbor libthumbor imgproxy >/dev/null
    fi
}

build_kf() {
    if [ -n "${KF_BIN:-}" ]; then
        kf="$KF_BIN"
    else
        swift build -c release --static-swift-stdlib --product kf >/dev/null
        kf="$(swift build -c release --show-bin-path)/kf"
    fi
}

start_thumbor() { # PROCESSES [CONF LINE...]
    local processes="$1"
    shift
    thumbor_port="$(free_port)"
    {
        echo "ENGINE = 'thumbor.engines.pil'"
        echo "LOADER = 'thumbor.loaders.http_loader'"
        echo "STORAGE = 'thumbor.storages.no_storage'"
        printf '%s\n' "$@"
    } > "$work/thumbor.conf"
    "$venv/bin/thumbor" --port "$thumbor_port" --conf "$work/thumbor.conf" --processes "$processes" -l error \
        >"$work/thumbor.log" 2>&1 &
    thumbor_pid=$!
    pids+=("$thumbor_pid")
    wait_for "http://127.0.0.1:$thumbor_port/healthcheck" || { cat "$work/thumbor.log" >&2; return 1; }
}

start_kf() { # kf serve arguments after --port
    kf_port="$(free_port)"
    "$kf" serve --port "$kf_port" "$@" >"$work/kf.log" 2>&1 &
    kf_pid=$!
    pids+=("$kf_pid")
    wait_for "http://127.0.0.1:$kf_port/health" || { cat "$work/kf.log" >&2; return 1; }
}

# Stops what start_thumbor and start_kf started: thumbor's workers first, then the parents.
stop_started() {
    local pid child
    for pid in "${pids[@]}"; do
        for child in $(pgrep -P "$pid" || true); do kill "$child" 2>/dev/null || true; done
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    pids=()
}

# Copies the images `Benchmarks/serve/serve_images.py KIND DIR COUNT` makes into DIR, generating
# them once per version of that script into the bench cache (they are seeded, so the same files).
bench_images() { # KIND COUNT DIR
    local cache="${KF_BENCH_CACHE:-$HOME/.cache/kf-bench}" digest folder
    digest="$(sha1sum Benchmarks/serve/serve_images.py | cut -c1-12)"
    folder="$cache/images/$1-$2-$digest"
    if [ ! -f "$folder/.done" ]; then
        rm -rf "$folder"
        mkdir -p "$folder"
        "$venv/bin/python" Benchmarks/serve/serve_images.py "$1" "$folder" "$2" >/dev/null
        touch "$folder/.done"
    fi
    cp "$folder"/* "$3"/
}

# CPU seconds (user + system) the command took, as "SECONDS" on standard output; its own output
# goes to standard error.
cpu_seconds() {
    /usr/bin/python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=sys.stderr, check=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{usage.ru_utime + usage.ru_stime:.3f}")' "$@"
}

# Makes the work folder `$work`, loads scripts/local-nginx.sh, removes what the run started and the
# folder on exit, then prepares the venv and kf: the opening every peer script shares.
begin_peer_run() {
    work="$(mktemp -d)"
    source scripts/local-nginx.sh
    trap 'stop_started; stop_local_nginx; rm -rf "$work"' EXIT
    bench_venv
    build_kf
}
