/// The URL Standard's percent-encode sets (§1.3), byte by byte: UTF-8 bytes of non-ASCII
/// code points are always in them (the "C0 control percent-encode set" is the C0 controls
/// and every code point above U+007E).
/// <https://url.spec.whatwg.org/#percent-encoded-bytes>
enum PercentEncodeSet {
    case fragment, query, specialQuery, path, userinfo

    @inline(__always)
    func contains(_ c: UInt8) -> Bool {
        if c < 0x20 || c > 0x7E { return true }
        switch self {
        // Fragment: C0 control, space, ", <, >, `.
        case .fragment: return c == 0x20 || c == 0x22 || c == 0x3C || c == 0x3E || c == 0x60
        // Query: C0 control, space, ", #, <, >; special-query adds '.
        case .query: return c == 0x20 || c == 0x22 || c == 0x23 || c == 0x3C || c == 0x3E
        case .specialQuery: return c == 0x20 || c == 0x22 || c == 0x23 || c == 0x3C || c == 0x3E || c == 0x27
        // Path: query, ?, `, {, }.
        case .path: return PercentEncodeSet.query.contains(c) || c == 0x3F || c == 0x60 || c == 0x7B || c == 0x7D
        // Userinfo: path, /, :, ;, =, @, [ to ^, |.
        case .userinfo:
            return PercentEncodeSet.path.contains(c) || c == 0x2F || c == 0x3A || c == 0x3B || c == 0x3D || c == 0x40
                || (c >= 0x5B && c <= 0x5E) || c == 0x7C
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Appends `c`, percent-encoded when this set holds it.
    @inline(__always)
    func append(_ c: UInt8, to out: inout [UInt8]) {
        if contains(c) {
            out.append(UInt8(ascii: "%"))
            out.append(Self.hex[Int(c >> 4)])
            out.append(Self.hex[Int(c & 0xF)])
        } else {
            out.append(c)
        }
    }
}
