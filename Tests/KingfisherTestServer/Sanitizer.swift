#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this process runs under AddressSanitizer or ThreadSanitizer (`scripts/sanitize.sh`),
/// whose runtimes slow every memory access and lock and add shadow memory.
///
/// ``withWatchdog(_:_:)`` allows four times its limit then, and resident-memory bounds are
/// checked in plain builds only (`scripts/faults.sh` measures those alone).
public let runsUnderSanitizer = dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil
