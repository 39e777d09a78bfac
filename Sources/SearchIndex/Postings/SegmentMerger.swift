import SQLite

/// Keeps the number of segments small: when eight segments share a level, they are merged
/// into one of the next level (``SegmentStore/level(documents:)``), the documents whose
/// items are gone left out. A search reads every segment, so fewer is faster; merging
/// eight at a time rewrites each posting once per level, a handful of times in all.
enum SegmentMerger {
    static let factor = 8

    /// The segments to merge next, if any: the oldest eight of the lowest full level.
    static func pick(_ segments: [SegmentInfo]) -> [SegmentInfo]? {
        let levels = Dictionary(grouping: segments, by: \.level)
        for level in levels.keys.sorted() {
            let members = levels[level]!.sorted { $0.minimumRowid < $1.minimumRowid }
            if members.count >= factor { return Array(members.prefix(factor)) }
        }
        return nil
    }

    /// Merges `inputs` into one new segment (none when no document is left) and deletes
    /// them, in the caller's transaction. Returns the new segment's id.
    @discardableResult
    static func merge(_ inputs: [SegmentInfo], connection: SQLiteConnection, averageLength: Double) throws -> Int64? {
        let ordered = inputs.sorted { $0.minimumRowid < $1.minimumRowid }
        let readers = try ordered.map { try SegmentReader(info: $0, connection: connection) }
        // Which documents are still there, and their ordinals in the merged segment.
        let present = try connection.statement("SELECT rowid FROM items WHERE rowid BETWEEN ? AND ? ORDER BY rowid")
        var rowids: [Int64] = []
        var lengths: [UInt16] = []
        var remaps: [[Int32]] = []
        for reader in readers {
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
                lengths.append(reader.lengths[ordinal])
            }
            remaps.append(remap)
        }
        var id: Int64?
        if let first = rowids.first, let last = rowids.last {
            id = try SegmentStore.create(connection, documents: rowids.count, averageLength: averageLength, rowids: first...last) { emit in
                let writer = SegmentWriter(rowids: rowids, lengths: lengths, averageLength: averageLength, emit: emit)
                try mergeTerms(readers, remaps: remaps, connection: connection, into: writer)
                return try writer.finish()
            }
        }
        try SegmentStore.delete(connection, segments: ordered.map(\.id))
        return id
    }

    /// Every term of the inputs, in byte order, with its live postings renumbered.
    private static func mergeTerms(_ readers: [SegmentReader], remaps: [[Int32]], connection: SQLiteConnection, into writer: SegmentWriter) throws {
        var vocabularies: [[(term: [UInt8], entry: SegmentReader.Term)]] = []
        for reader in readers {
            var terms: [[UInt8]] = []
            reader.terms(from: [], below: nil) { term, _ in terms.append(Array(term)) }
            vocabularies.append(terms.compactMap { term in term.withUnsafeBytes { reader.term($0) }.map { (term, $0) } })
        }
        var positions = [Int](repeating: 0, count: readers.count)
        var streams = readers.map { SegmentStore.SequentialReader(connection: connection, segment: $0.info.id) }
        var ordinals: [UInt32] = []
        var frequencies: [UInt32] = []
        while true {
            var smallest: [UInt8]?
            for (input, position) in positions.enumerated() where position < vocabularies[input].count {
                let term = vocabularies[input][position].term
                if smallest == nil || term.lexicographicallyPrecedes(smallest!) { smallest = term }
            }
            guard let term = smallest else { return }
            ordinals.removeAll(keepingCapacity: true)
            frequencies.removeAll(keepingCapacity: true)
            for input in readers.indices where positions[input] < vocabularies[input].count && vocabularies[input][positions[input]].term == term {
                let entry = vocabularies[input][positions[input]].entry
                positions[input] += 1
                let bytes = try streams[input].read(entry.postings)
                let postings = TermPostings(bytes: bytes, blocks: entry.blocks, documents: entry.documents)
                let remap = remaps[input]
                withExtendedLifetime(postings) {
                    var cursor = PostingCursor(postings)
                    defer { cursor.release() }
                    while cursor.doc != PostingCursor.end {
                        let mapped = Int(cursor.doc) < remap.count ? remap[Int(cursor.doc)] : -1
                        if mapped >= 0 {
                            ordinals.append(UInt32(mapped))
                            frequencies.append(cursor.frequency)
                        }
                        cursor.next()
                    }
                }
            }
            try term.withUnsafeBytes { term in
                try ordinals.withUnsafeBufferPointer { ordinals in
                    try frequencies.withUnsafeBufferPointer { frequencies in
                        try writer.add(term: term, ordinals: ordinals, frequencies: frequencies)
                    }
                }
            }
        }
    }
}
