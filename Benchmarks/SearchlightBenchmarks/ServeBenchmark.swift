import Dispatch
import Foundation
import Items
import JSON
import SearchIndex
import Synchronization

/// The two halves of `Benchmarks/serve.sh` that run in process: building the index the
/// service is measured on, and the same queries run straight against ``SearchIndex`` on
/// the same number of threads, so the HTTP overhead shows.
enum ServeBenchmark {
    /// Writes `DIR/index.sqlite` with `size` synthetic items (the index benchmark's corpus,
    /// `bodyWords` words of body each)
    /// and `DIR/queries.txt`, one query per line.
    static func makeIndex(size: Int, directory: String, bodyWords: Int = 300) {
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let index = try! SearchIndex(path: directory + "/index.sqlite")
        var corpus = IndexBenchmark.Corpus()
        let now = Date()
        for batch in stride(from: 0, to: size, by: 1000) {
            let items = (batch..<min(size, batch + 1000)).map { i in
                let id = "https://bench.example/items/\(i)"
                return SearchableItem(uniqueIdentifier: id, title: corpus.text(4), contentDescription: corpus.text(20),
                                      keywords: corpus.text(5).split(separator: " ").map(String.init), webURL: id, bodyText: corpus.text(bodyWords),
                                      expirationDate: now.addingTimeInterval(365 * 86_400), source: .crawled, lastUpdated: now).checked
            }
            try! index.commit(ItemBatch(upserts: items), now: now)
        }
        let queries = (0..<300).map { _ in corpus.query() }
        try! (queries.joined(separator: "\n") + "\n").write(toFile: directory + "/queries.txt", atomically: true, encoding: .utf8)
        // One-off queries for a stream no result cache can help: the index benchmark's
        // sets — 1–2 of the 5,000 most frequent words, the 20 most frequent alone and in
        // pairs, CJK words — mixed 8:1:1, no query twice.
        var distinct: [String] = []
        var seen = Set<String>()
        let top = Array(corpus.vocabulary.prefix(20))
        while distinct.count < 100_000 {
            let kind = corpus.generator.next(in: 0...9)
            let query: String
            switch kind {
            case 0: query = top[Int(corpus.generator.next(in: 0...19))] + " " + corpus.vocabulary[Int(corpus.generator.next(in: 0...4999))]
            case 1: query = IndexBenchmark.cjk[Int(corpus.generator.next(in: 0...19))] + " " + corpus.vocabulary[Int(corpus.generator.next(in: 0...4999))]
            default: query = corpus.query()
            }
            if seen.insert(query).inserted { distinct.append(query) }
        }
        try! (distinct.joined(separator: "\n") + "\n").write(toFile: directory + "/distinct-queries.txt", atomically: true, encoding: .utf8)
        print(JSONWriter.string(["benchmark": "serve-index", "items": JSONValue(size), "queries": JSONValue(queries.count),
                                 "distinctQueries": JSONValue(distinct.count)]))
    }

    /// Runs the queries of `DIR/queries.txt` round-robin on `threads` threads, one index
    /// connection each, for `seconds`; prints requests/s and latency percentiles.
    static func searchInProcess(directory: String, threads: Int, seconds: Double, file: String = "queries.txt") {
        let queries = try! String(contentsOfFile: directory + "/" + file, encoding: .utf8).split(separator: "\n").map(String.init)
        let latencies = Mutex<[Double]>([])
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let group = DispatchGroup()
        for thread in 0..<threads {
            let index = try! SearchIndex(path: directory + "/index.sqlite", mode: .existing)
            group.enter()
            Thread.detachNewThread {
                var mine: [Double] = []
                var next = thread
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let query = queries[next % queries.count]
                    next += threads
                    mine.append(IndexBenchmark.time { _ = try? index.search(SearchRequest(query, limit: 10)).json } * 1000)
                }
                latencies.withLock { $0 += mine }
                group.leave()
            }
        }
        group.wait()
        let all = latencies.withLock { $0 }.sorted()
        func percentile(_ p: Double) -> Double { all.isEmpty ? 0 : all[min(all.count - 1, Int(Double(all.count) * p))] }
        print(JSONWriter.string([
            "benchmark": "search-in-process", "threads": JSONValue(threads), "requests": JSONValue(all.count),
            "requestsPerSecond": JSONValue((Double(all.count) / seconds).rounded()), "p50Ms": JSONValue(percentile(0.5)),
            "p99Ms": JSONValue(percentile(0.99)),
        ]))
    }
}
