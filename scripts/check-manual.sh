#!/usr/bin/env bash
# Makes kf's man page as scripts/install.sh makes it (generate-manual over kf's own help, then
# scripts/lib/kf_manual.py), from the debug kf that `swift build` made, and checks it: groff
# renders it without a single warning, and it has the ENVIRONMENT, FILES and SEE ALSO sections,
# naming every KF_SERVE_* variable that `kf serve run --help` names.
#
#   bash scripts/check-manual.sh [OUT]      (OUT: keep the page there)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
bin="$(swift build --show-bin-path)"
[[ -x "$bin/kf" ]] || { echo "check-manual: $bin/kf is not built: run swift build --build-tests first" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
swift build --product generate-manual >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
"$bin/generate-manual" "$bin/kf" --date 2026-01-01 --authors "The Kingfisher for Linux authors" --output-directory "$work"
python3 scripts/lib/kf_manual.py "$work/kf.1"
warnings="$(MANWIDTH=80 man -l -Tutf8 "$work/kf.1" 2>&1 >/dev/null || true)"
if [[ -n "$warnings" ]]; then
    echo "check-manual: man -l warns about kf.1:" >&2
    echo "$warnings" | head -20 >&2
    exit 1
fi
rendered="$(MANWIDTH=80 MANPAGER=cat man -l "$work/kf.1" 2>/dev/null)"
for section in SYNOPSIS ENVIRONMENT FILES "SEE ALSO"; do
    grep -q "^$section" <<< "$rendered" || { echo "check-manual: kf.1 has no $section section" >&2; exit 1; }
done
for variable in $("$bin/kf" serve run --help | grep -o 'KF_SERVE_[A-Z_]*' | sort -u) XDG_CACHE_HOME THUMBOR_SECURITY_KEY AWS_REGION; do
    grep -q "$variable" <<< "$rendered" || { echo "check-manual: kf.1 does not name $variable" >&2; exit 1; }
done
[[ $# -ge 1 ]] && cp "$work/kf.1" "$1"
echo "check-manual: kf.1 renders without warnings, with ENVIRONMENT, FILES and SEE ALSO"
