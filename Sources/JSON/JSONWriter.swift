/// Writes ``JSONValue``s as JSON text: members in their stored order, numbers as their
/// literal text, non-ASCII characters as UTF-8 and `/` unescaped, so output is
/// deterministic and readable.
public enum JSONWriter {
    public enum Style: Sendable {
        /// One line, no spaces.
        case compact
        /// Two-space indentation, `"key": value`.
        case pretty
    }

    public static func string(_ value: JSONValue, style: Style = .compact) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, style: style, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    public static func bytes(_ value: JSONValue, style: Style = .compact) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out, style: style, indent: 0)
        return out
    }

    private static func newline(_ out: inout [UInt8], _ style: Style, _ indent: Int) {
        guard case .pretty = style else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    private static func write(_ value: JSONValue, into out: inout [UInt8], style: Style, indent: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let literal): out.append(contentsOf: literal.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            guard !elements.isEmpty else { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, style, indent + 1)
                write(element, into: &out, style: style, indent: indent + 1)
            }
            newline(&out, style, indent)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            guard !object.isEmpty else { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, style, indent + 1)
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if case .pretty = style { out.append(0x20) }
                write(member.value, into: &out, style: style, indent: indent + 1)
            }
            newline(&out, style, indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { JSONWriter.string(self) }
}
