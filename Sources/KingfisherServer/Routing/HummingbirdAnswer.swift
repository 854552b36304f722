import HTTPTypes
import Hummingbird

extension ImageServerRequest {
    /// A Hummingbird request as the server reads it; its path is the whole path, for the log.
    init(_ request: Request) {
        self.init(method: request.method, path: request.uri.path, query: request.uri.query, headerFields: request.headers)
    }
}

extension Response {
    /// The server's answer as Hummingbird sends it.
    init(_ answer: ImageServerResponse) {
        self.init(status: answer.status, headers: answer.headerFields, body: ResponseBody(byteBuffer: answer.body))
    }
}
