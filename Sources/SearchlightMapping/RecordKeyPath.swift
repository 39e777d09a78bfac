import TextUtilities

/// A key path as key-value coding reads it (`company.name`, `employees.@count`,
/// `employees.@sum.salary`): relationship names to follow, then either an attribute or an
/// aggregate over the to-many relationship reached. Pure.
public struct RecordKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// The aggregates KVC's collection operators compute.
    public enum Aggregate: String, Sendable, Hashable, CaseIterable {
        case count = "@count", sum = "@sum", min = "@min", max = "@max", avg = "@avg"
    }

    /// The names before the operator (`["company", "name"]`, `["employees"]`).
    public var steps: [String]
    public var aggregate: Aggregate?
    /// For `@sum`/`@min`/`@max`/`@avg`: the key path read on each member (`["salary"]`).
    public var memberSteps: [String]

    /// Why a key path's text is not one.
    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case emptyName
        case unknownOperator(String)
        case operatorNeedsKey(String)
        case countTakesNoKey
        case misplacedOperator

        public var description: String {
            switch self {
            case .empty: "an empty key path"
            case .emptyName: "an empty name between dots"
            case .unknownOperator(let name): "unknown operator \(name) (use @count, @sum, @min, @max or @avg)"
            case .operatorNeedsKey(let name): "\(name) needs the key to aggregate after it (\(name).salary)"
            case .countTakesNoKey: "@count takes no key after it"
            case .misplacedOperator: "an operator must follow a relationship name and come once"
            }
        }
    }

    /// At most this many names in a key path: deeper paths are a mistake, not a model.
    public static let maximumSteps = 16

    public init(parsing text: String) throws(ParseError) {
        let names = text.split(separator: ".", omittingEmptySubsequences: false).map { String($0).trimmingASCIIWhitespace() }
        guard !text.isEmpty, names != [""] else { throw .empty }
        guard names.allSatisfy({ !$0.isEmpty }), names.count <= Self.maximumSteps else { throw .emptyName }
        guard let operatorIndex = names.firstIndex(where: { $0.hasPrefix("@") }) else {
            self.init(steps: names, aggregate: nil, memberSteps: [])
            return
        }
        guard let aggregate = Aggregate(rawValue: names[operatorIndex]) else { throw .unknownOperator(names[operatorIndex]) }
        let member = Array(names[(operatorIndex + 1)...])
        guard operatorIndex > 0, !member.contains(where: { $0.hasPrefix("@") }) else { throw .misplacedOperator }
        if aggregate == .count {
            guard member.isEmpty else { throw .countTakesNoKey }
        } else if member.isEmpty {
            throw .operatorNeedsKey(aggregate.rawValue)
        }
        self.init(steps: Array(names[..<operatorIndex]), aggregate: aggregate, memberSteps: member)
    }

    public init(steps: [String], aggregate: Aggregate? = nil, memberSteps: [String] = []) {
        self.steps = steps
        self.aggregate = aggregate
        self.memberSteps = memberSteps
    }

    public var description: String {
        (steps + (aggregate.map { [$0.rawValue] } ?? []) + memberSteps).joined(separator: ".")
    }
}

extension RecordKeyPath.Aggregate {
    /// `@count`, `@sum`, `@avg`, `@min`, `@max` as KVC computes them: over numbers, or for
    /// `@min` and `@max` over text when the values are not numbers. An empty sum is 0; an
    /// empty average, minimum or maximum has no value. `extremum` writes a minimum or
    /// maximum number as its attribute would show it (a date as a date).
    public func reduce(numbers: [Double], texts: [String], extremum: (Double) -> String? = RecordKeyPath.numberText) -> String? {
        switch self {
        case .count: return String(numbers.count + texts.count)
        case .sum: return RecordKeyPath.numberText(numbers.reduce(0, +))
        case .avg: return numbers.isEmpty ? nil : RecordKeyPath.numberText(numbers.reduce(0, +) / Double(numbers.count))
        case .min, .max:
            if let value = self == .min ? numbers.min() : numbers.max() { return extremum(value) }
            return self == .min ? texts.min() : texts.max()
        }
    }
}

extension RecordKeyPath {
    /// A number as a template shows it: whole numbers without a fraction (`3`, not `3.0`),
    /// nothing for infinities and NaN.
    public static func numberText(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        return value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
