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

    /// Runs of bytes that need no escape are copied whole (an item's stored JSON holds 30 KB
    /// of main text; byte-by-byte appends were 7 % of a `crawl --store` worker's CPU).
    private static func writeString(_ s: String, into out: inout [UInt8]) {
        var s = s
        out.append(UInt8(ascii: "\""))
        s.withUTF8 { bytes in
            out.reserveCapacity(out.count + bytes.count + 1)
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte == 0x22 || byte == 0x5C || byte < 0x20 || byte == 0x7F else { continue }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index]))
                out.append(0x5C)
                switch byte {
                case 0x22, 0x5C: out.append(byte)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                default:
                    out.append(UInt8(ascii: "u"))
                    out.append(0x30)
                    out.append(0x30)
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 0xF)])
                }
                start = index + 1
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { JSONWriter.string(self) }
}
