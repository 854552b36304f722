import BenchSupport
import Foundation
import Kingfisher

// Times a progressive JPEG download shown through `kf.setImage` with `.progressiveJPEG`.
//
//   progressive-bench --make SOURCE.jpg OUT.jpg   writes a 1920×1080 progressive JPEG (q 0.85)
//                                                 made from SOURCE, cropped to fill
//   progressive-bench URL [--runs N]              prints one JSON line: the median time to the first
//                                                 partial image and to the final image, and their ratio
//
// Each run loads URL afresh (forceRefresh, memory only) into a headless image target on the main
// actor, so the times are what a window would see: from the setImage call to the target's image.

@MainActor
final class Target: KingfisherHasImageComponent {
    let kingfisherState = KingfisherTargetState()
    let start = ContinuousClock.now
    var firstPartial: Duration?
    var updates = 0
    var image: KFCrossPlatformImage? {
        didSet {
            guard image != nil else { return }
            updates += 1
            if firstPartial == nil { firstPartial = ContinuousClock.now - start }
        }
    }
}

@MainActor
func load(_ url: URL) async throws -> (first: Double, final: Double, updates: Int) {
    let target = Target()
    let options: KingfisherOptionsInfo = [
        .forceRefresh, .cacheMemoryOnly,
        .progressiveJPEG(ImageProgressive(isBlur: true, isFastestScan: true, scanInterval: 0)),
    ]
    let result = try await target.kf.setImageAsync(with: url, options: options)
    let final = ContinuousClock.now - target.start
    guard result.cacheType == .none else { fail("expected a download, got \(result.cacheType)") }
    let first = target.updates > 1 ? (target.firstPartial ?? final) : final
    return (seconds(first), seconds(final), target.updates - 1)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--make" {
    guard arguments.count == 3 else { fail("usage: progressive-bench --make SOURCE.jpg OUT.jpg") }
    do {
        let source = try KFCrossPlatformImage(data: try Data(contentsOf: URL(fileURLWithPath: arguments[1])))
        let size = CGSize(width: 1920, height: 1080)
        let filled = ResizingImageProcessor(referenceSize: size, mode: .aspectFill)
            |> CroppingImageProcessor(size: size)
        guard let smooth = filled.process(item: .image(source), options: KingfisherParsedOptionsInfo(nil)) else {
            fail("cannot resize \(arguments[1])")
        }
        // An upscaled 640-pixel photo is too smooth for 1080p: add the fine grain a camera gives,
        // so the file has about the size of a real photo's (2 bits a pixel at q 0.85: 517 KB).
        var pixels = smooth.firstFrame.pixels
        var noise: UInt32 = 2_463_534_242
        for index in stride(from: 0, to: pixels.count, by: 4) {
            noise ^= noise << 13
            noise ^= noise >> 17
            noise ^= noise << 5
            let grain = Int(noise & 31) - 16
            for channel in 0..<3 { pixels[index + channel] = UInt8(clamping: Int(pixels[index + channel]) + grain) }
        }
        guard let frame = ImageFrame(width: 1920, height: 1080, pixels: pixels) else { fail("unexpected frame size") }
        let picture = KFCrossPlatformImage(frame: frame)
        let data = try picture.encoded(as: .JPEG, options: ImageEncodingOptions(compressionQuality: 0.85, progressive: true))
        try data.write(to: URL(fileURLWithPath: arguments[2]))
    } catch {
        fail("\(error)")
    }
    exit(0)
}
guard let text = arguments.first, let url = URL(string: text) else {
    fail("usage: progressive-bench URL [--runs N] | --make SOURCE.jpg OUT.jpg")
}
let runs = max(1, Int(option("--runs", in: arguments) ?? "5") ?? 5)
var firsts: [Double] = []
var finals: [Double] = []
var updates: [Int] = []
for _ in 0..<runs {
    do {
        let run = try await load(url)
        firsts.append(run.first)
        finals.append(run.final)
        updates.append(run.updates)
    } catch {
        fail("\(error)")
    }
}
let first = median(firsts)
let final = median(finals)
print("{\"first_update_s\":\(first),\"final_s\":\(final),\"ratio\":\(first / final),\"partial_updates\":\(updates.sorted()[updates.count / 2]),\"runs\":\(runs)}")
