#!/usr/bin/env bash
# Fault test of a fleet: 3 kf serve replicas behind nginx (scripts/fleet.sh), loaded by wrk through
# nginx, in front of an origin that counts its requests. Shows, and exits 1 unless:
#   1. after a warm-up (three sizes of each source, one after another), each distinct source was
#      fetched from the origin twice across the fleet (its original is kept from the second size on);
#   2. a replica killed with SIGKILL mid-load costs 0 failed client requests;
#   3. every replica restarted in turn with SIGTERM (it drains: /health 503, in-flight requests
#      finish) costs 0 failed requests and none cut short;
#   4. a replica whose cache folder is deleted, then restarted, costs 0 failed requests;
# and prints the hit ratios of nginx's cache and of the replicas' caches, and what a request costs
# nginx and a replica in CPU (uncached, cached at the replica, cached at nginx).
#
#   scripts/check-fleet.sh [SECONDS]      (each loaded phase lasts SECONDS, default 8)
#   KF_BIN=path/to/kf scripts/check-fleet.sh   (that kf instead of a fresh release build)
#
# A failed request is one wrk counts as a socket error (connect, read, write, timeout: a response
# cut short is a read error) or as an answer other than 2xx/3xx.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
seconds="${1:-8}"
bash scripts/install-deps.sh nginx wrk curl python3-pil

if [ -z "${KF_BIN:-}" ]; then
    swift build -c release --static-swift-stdlib --product kf >/dev/null
    export KF_BIN="$(swift build -c release --show-bin-path)/kf"
fi

work="$(mktemp -d)"
# nginx's workers run as an unprivileged user when started by root: they need into the fleet's folder.
chmod 755 "$work"
export KF_FLEET_DIR="$work/fleet"
source scripts/lib/processes.sh
export KF_FLEET_PORT="$(free_port)"
origin_pid=""
cleanup() {
    bash scripts/fleet.sh stop >/dev/null 2>&1 || true
    [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The replicas reach this machine at 10.77.0.1 in namespaces, 127.0.0.1 on loopback ports.
export KF_SERVE_ALLOW_HOSTS="10.77.0.1,127.0.0.1"
bash scripts/fleet.sh start 3 -- --allow-private-addresses --insecure-unsigned --drain-seconds 2 --log-level error
status() { bash scripts/fleet.sh status; }
front="$(status | sed -n 1p)"
reach="$(status | awk '$1 == "reach" {print $2}')"
echo "fleet: $front, replicas reach this machine at $reach"
status | awk '$1 == "replica"'

# The origin: 60 photos (1600×1067 JPEGs), a count of GETs per path at /__counts.
# The photos are made once (seeded, about 20 s) and kept in the benchmarks' cache folder.
photos="${KF_BENCH_CACHE:-$HOME/.cache/kf-bench}/fleet-photos"
/usr/bin/python3 scripts/lib/fleet_tools.py origin "$photos" "$reach" > "$work/origin.port" 2> "$work/origin.log" &
origin_pid=$!
for _ in $(seq 1 1200); do [ -s "$work/origin.port" ] && break; sleep 0.1; done
[ -s "$work/origin.port" ] || { echo "the origin did not start:" >&2; cat "$work/origin.log" >&2; exit 1; }
origin="$reach:$(cat "$work/origin.port")"
echo "origin: http://$origin/ (60 sources)"

# URL lists: sources 0–29 through thumbor's grammar, 30–49 kf's, 50–59 imgproxy's; each loaded
# phase has 200 sizes of its own (12,000 URLs), so its requests miss nginx's cache and reach the
# replicas, which render them (from the original each keeps).
urls() { /usr/bin/python3 scripts/lib/fleet_tools.py urls "$origin" "$@"; }
urls warm 100 110 120 > "$work/warm.txt"
for phase in kill rolling lost capacity; do urls "$phase" > "$work/$phase.txt"; done

# load NAME PATHFILE SECONDS [BASE]: wrk with 8 connections; prints and keeps requests and failures.
load() {
    PATHS="$2" wrk -t2 -c8 -d"$3s" --timeout 20s -s scripts/lib/wrk-paths.lua "${4:-${front%/}}" > "$work/wrk-$1.txt" 2>&1
    local requests errors non2xx
    requests="$(awk '/requests in/ {print $1}' "$work/wrk-$1.txt")"
    errors="$(awk '/Socket errors/ {gsub(/,/, ""); print $4 + $6 + $8 + $10}' "$work/wrk-$1.txt")"
    non2xx="$(awk '/Non-2xx/ {print $NF}' "$work/wrk-$1.txt")"
    echo "$requests $(( ${errors:-0} + ${non2xx:-0} ))" > "$work/result-$1"
}

failed=0
access_log="$KF_FLEET_DIR/nginx/logs/access.log"
log_mark() { wc -l < "$access_log"; }
# The requests nginx logged after line $1 that it sent to more than one replica (a retry).
retried_since() { awk -v from="$1" 'NR > from && /upstream=[^ ]+, /' "$access_log" | wc -l; }
verdict() { # NAME LABEL [LOG_MARK]: prints the phase's line; a failure marks the run failed
    local requests failures retried=""
    read -r requests failures < "$work/result-$1"
    if [ -n "${3:-}" ]; then retried="   retried on another replica $(retried_since "$3")"; fi
    printf '%-40s requests %6s   failed %s%s   %s\n' "$2" "$requests" "$failures" "$retried" "$([ "$failures" = 0 ] && echo ok || echo FAILED)"
    [ "$failures" = 0 ] || { failed=1; grep -E "Socket errors|Non-2xx" "$work/wrk-$1.txt" || true; }
}

replica_pid() { status | awk -v n="$1" '$1 == "replica" && $2 == n {print $3}'; }
# Waits (bounded) until nginx's log, after line $2, shows replica $1 answering a request: nginx
# leaves a replica out for fail_timeout after it failed, so a replica that answers /health again
# may not be taking traffic yet, and restarting the next one then would leave none.
await_rejoined() {
    local address
    address="$(replica_address "$1")"
    for _ in $(seq 1 300); do
        if awk -v from="$2" -v tail="upstream=$address upstream_status=200" 'NR > from && index($0, tail)' "$access_log" |
            grep -q .; then return 0; fi
        sleep 0.1
    done
    echo "nginx did not send replica $1 requests again" >&2
    return 1
}
replica_address() { status | awk -v n="$1" '$1 == "replica" && $2 == n {print $4}'; }
# Waits (bounded) until replica NAME runs with a PID other than OLD and answers /health.
await_restart() {
    local pid
    for _ in $(seq 1 300); do
        pid="$(replica_pid "$1")"
        if [ -n "$pid" ] && [ "$pid" != "-" ] && [ "$pid" != "$2" ] &&
            curl -sf -o /dev/null "http://$(replica_address "$1")/health"; then return 0; fi
        sleep 0.1
    done
    echo "replica $1 did not come back" >&2
    return 1
}

echo "== 1. warm-up: 60 sources × 3 sizes, each source's sizes one after another =="
if ! /usr/bin/python3 scripts/lib/fleet_tools.py warm "${front%/}" "$work/warm.txt"; then
    tail -n 5 "$KF_FLEET_DIR/nginx/logs/error.log" "$KF_FLEET_DIR"/r*/kf.log
    echo "check-fleet: FAILED (the fleet does not answer; the fault phases would say nothing)"
    exit 1
fi
fetches="$(curl -sf "http://$origin/__counts")"
/usr/bin/python3 - "$fetches" <<'PY' || failed=1
import json, sys
counts = json.loads(sys.argv[1])
sources = len(counts)
total = sum(counts.values())
# The first size of a source fetches it, the second fetches it again and keeps the original, the
# third is made from the kept copy: two fetches, all on the replica nginx sends the source to.
more = {path: n for path, n in counts.items() if n != 2}
print(f"{'origin fetches after warm-up':<44} sources {sources}   fetches {total}   "
      f"{'ok' if sources == 60 and not more else 'FAILED ' + str(more)}")
sys.exit(0 if sources == 60 and not more else 1)
PY

echo "== 2. SIGKILL of a replica mid-load =="
victim="$(replica_pid r1)"
mark="$(log_mark)"
load kill "$work/kill.txt" "$seconds" &
loader=$!
sleep "$(echo "$seconds / 3" | bc -l)"
kill -KILL "$victim"
wait "$loader"
await_restart r1 "$victim"
verdict kill "r1 (pid $victim) killed with SIGKILL" "$mark"

echo "== 3. every replica restarted in turn with SIGTERM =="
# Long enough to cover three drains, restarts and returns to nginx's rotation (a return needs
# requests to arrive).
mark="$(log_mark)"
load rolling "$work/rolling.txt" "$((seconds * 3 > 30 ? seconds * 3 : 30))" &
loader=$!
for name in r1 r2 r3; do
    old="$(replica_pid "$name")"
    kill -TERM "$old"
    await_restart "$name" "$old"
    await_rejoined "$name" "$(log_mark)"
done
wait "$loader"
verdict rolling "r1, r2, r3 restarted in turn (SIGTERM)" "$mark"

echo "== 4. a replica's cache folder deleted, then the replica restarted =="
mark="$(log_mark)"
load lost "$work/lost.txt" "$seconds" &
loader=$!
sleep "$(echo "$seconds / 3" | bc -l)"
# Moved away in one step, then deleted: a plain rm races the replica's own writes into it.
mv "$KF_FLEET_DIR/r2/cache" "$KF_FLEET_DIR/r2/cache.lost"
rm -rf "$KF_FLEET_DIR/r2/cache.lost"
old="$(replica_pid r2)"
kill -TERM "$old"
await_restart r2 "$old"
wait "$loader"
verdict lost "r2's cache folder deleted, r2 restarted" "$mark"

echo "== 5. hit ratios and what a request costs (CPU) =="
# nginx's worker processes and the replicas' kf processes, for /proc/PID/stat.
nginx_pids() { pgrep -P "$(cat "$KF_FLEET_DIR/nginx/nginx.pid")" || true; }
replica_pids() { status | awk '$1 == "replica" {print $3}'; }
# cost NAME PATHFILE BASE: CPU ms per request of nginx and of the replicas over one wrk run.
cost() {
    local n0 r0 n1 r1 requests
    n0="$(cpu_ticks $(nginx_pids))"; r0="$(cpu_ticks $(replica_pids))"
    load "$1" "$2" "$seconds" "$3"
    n1="$(cpu_ticks $(nginx_pids))"; r1="$(cpu_ticks $(replica_pids))"
    read -r requests _ < "$work/result-$1"
    /usr/bin/python3 -c "
import sys
name, n, r, requests, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
ms = lambda t: 1000 * t / hz / max(1, requests)
print(f'{name:<44} requests {requests:>6}   nginx {ms(n):6.2f} ms/request   replicas {ms(r):6.2f} ms/request')
" "$1" "$((n1 - n0))" "$((r1 - r0))" "$requests" "$(getconf CLK_TCK)"
    verdict "$1" "  (its answers)"
}
cost "uncached (rendered by a replica)" "$work/capacity.txt" "${front%/}"
# The same URLs straight at the replica that rendered each (its memory or disk), bypassing nginx.
/usr/bin/python3 scripts/lib/fleet_tools.py served-by "$KF_FLEET_DIR/nginx/logs/access.log" "$work/capacity.txt" "$(replica_address r3)" > "$work/r3.txt"
cost "cached at the replica (r3, no nginx)" "$work/r3.txt" "http://$(replica_address r3)"
/usr/bin/python3 scripts/lib/fleet_tools.py served-by "$KF_FLEET_DIR/nginx/logs/access.log" "$work/capacity.txt" - > "$work/answered.txt"
cost "cached at nginx" "$work/answered.txt" "${front%/}"

# Hit ratios: nginx's cache over every request it logged; the replicas' over the renditions they
# answered since their last start (their counters start again with the process).
/usr/bin/python3 scripts/lib/fleet_tools.py ratios "$KF_FLEET_DIR/nginx/logs/access.log" $(status | awk '$1 == "replica" {print $4}')

if [ "$failed" != 0 ]; then
    echo "check-fleet: FAILED"
    exit 1
fi
echo "check-fleet: passed"
