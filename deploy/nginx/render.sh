#!/usr/bin/env bash
# Renders this folder's nginx configuration into a self-contained nginx prefix folder, for a
# private nginx (`nginx -p OUT -c OUT/nginx.conf -e OUT/logs/error.log`):
#
#   deploy/nginx/render.sh OUT --listen ADDRESS:PORT [--upstream ADDRESS:PORT]... [--include FILE]...
#
# OUT/kf/ gets kf-maps.conf as it is, kf-fleet.conf with only its listen address, cache folder
# and access log replaced (by OUT's), and a kf-upstreams.conf listing the --upstream replicas
# (the example's max_fails/fail_timeout). OUT/nginx.conf is a minimal main configuration (pid,
# error log, temporary folders under OUT) whose http {} includes both, then each --include FILE
# (copied to OUT/kf/). Used by scripts/fleet.sh and scripts/check-nginx.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { echo "usage: $0 OUT --listen ADDRESS:PORT [--upstream ADDRESS:PORT]... [--include FILE]..." >&2; exit 2; }

[ $# -ge 1 ] || usage
out="$1"; shift
listen="" upstreams=() includes=()
while [ $# -gt 0 ]; do
    case "$1" in
        --listen) [ $# -ge 2 ] || usage; listen="$2"; shift 2 ;;
        --upstream) [ $# -ge 2 ] || usage; upstreams+=("$2"); shift 2 ;;
        --include) [ $# -ge 2 ] || usage; includes+=("$2"); shift 2 ;;
        *) usage ;;
    esac
done
[ -n "$listen" ] || usage
[ ${#upstreams[@]} -gt 0 ] || { echo "$0: at least one --upstream is needed" >&2; exit 2; }

mkdir -p "$out/kf" "$out/logs" "$out/tmp"
out="$(cd "$out" && pwd)"
cp "$here/kf-maps.conf" "$out/kf/kf-maps.conf"

# The three deployment-specific values of kf-fleet.conf, replaced by exact match; a value the
# file no longer holds is an error, so this script and the file cannot drift apart unnoticed.
fleet="$(cat "$here/kf-fleet.conf")"
replace() {
    local from="$1" to="$2"
    if [[ "$fleet" != *"$from"* ]]; then
        echo "$0: kf-fleet.conf no longer holds '$from'" >&2; exit 1
    fi
    fleet="${fleet//"$from"/"$to"}"
}
replace "    listen 80;" "    listen $listen;"
replace "proxy_cache_path /var/cache/nginx/kf " "proxy_cache_path $out/cache "
replace "access_log /var/log/nginx/kf-access.log " "access_log $out/logs/access.log "
printf '%s\n' "$fleet" > "$out/kf/kf-fleet.conf"

{
    echo "# Written by deploy/nginx/render.sh: the replicas behind this nginx."
    for upstream in "${upstreams[@]}"; do
        echo "server $upstream max_fails=2 fail_timeout=3s;"
    done
} > "$out/kf/kf-upstreams.conf"

extra=""
for file in "${includes[@]}"; do
    cp "$file" "$out/kf/$(basename "$file")"
    extra+="    include kf/$(basename "$file");"$'\n'
done

cat > "$out/nginx.conf" <<CONF
# Written by deploy/nginx/render.sh for a private nginx in $out.
worker_processes 2;
pid $out/nginx.pid;
error_log $out/logs/error.log warn;
events { worker_connections 1024; }
http {
    client_body_temp_path $out/tmp/body;
    proxy_temp_path $out/tmp/proxy;
    fastcgi_temp_path $out/tmp/fastcgi;
    uwsgi_temp_path $out/tmp/uwsgi;
    scgi_temp_path $out/tmp/scgi;
    include kf/kf-maps.conf;
    include kf/kf-fleet.conf;
$extra}
CONF
# A root nginx runs its workers as an unprivileged user: they must reach the files in OUT (the
# folders nginx creates itself, the cache and the temporary ones, it gives to that user).
chmod -R a+rX "$out"
