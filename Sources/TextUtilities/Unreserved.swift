/// RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`, section 2.3): the bytes a URI
/// component never needs to encode. The one copy of the rule.
public enum Unreserved {
    @inlinable @inline(__always)
    public static func contains(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: true
        default: false
        }
    }

    /// Every byte but the unreserved ones percent-encoded (upper-case hex): a value that
    /// can go in a query or be one path segment, with no `&`, `=`, `/`, `?` or `#` to end it.
    public static func encodingOthers(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if contains(byte) { bytes.append(byte) } else { bytes += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]] }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
