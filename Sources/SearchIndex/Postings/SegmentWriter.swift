/// Writes one segment (``SegmentLayout``) term by term, in byte order of the terms,
/// handing out fixed-size chunks as they fill so that even a merge into a segment of
/// millions of documents holds only one chunk of postings in memory.
final class SegmentWriter {
    /// Small enough that a chunk and its row header fit in one 4 KiB page: a read of a
    /// short posting list touches one page, and nothing goes to overflow pages.
    static let chunkBytes = 4000

    private let rowids: [Int64]
    private let lengths: [UInt16]
    private let averageLength: Double
    private let emit: (_ chunk: Int, _ bytes: [UInt8]) throws -> Void
    // Unchecked: these are touched for every posting written, and only by this writer's own
    // methods, which never overlap (a class's stored properties are otherwise checked for
    // exclusive access at run time on each access).
    @exclusivity(unchecked) private var pending = ByteWriter(capacity: SegmentWriter.chunkBytes * 2)
    @exclusivity(unchecked) private var written = 0
    @exclusivity(unchecked) private var chunks = 0
    @exclusivity(unchecked) private var dictionary = ByteWriter()
    @exclusivity(unchecked) private var entryOffsets: [UInt32] = []

    /// - Parameters:
    ///   - rowids: the documents' rowids in ordinal order, ascending.
    ///   - lengths: each document's length in tokens, by ordinal.
    ///   - averageLength: the index's average document length the bounds are computed with.
    init(rowids: [Int64], lengths: [UInt16], averageLength: Double, emit: @escaping (_ chunk: Int, _ bytes: [UInt8]) throws -> Void) {
        self.rowids = rowids
        self.lengths = lengths
        self.averageLength = max(averageLength, 1)
        self.emit = emit
    }

    private var offset: Int { written + pending.count }

    /// Adds a term's postings: ordinals ascending, each with its weighted frequency. The
    /// block index is written first as room of its known size and filled in as each block's
    /// data follows it, all in the pending buffer (no copy through buffers of their own).
    func add(term: UnsafeRawBufferPointer, ordinals: UnsafeBufferPointer<UInt32>, frequencies: UnsafeBufferPointer<UInt32>) throws {
        guard !ordinals.isEmpty else { return }
        let postingsOffset = offset
        let blocks = (ordinals.count + SegmentLayout.blockSize - 1) / SegmentLayout.blockSize
        let indexStart = pending.count
        pending.zeros(blocks * SegmentLayout.blockIndexEntryBytes)
        let dataStart = pending.count
        var previous: Int64 = -1
        var maximum: Float = 0
        // A block's postings are varint-encoded into a scratch buffer (at most 10 bytes a
        // posting) and appended in one copy.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SegmentLayout.blockSize * 10) { scratch in
            let scratch = scratch.baseAddress!
            for block in 0..<blocks {
                let start = block * SegmentLayout.blockSize
                let end = min(start + SegmentLayout.blockSize, ordinals.count)
                var bound = 0.0
                var written = 0
                for i in start..<end {
                    let ordinal = ordinals[i]
                    written = writeVarint(UInt32(truncatingIfNeeded: Int64(ordinal) - previous - 1), scratch, written)
                    written = writeVarint(frequencies[i], scratch, written)
                    previous = Int64(ordinal)
                    let saturation = BM25.saturation(frequency: Double(frequencies[i]), length: Double(lengths[Int(ordinal)]),
                                                     averageLength: averageLength)
                    bound = max(bound, saturation)
                }
                pending.append(UnsafeRawBufferPointer(start: scratch, count: written))
                let rounded = Float(bound).nextUp
                maximum = max(maximum, rounded)
                let entry = indexStart + block * SegmentLayout.blockIndexEntryBytes
                pending.set(u32: ordinals[end - 1], at: entry)
                pending.set(u32: rounded.bitPattern, at: entry + 4)
                pending.set(u32: UInt32(pending.count - dataStart), at: entry + 8)
            }
        }
        try flush(final: false)
        entryOffsets.append(UInt32(dictionary.count))
        dictionary.u16(UInt16(min(term.count, Int(UInt16.max))))
        dictionary.append(UnsafeRawBufferPointer(rebasing: term.prefix(Int(UInt16.max))))
        dictionary.u32(UInt32(ordinals.count))
        dictionary.u32(UInt32(blocks))
        dictionary.f32(maximum)
        dictionary.u64(UInt64(postingsOffset))
    }

    private func append(_ bytes: [UInt8]) throws {
        pending.bytes.append(contentsOf: bytes)
        try flush(final: false)
    }

    private func flush(final: Bool) throws {
        var start = 0
        while pending.count - start >= Self.chunkBytes || (final && start < pending.count) {
            let end = min(start + Self.chunkBytes, pending.count)
            try emit(chunks, Array(pending.bytes[start..<end]))
            chunks += 1
            written += end - start
            start = end
        }
        if start > 0 { pending.bytes.removeFirst(start) }
    }

    /// Writes the documents and the dictionary and the last chunk; returns the offsets
    /// and length the `segments` row records.
    func finish() throws -> (documentsOffset: Int, dictionaryOffset: Int, length: Int, terms: Int) {
        let documentsOffset = offset
        var documents = ByteWriter(capacity: rowids.count * 10)
        for rowid in rowids { documents.u64(UInt64(bitPattern: rowid)) }
        for length in lengths { documents.u16(length) }
        try append(documents.bytes)
        let dictionaryOffset = offset
        var head = ByteWriter(capacity: 4 + entryOffsets.count * 4)
        head.u32(UInt32(entryOffsets.count))
        let entriesStart = UInt32(4 + entryOffsets.count * 4)
        for entry in entryOffsets { head.u32(entriesStart + entry) }
        try append(head.bytes)
        try append(dictionary.bytes)
        try flush(final: true)
        return (documentsOffset, dictionaryOffset, written, entryOffsets.count)
    }
}
