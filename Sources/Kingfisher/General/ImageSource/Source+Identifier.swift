import Foundation
import Synchronization

extension Source {
    /// Identifies each `kf.setImage` request, so a target can tell the request it waits for
    /// from one it has superseded.
    public enum Identifier {
        /// An identifier: unique for the process, and growing with each request.
        public typealias Value = UInt

        private static let counter = Atomic<UInt>(0)

        /// A new identifier, greater than every one issued before.
        public static func next() -> Value {
            counter.add(1, ordering: .relaxed).newValue
        }
    }
}
