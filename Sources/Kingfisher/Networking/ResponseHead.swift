import AsyncHTTPClient
import Foundation
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The status line and headers of a response, turned into an `HTTPURLResponse` only when a hook
/// or an error needs one (building it costs about a tenth of a small download's CPU).
struct ResponseHead: Sendable {
    let url: URL
    let statusCode: Int
    let version: HTTPVersion
    let headers: HTTPHeaders

    init(url: URL, response: HTTPClientResponse) {
        self.url = url
        self.statusCode = Int(response.status.code)
        self.version = response.version
        self.headers = response.headers
    }

    var urlResponse: HTTPURLResponse? {
        var fields: [String: String] = [:]
        for (name, value) in headers {
            if let existing = fields[name] {
                fields[name] = existing + ", " + value
            } else {
                fields[name] = value
            }
        }
        return HTTPURLResponse(
            url: url, statusCode: statusCode, httpVersion: "HTTP/\(version.major).\(version.minor)", headerFields: fields)
    }
}
