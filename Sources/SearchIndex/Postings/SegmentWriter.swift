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
    private let pending = ByteBuffer(capacity: SegmentWriter.chunkBytes * 2)
    @exclusivity(unchecked) private var written = 0
    @exclusivity(unchecked) private var chunks = 0
    private let dictionary = ByteBuffer()
    @exclusivity(unchecked) private var entryOffsets: [UInt32] = []
    /// Where a term's block index and data are built before they are appended.
    private let blockIndex = ByteBuffer()
    private let blockData = ByteBuffer()

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
    /// block index and the varint-encoded data are built in the writer's scratch buffers
    /// and appended to the pending bytes in two copies.
    func add(term: UnsafeRawBufferPointer, ordinals: UnsafeBufferPointer<UInt32>, frequencies: UnsafeBufferPointer<UInt32>) throws {
        guard !ordinals.isEmpty else { return }
        let postingsOffset = offset
        let blocks = (ordinals.count + SegmentLayout.blockSize - 1) / SegmentLayout.blockSize
        let index = blockIndex.scratch(blocks * SegmentLayout.blockIndexEntryBytes)
        let data = blockData.scratch(ordinals.count * 10)
        var written = 0
        var previous: Int64 = -1
        var maximum: Float = 0
        for block in 0..<blocks {
            let start = block * SegmentLayout.blockSize
            let end = min(start + SegmentLayout.blockSize, ordinals.count)
            var bound = 0.0
            for i in start..<end {
                let ordinal = ordinals[i]
                written = writeVarint(UInt32(truncatingIfNeeded: Int64(ordinal) - previous - 1), data, written)
                written = writeVarint(frequencies[i], data, written)
                previous = Int64(ordinal)
                let saturation = BM25.saturation(frequency: Double(frequencies[i]), length: Double(lengths[Int(ordinal)]),
                                                 averageLength: averageLength)
                bound = max(bound, saturation)
            }
            let rounded = Float(bound).nextUp
            maximum = max(maximum, rounded)
            let entry = UnsafeMutableRawPointer(index) + block * SegmentLayout.blockIndexEntryBytes
            entry.storeBytes(of: ordinals[end - 1].littleEndian, as: UInt32.self)
            entry.storeBytes(of: rounded.bitPattern.littleEndian, toByteOffset: 4, as: UInt32.self)
            entry.storeBytes(of: UInt32(written).littleEndian, toByteOffset: 8, as: UInt32.self)
        }
        pending.append(UnsafeRawBufferPointer(start: index, count: blocks * SegmentLayout.blockIndexEntryBytes))
        pending.append(UnsafeRawBufferPointer(start: data, count: written))
        try flush(final: false)
        // The dictionary entry, built in the index scratch (its block index is copied out).
        let termBytes = min(term.count, Int(UInt16.max))
        let entry = UnsafeMutableRawPointer(blockIndex.scratch(termBytes + 22))
        entry.storeBytes(of: UInt16(termBytes).littleEndian, as: UInt16.self)
        if termBytes > 0 { (entry + 2).copyMemory(from: term.baseAddress!, byteCount: termBytes) }
        entry.storeBytes(of: UInt32(ordinals.count).littleEndian, toByteOffset: termBytes + 2, as: UInt32.self)
        entry.storeBytes(of: UInt32(blocks).littleEndian, toByteOffset: termBytes + 6, as: UInt32.self)
        entry.storeBytes(of: maximum.bitPattern.littleEndian, toByteOffset: termBytes + 10, as: UInt32.self)
        entry.storeBytes(of: UInt64(postingsOffset).littleEndian, toByteOffset: termBytes + 14, as: UInt64.self)
        entryOffsets.append(UInt32(dictionary.count))
        dictionary.append(UnsafeRawBufferPointer(start: entry, count: termBytes + 22))
    }

    private func append(_ bytes: [UInt8]) throws {
        pending.append(bytes)
        try flush(final: false)
    }

    private func flush(final: Bool) throws {
        var start = 0
        while pending.count - start >= Self.chunkBytes || (final && start < pending.count) {
            let end = min(start + Self.chunkBytes, pending.count)
            try emit(chunks, pending.bytes(start..<end))
            chunks += 1
            written += end - start
            start = end
        }
        if start > 0 { pending.removeFirst(start) }
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
        try append(dictionary.bytes(0..<dictionary.count))
        try flush(final: true)
        return (documentsOffset, dictionaryOffset, written, entryOffsets.count)
    }
}
