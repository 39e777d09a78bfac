/// Turning collected bytes into a String.
enum TextClean {
    /// `bytes` as a String, cut at `limit` bytes on a character boundary.
    static func string(_ bytes: [UInt8], limit: Int) -> String {
        guard bytes.count > limit else { return String(decoding: bytes, as: UTF8.self) }
        var end = limit
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
