/// 64-bit FNV-1a, a hash that is the same in every process (Swift's `Hasher` is seeded per
/// run): record versions and item digests compared across runs, URL and term hashes in
/// tables whose slots must not move between runs. The one copy of it in the project.
public struct FNV1a: Sendable {
    public static let offset: UInt64 = 0xcbf2_9ce4_8422_2325
    public static let prime: UInt64 = 0x100_0000_01b3

    public var value: UInt64 = FNV1a.offset

    @inlinable
    public init() {}

    /// One step: `hash` with `byte` folded in.
    @inlinable @inline(__always)
    public static func add(_ byte: UInt8, to hash: UInt64) -> UInt64 { (hash ^ UInt64(byte)) &* prime }

    /// The hash of `bytes` alone.
    @inlinable
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash = offset
        for byte in bytes { hash = add(byte, to: hash) }
        return hash
    }

    @inlinable
    public mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { value = Self.add(byte, to: value) }
    }

    /// A string's UTF-8 and a 0xFF after it, so that fields added one after another cannot
    /// run into each other ("ab" + "c" differs from "a" + "bc").
    public mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add($0) }
        add([0xFF])
    }

    public mutating func add(_ number: Int64) {
        withUnsafeBytes(of: number.littleEndian) { add($0) }
    }

    /// As a signed integer, the form SQLite stores.
    public var signed: Int64 { Int64(bitPattern: value) }
}
