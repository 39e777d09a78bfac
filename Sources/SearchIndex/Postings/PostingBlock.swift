import Items
/// One block of up to ``SegmentLayout/blockSize`` postings, bit-packed as Lucene and
/// Tantivy pack theirs: a posting costs the bits its gap and its frequency need in that
/// block, not two varints.
///
///     [first ordinal u32][count u8][gap width u8][frequency width u8]
///     [count − 1 gaps − 1, gap width bits each][count frequencies − 1, frequency width bits each]
///
/// Values are packed least significant bit first, each part padded to a whole byte. The
/// first ordinal is absolute, so a merge copies a block by rewriting those four bytes.
enum PostingBlock {
    static let headerBytes = 7
    /// Bytes a reader may load past a block's end: unpacking loads eight bytes at a time.
    static let padding = 8

    /// Bytes a block of `count` postings takes with these widths.
    @inline(__always)
    static func size(count: Int, gapWidth: Int, frequencyWidth: Int) -> Int {
        headerBytes + ((count - 1) * gapWidth + 7) / 8 + (count * frequencyWidth + 7) / 8
    }

    /// Bits `value` needs.
    @inline(__always)
    static func width(_ value: UInt32) -> Int { 32 - value.leadingZeroBitCount }

    /// Appends the block of `count` postings (ordinals ascending, frequencies at least 1).
    static func encode(ordinals: UnsafePointer<UInt32>, frequencies: UnsafePointer<UInt32>, count: Int, into buffer: ByteBuffer) {
        precondition(count > 0 && count <= SegmentLayout.blockSize)
        var gapBits: UInt32 = 0
        var frequencyBits: UInt32 = 0
        for i in 1..<max(1, count) { gapBits |= ordinals[i] &- ordinals[i - 1] &- 1 }
        for i in 0..<count { frequencyBits |= frequencies[i] &- 1 }
        let gapWidth = width(gapBits)
        let frequencyWidth = width(frequencyBits)
        let bytes = size(count: count, gapWidth: gapWidth, frequencyWidth: frequencyWidth)
        buffer.append(atMost: bytes) { out in
            UnsafeMutableRawPointer(out).storeBytes(of: ordinals[0].littleEndian, as: UInt32.self)
            out[4] = UInt8(count == SegmentLayout.blockSize ? 0 : count)
            out[5] = UInt8(gapWidth)
            out[6] = UInt8(frequencyWidth)
            var at = headerBytes
            at = pack(count - 1, width: gapWidth, into: out, at: at) { ordinals[$0 + 1] &- ordinals[$0] &- 1 }
            at = pack(count, width: frequencyWidth, into: out, at: at) { frequencies[$0] &- 1 }
            return at
        }
    }

    /// Unpacks `count` values of `width` bits, least significant first, from `bytes` (which
    /// has ``padding`` readable bytes past them). One loop per width, so that each runs with
    /// constant shifts and masks.
    @inline(__always)
    static func unpack(_ bytes: UnsafePointer<UInt8>, count: Int, width: Int, adding: UInt32, into out: UnsafeMutablePointer<UInt32>) {
        switch width {
        case 0: for i in 0..<max(0, count) { out[i] = adding }
        case 1: unpack(bytes, count, 1, adding, out)
        case 2: unpack(bytes, count, 2, adding, out)
        case 3: unpack(bytes, count, 3, adding, out)
        case 4: unpack(bytes, count, 4, adding, out)
        case 5: unpack(bytes, count, 5, adding, out)
        case 6: unpack(bytes, count, 6, adding, out)
        case 7: unpack(bytes, count, 7, adding, out)
        case 8: unpack(bytes, count, 8, adding, out)
        case 9: unpack(bytes, count, 9, adding, out)
        case 10: unpack(bytes, count, 10, adding, out)
        case 11: unpack(bytes, count, 11, adding, out)
        case 12: unpack(bytes, count, 12, adding, out)
        case 13: unpack(bytes, count, 13, adding, out)
        case 14: unpack(bytes, count, 14, adding, out)
        case 15: unpack(bytes, count, 15, adding, out)
        case 16: unpack(bytes, count, 16, adding, out)
        case 17: unpack(bytes, count, 17, adding, out)
        case 18: unpack(bytes, count, 18, adding, out)
        case 19: unpack(bytes, count, 19, adding, out)
        case 20: unpack(bytes, count, 20, adding, out)
        default: unpack(bytes, count, width, adding, out)
        }
    }

    /// One width's loop, inlined into each case above with `width` a constant: eight values
    /// (`width` bytes) a turn, their shifts constant too.
    @inline(__always)
    private static func unpack(_ bytes: UnsafePointer<UInt8>, _ count: Int, _ width: Int, _ adding: UInt32, _ out: UnsafeMutablePointer<UInt32>) {
        let mask = (UInt64(1) << UInt64(width)) &- 1
        var i = 0
        var source = UnsafeRawPointer(bytes)
        while i &+ 8 <= count {
            for j in 0..<8 {
                let bit = j &* width
                let word = (source + (bit >> 3)).loadUnaligned(as: UInt64.self).littleEndian
                out[i &+ j] = UInt32(truncatingIfNeeded: (word >> UInt64(bit & 7)) & mask) &+ adding
            }
            source += width
            i &+= 8
        }
        var bit = 0
        while i < count {
            let word = (source + (bit >> 3)).loadUnaligned(as: UInt64.self).littleEndian
            out[i] = UInt32(truncatingIfNeeded: (word >> UInt64(bit & 7)) & mask) &+ adding
            bit &+= width
            i &+= 1
        }
    }

    @inline(__always)
    private static func pack(_ count: Int, width: Int, into out: UnsafeMutablePointer<UInt8>, at start: Int, _ value: (Int) -> UInt32) -> Int {
        guard width > 0, count > 0 else { return start }
        var at = start
        var pending: UInt64 = 0
        var bits = 0
        for i in 0..<count {
            pending |= UInt64(value(i)) << UInt64(bits)
            bits += width
            while bits >= 8 {
                out[at] = UInt8(truncatingIfNeeded: pending)
                pending >>= 8
                bits -= 8
                at += 1
            }
        }
        if bits > 0 {
            out[at] = UInt8(truncatingIfNeeded: pending)
            at += 1
        }
        return at
    }

    /// The header of the block at `offset`: its first ordinal, count and widths, and its
    /// size; nil when it does not describe a block that fits before `end`.
    @inline(__always)
    static func header(_ base: UnsafePointer<UInt8>, _ offset: Int, end: Int) -> (first: UInt32, count: Int, gapWidth: Int, frequencyWidth: Int, size: Int)? {
        guard offset >= 0, end - offset >= headerBytes else { return nil }
        let first = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt32.self).littleEndian
        let stored = Int(base[offset + 4])
        let count = stored == 0 ? SegmentLayout.blockSize : stored
        let gapWidth = Int(base[offset + 5])
        let frequencyWidth = Int(base[offset + 6])
        guard count <= SegmentLayout.blockSize, gapWidth <= 32, frequencyWidth <= 32 else { return nil }
        let size = size(count: count, gapWidth: gapWidth, frequencyWidth: frequencyWidth)
        guard size <= end - offset else { return nil }
        return (first, count, gapWidth, frequencyWidth, size)
    }

    /// Decodes the block at `offset` into `ordinals` and `frequencies` (room for a block
    /// each); returns its count, or 0 when the bytes are damaged: a header that does not fit
    /// before `end`, or an ordinal at or past `limit` (the segment's documents). The caller
    /// guarantees ``padding`` readable bytes after `end`.
    @inline(__always)
    static func decode(_ base: UnsafePointer<UInt8>, _ offset: Int, end: Int, limit: Int,
                       ordinals: UnsafeMutablePointer<Int32>, frequencies: UnsafeMutablePointer<UInt32>) -> Int {
        guard let header = header(base, offset, end: end) else { return 0 }
        let count = header.count
        let gaps = base + offset + headerBytes
        // Gaps first, into the ordinals' buffer, then summed into ordinals.
        let raw = UnsafeMutableRawPointer(ordinals).assumingMemoryBound(to: UInt32.self)
        raw[0] = header.first
        unpack(gaps, count: count - 1, width: header.gapWidth, adding: 1, into: raw + 1)
        var previous = UInt64(header.first)
        for i in 1..<max(1, count) {
            previous &+= UInt64(raw[i])
            raw[i] = UInt32(truncatingIfNeeded: previous)
        }
        guard previous < UInt64(limit) else { return 0 }
        unpack(gaps + ((count - 1) * header.gapWidth + 7) / 8, count: count, width: header.frequencyWidth, adding: 1, into: frequencies)
        return count
    }
}
