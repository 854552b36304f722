import Foundation

/// Argument readers with the syntax and error rules of imgproxy's option parser; every refusal is
/// a 404, as imgproxy answers a malformed URL.
enum ImgproxyArguments {
    /// The 404 imgproxy answers for a URL it cannot read.
    static func invalid(_ reason: String) -> ImageServerError {
        ImageServerError(.notFound, "Invalid URL: \(reason)")
    }

    /// Go `strconv.ParseBool`.
    static func goBool(_ text: some StringProtocol) -> Bool? {
        switch text {
        case "1", "t", "T", "TRUE", "true", "True": return true
        case "0", "f", "F", "FALSE", "false", "False": return false
        default: return nil
        }
    }

    /// Refuses more than `count` arguments.
    static func atMost(_ count: Int, _ name: String, _ args: [String]) throws {
        guard args.count <= count else { throw invalid("invalid \(name) arguments: \(args)") }
    }

    /// One boolean; like imgproxy, text that is not a boolean reads as false.
    static func bool(_ name: String, _ args: [String]) throws -> Bool {
        try atMost(1, name, args)
        return goBool(args.first ?? "") ?? false
    }

    /// One integer ≥ 0.
    static func nonNegativeInt(_ name: String, _ arg: String) throws -> Int {
        guard let value = Int(arg), value >= 0 else { throw invalid("invalid \(name): \(arg) (expected positive number or 0)") }
        return value
    }

    /// One integer ≥ 0 as the only argument.
    static func nonNegativeInt(_ name: String, _ args: [String]) throws -> Int {
        try atMost(1, name, args)
        return try nonNegativeInt(name, args.first ?? "")
    }

    /// One finite number (Go `strconv.ParseFloat` syntax; infinities and NaN are refused).
    static func number(_ name: String, _ arg: String) throws -> Double {
        guard let value = Double(arg), value.isFinite else {
            throw invalid("invalid \(name): \(arg) (expected a number)")
        }
        return value
    }

    /// One finite number ≥ 0.
    static func nonNegativeNumber(_ name: String, _ arg: String) throws -> Double {
        let value = try number(name, arg)
        guard value >= 0 else { throw invalid("invalid \(name): \(arg) (expected positive number or 0)") }
        return value
    }

    /// One finite number > 0.
    static func positiveNumber(_ name: String, _ arg: String) throws -> Double {
        let value = try number(name, arg)
        guard value > 0 else { throw invalid("invalid \(name): \(arg) (expected positive number)") }
        return value
    }

    /// One quality, 0...100.
    static func quality(_ name: String, _ arg: String) throws -> Int {
        guard let value = Int(arg), (0...100).contains(value) else {
            throw invalid("invalid \(name): \(arg) (expected number in range 0-100)")
        }
        return value
    }

    /// A gravity (`type[:x[:y]]`, `sm`, `fp:x:y`) among `allowed`; an offset left out keeps the one of
    /// `previous` (imgproxy stores type and offsets under separate keys), `sm` clears both.
    static func gravity(_ name: String, _ args: [String], allowed: Set<ImgproxyGravity.Kind>,
                        previous: ImgproxyGravity?) throws -> ImgproxyGravity {
        guard let first = args.first, let kind = ImgproxyGravity.Kind(rawValue: first), allowed.contains(kind) else {
            let names = ImgproxyGravity.Kind.allCases.filter(allowed.contains).map(\.rawValue).joined(separator: ", ")
            throw invalid("invalid \(name): \(args.first ?? "") (expected \(names))")
        }
        var gravity = ImgproxyGravity(kind, x: previous?.x ?? 0, y: previous?.y ?? 0)
        switch kind {
        case .smart:
            guard args.count == 1 else { throw invalid("invalid \(name) arguments: \(args)") }
            return ImgproxyGravity(.smart)
        case .focusPoint:
            guard args.count == 3 else { throw invalid("invalid \(name) arguments: \(args)") }
        default:
            guard args.count <= 3 else { throw invalid("invalid \(name) arguments: \(args)") }
        }
        if args.count > 1, !args[1].isEmpty { gravity.x = try offset(name + ".x", args[1], kind) }
        if args.count > 2, !args[2].isEmpty { gravity.y = try offset(name + ".y", args[2], kind) }
        return gravity
    }

    /// A gravity offset; a focus-point coordinate must be 0...1.
    private static func offset(_ name: String, _ arg: String, _ kind: ImgproxyGravity.Kind) throws -> Double {
        let value = try number(name, arg)
        guard kind != .focusPoint || (0...1).contains(value) else { throw invalid("invalid \(name): \(arg)") }
        return value
    }

    /// A colour: `R:G:B` in decimal or one hex argument (`RGB` or `RRGGBB`).
    static func color(_ name: String, _ args: [String]) throws -> RenditionColor {
        switch args.count {
        case 1:
            guard let color = hexColor(args[0]) else { throw invalid("invalid \(name): \(args[0]) (expected hex-encoded color)") }
            return color
        case 3:
            let channels = try args.map { arg -> UInt8 in
                guard arg.allSatisfy(\.isASCIIDigit), let value = UInt8(arg) else {
                    throw invalid("invalid \(name): \(arg) (expected number in range 0-255)")
                }
                return value
            }
            return RenditionColor(red: channels[0], green: channels[1], blue: channels[2])
        default:
            throw invalid("invalid \(name) arguments: \(args)")
        }
    }

    /// `RGB` or `RRGGBB`, opaque.
    static func hexColor(_ text: String) -> RenditionColor? {
        guard text.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        let values = text.compactMap(\.hexDigitValue).map(UInt8.init)
        switch values.count {
        case 3: return RenditionColor(red: values[0] * 17, green: values[1] * 17, blue: values[2] * 17)
        case 6:
            return RenditionColor(red: values[0] << 4 | values[1], green: values[2] << 4 | values[3],
                                  blue: values[4] << 4 | values[5])
        default: return nil
        }
    }
}

extension Character {
    /// `0`...`9`.
    var isASCIIDigit: Bool { isASCII && isNumber }
}
