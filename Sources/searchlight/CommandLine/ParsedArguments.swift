/// Command-line arguments parsed against a ``CommandSpec``: positionals, option values
/// (`--name value` or `--name=value`) and flags, with typed accessors that turn bad
/// values into ``UsageError``s.
struct ParsedArguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    init(_ arguments: ArraySlice<String>, spec: CommandSpec) throws(UsageError) {
        let optionsByName = Dictionary(spec.options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = arguments.startIndex
        var onlyPositionals = false
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = optionsByName[name] else {
                throw UsageError("unknown option '\(name)'")
            }
            guard option.valueName != nil else {
                if inlineValue != nil { throw UsageError("option '\(name)' takes no value") }
                flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.endIndex else { throw UsageError("option '\(name)' needs a value") }
                value = arguments[index]
                index += 1
            }
            if !option.isRepeatable, values[name] != nil {
                throw UsageError("option '\(name)' given more than once")
            }
            values[name, default: []].append(value)
        }
        let maximum = spec.arguments.contains(where: \.isRepeating) ? Int.max : spec.arguments.count
        let minimum = spec.arguments.filter { !$0.isOptional && !$0.isRepeating }.count
            + (spec.arguments.contains { $0.isRepeating && !$0.isOptional } ? 1 : 0)
        if positionals.count > maximum {
            throw UsageError("unexpected argument '\(positionals[maximum])'")
        }
        if positionals.count < minimum {
            let missing = spec.arguments.filter { !$0.isOptional }[min(positionals.count, spec.arguments.count - 1)]
            throw UsageError("missing <\(missing.name)>")
        }
    }

    func flag(_ option: OptionSpec) -> Bool { flags.contains(option.name) }

    func value(_ option: OptionSpec) -> String? { values[option.name]?.last }

    func values(_ option: OptionSpec) -> [String] { values[option.name] ?? [] }

    func int(_ option: OptionSpec, in range: ClosedRange<Int> = Int.min...Int.max) throws(UsageError) -> Int? {
        let name = option.name
        guard let text = value(option) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("option '\(name)' needs \(Self.describe(range)), not '\(text)'")
        }
        return number
    }

    func double(_ option: OptionSpec, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        let name = option.name
        guard let text = value(option) else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw UsageError("option '\(name)' needs a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// A duration (`90`, `90s`, `15m`, `2h`, `7d`, `1h30m`) in seconds.
    func duration(_ option: OptionSpec, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        let name = option.name
        guard let text = value(option) else { return nil }
        guard let seconds = DurationText.seconds(text), range.contains(seconds) else {
            throw UsageError("option '\(name)' needs a duration such as 90s, 15m, 2h or 7d, from \(Int(range.lowerBound)) "
                + "to \(Int(range.upperBound)) seconds, not '\(text)'")
        }
        return seconds
    }

    private static func describe(_ range: ClosedRange<Int>) -> String {
        if range.upperBound == Int.max { return "a whole number of at least \(range.lowerBound)" }
        return "a whole number from \(range.lowerBound) to \(range.upperBound)"
    }
}
