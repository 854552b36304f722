# Sourced by the benchmark scripts: serves "$work/www" from a private nginx on a free 127.0.0.1
# port. Sets `port` and `nginx_pid`; `stop_local_nginx` stops it (call it from the EXIT trap).
# Waits (bounded) until nginx answers for img-000.jpg, and writes the 1000 URLs
# img-000.jpg … img-999.jpg to "$work/urls.txt".

start_local_nginx() {
    mkdir -p "$work/logs" "$work/tmp"
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
    types { image/jpeg jpg; image/png png; image/webp webp; image/avif avif; }
    server {
        listen 127.0.0.1:$port;
        root $work/www;
    }
}
CONF
    # nginx's worker runs as an unprivileged user when started by root: let it read the files.
    chmod -R a+rX "$work"
    local nginx_bin
    nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
    "$nginx_bin" -p "$work" -c "$work/nginx.conf" &
    nginx_pid=$!
    for _ in $(seq 1 100); do
        if curl -sf -o /dev/null "http://127.0.0.1:$port/img-000.jpg"; then break; fi
        sleep 0.05
    done
    curl -sf -o /dev/null "http://127.0.0.1:$port/img-000.jpg" || {
        echo "nginx did not start" >&2; cat "$work/logs/error.log" >&2; exit 1; }
    for i in $(seq -w 0 999); do echo "http://127.0.0.1:$port/img-$i.jpg"; done > "$work/urls.txt"
}

stop_local_nginx() {
    if [ -n "${nginx_pid:-}" ] && kill -0 "$nginx_pid" 2>/dev/null; then
        kill "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
}
