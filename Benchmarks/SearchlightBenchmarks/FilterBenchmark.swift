import Dispatch
import Foundation
import JSON
import SearchIndex
import SQLite

/// Filtered and faceted searches next to plain ones (issue 42), over an index made by `serve-index`:
/// its items are given filter attributes first, from their rowids (written into `items` once,
/// so run it on a copy): a content type of ten (10 % each), a host of a hundred under
/// `shop.example` (1 % each), an iOS app on every fifth item (20 %). Each query set is searched
/// unfiltered and under each filter, `rounds` times (the first round, which builds each
/// filter's rows, is left out of the figures and its time reported apart).
enum FilterBenchmark {
    static func run(directory: String, set name: String, rounds: Int, queryFile: String?) {
        let path = directory + "/index.sqlite"
        let connection = try! SQLiteConnection(path: path)
        let marked = try! connection.statement("SELECT count(*) FROM items WHERE content_type IS NOT NULL")
        _ = try! marked.step()
        if marked.int(0) == 0 {
            let seconds = IndexBenchmark.time {
                try! connection.execute("""
                    UPDATE items SET content_type = 'public.type' || (rowid % 10),
                        domain = 'site' || (rowid % 100) || '.shop.example',
                        apps = CASE WHEN rowid % 5 = 0 THEN '[{"platform":"ios","appStoreId":"' || (rowid % 50) || '"}]' ELSE apps END
                    """)
            }
            print(JSONWriter.string(["attributesWrittenSeconds": .init(seconds)]))
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
        let index = try! SearchIndex(path: path, mode: .existing)
        let filters: [(String, SearchFilter, Set<Facet>)] = [(String, SearchFilter)]([
            ("none", SearchFilter()),
            ("contentType (10 %)", SearchFilter(contentType: "public.type3")),
            ("domain (1 %)", SearchFilter(domain: "site7.shop.example")),
            ("domain and subdomains (100 %)", SearchFilter(domain: "shop.example")),
            ("hasApp ios (20 %)", SearchFilter(hasApp: .ios)),
            ("installedOnly, 1 of 50 apps (0.4 %)", SearchFilter().with { $0.restrict(toAppsIn: ["5"], platform: .ios) }),
            ("contentType + hasApp (2 %)", SearchFilter(contentType: "public.type5", hasApp: .ios)),
        ]).map { ($0.0, $0.1, []) } + [
            ("facets contentType and domain, no filter", SearchFilter(), [.contentType, .domain]),
            ("facets contentType and domain, contentType (10 %)", SearchFilter(contentType: "public.type3"), [.contentType, .domain]),
        ]
        var unfiltered = 0.0
        for (label, filter, facets) in filters {
            var latencies: [Double] = []
            var first = 0.0
            var found = 0
            for round in 0..<rounds {
                for (number, query) in queries.enumerated() {
                    var request = SearchRequest(query, limit: 10)
                    request.filter = filter
                    request.facets = facets
                    var hits = 0
                    let seconds = IndexBenchmark.time { hits = try! index.search(request).hits.count }
                    if round == 0 && number == 0 { first = seconds * 1000 }
                    if round > 0 { latencies.append(seconds * 1000) }
                    if round == 0 { found += hits }
                }
            }
            latencies.sort()
            let p99 = latencies[Int(Double(latencies.count) * 0.99)]
            if filter.isEmpty, facets.isEmpty { unfiltered = p99 }
            print(JSONWriter.string(.object(JSONObject([
                ("set", .string(name)), ("filter", .string(label)), ("queries", .init(queries.count)),
                ("p50_ms", .init(latencies[latencies.count / 2])), ("p99_ms", .init(p99)),
                ("p99_vs_unfiltered", .init(unfiltered > 0 ? p99 / unfiltered : 1)), ("first_query_ms", .init(first)),
                ("results_per_query", .init(Double(found) / Double(queries.count))),
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
