import Items
import SQLite
import Synchronization

/// One segment, mapped from its file (``SegmentFile``) and kept while it is in the index
/// (segments never change): what a search needs to find a term's postings and to score a
/// document, read in place. Opening it reads its header and asks for its dictionary and
/// document lengths ahead, which every search reads (2 bytes a document and the dictionary:
/// ~25 MB at 10M benchmark items, read in the background); a
/// search asks for its words' postings in every segment at once (``prefetch(_:)``).
final class SegmentReader: @unchecked Sendable {
    // @unchecked: `dictionary` points into `file`'s read-only mapping, kept alive here.
    let info: SegmentInfo
    let file: SegmentFile
    let documents: SegmentDocuments
    /// Rowids by ordinal, ascending.
    var rowids: UnsafeBufferPointer<Int64> { documents.rowids }
    /// Document lengths in tokens, by ordinal.
    var lengths: UnsafeBufferPointer<UInt16> { documents.lengths }
    /// The dictionary: the term count, the entries' offsets, then the entries.
    let dictionary: UnsafeRawBufferPointer
    /// How many terms the dictionary holds.
    let termCount: Int

    struct Term: Sendable {
        /// Its place in the dictionary.
        var index: Int
        var documents: Int
        var blocks: Int
        var maximumBound: Float
        /// The term's postings (block index, then data) within the segment.
        var postings: Range<Int>
    }

    init(info: SegmentInfo, connection: SQLiteConnection, access: SegmentFile.Access = .search) throws {
        self.info = info
        file = try SegmentFile(indexPath: connection.path, info: info, access: access)
        let count = info.documents
        let payload = file.payload
        // The documents start at a multiple of eight (``SegmentWriter/finish()``), the
        // mapping at a page: the arrays are read in place.
        guard count >= 0, count <= payload.count / SegmentLayout.documentBytes, info.documentsOffset >= 0, info.documentsOffset % 8 == 0,
              info.dictionaryOffset >= info.documentsOffset, info.dictionaryOffset - info.documentsOffset == count * SegmentLayout.documentBytes,
              info.dictionaryOffset <= payload.count - 4, info.length == payload.count
        else {
            throw SQLiteError(code: 11, message: "segment \(info.id): \(info.dictionaryOffset - info.documentsOffset) bytes of documents for \(count) documents")
        }
        let base = payload.baseAddress! + info.documentsOffset
        documents = SegmentDocuments(
            rowids: UnsafeBufferPointer(start: base.assumingMemoryBound(to: Int64.self), count: count),
            keys: UnsafeBufferPointer(start: (base + count * 8).assumingMemoryBound(to: UInt64.self), count: count),
            lengths: UnsafeBufferPointer(start: (base + count * 16).assumingMemoryBound(to: UInt16.self), count: count), file: file)
        dictionary = UnsafeRawBufferPointer(rebasing: payload[info.dictionaryOffset..<info.length])
        termCount = Int(dictionary.loadUnaligned(as: UInt32.self).littleEndian)
        guard termCount == info.terms, dictionary.count >= 4 + termCount * 4 else {
            throw SQLiteError(code: 11, message: "segment \(info.id): damaged dictionary")
        }
        // Entries are read through ``ByteReader``, which stops at the dictionary's end: a
        // damaged entry reads as empty, never past the mapping.
        prefetched = Mutex([UInt64](repeating: 0, count: access == .search ? (termCount + 63) / 64 : 0))
        if access == .search {
            // Every term looked up reads the dictionary, every document scored its length.
            file.willNeed(info.dictionaryOffset..<info.length)
            file.willNeed((info.documentsOffset + count * 16)..<info.dictionaryOffset)
        }
    }

    /// Terms whose postings were asked for ahead (``prefetch(_:)``), a bit each.
    private let prefetched: Mutex<[UInt64]>

    /// The most of a term's postings ``prefetch(_:)`` asks for beyond its block index: a
    /// search that skips reads less of a long list.
    static let prefetchBytes = 4 << 20

    /// Asks for `term`'s postings ahead, the first time a search needs them in this process:
    /// a query's terms in every segment are asked for together, so the disk reads them side
    /// by side (``SegmentFile/willNeed(_:)``); later searches find them in the page cache.
    func prefetch(_ term: Term) {
        let word = term.index / 64, bit = UInt64(1) << UInt64(term.index % 64)
        let first = prefetched.withLock { bits in
            guard word < bits.count, bits[word] & bit == 0 else { return false }
            bits[word] |= bit
            return true
        }
        guard first else { return }
        let index = term.blocks * SegmentLayout.blockIndexEntryBytes
        file.willNeed(term.postings.lowerBound..<min(term.postings.upperBound, term.postings.lowerBound + index + Self.prefetchBytes))
    }

    @inline(__always) func entryOffset(_ index: Int) -> Int {
        Int(dictionary.loadUnaligned(fromByteOffset: 4 + index * 4, as: UInt32.self).littleEndian)
    }

    var documentCount: Int { documents.rowids.count }

    /// The term's entry, by binary search over the dictionary.
    func term(_ term: UnsafeRawBufferPointer) -> Term? {
        var low = 0
        var high = termCount - 1
        while low <= high {
            let middle = (low + high) / 2
            let order = compareBytes(self.term(at: middle), term)
            if order == 0 { return entry(at: middle) }
            if order < 0 { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    /// The place of the first term not below `bytes`, in byte order.
    private func lowerBound(_ bytes: [UInt8]) -> Int {
        var low = 0
        var high = termCount
        bytes.withUnsafeBytes { bytes in
            while low < high {
                let middle = (low + high) / 2
                if compareBytes(term(at: middle), bytes) < 0 { low = middle + 1 } else { high = middle }
            }
        }
        return low
    }

    /// Terms from `lower` (inclusive) up to `upper` (exclusive), with their document counts,
    /// in byte order; for prefix completion and spelling candidates.
    func terms(from lower: [UInt8], below upper: [UInt8]?, _ visit: (UnsafeRawBufferPointer, Int) -> Void) {
        var index = lowerBound(lower)
        while index < termCount {
            let text = term(at: index)
            if let upper, upper.withUnsafeBytes({ compareBytes(text, $0) >= 0 }) { break }
            var reader = ByteReader(dictionary, offset: entryOffset(index) + 2 + text.count)
            visit(text, Int(reader.u32()))
            index += 1
        }
    }

    /// The entries of the terms that start with `prefix`, in byte order.
    func terms(startingWith prefix: [UInt8], _ visit: (Term) -> Void) {
        var index = lowerBound(prefix)
        while index < termCount, term(at: index).starts(with: prefix) {
            visit(entry(at: index))
            index += 1
        }
    }

    /// The dictionary's entry at `index` (in byte order of the terms), its term's bytes
    /// copied into `term`: for a merge, which walks every entry once.
    func entry(at index: Int, term: inout [UInt8]) -> Term {
        term.removeAll(keepingCapacity: true)
        term.append(contentsOf: self.term(at: index))
        return entry(at: index)
    }

    func term(at index: Int) -> UnsafeRawBufferPointer {
        var reader = ByteReader(dictionary, offset: entryOffset(index))
        let length = Int(reader.u16())
        return reader.bytes(length)
    }

    private func entry(at index: Int) -> Term {
        var reader = ByteReader(dictionary, offset: entryOffset(index))
        let length = Int(reader.u16())
        _ = reader.bytes(length)
        let documents = Int(reader.u32())
        let blocks = Int(reader.u32())
        let bound = reader.f32()
        let start = Int(reader.u64())
        // Postings are written in term order: this term's end is the next term's start.
        var end = info.documentsOffset
        if index + 1 < termCount {
            var next = ByteReader(dictionary, offset: entryOffset(index + 1))
            let nextLength = Int(next.u16())
            _ = next.bytes(nextLength)
            _ = next.u32()
            _ = next.u32()
            _ = next.f32()
            end = Int(next.u64())
        }
        return Term(index: index, documents: documents, blocks: blocks, maximumBound: bound, postings: start..<max(start, end))
    }
}

/// A segment's documents by ordinal: each one's rowid (ascending), order key
/// (``ItemKey/orderKey``) and length in tokens, read in place from the segment's mapped file
/// (held here, so the arrays live as long as any copy of this).
struct SegmentDocuments: @unchecked Sendable {
    // @unchecked: the buffers point into `file`'s read-only mapping, which this keeps alive.
    let rowids: UnsafeBufferPointer<Int64>
    let keys: UnsafeBufferPointer<UInt64>
    let lengths: UnsafeBufferPointer<UInt16>
    let file: SegmentFile

    /// Asks for the pages holding the order key and rowid of the document at `ordinal`
    /// (``SegmentFile/willNeed(_:)``): before reading those of many documents.
    func willNeedKey(_ ordinal: Int32) {
        guard let payload = file.payload.baseAddress, let keys = keys.baseAddress, let rowids = rowids.baseAddress else { return }
        file.willNeedOnce(UnsafeRawPointer(keys + Int(ordinal)) - payload)
        file.willNeedOnce(UnsafeRawPointer(rowids + Int(ordinal)) - payload)
    }

    /// Offers the document at `ordinal` to `collector` with `score`.
    @inline(__always) func offer(_ score: Double, _ ordinal: Int32, to collector: inout some ScoredCollector) {
        collector.collect(score, ordinal: ordinal, in: self)
    }
}

/// One term's postings in one segment — the block index, then the data — read in place
/// from the segment's mapped file, or (for the fuzzer) from bytes of its own, with
/// ``PostingBlock/padding`` readable bytes past the end either way.
final class TermPostings: @unchecked Sendable {
    // @unchecked: `base` points into `file`'s read-only mapping (kept alive here), or into
    // memory allocated in init and freed in deinit; in between it is only read.
    let base: UnsafeRawPointer
    let byteCount: Int
    let blocks: Int
    let documents: Int
    private let file: SegmentFile?

    /// The postings at `range` of the payload of `file`.
    init(file: SegmentFile, range: Range<Int>, blocks: Int, documents: Int) {
        let range = range.clamped(to: 0..<file.payload.count)
        base = file.payload.baseAddress! + range.lowerBound
        byteCount = range.count
        self.blocks = min(blocks, range.count / SegmentLayout.blockIndexEntryBytes)
        self.documents = documents
        self.file = file
    }

    init(bytes: [UInt8], blocks: Int, documents: Int) {
        // Zeros past the end: a block is unpacked eight bytes at a time (``PostingBlock/padding``).
        let storage = UnsafeMutableRawPointer.allocate(byteCount: bytes.count + PostingBlock.padding, alignment: 8)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: bytes.count + PostingBlock.padding)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(storage), byteCount: $0.count) }
        base = UnsafeRawPointer(storage)
        byteCount = bytes.count
        self.blocks = min(blocks, bytes.count / SegmentLayout.blockIndexEntryBytes)
        self.documents = documents
        file = nil
    }

    deinit { if file == nil { UnsafeMutableRawPointer(mutating: base).deallocate() } }

    var dataStart: Int { blocks * SegmentLayout.blockIndexEntryBytes }

    /// Sets the bit of every document the postings hold (ordinals below `documentLimit`).
    func mark(in bits: inout [UInt64], documentLimit: Int) {
        bits.withUnsafeMutableBufferPointer { out in
            forEachOrdinal(documentLimit: documentLimit) { ordinal in
                guard ordinal >> 6 < out.count else { return }
                out[ordinal >> 6] |= UInt64(1) << UInt64(ordinal & 63)
            }
        }
    }

    /// Calls `body` with every document the postings hold (ordinals below `documentLimit`),
    /// in ascending order.
    @inline(__always)
    func forEachOrdinal(documentLimit: Int, _ body: (Int) -> Void) {
        withExtendedLifetime(self) {
            var cursor = PostingCursor(self, documentLimit: documentLimit)
            defer { cursor.release() }
            while let run = cursor.run(below: PostingCursor.end) {
                for index in 0..<run.count { body(Int(run.ordinals[index])) }
            }
        }
    }

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
