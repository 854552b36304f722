import Foundation
import Testing
@testable import Kingfisher

@Suite struct ResamplerTests {
    static let sizes: [(Int, Int)] = [(1, 1), (3, 7), (17, 9), (40, 30), (64, 64), (200, 150)]

    @Test(arguments: [RGBA8(r: 10, g: 200, b: 30, a: 255), RGBA8(r: 5, g: 100, b: 15, a: 128), RGBA8(r: 0, g: 0, b: 0, a: 0)])
    func constantImagesStayExactlyConstant(color: RGBA8) throws {
        let source = TestImages.solid(width: 37, height: 23, color).firstFrame
        for (width, height) in Self.sizes {
            let result = Resampler.resample(source, width: width, height: height)
            #expect(result.width == width && result.height == height)
            for y in 0..<height {
                for x in 0..<width where result.pixel(x: x, y: y) != color {
                    Issue.record("\(width)x\(height) at (\(x),\(y)): \(String(describing: result.pixel(x: x, y: y)))")
                    return
                }
            }
        }
    }

    @Test func weightsSumToOneAndStayInside() {
        for (input, output) in [(1920, 960), (1080, 540), (10, 3), (3, 10), (1, 5), (5, 1), (7, 7), (1000, 1)] {
            let weights = ResamplingWeights(inputCount: input, outputCount: output)
            for index in 0..<output {
                let start = weights.starts[index], count = weights.counts[index]
                #expect(start >= 0 && count >= 1 && start + count <= input)
                let sum = (0..<count).reduce(Float(0)) { $0 + weights.weights[index * weights.stride + $1] }
                #expect(abs(sum - 1) < 1e-5)
            }
        }
    }

    @Test func downscalingWidensTheKernel() {
        let half = ResamplingWeights(inputCount: 1000, outputCount: 500)
        let up = ResamplingWeights(inputCount: 500, outputCount: 1000)
        // In the middle, a 2x shrink reads 12 input pixels; a 2x enlargement reads 6.
        #expect(half.counts[250] == 12)
        #expect(up.counts[500] == 6)
        #expect(ResamplingWeights(inputCount: 9, outputCount: 9).counts.allSatisfy { $0 == 1 })
    }

    @Test func horizontalGradientStaysMonotonic() {
        let width = 256, height = 8
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(x)
                pixels[offset + 1] = UInt8(255 - x)
                pixels[offset + 2] = UInt8(x / 2)
            }
        }
        let source = ImageFrame(unchecked: width, height: height, pixels: pixels)
        for (outputWidth, outputHeight) in [(100, 5), (37, 8), (600, 20), (256, 3)] {
            let result = Resampler.resample(source, width: outputWidth, height: outputHeight)
            for y in 0..<outputHeight {
                for x in 1..<outputWidth {
                    let previous = result.pixel(x: x - 1, y: y)!, current = result.pixel(x: x, y: y)!
                    #expect(current.r >= previous.r && current.g <= previous.g && current.b >= previous.b)
                    #expect(current.a == 255)
                }
            }
            #expect(result.pixel(x: 0, y: 0)!.r < 4 && result.pixel(x: outputWidth - 1, y: 0)!.r > 251)
        }
    }

    @Test func premultipliedEdgesHaveNoDarkFringe() {
        // Left half transparent black, right half opaque red: the transition must be red faded by
        // alpha, never a darker red than alpha allows.
        let width = 40, height = 6
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in width / 2..<width {
                let offset = (y * width + x) * 4
                pixels[offset] = 255
                pixels[offset + 3] = 255
            }
        }
        let source = ImageFrame(unchecked: width, height: height, pixels: pixels)
        for (outputWidth, outputHeight) in [(13, 3), (91, 11), (7, 6)] {
            let result = Resampler.resample(source, width: outputWidth, height: outputHeight)
            for y in 0..<outputHeight {
                for x in 0..<outputWidth {
                    let pixel = result.pixel(x: x, y: y)!
                    #expect(pixel.r <= pixel.a && pixel.g == 0 && pixel.b == 0)
                    // Premultiplied red over transparent: the colour is the alpha (±1 for rounding),
                    // except where Lanczos ringing clipped alpha: then red can only be clipped too.
                    #expect(abs(Int(pixel.r) - Int(pixel.a)) <= 1)
                }
            }
        }
    }

    @Test func upscaleThenCompareWithSmoothSource() {
        let source = TestImages.gradientFrame(width: 50, height: 40)
        let up = Resampler.resample(source, width: 100, height: 80)
        let back = Resampler.resample(up, width: 50, height: 40)
        #expect(TestImages.meanDifference(source, back) < 1.5)
    }

    @Test func sameSizeIsTheFrameItself() {
        let source = TestImages.gradientFrame(width: 12, height: 9, alpha: true)
        #expect(Resampler.resample(source, width: 12, height: 9) == source)
        let onlyWider = Resampler.resample(source, width: 24, height: 9)
        #expect(onlyWider.height == 9 && onlyWider.width == 24)
    }
}
