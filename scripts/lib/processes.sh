# Sourced by the scripts that start servers and measure them:
#   free_port          a free TCP port on 127.0.0.1
#   cpu_ticks PID...   CPU time (user + system, fields 14 and 15 of /proc/PID/stat) summed over
#                      the processes, in clock ticks

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

cpu_ticks() {
    local total=0 pid
    for pid in "$@"; do
        total=$((total + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
