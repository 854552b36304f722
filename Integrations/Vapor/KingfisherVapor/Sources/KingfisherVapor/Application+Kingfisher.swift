import Foundation
import Kingfisher
import KingfisherSynchronization
import Vapor

extension Application {
    /// The application's Kingfisher: one ``KingfisherManager`` (with its cache and downloader)
    /// shared by every request.
    ///
    /// Configure it in `configure(_:)`, before the first request touches
    /// ``Application/Kingfisher/manager``; the manager is made on first use and shut down with the
    /// application (`asyncShutdown()` or `shutdown()`).
    public var kingfisher: Kingfisher { Kingfisher(application: self) }

    /// Access to the application's Kingfisher manager and its configuration.
    public struct Kingfisher: Sendable {
        let application: Application

        /// How the manager is made; read once, on first use of ``manager``.
        ///
        /// Setting it after the manager was made changes nothing and logs a warning: configure
        /// the application before it answers requests.
        public var configuration: Configuration {
            get { box.state.withLock { $0.configuration } }
            nonmutating set {
                let applied = box.state.withLock { state -> Bool in
                    guard state.manager == nil else { return false }
                    state.configuration = newValue
                    return true
                }
                if !applied {
                    application.logger.warning("Kingfisher's configuration was set after its manager was made; ignored")
                }
            }
        }

        /// The application's manager, made from ``configuration`` on first use.
        ///
        /// After the application shut down, its downloader fails every download.
        public var manager: KingfisherManager { box.manager(logger: application.logger) }

        /// The manager's memory and disk cache.
        public var cache: ImageCache { manager.cache }

        /// The manager's downloader.
        public var downloader: ImageDownloader { manager.downloader }

        var box: KingfisherBox {
            let lock = application.locks.lock(for: KingfisherBox.Key.self)
            return lock.withLock {
                if let box = application.storage[KingfisherBox.Key.self] { return box }
                let box = KingfisherBox()
                application.storage[KingfisherBox.Key.self] = box
                application.lifecycle.use(KingfisherLifecycle(box: box))
                return box
            }
        }
    }
}

/// The application's Kingfisher state: its configuration and, once made, its manager.
final class KingfisherBox: Sendable {
    struct Key: StorageKey, LockKey {
        typealias Value = KingfisherBox
    }

    struct State {
        var configuration = Application.Kingfisher.Configuration()
        var manager: KingfisherManager?
        var isShutDown = false
    }

    let state = Mutex(State())

    func manager(logger: Logger) -> KingfisherManager {
        state.withLock { state in
            if let manager = state.manager { return manager }
            let manager = state.configuration.makeManager(logger: logger)
            if state.isShutDown {
                // Made after the application shut down: it must not hold a client open.
                Task { try? await manager.downloader.shutdown() }
            }
            state.manager = manager
            return manager
        }
    }

    /// Shuts the downloader down (cancelling its downloads and closing its HTTP client).
    func shutdown(logger: Logger) async {
        let manager = state.withLock { state -> KingfisherManager? in
            state.isShutDown = true
            return state.manager
        }
        guard let manager else { return }
        do {
            try await manager.downloader.shutdown()
        } catch {
            logger.warning("Kingfisher's downloader did not shut down cleanly: \(error)")
        }
    }
}

/// Shuts the application's Kingfisher downloader down with the application.
struct KingfisherLifecycle: LifecycleHandler {
    let box: KingfisherBox

    func shutdownAsync(_ application: Application) async {
        await box.shutdown(logger: application.logger)
    }

    /// The synchronous `Application.shutdown()` runs off the event loops, so it may wait here.
    func shutdown(_ application: Application) {
        let done = DispatchSemaphore(value: 0)
        let box = box
        let logger = application.logger
        Task {
            await box.shutdown(logger: logger)
            done.signal()
        }
        done.wait()
    }
}
