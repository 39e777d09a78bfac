import Foundation
import Glibc
import Items
import SQLite
import Testing
import TextUtilities

@testable import SearchIndex

/// A filter answered from the segments' filter terms (``FilterTerms``) passes exactly the
/// rows its SQL condition passes (``SearchFilter/condition``), for every kind of part; a
/// segment without the terms (written before them) is answered from the rows.
@Suite struct FilterTermsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Items with every attribute a filter reads, drawn from small sets so that parts overlap:
    /// hosts and their subdomains (and one that only ends like a host), dotted domain
    /// identifiers, apps that open the item (a deep link, a universal link with a web page)
    /// and apps that do not; and words whose stems start as filter terms do.
    static func items(_ count: Int, seed: UInt64) -> [SearchableItem] {
        var random = SplitMix64(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        return (0..<count).map { n in
            var item = item("item-\(seed)-\(n)", "word\(n % 7) shared title")
            item.owner = pick([nil, "tenant-a", "tenant-b"])
            // English stems (`\u{1}do`, `\u{1}tabl`, `\u{1}owner`) that a filter term's marker
            // must not be taken for.
            item.language = pick([nil, "en"])
            item.bodyText = "doing tables owners"

            item.contentType = pick([nil, "public.image", "public.movie", "public.image.raw"])
            item.webURL = pick([nil, "https://example.com/\(n)", "https://shop.example.com/\(n)", "https://a.b.example.com/\(n)",
                                "https://badexample.com/\(n)", "https://example.org/\(n)"])
            item.domainIdentifier = pick([nil, "com.app", "com.app.albums", "com.app.albums.2024", "com.apple", "com.app.x"])
            item.apps = (0..<Int(random.next() % 3)).map { _ in
                AppTarget(platform: pick([.ios, .android]), appStoreID: pick([nil, "111", "222"]), bundleID: pick([nil, "com.example.app"]),
                          package: pick([nil, "com.example.android", "org.other"]), deepLink: pick([nil, "app://x"]),
                          isUniversalLink: pick([false, true]))
            }
            return item
        }
    }

    static let filters: [SearchFilter] = {
        var filters: [SearchFilter] = [
            SearchFilter(owner: ""), SearchFilter(owner: "tenant-a"), SearchFilter(owner: "nobody"),
            SearchFilter(domain: "example.com"), SearchFilter(domain: "shop.example.com"), SearchFilter(domain: "b.example.com"),
            SearchFilter(domain: "com"), SearchFilter(domain: "ample.com"), SearchFilter(domain: "example.org"),
            SearchFilter(domainIdentifier: "com.app"), SearchFilter(domainIdentifier: "com.app.albums"), SearchFilter(domainIdentifier: "com"),
            SearchFilter(domainIdentifier: "com.ap"),
            SearchFilter(contentType: "public.image"), SearchFilter(contentType: "public.movie"),
            SearchFilter(hasApp: .ios), SearchFilter(hasApp: .android),
            SearchFilter(owner: "tenant-b", domain: "example.com", contentType: "public.image", hasApp: .ios),
            // What the stems would pass, were their marker the filter terms'.
            SearchFilter(owner: "wner"), SearchFilter(domain: "o"), SearchFilter(contentType: "abl"),
        ]
        for (platform, ids) in [(nil, ["111"]), (.ios, ["222", "com.example.app"]), (.android, ["com.example.android", "111"]),
                                (.ios, []), (.android, ["org.other"])] as [(AppTarget.Platform?, [String])] {
            var filter = SearchFilter(hasApp: platform)
            filter.openedBy = ids.sorted()
            filters.append(filter)
            filter.domain = "example.com"
            filters.append(filter)
        }
        return filters
    }()

    /// The rowids the segments' terms pass, and those the SQL condition passes.
    static func compare(_ filter: SearchFilter, segments: [SegmentReader], connection: SQLiteConnection) throws -> (terms: Set<Int64>, rows: Set<Int64>) {
        var terms = Set<Int64>()
        for segment in segments {
            let bits = FilterRows.bits(FilterTerms.parts(of: filter), in: segment)
            for (ordinal, rowid) in segment.rowids.enumerated() where bits[ordinal >> 6] & (UInt64(1) << UInt64(ordinal & 63)) != 0 {
                terms.insert(rowid)
            }
        }
        let condition = filter.condition
        let statement = try connection.statement("SELECT rowid FROM items WHERE \(condition.sql)")
        statement.bind(condition.arguments)
        var rows = Set<Int64>()
        while try statement.step() { rows.insert(statement.int64(0)) }
        statement.reset()
        return (terms, rows)
    }

    @Test func theTermsPassExactlyWhatTheConditionPasses() throws {
        let t = try TemporaryIndex()
        for seed in 1...4 { try t.index.upsert(Self.items(120, seed: UInt64(seed)), now: Self.now) }
        let connection = try SQLiteConnection(path: t.directory.appendingPathComponent("index.sqlite").path)
        let segments = try SegmentStore.list(connection).map { try SegmentReader(info: $0, connection: connection) }
        #expect(segments.count == 4 && segments.allSatisfy(\.file.holdsFilterTerms))
        var passing = 0
        for filter in Self.filters {
            let (terms, rows) = try Self.compare(filter, segments: segments, connection: connection)
            #expect(terms == rows, "\(filter)")
            passing += rows.count
        }
        // The comparisons could not hold by chance: most filters pass some rows, not all.
        #expect(passing > 1_000)
        #expect(Self.filters.filter { try! Self.compare($0, segments: segments, connection: connection).rows.count == 480 }.isEmpty)
    }

    /// A segment written before the filter terms (its header's flag clear, or the first
    /// terms' flag) is answered from the rows that pass, scanned; the others from their
    /// terms; a search agrees with both.
    @Test func aSegmentWithoutTheTermsIsAnsweredFromTheRows() throws {
        let t = try TemporaryIndex()
        let path = t.directory.appendingPathComponent("index.sqlite").path
        for seed in 1...2 { try t.index.upsert(Self.items(100, seed: UInt64(seed)), now: Self.now) }
        let connection = try SQLiteConnection(path: path)
        let infos = try SegmentStore.list(connection)
        // The first segment's file flagged as one with the first filter terms (marked with
        // the stems' byte, so never read as terms).
        let file = SegmentFile.path(forIndex: path, segment: infos[0].id)
        let descriptor = open(file, O_WRONLY)
        var first = UInt64(1).littleEndian
        #expect(pwrite(descriptor, &first, 8, 24) == 8)
        close(descriptor)
        let segments = try infos.map { try SegmentReader(info: $0, connection: connection) }
        #expect(segments.map(\.file.holdsFilterTerms) == [false, true])
        let cache = FilterCache(places: PlaceGrid())
        for filter in Self.filters {
            let rows = try cache.rows(filter, connection: connection, searching: segments)
            #expect(rows.rows != nil, "a segment lacks the terms: the rows are read")
            var found = Set<Int64>()
            for segment in segments {
                let bits = rows.ordinals(segment)
                for (ordinal, rowid) in segment.rowids.enumerated() where bits[ordinal >> 6] & (UInt64(1) << UInt64(ordinal & 63)) != 0 {
                    found.insert(rowid)
                }
            }
            #expect(found == (try Self.compare(filter, segments: segments, connection: connection).rows), "\(filter)")
        }
        // Bits are kept for the segments still searched only.
        let kept = try cache.rows(Self.filters[0], connection: connection, searching: segments)
        #expect(kept.segmentsHeld == 2)
        kept.keep(segments: [segments[1].info.id])
        #expect(kept.segmentsHeld == 1, "a merged-away segment's bits are let go")
        // With every segment holding its terms, nothing is scanned.
        let termsOnly = FilterCache(places: PlaceGrid())
        let rows = try termsOnly.rows(SearchFilter(contentType: "public.image"), connection: connection, searching: Array(segments.dropFirst()))
        #expect(rows.rows == nil)
    }
}
