import Foundation
import KingfisherServer

/// Takes each `kf serve` setting from its flag, else its `KF_SERVE_*` variable, else the values
/// imported from imgproxy's variables and thumbor.conf, else its default, recording the origin.
struct Resolver {
    let environment: [String: String]
    /// Values read from imgproxy's variables and thumbor.conf, by flag name.
    var imported: [String: ImportedValue] = [:]
    /// `kf serve config`'s lines, in resolution order.
    var report: [ReportLine] = []
    /// Where each resolved setting came from.
    private(set) var origins: [String: SettingOrigin] = [:]

    init(environment: [String: String]) { self.environment = environment }

    /// Whether `name` was given by its flag or its `KF_SERVE_*` variable.
    func isExplicit(_ name: String) -> Bool { origins[name]?.isExplicit ?? false }

    /// The value of `name`, parsed from its variable by `parse` when no flag gave it.
    private mutating func resolve<T>(
        _ name: String, flag: T?, expected: String, alsoVariable: String? = nil, show: (T) -> String = { "\($0)" },
        parse: (String) -> T?, check: (T) -> Bool = { _ in true }
    ) throws -> T? {
        let setting = ServeSetting.named(name)
        var result: (T, SettingOrigin)?
        if let flag {
            guard check(flag) else { throw CLIError.usage("--\(name) must be \(expected); got \(show(flag))") }
            result = (flag, .flag(name))
        } else if let variable = [setting.variable, alsoVariable].compactMap({ $0 }).first(where: { self.environment[$0]?.isEmpty == false }),
                  let text = environment[variable] {
            guard let value = parse(text.trimmingCharacters(in: .whitespaces)), check(value) else {
                throw CLIError.usage("\(variable)=\(text): must be \(expected)")
            }
            result = (value, .variable(variable))
        } else if let imported = imported[name], let value = imported.value as? T {
            result = (value, imported.origin)
        }
        guard let result else { return nil }
        let (value, origin) = result
        origins[name] = origin
        report.append(ReportLine(setting: name, value: show(value), origin: origin.description))
        return value
    }

    private mutating func reportDefault(_ name: String, _ value: String) {
        origins[name] = .default
        report.append(ReportLine(setting: name, value: value, origin: SettingOrigin.default.description))
    }

    /// Text; `shownDefault` is what `kf serve config` shows when nothing gives it (nothing is shown
    /// then unless `reportsDefault`: the caller reports with ``reportFallback(_:_:origin:)``).
    mutating func string(_ name: String, flag: String?, shownDefault: String = "-", reportsDefault: Bool = true) throws -> String? {
        let value = try resolve(name, flag: flag, expected: "text", parse: { $0 })
        if value == nil, reportsDefault { reportDefault(name, shownDefault) }
        return value
    }

    /// Reports `value` for `name`, which nothing of kf's gave, as read from `origin` (a variable
    /// of another tool's, such as `AWS_REGION`, or the default).
    mutating func reportFallback(_ name: String, _ value: String, origin: String) {
        origins[name] = .default
        report.append(ReportLine(setting: name, value: value, origin: origin))
    }

    /// How `name` was given `value`, for a refusal: `--NAME VALUE`, `VARIABLE=VALUE` or `PATH: NAME = VALUE`.
    func given(_ name: String, _ value: String) -> String {
        switch origins[name] {
        case .variable(let variable)?, .imgproxy(let variable)?: return "\(variable)=\(value)"
        case .file(let setting, let path)?: return "\(path): \(setting) = \(value)"
        case .flag?, .default?, nil: return "--\(name) \(value)"
        }
    }

    /// The report in the order of ``ServeSetting/all``, the grammars' own settings after.
    var orderedReport: [ReportLine] {
        let order = Dictionary(ServeSetting.all.enumerated().map { ($0.element.flag, $0.offset) }, uniquingKeysWith: { first, _ in first })
        return report.enumerated().sorted { lhs, rhs in
            let left = order[lhs.element.setting] ?? Int.max, right = order[rhs.element.setting] ?? Int.max
            return left != right ? left < right : lhs.offset < rhs.offset
        }.map(\.element)
    }

    /// A key or salt: reported as set, never shown.
    mutating func secret(_ name: String, flag: String?, alsoVariable: String? = nil) throws -> String? {
        let value = try resolve(name, flag: flag.flatMap { $0.isEmpty ? nil : $0 }, expected: "text", alsoVariable: alsoVariable,
                                show: { _ in "(set)" }, parse: { $0 })
        if value == nil { reportDefault(name, "-") }
        return value
    }

    mutating func int(_ name: String, flag: Int?, range: ClosedRange<Int>, default value: Int) throws -> Int {
        if let resolved = try optionalInt(name, flag: flag, range: range, reportsDefault: false) { return resolved }
        reportDefault(name, String(value))
        return value
    }

    mutating func optionalInt(_ name: String, flag: Int?, range: ClosedRange<Int>, reportsDefault: Bool = true) throws -> Int? {
        let expected = range.upperBound == Int.max ? "a whole number, \(range.lowerBound) or more" : "a whole number in \(range.lowerBound)...\(range.upperBound)"
        let value = try resolve(name, flag: flag, expected: expected, parse: { Int($0) }, check: { range.contains($0) })
        if value == nil, reportsDefault { reportDefault(name, "-") }
        return value
    }

    mutating func int64(_ name: String, flag: Int64?, default value: Int64) throws -> Int64 {
        if let resolved = try resolve(name, flag: flag, expected: "a whole number, 1 or more", parse: { Int64($0) }, check: { $0 >= 1 }) {
            return resolved
        }
        reportDefault(name, String(value))
        return value
    }

    mutating func seconds(_ name: String, flag: Double?, default value: Double, allowsZero: Bool = false, maximum: Double? = nil) throws -> Double {
        let expected = (allowsZero ? "0" : "more than 0") + (maximum.map { "...\(Int($0))" } ?? "") + " seconds"
        let resolved = try resolve(name, flag: flag, expected: expected, show: { Self.number($0) }, parse: { Double($0) }, check: {
            $0.isFinite && (allowsZero ? $0 >= 0 : $0 > 0) && $0 <= (maximum ?? .greatestFiniteMagnitude)
        })
        if let resolved { return resolved }
        reportDefault(name, Self.number(value))
        return value
    }

    mutating func bool(_ name: String, flag: Bool?, default value: Bool) throws -> Bool {
        if let resolved = try resolve(name, flag: flag, expected: "true or false (1, 0, yes, no, on, off)", parse: Self.bool) {
            return resolved
        }
        reportDefault(name, String(value))
        return value
    }

    /// A repeatable option: the flag's values, else the variable's, each split at commas.
    mutating func list(_ name: String, flag: [String]) throws -> [String] {
        let values = try resolve(name, flag: flag.isEmpty ? nil : Self.commaSeparated(flag), expected: "a comma-separated list",
                                 show: { $0.joined(separator: ",") }, parse: { Self.commaSeparated([$0]) })
        if values == nil { reportDefault(name, "-") }
        return values ?? []
    }

    /// The allowed sources, and the settings they came from (for refusals).
    mutating func allowList(flag: [String]) throws -> ([SourceRule], [String]) {
        let name = "allow-host"
        let kf = try resolve(name, flag: flag.isEmpty ? nil : Self.commaSeparated(flag).map { SourceRule.kf($0) },
                             expected: "a comma-separated list", show: Self.show, parse: { Self.commaSeparated([$0]).map { SourceRule.kf($0) } })
        guard let rules = kf else {
            reportDefault(name, "-")
            return ([], [])
        }
        switch origins[name] {
        case .variable(let variable)?: return (rules, ["kf serve --allow-host or \(variable)"])
        case .imgproxy(let variable)?: return (rules, [variable])
        case .file(let setting, let path)?: return (rules, ["\(setting) in \(path)"])
        default: return (rules, ["kf serve --allow-host"])
        }
    }

    static func show(_ rules: [SourceRule]) -> String {
        rules.map { rule in
            switch rule {
            case .kf(let text), .imgproxyPattern(let text): return text
            case .thumborHost(let text): return "'\(text)'"
            case .thumborURLPattern(let text): return "re.compile('\(text)')"
            }
        }.joined(separator: ",")
    }

    /// `1`, `0.5`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: return nil
        }
    }

    /// Every value, each split at commas, trimmed, empty ones dropped.
    static func commaSeparated(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
