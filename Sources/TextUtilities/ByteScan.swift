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

    /// The index of the first byte at or after `start` that may begin a control character in
    /// UTF-8: a C0 control (below 0x20), DEL (0x7F), or 0xC2, the lead byte of U+0080–U+00BF,
    /// among them the C1 controls; `bytes.count` when none. Every other byte, the rest of
    /// multi-byte text included, is skipped eight at a time.
    @inlinable @inline(__always)
    public static func firstControlCandidate(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        firstMatch(bytes, from: start, wordTest: { word in
            // A byte below 0x20 (exact as a whole: the first such byte borrows; any borrow
            // comes from one), or a byte equal to 0x7F or 0xC2.
            ((word &- 0x20 &* ones) & ~word & highBits) | equalBytes(word, 0x7F) | equalBytes(word, 0xC2) != 0
        }, byteTest: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 })
    }

    /// 0x80 in each byte of `word` that equals `byte`, 0 elsewhere (exact: the high bits are
    /// set aside before adding, so no carry crosses a byte).
    @inlinable @inline(__always)
    public static func equalBytes(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let x = word ^ (UInt64(byte) &* ones)
        return ~(((x & low) &+ low) | x | low)
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
