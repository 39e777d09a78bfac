import Items
import SQLite

/// Keeps the number of segments small: when eight segments share a level — by the
/// documents they still hold (``SegmentStore/level(documents:)``) — they are merged into one
/// of the next, the documents whose items are gone left out. A search reads every segment,
/// so fewer is faster; merging eight at a time rewrites each posting once per level, a
/// handful of times in all. A segment whose documents are mostly gone is rewritten alone:
/// deleted documents still cost a search their postings and count in its document
/// frequencies until then (a recrawl replaces most items).
enum SegmentMerger {
    static let factor = 8
    /// The share of a segment's documents gone past which it is rewritten without them.
    static let deletedShare = 0.3

    /// The segments to merge next, if any: the oldest eight of the lowest full level, else
    /// the segment with the largest share of deleted documents past ``deletedShare``.
    static func pick(_ segments: [SegmentInfo]) -> [SegmentInfo]? {
        let levels = Dictionary(grouping: segments) { SegmentStore.level(documents: $0.live) }
        for level in levels.keys.sorted() {
            let members = levels[level]!.sorted { $0.minimumRowid < $1.minimumRowid }
            if members.count >= factor { return Array(members.prefix(factor)) }
        }
        let worst = segments.filter { $0.documents > 0 && Double($0.deleted) > deletedShare * Double($0.documents) }
            .max { Double($0.deleted) / Double($0.documents) < Double($1.deleted) / Double($1.documents) }
        return worst.map { [$0] }
    }

    /// Merges `inputs` into one new segment (none when no document is left) and deletes
    /// them, in the caller's transaction. Returns the new segment's id.
    @discardableResult
    static func merge(_ inputs: [SegmentInfo], connection: SQLiteConnection, averageLength: Double) throws -> Int64? {
        let ordered = inputs.sorted { $0.minimumRowid < $1.minimumRowid }
        let readers = try ordered.map { try SegmentReader(info: $0, connection: connection, access: .sequential) }
        // Which documents are still there, and their ordinals in the merged segment.
        let present = try connection.statement("SELECT rowid FROM items WHERE rowid BETWEEN ? AND ? ORDER BY rowid")
        var rowids: [Int64] = []
        var keys: [UInt64] = []
        var lengths: [UInt16] = []
        var remaps: [[Int32]] = []
        // Inputs with every document still there: their postings can be copied block by
        // block, ordinal o becoming its base + o.
        var bases: [Int32?] = []
        for reader in readers {
            let base = Int32(rowids.count)
            present.reset()
            present.bind([.integer(reader.info.minimumRowid), .integer(reader.info.maximumRowid)])
            var live: [Int64] = []
            while try present.step() { live.append(Int64(present.int(0))) }
            var remap = [Int32](repeating: -1, count: reader.documentCount)
            var cursor = 0
            for (ordinal, rowid) in reader.rowids.enumerated() {
                while cursor < live.count, live[cursor] < rowid { cursor += 1 }
                guard cursor < live.count, live[cursor] == rowid else { continue }
                remap[ordinal] = Int32(rowids.count)
                rowids.append(rowid)
                keys.append(reader.documents.keys[ordinal])
                lengths.append(reader.lengths[ordinal])
            }
            remaps.append(remap)
            bases.append(rowids.count - Int(base) == reader.documentCount ? base : nil)
        }
        // Copied blocks keep the bounds their input computed with its average length; the
        // segment records the smallest average any of its bounds was computed with, so that
        // scoring scales every bound up enough (``BM25/boundFactor(builtWith:scoringWith:)``).
        let recorded = zip(readers, bases).reduce(max(averageLength, 1)) { least, input in
            input.1 == nil ? least : min(least, input.0.info.averageLength)
        }
        var id: Int64?
        if let first = rowids.first, let last = rowids.last {
            id = try SegmentStore.create(connection, documents: rowids.count, averageLength: recorded, rowids: first...last,
                                         holdsFilterTerms: readers.allSatisfy(\.file.holdsFilterTerms)) { emit in
                let writer = SegmentWriter(rowids: rowids, keys: keys, lengths: lengths, averageLength: averageLength, emit: emit)
                try mergeTerms(readers, remaps: remaps, bases: bases, connection: connection, into: writer)
                return try writer.finish()
            }
        }
        try SegmentStore.delete(connection, segments: ordered.map(\.id))
        return id
    }

    /// Every term of the inputs, in byte order, with its live postings renumbered: the
    /// dictionaries are walked entry by entry (no term is looked up again). An input that
    /// kept every document and holds at least a block of the term's postings is copied block
    /// by block (``SegmentWriter/appendBlocks(_:blocks:documents:base:)``); the others are
    /// decoded into raw buffers and encoded again, so that rare terms stay in full blocks.
    private static func mergeTerms(_ readers: [SegmentReader], remaps: [[Int32]], bases: [Int32?], connection: SQLiteConnection,
                                   into writer: SegmentWriter) throws {
        var inputs = readers.map { DictionaryWalk(reader: $0) }
        // An input's decoded postings of a term, in buffers grown to the most any needs.
        var capacity = 1024
        var ordinals = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        var frequencies = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        defer {
            ordinals.deallocate()
            frequencies.deallocate()
        }
        var holders: [Int] = []
        while true {
            holders.removeAll(keepingCapacity: true)
            for input in inputs.indices where inputs[input].entry != nil {
                guard let first = holders.first else {
                    holders.append(input)
                    continue
                }
                let order = inputs[input].term.withUnsafeBytes { term in inputs[first].term.withUnsafeBytes { compareBytes(term, $0) } }
                if order < 0 { holders.removeAll(keepingCapacity: true) }
                if order <= 0 { holders.append(input) }
            }
            guard let first = holders.first else { return }
            for input in holders {
                let entry = inputs[input].entry!
                // In place in the input's mapped file, whose trailer gives the padding.
                let postings = UnsafeRawBufferPointer(rebasing: readers[input].file.payload[entry.postings.clamped(to: 0..<readers[input].file.payload.count)])
                if let base = bases[input], entry.documents >= SegmentLayout.blockSize,
                    writer.appendBlocks(postings, blocks: entry.blocks, documents: entry.documents, base: base) {
                    continue
                }
                // At most a full block's postings per block are decoded, whatever the entry says.
                let most = entry.blocks * SegmentLayout.blockSize
                if most > capacity {
                    while capacity < most { capacity *= 2 }
                    ordinals.deallocate()
                    frequencies.deallocate()
                    ordinals = .allocate(capacity: capacity)
                    frequencies = .allocate(capacity: capacity)
                }
                var count = 0
                let remap = remaps[input]
                remap.withUnsafeBufferPointer { remap in
                    forEachPosting(postings, blocks: entry.blocks, limit: remap.count) { ordinal, frequency in
                        let mapped = ordinal >= 0 && Int(ordinal) < remap.count ? remap[Int(ordinal)] : -1
                        if mapped >= 0 {
                            ordinals[count] = UInt32(mapped)
                            frequencies[count] = frequency
                            count += 1
                        }
                    }
                }
                writer.appendPostings(ordinals: UnsafeBufferPointer(start: ordinals, count: count),
                                      frequencies: UnsafeBufferPointer(start: frequencies, count: count))
            }
            try inputs[first].term.withUnsafeBytes { try writer.finishTerm($0) }
            for input in holders { inputs[input].advance() }
        }
    }

    /// One input's dictionary, entry by entry in byte order: the current term's bytes (in
    /// a buffer reused from term to term) and its entry; nil past the last.
    private struct DictionaryWalk {
        let reader: SegmentReader
        var index = 0
        var term: [UInt8] = []
        var entry: SegmentReader.Term?

        init(reader: SegmentReader) {
            self.reader = reader
            load()
        }

        mutating func advance() {
            index += 1
            load()
        }

        private mutating func load() {
            guard index < reader.termCount else {
                entry = nil
                return
            }
            entry = reader.entry(at: index, term: &term)
        }
    }

    /// Calls `visit` with each posting of one term (its block index, then its data; see
    /// ``SegmentLayout``) in ordinal order, as ``PostingCursor`` decodes them; damaged bytes
    /// end the walk early rather than read past the buffer, which holds
    /// ``PostingBlock/padding`` bytes past `bytes`.
    static func forEachPosting(_ bytes: UnsafeRawBufferPointer, blocks: Int, limit: Int = Int(Int32.max), _ visit: (Int32, UInt32) -> Void) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let blocks = min(blocks, bytes.count / SegmentLayout.blockIndexEntryBytes)
        let dataStart = blocks * SegmentLayout.blockIndexEntryBytes
        let ordinals = UnsafeMutablePointer<Int32>.allocate(capacity: SegmentLayout.blockSize)
        let frequencies = UnsafeMutablePointer<UInt32>.allocate(capacity: SegmentLayout.blockSize)
        defer {
            ordinals.deallocate()
            frequencies.deallocate()
        }
        var start = dataStart
        var previous: Int32 = -1
        for block in 0..<blocks {
            let end = dataStart + Int(bytes.loadUnaligned(fromByteOffset: block * SegmentLayout.blockIndexEntryBytes + 8, as: UInt32.self).littleEndian)
            guard end > start, end <= bytes.count else { return }
            let count = PostingBlock.decode(base, start, end: end, limit: limit, ordinals: ordinals, frequencies: frequencies)
            guard count > 0, ordinals[0] > previous else { return }
            for i in 0..<count { visit(ordinals[i], frequencies[i]) }
            previous = ordinals[count - 1]
            start = end
        }
    }
}
