import Foundation
import FuzzSupport
import Kingfisher

/// `ProcessorSpec(parsing:)` and building its chain on any text (invalid UTF-8 repaired, as a
/// command line would hand it over): every input is a chain or a `ProcessorSpecError`. Steps that
/// read files (`watermark`) are refused, as for any spec that does not come from the user's shell.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = FuzzInput.data(bytes, size)
    let text = String(decoding: data, as: UTF8.self)
    let spec: ProcessorSpec
    do {
        spec = try ProcessorSpec(parsing: text)
    } catch is ProcessorSpecError {
        return 0
    } catch {
        FuzzCheck.that(false, "parsing threw \(error), not a ProcessorSpecError")
        return 0
    }
    FuzzCheck.that(!spec.steps.isEmpty, "a parsed spec has no steps")
    for step in spec.steps {
        FuzzCheck.that(!step.name.isEmpty, "a parsed step has no name")
    }
    do {
        let processor = try spec.processor(readsFiles: false)
        _ = processor.identifier
    } catch is ProcessorSpecError {
        return 0
    } catch {
        FuzzCheck.that(false, "building threw \(error), not a ProcessorSpecError")
    }
    return 0
}

FuzzDriver.run { bytes, size in fuzz(bytes, size) }
