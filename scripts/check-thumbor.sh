#!/usr/bin/env bash
# Conformance of `kf serve`'s thumbor and imgproxy grammars, in one run (about 2 minutes after
# the build):
#   1. thumbor: thumbor 7 (from PyPI, PIL engine, the same security key) is the oracle. Signed
#      URLs from libthumbor's CryptoURL — every geometry form on seven images (landscape
#      1600×1067, portrait 1067×1600, square, panorama 2400×800, a small 400×300, a PNG with alpha,
#      an animated GIF) and the common filters on four — are fetched from thumbor and from
#      `kf serve --thumbor /`; each pair must agree on status, format, pixel size and frame count,
#      and on the pixels (PSNR >= 30 dB on white) wherever the result is deterministic
#      (Benchmarks/serve/thumbor_conformance.py says which are not, and why).
#   2. imgproxy: no imgproxy here, so URLs from the `imgproxy` PyPI client (klen) are fetched from
#      `kf serve --imgproxy /` and held to imgproxy's size rules for rs:fit, rs:fill and rs:auto
#      (Benchmarks/serve/imgproxy_conformance.py).
#   3. the published thumbor and imgproxy signature vectors, each against a kf serve holding the
#      vector's key (Benchmarks/serve/signature_vectors.py).
# Origin images come from a private nginx (scripts/local-nginx.sh). Prints one line per failure
# and a summary line per part; exits 1 when any part failed.
#
#   scripts/check-thumbor.sh
#   KF_BIN=path/to/kf scripts/check-thumbor.sh     (that binary instead of a fresh release build)
#   CHECK_SAVE=DIR scripts/check-thumbor.sh        (keep both bodies of each failing thumbor URL)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh nginx-light curl python3-venv
started=$SECONDS

source scripts/lib/thumbor.sh
begin_peer_run
python="$venv/bin/python"

mkdir -p "$work/www"
"$python" Benchmarks/serve/serve_images.py conformance "$work/www" > "$work/images.txt"
ln -s landscape.jpg "$work/www/img-000.jpg"  # the file local-nginx.sh waits for
start_local_nginx
origin="127.0.0.1:$port"
mapfile -t images < "$work/images.txt"

# libthumbor's and klen/imgproxy's own test keys, so their vectors also hold on these servers.
thumbor_key="my-security-key"
imgproxy_key="aa396160c50ea766910eab53"
imgproxy_salt="b3fb8f215827bda5d0e7313d"
start_thumbor 2 "SECURITY_KEY = '$thumbor_key'" "ALLOW_UNSAFE_URL = False"
common=(--allow-host 127.0.0.1 --allow-address 127.0.0.1 --log-level error)

status=0
echo "== thumbor: kf serve --thumbor / against thumbor $("$python" -c 'import thumbor; print(thumbor.__version__)') =="
start_kf --thumbor / --thumbor-key "$thumbor_key" --cache-dir "$work/kf-thumbor-cache" "${common[@]}"
save=()
if [ -n "${CHECK_SAVE:-}" ]; then save=(--save "$CHECK_SAVE"); fi
"$python" Benchmarks/serve/thumbor_conformance.py --thumbor "http://127.0.0.1:$thumbor_port" \
    --kf "http://127.0.0.1:$kf_port" --key "$thumbor_key" --origin "$origin" "${save[@]}" "${images[@]}" || status=1
stop_started

echo "== imgproxy: kf serve --imgproxy / against imgproxy's size rules =="
start_kf --imgproxy / --imgproxy-key "$imgproxy_key" --imgproxy-salt "$imgproxy_salt" \
    --cache-dir "$work/kf-imgproxy-cache" "${common[@]}"
"$python" Benchmarks/serve/imgproxy_conformance.py --kf "http://127.0.0.1:$kf_port" --key "$imgproxy_key" \
    --salt "$imgproxy_salt" --origin "$origin" --www "$work/www" "${images[@]}" || status=1
stop_started

echo "== published signature vectors =="
"$python" Benchmarks/serve/signature_vectors.py "$kf" || status=1

echo "check-thumbor: $((SECONDS - started)) s, $([ "$status" -eq 0 ] && echo passed || echo FAILED)"
exit "$status"
