import Foundation

extension ProcessorSpec {
    /// `watermark(FILE,OPACITY[,POSITION][,SCALE])`: the image in `FILE` (a path without commas or
    /// parentheses) drawn at `OPACITY` (0...1). `POSITION` is a compass gravity with optional
    /// `:X:Y` offsets (default `southEast`) or `repeat`; `SCALE` (above 0) is the share of the
    /// image's width and height the watermark may take (default: its own size).
    static func watermarkProcessor(_ step: Step, readsFiles: Bool) throws -> any ImageProcessor {
        let usage = "watermark(FILE,OPACITY[,POSITION][,SCALE])"
        try step.expectArguments(2, 4, usage: usage)
        guard readsFiles else {
            throw ProcessorSpecError(step: step.text, reason: "watermark reads a file, which is not allowed here")
        }
        let path = step.arguments[0]
        // Only a regular file: a device or a pipe could be read for ever.
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        guard type == .typeRegular, let data = FileManager.default.contents(atPath: path) else {
            throw ProcessorSpecError(step: step.text, reason: "the watermark file '\(path)' cannot be read")
        }
        guard let mark = try? KFCrossPlatformImage(data: data) else {
            throw ProcessorSpecError(step: step.text, reason: "the watermark file '\(path)' is not an image this library reads")
        }
        let opacity = try step.number(1, "the opacity")
        guard (0...1).contains(opacity) else {
            throw ProcessorSpecError(step: step.text, reason: "the opacity must be between 0 and 1")
        }
        var x = WatermarkAxis.end(.pixels(0)), y = WatermarkAxis.end(.pixels(0))
        if step.arguments.count > 2 {
            (x, y) = try watermarkAxes(step, index: 2)
        }
        var scale = WatermarkScale.original
        if step.arguments.count > 3 {
            let share = Double(try step.number(3, "the scale"))
            guard share > 0 else { throw ProcessorSpecError(step: step.text, reason: "the scale must be positive") }
            scale = WatermarkScale(width: share, height: share)
        }
        return WatermarkImageProcessor(watermark: mark, opacity: opacity, x: x, y: y, scale: scale)
    }

    /// The axes of a `POSITION` argument: `repeat`, or a compass gravity with offsets.
    private static func watermarkAxes(_ step: Step, index: Int) throws -> (WatermarkAxis, WatermarkAxis) {
        if step.arguments[index].lowercased() == "repeat" { return (.spread, .spread) }
        guard case .compass(let compass, let xOffset, let yOffset) = try step.gravity(index) else {
            throw ProcessorSpecError(step: step.text, reason: "the position must be a compass name with optional :X:Y offsets, or repeat")
        }
        func offset(_ value: CGFloat) -> WatermarkOffset {
            abs(value) >= 1 ? .pixels(Int(value.rounded())) : .fraction(Double(value))
        }
        let horizontal: WatermarkAxis
        switch compass {
        case .west, .northWest, .southWest: horizontal = .start(offset(xOffset))
        case .east, .northEast, .southEast: horizontal = .end(offset(xOffset))
        case .center, .north, .south: horizontal = .center(offset(xOffset))
        }
        let vertical: WatermarkAxis
        switch compass {
        case .north, .northWest, .northEast: vertical = .start(offset(yOffset))
        case .south, .southWest, .southEast: vertical = .end(offset(yOffset))
        case .center, .west, .east: vertical = .center(offset(yOffset))
        }
        return (horizontal, vertical)
    }
}
