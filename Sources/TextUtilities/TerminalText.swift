/// Text from the network made safe to show on a terminal or write to a log line: the
/// characters a terminal or a reader acts on rather than shows are written as `\uXXXX`.
///
/// Those are the C0 controls (ESC starts the sequences that clear a screen, set a window
/// title or move the cursor; BEL rings), DEL, the C1 controls U+0080–U+009F (U+009B is CSI
/// on terminals that read 8-bit controls) and the bidirectional controls of Unicode's
/// bidi algorithm (UAX #9: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which
/// reorder what follows them on the line ("Trojan Source"). `\uXXXX` is also a valid JSON
/// string escape, so JSON escaped this way is still JSON and reads back the same.
public enum TerminalText {
    /// Whether `scalar` is acted on rather than shown: a C0, DEL or C1 control
    /// (``isC0DELOrC1(_:)``) or a bidi control.
    @inline(__always)
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The controls no text field of an item or a request holds (a multi-line field keeps
    /// its tabs and line breaks): C0, DEL and C1. The item contract checks the same set on
    /// bytes (``SearchableItem``'s validation scans UTF-8 for it without decoding).
    @inline(__always)
    public static func isC0DELOrC1(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether `text` holds a C0, DEL or C1 control (``isC0DELOrC1(_:)``); tab, line feed
    /// and carriage return are allowed when `allowingLineBreaks` (a multi-line field). One
    /// pass over the UTF-8 bytes (C1 is written C2 80–9F), multi-byte text skipped in words.
    public static func containsC0DELOrC1(_ text: String, allowingLineBreaks: Bool) -> Bool {
        var text = text
        return text.withUTF8 { containsC0DELOrC1($0, allowingLineBreaks: allowingLineBreaks) }
    }

    public static func containsC0DELOrC1(_ bytes: UnsafeBufferPointer<UInt8>, allowingLineBreaks: Bool) -> Bool {
        var index = 0
        while true {
            // Only these bytes can begin a control character.
            index = ByteScan.firstControlCandidate(bytes, from: index)
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case 0xC2:
                if index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) { return true }
            case 0x09, 0x0A, 0x0D:
                if !allowingLineBreaks { return true }
            default:
                return true
            }
            index += 1
        }
    }

    /// `text` with every control written as `\uXXXX`; line feeds and tabs are kept when
    /// `keepingLines` (multi-line output), escaped otherwise.
    public static func escaped(_ text: String, keepingLines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && !(keepingLines && ($0 == "\n" || $0 == "\t")) }) else {
            return text
        }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar), !(keepingLines && (scalar == "\n" || scalar == "\t")) {
                out.append(contentsOf: "\\u".unicodeScalars)
                out.append(contentsOf: Hex.string([UInt8(scalar.value >> 8), UInt8(scalar.value & 0xFF)]).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
