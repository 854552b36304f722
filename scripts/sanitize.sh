#!/usr/bin/env bash
# The library's and the image server's test suites under a sanitizer (issue 19, part 2).
#
#   scripts/sanitize.sh address     AddressSanitizer (with LeakSanitizer's exit check off)
#   scripts/sanitize.sh thread      ThreadSanitizer
#   scripts/sanitize.sh SANITIZER FILTER    ... only the tests matching FILTER
#
# Builds the tests with `--sanitize=SANITIZER` into .build-SANITIZER (apart from the normal build;
# every module, dependencies included, is instrumented), runs `swift test` with the sanitizer
# told to keep going after a report, and ends with
#   sanitize: SANITIZER tests=passed|FAILED reports=N (log: FILE)
# where N counts the sanitizer's reports in the run's output; the script fails unless both are clean.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
sanitizer="${1:-}"
case "$sanitizer" in
    address | thread) ;;
    *) echo "usage: scripts/sanitize.sh address|thread [FILTER]"; exit 2 ;;
esac
filter=()
[[ $# -ge 2 ]] && filter=(--filter "$2")
scratch="${SCRATCH_PATH:-.build-$sanitizer}"
mkdir -p "$scratch"
bash scripts/install-deps.sh >/dev/null
build_log="$scratch/sanitize-build.log" log="$scratch/sanitize-$sanitizer.log"
if ! swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" >"$build_log" 2>&1; then
    tail -n 30 "$build_log"
    echo "sanitize: $sanitizer build FAILED (log: $build_log)"
    exit 1
fi
# Reports go to the run's output. ThreadSanitizer keeps going after one, so a report does not hide
# the next; AddressSanitizer stops the test process at its first (the tests then fail too).
# LeakSanitizer's exit check is off: the Swift runtime's metadata caches and the suites' shared
# servers live until exit by design. Swift's backtracer would catch the sanitizers' traps first.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export TSAN_OPTIONS="halt_on_error=0:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
status=0
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "${filter[@]}" >"$log" 2>&1 || status=$?
reports="$(grep -cE '^(WARNING|ERROR): (AddressSanitizer|ThreadSanitizer|LeakSanitizer)' "$log" || true)"
grep -E '^(WARNING|ERROR): (AddressSanitizer|ThreadSanitizer)|^SUMMARY: |Test run with .* (passed|failed)|✘' "$log" | head -n 40 || true
result=passed
[[ "$status" -eq 0 ]] || result=FAILED
echo "sanitize: $sanitizer tests=$result reports=$reports (log: $log)"
[[ "$status" -eq 0 && "$reports" -eq 0 ]]
