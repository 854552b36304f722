import BenchSupport
import Foundation
import Kingfisher
#if canImport(Glibc)
import Glibc
#endif

// Times ImageDownloader over a list of URLs and prints one JSON line.
//
//   download-bench URLFILE [--concurrency N] [--runs N] [--decode] [--no-warm-up]
//
// Each run downloads every URL once with N downloads in flight (a fresh cache-free pass; the
// downloader keeps its connections between runs, as a running app would). Without --decode the
// processor skips decoding, so the figure is the downloader itself (request, sharing, scheduling,
// streaming into a buffer, callbacks); with --decode each body is decoded by DefaultImageProcessor.
// One warm-up run comes first and is not counted, unless --no-warm-up (a process that does one
// cold pass, as a command-line tool such as curl does).

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

/// Keeps the bytes and hands back one tiny image, so no time goes to decoding.
struct PassThroughProcessor: ImageProcessor {
    static let image = ImageFrame(width: 1, height: 1, pixels: [0, 0, 0, 255]).map { KFCrossPlatformImage(frame: $0) }
    let identifier = "bench.pass-through"
    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        Self.image
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let listPath = arguments.first, !listPath.hasPrefix("--") else {
    fail("usage: download-bench URLFILE [--concurrency N] [--runs N] [--decode] [--no-warm-up]")
}
let concurrency = max(1, Int(option("--concurrency", in: arguments) ?? "8") ?? 8)
let runs = max(1, Int(option("--runs", in: arguments) ?? "5") ?? 5)
let decode = arguments.contains("--decode")
let warmsUp = !arguments.contains("--no-warm-up")
guard let list = try? String(contentsOfFile: listPath, encoding: .utf8) else { fail("cannot read \(listPath)") }
let urls = list.split(whereSeparator: \.isNewline).compactMap { URL(string: String($0)) }
guard !urls.isEmpty else { fail("no URLs in \(listPath)") }

let downloader = ImageDownloader(name: "download-bench", maxConnectionsPerHost: concurrency)
let options: KingfisherOptionsInfo = decode ? [] : [.processor(PassThroughProcessor())]

/// Downloads every URL once, `concurrency` at a time; returns the number of failures.
func pass() async -> Int {
    await withTaskGroup(of: Bool.self) { group in
        var next = 0
        var failures = 0
        for _ in 0..<min(concurrency, urls.count) {
            let url = urls[next]
            next += 1
            group.addTask { (try? await downloader.downloadImage(with: url, options: options)) != nil }
        }
        while let ok = await group.next() {
            if !ok { failures += 1 }
            if next < urls.count {
                let url = urls[next]
                next += 1
                group.addTask { (try? await downloader.downloadImage(with: url, options: options)) != nil }
            }
        }
        return failures
    }
}

if warmsUp {
    let warmUpFailures = await pass()
    if warmUpFailures > 0 { fail("\(warmUpFailures) of \(urls.count) downloads failed in the warm-up") }
}
var seconds: [Double] = []
var cpu: [Double] = []
for _ in 0..<runs {
    let cpuStart = cpuSeconds()
    let start = DispatchTime.now().uptimeNanoseconds
    let failures = await pass()
    seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    cpu.append(cpuSeconds() - cpuStart)
    if failures > 0 { fail("\(failures) of \(urls.count) downloads failed") }
}
try? await downloader.shutdown()
let medianSeconds = median(seconds)
let json: [String: Any] = [
    "client": decode ? "ImageDownloader+decode" : "ImageDownloader",
    "requests": urls.count,
    "concurrency": concurrency,
    "runs_s": seconds,
    "median_s": medianSeconds,
    "requests_per_s": Double(urls.count) / medianSeconds,
    "cpu_us_per_request": median(cpu) / Double(urls.count) * 1e6,
]
if let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]) {
    print(String(decoding: data, as: UTF8.self))
}
