/// SplitMix64 (Steele, Lea & Flood, 2014): a generator whose sequence is the same in every
/// run for a seed (benchmark corpora, shuffles in tests), and its finalizer, which spreads
/// the bits of a 64-bit value over the whole word (hashes that must not cluster).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The finalizer alone: a bijection of 64-bit values with full avalanche.
    @inlinable @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
