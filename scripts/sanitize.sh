#!/usr/bin/env bash
# The library's and the image server's test suites under a sanitizer.
#
#   scripts/sanitize.sh address     AddressSanitizer (with LeakSanitizer's exit check off)
#   scripts/sanitize.sh thread      ThreadSanitizer
#   scripts/sanitize.sh SANITIZER FILTER    ... only the tests matching FILTER
#
# Builds the tests with `--sanitize=SANITIZER` into .build-SANITIZER (apart from the normal build;
# every module, dependencies included, is instrumented), runs `swift test` with every process's
# reports written to files, and ends with
#   sanitize: SANITIZER tests=passed|FAILED reports=N (log: FILE; reports: FILE)
# where N counts the reports of every process. It fails unless the tests pass with no report.
# The ThreadSanitizer build defines KF_SANITIZER_LOCKS: every `Mutex` of ours is then the
# pthread-based one in Sources/KingfisherSynchronization, whose hand-overs TSan sees (the
# standard library's passes the lock through uninstrumented code). Before the suite, a race-free
# probe (scripts/tsan-mutex-probe.swift) runs with both locks to show the difference.
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
flags=(--sanitize="$sanitizer" --scratch-path "$scratch")
if [[ "$sanitizer" == thread ]]; then
    flags+=(-Xswiftc -DKF_SANITIZER_LOCKS)
    probe="$scratch/tsan-probe"
    mkdir -p "$probe"
    cp scripts/tsan-mutex-probe.swift "$probe/main.swift"
    for lock in Synchronization KingfisherSynchronization; do
        extra=()
        if [[ "$lock" == KingfisherSynchronization ]]; then
            extra=(-DKF_SANITIZER_LOCKS Sources/KingfisherSynchronization/SanitizerMutex.swift)
        fi
        swiftc -swift-version 6 -sanitize=thread -Onone -module-name TSanProbe "${extra[@]}" "$probe/main.swift" -o "$probe/$lock" >/dev/null
        count="$(TSAN_OPTIONS=exitcode=0 "$probe/$lock" 2>&1 | tee "$probe/$lock.log" | grep -c '^WARNING: ThreadSanitizer' || true)"
        echo "$(grep '^tsan-mutex-probe:' "$probe/$lock.log") with $lock's Mutex: reports=$count"
    done
fi
if ! swift build --build-tests "${flags[@]}" >"$build_log" 2>&1; then
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
swift test --skip-build "${flags[@]}" "${filter[@]}" >"$log" 2>&1 || status=$?
grep -E 'Test run with .* (passed|failed)|^✘ Test .* failed after' "$log" | tail -n 20 || true
result=passed
[[ "$status" -eq 0 ]] || result=FAILED
cat "$reports_dir"/* >"$scratch/sanitizer-reports.log" 2>/dev/null || true
reports="$(grep -cE '^(WARNING|ERROR): (AddressSanitizer|ThreadSanitizer|LeakSanitizer)' "$scratch/sanitizer-reports.log" || true)"
grep -E '^(ERROR|SUMMARY): (AddressSanitizer|ThreadSanitizer)' "$scratch/sanitizer-reports.log" | head -n 10 || true
echo "sanitize: $sanitizer tests=$result reports=$reports (log: $log; reports: $scratch/sanitizer-reports.log)"
[[ "$status" -eq 0 && "$reports" -eq 0 ]]
