import Foundation
import FuzzSupport
import Kingfisher

/// The disk cache's journal reader: fuzzed bytes become `.kf/journal` of a cache folder (on
/// /dev/shm when it exists) holding two entry files, then a storage opens it (replay and repair),
/// reads, stores, sweeps and trims, and a second storage replays what the first left behind.
///
/// The first byte picks how the rest becomes a journal: 0 raw after the header, 1 raw with no
/// header, 2 length-prefixed payloads in valid frames, 3 typed records in valid frames; then a
/// torn tail may follow.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader([UInt8](FuzzInput.data(bytes, size)))
    let journal = JournalFuzzing.journal(from: &reader)
    JournalFuzzing.run(journal: journal)
    return 0
}

FuzzDriver.run { bytes, size in fuzz(bytes, size) }
