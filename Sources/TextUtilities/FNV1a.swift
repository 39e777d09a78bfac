/// 64-bit FNV-1a, a hash that is the same in every process (Swift's `Hasher` is seeded per
/// run): record versions and item digests are compared across runs.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
    }

    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add($0) }
        add([0xFF])
    }

    mutating func add(_ number: Int64) {
        withUnsafeBytes(of: number.littleEndian) { add($0) }
    }

    /// As a signed integer, the form SQLite stores.
    var signed: Int64 { Int64(bitPattern: value) }
}
