// The library's modules import this one instead of Synchronization wherever they use `Mutex`, so
// that a ThreadSanitizer build can swap in a lock TSan sees (SanitizerMutex.swift). In every other
// build it is Synchronization itself: `Mutex` and `Atomic` are the standard library's.
@_exported import Synchronization
