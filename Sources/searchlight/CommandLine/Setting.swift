/// A value option declared once with its range and its default: the help line says the
/// default, the reader checks the range and falls back to it, so the three cannot drift.
struct Setting<Value: Comparable & Sendable>: Sendable {
    enum Kind: Sendable {
        case whole, number, duration
    }

    let spec: OptionSpec
    let kind: Kind
    let range: ClosedRange<Value>
    let defaultValue: Value

    /// - Parameter shown: how the default is said when the value alone would mislead
    ///   ("2 per core"); otherwise the value, a duration as `7d`.
    private init(_ name: String, _ valueName: String, help: String, kind: Kind, range: ClosedRange<Value>, default value: Value, shown: String) {
        spec = .value(name, valueName, help: "\(help) (default \(shown)).")
        self.kind = kind
        self.range = range
        defaultValue = value
    }
}

extension Setting where Value == Int {
    static func whole(_ name: String, _ valueName: String = "n", help: String, in range: ClosedRange<Int>, default value: Int,
                      shown: String? = nil) -> Setting {
        Setting(name, valueName, help: help, kind: .whole, range: range, default: value, shown: shown ?? String(value))
    }
}

extension Setting where Value == Double {
    static func number(_ name: String, _ valueName: String, help: String, in range: ClosedRange<Double>, default value: Double) -> Setting {
        let shown = value.rounded() == value ? String(Int(value)) : String(value)
        return Setting(name, valueName, help: help, kind: .number, range: range, default: value, shown: shown)
    }

    /// A duration as people write one (`90s`, `15m`, `2h`, `7d`), in seconds.
    static func duration(_ name: String, help: String, in range: ClosedRange<Double>, default value: Double) -> Setting {
        Setting(name, "duration", help: help, kind: .duration, range: range, default: value, shown: DurationText.text(value))
    }
}

extension ParsedArguments {
    func value(_ setting: Setting<Int>) throws(UsageError) -> Int {
        try int(setting.spec, in: setting.range) ?? setting.defaultValue
    }

    func value(_ setting: Setting<Double>) throws(UsageError) -> Double {
        switch setting.kind {
        case .duration: try duration(setting.spec, in: setting.range) ?? setting.defaultValue
        case .number, .whole: try double(setting.spec, in: setting.range) ?? setting.defaultValue
        }
    }
}
