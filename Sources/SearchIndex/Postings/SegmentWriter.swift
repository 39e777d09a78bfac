import Items
/// Writes one segment (``SegmentLayout``) term by term, in byte order of the terms,
/// handing out fixed-size chunks (to its file) as they fill so that even a merge into a
/// segment of millions of documents holds only one chunk of postings in memory.
final class SegmentWriter {
    /// Bytes handed to the segment's file at a time.
    static let chunkBytes = 1 << 16

    private let rowids: [Int64]
    private let keys: [UInt64]
    private let lengths: [UInt16]
    private let averageLength: Double
    private let emit: (_ chunk: Int, _ bytes: [UInt8]) throws -> Void
    private let pending = ByteBuffer(capacity: SegmentWriter.chunkBytes * 2)
    private let dictionary = ByteBuffer()
    // Unchecked: these are touched for every term written, and only by this writer's own
    // methods, which never overlap (a class's stored properties are otherwise checked for
    // exclusive access at run time on each access).
    @exclusivity(unchecked) private var written = 0
    @exclusivity(unchecked) private var chunks = 0
    @exclusivity(unchecked) private var entryOffsets: [UInt32] = []

    /// - Parameters:
    ///   - rowids: the documents' rowids in ordinal order, ascending.
    ///   - keys: each document's order key (``ItemKey/orderKey``), by ordinal.
    ///   - lengths: each document's length in tokens, by ordinal.
    ///   - averageLength: the index's average document length the bounds are computed with.
    init(rowids: [Int64], keys: [UInt64], lengths: [UInt16], averageLength: Double, emit: @escaping (_ chunk: Int, _ bytes: [UInt8]) throws -> Void) {
        self.rowids = rowids
        self.keys = keys
        self.lengths = lengths
        self.averageLength = max(averageLength, 1)
        self.emit = emit
    }

    private var offset: Int { written + pending.count }

    /// Adds a term's postings: ordinals ascending, each with its weighted frequency.
    func add(term: UnsafeRawBufferPointer, ordinals: UnsafeBufferPointer<UInt32>, frequencies: UnsafeBufferPointer<UInt32>) throws {
        guard !ordinals.isEmpty else { return }
        appendPostings(ordinals: ordinals, frequencies: frequencies)
        try finishTerm(term)
    }

    // A term in parts (a merge's inputs one after another): its block index and data are
    // built in the writer's buffers, then appended to the pending bytes in two copies.
    private let termIndex = ByteBuffer()
    private let termData = ByteBuffer()
    @exclusivity(unchecked) private var termBlocks = 0
    @exclusivity(unchecked) private var termDocuments = 0
    @exclusivity(unchecked) private var termMaximum: Float = 0
    /// The last ordinal the term holds (−1: none yet).
    @exclusivity(unchecked) private var termLast: Int64 = -1
    /// Postings waiting for a block: up to a block's worth, and their largest saturation.
    private let openOrdinals = UnsafeMutablePointer<UInt32>.allocate(capacity: SegmentLayout.blockSize)
    private let openFrequencies = UnsafeMutablePointer<UInt32>.allocate(capacity: SegmentLayout.blockSize)
    @exclusivity(unchecked) private var openCount = 0
    @exclusivity(unchecked) private var openBound = 0.0

    deinit {
        openOrdinals.deallocate()
        openFrequencies.deallocate()
    }

    /// Adds postings (ordinals ascending, above any the term holds) to the term being
    /// written, in blocks of ``SegmentLayout/blockSize``: postings added in several calls are
    /// encoded as one call with all of them would encode them.
    func appendPostings(ordinals: UnsafeBufferPointer<UInt32>, frequencies: UnsafeBufferPointer<UInt32>) {
        for i in 0..<ordinals.count {
            let ordinal = ordinals[i]
            openOrdinals[openCount] = ordinal
            openFrequencies[openCount] = frequencies[i]
            openCount += 1
            let saturation = BM25.saturation(frequency: Double(frequencies[i]), length: Double(lengths[Int(ordinal)]), averageLength: averageLength)
            if saturation > openBound { openBound = saturation }
            if openCount == SegmentLayout.blockSize { closeBlock() }
        }
        termDocuments += ordinals.count
    }

    /// Encodes the open postings as a block.
    private func closeBlock() {
        guard openCount > 0 else { return }
        PostingBlock.encode(ordinals: openOrdinals, frequencies: openFrequencies, count: openCount, into: termData)
        let rounded = Float(openBound).nextUp
        termMaximum = max(termMaximum, rounded)
        termLast = Int64(openOrdinals[openCount - 1])
        addBlock(last: openOrdinals[openCount - 1], bound: rounded)
        openCount = 0
        openBound = 0
    }

    /// Adds an input segment's postings of the term as they are encoded there — `postings`
    /// its block index then its data, every document kept, ordinal `o` becoming
    /// `base + o` — copying its blocks and rewriting only each block's first ordinal. Their
    /// bounds stay those the input computed with its own average length; the caller records
    /// the merged segment's average as no larger than any input's, which keeps every bound an
    /// upper bound (``BM25/boundFactor(builtWith:scoringWith:)``). Returns false, adding
    /// nothing, when the bytes do not hold the blocks they claim.
    func appendBlocks(_ postings: UnsafeRawBufferPointer, blocks: Int, documents: Int, base: Int32) -> Bool {
        let entryBytes = SegmentLayout.blockIndexEntryBytes
        guard blocks > 0, postings.count >= blocks * entryBytes, base >= 0 else { return false }
        let data = UnsafeRawBufferPointer(rebasing: postings[(blocks * entryBytes)...])
        guard let source = data.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        func entry(_ block: Int, _ field: Int) -> UInt32 {
            postings.loadUnaligned(fromByteOffset: block * entryBytes + field, as: UInt32.self).littleEndian
        }
        // Every block's header must fit its span, and the first ordinal must follow the term's last.
        var start = 0
        var counted = 0
        for block in 0..<blocks {
            let end = Int(entry(block, 8))
            guard end > start, end <= data.count, let header = PostingBlock.header(source, start, end: end), header.size == end - start
            else { return false }
            let last = openCount > 0 ? Int64(openOrdinals[openCount - 1]) : termLast
            if block == 0, Int64(base) + Int64(header.first) <= last { return false }
            counted += header.count
            start = end
        }
        guard counted == documents else { return false }
        closeBlock()
        start = 0
        for block in 0..<blocks {
            let end = Int(entry(block, 8))
            let at = termData.count
            termData.append(UnsafeRawBufferPointer(start: source + start, count: end - start))
            let first = UInt32(littleEndian: UnsafeRawPointer(source + start).loadUnaligned(as: UInt32.self))
            termData.store((first &+ UInt32(base)).littleEndian, at: at)
            let bound = Float(bitPattern: entry(block, 4))
            termMaximum = max(termMaximum, bound)
            addBlock(last: entry(block, 0) &+ UInt32(base), bound: bound)
            start = end
        }
        termLast = Int64(entry(blocks - 1, 0)) + Int64(base)
        termDocuments += documents
        return true
    }

    /// Adds the index entry of the block just appended to the term's data.
    private func addBlock(last: UInt32, bound: Float) {
        let at = termIndex.count
        termIndex.append(zeros: SegmentLayout.blockIndexEntryBytes)
        termIndex.store(last.littleEndian, at: at)
        termIndex.store(bound.bitPattern.littleEndian, at: at + 4)
        termIndex.store(UInt32(termData.count).littleEndian, at: at + 8)
        termBlocks += 1
    }

    /// Writes the term's blocks and its dictionary entry, and starts the next term.
    func finishTerm(_ term: UnsafeRawBufferPointer) throws {
        closeBlock()
        defer {
            termIndex.removeAll()
            termData.removeAll()
            termLast = -1
            termBlocks = 0
            termDocuments = 0
            termMaximum = 0
        }
        guard termBlocks > 0 else { return }
        let postingsOffset = offset
        pending.append(termIndex.bytes)
        pending.append(termData.bytes)
        try flush(final: false)
        // The dictionary entry, built in the index buffer (its block index is copied out).
        let termBytes = min(term.count, Int(UInt16.max))
        let entry = UnsafeMutableRawPointer(termIndex.scratch(termBytes + 22))
        entry.storeBytes(of: UInt16(termBytes).littleEndian, as: UInt16.self)
        if termBytes > 0 { (entry + 2).copyMemory(from: term.baseAddress!, byteCount: termBytes) }
        entry.storeBytes(of: UInt32(termDocuments).littleEndian, toByteOffset: termBytes + 2, as: UInt32.self)
        entry.storeBytes(of: UInt32(termBlocks).littleEndian, toByteOffset: termBytes + 6, as: UInt32.self)
        entry.storeBytes(of: termMaximum.bitPattern.littleEndian, toByteOffset: termBytes + 10, as: UInt32.self)
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
        // The documents start at a multiple of eight, so that a reader takes them in place
        // as arrays of 64-bit values (the zeros before count in the last term's postings).
        if offset % 8 != 0 { pending.append(zeros: 8 - offset % 8) }
        let documentsOffset = offset
        var documents = ByteWriter(capacity: rowids.count * SegmentLayout.documentBytes)
        for rowid in rowids { documents.u64(UInt64(bitPattern: rowid)) }
        for key in keys { documents.u64(key) }
        for length in lengths { documents.u16(length) }
        try append(documents.bytes)
        let dictionaryOffset = offset
        var head = ByteWriter(capacity: 4 + entryOffsets.count * 4)
        head.u32(UInt32(entryOffsets.count))
        let entriesStart = UInt32(4 + entryOffsets.count * 4)
        for entry in entryOffsets { head.u32(entriesStart + entry) }
        try append(head.bytes)
        pending.append(dictionary.bytes)
        try flush(final: true)
        return (documentsOffset, dictionaryOffset, written, entryOffsets.count)
    }
}
