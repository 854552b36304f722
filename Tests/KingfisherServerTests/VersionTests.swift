import Foundation
import KingfisherTestServer
import Testing

@Suite("kf --version")
struct VersionTests {
    @Test("kf --version prints 'kf X.Y.Z (Kingfisher for Linux)' and one newline on standard output, exit 0")
    func version() async throws {
        let run = try await ChildProcess.run(try ShutdownTests.kfURL().path, ["--version"], timeLimit: 60)
        let output = String(decoding: run.standardOutput, as: UTF8.self)
        #expect(run.termination == .exited(0))
        #expect(run.standardError.isEmpty)
        #expect(output.wholeMatch(of: /kf [0-9]+\.[0-9]+\.[0-9]+ \(Kingfisher for Linux\)\n/) != nil, "\(output)")
    }

    @Test("kf --help lists --version")
    func helpListsVersion() async throws {
        let run = try await ChildProcess.run(try ShutdownTests.kfURL().path, ["--help"], timeLimit: 60)
        #expect(run.termination == .exited(0))
        #expect(String(decoding: run.standardOutput, as: UTF8.self).contains("--version"))
    }
}
