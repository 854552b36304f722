#!/usr/bin/env bash
# Builds the API documentation of the Kingfisher and KingfisherServer modules with DocC, for static
# hosting, into OUTPUT_DIR/Kingfisher and OUTPUT_DIR/KingfisherServer (default: out/docs). Served
# with OUTPUT_DIR as the web root, the pages are /Kingfisher/documentation/kingfisher/ and
# /KingfisherServer/documentation/kingfisherserver/ (each archive is built for its folder).
# The guides in docs/ are articles of these catalogs: each catalog's Guides/ folder links to them
# (symbolic links), so there is one copy of each guide.
# Prints how many warnings the builds gave and exits 1 if there was any, or if a build failed.
# Warnings that SwiftPM gives about files of a dependency's checkout are not the project's, and
# are not counted.
#
#   bash scripts/docs.sh [OUTPUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

output="${1:-out/docs}"
mkdir -p "$output"
output="$(cd "$output" && pwd)"
log="$output/docs.log"
: > "$log"
start=$SECONDS
failed=0
for target in Kingfisher KingfisherServer; do
    echo "Building the documentation of $target into $output/$target"
    rm -rf "${output:?}/$target"
    if ! swift package --allow-writing-to-directory "$output" generate-documentation --target "$target" \
        --disable-indexing --transform-for-static-hosting --hosting-base-path "$target" \
        --output-path "$output/$target" >> "$log" 2>&1; then
        echo "docs.sh: building the documentation of $target failed (see $log)" >&2
        failed=1
    fi
done

# A SwiftPM warning about unhandled files names the package in quotes; it is a dependency's when
# that package has a checkout under .build/checkouts.
warnings="$(grep -E '(^|: )warning: ' "$log" | while IFS= read -r line; do
    if [[ "$line" =~ ^warning:\ \'([^\']+)\':\ found\ [0-9]+\ file\(s\)\ which\ are\ unhandled ]] \
        && [[ -d ".build/checkouts/${BASH_REMATCH[1]}" ]]; then
        continue
    fi
    echo "$line"
done)"
count=0
[[ -n "$warnings" ]] && count="$(printf '%s\n' "$warnings" | wc -l)"

if (( count > 0 )); then
    # Each warning, with the location and source lines DocC prints under it, up to a blank line.
    awk '/which are unhandled/ { on = 0; next }
         /(^|: )warning: / { on = 1 }
         /^$/ { if (on) print ""; on = 0 }
         on' "$log" >&2
fi
echo "docs.sh: $count warning(s) in $((SECONDS - start)) s; log: $log"
if (( failed || count > 0 )); then exit 1; fi
echo "docs.sh: serve $output, e.g. python3 -m http.server --bind 127.0.0.1 --directory $output, and open /Kingfisher/documentation/kingfisher/"
