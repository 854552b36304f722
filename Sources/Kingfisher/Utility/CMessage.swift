import Foundation

extension String {
    /// The text of a NUL-terminated C message buffer; stops at the first NUL or the buffer's end.
    init(cMessage buffer: [CChar]) {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
