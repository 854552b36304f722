#!/usr/bin/env bash
# Builds `kf` in release with the Swift standard library and Foundation linked in, and installs it
# with its man page:
#
#   PREFIX/bin/kf                  stripped of its symbol tables
#   PREFIX/share/man/man1/kf.1     made from kf's own help by swift-argument-parser's
#                                  generate-manual tool (an mdoc page), finished by
#                                  scripts/lib/kf_manual.py (scripts/check-manual.sh checks it)
#
#   bash scripts/install.sh [PREFIX]      (default: /usr/local)
#
# The Swift runtime, Foundation, Dispatch and libstdc++ are linked in. The installed kf still loads
# from the system glibc (libc, libm), libgcc_s, zlib and the libraries of its codecs (libjpeg-turbo,
# libpng, libdeflate, giflib, libwebp), as `ldd PREFIX/bin/kf` lists, and opens libavif, libheif, libjxl,
# liblcms2 and libcurl only when a command needs them. Run scripts/install-deps.sh first on a
# machine that lacks their -dev packages.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

prefix="${1:-/usr/local}"
bin_dir="$prefix/bin"
man_dir="$prefix/share/man/man1"

echo "== building kf (release, static Swift standard library)"
swift build -c release --static-swift-stdlib --product kf
bin_path="$(swift build -c release --static-swift-stdlib --show-bin-path)"
built="$bin_path/kf"

# The man page, made from kf's own help by generate-manual, the tool behind swift-argument-parser's
# generate-manual plugin. The plugin would first build every product of the package again with
# default options, and switching the release build between static and shared standard library
# recompiles all of it (5 minutes each way on 2 cores); run directly on the kf just built, the
# tool costs a 10-second build. Its date is the last commit's, so the page changes only with it.
echo "== generating kf.1"
manual_dir="$(mktemp -d)"
trap 'rm -rf "$manual_dir"' EXIT
swift build -c release --static-swift-stdlib --product generate-manual > "$manual_dir/build.log" 2>&1 \
    || { cat "$manual_dir/build.log" >&2; exit 1; }
date="$(git log -1 --format=%cs 2>/dev/null || date -u +%F)"
"$bin_path/generate-manual" "$built" --date "$date" --authors "The Kingfisher for Linux authors" \
    --output-directory "$manual_dir"
page="$manual_dir/kf.1"
[[ -f "$page" ]] || { echo "install.sh: generate-manual wrote no kf.1" >&2; exit 1; }
# Paragraph breaks for the discussions' blank lines, and the ENVIRONMENT, FILES and SEE ALSO sections.
python3 scripts/lib/kf_manual.py "$page"

echo "== installing into $prefix"
mkdir -p "$bin_dir" "$man_dir"
install -m 0755 "$built" "$bin_dir/kf.new"
size_before="$(stat -c %s "$bin_dir/kf.new")"
strip "$bin_dir/kf.new"
size_after="$(stat -c %s "$bin_dir/kf.new")"
# Renamed into place, so a kf that is running keeps its old file.
mv -f "$bin_dir/kf.new" "$bin_dir/kf"
install -m 0644 "$page" "$man_dir/kf.1"
echo "$bin_dir/kf: $size_before bytes built, $size_after bytes stripped"
echo "$man_dir/kf.1: $(stat -c %s "$man_dir/kf.1") bytes"

echo "== checking"
"$bin_dir/kf" --version
# generate-manual writes mdoc(7): the page's title line is .Dt (man(7) pages have .TH).
grep -q -E '^\.(Dt|TH) ' "$man_dir/kf.1" || { echo "install.sh: $man_dir/kf.1 has no title line" >&2; exit 1; }
if command -v man >/dev/null 2>&1; then
    rendered="$(MANWIDTH=80 MANPAGER=cat man -l "$man_dir/kf.1" 2>/dev/null)" \
        || { echo "install.sh: man -l $man_dir/kf.1 failed" >&2; exit 1; }
    grep -q "SYNOPSIS" <<< "$rendered" || { echo "install.sh: man -l $man_dir/kf.1 shows no SYNOPSIS" >&2; exit 1; }
    sed -n 1,8p <<< "$rendered"
fi
case ":${MANPATH:-}:$(manpath 2>/dev/null || true):" in
    *":$prefix/share/man:"*) ;;
    *) echo "install.sh: $prefix/share/man is not on the man path; read the page with 'man -l $man_dir/kf.1'" ;;
esac
case ":$PATH:" in
    *":$bin_dir:"*) ;;
    *) echo "install.sh: $bin_dir is not on PATH" ;;
esac
