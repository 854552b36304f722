import Foundation
import Testing
@testable import KingfisherServer

/// Sizes and steps of ``ImgproxyGeometry``.
///
/// Sources of the expectations:
/// - "pt" — imgproxy 4 `processing/processing_test.go` (`TestResizeToFit*`, `TestResizeToFill*`,
///   `TestResizeToFillDown*`), all on its 200×100 `geometry.png`;
/// - "pad" — `processing/padding_test.go` (200×100, `padding:20:30:40:10`, `enlarge:1`);
/// - "crop" — `processing/crop_test.go` `TestResizeFill` (200×100, `rs:fill:100:26`, with `dpr:2`);
/// - "docs" — docs/usage/processing.mdx (min-width crops to width; auto = fill when orientations match);
/// - "hand" — worked by hand through `prepare.go` `calcScale`/`calcSizes`, `calc_position.go` and
///   `gravity.go`, with Go's `math.Round`/`math.RoundToEven`; each such case notes the arithmetic.
@Suite("imgproxy geometry")
struct ImgproxyGeometryTests {
    struct SizeCase: CustomStringConvertible, Sendable {
        let options: String
        let source: (Int, Int)
        let size: (Int, Int)
        let origin: String
        var description: String { "\(origin) \(source.0)x\(source.1) /\(options) → \(size.0)x\(size.1)" }
    }

    static let sizes: [SizeCase] = [
        // pt TestResizeToFit
        .init(options: "rs:fit:50:50", source: (200, 100), size: (50, 25), origin: "pt"),
        .init(options: "rs:fit:50:20", source: (200, 100), size: (40, 20), origin: "pt"),
        .init(options: "rs:fit:20:50", source: (200, 100), size: (20, 10), origin: "pt"),
        .init(options: "rs:fit:300:300", source: (200, 100), size: (200, 100), origin: "pt"),
        .init(options: "rs:fit:100:300", source: (200, 100), size: (100, 50), origin: "pt"),
        .init(options: "rs:fit:0:50", source: (200, 100), size: (100, 50), origin: "pt"),
        .init(options: "rs:fit:300:0", source: (200, 100), size: (200, 100), origin: "pt"),
        // pt TestResizeToFitEnlarge
        .init(options: "rs:fit:300:300/el:1", source: (200, 100), size: (300, 150), origin: "pt"),
        .init(options: "rs:fit:300:125/el:1", source: (200, 100), size: (250, 125), origin: "pt"),
        .init(options: "rs:fit:0:200/el:1", source: (200, 100), size: (400, 200), origin: "pt"),
        // pt TestResizeToFitExtend
        .init(options: "rs:fit:50:20/ex:1", source: (200, 100), size: (50, 20), origin: "pt"),
        .init(options: "rs:fit:300:300/ex:1", source: (200, 100), size: (300, 300), origin: "pt"),
        .init(options: "rs:fit:250:300/ex:1", source: (200, 100), size: (250, 300), origin: "pt"),
        .init(options: "rs:fit:0:200/ex:1", source: (200, 100), size: (200, 200), origin: "pt"),
        .init(options: "rs:fit:300:0/ex:1", source: (200, 100), size: (300, 100), origin: "pt"),
        // pt TestResizeToFitExtendAR
        .init(options: "rs:fit:300:300/exar:1", source: (200, 100), size: (200, 200), origin: "pt"),
        .init(options: "rs:fit:300:125/exar:1", source: (200, 100), size: (240, 100), origin: "pt"),
        .init(options: "rs:fit:250:500/exar:1", source: (200, 100), size: (200, 400), origin: "pt"),
        .init(options: "rs:fit:0:200/exar:1", source: (200, 100), size: (200, 100), origin: "pt"),
        // pt TestResizeToFill
        .init(options: "rs:fill:50:20", source: (200, 100), size: (50, 20), origin: "pt"),
        .init(options: "rs:fill:20:50", source: (200, 100), size: (20, 50), origin: "pt"),
        .init(options: "rs:fill:300:300", source: (200, 100), size: (200, 100), origin: "pt"),
        .init(options: "rs:fill:300:50", source: (200, 100), size: (200, 50), origin: "pt"),
        .init(options: "rs:fill:100:300", source: (200, 100), size: (100, 100), origin: "pt"),
        .init(options: "rs:fill:50:0", source: (200, 100), size: (50, 25), origin: "pt"),
        // pt TestResizeToFillEnlarge / Extend / ExtendAR
        .init(options: "rs:fill:300:300/el:1", source: (200, 100), size: (300, 300), origin: "pt"),
        .init(options: "rs:fill:300:0/el:1", source: (200, 100), size: (300, 150), origin: "pt"),
        .init(options: "rs:fill:300:50/ex:1", source: (200, 100), size: (300, 50), origin: "pt"),
        .init(options: "rs:fill:100:300/ex:1", source: (200, 100), size: (100, 300), origin: "pt"),
        .init(options: "rs:fill:250:500/exar:1", source: (200, 100), size: (200, 400), origin: "pt"),
        .init(options: "rs:fill:100:300/exar:1", source: (200, 100), size: (100, 300), origin: "pt"),
        // pt TestResizeToFillDown*
        .init(options: "rs:fill-down:300:300", source: (200, 100), size: (100, 100), origin: "pt"),
        .init(options: "rs:fill-down:300:125", source: (200, 100), size: (200, 83), origin: "pt"),
        .init(options: "rs:fill-down:250:300", source: (200, 100), size: (83, 100), origin: "pt"),
        .init(options: "rs:fill-down:0:200", source: (200, 100), size: (200, 100), origin: "pt"),
        .init(options: "rs:fill-down:300:125/el:1", source: (200, 100), size: (300, 125), origin: "pt"),
        .init(options: "rs:fill-down:300:300/ex:1", source: (200, 100), size: (300, 300), origin: "pt"),
        .init(options: "rs:fill-down:300:125/exar:1", source: (200, 100), size: (200, 83), origin: "pt"),
        // pad TestPadding: dpr scales the image (it cannot enlarge at 0.5) and the padding, even-rounded.
        .init(options: "dpr:0.5/pd:20:30:40:10/bg:f00/el:1", source: (200, 100), size: (120, 80), origin: "pad"),
        .init(options: "dpr:1/pd:20:30:40:10/bg:f00/el:1", source: (200, 100), size: (240, 160), origin: "pad"),
        .init(options: "dpr:2/pd:20:30:40:10/bg:f00/el:1", source: (200, 100), size: (480, 320), origin: "pad"),
        // crop TestResizeFill with DPR: fill 100x26 at dpr 2 keeps the full 200 px width, no enlarging.
        .init(options: "rs:fill:100:26/dpr:2", source: (200, 100), size: (200, 52), origin: "crop"),
        // docs: auto is fill when both are landscape, fit otherwise.
        .init(options: "rs:auto:100:50", source: (200, 100), size: (100, 50), origin: "docs"),
        .init(options: "rs:auto:50:100", source: (200, 100), size: (50, 25), origin: "docs"),
        // hand: force ignores the aspect; 0 keeps the source side (dstH = srcH, hshrink 1).
        .init(options: "rs:force:50:50", source: (200, 100), size: (50, 50), origin: "hand"),
        .init(options: "rs:force:50:0", source: (200, 100), size: (50, 100), origin: "hand"),
        // hand: 333x500 fit 100x100 → shrink max(3.33, 5) = 5 → 66.6 → 67.
        .init(options: "rs:fit:100:100", source: (333, 500), size: (67, 100), origin: "hand"),
        // hand: 200x5 w:100 → 5 / 2 = 2.5 → Go math.Round → 3 (half away from zero).
        .init(options: "w:100", source: (200, 5), size: (100, 3), origin: "hand"),
        // hand: zoom multiplies after sizing; above 1 it cannot enlarge without el.
        .init(options: "z:0.5", source: (200, 100), size: (100, 50), origin: "hand"),
        .init(options: "z:0.5:0.25", source: (200, 100), size: (100, 25), origin: "hand"),
        .init(options: "z:2", source: (200, 100), size: (200, 100), origin: "hand"),
        .init(options: "rs:fit:50:50/z:2/el:1", source: (200, 100), size: (100, 50), origin: "hand"),
        // hand: dpr with enlarge doubles; without, it stops at the source size.
        .init(options: "rs:fit:50:50/dpr:2", source: (200, 100), size: (100, 50), origin: "hand"),
        .init(options: "rs:fit:300:300/dpr:2", source: (200, 100), size: (200, 100), origin: "hand"),
        // docs + hand: min-width scales up to 100 wide, then the result is cropped to the height 40.
        .init(options: "rs:fit:0:40/mw:100", source: (200, 100), size: (100, 40), origin: "docs"),
        .init(options: "rs:fit:0:25/mh:50", source: (200, 100), size: (100, 25), origin: "hand"),
        // hand: crop before resize (absolute, relative), then fit.
        .init(options: "c:100:50/rs:fit:50:50", source: (200, 100), size: (50, 25), origin: "hand"),
        .init(options: "c:0.5:0.5", source: (200, 100), size: (100, 50), origin: "hand"),
        .init(options: "c:300:0", source: (200, 100), size: (200, 100), origin: "hand"),
        // hand: rotation sizes in the result's orientation.
        .init(options: "rot:90/rs:fit:50:100", source: (200, 100), size: (50, 100), origin: "hand"),
        .init(options: "rot:270/rs:fill:50:50", source: (200, 100), size: (50, 50), origin: "hand"),
        .init(options: "rot:180", source: (200, 100), size: (200, 100), origin: "hand"),
        .init(options: "rot:-90", source: (200, 100), size: (100, 200), origin: "hand"),
        // hand: CSS-style padding.
        .init(options: "pd:10", source: (200, 100), size: (220, 120), origin: "hand"),
        .init(options: "pd:10:20", source: (200, 100), size: (240, 120), origin: "hand"),
        .init(options: "pd:1:2:3", source: (200, 100), size: (204, 104), origin: "hand"),
    ]

    @Test("output sizes", arguments: sizes)
    func outputSize(_ testCase: SizeCase) throws {
        let geometry = try Self.geometry(testCase.options)
        let size = Self.size(after: geometry.steps(width: testCase.source.0, height: testCase.source.1),
                             from: testCase.source)
        #expect(size.0 == testCase.size.0 && size.1 == testCase.size.1, "\(testCase) gave \(size.0)x\(size.1)")
    }

    struct StepCase: CustomStringConvertible, Sendable {
        let options: String
        let steps: [GeometryStep]
        let note: String
        var description: String { "/\(options)" }
    }

    /// All on a 200×100 source.
    static let stepCases: [StepCase] = [
        .init(options: "rs:fill:100:26", steps: [.scale(width: 100, height: 50), .crop(x: 0, y: 12, width: 100, height: 26)],
              note: "crop: top = RoundToEven((50-26+1)/2) = RoundToEven(12.5) = 12"),
        .init(options: "rs:fill:100:26/g:no", steps: [.scale(width: 100, height: 50), .crop(x: 0, y: 0, width: 100, height: 26)],
              note: "north: top 0"),
        .init(options: "rs:fill:100:26/g:so", steps: [.scale(width: 100, height: 50), .crop(x: 0, y: 24, width: 100, height: 26)],
              note: "south: 50-26"),
        .init(options: "rs:fill:26:100/g:ea", steps: [.crop(x: 174, y: 0, width: 26, height: 100)],
              note: "fill shrink min(7.7, 1) = 1: no scaling; east: 200-26"),
        .init(options: "rs:fill:100:100/g:sm", steps: [.smartCrop(width: 100, height: 100)],
              note: "sm: libvips smartcrop of the result box"),
        .init(options: "rs:fill:100:100/g:fp:0.6:0.5", steps: [.crop(x: 70, y: 0, width: 100, height: 100)],
              note: "fp: RoundToEven(200×0.6) − 100/2 = 70"),
        .init(options: "rs:fill:100:100/g:fp:1:1", steps: [.crop(x: 100, y: 0, width: 100, height: 100)],
              note: "fp clamped inside"),
        .init(options: "rs:fill:100:100/g:ce:0.1", steps: [.crop(x: 70, y: 0, width: 100, height: 100)],
              note: "relative offset: RoundToEven(101/2) = 50, + RoundToEven(200×0.1) = 20"),
        .init(options: "rs:fill:100:100/g:ea:-500", steps: [.crop(x: 100, y: 0, width: 100, height: 100)],
              note: "east: 200−100+500 clamped to 100"),
        .init(options: "rs:fill:50:50/g:we:10/dpr:2", steps: [.crop(x: 20, y: 0, width: 100, height: 100)],
              note: "dpr 2: target 100x100, no scaling (shrink 2 / dpr 2), pixel offset × dpr = 20"),
        .init(options: "c:100:50/rs:fit:50:50", steps: [.crop(x: 50, y: 26, width: 100, height: 50), .scale(width: 50, height: 25)],
              note: "crop first: left RoundToEven(101/2) = 50, top RoundToEven(51/2) = 26; then fit"),
        .init(options: "c:0.5:0.5:nowe", steps: [.crop(x: 0, y: 0, width: 100, height: 50)],
              note: "relative crop with its own gravity"),
        .init(options: "rot:90/c:50:100:no", steps: [.crop(x: 0, y: 26, width: 100, height: 50), .rotate(quarterTurns: 1)],
              note: "crop before turning: sides swapped, north turned back to west"),
        .init(options: "fl:1/c:100:100:we", steps: [.crop(x: 100, y: 0, width: 100, height: 100), .flip(horizontal: true, vertical: false)],
              note: "crop before flipping: west becomes east"),
        .init(options: "rot:90/rs:fill:50:50", steps: [.scale(width: 100, height: 50), .rotate(quarterTurns: 1),
                                                     .crop(x: 0, y: 26, width: 50, height: 50)],
              note: "scale, turn, then crop the 50x100 result at its centre: RoundToEven(51/2) = 26"),
        .init(options: "rs:fit:300:300/ex:1", steps: [.extend(width: 300, height: 300, x: 50, y: 100, background: .clear)],
              note: "centre: RoundToEven(101/2) = 50, RoundToEven(201/2) = 100; transparent"),
        .init(options: "rs:fit:300:300/ex:1:so/bg:ff0000",
              steps: [.extend(width: 300, height: 300, x: 50, y: 200, background: RenditionColor(red: 255, green: 0, blue: 0))],
              note: "south: 300−100; bg colours the canvas"),
        .init(options: "rs:fit:300:300/ex:1:nowe:10:5",
              steps: [.extend(width: 300, height: 300, x: 10, y: 5, background: .clear)],
              note: "north-west with pixel offsets"),
        .init(options: "pd:10:20", steps: [.extend(width: 240, height: 120, x: 20, y: 10, background: .clear)],
              note: "padding top/bottom 10, left/right 20"),
        .init(options: "rs:fit:0:40/mw:100", steps: [.scale(width: 100, height: 50), .crop(x: 0, y: 6, width: 100, height: 40)],
              note: "min-width raises the scale to 0.5; the result is cropped to h 40 at RoundToEven(11/2) = 6"),
        .init(options: "w:200", steps: [], note: "nothing to do"),
    ]

    @Test("resolved steps", arguments: stepCases)
    func resolvedSteps(_ testCase: StepCase) throws {
        let geometry = try Self.geometry(testCase.options)
        #expect(geometry.steps(width: 200, height: 100) == testCase.steps, "\(testCase.note)")
    }

    @Test("the description names every field, so different geometry never shares a cache key")
    func descriptions() throws {
        let variants = ["rs:fit:10:10", "rs:fill:10:10", "rs:fit:10:11", "mw:5", "mh:5", "z:2", "dpr:2", "el:1",
                        "ex:1", "ex:1:so", "exar:1", "exar:1:no", "g:so", "g:ce:1:2", "c:5:5", "c:5:5:no", "rot:90",
                        "fl:1", "fl:0:1", "pd:1", "pd:0:1", "pd:0:0:1", "pd:0:0:0:1", "bg:fff", "w:1", "h:1"]
        let descriptions = try variants.map { try Self.geometry($0).description }
        #expect(Set(descriptions).count == variants.count)
        #expect(try Self.geometry("").description != descriptions[0])
    }

    @Test("no input makes the steps overflow or trap")
    func extremes() throws {
        for options in ["z:0.0000001/el:1", "z:100000000/el:1", "rs:fit:2147483647:1/el:1", "dpr:1e300/el:1/pd:1000",
                        "c:1e300:1e300", "g:ce:1e300:-1e300/rs:fill:1:1", "mw:999999999/mh:1"] {
            let steps = try Self.geometry(options).steps(width: 3, height: 2)
            let size = Self.size(after: steps, from: (3, 2))
            #expect(size.0 >= 1 && size.1 >= 1, "\(options)")
        }
        #expect(try Self.geometry("w:10").steps(width: 0, height: 10).isEmpty)
    }

    /// The geometry the option segments `options` (`/`-separated) set.
    static func geometry(_ options: String) throws -> ImgproxyGeometry {
        var parsed = ImgproxyOptions()
        let segments = options.split(separator: "/")
        try parsed.apply(segments: segments, presets: ImgproxyPresets([:]), now: Date())
        return parsed.geometry
    }

    /// The image size after `steps`.
    static func size(after steps: [GeometryStep], from source: (Int, Int)) -> (Int, Int) {
        var size = source
        for step in steps {
            switch step {
            case .crop(_, _, let width, let height): size = (min(width, size.0), min(height, size.1))
            case .smartCrop(let width, let height), .scale(let width, let height): size = (width, height)
            case .flip: break
            case .rotate(let turns): if turns % 2 != 0 { size = (size.1, size.0) }
            case .extend(let width, let height, _, _, _), .fill(let width, let height, _, _, _, _): size = (width, height)
            }
        }
        return size
    }
}
