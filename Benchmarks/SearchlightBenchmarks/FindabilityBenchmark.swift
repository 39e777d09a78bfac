import Foundation
import Items
import JSON
import SearchIndex

/// `validate --query`'s engine side (issue 56) on a `serve-index` index: for each query of
/// the standard set, where its first result, its tenth, and an item chosen at random (which
/// rarely matches) rank and why (``SearchIndex/findability(of:for:)``), timed one call at a
/// time in process, as a site owner's one-off question after the index is open.
enum FindabilityBenchmark {
    static func run(directory: String, count: Int) {
        let index = existingIndex(directory)
        let items = try! index.count()
        var corpus = IndexBenchmark.Corpus()
        let queries = Array(IndexBenchmark.querySets(&corpus).first { $0.name == "standard" }!.queries.prefix(count))
        var generator = SplitMix(seed: 56)
        var times: [String: [Double]] = ["first": [], "tenth": [], "random": []]
        var ranked = 0
        for query in queries {
            let hits = try! index.search(SearchRequest(query, limit: 10)).hits
            var cases: [(String, String)] = [("random", "https://bench.example/items/\(generator.next(in: 0...UInt64(max(0, items - 1))))")]
            if let first = hits.first { cases.append(("first", first.item.uniqueIdentifier)) }
            if hits.count == 10 { cases.append(("tenth", hits[9].item.uniqueIdentifier)) }
            for (name, id) in cases {
                var report: Findability?
                let seconds = time { report = try! index.findability(of: ItemKey(owner: nil, identifier: id), for: SearchRequest(query)) }
                times[name, default: []].append(seconds * 1000)
                if name != "random", report?.rank != nil { ranked += 1 }
            }
        }
        let all = times.values.flatMap { $0 }
        var fields: [(String, JSONValue)] = [("benchmark", "findability"), ("items", JSONValue(items)), ("queries", JSONValue(queries.count)),
                                             ("ranked", JSONValue(ranked))]
        for name in ["first", "tenth", "random"] {
            let sorted = (times[name] ?? []).sorted()
            fields.append((name, ["calls": JSONValue(sorted.count), "p50_ms": JSONValue(percentile(sorted, 0.5)), "p99_ms": JSONValue(percentile(sorted, 0.99))]))
        }
        let sorted = all.sorted()
        fields.append(("all", ["calls": JSONValue(sorted.count), "p50_ms": JSONValue(percentile(sorted, 0.5)), "p99_ms": JSONValue(percentile(sorted, 0.99))]))
        print(JSONWriter.string(.object(JSONObject(fields)), style: .pretty))
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return (sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))] * 100).rounded() / 100
    }

    static func time(_ body: () -> Void) -> Double { IndexBenchmark.time(body) }
}
