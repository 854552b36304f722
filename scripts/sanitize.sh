#!/usr/bin/env bash
# The library's and the image server's test suites under a sanitizer (issue 19, part 2).
#
#   scripts/sanitize.sh address     AddressSanitizer (with LeakSanitizer's exit check off)
#   scripts/sanitize.sh thread      ThreadSanitizer
#   scripts/sanitize.sh SANITIZER FILTER    ... only the tests matching FILTER
#
# Builds the tests with `--sanitize=SANITIZER` into .build-SANITIZER (apart from the normal build;
# every module, dependencies included, is instrumented), runs `swift test` with every process's
# reports written to files, and ends with
#   sanitize: SANITIZER tests=passed|FAILED reports=N (log: FILE; reports: FILE)
# where N counts the reports of every process. It fails unless the tests pass and no report is
# left: none at all for AddressSanitizer; for ThreadSanitizer, none but those scripts/tsan-reports.py
# shows to be the Mutex hand-over TSan cannot see (it prints its own count line first).
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
# Every process (the test runner and the kf and cache-stress children the tests start) writes its
# reports to its own file in $reports_dir instead of its standard error, which tests read.
# ThreadSanitizer keeps going after a report and exits with 0 for it, so a report does not also
# fail a test that checks a child's exit status; AddressSanitizer stops the process at its first.
# LeakSanitizer's exit check is off: the Swift runtime's metadata caches and the suites' shared
# servers live until exit by design. Swift's backtracer would catch the sanitizers' traps first.
rm -rf "$scratch/sanitizer-reports"
mkdir -p "$scratch/sanitizer-reports"
reports_dir="$(realpath "$scratch/sanitizer-reports")"
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="detect_leaks=0:log_path=$reports_dir/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export TSAN_OPTIONS="exitcode=0:second_deadlock_stack=1:log_path=$reports_dir/tsan${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
status=0
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "${filter[@]}" >"$log" 2>&1 || status=$?
grep -E 'Test run with .* (passed|failed)|^✘ Test .* failed after' "$log" | tail -n 20 || true
result=passed
[[ "$status" -eq 0 ]] || result=FAILED
cat "$reports_dir"/* >"$scratch/sanitizer-reports.log" 2>/dev/null || true
reports="$(grep -cE '^(WARNING|ERROR): (AddressSanitizer|ThreadSanitizer|LeakSanitizer)' "$scratch/sanitizer-reports.log" || true)"
clean=true
if [[ "$sanitizer" == thread ]]; then
    # TSan does not see Mutex's slow paths: a race-free program shows how many reports that alone
    # makes. Reports between two critical sections of one Mutex are that (scripts/tsan-reports.py);
    # any other report counts.
    probe="$scratch/tsan-mutex-probe"
    swiftc -swift-version 6 -sanitize=thread -Onone scripts/tsan-mutex-probe.swift -o "$probe" >/dev/null
    probe_reports="$(TSAN_OPTIONS=exitcode=0 "$probe" 2>&1 | tee "$probe.log" | grep -c '^WARNING: ThreadSanitizer' || true)"
    echo "$(grep "^tsan-mutex-probe:" "$probe.log") with reports=$probe_reports"
    python3 scripts/tsan-reports.py "$scratch/sanitizer-reports.log" "$PWD/" || clean=false
else
    grep -E '^(ERROR|SUMMARY): AddressSanitizer' "$scratch/sanitizer-reports.log" | head -n 10 || true
    [[ "$reports" -eq 0 ]] || clean=false
fi
echo "sanitize: $sanitizer tests=$result reports=$reports (log: $log; reports: $scratch/sanitizer-reports.log)"
[[ "$status" -eq 0 && "$clean" == true ]]
