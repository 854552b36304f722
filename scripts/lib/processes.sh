# Sourced by the scripts that start servers and measure them:
#   free_port          a free TCP port on 127.0.0.1
#   cpu_ticks PID...   CPU time (user + system, fields 14 and 15 of /proc/PID/stat) summed over
#                      the processes, in clock ticks
#   pss_kb PID...      proportional set size (Pss of /proc/PID/smaps_rollup) summed over the
#                      processes and their children, in kB: pages that forked workers share are
#                      counted once, split among them, unlike a sum of their RSS
#   sample_peak_pss OUT PID...   in the background, every 0.2 s until killed: pss_kb PID...,
#                      keeping the largest sum seen in the file OUT

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

cpu_ticks() {
    local total=0 pid
    for pid in "$@"; do
        total=$((total + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}

pss_kb() {
    local total=0 pid
    for pid in $(for root in "$@"; do echo "$root"; pgrep -P "$root" || true; done | sort -u); do
        total=$((total + $(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup" 2>/dev/null || echo 0)))
    done
    echo "$total"
}

sample_peak_pss() {
    local out="$1" peak=0 now
    shift
    echo 0 > "$out"
    while true; do
        now="$(pss_kb "$@")"
        if [ "$now" -gt "$peak" ]; then peak="$now"; echo "$peak" > "$out"; fi
        sleep 0.2
    done
}
