#!/usr/bin/env bash
# Regenerates Sources/kf/Linking/startup-order.txt, the order in which the release link of `kf`
# lays out functions (Package.swift, Sources/kf/Linking/kf-release.cfg): every function of the kf
# binary that `kf --help` and `kf process` (a 24 MP JPEG to a 200 px JPEG thumbnail) execute, as
# callgrind records them, so that the code they run shares as few pages as possible. The kernel
# maps a binary's pages 64 KB at a time, so scattered code costs resident memory at every start.
# A stale list only costs memory, never correctness: run this after large changes to the start-up
# or processing code, then rebuild.
#
#   scripts/kf-link-order.sh              (builds kf in release mode first; about a minute after that)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bash scripts/install-deps.sh valgrind python3-pil binutils
swift build -c release --static-swift-stdlib --product kf
# The 24 MP photo of the benchmarks (Benchmarks/bench_codecs.py), made alone when missing.
if [ ! -f .build-bench-data/photo24.jpg ]; then
    mkdir -p .build-bench-data
    /usr/bin/python3 -c 'import sys; sys.path.insert(0, "Benchmarks"); import bench_codecs
bench_codecs.photo(6000, 4000, 0).save(".build-bench-data/photo24.jpg", quality=85)'
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the binary's debug information; the symbol table is all it needs.
objcopy --strip-debug .build/release/kf "$work/kf"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/help.out" "$work/kf" --help >/dev/null 2>"$work/log"
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/process.out" "$work/kf" process \
    .build-bench-data/photo24.jpg "$work/thumb.jpg" --processor 'downsample(200x200)' 2>>"$work/log"

/usr/bin/python3 - "$work/help.out" "$work/process.out" >Sources/kf/Linking/startup-order.txt <<'PY'
import re, sys
# Callgrind names an object or a function once, in an ob=/cob= or fn=/cfn= line ("fn=(7) name"),
# and by its id alone after that; fn= lines start the functions that ran, in the current ob=.
seen, order = set(), []
for path in sys.argv[1:]:
    objects, functions, current = {}, {}, ""
    for line in open(path, errors="replace"):
        match = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not match:
            continue
        kind, ident, name = match.groups()
        table = objects if kind.endswith("ob") else functions
        if name is not None:
            table[ident] = name
        if kind == "ob":
            current = objects.get(ident, "")
        if kind != "fn":
            continue
        symbol = functions.get(ident, "")
        if current.endswith("/kf") and symbol and not symbol.startswith("0x") and symbol not in seen:
            seen.add(symbol)
            order.append(symbol)
print("\n".join(order))
PY
wc -l Sources/kf/Linking/startup-order.txt
