#!/usr/bin/env bash
# Checks deploy/nginx (the nginx recipe for a fleet of kf serve replicas) in a few seconds:
#  1. renders it with dummy replica addresses and runs `nginx -t` on it;
#  2. starts a private nginx with the rendered fleet front plus two stand-in replicas that answer
#     "$kf_source $kf_accept_class" (with Cache-Control, as kf serve answers images), then checks
#     - every path of deploy/nginx/tests/sources.txt against its expected routing key,
#     - every header of deploy/nginx/tests/accept.txt against its expected Accept class,
#     - through the front: MISS then HIT, one cached copy per Accept class whatever the raw
#       header, the class's canonical Accept sent upstream, every size of a source on one replica.
# One line per check, a summary; exit 1 on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$nginx_bin" ] || { echo "check-nginx: nginx not found (bash scripts/install-deps.sh nginx)" >&2; exit 1; }

work="$(mktemp -d)"
chmod 755 "$work"
nginx_pid=""
cleanup() {
    if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
        kill "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

source scripts/lib/processes.sh

failures=0 checks=0
report() { # report OK|FAIL TEXT
    checks=$((checks + 1))
    [ "$1" = OK ] || failures=$((failures + 1))
    printf '%-4s %s\n' "$1" "$2"
}

# 1. The configuration as a deployment would have it, with three dummy replicas.
bash deploy/nginx/render.sh "$work/syntax" --listen 127.0.0.1:8090 \
    --upstream 10.77.0.11:8080 --upstream 10.77.0.12:8080 --upstream 10.77.0.13:8080
if "$nginx_bin" -t -q -p "$work/syntax" -c "$work/syntax/nginx.conf" -e "$work/syntax/logs/error.log" 2>"$work/syntax.err"; then
    report OK "nginx -t: kf-maps.conf + kf-fleet.conf + 3 upstreams"
else
    report FAIL "nginx -t: kf-maps.conf + kf-fleet.conf + 3 upstreams"
    cat "$work/syntax.err" >&2
    exit 1
fi

# 2. The same files live: the front on $front, two stand-in replicas on $replica_a and $replica_b.
front="$(free_port)" replica_a="$(free_port)" replica_b="$(free_port)"
stand_in() {
    cat <<CONF
server {
    listen 127.0.0.1:$1;
    access_log off;
    default_type text/plain;
    location = /health {
        add_header Cache-Control no-cache;
        return 200 "\$kf_source \$kf_accept_class\n";
    }
    location / {
        add_header Cache-Control "public, max-age=60";
        add_header Vary Accept;
        add_header X-Test-Replica $1;
        return 200 "\$kf_source \$kf_accept_class\n";
    }
}
CONF
}
{ stand_in "$replica_a"; stand_in "$replica_b"; } > "$work/stand-ins.conf"
bash deploy/nginx/render.sh "$work/live" --listen "127.0.0.1:$front" \
    --upstream "127.0.0.1:$replica_a" --upstream "127.0.0.1:$replica_b" --include "$work/stand-ins.conf"
sed -i 's/^pid .*/&\ndaemon off;/' "$work/live/nginx.conf"
"$nginx_bin" -p "$work/live" -c "$work/live/nginx.conf" -e "$work/live/logs/error.log" &
nginx_pid=$!
for _ in $(seq 1 100); do
    if curl -sf -o /dev/null "http://127.0.0.1:$front/health"; then break; fi
    sleep 0.05
done
curl -sf -o /dev/null "http://127.0.0.1:$front/health" || {
    echo "check-nginx: nginx did not start" >&2; cat "$work/live/logs/error.log" >&2; exit 1; }

# Routing keys, asked of a stand-in replica directly (no cache in the way).
while read -r path expected; do
    case "$path" in ''|'#'*) continue ;; esac
    got="$(curl -s --path-as-is "http://127.0.0.1:$replica_a$path" | cut -d' ' -f1)"
    if [ "$got" = "$expected" ]; then report OK "$path -> $got"
    else report FAIL "$path -> $got (expected $expected)"; fi
done < deploy/nginx/tests/sources.txt

# Accept classes.
while IFS=$'\t' read -r expected header; do
    case "$expected" in ''|'#'*) continue ;; esac
    if [ "$header" = "-" ]; then accept=(-H "Accept:"); else accept=(-H "Accept: $header"); fi
    got="$(curl -s "${accept[@]}" "http://127.0.0.1:$replica_a/x" | cut -d' ' -f2)"
    if [ "$got" = "$expected" ]; then report OK "Accept: $header -> $got"
    else report FAIL "Accept: $header -> $got (expected $expected)"; fi
done < deploy/nginx/tests/accept.txt

# Through the front: cache status, body and replica of one request.
fetch() { # fetch PATH ACCEPT: prints "STATUS BODY REPLICA"
    curl -s --path-as-is -H "Accept: $2" -D "$work/headers" -o "$work/body" "http://127.0.0.1:$front$1"
    local status replica
    status="$(tr -d '\r' < "$work/headers" | awk -F': ' 'tolower($1) == "x-cache-status" { print $2 }')"
    replica="$(tr -d '\r' < "$work/headers" | awk -F': ' 'tolower($1) == "x-test-replica" { print $2 }')"
    echo "${status:-none} $(cat "$work/body") ${replica:-none}"
}
expect_front() { # expect_front PATH ACCEPT STATUS BODY
    local got
    got="$(fetch "$1" "$2")"
    read -r status body1 body2 _ <<< "$got"
    if [ "$status $body1 $body2" = "$3 $4" ]; then report OK "front $1 [$2] -> $3 $4"
    else report FAIL "front $1 [$2] -> $status $body1 $body2 (expected $3 $4)"; fi
}
thumb=/thumbor/unsafe/300x200/img.example.com/photos/cat.jpg
expect_front "$thumb" "image/webp,*/*" MISS "img.example.com/photos/cat.jpg webp"
expect_front "$thumb" "image/webp,*/*" HIT "img.example.com/photos/cat.jpg webp"
expect_front "$thumb" "text/html, image/webp;q=0.9" HIT "img.example.com/photos/cat.jpg webp"
expect_front "$thumb" "image/avif,image/webp,*/*;q=0.8" MISS "img.example.com/photos/cat.jpg avif"
expect_front "$thumb" "IMAGE/AVIF" HIT "img.example.com/photos/cat.jpg avif"
expect_front "$thumb" "*/*" MISS "img.example.com/photos/cat.jpg other"
expect_front "$thumb" "image/png" HIT "img.example.com/photos/cat.jpg other"
expect_front /health "*/*" none "/health other"
expect_front /health "*/*" none "/health other"

# Every size of one source on the same stand-in replica, for several sources.
for source in img.example.com/photos/cat.jpg img.example.com/a.png cdn.example.org/b.jpg h.example.net/c.gif; do
    replicas=""
    for size in 100x100 200x150 fit-in/640x480 0x0:10x10/50x50; do
        got="$(fetch "/thumbor/unsafe/$size/https://$source" "*/*")"
        replicas+="${got##* } "
    done
    # An answer without the stand-in's X-Test-Replica reads "none": that is a failure, not a replica.
    if [ "$(tr ' ' '\n' <<< "$replicas" | sed '/^$/d' | sort -u | wc -l)" = 1 ] && [[ " $replicas" != *" none "* ]]; then
        report OK "front: 4 sizes of $source on one replica (${replicas%% *})"
    else report FAIL "front: 4 sizes of $source on replicas $replicas"; fi
done

echo "check-nginx: $((checks - failures)) of $checks checks passed"
[ "$failures" -eq 0 ]
