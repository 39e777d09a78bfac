import Items
/// Walks one term's postings in one segment in ordinal order, decoding a block only when a
/// document in it is needed; block bounds can be read without decoding (``shallow(_:)``,
/// ``bound(from:below:)``), which is what lets a search skip what cannot reach its top k.
///
/// The cursor is either on a posting (``doc`` is its ordinal and ``frequency`` its weighted
/// frequency) or between blocks, when ``doc`` is only the least ordinal the next posting can
/// have (``isOnPosting`` false): moving past a block, or skipping ahead, decodes nothing
/// until a posting there is asked for.
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
    /// Ordinals at or past this are damaged data: the segment's document count.
    private let limit: Int
    private let ordinals: UnsafeMutablePointer<Int32>
    private let frequencies: UnsafeMutablePointer<UInt32>
    /// The decoded block (−1: none), its postings, and the position in it.
    private var decoded = -1
    private var count = 0
    private var index = 0
    /// The block the next posting is in (between blocks), or the decoded one.
    private var block = 0
    private var shallowBlock = 0
    /// The current posting's ordinal, or the least ordinal the next can have; ``end`` when
    /// the postings are exhausted.
    private(set) var doc: Int32 = 0
    private(set) var isOnPosting = false

    init(_ postings: TermPostings, documentLimit: Int) {
        base = postings.base.assumingMemoryBound(to: UInt8.self)
        byteCount = postings.byteCount
        dataStart = postings.dataStart
        blocks = postings.blocks
        documents = postings.documents
        limit = documentLimit
        ordinals = .allocate(capacity: SegmentLayout.blockSize)
        frequencies = .allocate(capacity: SegmentLayout.blockSize)
        if blocks == 0 { doc = Self.end }
    }

    /// Frees the decoding buffers; the cursor is not used again.
    func release() {
        ordinals.deallocate()
        frequencies.deallocate()
    }

    /// The current posting's weighted frequency (on a posting only).
    @inline(__always) var frequency: UInt32 { frequencies[index] }

    @inline(__always) private func entry(_ block: Int, _ field: Int) -> UInt32 {
        UnsafeRawPointer(base).loadUnaligned(fromByteOffset: block * SegmentLayout.blockIndexEntryBytes + field, as: UInt32.self).littleEndian
    }

    @inline(__always) func last(_ block: Int) -> Int32 { Int32(bitPattern: entry(block, 0)) }
    @inline(__always) func bound(_ block: Int) -> Float { Float(bitPattern: entry(block, 4)) }
    @inline(__always) private func dataEnd(_ block: Int) -> Int { Int(entry(block, 8)) }

    /// Decodes `target` and stands on its first posting at or after `least`; damaged data ends
    /// the postings.
    private mutating func decode(_ target: Int, from least: Int32) {
        let start = dataStart + (target == 0 ? 0 : dataEnd(target - 1))
        let end = dataStart + dataEnd(target)
        count = end <= byteCount && start < end
            ? PostingBlock.decode(base, start, end: end, limit: limit, ordinals: ordinals, frequencies: frequencies) : 0
        decoded = target
        block = target
        guard count > 0, ordinals[count - 1] == last(target) else {
            finish()
            return
        }
        index = 0
        while index < count, ordinals[index] < least { index += 1 }
        settle()
    }

    /// After `index` moved: on the posting there, or between blocks past the decoded one.
    @inline(__always) private mutating func settle() {
        if index < count {
            doc = ordinals[index]
            isOnPosting = true
        } else if decoded + 1 < blocks {
            block = decoded + 1
            doc = last(decoded) &+ 1
            isOnPosting = false
        } else {
            finish()
        }
    }

    private mutating func finish() {
        doc = Self.end
        isOnPosting = false
        count = 0
    }

    /// Stands on the next posting at or after the current position (decoding if between blocks).
    @inline(__always) mutating func land() {
        guard !isOnPosting, doc != Self.end else { return }
        decode(block, from: doc)
    }

    /// Moves to the next posting.
    @inline(__always) mutating func next() {
        if isOnPosting {
            index += 1
            settle()
        }
        land()
    }

    /// Moves to the first posting at or after `target`.
    mutating func advance(to target: Int32) {
        skip(to: target)
        land()
    }

    /// Moves to `target` without decoding: afterwards ``doc`` is at least `target` (or the
    /// posting there when the block holding it is the decoded one).
    mutating func skip(to target: Int32) {
        guard doc < target else { return }
        if target <= last(block) {
            if block == decoded, isOnPosting || index < count {
                while index < count, ordinals[index] < target { index += 1 }
                settle()
            } else {
                doc = target
                isOnPosting = false
            }
            return
        }
        guard let found = firstBlock(from: block + 1, reaching: target) else {
            finish()
            return
        }
        block = found
        doc = target
        isOnPosting = false
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

    /// The postings from the current position with ordinals below `upper`, in the decoded
    /// block — nil when there are none left below it — moving the cursor past them. Call
    /// again for the next block's.
    @inline(__always)
    mutating func run(below upper: Int32) -> (ordinals: UnsafePointer<Int32>, frequencies: UnsafePointer<UInt32>, count: Int)? {
        guard doc < upper else { return nil }
        land()
        guard doc < upper else { return nil }
        let from = index
        var to = index + 1
        if last(decoded) < upper {
            to = count
        } else {
            while to < count, ordinals[to] < upper { to += 1 }
        }
        index = to
        settle()
        return (UnsafePointer(ordinals + from), UnsafePointer(frequencies + from), to - from)
    }

    /// The bound of the block holding the first posting at or after `target`, and that
    /// block's last ordinal; nil when no posting is left there. Does not move the cursor.
    mutating func shallow(_ target: Int32) -> (bound: Float, last: Int32)? {
        if shallowBlock < block { shallowBlock = block }
        while shallowBlock < blocks, last(shallowBlock) < target { shallowBlock += 1 }
        guard shallowBlock < blocks else { return nil }
        return (bound(shallowBlock), last(shallowBlock))
    }

    /// The largest bound of the blocks that may hold postings from `lower` up to (not
    /// including) `upper`; 0 when none can. Does not move the cursor.
    mutating func bound(from lower: Int32, below upper: Int32) -> Float {
        if shallowBlock < block { shallowBlock = block }
        while shallowBlock < blocks, last(shallowBlock) < lower { shallowBlock += 1 }
        var highest: Float = 0
        var at = shallowBlock
        while at < blocks {
            highest = max(highest, bound(at))
            // The block after this one starts past its last ordinal.
            if last(at) >= upper - 1 { break }
            at += 1
        }
        return highest
    }
}
