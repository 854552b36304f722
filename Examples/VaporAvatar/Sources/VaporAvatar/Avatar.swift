import Foundation
import Kingfisher
import KingfisherVapor
import Vapor

/// `GET /avatar?url=<image URL>[&size=<points>]`: the image at `url`, scaled down to fit
/// `size`×`size` (16 to 512, default 128), its corners rounded, as PNG.
///
/// The thumbnail is cached under the source URL and the processors' identifier, so a second
/// request for the same avatar neither downloads nor decodes the source again.
func avatar(_ req: Request) async throws -> Response {
    guard let text = req.query[String.self, at: "url"], let url = URL(string: text),
          url.scheme == "http" || url.scheme == "https" else {
        throw Abort(.badRequest, reason: "url must be an http or https URL")
    }
    let side = min(512, max(16, req.query[Int.self, at: "size"] ?? 128))
    let size = CGSize(width: side, height: side)
    let processor = DownsamplingImageProcessor(size: size)
        |> RoundCornerImageProcessor(cornerRadius: CGFloat(side) / 8)
    let result = try await req.kingfisher.retrieveImage(
        with: url,
        options: [.processor(processor), .cacheSerializer(FormatIndicatedCacheSerializer.png)]
    )
    return try req.kingfisher.response(for: result.image, format: .PNG, maxAge: 3600)
}
