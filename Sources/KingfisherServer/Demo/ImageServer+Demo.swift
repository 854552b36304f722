import Foundation
import Hummingbird
import Kingfisher

extension ImageServer {
    /// Adds the demo page at `GET /` and its signer at `GET /demo/sign?source=&spec=&format=`.
    ///
    /// The signer signs any allowed source for anyone who can reach the server, so the demo is
    /// only for trusted networks.
    func addDemoRoutes<Context: RequestContext>(to router: some RouterMethods<Context>, samples: [URL]) {
        let page = DemoPage.html(samples: samples)
        router.get("") { [self] request, _ in
            let start = ContinuousClock.now
            let response = Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                                    body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
            recordDemo(request, response: response, since: start, reason: nil)
            return response
        }
        router.get("demo/sign") { [self] request, _ in
            let start = ContinuousClock.now
            let response: Response
            var reason: String?
            do {
                response = try demoSignature(request)
            } catch {
                let failure = error as? ImageServerError ?? ImageServerError(.badRequest, "\(error)")
                reason = failure.reason
                response = Response(failure.response())
            }
            recordDemo(request, response: response, since: start, reason: reason)
            return response
        }
    }

    /// Logs and counts a request to the demo page or its signer.
    private func recordDemo(_ request: Request, response: Response, since start: ContinuousClock.Instant, reason: String?) {
        record(method: request.method, path: request.uri.path, route: .demo, status: response.status,
               bytes: response.body.contentLength ?? 0, since: start, tier: nil, reason: reason, client: RequestClient.address)
    }

    /// `{"path": "..."}` for the query's source, spec and format; 400 or 403 when they cannot be served.
    private func demoSignature(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        let text = String(query["source"] ?? "")
        guard let source = URL(string: text), let scheme = source.scheme?.lowercased(), scheme == "http" || scheme == "https",
              source.host?.isEmpty == false
        else {
            throw ImageServerError(.badRequest, "the source must be an http(s) URL")
        }
        guard configuration.allowedSources.allows(source) else {
            throw ImageServerError(.forbidden, "the source host '\(source.host ?? "")' is not in the allow-list (\(configuration.allowedSources.refusalHint))")
        }
        guard let format = OutputFormat(rawValue: String(query["format"] ?? "auto").lowercased()) else {
            throw ImageServerError(.badRequest, "the format must be jpeg, png, webp, gif, avif, jxl or auto")
        }
        let spec = String(query["spec"] ?? Substring(ImagePath.noProcessing))
        let imagePath = ImagePath(source: source, spec: spec.isEmpty ? ImagePath.noProcessing : spec, format: format, signer: signer)
        _ = try imagePath.processor()
        let body = try JSONEncoder().encode(["path": imagePath.path] as [String: String])
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
