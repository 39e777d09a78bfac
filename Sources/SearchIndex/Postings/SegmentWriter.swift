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
    private var pending = ByteWriter(capacity: SegmentWriter.chunkBytes * 2)
    private var written = 0
    private var chunks = 0
    private var dictionary = ByteWriter()
    private var entryOffsets: [UInt32] = []
    private var block = ByteWriter(capacity: 1024)
    private var blockIndex = ByteWriter(capacity: 1024)
    private var data = ByteWriter(capacity: 4096)

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

    /// Adds a term's postings: ordinals ascending, each with its weighted frequency.
    func add(term: UnsafeRawBufferPointer, ordinals: UnsafeBufferPointer<UInt32>, frequencies: UnsafeBufferPointer<UInt32>) throws {
        guard !ordinals.isEmpty else { return }
        let postingsOffset = offset
        blockIndex.bytes.removeAll(keepingCapacity: true)
        data.bytes.removeAll(keepingCapacity: true)
        var previous: Int64 = -1
        var maximum: Float = 0
        var start = 0
        var blocks = 0
        while start < ordinals.count {
            let end = min(start + SegmentLayout.blockSize, ordinals.count)
            var bound = 0.0
            for i in start..<end {
                let ordinal = ordinals[i]
                data.varint(UInt32(Int64(ordinal) - previous - 1))
                data.varint(frequencies[i])
                previous = Int64(ordinal)
                let saturation = BM25.saturation(frequency: Double(frequencies[i]), length: Double(lengths[Int(ordinal)]),
                                                 averageLength: averageLength)
                bound = max(bound, saturation)
            }
            let rounded = Float(bound).nextUp
            maximum = max(maximum, rounded)
            blockIndex.u32(ordinals[end - 1])
            blockIndex.f32(rounded)
            blockIndex.u32(UInt32(data.count))
            blocks += 1
            start = end
        }
        try append(blockIndex.bytes)
        try append(data.bytes)
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
