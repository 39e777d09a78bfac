/// The one percent-decoder: `%XX` becomes the byte XX; an escape that is not two hex digits
/// stays as it is. For URL paths and association-file text, and with `plusIsSpace` for
/// form-encoded query strings (`application/x-www-form-urlencoded`, where `+` is a space).
public enum PercentDecoding {
    public static func bytes(_ text: some StringProtocol, plusIsSpace: Bool = false) -> [UInt8] {
        decode(bytes: Array(text.utf8), plusIsSpace: plusIsSpace)
    }

    /// `%XX` escapes decoded to their bytes; a `%` that starts no escape stays.
    public static func decode(bytes input: some Collection<UInt8>, plusIsSpace: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var rest = input[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%"), rest.count >= 2, let hi = hexValue(rest[rest.startIndex]),
                let lo = hexValue(rest[rest.index(after: rest.startIndex)])
            {
                out.append(hi << 4 | lo)
                rest = rest.dropFirst(2)
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
            }
        }
        return out
    }

    /// Decoded text; bytes that are not UTF-8 become U+FFFD.
    public static func decode(_ text: some StringProtocol, plusIsSpace: Bool = false) -> String {
        String(decoding: bytes(text, plusIsSpace: plusIsSpace), as: UTF8.self)
    }

    /// Decoded text, or nil when the bytes are not well-formed UTF-8.
    public static func decodeStrictly(_ text: some StringProtocol) -> String? {
        let decoded = bytes(text)
        guard decoded.withUnsafeBufferPointer(isValidUTF8) else { return nil }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The value of a hex digit, either case.
    @inline(__always)
    public static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
