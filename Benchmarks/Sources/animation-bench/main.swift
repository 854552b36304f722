import BenchSupport
import Foundation
import Kingfisher

// Plays a 400×400, 300-frame GIF through Animator and prints one JSON line.
//
//   animation-bench [--loops N] [--delay CENTISECONDS] [--window N]
//
// The GIF is made here (a moving gradient, encoded by the library), then decoded lazily and
// played in real time: a 60 Hz clock ticks the animator, as a window's frame clock would, for N
// loops (10 by default). Reported: the most decoded frames held at once and their bytes, against
// decoding every frame (300 × 400 × 400 × 4 bytes), and the late frames (a frame due before the
// background decoder had it). Run it on one core (`taskset -c 0`) to check the decoder keeps up.

let arguments = Array(CommandLine.arguments.dropFirst())
let loops = max(1, Int(option("--loops", in: arguments) ?? "10") ?? 10)
let delay = max(2, Int(option("--delay", in: arguments) ?? "2") ?? 2)
let window = max(1, Int(option("--window", in: arguments) ?? "10") ?? 10)
let side = 400
let frameCount = 300

func makeGIF() -> Data {
    var frames: [ImageFrame] = []
    frames.reserveCapacity(frameCount)
    for index in 0..<frameCount {
        var pixels = [UInt8](repeating: 255, count: side * side * 4)
        for y in 0..<side {
            for x in 0..<side {
                let offset = (y * side + x) * 4
                pixels[offset] = UInt8((x + index * 3) & 0xFF)
                pixels[offset + 1] = UInt8((y + index * 2) & 0xFF)
                pixels[offset + 2] = UInt8(((x ^ y) + index) & 0xFF)
            }
        }
        guard let frame = ImageFrame(width: side, height: side, pixels: pixels, duration: Double(delay) / 100) else {
            fail("bad frame")
        }
        frames.append(frame)
    }
    guard let image = KFCrossPlatformImage(frames: frames, loopCount: 0), let data = image.kf.gifRepresentation() else {
        fail("cannot encode the GIF")
    }
    return data
}

let data = makeGIF()
let image: KFCrossPlatformImage
do {
    image = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
} catch {
    fail("\(error)")
}
guard let source = image.frameSource else { fail("the GIF was not decoded lazily") }
let animator = Animator(frameSource: source, maxFrameCount: window)
await animator.waitUntilPreloaded()
let clock = ContinuousClock()
let start = clock.now
func now() -> Double {
    let elapsed = clock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}
animator.tick(at: now())
let tick = Duration.nanoseconds(16_666_667)
var next = clock.now
while animator.loopsPlayed < UInt(loops) {
    next += tick
    try? await clock.sleep(until: next)
    animator.tick(at: now())
}
let frameBytes = side * side * 4
let peak = animator.peakDecodedFrameCount
print("{\"frames\":\(frameCount),\"gif_bytes\":\(data.count),\"loops\":\(animator.loopsPlayed),\"seconds\":\(now()),"
      + "\"window\":\(window),\"peak_decoded_frames\":\(peak),\"peak_decoded_mb\":\(Double(peak * frameBytes) / 1e6),"
      + "\"decode_all_mb\":\(Double(frameCount * frameBytes) / 1e6),\"late_frames\":\(animator.lateFrameCount)}")
