#!/usr/bin/env bash
# A fleet of kf serve replicas behind one nginx, on this machine:
#
#   scripts/fleet.sh start N [-- KF_SERVE_ARGS...]   N replicas and nginx; waits until all answer /health
#   scripts/fleet.sh status                          the URL, the reach address, one line per replica
#   scripts/fleet.sh stop                            stops everything and removes the network (idempotent)
#
# Each replica runs in its own network namespace (kf-fleet-rI, at 10.77.0.(10+I):8080, on the host
# bridge kfbr0 at 10.77.0.1/24), so each has its own address as it would on its own machine. Without
# root or `ip` (or with KF_FLEET_NETNS=0) the replicas listen on free 127.0.0.1 ports instead. Each
# runs under a supervisor loop that starts it again when it exits, as systemd's Restart=always
# would, until the fleet stops. nginx (deploy/nginx, rendered by deploy/nginx/render.sh) listens on
# 127.0.0.1:$KF_FLEET_PORT (8090) and routes every size of one source to the same replica.
#
# Replicas run `$KF_BIN serve --instance rI --host ADDRESS --port PORT --cache-dir DIR
# [--thumbor /thumbor] [--imgproxy /imgproxy] KF_SERVE_ARGS...` (KF_BIN: .build/release/kf, built
# if missing); KF_SERVE_KEY, KF_SERVE_ALLOW_HOSTS, THUMBOR_SECURITY_KEY, IMGPROXY_KEY and
# IMGPROXY_SALT pass through the environment. thumbor's URLs are answered at /thumbor when
# THUMBOR_SECURITY_KEY is set or KF_SERVE_ARGS hold --thumbor-key or --insecure-unsigned, and
# imgproxy's at /imgproxy when IMGPROXY_KEY and IMGPROXY_SALT are set or KF_SERVE_ARGS hold
# --imgproxy-key or --insecure-unsigned; KF_SERVE_ARGS may also mount them where they like. State (caches, logs, pid files, nginx) lives in
# $KF_FLEET_DIR (/tmp/kf-fleet). Replicas in namespaces reach this machine at 10.77.0.1 only:
# there is no NAT to other hosts.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
state="${KF_FLEET_DIR:-/tmp/kf-fleet}"
front_port="${KF_FLEET_PORT:-8090}"
bridge=kfbr0
subnet=10.77.0
netns_prefix=kf-fleet-r

usage() {
    echo "usage: $0 start N [-- KF_SERVE_ARGS...] | stop | status" >&2
    exit 2
}

# Whether PID (possibly empty) is a live process.
alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# The content of a pid file, empty when it is missing.
pid_in() { cat "$1" 2>/dev/null || true; }

# Waits up to $2 tenths of a second for every PID in $1 (space-separated) to exit; fails if one lives.
wait_gone() {
    local pids="$1" tenths="$2" pid
    for _ in $(seq 1 "$tenths"); do
        local any=0
        for pid in $pids; do alive "$pid" && any=1; done
        [ "$any" = 0 ] && return 0
        sleep 0.1
    done
    for pid in $pids; do alive "$pid" && return 1; done
    return 0
}

# The replicas of the fleet in $state: lines "NAME ADDRESS PORT".
replicas() { cat "$state/replicas" 2>/dev/null || true; }

# Whether a fleet runs from $state: its nginx or any supervisor is alive.
running() {
    alive "$(pid_in "$state/nginx/nginx.pid")" && return 0
    local name
    while read -r name _; do
        alive "$(pid_in "$state/$name/supervisor.pid")" && return 0
    done < <(replicas)
    return 1
}

# The kf binary: $KF_BIN, else .build/release/kf, built when missing.
kf_binary() {
    if [ -n "${KF_BIN:-}" ]; then
        [ -x "$KF_BIN" ] || { echo "fleet: KF_BIN=$KF_BIN is not an executable" >&2; exit 1; }
        (cd "$(dirname "$KF_BIN")" && echo "$PWD/$(basename "$KF_BIN")")
        return
    fi
    if [ ! -x "$root/.build/release/kf" ]; then
        echo "fleet: building kf (swift build -c release --product kf)" >&2
        (cd "$root" && PATH="$PATH:/opt/swift/usr/bin" swift build -c release --product kf >&2)
    fi
    echo "$root/.build/release/kf"
}

source "$root/scripts/lib/processes.sh"

# The bridge, then one namespace per replica with a veth into the bridge; fails on the first error.
network_up() {
    local count="$1" i ns veth
    ip link add "$bridge" type bridge || return 1
    ip addr add "$subnet.1/24" dev "$bridge" || return 1
    ip link set "$bridge" up || return 1
    for i in $(seq 1 "$count"); do
        ns="$netns_prefix$i" veth="kff-r$i"
        ip netns add "$ns" || return 1
        ip link add "$veth" type veth peer name eth0 netns "$ns" || return 1
        ip link set "$veth" master "$bridge" up || return 1
        ip -n "$ns" link set lo up || return 1
        ip -n "$ns" addr add "$subnet.$((10 + i))/24" dev eth0 || return 1
        ip -n "$ns" link set eth0 up || return 1
        ip -n "$ns" route add default via "$subnet.1" || return 1
    done
}

# Removes the fleet's namespaces (their veth pairs go with them) and the bridge.
network_down() {
    command -v ip >/dev/null 2>&1 || return 0
    local ns
    for ns in $(ip netns list 2>/dev/null | awk -v p="$netns_prefix" 'index($1, p) == 1 { print $1 }'); do
        ip netns del "$ns" 2>/dev/null || true
    done
    for veth in $(ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | grep '^kff-r' || true); do
        ip link del "$veth" 2>/dev/null || true
    done
    if ip link show "$bridge" >/dev/null 2>&1; then ip link del "$bridge" 2>/dev/null || true; fi
}

# Internal: the loop that keeps replica $2 of fleet $1 running (started by `start` under setsid).
supervise() {
    local fleet="$1" name="$2" dir="$1/$2" child="" stopping=0 status restarts=0
    local -a command
    echo "$$" > "$dir/supervisor.pid"
    mapfile -d '' -t command < "$dir/command"
    trap 'stopping=1; if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; fi' TERM INT
    while [ "$stopping" = 0 ] && [ ! -e "$fleet/stopping" ]; do
        "${command[@]}" < /dev/null >> "$dir/kf.log" 2>&1 &
        child=$!
        echo "$child" > "$dir/kf.pid"
        echo "$(date -u +%FT%TZ) started kf serve, pid $child" >> "$dir/supervisor.log"
        # `wait` returns early when a signal is trapped: wait again until the child is gone.
        while :; do
            status=0
            wait "$child" || status=$?
            alive "$child" || break
        done
        echo "$(date -u +%FT%TZ) kf serve (pid $child) exited with status $status" >> "$dir/supervisor.log"
        child=""
        [ "$stopping" = 0 ] && [ ! -e "$fleet/stopping" ] || break
        restarts=$((restarts + 1))
        echo "$restarts" > "$dir/restarts"
        # A short pause, as systemd's RestartSec, so a replica that cannot start does not spin.
        sleep 0.5 & wait $! || true
    done
    rm -f "$dir/supervisor.pid"
}

start() {
    [ $# -ge 1 ] && [[ "$1" =~ ^[1-9][0-9]*$ ]] || usage
    local count="$1"; shift
    if [ $# -gt 0 ]; then [ "$1" = "--" ] || usage; shift; fi
    [ "$count" -le 200 ] || { echo "fleet: at most 200 replicas" >&2; exit 2; }
    if running; then
        echo "fleet: a fleet is already running from $state (scripts/fleet.sh stop first)" >&2
        exit 1
    fi
    [ -d "$state" ] && stop >/dev/null
    local kf; kf="$(kf_binary)"
    local nginx_bin; nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
    [ -x "$nginx_bin" ] || { echo "fleet: nginx not found (bash scripts/install-deps.sh nginx)" >&2; exit 1; }

    mkdir -p "$state"
    chmod 755 "$state"
    rm -f "$state/stopping" "$state/replicas"

    # Namespaces when possible, else loopback ports.
    local mode=loopback reason=""
    if [ "${KF_FLEET_NETNS:-1}" = 0 ]; then reason="KF_FLEET_NETNS=0"
    elif [ "$(id -u)" -ne 0 ]; then reason="not root"
    elif ! command -v ip >/dev/null 2>&1; then reason="no 'ip' command"
    elif ip link show "$bridge" >/dev/null 2>&1; then
        echo "fleet: $bridge already exists: another fleet runs (another KF_FLEET_DIR?); stop it first" >&2
        exit 1
    elif network_up "$count" 2>"$state/network.err"; then mode=netns
    else reason="network setup failed: $(head -1 "$state/network.err")"; network_down
    fi
    local reach=127.0.0.1
    if [ "$mode" = netns ]; then reach="$subnet.1"
    else echo "fleet: no network namespaces ($reason): replicas listen on 127.0.0.1 ports" >&2
    fi

    # Flags only a newer kf serve has are passed when it has them.
    local help; help="$("$kf" serve run --help 2>&1 || true)"
    # thumbor's and imgproxy's grammars, each mounted only when it has a key (or unsigned URLs are
    # allowed): kf serve refuses to start a grammar it cannot check signatures for.
    local -a grammars=()
    local given=" $* "
    if [[ "$given" != *" --thumbor "* ]] && { [ -n "${THUMBOR_SECURITY_KEY:-}" ] || [[ "$given" == *" --thumbor-key "* || "$given" == *" --insecure-unsigned "* ]]; }; then
        grammars+=(--thumbor /thumbor)
    fi
    if [[ "$given" != *" --imgproxy "* ]] && { [ -n "${IMGPROXY_KEY:-}" ] && [ -n "${IMGPROXY_SALT:-}" ] || [[ "$given" == *" --imgproxy-key "* || "$given" == *" --insecure-unsigned "* ]]; }; then
        grammars+=(--imgproxy /imgproxy)
    fi
    local i name address port dir upstreams=()
    for i in $(seq 1 "$count"); do
        name="r$i" dir="$state/r$i"
        if [ "$mode" = netns ]; then address="$subnet.$((10 + i))" port=8080
        else address=127.0.0.1 port="$(free_port)"
        fi
        mkdir -p "$dir/cache"
        rm -f "$dir/kf.pid" "$dir/supervisor.pid" "$dir/restarts"
        # Each start has its own log, so a failure shows this run's lines only.
        : > "$dir/kf.log"; : > "$dir/supervisor.log"
        local -a command=()
        [ "$mode" = netns ] && command+=(ip netns exec "$netns_prefix$i")
        command+=("$kf" serve)
        [[ "$help" == *--instance* ]] && command+=(--instance "$name")
        # nginx's address as the replicas see it: its X-Forwarded-For is then believed in the logs.
        [[ "$help" == *--trusted-proxy* ]] && command+=(--trusted-proxy "$reach")
        command+=(--host "$address" --port "$port" --cache-dir "$dir/cache" "${grammars[@]}" "$@")
        printf '%s\0' "${command[@]}" > "$dir/command"
        echo "$name $address $port" >> "$state/replicas"
        upstreams+=(--upstream "$address:$port")
        setsid bash "$root/scripts/fleet.sh" __supervise "$state" "$name" < /dev/null > /dev/null 2>&1 &
    done
    [[ "$help" == *--instance* ]] || echo "fleet: this kf serve has no --instance: replicas are not named in logs" >&2
    echo "$mode" > "$state/mode"
    echo "$reach" > "$state/reach"
    echo "http://127.0.0.1:$front_port/" > "$state/url"

    rm -rf "$state/nginx/kf"
    bash "$root/deploy/nginx/render.sh" "$state/nginx" --listen "127.0.0.1:$front_port" "${upstreams[@]}"
    if ! "$nginx_bin" -p "$state/nginx" -c "$state/nginx/nginx.conf" -e "$state/nginx/logs/error.log"; then
        echo "fleet: nginx did not start" >&2
        tail -5 "$state/nginx/logs/error.log" >&2 || true
        stop >/dev/null; exit 1
    fi

    # Bounded wait (60 s) until every replica and nginx answer /health; a replica that exits
    # while starting fails the start at once.
    local deadline=$((SECONDS + 60)) pending
    while :; do
        pending=""
        while read -r name address port; do
            if [ -s "$state/$name/restarts" ]; then
                echo "fleet: replica $name exited while starting:" >&2
                tail -5 "$state/$name/kf.log" >&2 || true
                stop >/dev/null; exit 1
            fi
            curl -sf -o /dev/null --max-time 2 "http://$address:$port/health" || pending+=" $name"
        done < <(replicas)
        curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$front_port/health" || pending+=" nginx"
        [ -z "$pending" ] && break
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "fleet: no answer on /health from:$pending after 60 s" >&2
            for name in $pending; do
                if [ "$name" = nginx ]; then tail -5 "$state/nginx/logs/error.log" >&2 || true
                else tail -5 "$state/$name/kf.log" >&2 || true; fi
            done
            stop >/dev/null; exit 1
        fi
        sleep 0.2
    done
    status
}

# The live kf serve PID of replica $1 (waits up to 3 s while its supervisor restarts it); `-` if none.
replica_pid() {
    local pid
    for _ in $(seq 1 30); do
        pid="$(pid_in "$state/$1/kf.pid")"
        if alive "$pid"; then echo "$pid"; return; fi
        alive "$(pid_in "$state/$1/supervisor.pid")" || break
        sleep 0.1
    done
    echo -
}

status() {
    if ! running; then
        echo "fleet: no fleet is running (state: $state)" >&2
        exit 1
    fi
    alive "$(pid_in "$state/nginx/nginx.pid")" || echo "fleet: nginx is not running" >&2
    cat "$state/url"
    echo "reach $(cat "$state/reach")"
    local name address port
    while read -r name address port; do
        echo "replica $name $(replica_pid "$name") $address:$port"
    done < <(replicas)
}

stop() {
    local name pid supervisors="" children=""
    if [ -d "$state" ]; then
        touch "$state/stopping"
        # nginx first, so no request reaches a replica that is stopping.
        pid="$(pid_in "$state/nginx/nginx.pid")"
        if alive "$pid"; then
            kill -QUIT "$pid" 2>/dev/null || true
            wait_gone "$pid" 50 || kill -KILL "$pid" 2>/dev/null || true
        fi
        # One SIGTERM per replica, through its supervisor (a second one would cut kf's drain short);
        # directly when the supervisor is gone.
        while read -r name _; do
            pid="$(pid_in "$state/$name/supervisor.pid")"
            if alive "$pid"; then kill -TERM "$pid" 2>/dev/null || true; supervisors+=" $pid"
            else
                pid="$(pid_in "$state/$name/kf.pid")"
                alive "$pid" && kill -TERM "$pid" 2>/dev/null || true
            fi
            children+=" $(pid_in "$state/$name/kf.pid")"
        done < <(replicas)
        if ! wait_gone "$supervisors $children" 150; then
            for pid in $children $supervisors; do
                alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
            done
            wait_gone "$supervisors $children" 20 || true
        fi
        while read -r name _; do rm -f "$state/$name/kf.pid" "$state/$name/supervisor.pid"; done < <(replicas)
        rm -f "$state/nginx/nginx.pid"
    fi
    network_down
    echo "fleet: stopped (logs and caches stay in $state)"
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) [ $# -eq 1 ] || usage; stop ;;
    status) [ $# -eq 1 ] || usage; status ;;
    __supervise) [ $# -eq 3 ] || usage; supervise "$2" "$3" ;;
    *) usage ;;
esac
