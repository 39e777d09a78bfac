import Dispatch
import Foundation
import Items
import JSON
import SQLite
import SearchIndex

/// Filtered and faceted searches next to plain ones (issue 42), over an index made by
/// `serve-index --attributes` (``ServeBenchmark/giveAttributes(_:rowid:)``): a content type of
/// ten (10 % each), a host of a hundred under `shop.example` (1 % each), an iOS app with a deep
/// link on every fifth item (20 %; an app without one opens nothing, so `installedOnly` would
/// not count it), a place on every item.
/// Each query set is searched unfiltered and under each filter, `rounds` times, the cases of a
/// query one after the other (the first round, which builds each filter's rows, is left out of
/// the figures and its time reported apart).
enum FilterBenchmark {
    static func run(directory: String, set name: String, rounds: Int, queryFile: String?, only: String? = nil) {
        guard rounds >= 2 else {
            FileHandle.standardError.write(Data("--rounds must be at least 2: the first round, which builds each filter's rows, is not measured\n".utf8))
            exit(64)
        }
        let path = directory + "/index.sqlite"
        // Opened first, so that an index of an older schema is migrated before it is written.
        let index = existingIndex(directory)
        let connection = try! SQLiteConnection(path: path)
        // The attributes are the items' own, written with them (`serve-index --attributes`):
        // rows changed in place behind the engine would not be in its segments' filter terms.
        let marked = try! connection.statement("SELECT count(*) FROM items WHERE content_type IS NOT NULL AND latitude IS NOT NULL")
        _ = try! marked.step()
        guard marked.int(0) > 0 else {
            FileHandle.standardError.write(Data("\(path) has no filter attributes: make it with serve-index --attributes\n".utf8))
            exit(64)
        }
        marked.reset()
        let queries: [String]
        if let queryFile {
            let json = try! JSONParser.parse(String(contentsOfFile: queryFile, encoding: .utf8))
            queries = json[name]?.arrayValue?.compactMap(\.stringValue) ?? []
        } else {
            var corpus = IndexBenchmark.Corpus()
            queries = IndexBenchmark.querySets(&corpus).first { $0.name == name }?.queries ?? []
        }
        guard !queries.isEmpty else {
            FileHandle.standardError.write(Data("no queries in set \(name)\n".utf8))
            exit(64)
        }
        struct Case {
            var label: String
            /// The filter of the query of this number (a search near a place per query moves
            /// the place with each).
            var filter: (Int) -> SearchFilter
            var facets: Set<Facet> = []
            var sort = SearchSort.relevance
        }
        func near(_ radius: Double, moving: Bool = false) -> (Int) -> SearchFilter {
            { number in
                let step = moving ? Double(number % 97) * 0.05 : 0
                return SearchFilter().with { $0.near = GeoCircle(center: GeoPoint(latitude: 45 + step / 2, longitude: 5 + step), radius: radius) }
            }
        }
        let cases: [Case] = [
            ("none", SearchFilter()),
            ("contentType (10 %)", SearchFilter(contentType: "public.type3")),
            ("domain (1 %)", SearchFilter(domain: "site7.shop.example")),
            ("domain and subdomains (100 %)", SearchFilter(domain: "shop.example")),
            ("hasApp ios (20 %)", SearchFilter(hasApp: .ios)),
            ("installedOnly, 1 of 50 apps (0.4 %)", SearchFilter().with { $0.restrict(toAppsIn: ["5"], platform: .ios) }),
            ("contentType + hasApp (2 %)", SearchFilter(contentType: "public.type5", hasApp: .ios)),
        ].map { entry in Case(label: entry.0, filter: { _ in entry.1 }) } + [
            Case(label: "facets contentType and domain, no filter", filter: { _ in SearchFilter() }, facets: [.contentType, .domain]),
            Case(label: "facets contentType and domain, contentType (10 %)", filter: { _ in SearchFilter(contentType: "public.type3") },
                 facets: [.contentType, .domain]),
            Case(label: "near, 10 km, one place (0.04 %)", filter: near(10)),
            Case(label: "near, 50 km, one place (0.9 %)", filter: near(50)),
            Case(label: "near, 10 km, a place per query (0.04 %)", filter: near(10, moving: true)),
            Case(label: "near, 10 km, a place per query, sort=distance", filter: near(10, moving: true), sort: .distance),
            Case(label: "near, 50 km, a place per query, sort=distance", filter: near(50, moving: true), sort: .distance),
        ]
        // Every case of a query is searched one after the other, round by round, so that a
        // busy moment of the machine falls on every case alike (a p99 over 300 queries moves
        // by a third from run to run here when the cases run one after another).
        let chosen = cases.filter { entry in only.map { entry.label == "none" || entry.label.contains($0) } ?? true }
        var latencies = [[Double]](repeating: [], count: chosen.count)
        var first = [Double](repeating: 0, count: chosen.count)
        var found = [Int](repeating: 0, count: chosen.count)
        for round in 0..<rounds {
            for (number, query) in queries.enumerated() {
                for (position, entry) in chosen.enumerated() {
                    var request = SearchRequest(query, limit: 10)
                    request.filter = entry.filter(number)
                    request.facets = entry.facets
                    request.sort = entry.sort
                    var hits = 0
                    let seconds = IndexBenchmark.time { hits = try! index.search(request).hits.count }
                    if round == 0 && number == 0 { first[position] = seconds * 1000 }
                    if round > 0 { latencies[position].append(seconds * 1000) }
                    if round == 0 { found[position] += hits }
                }
            }
        }
        var unfiltered = 0.0
        for (position, entry) in chosen.enumerated() {
            let sorted = latencies[position].sorted()
            let p99 = sorted[Int(Double(sorted.count) * 0.99)]
            if entry.filter(0).isEmpty, entry.facets.isEmpty { unfiltered = p99 }
            print(JSONWriter.string(.object(JSONObject([
                ("set", .string(name)), ("filter", .string(entry.label)), ("queries", .init(queries.count)),
                ("p50_ms", .init(sorted[sorted.count / 2])), ("p99_ms", .init(p99)),
                ("p99_vs_unfiltered", .init(unfiltered > 0 ? p99 / unfiltered : 1)), ("first_query_ms", .init(first[position])),
                ("results_per_query", .init(Double(found[position]) / Double(queries.count))),
            ]))))
        }
    }
}

extension SearchFilter {
    fileprivate func with(_ change: (inout SearchFilter) -> Void) -> SearchFilter {
        var copy = self
        change(&copy)
        return copy
    }
}
