#!/usr/bin/env bash
# Proves the runtime stage of deploy/container/Dockerfile without a Docker engine: builds that
# stage's root filesystem with Debian's debootstrap (the minbase variant, which is what Debian's
# slim images are made of) and the packages its `apt-get install` names, read from the Dockerfile;
# runs its other RUN lines in it; copies in the kf that scripts/install.sh builds, where its COPY
# puts it; then starts its ENTRYPOINT as its USER with its ENV, in namespaces of its own (network,
# mount, PID, UTS, IPC) and chrooted into that tree, listening on 0.0.0.0:8080 as in a container.
# From there it must answer a signed request for an image of each format (JPEG, PNG, GIF, WebP,
# AVIF, HEIC, JPEG XL, and a JPEG with an Adobe RGB profile for lcms2) from an origin on this
# machine, pass its HEALTHCHECK, resolve every library kf opens at run time (the names in
# Sources/), and drain on its STOPSIGNAL: /health 503 at once, images still served, exit 0.
# A package missing from the list fails one of these.
#
#   sudo bash scripts/check-container.sh
#
# Needs root (debootstrap, namespaces, chroot), debootstrap, iproute2, python3 and curl (installed
# when missing). The tree is made once per package list and kept in ~/.cache/kf-container
# (KF_CONTAINER_CACHE); each run works on an overlay over it, so the kept tree never changes.
# KF_CONTAINER_DOCKERFILE checks another Dockerfile (a copy with a package left out must fail).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
dockerfile="${KF_CONTAINER_DOCKERFILE:-deploy/container/Dockerfile}"
cache="${KF_CONTAINER_CACHE:-$HOME/.cache/kf-container}"
started=$(date +%s.%N)
elapsed() { printf '%.1f s' "$(echo "$(date +%s.%N) - $started" | bc)"; }
fail() { echo "check-container: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, namespaces and chroot)"
bash scripts/install-deps.sh debootstrap iproute2 python3 curl bc >/dev/null

# The runtime stage, as bash variables: base, packages, runs, copies, environment, user, ports,
# healthcheck, stop_signal, entrypoint, command.
stage="$(python3 scripts/lib/dockerfile_stage.py "$dockerfile")" || fail "could not read $dockerfile"
eval "$stage"
[[ "$base" =~ ^debian:([a-z]+)-slim$ ]] || fail "the runtime stage is $base; this check builds debian:SUITE-slim only"
suite="${BASH_REMATCH[1]}"
[ ${#packages[@]} -gt 0 ] || fail "no apt-get install in the runtime stage of $dockerfile"
echo "check-container: runtime stage $base, packages: ${packages[*]}"

# The root filesystem, made once per suite and package list.
key="$(printf '%s\n' "$suite" "${packages[@]}" | sort | sha256sum | cut -c1-16)"
tree="$cache/rootfs-$suite-$key"
if [ ! -x "$tree/bin/sh" ]; then
    echo "check-container: debootstrap --variant=minbase $suite (first run for this package list)"
    mkdir -p "$cache"
    rm -rf "$tree.partial"
    debootstrap_start=$(date +%s)
    # Downloaded packages are kept too, so a changed list downloads only what is new.
    mkdir -p "$cache/debs"
    if ! debootstrap --variant=minbase --cache-dir="$(realpath "$cache/debs")" \
        --include="$(IFS=,; echo "${packages[*]}")" "$suite" "$tree.partial" \
        >"$cache/debootstrap.log" 2>&1; then
        tail -n 20 "$cache/debootstrap.log" >&2
        fail "debootstrap failed (log: $cache/debootstrap.log)"
    fi
    # What the Dockerfile's RUN removes after installing, and the downloaded packages.
    rm -rf "$tree.partial"/var/lib/apt/lists/* "$tree.partial"/var/cache/apt/archives/*.deb
    mv "$tree.partial" "$tree"
    echo "check-container: root filesystem made in $(( $(date +%s) - debootstrap_start )) s: $(du -sh "$tree" | cut -f1)"
else
    echo "check-container: root filesystem from $tree"
fi

work="$(mktemp -d /tmp/kf-container.XXXXXX)"
octet=$(( $$ % 200 + 20 ))
ns="kf-container-$$"
host_ip="10.79.$octet.1" container_ip="10.79.$octet.2"
origin_pid="" container_pid=""
cleanup() {
    if [ -n "$container_pid" ]; then kill -KILL "$container_pid" 2>/dev/null || true; wait "$container_pid" 2>/dev/null || true; fi
    if [ -n "$origin_pid" ]; then kill "$origin_pid" 2>/dev/null || true; wait "$origin_pid" 2>/dev/null || true; fi
    ip netns del "$ns" 2>/dev/null || true
    umount "$work/root" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# kf, as scripts/install.sh builds and strips it.
echo "check-container: building kf with scripts/install.sh"
install_start=$(date +%s)
if ! bash scripts/install.sh "$work/prefix" >"$work/install.log" 2>&1; then
    tail -n 30 "$work/install.log" >&2
    fail "scripts/install.sh failed"
fi
echo "check-container: scripts/install.sh took $(( $(date +%s) - install_start )) s"
kf="$work/prefix/bin/kf"

# The image's tree: an overlay on the kept one, then the stage's COPY and RUN lines.
mkdir -p "$work/upper" "$work/overlay-work" "$work/root"
mount -t overlay overlay -o "lowerdir=$tree,upperdir=$work/upper,workdir=$work/overlay-work" "$work/root"
root="$work/root"
kf_path=""
for copy in "${copies[@]}"; do
    source_path="${copy%%=*}" destination="${copy#*=}"
    [[ "$source_path" == */bin/kf ]] || fail "COPY $source_path: this check knows only the kf that install.sh builds"
    kf_path="$destination"
    mkdir -p "$root$(dirname "$destination")"
    install -m 0755 "$kf" "$root$destination"
done
[ -n "$kf_path" ] || fail "the runtime stage copies no kf"
for run in "${runs[@]}"; do
    chroot "$root" /bin/sh -c "$run" || fail "RUN $run"
done

# The binary's own libraries resolve in the tree (else kf could not even start).
missing="$(chroot "$root" ldd "$kf_path" | grep 'not found' || true)"
[ -z "$missing" ] || fail "$kf_path needs what the tree lacks: $missing"

# The sources, made by kf on this machine (HEIC from Samples/: kf reads HEIC but does not write it).
origin="$work/origin"
mkdir -p "$origin"
cp Samples/kingfisher.jpg "$origin/photo.jpg"
cp Samples/sample.heic "$origin/photo.heic"
cp Tests/KingfisherTests/Fixtures/color/adobe-rgb.jpg "$origin/adobe-rgb.jpg"
for extension in png gif webp avif jxl; do
    "$kf" convert Samples/kingfisher.jpg "$origin/photo.$extension" >/dev/null || fail "kf convert to $extension"
done

# The network: a veth pair between this machine and the container's namespace.
ip netns add "$ns"
ip link add "kfc-h$octet" type veth peer name eth0 netns "$ns"
ip addr add "$host_ip/30" dev "kfc-h$octet"
ip link set "kfc-h$octet" up
ip netns exec "$ns" ip addr add "$container_ip/30" dev eth0
ip netns exec "$ns" ip link set eth0 up
ip netns exec "$ns" ip link set lo up

origin_port=8000
python3 -m http.server "$origin_port" --bind "$host_ip" --directory "$origin" >"$work/origin.log" 2>&1 &
origin_pid=$!
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://$host_ip:$origin_port/photo.jpg" && break; sleep 0.1; done

# The container's process: the stage's ENV over Docker's default PATH, its USER, its ENTRYPOINT
# and CMD, and what an operator adds with `docker run -e` and after the image's name.
uid_gid="$(awk -F: -v u="$user" '$1 == u { print $3 ":" $4 }' "$root/etc/passwd")"
[ -n "$uid_gid" ] || fail "USER $user is not in the tree's /etc/passwd"
home="$(awk -F: -v u="$user" '$1 == u { print $6 }' "$root/etc/passwd")"
port="${ports[0]:-8080}"
serve_key="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
container_env=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOSTNAME=kf-container "HOME=$home"
               "${environment[@]}" "KF_SERVE_KEY=$serve_key" "KF_SERVE_ALLOW_HOSTS=$host_ip")
operator_args=(--allow-address "$host_ip")
cat >"$work/start.sh" <<'EOF'
# Inside the new mount and PID namespaces, as their process 1: /proc, /dev and /tmp as Docker
# gives them, then the entrypoint as the stage's user, which becomes process 1 itself.
set -e
root="$1" uid_gid="$2"; shift 2
mount -t proc proc "$root/proc"
mount -t tmpfs -o mode=755,nosuid tmpfs "$root/dev"
for device in null zero full random urandom tty; do
    touch "$root/dev/$device"
    mount --bind "/dev/$device" "$root/dev/$device"
done
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/tmp"
hostname kf-container
exec chroot --userspec="$uid_gid" --groups="${uid_gid#*:}" "$root" env -i "$@"
EOF
ip netns exec "$ns" unshare --mount --pid --uts --ipc --fork --kill-child \
    bash "$work/start.sh" "$root" "$uid_gid" "${container_env[@]}" "${entrypoint[@]}" "${command[@]}" "${operator_args[@]}" \
    >"$work/kf.log" 2>&1 &
container_pid=$!
base_url="http://$container_ip:$port"
for _ in $(seq 1 200); do
    curl -sf -o /dev/null "$base_url/health" && break
    kill -0 "$container_pid" 2>/dev/null || { cat "$work/kf.log" >&2; fail "kf serve exited at start"; }
    sleep 0.1
done
curl -sf -o /dev/null "$base_url/health" || { cat "$work/kf.log" >&2; fail "kf serve did not answer $base_url/health"; }
echo "check-container: kf serve answers $base_url/health from the container ($(elapsed))"
# `ip netns exec` becomes unshare, whose one child is the container's process 1: kf.
kf_host_pid="$(pgrep -P "$container_pid" | head -n 1)"
echo "check-container: container process 1: uid $(stat -c %u "/proc/$kf_host_pid"), $(tr '\0' ' ' <"/proc/$kf_host_pid/cmdline")"

# The stage's HEALTHCHECK, run in the container's network namespace and tree as its user.
if [ -n "$healthcheck" ]; then
    ip netns exec "$ns" chroot --userspec="$uid_gid" --groups="${uid_gid#*:}" "$root" \
        env -i "${container_env[@]}" /bin/sh -c "$healthcheck" || fail "HEALTHCHECK failed: $healthcheck"
    echo "check-container: HEALTHCHECK passes"
fi

# One signed request per format: SOURCE-FILE OUTPUT-FORMAT CONTENT-TYPE FORMAT-NAME-IN-KF-INFO.
requests=(
    "photo.jpg jpeg image/jpeg JPEG"
    "photo.png png image/png PNG"
    "photo.gif gif image/gif GIF"
    "photo.webp webp image/webp WebP"
    "photo.avif avif image/avif AVIF"
    "photo.heic png image/png PNG"
    "photo.jxl jxl image/jxl JXL"
    "adobe-rgb.jpg jpeg image/jpeg JPEG"
)
failures=0
for request in "${requests[@]}"; do
    read -r file format type name <<<"$request"
    path="$("$kf" serve sign --key "$serve_key" "http://$host_ip:$origin_port/$file" \
        --processor 'downsample(160x160)' --format "$format")"
    answer="$work/answer-$file.$format"
    status="$(curl -s -o "$answer" -w '%{http_code} %{content_type}' "$base_url$path")"
    decoded="$("$kf" info "$answer" 2>/dev/null | awk -F': *' '$1 == "format" || $1 == "size" { printf "%s ", $2 }' || true)"
    if [ "$status" = "200 $type" ] && [[ "$decoded" == "$name "* ]]; then
        echo "check-container: $file as $format: $status, $(stat -c %s "$answer") bytes, $decoded"
    else
        echo "check-container: $file as $format: FAILED: $status $(head -c 200 "$answer" 2>/dev/null | tr -cd '[:print:]')" >&2
        failures=$((failures + 1))
    fi
done
[ "$failures" -eq 0 ] || { sed 's/^/kf: /' "$work/kf.log" | tail -n 20 >&2; fail "$failures of ${#requests[@]} formats"; }

# Every library kf opens by name at run time (the names in Sources/) resolves in the tree, with
# everything it needs: libcurl and lcms2 included, which the requests above may not open.
libraries_checked=0
sonames="$(grep -rhoE 'DynamicLibrary\(opening: \["[^"]+"|dlopen\("[^"]+"' Sources | grep -oE 'lib[^"]+' | sort -u)"
for soname in $sonames; do
    library="$(chroot "$root" /sbin/ldconfig -p | awk -v n="$soname" '$1 == n && !found { print $NF; found = 1 }')"
    [ -n "$library" ] || fail "kf opens $soname, which no package in the list provides"
    missing="$(chroot "$root" ldd "$library" | grep 'not found' || true)"
    [ -z "$missing" ] || fail "$soname needs what the tree lacks: $missing"
    libraries_checked=$((libraries_checked + 1))
done
echo "check-container: the $libraries_checked libraries kf opens by name resolve in the tree: $(echo $sonames)"

# The STOPSIGNAL drains: /health fails at once, an image is still served, then kf exits 0.
kill -s "${stop_signal#SIG}" "$kf_host_pid"
for _ in $(seq 1 30); do
    health_status="$(curl -s -o /dev/null -w '%{http_code}' "$base_url/health")"
    [ "$health_status" = 200 ] || break
    sleep 0.1
done
[ "$health_status" = 503 ] || fail "after $stop_signal /health answered $health_status, not 503"
image_status="$(curl -s -o /dev/null -w '%{http_code}' "$base_url$path")"
[ "$image_status" = 200 ] || fail "during the drain an image request answered $image_status"
exit_status=0
wait "$container_pid" || exit_status=$?
container_pid=""
[ "$exit_status" -eq 0 ] || { tail -n 20 "$work/kf.log" >&2; fail "kf serve exited with $exit_status after $stop_signal"; }
echo "check-container: $stop_signal: /health 503 and images still served while draining, then exit 0"
echo "check-container: passed (${#requests[@]} formats, $(elapsed))"
