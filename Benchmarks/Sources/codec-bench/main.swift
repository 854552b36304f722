import BenchSupport
import Foundation
import Kingfisher

// Times Kingfisher's codecs in process and prints one JSON line of medians.
//
//   codec-bench decode FILE [--min WxH] [--runs N]
//   codec-bench decode-all LIST [--runs N]
//   codec-bench encode FILE png|jpeg|gif|webp|avif|jxl [--quality Q] [--lossless] [--speed S] [--effort E] [--runs N]
//   codec-bench process FILE SPEC [--predecode] [--runs N]
//
// `decode` times KFCrossPlatformImage(data:options:) from bytes already in memory; `decode-all`
// times decoding every file named in LIST (one path per line) once, all read beforehand; `encode`
// decodes FILE once, then times encoding the decoded image. `process` times a processor chain
// written as `kf process` takes it, on the file's bytes (`.data`, decoding included) or, with
// --predecode, on the image decoded beforehand (`.image`).

func measure(runs: Int, _ body: () throws -> Void) rethrows -> [Double] {
    try body()  // warm-up: page cache, first-touch of the allocator
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
    }
    return times
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else { fail("usage: codec-bench decode|encode FILE ...") }
let runs = Int(option("--runs", in: arguments) ?? "") ?? 9
let path = arguments[1]
guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }

do {
    switch arguments[0] {
    case "decode":
        var options = ImageCreatingOptions()
        if let minimum = option("--min", in: arguments) {
            let parts = minimum.split(separator: "x").compactMap { Double($0) }
            guard parts.count == 2 else { fail("--min wants WxH") }
            options.minimumPixelSize = CGSize(width: parts[0], height: parts[1])
        }
        options.limits = ImageDecodingLimits(maxPixelsPerFrame: 200_000_000, maxTotalAnimationPixels: 1_000_000_000)
        var size = (0, 0, 0)
        let times = try measure(runs: runs) {
            let image = try KFCrossPlatformImage(data: data, options: options)
            size = (image.pixelWidth, image.pixelHeight, image.frames.count)
        }
        print(#"{"op":"decode","file":"\#(path)","width":\#(size.0),"height":\#(size.1),"frames":\#(size.2),"median_ms":\#(median(times))}"#)
    case "decode-all":
        let paths = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        let files = paths.compactMap { FileManager.default.contents(atPath: $0) }
        guard files.count == paths.count, !files.isEmpty else { fail("cannot read every file in \(path)") }
        var pixels = 0
        let times = try measure(runs: runs) {
            pixels = 0
            for file in files {
                let image = try KFCrossPlatformImage(data: file)
                pixels += image.pixelWidth * image.pixelHeight
            }
        }
        print(#"{"op":"decode-all","files":\#(files.count),"pixels":\#(pixels),"median_ms":\#(median(times))}"#)
    case "encode":
        guard arguments.count >= 3, let format = ImageFormat(fileExtension: arguments[2]) else { fail("encode wants a format") }
        var encoding = ImageEncodingOptions(lossless: arguments.contains("--lossless"))
        if let quality = option("--quality", in: arguments).flatMap(Double.init) { encoding.compressionQuality = quality }
        if let speed = option("--speed", in: arguments).flatMap({ Int($0) }) { encoding.avifSpeed = speed }
        if let effort = option("--effort", in: arguments).flatMap({ Int($0) }) { encoding.jxlEffort = effort }
        let limits = ImageDecodingLimits(maxPixelsPerFrame: 200_000_000, maxTotalAnimationPixels: 1_000_000_000)
        let image = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(limits: limits))
        var bytes = 0
        let times = try measure(runs: runs) {
            bytes = try image.encoded(as: format, options: encoding).count
        }
        print(#"{"op":"encode","file":"\#(path)","format":"\#(format)","bytes":\#(bytes),"median_ms":\#(median(times))}"#)
    case "process":
        guard arguments.count >= 3 else { fail("process wants a processor spec") }
        let processor = try ProcessorSpec(parsing: arguments[2]).processor()
        let options = KingfisherParsedOptionsInfo([.processor(processor)])
        var item = ImageProcessItem.data(data)
        if arguments.contains("--predecode") {
            item = .image(try KFCrossPlatformImage(data: data))
        }
        var size = (0, 0)
        let times = measure(runs: runs) {
            guard let image = processor.process(item: item, options: options) else { fail("processing failed") }
            size = (image.pixelWidth, image.pixelHeight)
        }
        print(#"{"op":"process","file":"\#(path)","width":\#(size.0),"height":\#(size.1),"median_ms":\#(median(times))}"#)
    default:
        fail("unknown operation \(arguments[0])")
    }
} catch {
    fail("\(error)")
}
