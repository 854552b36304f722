import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionDataTask {
    /// The whole life of the transfer: wait for a slot on the host, fetch, then hand the data to
    /// the callers (processed once per processor) or the error to each of them.
    func run() async {
        let host = originalURL.host ?? ""
        let outcome: Result<(Data, ResponseHead, NetworkMetrics), KingfisherError>
        var hooks: TransferHooks?
        do {
            try await downloader.scheduler.acquire(host: host, priority: priority)
            defer { downloader.scheduler.release(host: host) }
            downloader.reportWillDownload(url: originalURL, request: request)
            let transport = downloader.acquireTransport()
            defer { transport.release() }
            hooks = downloader.customSessionDelegate.map { TransferHooks(delegate: $0, session: transport.session, task: task) }
            outcome = .success(try await fetch(on: transport, hooks: hooks))
        } catch {
            outcome = .failure(mapError(error))
        }

        recordFinish(metrics: try? outcome.get().2)
        if let hooks {
            hooks.delegate.urlSession(hooks.session, task: hooks.task, didFinishCollecting: URLSessionTaskMetrics())
            hooks.delegate.urlSession(hooks.session, task: hooks.task, didCompleteWithError: outcome.failureValue)
        }
        let callers = closeAndTakeCallers()
        downloader.removeSessionTask(self)

        // The delegate may refuse the data; the finish report then carries that error, so it is
        // made once, after the decision.
        switch outcome {
        case .failure(let error):
            downloader.reportDidFinishDownloading(url: originalURL, response: nil, error: error)
            for caller in callers {
                // A cancellation names each caller's own token.
                var own = error
                if case .requestError(reason: .taskCancelled) = error {
                    own = .requestError(reason: .taskCancelled(task: self, token: caller.attachedToken ?? 0))
                }
                downloader.deliver(.failure(own), to: caller)
            }
        case .success(let (data, response, metrics)):
            guard let data = downloader.reportDidDownload(data: data, task: self) else {
                let error = KingfisherError.responseError(reason: .dataModifyingFailed(task: self))
                downloader.reportDidFinishDownloading(url: originalURL, response: response, error: error)
                for caller in callers { downloader.deliver(.failure(error), to: caller) }
                return
            }
            downloader.reportDidFinishDownloading(url: originalURL, response: response, error: nil)
            let validators = ResponseValidators(headers: response.headers)
            var processor = ImageDataProcessor(data: data, url: originalURL, callers: callers, validators: validators)
            processor.metrics = metrics
            processor.process { image in
                downloader.reportDidDownload(image: image, url: originalURL, response: response)
            }
        }
    }

    /// Turns whatever stopped the transfer into the error its callers see (a cancellation's token
    /// is each caller's own, set when it is delivered).
    private func mapError(_ error: any Error) -> KingfisherError {
        switch stopReason {
        case .timedOut(let timeout):
            return .responseError(reason: .downloadTimedOut(url: originalURL, timeout: timeout))
        case .cancelled:
            return .requestError(reason: .taskCancelled(task: self, token: 0))
        case nil:
            break
        }
        if let error = error as? KingfisherError { return error }
        if error is CancellationError {
            return .requestError(reason: .taskCancelled(task: self, token: 0))
        }
        if let error = error as? HTTPClientError, error == .deadlineExceeded {
            return .responseError(reason: .downloadTimedOut(url: originalURL, timeout: downloader.transferSettings.timeout))
        }
        return .responseError(reason: .URLSessionError(error: error))
    }

    /// Sends the request, follows redirects and an authentication challenge, validates the
    /// response and reads the body.
    private func fetch(on transport: TransportClient, hooks: TransferHooks?) async throws -> (Data, ResponseHead, NetworkMetrics) {
        let settings = downloader.transferSettings
        let idle = IdleWatchdog(timeout: settings.timeout) { [weak self] in
            self?.stopForTimeout(settings.timeout)
        }
        let resourceTimeout = transport.values.resourceTimeout
        let whole = IdleWatchdog(timeout: resourceTimeout) { [weak self] in
            self?.stopForTimeout(resourceTimeout)
        }
        downloader.sweeper.add(idle)
        downloader.sweeper.add(whole)
        defer {
            downloader.sweeper.remove(idle)
            downloader.sweeper.remove(whole)
        }

        var clock = TransferClock()
        var current = request
        var redirects = 0
        var retriedStaleConnection = false
        var authenticated = false
        while true {
            guard let url = current.url else { throw KingfisherError.requestError(reason: .invalidURL(request: current)) }
            recordSending(current)
            let clientRequest = try await makeClientRequest(current, settings: settings, transport: transport, hooks: hooks)
            clock.requestSent()
            let response: HTTPClientResponse
            do {
                response = try await transport.client(for: url).execute(
                    clientRequest,
                    deadline: .now() + .nanoseconds(Int64(min(settings.timeout, 1_000_000) * 1_000_000_000))
                )
            } catch let error where !retriedStaleConnection && Self.isStaleConnection(error) {
                // A pooled connection closed as the request was handed to it (the server closed
                // it, or the previous response left stray bytes): nothing of a response arrived,
                // so the request is sent again once, on a fresh connection.
                retriedStaleConnection = true
                continue
            }
            idle.touch()
            let head = ResponseHead(url: url, response: response)
            let declared = response.headers.first(name: "content-length")
                .flatMap { Int64($0) ?? Int64($0.trimmingCharacters(in: .whitespaces)) }
                .flatMap { $0 >= 0 ? $0 : nil }
            recordResponse(head, expectedBytes: declared ?? -1)
            transport.values.cookies?.store(setCookies: response.headers["set-cookie"], request: current)

            var next = try await redirectRequest(
                after: response, head: head, from: current, redirects: &redirects, limit: settings.maximumRedirects, hooks: hooks)
            if next == nil, head.statusCode == 401, !authenticated {
                next = try await authenticatedRequest(after: head, for: current, hooks: hooks)
                authenticated = next != nil
            }
            if let next {
                // Drain the redirect's or the challenge's (small) body so the connection can be reused.
                var drained = 0
                for try await part in response.body {
                    drained += part.readableBytes
                    if drained > 64 * 1024 { break }
                }
                current = next
                continue
            }

            if head.statusCode == 304, Self.isConditional(current) {
                for try await _ in response.body {}
                throw KingfisherError.responseError(reason: .notModified(url: url, validators: ResponseValidators(headers: head.headers)))
            }
            try await checkResponse(head, hooks: hooks)
            let data = try await readBody(response, url: url, declared: declared, limit: settings.maximumResponseSize, watchdog: idle)
            let metrics = clock.metrics(request: current, bytes: Int64(data.count), status: head.statusCode, redirects: redirects)
            return (data, head, metrics)
        }
    }

    /// Fails the transfer when the status is invalid or the delegate refuses the response.
    private func checkResponse(_ head: ResponseHead, hooks: TransferHooks?) async throws {
        if let hooks {
            let response = try urlResponse(head)
            let disposition = await hooks.delegate.urlSession(hooks.session, dataTask: hooks.task, didReceive: response)
            guard disposition == .cancel else { return }
            guard downloader.isValidStatusCode(head.statusCode) else {
                throw KingfisherError.responseError(reason: .invalidHTTPStatusCode(response: response))
            }
            throw KingfisherError.responseError(reason: .cancelledByDelegate(response: response))
        }
        guard downloader.isValidStatusCode(head.statusCode) else {
            throw KingfisherError.responseError(reason: .invalidHTTPStatusCode(response: try urlResponse(head)))
        }
        if downloader.delegate != nil {
            let response = try urlResponse(head)
            guard await downloader.responseDisposition(for: response) == .allow else {
                throw KingfisherError.responseError(reason: .cancelledByDelegate(response: response))
            }
        }
    }

    /// The request for the redirect in `response`, or `nil` when it is not one or is not followed.
    private func redirectRequest(
        after response: HTTPClientResponse, head: ResponseHead, from current: URLRequest,
        redirects: inout Int, limit: Int, hooks: TransferHooks?
    ) async throws -> URLRequest? {
        let status = Int(response.status.code)
        guard [301, 302, 303, 307, 308].contains(status),
              let location = response.headers.first(name: "location"),
              let base = current.url,
              let target = URL(string: location, relativeTo: base)?.absoluteURL else { return nil }
        redirects += 1
        guard redirects <= limit else {
            throw KingfisherError.responseError(reason: .tooManyRedirects(url: originalURL, limit: limit))
        }
        var next = current
        next.url = target
        if status == 303 || ((status == 301 || status == 302) && current.httpMethod != "HEAD") {
            next.httpMethod = "GET"
            next.httpBody = nil
        }
        if let hooks {
            return await hooks.delegate.urlSession(
                hooks.session, task: hooks.task, willPerformHTTPRedirection: try urlResponse(head), newRequest: next)
        }
        guard let handler = redirectHandler else { return next }
        return await handler.handleHTTPRedirection(for: self, response: try urlResponse(head), newRequest: next)
    }

    /// Streams the body into the task's buffer, within `limit` bytes.
    private func readBody(
        _ response: HTTPClientResponse, url: URL, declared: Int64?, limit: Int64, watchdog: IdleWatchdog
    ) async throws -> Data {
        if let declared, declared > limit {
            throw KingfisherError.responseError(
                reason: .responseTooLarge(url: url, limit: limit, declaredSize: declared, receivedSize: 0))
        }
        reserveBody(Int(declared ?? 0))
        var received: Int64 = 0
        let total = declared ?? -1
        for try await part in response.body {
            guard received + Int64(part.readableBytes) <= limit else {
                throw KingfisherError.responseError(
                    reason: .responseTooLarge(
                        url: url, limit: limit, declaredSize: nil, receivedSize: received + Int64(part.readableBytes)))
            }
            watchdog.received(part.readableBytes)
            received = part.withUnsafeReadableBytes { appendBody($0) }
            let callers = activeCallers
            for caller in callers {
                caller.reportProgress(received: received, total: total)
            }
            if callers.contains(where: { $0.dataObserver != nil }) {
                let piece = Data(part.readableBytesView)
                for caller in callers { caller.reportData(piece) }
            }
        }
        try Task.checkCancellation()
        if let declared, received < declared {
            throw KingfisherError.responseError(reason: .responseIncomplete(url: url, expected: declared, received: received))
        }
        return mutableData
    }
}

/// The session delegate subclass a transfer calls, with the stand-ins its hooks are given.
// `@unchecked Sendable`: all three are constants; the delegate is `@unchecked Sendable` itself, and
// the session and task stand-ins guard their state (see URLSessionBox and TransferURLSessionTask).
struct TransferHooks: @unchecked Sendable {
    let delegate: SessionDelegate
    let session: URLSession
    let task: URLSessionDataTask
}

extension Result {
    /// The error of a failure; `nil` for a success.
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
