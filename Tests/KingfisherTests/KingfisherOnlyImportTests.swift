import Kingfisher
import Testing

// This file imports Kingfisher and nothing else from Foundation: the request modifier of article
// 000 §7.9 and the request line of article 003 compile with `import Kingfisher` alone, because
// the module re-exports Foundation and FoundationNetworking.

/// Article 000 §7.9, as written.
private struct BearerModifier: ImageDownloadRequestModifier {
    let token: String
    func modified(for request: URLRequest) -> URLRequest? {
        var r = request
        r.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        r.setValue("image/webp,image/*,*/*;q=0.8", forHTTPHeaderField: "Accept")
        return r
    }
}

@Suite struct KingfisherOnlyImportTests {
    @Test func requestTypesComeWithKingfisher() throws {
        let url = try #require(URL(string: "https://example.com/a.png"))
        let timeout: TimeInterval = 15
        // Article 003's downloader line.
        let request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        let modified = try #require(BearerModifier(token: "t0ken").modified(for: request))
        #expect(modified.value(forHTTPHeaderField: "Authorization") == "Bearer t0ken")
        #expect(modified.value(forHTTPHeaderField: "Accept") == "image/webp,image/*,*/*;q=0.8")
        #expect(modified.url == url && modified.timeoutInterval == 15)
        #expect(modified.cachePolicy == .reloadIgnoringLocalCacheData)
        let response = HTTPURLResponse(url: url, statusCode: 304, httpVersion: "HTTP/1.1", headerFields: nil)
        #expect(response?.statusCode == 304)
    }
}
