import TextUtilities
/// Typed, path-reporting access to the members of one JSON object, with the limits an
/// API needs at its edge: every string is length-capped and free of control characters,
/// every number range-checked, every list bounded. Errors name the offending path
/// (`items[2].webURL`) so a client can fix its request.
public struct FieldReader: Sendable {
    public let object: JSONObject
    public let path: String

    public init(value: JSONValue, path: String) throws(FieldError) {
        guard let object = value.objectValue else { throw FieldError(path: path, "expected an object") }
        self.object = object
        self.path = path
    }

    /// Fails on the first member whose name is not in `known`.
    public func rejectUnknown(_ known: Set<String>) throws(FieldError) {
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            let hint = Suggestion.nearest(to: unknown, in: known).map { "; did you mean '\($0)'?" }
                ?? "; the fields are " + known.sorted().joined(separator: ", ")
            throw FieldError(path: path + "." + unknown, "unknown field" + hint)
        }
    }

    /// Fails when a member name appears twice (`{"a": 1, "a": 2}`): which one counts would
    /// otherwise be a guess.
    public func rejectDuplicates() throws(FieldError) {
        var seen = Set<String>()
        for key in object.keys where !seen.insert(key).inserted {
            throw FieldError(path: path + "." + key, "appears more than once")
        }
    }

    public func contains(_ key: String) -> Bool { object[key] != nil }

    private func present(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    /// A string of at most `maximumBytes` UTF-8 bytes. Control characters are refused
    /// (they would reach terminals and logs); `multiline` allows tab, line feed and
    /// carriage return.
    public func string(_ key: String, maximumBytes: Int = 1024, multiline: Bool = false) throws(FieldError) -> String? {
        guard let value = present(key) else { return nil }
        guard let text = value.stringValue else { throw FieldError(path: path + "." + key, "expected a string") }
        try Self.check(text, path: path + "." + key, maximumBytes: maximumBytes, multiline: multiline)
        return text
    }

    /// A string as sent, of any length and content: for a reader whose values a contract
    /// checks afterwards (an item's), so the rules are written once, there.
    public func text(_ key: String) throws(FieldError) -> String? {
        guard let value = present(key) else { return nil }
        guard let text = value.stringValue else { throw FieldError(path: path + "." + key, "expected a string") }
        return text
    }

    /// A string as sent that must be there (whether it may be blank is the contract's).
    public func requiredText(_ key: String) throws(FieldError) -> String {
        guard let text = try text(key) else { throw FieldError(path: path + "." + key, "required, a string") }
        return text
    }

    /// An array of strings as sent, each unchecked.
    public func texts(_ key: String) throws(FieldError) -> [String] {
        guard let list = try array(key, maximumCount: .max) else { return [] }
        var result: [String] = []
        for (index, element) in list.enumerated() {
            guard let text = element.stringValue else { throw FieldError(path: "\(path).\(key)[\(index)]", "expected a string") }
            result.append(text)
        }
        return result
    }

    /// A finite number, whatever its range (the contract's).
    public func number(_ key: String) throws(FieldError) -> Double? {
        try number(key, in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
    }

    /// A whole number that a double holds exactly (|n| ≤ 2⁵³), whatever its range otherwise.
    public func integer(_ key: String) throws(FieldError) -> Int? {
        try integer(key, in: -(1 << 53)...(1 << 53))
    }

    /// A string that must be there and hold something other than whitespace.
    public func requiredString(_ key: String, maximumBytes: Int = 1024, multiline: Bool = false) throws(FieldError) -> String {
        guard let text = try string(key, maximumBytes: maximumBytes, multiline: multiline),
            text.utf8.contains(where: { !(0x09...0x0D).contains($0) && $0 != 0x20 })
        else {
            throw FieldError(path: path + "." + key, "required, a non-empty string")
        }
        return text
    }

    /// A finite number within `range`.
    public func number(_ key: String, in range: ClosedRange<Double>) throws(FieldError) -> Double? {
        guard let value = present(key) else { return nil }
        guard case .number = value, let number = value.doubleValue, number.isFinite else {
            throw FieldError(path: path + "." + key, "expected a number")
        }
        guard range.contains(number) else {
            throw FieldError(path: path + "." + key, "must be between \(Self.text(range.lowerBound)) and \(Self.text(range.upperBound))")
        }
        return number
    }

    /// A whole number within `range` (`12` and `12.0`, not `12.5`).
    public func integer(_ key: String, in range: ClosedRange<Int>) throws(FieldError) -> Int? {
        guard let number = try number(key, in: Double(range.lowerBound)...Double(range.upperBound)) else { return nil }
        guard number.rounded(.towardZero) == number else { throw FieldError(path: path + "." + key, "expected a whole number") }
        return Int(number)
    }

    public func bool(_ key: String) throws(FieldError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard let flag = value.boolValue else { throw FieldError(path: path + "." + key, "expected true or false") }
        return flag
    }

    /// An array of at most `maximumCount` elements.
    public func array(_ key: String, maximumCount: Int) throws(FieldError) -> [JSONValue]? {
        guard let value = present(key) else { return nil }
        guard let list = value.arrayValue else { throw FieldError(path: path + "." + key, "expected an array") }
        guard list.count <= maximumCount else {
            throw FieldError(path: path + "." + key, "at most \(maximumCount) entries", isTooLarge: true)
        }
        return list
    }

    /// An array of strings, each checked as ``string(_:maximumBytes:multiline:)`` checks one.
    public func strings(_ key: String, maximumCount: Int, maximumBytes: Int = 1024) throws(FieldError) -> [String] {
        guard let list = try array(key, maximumCount: maximumCount) else { return [] }
        var result: [String] = []
        for (index, element) in list.enumerated() {
            let elementPath = "\(path).\(key)[\(index)]"
            guard let text = element.stringValue else { throw FieldError(path: elementPath, "expected a string") }
            try Self.check(text, path: elementPath, maximumBytes: maximumBytes, multiline: false)
            result.append(text)
        }
        return result
    }

    private static func check(_ text: String, path: String, maximumBytes: Int, multiline: Bool) throws(FieldError) {
        guard text.utf8.count <= maximumBytes else { throw FieldError(path: path, "longer than \(maximumBytes) bytes") }
        guard TerminalText.containsC0DELOrC1(text, allowingLineBreaks: multiline) else { return }
        for scalar in text.unicodeScalars where TerminalText.isC0DELOrC1(scalar) {
            if multiline, scalar == "\t" || scalar == "\n" || scalar == "\r" { continue }
            throw FieldError(path: path, "contains a control character (U+\(String(scalar.value, radix: 16, uppercase: true)))")
        }
    }

    private static func text(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// A JSON member that is missing, of the wrong type or out of its limits.
public struct FieldError: Error, Sendable, CustomStringConvertible {
    /// Where in the document (`body.items[2].title`).
    public var path: String
    public var problem: String
    /// True when the member was too large rather than wrong (an API answers 413).
    public var isTooLarge: Bool

    public init(path: String, _ problem: String, isTooLarge: Bool = false) {
        self.path = path
        self.problem = problem
        self.isTooLarge = isTooLarge
    }

    public var description: String { path + ": " + problem }
}
