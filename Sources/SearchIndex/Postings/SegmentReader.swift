import Items
import SQLite

/// One segment's documents and dictionary, read once and kept (segments never change):
/// what a search needs to find a term's postings and to score a document.
final class SegmentReader: Sendable {
    let info: SegmentInfo
    let documents: SegmentDocuments
    /// Rowids by ordinal, ascending.
    var rowids: [Int64] { documents.rowids }
    /// Document lengths in tokens, by ordinal.
    var lengths: [UInt16] { documents.lengths }
    let dictionary: [UInt8]
    let entryOffsets: [UInt32]

    struct Term: Sendable {
        var documents: Int
        var blocks: Int
        var maximumBound: Float
        /// The term's postings (block index, then data) within the segment.
        var postings: Range<Int>
    }

    init(info: SegmentInfo, connection: SQLiteConnection) throws {
        self.info = info
        let bytes = try SegmentStore.read(connection, segment: info.id, range: info.documentsOffset..<info.dictionaryOffset)
        let count = info.documents
        guard bytes.count == count * SegmentLayout.documentBytes else {
            throw SQLiteError(code: 11, message: "segment \(info.id): \(bytes.count) bytes of documents for \(count) documents")
        }
        var rowids = [Int64](repeating: 0, count: count)
        var keys = [UInt64](repeating: 0, count: count)
        var lengths = [UInt16](repeating: 0, count: count)
        bytes.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes)
            for i in 0..<count { rowids[i] = Int64(bitPattern: reader.u64()) }
            for i in 0..<count { keys[i] = reader.u64() }
            for i in 0..<count { lengths[i] = reader.u16() }
        }
        documents = SegmentDocuments(rowids: rowids, keys: keys, lengths: lengths)
        dictionary = try SegmentStore.read(connection, segment: info.id, range: info.dictionaryOffset..<info.length)
        entryOffsets = dictionary.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes)
            let terms = Int(reader.u32())
            guard terms == info.terms else { return [] }
            return (0..<terms).map { _ in reader.u32() }
        }
        guard entryOffsets.count == info.terms else {
            throw SQLiteError(code: 11, message: "segment \(info.id): damaged dictionary")
        }
    }

    var documentCount: Int { documents.rowids.count }

    /// The term's entry, by binary search over the dictionary.
    func term(_ term: UnsafeRawBufferPointer) -> Term? {
        dictionary.withUnsafeBytes { bytes in
            var low = 0
            var high = entryOffsets.count - 1
            while low <= high {
                let middle = (low + high) / 2
                let order = compareBytes(self.term(at: middle, bytes), term)
                if order == 0 { return entry(at: middle, bytes) }
                if order < 0 { low = middle + 1 } else { high = middle - 1 }
            }
            return nil
        }
    }

    /// Terms from `lower` (inclusive) up to `upper` (exclusive), with their document counts,
    /// in byte order; for prefix completion and spelling candidates.
    func terms(from lower: [UInt8], below upper: [UInt8]?, _ visit: (UnsafeRawBufferPointer, Int) -> Void) {
        dictionary.withUnsafeBytes { bytes in
            var low = 0
            var high = entryOffsets.count
            lower.withUnsafeBytes { lower in
                while low < high {
                    let middle = (low + high) / 2
                    if compareBytes(term(at: middle, bytes), lower) < 0 { low = middle + 1 } else { high = middle }
                }
            }
            var index = low
            while index < entryOffsets.count {
                let text = term(at: index, bytes)
                if let upper, upper.withUnsafeBytes({ compareBytes(text, $0) >= 0 }) { break }
                var reader = ByteReader(bytes, offset: Int(entryOffsets[index]) + 2 + text.count)
                visit(text, Int(reader.u32()))
                index += 1
            }
        }
    }

    /// The dictionary's entry at `index` (in byte order of the terms), its term's bytes
    /// copied into `term`: for a merge, which walks every entry once.
    func entry(at index: Int, term: inout [UInt8]) -> Term {
        dictionary.withUnsafeBytes { bytes in
            term.removeAll(keepingCapacity: true)
            term.append(contentsOf: self.term(at: index, bytes))
            return entry(at: index, bytes)
        }
    }

    func term(at index: Int, _ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var reader = ByteReader(bytes, offset: Int(entryOffsets[index]))
        let length = Int(reader.u16())
        return reader.bytes(length)
    }

    private func entry(at index: Int, _ bytes: UnsafeRawBufferPointer) -> Term {
        var reader = ByteReader(bytes, offset: Int(entryOffsets[index]))
        let length = Int(reader.u16())
        _ = reader.bytes(length)
        let documents = Int(reader.u32())
        let blocks = Int(reader.u32())
        let bound = reader.f32()
        let start = Int(reader.u64())
        // Postings are written in term order: this term's end is the next term's start.
        var end = info.documentsOffset
        if index + 1 < entryOffsets.count {
            var next = ByteReader(bytes, offset: Int(entryOffsets[index + 1]))
            let nextLength = Int(next.u16())
            _ = next.bytes(nextLength)
            _ = next.u32()
            _ = next.u32()
            _ = next.f32()
            end = Int(next.u64())
        }
        return Term(documents: documents, blocks: blocks, maximumBound: bound, postings: start..<max(start, end))
    }
}

/// A segment's documents by ordinal: each one's rowid (ascending), order key
/// (``ItemKey/orderKey``) and length in tokens.
struct SegmentDocuments: Sendable {
    let rowids: [Int64]
    let keys: [UInt64]
    let lengths: [UInt16]

    /// Offers the document at `ordinal` to `collector` with `score`.
    @inline(__always) func offer(_ score: Double, _ ordinal: Int32, to collector: inout some ScoredCollector) {
        collector.collect(score, key: keys[Int(ordinal)], rowid: rowids[Int(ordinal)])
    }
}

/// One term's postings in one segment, as read from its chunks: the block index and the
/// data, in one buffer shared by every search that uses it. The buffer is allocated by
/// hand so that cursors can hold a stable pointer into it.
final class TermPostings: @unchecked Sendable {
    // @unchecked: `base` is written once in init and freed in deinit; in between it is
    // only read, from any thread.
    let base: UnsafeRawPointer
    let byteCount: Int
    let blocks: Int
    let documents: Int

    init(bytes: [UInt8], blocks: Int, documents: Int) {
        // Zeros past the end: a block is unpacked eight bytes at a time (``PostingBlock/padding``).
        let storage = UnsafeMutableRawPointer.allocate(byteCount: bytes.count + PostingBlock.padding, alignment: 8)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: bytes.count + PostingBlock.padding)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(storage), byteCount: $0.count) }
        base = UnsafeRawPointer(storage)
        byteCount = bytes.count
        self.blocks = min(blocks, bytes.count / SegmentLayout.blockIndexEntryBytes)
        self.documents = documents
    }

    deinit { UnsafeMutableRawPointer(mutating: base).deallocate() }

    var dataStart: Int { blocks * SegmentLayout.blockIndexEntryBytes }

    @inline(__always) func last(_ block: Int) -> Int32 {
        Int32(bitPattern: base.loadUnaligned(fromByteOffset: block * SegmentLayout.blockIndexEntryBytes, as: UInt32.self).littleEndian)
    }

    @inline(__always) func bound(_ block: Int) -> Float {
        Float(bitPattern: base.loadUnaligned(fromByteOffset: block * SegmentLayout.blockIndexEntryBytes + 4, as: UInt32.self).littleEndian)
    }

    /// Where block `block`'s data ends, from the start of the data.
    @inline(__always) func dataEnd(_ block: Int) -> Int {
        Int(base.loadUnaligned(fromByteOffset: block * SegmentLayout.blockIndexEntryBytes + 8, as: UInt32.self).littleEndian)
    }
}
