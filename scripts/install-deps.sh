#!/usr/bin/env bash
# Installs the Debian packages the build needs (the C libraries' -dev packages and pkg-config;
# libcurl4-openssl-dev because FoundationNetworking, which gives the downloader's hooks their
# URLRequest and HTTPURLResponse types, links libcurl, a static-stdlib build needs -lcurl, and
# KFCurlLoader, which loads libcurl for `kf` on first use, includes its headers; libstdc++-12-dev
# because kf's release link takes libstdc++.a; libavif-dev, libheif-dev, libjxl-dev and liblcms2-dev
# for their headers, the libraries themselves being opened on first use),
# plus any extra package names given as arguments. Installs only what is missing, so it is cheap
# to run again.
set -euo pipefail

packages=(pkg-config libjpeg62-turbo-dev libpng-dev libdeflate-dev libgif-dev libwebp-dev libcurl4-openssl-dev libstdc++-12-dev
          libavif-dev libheif-dev libjxl-dev liblcms2-dev "$@")
missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
    echo "Installing: ${missing[*]}"
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
    if [ -x /opt/swift/usr/bin/swift ]; then
        echo "swift is at /opt/swift/usr/bin: add it to PATH" >&2
    else
        echo "swift not found: this project needs Swift 6 (swift.org)" >&2
    fi
    exit 1
fi
