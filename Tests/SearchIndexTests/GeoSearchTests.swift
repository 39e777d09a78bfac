import Foundation
import Items
import JSON
import SQLite
@testable import SearchIndex
import Testing

/// Searches near a place: items with a place (pushed, or a page's schema.org `geo`) kept to a
/// circle, each result's distance, and the nearest-first order, on the pruned and the
/// exhaustive path alike.
@Suite struct GeoSearchTests {
    static let paris = GeoPoint(latitude: 48.8566, longitude: 2.3522)

    static func place(_ id: String, _ title: String, _ latitude: Double?, _ longitude: Double?) -> SearchableItem {
        var made = item(id, title)
        if let latitude, let longitude { made.location = GeoPoint(latitude: latitude, longitude: longitude) }
        return made
    }

    static func items() -> [SearchableItem] {
        [
            place("louvre", "Cafe by the Louvre", 48.8606, 2.3376),         // 1.157 km from the center
            place("bastille", "Cafe at Bastille", 48.8532, 2.3692),         // 1.3 km
            place("defense", "Cafe at La Defense", 48.8918, 2.2361),        // 9.3 km
            place("lyon", "Cafe in Lyon", 45.7640, 4.8357),                 // 392 km
            place("nowhere", "Cafe without a place", nil, nil),
            place("fiji-east", "Cafe on Taveuni", -16.80, 179.95),          // both sides of the antimeridian
            place("fiji-west", "Cafe on Rabi", -16.80, -179.97),
        ]
    }

    static func search(_ index: SearchIndex, _ near: GeoCircle?, sort: SearchSort = .relevance, limit: Int = 20,
                       retrieval: SearchIndex.Retrieval = .pruned) throws -> SearchResponse {
        var request = SearchRequest("cafe", limit: limit)
        request.filter.near = near
        request.sort = sort
        return try index.search(request, retrieval: retrieval)
    }

    @Test func distancesAreGreatCircleKilometres() {
        let london = GeoPoint(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(Self.paris.distance(to: london) - 343.5) < 1)
        #expect(Self.paris.distance(to: Self.paris) == 0)
        let east = GeoPoint(latitude: 0, longitude: 179.99), west = GeoPoint(latitude: 0, longitude: -179.99)
        #expect(abs(east.distance(to: west) - 2.224) < 0.01, "across the antimeridian, not around the world")
        #expect(GeoPoint(parameter: "48.8566,2.3522") == Self.paris)
        for bad in ["48.8566", "91,0", "0,181", "a,b", "1,2,3", "nan,0", "", ","] { #expect(GeoPoint(parameter: bad) == nil, "\(bad)") }
    }

    /// Each box set holds every place within the radius, across the antimeridian and over a pole.
    @Test func theBoxesHoldTheCircle() {
        let circles = [GeoCircle(center: Self.paris, radius: 10), GeoCircle(center: GeoPoint(latitude: -16.8, longitude: 179.99), radius: 50),
                       GeoCircle(center: GeoPoint(latitude: 89.9, longitude: 10), radius: 100), GeoCircle(center: Self.paris, radius: 20_016)]
        for circle in circles {
            for step in 0..<360 {
                // A point just inside the radius in each direction.
                let bearing = Double(step) * .pi / 180
                let angular = circle.radius * 0.999 / 6371.0088
                let lat1 = circle.center.latitude * .pi / 180, lon1 = circle.center.longitude * .pi / 180
                let lat2 = asin(sin(lat1) * cos(angular) + cos(lat1) * sin(angular) * cos(bearing))
                var lon2 = (lon1 + atan2(sin(bearing) * sin(angular) * cos(lat1), cos(angular) - sin(lat1) * sin(lat2))) * 180 / .pi
                lon2 = lon2 > 180 ? lon2 - 360 : lon2 < -180 ? lon2 + 360 : lon2
                let point = GeoPoint(latitude: lat2 * 180 / .pi, longitude: lon2)
                #expect(circle.contains(point), "\(circle) \(point)")
                #expect(circle.boxes.contains { $0.latitude.contains(point.latitude) && $0.longitude.contains(point.longitude) }, "\(circle) \(point)")
            }
        }
    }

    /// The grid finds exactly the places a walk of all of them finds, as places are added,
    /// at the poles, the antimeridian and the cells' edges too.
    @Test func theGridFindsWhatAWalkOfEveryPlaceFinds() {
        var random = SystemRandomNumberGenerator()
        var grid = PlaceGrid.Grid()
        var all: [PlaceGrid.Entry] = []
        var rowid: Int64 = 0
        func entry(_ latitude: Double, _ longitude: Double) -> PlaceGrid.Entry {
            rowid += 1
            return PlaceGrid.Entry(rowid: rowid, latitude: latitude, longitude: longitude)
        }
        for batch in [6_000, 10, 700, 300, 5_000, 1] {
            var entries: [PlaceGrid.Entry] = (0..<batch).map { _ in
                entry(Double.random(in: 40...50, using: &random), Double.random(in: -5...15, using: &random))
            }
            entries += [entry(90, 180), entry(-90, -180), entry(-16.8, 179.999), entry(-16.8, -179.999), entry(45, 0.1), entry(44.9, 0)]
            for entry in entries { grid.add(entry) }
            all += entries
            let circles = [GeoCircle(center: GeoPoint(latitude: 45, longitude: 5), radius: 10), GeoCircle(center: GeoPoint(latitude: 45, longitude: 0.05), radius: 30),
                           GeoCircle(center: GeoPoint(latitude: -16.8, longitude: -179.99), radius: 5), GeoCircle(center: GeoPoint(latitude: 89.99, longitude: 0), radius: 50),
                           GeoCircle(center: GeoPoint(latitude: 47, longitude: 7), radius: 400), GeoCircle(center: Self.paris, radius: 20_016)]
            for circle in circles {
                let expected = all.filter { circle.contains($0.point) }.map(\.rowid).sorted()
                #expect(grid.places(in: circle).map(\.rowid).sorted() == expected, "after \(all.count) places, \(circle)")
            }
        }
        #expect(grid.count == all.count)
    }

    @Test func nearKeepsTheCircleAndGivesDistances() throws {
        let t = try TemporaryIndex()
        try t.index.upsert(Self.items())
        for retrieval in [SearchIndex.Retrieval.pruned, .exhaustive] {
            let within2 = try Self.search(t.index, GeoCircle(center: Self.paris, radius: 2), retrieval: retrieval)
            #expect(Set(within2.hits.map(\.item.uniqueIdentifier)) == ["louvre", "bastille"])
            #expect(within2.totalIsExact && within2.total == 2)
            let louvre = try #require(within2.hits.first { $0.item.uniqueIdentifier == "louvre" })
            #expect(louvre.distance.map { abs($0 - 1.157) < 0.002 } == true, "\(String(describing: louvre.distance))")
            #expect(louvre.item.location == GeoPoint(latitude: 48.8606, longitude: 2.3376))
            let within10 = try Self.search(t.index, GeoCircle(center: Self.paris), retrieval: retrieval)
            #expect(Set(within10.hits.map(\.item.uniqueIdentifier)) == ["louvre", "bastille", "defense"], "10 km by default")
            let pacific = try Self.search(t.index, GeoCircle(center: GeoPoint(latitude: -16.8, longitude: 179.99), radius: 10), retrieval: retrieval)
            #expect(Set(pacific.hits.map(\.item.uniqueIdentifier)) == ["fiji-east", "fiji-west"], "across the antimeridian")
            let everywhere = try Self.search(t.index, GeoCircle(center: Self.paris, radius: GeoCircle.maximumRadius), retrieval: retrieval)
            #expect(everywhere.hits.count == 6, "every item with a place, none without")
            let none = try Self.search(t.index, nil, retrieval: retrieval)
            #expect(none.hits.count == 7 && none.hits.allSatisfy { $0.distance == nil })
        }
    }

    @Test func sortByDistanceIsNearestFirstAndPagesAgree() throws {
        let t = try TemporaryIndex()
        try t.index.upsert(Self.items())
        let circle = GeoCircle(center: Self.paris, radius: 500)
        let sorted = try Self.search(t.index, circle, sort: .distance)
        #expect(sorted.hits.map(\.item.uniqueIdentifier) == ["louvre", "bastille", "defense", "lyon"])
        let distances = sorted.hits.compactMap(\.distance)
        #expect(distances == distances.sorted() && distances.count == 4)
        var pages: [String] = []
        for offset in 0..<4 {
            var request = SearchRequest("cafe", limit: 1)
            request.offset = offset
            request.filter.near = circle
            request.sort = .distance
            pages += try t.index.search(request).hits.map(\.item.uniqueIdentifier)
        }
        #expect(pages == sorted.hits.map(\.item.uniqueIdentifier), "pages of one put together are the page of four")
        // Equally near items: in relevance order, then by key, every time.
        let twins = (0..<6).map { Self.place("twin-\($0)", "Cafe twin " + String(repeating: "cafe ", count: $0 % 3), 48.8606, 2.3376) }
        try t.index.upsert(twins)
        let tied = try Self.search(t.index, GeoCircle(center: Self.paris, radius: 2), sort: .distance).hits.map(\.item.uniqueIdentifier)
        #expect(tied == (try Self.search(t.index, GeoCircle(center: Self.paris, radius: 2), sort: .distance).hits.map(\.item.uniqueIdentifier)))
        #expect(tied.last == "bastille" && tied.count == 8)
        let sameSpot = (Self.items().filter { $0.uniqueIdentifier == "louvre" } + twins).sorted { $0.key.orderKey < $1.key.orderKey }
        #expect(Array(tied.prefix(7)) == sameSpot.map(\.uniqueIdentifier), "equally near: by order key")
    }

    /// A distance order lists every live match in the circle: other filter parts apply, items
    /// deleted or expired after the circle's rows were read are left out, and facets count
    /// the same matches.
    @Test func sortByDistanceKeepsToLiveMatchesAndOtherFilters() throws {
        let t = try TemporaryIndex()
        var items = Self.items()
        items[1].contentType = "public.cafe"
        items[2].contentType = "public.cafe"
        try t.index.upsert(items)
        var request = SearchRequest("cafe", limit: 10)
        request.filter.near = GeoCircle(center: Self.paris, radius: 50)
        request.sort = .distance
        #expect(try t.index.search(request).hits.map(\.item.uniqueIdentifier) == ["louvre", "bastille", "defense"])
        request.filter.contentType = "public.cafe"
        request.facets = [.contentType]
        let typed = try t.index.search(request)
        #expect(typed.hits.map(\.item.uniqueIdentifier) == ["bastille", "defense"] && typed.total == 2 && typed.totalIsExact)
        #expect(typed.facets?.counts[.contentType]?.first?.value == "public.cafe" && typed.facets?.counts[.contentType]?.first?.count == 2)
        _ = try t.index.delete(identifiers: ["bastille"])
        var expiring = items[2]
        expiring.expirationDate = Date().addingTimeInterval(60)
        try t.index.upsert([expiring])
        request.now = Date().addingTimeInterval(120)
        #expect(try t.index.search(request).hits.isEmpty, "deleted and expired since")
        request.filter.contentType = nil
        request.facets = []
        let words = try t.index.search(SearchRequest("louvre", limit: 10).with { $0.filter.near = request.filter.near; $0.sort = .distance })
        #expect(words.hits.map(\.item.uniqueIdentifier) == ["louvre"] && words.hits[0].score > 0, "only matches, scored")
    }

    /// Rings outward: the nearest page of many places is found without matching them all
    /// (the count then a lower bound), a match only far out is still found, and pages agree.
    @Test func sortByDistanceWorksOutwardARingAtATime() throws {
        let t = try TemporaryIndex()
        // 1,500 cafés due north of the center, 10 m apart; every 700th also sells crêpes.
        let cafes = (0..<1500).map { n in
            Self.place("cafe-\(n)", n % 700 == 699 ? "Cafe and crepes \(n)" : "Cafe \(n)", 48.8566 + Double(n + 1) * 0.00009, 2.3522)
        }
        try t.index.upsert(cafes.shuffled())
        func nearest(_ query: String, offset: Int = 0, limit: Int = 5) throws -> SearchResponse {
            var request = SearchRequest(query, limit: limit)
            request.offset = offset
            request.filter.near = GeoCircle(center: Self.paris, radius: 20)
            request.sort = .distance
            return try t.index.search(request)
        }
        let first = try nearest("cafe")
        #expect(first.hits.map(\.item.uniqueIdentifier) == (0..<5).map { "cafe-\($0)" })
        #expect(!first.totalIsExact && first.total < 1500 && first.total >= 5, "only the first ring was matched: \(first.total)")
        let crepes = try nearest("crepes")
        #expect(crepes.hits.map(\.item.uniqueIdentifier) == ["cafe-699", "cafe-1399"] && crepes.totalIsExact && crepes.total == 2)
        var paged: [String] = []
        for offset in stride(from: 0, to: 40, by: 8) { paged += try nearest("cafe", offset: offset, limit: 8).hits.map(\.item.uniqueIdentifier) }
        let whole = try nearest("cafe", limit: 40).hits.map(\.item.uniqueIdentifier)
        #expect(paged == (0..<40).map { "cafe-\($0)" } && paged == whole)
    }

    /// A damaged file's place (infinite, out of range) is left out of the grid, never trusted
    /// with a cell, and a search near a place still answers.
    @Test func aDamagedPlaceIsLeftOut() throws {
        let t = try TemporaryIndex()
        try t.index.upsert(Self.items())
        try t.index.withConnection { connection in
            try connection.execute("UPDATE items SET latitude = 9e999 WHERE uid = 'louvre'; UPDATE items SET longitude = -500 WHERE uid = 'bastille'")
        }
        for sort in [SearchSort.relevance, .distance] {
            #expect(try Self.search(t.index, GeoCircle(center: Self.paris, radius: 20), sort: sort).hits.map(\.item.uniqueIdentifier) == ["defense"])
        }
    }

    /// Every search near a moving person asks for a new circle: those one-off sets are kept
    /// apart, so they never push out a filter whose rows cost a scan of `items`.
    @Test func newCirclesDoNotPushOutScannedFilters() throws {
        let temporary = try TemporaryIndex()
        var items = Self.items()
        for index in items.indices { items[index].contentType = index % 2 == 0 ? "public.cafe" : "public.bar" }
        try temporary.index.upsert(items)
        let connection = try SQLiteConnection(path: temporary.directory.appendingPathComponent("index.sqlite").path)
        let cache = FilterCache(places: PlaceGrid())
        let cafes = SearchFilter(contentType: "public.cafe")
        #expect(try cache.scannedRows(cafes, connection: connection).count == 4)
        var lastCircle = SearchFilter()
        for step in 0..<(FilterCache.capacity + FilterCache.circleCapacity + 1) {
            lastCircle = SearchFilter().with {
                $0.near = GeoCircle(center: GeoPoint(latitude: 48.8566 + Double(step) * 0.0001, longitude: 2.3522), radius: 2)
            }
            #expect(try cache.scannedRows(lastCircle, connection: connection).count == 2, "the Louvre and Bastille, at every step")
        }
        #expect(cache.isKept(cafes), "the scanned filter outlives the stream of circles")
        #expect(cache.isKept(lastCircle))
        let first = SearchFilter().with { $0.near = GeoCircle(center: Self.paris, radius: 2) }
        #expect(!cache.isKept(first), "circles have a bound of their own")
    }

    @Test func placesArePushedCheckedAndKept() throws {
        let now = Date()
        let pushed = try SearchableItem.pushed(["uniqueIdentifier": "p", "title": "Cafe", "latitude": 48.86, "longitude": 2.34], now: now).item
        #expect(pushed.location == GeoPoint(latitude: 48.86, longitude: 2.34))
        #expect(try SearchableItem.pushed(pushed.pushedJSON, now: now).item.location == pushed.location)
        #expect(SearchableItem(stored: pushed.storedJSON)?.location == pushed.location)
        let bad: [JSONValue] = [
            ["uniqueIdentifier": "p", "title": "Cafe", "latitude": 48.86],
            ["uniqueIdentifier": "p", "title": "Cafe", "latitude": 91, "longitude": 0],
            ["uniqueIdentifier": "p", "title": "Cafe", "latitude": 0, "longitude": -180.5],
            ["uniqueIdentifier": "p", "title": "Cafe", "latitude": "48.86", "longitude": 2.34],
        ]
        for value in bad { #expect(throws: FieldError.self) { try SearchableItem.pushed(value, now: now).item } }
        // The contract drops what a crawled page gives out of range.
        var page = item("https://example.com/", "Cafe")
        page.source = .crawled
        page.location = GeoPoint(latitude: 120, longitude: 0)
        #expect(try page.validated(.crawled, now: now).location == nil)
    }

    @Test func badGeoRequestsAreRefused() throws {
        let t = try TemporaryIndex()
        try t.index.upsert(Self.items())
        var request = SearchRequest("cafe")
        request.sort = .distance
        #expect(throws: SearchIndexError.self) { try t.index.search(request) }
        var filter = SearchFilter()
        filter.near = GeoCircle(center: Self.paris, radius: 2.5)
        #expect(try SearchFilter(json: filter.json) == filter, "as a router sends it")
        #expect(throws: SearchIndexError.self) { try SearchFilter(json: ["near": [48.8, 2.3]]) }
    }

    /// An index of version 7 (no places) opens as version 8: the columns and their index are
    /// added, and items pushed after it are found near their place.
    @Test func anIndexWithoutPlacesIsMigrated() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([Self.items()[4]])
        try t.index.withConnection { connection in
            try connection.execute("""
                DROP INDEX items_placed; ALTER TABLE items DROP COLUMN latitude; ALTER TABLE items DROP COLUMN longitude;
                UPDATE meta SET value = '7' WHERE key = 'schema_version';
                """)
        }
        let reopened = try SearchIndex(path: t.index.path)
        try reopened.upsert([Self.items()[0]])
        let found = try Self.search(reopened, GeoCircle(center: Self.paris, radius: 2))
        #expect(found.hits.map(\.item.uniqueIdentifier) == ["louvre"])
        _ = try reopened.delete(identifiers: ["louvre"])
        #expect(try Self.search(reopened, GeoCircle(center: Self.paris, radius: 2)).hits.isEmpty)
    }
}

extension SearchRequest {
    func with(_ change: (inout SearchRequest) -> Void) -> SearchRequest {
        var copy = self
        change(&copy)
        return copy
    }
}
