import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImageDownloader {
    /// The URLSession settings of the downloader's transfers; `.ephemeral` by default, with
    /// `httpMaximumConnectionsPerHost` set from `init(name:maxConnectionsPerHost:)`.
    ///
    /// Setting it builds a new HTTP client from it, as Kingfisher makes a new URLSession: downloads
    /// already running finish on the old client, which is then shut down. The getter returns a
    /// copy; change it and set it back. On Linux the transfer runs on AsyncHTTPClient, which takes:
    /// - `timeoutIntervalForRequest`: the idle timeout, the shorter of it and ``downloadTimeout``
    ///   (also the connect timeout when under 10 seconds);
    /// - `timeoutIntervalForResource`: the most a whole transfer may take, redirects included;
    ///   both fail with `.responseError(.downloadTimedOut)`;
    /// - `httpAdditionalHeaders`: sent with every request, a request's own header of the same
    ///   name winning;
    /// - `httpMaximumConnectionsPerHost`: the requests in flight per host (``maxConnectionsPerHost``);
    /// - `connectionProxyDictionary`: an HTTP proxy (`HTTPEnable`, `HTTPProxy`, `HTTPPort`) for
    ///   `http` URLs and an HTTPS proxy (`HTTPSEnable`, `HTTPSProxy`, `HTTPSPort`) for `https` URLs,
    ///   the keys Darwin's `kCFNetworkProxies…` constants stand for; AsyncHTTPClient tunnels both
    ///   through the proxy with `CONNECT`;
    /// - `httpShouldSetCookies`, `httpCookieStorage`, `httpCookieAcceptPolicy`: cookies that
    ///   responses (redirects included) set are stored there and sent back with later requests
    ///   (unless a request sets its own `Cookie` header or `httpShouldHandleCookies` to `false`).
    ///
    /// Everything else is ignored because it means nothing here or the transport cannot do it:
    /// `allowsCellularAccess`, `allowsExpensiveNetworkAccess`, `allowsConstrainedNetworkAccess`,
    /// `waitsForConnectivity`, `networkServiceType`, `isDiscretionary`, `sharedContainerIdentifier`,
    /// `sessionSendsLaunchEvents`, `urlCache` and `requestCachePolicy` (the downloader asks the
    /// origin every time; caching is the image cache's job), `urlCredentialStorage` (credentials
    /// come from the ``authenticationChallengeResponder``), `tlsMinimumSupportedProtocolVersion`
    /// and `tlsMaximumSupportedProtocolVersion`, `httpShouldUsePipelining` (see
    /// ``requestsUsePipelining``), `protocolClasses` and `multipathServiceType`.
    public var sessionConfiguration: URLSessionConfiguration {
        get { transportState.withLock { $0.values.configuration.copy() } }
        set {
            let values = SessionConfigurationValues(newValue)
            let fresh = TransportClient(values)
            let old = transportState.withLock { current -> TransportClient in
                let old = current
                current = fresh
                return old
            }
            scheduler.setLimit(values.maxConnectionsPerHost)
            old.retire()
            // A downloader already shut down keeps failing downloads, and leaves no client running.
            if isShutDown.load(ordering: .acquiring) { fresh.retire() }
        }
    }

    /// Whether requests should be pipelined; `false` by default.
    ///
    /// Kept for Kingfisher's API only: AsyncHTTPClient never pipelines HTTP/1.1 requests (it
    /// multiplexes them over HTTP/2 when the server offers it), so the value changes nothing.
    public var requestsUsePipelining: Bool {
        get { settings.withLock { $0.requestsUsePipelining } }
        set { settings.withLock { $0.requestsUsePipelining = newValue } }
    }

    /// The hooks called at each stage of a transfer; see ``SessionDelegate``.
    ///
    /// Setting a subclass makes the downloader call its overrides for the transfers that start
    /// after that.
    public var sessionDelegate: SessionDelegate {
        get { settings.withLock { $0.sessionDelegate } }
        set {
            newValue.attach(to: self)
            settings.withLock { $0.sessionDelegate = newValue }
        }
    }

    /// Answers the TLS and HTTP authentication challenges of the downloader's transfers; held
    /// weakly. The downloader itself by default (trusting ``trustedHosts``); when set to `nil` the
    /// downloader answers as the default.
    public var authenticationChallengeResponder: (any AuthenticationChallengeResponsible)? {
        get { settings.withLock { $0.responder.value } }
        set { settings.withLock { $0.responder.value = newValue } }
    }

    /// The transport for a transfer that starts now; pair with `release()`.
    func acquireTransport() -> TransportClient {
        transportState.withLock { current in
            current.acquire()
            return current
        }
    }

    /// The session delegate when it is a subclass whose hooks must be called; `nil` when the
    /// default handling can run inline.
    var customSessionDelegate: SessionDelegate? {
        let delegate = sessionDelegate
        return type(of: delegate) == SessionDelegate.self ? nil : delegate
    }
}
