import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// A decoder's own reason (over a limit, truncated, not an image) reaches the caller through every
/// entry point, instead of "the processor gave no image".
@Suite struct DecodeFailureReasonTests {
    /// One bad input, the options it is fetched with, and the reason it must fail with.
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let body: Data
        let options: KingfisherOptionsInfo
        let expected: @Sendable (KingfisherError.ProcessorErrorReason) -> Bool
        var description: String { name }
    }

    /// A 64×48 JPEG photo stand-in.
    static let photo: Data = (try? TestImages.gradient(width: 64, height: 48).encoded(as: .JPEG)) ?? Data()

    /// A 256×192 JPEG cut after two thirds of its bytes, inside the entropy-coded data.
    static let truncated: Data = {
        let whole = (try? TestImages.gradient(width: 256, height: 192).encoded(as: .JPEG)) ?? Data()
        return whole.prefix(whole.count * 2 / 3)
    }()

    /// `photo` with its frame header claiming 12000×9000 (108 MP): over the default limit.
    static let hugeHeader: Data = {
        var bytes = [UInt8](photo)
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { break }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xC0 || marker == 0xC2 {
                bytes[index + 5] = 0x23; bytes[index + 6] = 0x28   // height 9000
                bytes[index + 7] = 0x2E; bytes[index + 8] = 0xE0   // width 12000
                break
            }
            index += 2 + length
        }
        return Data(bytes)
    }()

    static let cases: [Case] = [
        Case(name: "108 MP", body: hugeHeader, options: []) {
            isLimit($0, .pixelsPerFrame(width: 12000, height: 9000, limit: 50_000_000))
        },
        Case(name: "truncated", body: truncated, options: []) {
            if case .decodingFailed(.JPEG, let text) = $0 { return text.contains("truncated") }
            return false
        },
        Case(name: "HTML", body: Data("<!doctype html><html><body>Not found</body></html>".utf8), options: []) {
            if case .unknownImageFormat = $0 { return true }
            return false
        },
        Case(name: "limit 1000", body: photo, options: [.decodingLimits(ImageDecodingLimits(maxPixelsPerFrame: 1000))]) {
            isLimit($0, .pixelsPerFrame(width: 64, height: 48, limit: 1000))
        },
    ]

    /// The processors each case is also fetched through: the default one, and a chain that
    /// downsamples while decoding.
    static let processors: [any ImageProcessor] = [
        DefaultImageProcessor.default,
        DownsamplingImageProcessor(size: CGSize(width: 16, height: 16)) |> RoundCornerImageProcessor(cornerRadius: 4),
    ]

    static func check(_ error: KingfisherError?, _ item: Case, _ entry: String) {
        guard case .processorError(let reason)? = error else {
            Issue.record("\(item) via \(entry): \(String(describing: error))")
            return
        }
        #expect(item.expected(reason), "\(item) via \(entry): \(reason)")
        let sentence = error?.errorDescription ?? ""
        #expect(!sentence.contains("gave no image"), "\(item) via \(entry): \(sentence)")
    }

    @Test(arguments: cases, [0, 1])
    func theDownloaderReportsTheDecodersReason(_ item: Case, processor: Int) async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/x", .ok(item.body))
            var error: KingfisherError?
            do {
                _ = try await downloader.downloadImage(
                    with: server.url("/x"), options: item.options + [.processor(Self.processors[processor])])
            } catch let failure as KingfisherError {
                error = failure
            }
            Self.check(error, item, "downloader")
        }
    }

    @Test(arguments: cases, [0, 1])
    func theManagerReportsTheDecodersReason(_ item: Case, processor: Int) async throws {
        try await ManagerKit.run { server, manager, _ in
            server.route("/x", .ok(item.body))
            let result = await ManagerKit.retrieve(manager, .network(server.url("/x")), item.options + [.processor(Self.processors[processor])])
            if case .failure(let error) = result { Self.check(error, item, "manager") } else { Issue.record("\(item) decoded") }
            var thrown: KingfisherError?
            do {
                _ = try await manager.retrieveImage(with: .network(server.url("/x")), options: item.options)
            } catch let failure as KingfisherError {
                thrown = failure
            }
            Self.check(thrown, item, "manager async")
        }
    }

    @Test(arguments: cases)
    func thePrefetcherReportsTheDecodersReason(_ item: Case) async throws {
        try await ManagerKit.run { server, manager, _ in
            server.route("/x", .ok(item.body))
            let outcomes = Recorder<PrefetchOutcome>()
            let done = Recorder<Int>()
            let prefetcher = ImagePrefetcher(
                sources: [.network(server.url("/x"))], options: item.options, manager: manager,
                completionHandler: { _, failed, _ in done.record(failed.count) })
            prefetcher.sourceFinishedBlock = { _, outcome, _ in outcomes.record(outcome) }
            prefetcher.start()
            #expect(await done.wait(for: 1) == [1])
            guard case .failed(let error)? = await outcomes.wait(for: 1).first else {
                Issue.record("\(item): not failed")
                return
            }
            Self.check(error, item, "prefetcher")
        }
    }

    @Test(arguments: cases)
    func setImageReportsTheDecodersReason(_ item: Case) async throws {
        try await ViewKit.run { env in
            env.server.route("/x", .ok(item.body))
            let view = TestImageView()
            let results = Recorder<Result<RetrieveImageResult, KingfisherError>>()
            view.kf.setImage(with: env.server.url("/x"), options: env.options + item.options) { results.record($0) }
            guard case .failure(let error)? = await results.wait(for: 1).first else {
                Issue.record("\(item): not failed")
                return
            }
            Self.check(error, item, "setImage")
            #expect(view.image == nil)
        }
    }

    @Test func aProcessorThatFailsOnADecodedImageIsStillNamed() async throws {
        struct Refusing: ImageProcessor {
            let identifier = "test.refusing"
            func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
                guard item.decodedImage(options: options) != nil else { return nil }
                return nil
            }
        }
        try await ManagerKit.run { server, manager, _ in
            server.route("/x", .ok(Self.photo))
            let result = await ManagerKit.retrieve(manager, .network(server.url("/x")), [.processor(Refusing())])
            guard case .failure(.processorError(.processingFailed(let processor, _))) = result else {
                Issue.record("\(result)")
                return
            }
            #expect(processor.identifier == "test.refusing")
        }
    }

    @Test func theDefaultProcessorIsNamedInItsMessage() {
        let error = KingfisherError.processorError(reason: .processingFailed(processor: DefaultImageProcessor.default, item: .data(Data([1, 2]))))
        #expect(error.errorDescription?.contains("The default processor gave no image for 2 bytes") == true, "\(String(describing: error.errorDescription))")
    }
}

/// Whether `reason` is a JPEG over the limit `violation` names.
private func isLimit(_ reason: KingfisherError.ProcessorErrorReason, _ violation: ImageLimitViolation) -> Bool {
    if case .imageLimitExceeded(.JPEG, let actual) = reason { return actual == violation }
    return false
}
