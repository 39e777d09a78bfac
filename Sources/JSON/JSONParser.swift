import TextUtilities

/// Reads JSON text into ``JSONValue``s.
///
/// Two modes:
/// - `strict` follows RFC 8259 and throws on the first deviation; it is for input that
///   must be right (API bodies, association files).
/// - `lenient` reads what publishers actually write into `<script type="application/ld+json">`:
///   trailing or missing commas, `//` and `/* */` comments, HTML comment and CDATA wrappers,
///   raw control characters and unknown escapes in strings, single quotes, bare keys,
///   Python-style literals, several values in a row, and a truncated end. Every repair is
///   reported with its line and column, and whatever was read before an unrecoverable
///   error is kept.
///
/// One file, over the 400 lines others keep to, on purpose: the reader is one recursive
/// descent whose strict and lenient paths share every production, and splitting the
/// productions across files would hide which repair each one makes.
///
/// Nesting deeper than ``maximumDepth`` is an error in both modes, so hostile input cannot
/// exhaust the stack.
public enum JSONParser {
    public static let maximumDepth = 256

    /// Parses exactly one JSON value (RFC 8259).
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses exactly one JSON value (RFC 8259) from UTF-8 bytes; text that is not
    /// well-formed UTF-8 is refused (RFC 8259 §8.1).
    public static func parse(bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var reader = Reader(bytes: bytes, lenient: false)
        guard isValidUTF8(bytes) else { throw reader.makeError("the text is not valid UTF-8") }
        reader.skipWhitespace()
        guard let value = reader.parseValue(depth: 0), reader.error == nil else {
            throw reader.error ?? reader.makeError("empty document")
        }
        reader.skipWhitespace()
        if reader.index < bytes.count {
            throw reader.makeError("unexpected data after the JSON value")
        }
        return value
    }

    public static func parse(bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in try parse(bytes: buffer) }
    }

    /// Reads as much as can be recovered: every top-level value in the text, the repairs
    /// that were needed, and the error that stopped reading, if any.
    public static func parseLenient(bytes: UnsafeBufferPointer<UInt8>) -> LenientResult {
        var reader = Reader(bytes: bytes, lenient: true)
        var values: [JSONValue] = []
        while true {
            reader.skipWhitespace()
            guard reader.index < bytes.count else { break }
            let c = bytes[reader.index]
            if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") || values.isEmpty {
                if let value = reader.parseValue(depth: 0) { values.append(value) }
                if reader.error != nil { break }
            } else {
                // Stray closers, semicolons or commas between top-level values.
                reader.repair("skipped unexpected '\(Character(Unicode.Scalar(c)))' between values")
                reader.index += 1
            }
        }
        return LenientResult(values: values, repairs: reader.repairs, error: reader.error)
    }

    public static func parseLenient(_ text: String) -> LenientResult {
        var text = text
        return text.withUTF8 { parseLenient(bytes: $0) }
    }

    public struct LenientResult: Sendable {
        public var values: [JSONValue]
        public var repairs: [JSONRepair]
        public var error: JSONParseError?
    }
}

/// A deviation from strict JSON that the lenient reader repaired.
public struct JSONRepair: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    /// 1-based, in bytes from the start of the line.
    public var column: Int
    /// Bytes from the start of the text.
    public var offset: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
}

/// Where and why JSON text could not be read.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var line: Int
    public var column: Int
    public var description: String { "\(message) at line \(line), column \(column)" }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    let lenient: Bool
    var index = 0
    var error: JSONParseError?
    var repairs: [JSONRepair] = []
    private var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, lenient: Bool) {
        self.bytes = bytes
        self.lenient = lenient
        if lenient, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    // MARK: errors and repairs

    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            if bytes[i] == UInt8(ascii: "\n") { line += 1; lineStart = i + 1 }
            i += 1
        }
        return (line, offset - lineStart + 1)
    }

    func makeError(_ message: String) -> JSONParseError {
        let (line, column) = position(of: index)
        return JSONParseError(message: message, offset: index, line: line, column: column)
    }

    mutating func fail(_ message: String) {
        if error == nil { error = makeError(message) }
    }

    mutating func repair(_ message: String) {
        guard repairs.count < 32 else { return }
        let (line, column) = position(of: index)
        repairs.append(JSONRepair(line: line, column: column, offset: index, message: message))
    }

    // MARK: whitespace, comments and wrappers

    private func hasPrefix(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let p = literal.utf8Start
        for k in 0..<count where bytes[index + k] != p[k] { return false }
        return true
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            let c = bytes[index]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                index += 1
                continue
            }
            guard lenient else { return }
            if c == 0x0C || c == 0x0B {
                index += 1
            } else if c == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0xA0 {
                index += 2  // no-break space, common in pasted JSON-LD
            } else if c == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                repair("skipped a // comment")
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            } else if c == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                repair("skipped a /* */ comment")
                index += 2
                while index < bytes.count, !hasPrefix("*/") { index += 1 }
                index = min(index + 2, bytes.count)
            } else if hasPrefix("<!--") {
                repair("skipped an HTML comment marker")
                index += 4
            } else if hasPrefix("-->") {
                index += 3
            } else if hasPrefix("<![CDATA[") {
                repair("skipped a CDATA wrapper")
                index += 9
            } else if hasPrefix("]]>") {
                index += 3
            } else {
                return
            }
        }
    }

    // MARK: values

    mutating func parseValue(depth: Int) -> JSONValue? {
        guard depth < JSONParser.maximumDepth else {
            fail("nesting deeper than \(JSONParser.maximumDepth) levels")
            return nil
        }
        skipWhitespace()
        guard index < bytes.count else {
            fail("unexpected end of input")
            return nil
        }
        switch bytes[index] {
        case UInt8(ascii: "{"): return parseObject(depth: depth)
        case UInt8(ascii: "["): return parseArray(depth: depth)
        case UInt8(ascii: "\""): return parseString(quote: UInt8(ascii: "\"")).map(JSONValue.string)
        case UInt8(ascii: "'") where lenient:
            repair("read a single-quoted string")
            return parseString(quote: UInt8(ascii: "'")).map(JSONValue.string)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return parseNumber()
        case UInt8(ascii: "+") where lenient, UInt8(ascii: ".") where lenient: return parseNumber()
        default: return parseLiteral()
        }
    }

    private mutating func parseLiteral() -> JSONValue? {
        let start = index
        while index < bytes.count, isIdentifierByte(bytes[index]) { index += 1 }
        let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: break
        }
        if lenient {
            switch word {
            case "True": repair("read Python literal True"); return .bool(true)
            case "False": repair("read Python literal False"); return .bool(false)
            case "None", "undefined", "NaN", "Infinity":
                repair("read \(word) as null")
                return .null
            default: break
            }
        }
        index = start
        if word.isEmpty {
            fail("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        } else {
            fail("unexpected word '\(word.prefix(40))'")
        }
        return nil
    }

    private func isIdentifierByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
            || c == UInt8(ascii: "@") || c == UInt8(ascii: "-") || c >= 0x80
    }

    private mutating func parseNumber() -> JSONValue? {
        let start = index
        if lenient, bytes[index] == UInt8(ascii: "+") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < bytes.count {
            let c = bytes[index]
            let isNumberByte = (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: ".")
                || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
            guard isNumberByte else { break }
            index += 1
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if index > digitsStart, Self.isStrictNumber(literal) { return .number(literal) }
        guard lenient, let value = Double(literal), value.isFinite else {
            index = start
            fail("invalid number '\(literal.prefix(40))'")
            return nil
        }
        repair("rewrote number '\(literal.prefix(40))'")
        return JSONValue(value)
    }

    /// RFC 8259 number grammar: `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`.
    static func isStrictNumber(_ s: String) -> Bool {
        var u = s.utf8[...]
        func digits(_ u: inout Substring.UTF8View) -> Int {
            var n = 0
            while let c = u.first, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { u.removeFirst(); n += 1 }
            return n
        }
        if u.first == UInt8(ascii: "-") { u.removeFirst() }
        if u.first == UInt8(ascii: "0") {
            u.removeFirst()
        } else if digits(&u) == 0 {
            return false
        }
        if u.first == UInt8(ascii: ".") {
            u.removeFirst()
            if digits(&u) == 0 { return false }
        }
        if u.first == UInt8(ascii: "e") || u.first == UInt8(ascii: "E") {
            u.removeFirst()
            if u.first == UInt8(ascii: "+") || u.first == UInt8(ascii: "-") { u.removeFirst() }
            if digits(&u) == 0 { return false }
        }
        return u.isEmpty
    }

    private mutating func parseString(quote: UInt8) -> String? {
        index += 1
        let start = index
        // Fast path: no escapes and no control characters.
        while index < bytes.count {
            let c = bytes[index]
            if c == quote {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return s
            }
            if c == UInt8(ascii: "\\") || c < 0x20 { break }
            index += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        var reportedControl = false
        while index < bytes.count {
            let c = bytes[index]
            if c == quote {
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if c < 0x20 {
                guard lenient else {
                    fail("control character in string")
                    return nil
                }
                if !reportedControl {
                    repair("kept a raw control character in a string")
                    reportedControl = true
                }
                scratch.append(c == 0x0A || c == 0x0D || c == 0x09 ? c : 0x20)
                index += 1
                continue
            }
            if c != UInt8(ascii: "\\") {
                scratch.append(c)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                guard let scalar = parseUnicodeEscape() else {
                    guard lenient else {
                        fail("invalid \\u escape")
                        return nil
                    }
                    repair("replaced an invalid \\u escape")
                    scratch.append(contentsOf: [0xEF, 0xBF, 0xBD])
                    continue
                }
                scratch.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                guard lenient else {
                    index -= 1
                    fail("invalid escape '\\\(Character(Unicode.Scalar(e)))'")
                    return nil
                }
                repair("kept an unknown escape '\\\(Character(Unicode.Scalar(e)))'")
                if e == UInt8(ascii: "'") || e >= 0x20 { scratch.append(e) }
            }
        }
        guard lenient else {
            fail("unterminated string")
            return nil
        }
        repair("closed a string left open at the end of the input")
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Reads the four hex digits after `\u` (and a following low surrogate when the first
    /// is a high surrogate). Returns nil for malformed escapes and lone surrogates.
    private mutating func parseUnicodeEscape() -> Unicode.Scalar? {
        guard let high = readHex4() else { return nil }
        if (0xD800...0xDBFF).contains(high) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                return nil
            }
            index += 2
            guard let low = readHex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }
        return Unicode.Scalar(high)
    }

    private mutating func readHex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseArray(depth: Int) -> JSONValue? {
        index += 1
        var elements: [JSONValue] = []
        var expectingElement = true
        while true {
            skipWhitespace()
            guard index < bytes.count else {
                return endOfInputInside("array", partial: .array(elements))
            }
            let c = bytes[index]
            if c == UInt8(ascii: "]") {
                if expectingElement, !elements.isEmpty {
                    guard lenient else { fail("trailing comma in array"); return nil }
                    repair("ignored a trailing comma in an array")
                }
                index += 1
                return .array(elements)
            }
            if c == UInt8(ascii: ",") {
                guard !expectingElement || !lenient else {
                    repair("ignored an extra comma in an array")
                    index += 1
                    continue
                }
                guard !expectingElement else { fail("unexpected ','"); return nil }
                expectingElement = true
                index += 1
                continue
            }
            if !expectingElement {
                guard lenient, c != UInt8(ascii: "}") else {
                    fail("expected ',' or ']' in array")
                    return lenient ? .array(elements) : nil
                }
                repair("inserted a missing comma in an array")
            }
            guard let value = parseValue(depth: depth + 1) else {
                return lenient ? .array(elements) : nil
            }
            elements.append(value)
            if error != nil { return .array(elements) }
            expectingElement = false
        }
    }

    private mutating func parseObject(depth: Int) -> JSONValue? {
        index += 1
        var object = JSONObject()
        var expectingMember = true
        while true {
            skipWhitespace()
            guard index < bytes.count else {
                return endOfInputInside("object", partial: .object(object))
            }
            let c = bytes[index]
            if c == UInt8(ascii: "}") {
                if expectingMember, !object.isEmpty {
                    guard lenient else { fail("trailing comma in object"); return nil }
                    repair("ignored a trailing comma in an object")
                }
                index += 1
                return .object(object)
            }
            if c == UInt8(ascii: ",") {
                guard !expectingMember || !lenient else {
                    repair("ignored an extra comma in an object")
                    index += 1
                    continue
                }
                guard !expectingMember else { fail("unexpected ','"); return nil }
                expectingMember = true
                index += 1
                continue
            }
            if !expectingMember {
                guard lenient, c != UInt8(ascii: "]") else {
                    fail("expected ',' or '}' in object")
                    return lenient ? .object(object) : nil
                }
                repair("inserted a missing comma in an object")
            }
            guard let key = parseKey() else { return lenient ? .object(object) : nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                if index >= bytes.count { return endOfInputInside("object", partial: .object(object)) }
                fail("expected ':' after key '\(key.prefix(40))'")
                return lenient ? .object(object) : nil
            }
            index += 1
            guard let value = parseValue(depth: depth + 1) else {
                return lenient ? .object(object) : nil
            }
            object.append(key, value)
            if error != nil { return .object(object) }
            expectingMember = false
        }
    }

    private mutating func parseKey() -> String? {
        let c = bytes[index]
        if c == UInt8(ascii: "\"") { return parseString(quote: c) }
        guard lenient else {
            fail("expected a string key")
            return nil
        }
        if c == UInt8(ascii: "'") {
            repair("read a single-quoted key")
            return parseString(quote: c)
        }
        let start = index
        while index < bytes.count, isIdentifierByte(bytes[index]) { index += 1 }
        guard index > start else {
            fail("unexpected character '\(Character(Unicode.Scalar(c)))' where a key was expected")
            return nil
        }
        repair("read an unquoted key")
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    private mutating func endOfInputInside(_ container: String, partial: JSONValue) -> JSONValue? {
        guard lenient else {
            fail("unexpected end of input inside an \(container)")
            return nil
        }
        repair("closed an \(container) left open at the end of the input")
        return partial
    }
}
