/// Walks one term's postings in one segment in ordinal order, decoding a block only when
/// a document in it is needed; block bounds can be read without decoding (``shallow(_:)``),
/// which is what lets a search skip blocks that cannot reach its top k.
///
/// A value type over raw pointers so that the search loops run without reference
/// counting; its owner keeps the ``TermPostings`` alive and calls ``release()``.
struct PostingCursor {
    static let end = Int32.max

    private let base: UnsafePointer<UInt8>
    private let byteCount: Int
    private let dataStart: Int
    let blocks: Int
    let documents: Int
    private let ordinals: UnsafeMutablePointer<Int32>
    private let frequencies: UnsafeMutablePointer<UInt32>
    private var block = -1
    private var count = 0
    private var index = 0
    private var shallowBlock = 0
    /// The current document's ordinal; ``end`` when the postings are exhausted.
    private(set) var doc: Int32 = -1

    init(_ postings: TermPostings) {
        base = postings.base.assumingMemoryBound(to: UInt8.self)
        byteCount = postings.byteCount
        dataStart = postings.dataStart
        blocks = postings.blocks
        documents = postings.documents
        ordinals = .allocate(capacity: SegmentLayout.blockSize)
        frequencies = .allocate(capacity: SegmentLayout.blockSize)
        if blocks == 0 {
            doc = Self.end
        } else {
            decode(0)
        }
    }

    /// Frees the decoding buffers; the cursor is not used again.
    func release() {
        ordinals.deallocate()
        frequencies.deallocate()
    }

    /// The current document's weighted frequency.
    @inline(__always) var frequency: UInt32 { frequencies[index] }

    @inline(__always) private func entry(_ block: Int, _ field: Int) -> UInt32 {
        UnsafeRawPointer(base).loadUnaligned(fromByteOffset: block * SegmentLayout.blockIndexEntryBytes + field, as: UInt32.self).littleEndian
    }

    @inline(__always) func last(_ block: Int) -> Int32 { Int32(bitPattern: entry(block, 0)) }
    @inline(__always) func bound(_ block: Int) -> Float { Float(bitPattern: entry(block, 4)) }
    @inline(__always) private func dataEnd(_ block: Int) -> Int { Int(entry(block, 8)) }

    private mutating func decode(_ target: Int) {
        block = target
        var offset = dataStart + (target == 0 ? 0 : dataEnd(target - 1))
        let end = min(byteCount, dataStart + dataEnd(target))
        var previous = target == 0 ? Int32(-1) : last(target - 1)
        var n = 0
        while offset < end, n < SegmentLayout.blockSize {
            let gap = readVarint(base, &offset, end)
            let frequency = readVarint(base, &offset, end)
            previous = previous &+ Int32(truncatingIfNeeded: gap) &+ 1
            ordinals[n] = previous
            frequencies[n] = frequency
            n += 1
        }
        count = n
        index = 0
        doc = n > 0 ? ordinals[0] : Self.end
    }

    /// Moves to the next document.
    @inline(__always) mutating func next() {
        index += 1
        if index < count {
            doc = ordinals[index]
        } else if block + 1 < blocks {
            decode(block + 1)
        } else {
            doc = Self.end
        }
    }

    /// Moves to the first document at or after `target`.
    mutating func advance(to target: Int32) {
        guard doc < target else { return }
        if target > last(block) {
            guard let found = firstBlock(from: block + 1, reaching: target) else {
                doc = Self.end
                return
            }
            decode(found)
        }
        while index < count, ordinals[index] < target { index += 1 }
        doc = index < count ? ordinals[index] : Self.end
    }

    /// The first block at or after `start` whose last ordinal is at least `target`.
    private func firstBlock(from start: Int, reaching target: Int32) -> Int? {
        var low = start
        var high = blocks
        // Gallop first: targets are usually near.
        var step = 1
        while low + step < high, last(low + step - 1) < target {
            low += step
            step *= 2
        }
        high = min(high, low + step)
        while low < high {
            let middle = (low + high) / 2
            if last(middle) < target { low = middle + 1 } else { high = middle }
        }
        return low < blocks ? low : nil
    }

    /// The bound of the block holding the first posting at or after `target`, and that
    /// block's last ordinal; nil when no posting is left there. Does not move the cursor.
    mutating func shallow(_ target: Int32) -> (bound: Float, last: Int32)? {
        if shallowBlock < block { shallowBlock = max(block, 0) }
        while shallowBlock < blocks, last(shallowBlock) < target { shallowBlock += 1 }
        guard shallowBlock < blocks else { return nil }
        return (bound(shallowBlock), last(shallowBlock))
    }
}
