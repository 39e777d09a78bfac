import Foundation
import Glibc
import Items
import SQLite
import SearchModel
import Testing
import TextUtilities

@testable import SearchIndex

/// A segment's facet values read from its filter terms (``SegmentFacets``) are the values its
/// rows in `items` hold, for every document; counts over segments of both kinds (with terms,
/// and written before them) agree with SQL's; a segment's live documents are its rows still
/// in `items`, and the expired rows those past their expiry.
@Suite struct SegmentFacetsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A host longer than 1,024 bytes (no DNS name is, but a URL may hold one).
    static let longHost = Array(repeating: String(repeating: "a", count: 60), count: 22).joined(separator: ".") + ".example"

    static func items(_ count: Int, seed: UInt64) -> [SearchableItem] {
        var random = SplitMix64(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        return (0..<count).map { n in
            var item = item("item-\(seed)-\(n)", "harbour word\(n % 5)", expires: n % 11 == 3 ? now.addingTimeInterval(60) : nil)
            // English stems that start as filter terms do (`\u{1}do`, `\u{1}tabl`): never values.
            item.language = "en"
            item.bodyText = "doing tables"
            // One value of each facet in over 1/64 of a segment's documents, counted by its bits.
            item.contentType = pick([nil, "public.image", "public.image", "public.image", "public.movie", "public.image.raw", "com.example.ümlaut"])
            item.webURL = pick([nil, "https://example.com/\(n)", "https://example.com/\(n)", "https://example.com/\(n)", "https://shop.example.com/\(n)", "https://bücher.example/\(n)",
                                "https://EXAMPLE.org/\(n)", "https://\(longHost)/\(n)", "http://127.0.0.1:8080/\(n)"])
            return item
        }
    }

    /// How many values each facet takes in ``items(_:seed:)``.
    static let valueCount: [Facet: Int] = [.contentType: 4, .domain: 6]

    static func value(_ facet: Facet, rowid: Int64, connection: SQLiteConnection) throws -> String? {
        let statement = try connection.statement("SELECT \(facet.column) FROM items WHERE rowid = ?")
        defer { statement.reset() }
        statement.bind(1, rowid)
        return try statement.step() ? statement.string(0) : nil
    }

    /// The file's first segment as a file of the format before filter terms: its header's flag cleared.
    static func clearFlag(indexPath path: String, segment: Int64) {
        let descriptor = open(SegmentFile.path(forIndex: path, segment: segment), O_WRONLY)
        var zero = UInt64(0)
        #expect(pwrite(descriptor, &zero, 8, 24) == 8)
        close(descriptor)
    }

    @Test func theTermsGiveEachDocumentTheValueItsRowHolds() throws {
        let t = try TemporaryIndex()
        for seed in 1...3 { try t.index.upsert(Self.items(300, seed: UInt64(seed)), now: Self.now) }
        let connection = try SQLiteConnection(path: t.directory.appendingPathComponent("index.sqlite").path)
        let segments = try SegmentStore.list(connection).map { try SegmentReader(info: $0, connection: connection) }
        #expect(segments.count == 3 && segments.allSatisfy(\.file.holdsFilterTerms))
        let names = FacetNames()
        for facet in Facet.allCases {
            var seen = Set<String>()
            for segment in segments {
                let values = SegmentFacets.values(facet, fromTermsOf: segment, names: names)
                let fromRows = SegmentFacets.values(try SegmentFacets.numbers(facet, fromRowsOf: segment, names: names, connection: connection))
                #expect(values.numbers == fromRows.numbers, "\(facet), segment \(segment.info.id)")
                #expect(values.others == fromRows.others && values.frequent.count == 1)
                #expect(values.frequent.map(\.number) == fromRows.frequent.map(\.number) && values.frequent.map(\.bits) == fromRows.frequent.map(\.bits))
                let fromTerms = values.numbers
                let named = names.names(facet)
                for (ordinal, rowid) in segment.rowids.enumerated() {
                    let stored = try Self.value(facet, rowid: rowid, connection: connection)
                    #expect((fromTerms[ordinal] == 0 ? nil : named[Int(fromTerms[ordinal])]) == stored)
                    if let stored { seen.insert(stored) }
                }
            }
            // Every value was met: none left out, none empty, a host with letters of many
            // bytes read back in order, the long host whole.
            #expect(seen.count == Self.valueCount[facet], "\(facet): \(seen.sorted())")
            if facet == .domain { #expect(seen.contains(Self.longHost) && seen.contains("bücher.example") && seen.contains("127.0.0.1")) }
        }
    }

    /// Counts over every document of segments with and without terms, by candidates and by
    /// the tally of matches, are SQL's counts of the live, unexpired rows.
    @Test func countsOverSegmentsOfBothKindsAreSQLs() throws {
        let t = try TemporaryIndex()
        let path = t.directory.appendingPathComponent("index.sqlite").path
        for seed in 1...3 { try t.index.upsert(Self.items(300, seed: UInt64(seed)), now: Self.now) }
        let removed = (0..<300).filter { $0 % 4 == 1 }.map { "item-2-\($0)" }
        #expect(try t.index.delete(identifiers: removed) == removed.count)
        let connection = try SQLiteConnection(path: path)
        let infos = try SegmentStore.list(connection)
        Self.clearFlag(indexPath: path, segment: infos[0].id)
        let segments = try infos.map { try SegmentReader(info: $0, connection: connection) }
        #expect(segments.map(\.file.holdsFilterTerms) == [false, true, true])
        let later = Self.now.addingTimeInterval(120).timeIntervalSince1970

        let expired = try LiveRows.expired(at: later, connection: connection)
        let pastExpiry = try Self.rowids("SELECT rowid FROM items WHERE expires IS NOT NULL AND expires <= \(later) ORDER BY rowid", connection: connection)
        let expiredNow = try LiveRows.expired(at: Self.now.timeIntervalSince1970, connection: connection)
        #expect(expired == pastExpiry && !expired.isEmpty && expiredNow.isEmpty)
        // Each segment's live documents are its rows still in `items`: the second segment's
        // from its list of removals, the others' all.
        let live = LiveRows()
        var liveOrdinals: [[UInt64]?] = []
        for (segment, info) in zip(segments, infos) {
            let bits = try live.ordinals(segment, deleted: info.deleted, connection: connection)
            #expect((bits == nil) == (info.deleted == 0))
            let present = Set(try Self.rowids("SELECT rowid FROM items WHERE rowid BETWEEN \(info.minimumRowid) AND \(info.maximumRowid)",
                                              connection: connection))
            for (ordinal, rowid) in segment.rowids.enumerated() {
                #expect((bits.map { $0[ordinal >> 6] & (UInt64(1) << UInt64(ordinal & 63)) != 0 } ?? true) == present.contains(rowid))
            }
            liveOrdinals.append(bits)
        }
        #expect(infos.map(\.deleted) == [0, removed.count, 0])

        for facet in Facet.allCases {
            let statement = try connection.statement(
                "SELECT \(facet.column), count(*) FROM items WHERE \(facet.column) IS NOT NULL AND (expires IS NULL OR expires > ?) GROUP BY 1")
            statement.bind(1, later)
            var expected: [String: Int] = [:]
            while try statement.step() { expected[statement.string(0)!] = Int(statement.int64(1)) }
            statement.reset()
            #expect(expected.count == Self.valueCount[facet])

            var tally = try FacetTally([facet], segments: segments, values: SegmentFacets(), connection: connection)
            for (segment, liveBits) in zip(segments, liveOrdinals) {
                var bits = [UInt64](repeating: 0, count: segment.documentCount / 64 + 1)
                for ordinal in 0..<segment.documentCount { bits[ordinal >> 6] |= UInt64(1) << UInt64(ordinal & 63) }
                LiveRows.mask(&bits, live: liveBits, rowids: segment.rowids, expired: expired)
                bits.withUnsafeBufferPointer { tally.collect(segment, matches: $0) }
            }
            let tallied = try #require(tally.counts(exact: true).counts[facet])
            #expect(Dictionary(uniqueKeysWithValues: tallied.map { ($0.value, $0.count) }) == expected)

            let unexpired = try Self.rowids("SELECT rowid FROM items WHERE expires IS NULL OR expires > \(later)", connection: connection)
            let counted = try FacetCounts.count([facet], rowids: unexpired, exact: true, segments: segments, values: SegmentFacets(),
                                                connection: connection)
            #expect(Dictionary(uniqueKeysWithValues: try #require(counted.counts[facet]).map { ($0.value, $0.count) }) == expected)
        }
    }

    static func rowids(_ sql: String, connection: SQLiteConnection) throws -> [Int64] {
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        var rowids: [Int64] = []
        while try statement.step() { rowids.append(statement.int64(0)) }
        return rowids
    }
}
