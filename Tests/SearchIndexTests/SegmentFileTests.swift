import Foundation
import ItemModel
import SQLite
import Testing

@testable import SearchIndex

/// Segments kept in files of their own beside the index file (``SegmentFile``): a file goes
/// only when no reader can still want it, a file no committed segment has is cleared away,
/// and a missing or damaged file is an error a search reports, never a crash.
@Suite struct SegmentFileTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func files(_ t: TemporaryIndex) -> Set<Int64> { Set(SegmentFile.stored(forIndex: t.directory.appendingPathComponent("index.sqlite").path)) }

    func segments(_ connection: SQLiteConnection) throws -> Set<Int64> { Set(try SegmentStore.list(connection).map(\.id)) }

    @Test func aMergedAwaySegmentsFileStaysAMinuteForReadersThatListedIt() throws {
        let t = try TemporaryIndex()
        let path = t.directory.appendingPathComponent("index.sqlite").path
        // Seven commits make seven small segments; a reader in another connection maps them.
        for batch in 0..<7 { try t.index.upsert(RetrievalTests.corpus(20, seed: UInt64(batch + 1)).map { renamed($0, batch) }, now: now) }
        let reader = try SearchIndex(path: path, mode: .existing)
        let before = try reader.search(SearchRequest("w1 w7", limit: 50, now: now)).hits.map(\.item.uniqueIdentifier)
        #expect(!before.isEmpty)
        let connection = try SQLiteConnection(path: path)
        let first = try segments(connection)
        #expect(first.count == 7 && files(t) == first)
        // The eighth makes a level of eight: merged into one, the seven files still there.
        try t.index.upsert(RetrievalTests.corpus(20, seed: 8).map { renamed($0, 7) }, now: now)
        let merged = try segments(connection)
        #expect(merged.count == 1 && merged.isDisjoint(with: first))
        #expect(files(t).isSuperset(of: first), "the merged-away files stay for readers that listed them")
        // The reader still answers (from its mappings, then from the new segment).
        #expect(try reader.search(SearchRequest("w1 w7", limit: 50, now: now)).hits.count >= before.count)
        // A minute on, the next writer removes them.
        try connection.transaction("IMMEDIATE") { try SegmentStore.removeUnused(connection, now: Double(time(nil)) + SegmentStore.droppedFileSeconds + 1) }
        #expect(files(t) == merged)
    }

    /// The `VmFlags` of this process's mappings of files under `folder`, by path.
    static func mappingFlags(under folder: String) throws -> [String: [String]] {
        var flags: [String: [String]] = [:]
        var current: String?
        // Read to its end: the file's size reads as 0.
        let smaps = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps")).readDataToEndOfFile()
        for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                current = fields.count >= 6 && fields[5].hasPrefix(folder) ? String(fields[5]) : nil
            } else if let path = current, fields.first == "VmFlags:" {
                flags[path, default: []] += fields.dropFirst().map(String.init)
            }
        }
        return flags
    }

    /// A search's mappings — the index file's (SQLite's `mmap_size`) and each segment's — are
    /// advised random (`rr`): without it, each fault on a cold page reads the disk's whole
    /// read-ahead window around it (8 MB on the benchmark machine).
    @Test func aSearchsMappingsAreAdvisedRandom() throws {
        let t = try TemporaryIndex()
        let path = t.directory.appendingPathComponent("index.sqlite").path
        for batch in 0..<3 { try t.index.upsert(RetrievalTests.corpus(20, seed: UInt64(batch + 1)).map { renamed($0, batch) }, now: now) }
        let reader = try SearchIndex(path: path, mode: .existing)
        #expect(try !reader.search(SearchRequest("w1 w7", limit: 50, now: now)).hits.isEmpty)
        let flags = try Self.mappingFlags(under: t.directory.path)
        let segmentFiles = flags.keys.filter { $0.hasSuffix(".seg") }
        #expect(segmentFiles.count == 3)
        #expect(flags[path] != nil, "SQLite maps the index file")
        for (file, set) in flags { #expect(set.contains("rr"), "\(file): \(set)") }
    }

    @Test func aFileNoCommittedSegmentHasIsClearedByTheNextWriter() throws {
        let t = try TemporaryIndex()
        let path = t.directory.appendingPathComponent("index.sqlite").path
        try t.index.upsert(RetrievalTests.corpus(20, seed: 1), now: now)
        // A transaction that wrote a segment's file and did not commit leaves the file.
        let connection = try SQLiteConnection(path: path)
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try connection.transaction("IMMEDIATE") {
                try SegmentStore.create(connection, documents: 1, averageLength: 1, rowids: 1...1) { emit in
                    let writer = SegmentWriter(rowids: [1], keys: [1], lengths: [1], averageLength: 1, emit: emit)
                    return try writer.finish()
                }
                throw Abandon()
            }
        }
        let committed = try segments(connection)
        #expect(files(t).count == committed.count + 1)
        try t.index.upsert(RetrievalTests.corpus(20, seed: 2).map { renamed($0, 1) }, now: now)
        #expect(files(t) == (try segments(connection)))
    }

    @Test func aFileMadeAgainUnderItsNameLeavesAMappedOneWhole() throws {
        let t = try TemporaryIndex()
        let path = t.directory.appendingPathComponent("index.sqlite").path
        try t.index.upsert(RetrievalTests.corpus(50, seed: 1), now: now)
        let connection = try SQLiteConnection(path: path)
        let info = try #require(try SegmentStore.list(connection).first)
        let reader = try SegmentReader(info: info, connection: connection)
        let rowids = Array(reader.rowids)
        // The index made anew at the same path (its segment folder left) writes a segment of
        // the same id; a half-written file left by a writer that stopped goes with it.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: SegmentFile.path(forIndex: path, segment: 77) + ".tmp"))
        let again = try SearchIndex(path: path)
        try again.upsert(RetrievalTests.corpus(5, seed: 9), now: now)
        let renewed = try SQLiteConnection(path: path)
        #expect(try segments(renewed).contains(info.id))
        #expect(SegmentFile.stored(forIndex: path, unfinished: true).isEmpty)
        // The first reader's mapping still holds the first file's bytes (a file truncated in
        // place would end this process with SIGBUS here).
        #expect(Array(reader.rowids) == rowids && reader.documentCount == 50)
        #expect(try SegmentReader(info: try #require(try SegmentStore.list(renewed).first), connection: renewed).documentCount == 5)
    }

    @Test func aMissingOrDamagedFileIsAnErrorNotACrash() throws {
        let t = try TemporaryIndex()
        let path = t.directory.appendingPathComponent("index.sqlite").path
        try t.index.upsert(RetrievalTests.corpus(50, seed: 1), now: now)
        let connection = try SQLiteConnection(path: path)
        let id = try #require(try segments(connection).first)
        let file = SegmentFile.path(forIndex: path, segment: id)
        let good = try Data(contentsOf: URL(fileURLWithPath: file))
        // Cut short, another segment's, gone: each refused by a fresh reader.
        for damaged in [good.prefix(good.count / 2), Data(good.prefix(8)) + Data(repeating: 0xFF, count: 8) + good.dropFirst(16), nil] {
            if let damaged { try damaged.write(to: URL(fileURLWithPath: file)) } else { try FileManager.default.removeItem(atPath: file) }
            let info = try #require(try SegmentStore.list(connection).first)
            #expect(throws: SQLiteError.self) { _ = try SegmentReader(info: info, connection: connection) }
        }
        // Put back, the segment reads again.
        try good.write(to: URL(fileURLWithPath: file))
        // A damaged row (its length or documents past any file) is refused, not overflowed.
        let row = try #require(try SegmentStore.list(connection).first)
        for damage in [{ (info: inout SegmentInfo) in info.length = .max }, { $0.documents = .max }, { $0.documentsOffset = -8 }] {
            var bad = row
            damage(&bad)
            #expect(throws: SQLiteError.self) { _ = try SegmentReader(info: bad, connection: connection) }
        }
        let info = try #require(try SegmentStore.list(connection).first)
        #expect(try SegmentReader(info: info, connection: connection).documentCount == 50)
    }

    /// The corpus's item under an identifier of its own batch, so that batches add items.
    func renamed(_ item: SearchableItem, _ batch: Int) -> SearchableItem {
        var copy = item
        copy.uniqueIdentifier = "b\(batch)-" + item.uniqueIdentifier
        return copy
    }
}
