import Foundation

/// Small image files shipped in `Tests/KingfisherTests/Fixtures`.
enum Fixtures {
    static func data(_ path: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: "Fixtures/\(path)", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        return try Data(contentsOf: url)
    }
}
