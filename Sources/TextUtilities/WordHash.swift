/// A fast 64-bit hash of bytes held in memory, eight bytes at a time (multiply and fold, then
/// a final mix), for tables that live in memory only: terms being indexed, text blocks of a
/// site. Not for anything stored (its values may change between versions) nor for keys an
/// attacker picks to collide (the tables using it bound their probes or their size).
public enum WordHash {
    @inlinable @inline(__always)
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = UInt64(truncatingIfNeeded: bytes.count) &* multiplier
        guard let base = bytes.baseAddress else { return hash }
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < bytes.count {
                tail |= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) << shift
                shift += 8
                offset += 1
            }
            hash = (hash ^ tail) &* multiplier
        }
        hash ^= hash >> 32
        hash = hash &* 0xD6E8_FEB8_6659_FD93
        return hash ^ (hash >> 32)
    }
}
