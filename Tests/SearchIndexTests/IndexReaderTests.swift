import Foundation
import Items
@testable import SearchIndex
import SQLite
import Testing

/// What the process keeps of an index file (``IndexReader``): one per file, shared by every
/// index open on it, another for a file made again at the same path; and what deletions
/// made dead goes from it.
@Suite struct IndexReaderTests {
    @Test func indexesOpenOnOneFileShareItsReaderAndAFileMadeAgainGetsAnother() throws {
        let t = try TemporaryIndex()
        let path = t.directory.appendingPathComponent("index.sqlite").path
        let again = try SearchIndex(path: path, mode: .existing)
        #expect(t.index.reader === again.reader)
        let other = try TemporaryIndex()
        #expect(other.index.reader !== t.index.reader)

        // The same path, a new file: its own reader, never the old file's caches.
        try t.index.upsert([GeoSearchTests.place("old", "Lemon tart", 48.86, 2.34)])
        #expect(try t.index.search(SearchRequest("lemon")).hits.count == 1)
        let before = t.index.reader
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let remade = try SearchIndex(path: path)
        #expect(remade.reader !== before)
        #expect(try remade.search(SearchRequest("lemon")).hits.isEmpty)
    }

    /// A grid holds a deleted item's place until an eighth of the grid was written since the
    /// places were last counted, then is made again past a quarter too many.
    @Test func deletedPlacesLeaveTheGridOnceTheyAreManyAndNearSearchesStayRight() throws {
        let t = try TemporaryIndex()
        let path = t.directory.appendingPathComponent("index.sqlite").path
        func places(_ range: Range<Int>) -> [SearchableItem] {
            range.map { GeoSearchTests.place("p\($0)", "Cafe \($0)", 48.80 + Double($0 % 100) * 0.001, 2.30 + Double($0 / 100) * 0.001) }
        }
        try t.index.upsert(places(0..<2_000))
        let grid = PlaceGrid()
        let connection = try SQLiteConnection(path: path)
        #expect(try grid.grid(connection: connection).count == 2_000)
        _ = try t.index.delete(identifiers: (0..<1_500).map { "p\($0)" })
        try t.index.upsert(places(2_000..<2_100))
        // 100 added to 2,100 entries: fewer than an eighth, not counted yet.
        #expect(try grid.grid(connection: connection).count == 2_100)
        try t.index.upsert(places(2_100..<2_400))
        // 400 added since: counted (800 places against 2,400 entries), made again.
        #expect(try grid.grid(connection: connection).count == 900)
        var near = SearchRequest("cafe", limit: 1_000)
        near.filter.near = GeoCircle(center: GeoPoint(latitude: 48.85, longitude: 2.32), radius: 50)
        let found = try t.index.search(near)
        #expect(found.total == 900 && found.hits.allSatisfy { Int($0.item.uniqueIdentifier.dropFirst())! >= 1_500 })
    }

    @Test func theRulesForCountingTheGrid() {
        #expect(!PlaceGrid.shouldCount(entries: 1_000, addedSinceCount: 1_000), "a small grid is never counted")
        #expect(!PlaceGrid.shouldCount(entries: 8_000, addedSinceCount: 999))
        #expect(PlaceGrid.shouldCount(entries: 8_000, addedSinceCount: 1_000))
        #expect(!PlaceGrid.isStale(entries: 1_250, places: 1_000) && PlaceGrid.isStale(entries: 1_251, places: 1_000))
    }

    /// Facet counts leave out the oldest items once deleted, with newer items written since.
    @Test func facetCountsLeaveOutTheDeletedOldestItems() throws {
        let t = try TemporaryIndex()
        var all: [SearchableItem] = []
        for i in 0..<400 {
            var entry = item("f\(i)", "harbour \(i)")
            entry.contentType = i % 2 == 0 ? "public.place" : "public.event"
            all.append(entry)
        }
        try t.index.upsert(Array(all[0..<200]))
        var request = SearchRequest("harbour", limit: 3)
        request.facets = [.contentType]
        _ = try t.index.search(request)
        _ = try t.index.delete(identifiers: (0..<150).map { "f\($0)" })
        try t.index.upsert(Array(all[200...]))
        let counts = try #require(try t.index.search(request).facets?.counts[.contentType])
        #expect(Dictionary(uniqueKeysWithValues: counts.map { ($0.value, $0.count) }) == ["public.place": 125, "public.event": 125])
    }
}
