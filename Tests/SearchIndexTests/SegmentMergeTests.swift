import Foundation
import Items
import Testing

@testable import SearchIndex

/// A merge copies an input's blocks when the input kept every document and holds a block or
/// more of a term, and decodes the others: the merged postings must be exactly the inputs'
/// renumbered, every block bound must still bound its postings at the average the segment
/// records, and an index merged this way must rank as one built at once.
@Suite struct SegmentMergeTests {
    /// One term's postings written alone into a segment: its block index and data, and blocks.
    static func encoded(_ postings: [(UInt32, UInt32)], lengths: [UInt16], average: Double) throws -> (bytes: [UInt8], blocks: Int) {
        var chunks: [UInt8] = []
        let writer = SegmentWriter(rowids: lengths.indices.map(Int64.init), keys: lengths.map { _ in 0 }, lengths: lengths, averageLength: average) { _, bytes in
            chunks += bytes
        }
        try postings.map(\.0).withUnsafeBufferPointer { ordinals in
            try postings.map(\.1).withUnsafeBufferPointer { frequencies in
                try writer.add(term: UnsafeRawBufferPointer(start: nil, count: 0), ordinals: ordinals, frequencies: frequencies)
            }
        }
        let layout = try writer.finish()
        let blocks = (postings.count + SegmentLayout.blockSize - 1) / SegmentLayout.blockSize
        return (Array(chunks[0..<layout.documentsOffset]), blocks)
    }

    /// The postings of a one-term segment's bytes, and its blocks' bounds.
    static func decoded(_ bytes: [UInt8], blocks: Int) -> (postings: [(UInt32, UInt32)], bounds: [Float]) {
        var postings: [(UInt32, UInt32)] = []
        // Readers keep zeros past a term's bytes (``PostingBlock/padding``).
        (bytes + [UInt8](repeating: 0, count: PostingBlock.padding)).withUnsafeBytes { raw in
            SegmentMerger.forEachPosting(UnsafeRawBufferPointer(rebasing: raw[..<bytes.count]), blocks: blocks) { postings.append((UInt32($0), $1)) }
        }
        let bounds = (0..<blocks).map { block in
            bytes.withUnsafeBytes { Float(bitPattern: $0.loadUnaligned(fromByteOffset: block * 12 + 4, as: UInt32.self)) }
        }
        return (postings, bounds)
    }

    @Test func copiedBlocksAndEncodedPostingsMakeOneTerm() throws {
        var generator = SystemRandomNumberGenerator()
        let lengths = (0..<2_000).map { _ in UInt16.random(in: 1...300, using: &generator) }
        func postings(_ ordinals: [Int]) -> [(UInt32, UInt32)] { ordinals.map { (UInt32($0), UInt32.random(in: 1...40, using: &generator)) } }
        // Inputs of 300, 40 and 333 documents, their own ordinals from 0, merged at 0, 300 and 340.
        let first = postings(Array(stride(from: 0, to: 300, by: 1)))
        let middle = postings([1, 5, 6, 39])
        let last = postings(Array(stride(from: 0, to: 333, by: 1)))
        let firstInput = try Self.encoded(first, lengths: Array(lengths[0..<300]), average: 35)
        let lastInput = try Self.encoded(last, lengths: Array(lengths[340..<673]), average: 38)

        var chunks: [UInt8] = []
        let writer = SegmentWriter(rowids: lengths.indices.map(Int64.init), keys: lengths.map { _ in 0 }, lengths: lengths, averageLength: 40) { _, bytes in chunks += bytes }
        #expect(firstInput.bytes.withUnsafeBytes { writer.appendBlocks($0, blocks: firstInput.blocks, documents: first.count, base: 0) })
        let shifted = middle.map { (UInt32(300) + $0.0, $0.1) }
        shifted.map(\.0).withUnsafeBufferPointer { ordinals in
            shifted.map(\.1).withUnsafeBufferPointer { writer.appendPostings(ordinals: ordinals, frequencies: $0) }
        }
        #expect(lastInput.bytes.withUnsafeBytes { writer.appendBlocks($0, blocks: lastInput.blocks, documents: last.count, base: 340) })
        #expect(!lastInput.bytes.withUnsafeBytes { writer.appendBlocks(UnsafeRawBufferPointer(rebasing: $0.prefix(30)), blocks: lastInput.blocks,
                                                                      documents: last.count, base: 700) }, "damaged bytes are refused")
        try writer.finishTerm(UnsafeRawBufferPointer(start: nil, count: 0))
        let layout = try writer.finish()

        // The term's entry: its document and block counts, then its postings.
        let dictionary = Array(chunks[layout.dictionaryOffset...])
        let entry = dictionary.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) }
        let documents = dictionary.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: entry + 2, as: UInt32.self)) }
        let blocks = dictionary.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: entry + 6, as: UInt32.self)) }
        let expected = first + shifted + last.map { (UInt32(340) + $0.0, $0.1) }
        #expect(documents == expected.count)
        #expect(blocks == firstInput.blocks + 1 + lastInput.blocks)
        let (found, bounds) = Self.decoded(Array(chunks[0..<layout.documentsOffset]), blocks: blocks)
        #expect(found.map(\.0) == expected.map(\.0) && found.map(\.1) == expected.map(\.1))

        // Every posting's saturation at the smallest average any bound was computed with
        // stays within its block's bound.
        var block = 0
        var inBlock = 0
        let sizes = (0..<firstInput.blocks).map { min(128, first.count - 128 * $0) } + [middle.count]
            + (0..<lastInput.blocks).map { min(128, last.count - 128 * $0) }
        for (ordinal, frequency) in found {
            let saturation = BM25.saturation(frequency: Double(frequency), length: Double(lengths[Int(ordinal)]), averageLength: 35)
            #expect(saturation <= Double(bounds[block]), "posting \(ordinal) in block \(block)")
            inBlock += 1
            if inBlock == sizes[block] {
                block += 1
                inBlock = 0
            }
        }
    }

    @Test func anIndexMergedFromWholeAndThinnedSegmentsRanksAsOneBuiltAtOnce() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let items = RetrievalTests.corpus(2_700, seed: 21)
        let merged = try TemporaryIndex()
        for start in stride(from: 0, to: items.count, by: 300) {
            try merged.index.upsert(Array(items[start..<(start + 300)]), now: now)
            // One segment loses documents before the merge: it is decoded, the rest copied.
            if start == 600 { try merged.index.delete(identifiers: (600..<900).filter { $0 % 3 == 0 }.map { items[$0].uniqueIdentifier }) }
        }
        #expect(try merged.index.segmentCount() <= 2, "eight segments were merged")
        let single = try TemporaryIndex()
        try single.index.upsert(items.enumerated().filter { !($0.offset >= 600 && $0.offset < 900 && $0.offset % 3 == 0) }.map(\.element), now: now)
        for query in RetrievalTests.queries {
            for limit in [1, 10, 50] {
                let request = SearchRequest(query, limit: limit, now: now)
                let a = try merged.index.search(request)
                let b = try single.index.search(request)
                let exhaustive = try merged.index.search(request, retrieval: .exhaustive)
                #expect(a.hits.map(\.item.uniqueIdentifier) == exhaustive.hits.map(\.item.uniqueIdentifier), "\(query) \(limit)")
                #expect(a.hits.map(\.score) == exhaustive.hits.map(\.score))
                #expect(a.hits.count == b.hits.count)
                for (x, y) in zip(a.hits, b.hits) { #expect(abs(x.score - y.score) <= 1e-12 * max(1, abs(y.score)), "\(query)") }
            }
        }
    }

    @Test func aSegmentMostlyOfDeletedDocumentsIsRewrittenWithoutThem() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let items = RetrievalTests.corpus(1_000, seed: 31)
        let t = try TemporaryIndex()
        try t.index.upsert(items, now: now)
        // A fifth gone: counted against the segment, which stays.
        try t.index.delete(identifiers: (0..<200).map { items[$0 * 5].uniqueIdentifier })
        var segments = try t.index.segmentInfos()
        #expect(segments.count == 1 && segments[0].documents == 1_000 && segments[0].deleted == 200)
        // Two fifths: past the share, the segment is written again without them.
        try t.index.delete(identifiers: (0..<200).map { items[$0 * 5 + 1].uniqueIdentifier })
        segments = try t.index.segmentInfos()
        #expect(segments.map(\.documents).reduce(0, +) == 600 && segments.allSatisfy { $0.deleted == 0 })
        let fresh = try TemporaryIndex()
        try fresh.index.upsert(items.enumerated().filter { $0.offset % 5 > 1 }.map(\.element), now: now)
        for query in RetrievalTests.queries {
            let request = SearchRequest(query, limit: 20, now: now)
            #expect(try t.index.search(request).hits.map(\.item.uniqueIdentifier) == fresh.index.search(request).hits.map(\.item.uniqueIdentifier), "\(query)")
        }
        // Replacing items deletes their old rows too.
        try t.index.upsert(Array(items[500..<700]).enumerated().filter { $0.offset % 5 > 1 }.map(\.element), now: now)
        #expect(try t.index.segmentInfos().map(\.deleted).reduce(0, +) == 120)
    }

    /// Each segment's removed rows are listed beside it (what a count over every match leaves
    /// out), as many as counted; a file of version 10, which only counted them, gets the list
    /// when opened; a segment rewritten or merged away takes its list with it.
    @Test func eachSegmentsRemovedRowsAreListedAndGoWithIt() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let items = RetrievalTests.corpus(1_300, seed: 7)
        let t = try TemporaryIndex()
        try t.index.upsert(Array(items[..<1_000]), now: now)
        try t.index.upsert(Array(items[1_000...]), now: now)
        try t.index.delete(identifiers: (0..<100).map { items[$0 * 7].uniqueIdentifier } + (0..<30).map { items[1_000 + $0 * 9].uniqueIdentifier })
        try t.index.upsert((0..<20).map { items[$0 * 7 + 3] }, now: now)
        func lists(_ index: SearchIndex) throws -> [Int64: Set<Int64>] {
            try index.withConnection { connection in
                var lists: [Int64: Set<Int64>] = [:]
                for info in try SegmentStore.list(connection) { lists[info.id] = Set(try SegmentStore.deletions(of: info.id, connection)) }
                return lists
            }
        }
        func gone(_ index: SearchIndex) throws -> [Int64: Set<Int64>] {
            try index.withConnection { connection in
                var gone: [Int64: Set<Int64>] = [:]
                for info in try SegmentStore.list(connection) {
                    let reader = try SegmentReader(info: info, connection: connection)
                    let present = try connection.statement("SELECT 1 FROM items WHERE rowid = ?")
                    gone[info.id] = Set(try withExtendedLifetime(reader) {
                        try reader.rowids.filter { rowid in
                            present.reset()
                            present.bind(1, rowid)
                            return !(try present.step())
                        }
                    })
                    present.reset()
                }
                return gone
            }
        }
        let infos = try t.index.segmentInfos()
        let listed = try lists(t.index)
        #expect(try listed == gone(t.index))
        #expect(infos.map { listed[$0.id]?.count ?? -1 } == infos.map(\.deleted) && infos.map(\.deleted).sorted() == [0, 30, 120])

        // A version 10 file: counts, no lists.
        try t.index.withConnection { connection in
            try connection.execute("DELETE FROM segment_deletions; UPDATE meta SET value = '10' WHERE key = 'schema_version';")
        }
        let reopened = try SearchIndex(path: t.index.path)
        #expect(try lists(reopened) == listed)
        // Rowids too widely spread for a bit each: each looked up instead.
        try reopened.withConnection { connection in
            try connection.execute("DELETE FROM segment_deletions")
            try SegmentStore.recordPastDeletions(connection, span: 0)
        }
        #expect(try lists(reopened) == listed)

        // Past two fifths gone, the first segment is written again without them: its list goes.
        try reopened.delete(identifiers: (0..<400).map { items[$0 * 2 + 1].uniqueIdentifier })
        let orphans = try reopened.withConnection { connection in
            let statement = try connection.statement("SELECT count(*) FROM segment_deletions WHERE segment NOT IN (SELECT id FROM segments)")
            try statement.step()
            defer { statement.reset() }
            return statement.int(0)
        }
        #expect(orphans == 0)
        #expect(try lists(reopened) == gone(reopened))
    }

    @Test func mergesMoveSegmentsUpALevel() {
        // Eight segments of a level hold at least the least of the next.
        for level in 1...5 {
            var least = 128
            for _ in 1..<level { least *= 8 }
            #expect(SegmentStore.level(documents: least) == level && SegmentStore.level(documents: least - 1) == level - 1)
            #expect(SegmentStore.level(documents: 8 * least) == level + 1)
        }
        let info = { (id: Int64, documents: Int, deleted: Int) in
            SegmentInfo(id: id, level: 0, documents: documents, terms: 1, documentsOffset: 0, dictionaryOffset: 0, length: 0, averageLength: 1,
                        minimumRowid: id * 10_000, maximumRowid: id * 10_000 + 9_999, deleted: deleted)
        }
        // Levels by the documents still there: a thinned segment counts where it now belongs.
        let seven = (1...7).map { info($0, 500, 0) }
        #expect(SegmentMerger.pick(seven) == nil)
        #expect(SegmentMerger.pick(seven + [info(8, 5_000, 4_700)])?.map(\.id) == Array(1...8))
        #expect(SegmentMerger.pick(seven + [info(8, 5_000, 2_000)])?.map(\.id) == [8], "40 % gone: rewritten alone")
    }
}
