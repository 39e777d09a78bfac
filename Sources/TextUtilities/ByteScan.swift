/// Skips runs of plain bytes eight at a time (one 64-bit load and a few bit operations per
/// eight bytes instead of a comparison per byte): the byte loops that read every indexed
/// text — the item contract's control-character check, the NFC quick check — spend most of
/// their time in ASCII.
public enum ByteScan {
    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The index of the first byte of 0x80 or more at or after `start`; `bytes.count` when none.
    @inlinable @inline(__always)
    public static func firstNonASCII(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        firstMatch(bytes, from: start, wordTest: { $0 & highBits != 0 }, byteTest: { $0 >= 0x80 })
    }

    /// The index of the first byte outside printable ASCII (0x20–0x7E) at or after `start`;
    /// `bytes.count` when none.
    @inlinable @inline(__always)
    public static func firstNonPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        firstMatch(bytes, from: start, wordTest: { word in
            // A byte below 0x20 (its borrow sets the high bit where the byte's own is clear),
            // or a byte above 0x7E (adding 1 carries into the high bit, or it was set).
            (((word &- 0x20 &* ones) & ~word) | ((word &+ ones) | word)) & highBits != 0
        }, byteTest: { $0 < 0x20 || $0 > 0x7E })
    }

    @usableFromInline @inline(__always)
    static func firstMatch(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, wordTest: (UInt64) -> Bool,
                           byteTest: (UInt8) -> Bool) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        var index = start
        let count = bytes.count
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if wordTest(word) { break }
            index += 8
        }
        while index < count, !byteTest(base[index]) { index += 1 }
        return index
    }
}
