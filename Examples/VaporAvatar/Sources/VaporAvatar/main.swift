import Foundation
import KingfisherVapor
import Vapor

// Vapor's own command line: `VaporAvatar serve --hostname 127.0.0.1 --port 8080`.
// AVATAR_CACHE_DIR, when set, is the folder the disk cache lives in.
var environment = try Environment.detect()
try LoggingSystem.bootstrap(from: &environment)
let app = try await Application.make(environment)
app.kingfisher.configuration = .init(
    name: "avatars",
    cacheDirectory: Environment.get("AVATAR_CACHE_DIR").map { URL(fileURLWithPath: $0) },
    memoryCostLimit: 64 * 1024 * 1024,
    diskSizeLimit: 256 * 1024 * 1024
)
app.get("avatar", use: avatar)
do {
    try await app.execute()
} catch {
    app.logger.report(error: error)
    try? await app.asyncShutdown()
    exit(1)
}
try await app.asyncShutdown()
