import CSQLite
import Dispatch
import Foundation
import JSON
import SQLite
import SearchIndex

/// Bulk indexing and query latency of ``SearchIndex`` next to raw SQLite FTS5 (a plain
/// `unicode61` table, the same rows, the same batches) in the same run.
enum IndexBenchmark {
    static let words = ("river stone garden recipe noodle dumpling market camera travel ticket concert stream friend portrait hotel "
        + "booking flight coffee tea bakery museum painting guitar piano lesson yoga running cycling weather news football "
        + "basketball tennis chess puzzle movie series episode podcast").split(separator: " ").map(String.init)
    static let cjk = ["朋友", "肖像", "直播", "美食", "酒店", "预订", "音乐", "电影", "新闻", "旅行", "咖啡", "面条", "饺子", "市场", "相机",
                      "天气", "足球", "篮球", "网球", "博物馆"]

    /// The vocabulary and Zipf-like weights of `../shared/bench/fts5_limit.py`.
    struct Corpus {
        var vocabulary: [String]
        var cumulative: [Double]
        var generator = SplitMix(seed: 7)

        init() {
            var generator = SplitMix(seed: 7)
            let syllables = "ka ri to mo na se lu pi de ga vo zu bel tor man sin dra quel fen".split(separator: " ").map(String.init)
            var seen = Set<String>()
            var vocabulary: [String] = []
            for word in IndexBenchmark.words + IndexBenchmark.cjk where seen.insert(word).inserted { vocabulary.append(word) }
            for _ in 0..<60_000 {
                let word = (0..<Int(generator.next(in: 2...4))).map { _ in syllables[Int(generator.next(in: 0...UInt64(syllables.count - 1)))] }.joined()
                if seen.insert(word).inserted { vocabulary.append(word) }
            }
            self.vocabulary = vocabulary
            var total = 0.0
            cumulative = vocabulary.indices.map { rank in
                total += 1 / Double(rank + 10)
                return total
            }
        }

        mutating func word() -> String {
            let target = Double(generator.next(in: 0...UInt64(1 << 53))) / Double(1 << 53) * cumulative[cumulative.count - 1]
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let mid = (low + high) / 2
                if cumulative[mid] < target { low = mid + 1 } else { high = mid }
            }
            return vocabulary[low]
        }

        mutating func text(_ count: Int) -> String { (0..<count).map { _ in word() }.joined(separator: " ") }

        mutating func query() -> String {
            (0..<Int(generator.next(in: 1...2))).map { _ in vocabulary[Int(generator.next(in: 0...4999))] }.joined(separator: " ")
        }
    }

    struct Document {
        var id: String
        var title: String
        var description: String
        var keywords: [String]
        var body: String
    }

    static func run(sizes: [Int], directory: String) {
        for size in sizes {
            let folder = (directory as NSString).appendingPathComponent("index-bench-\(size)")
            try? FileManager.default.removeItem(atPath: folder)
            try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var corpus = Corpus()
            let documents = (0..<size).map { i in
                Document(id: "https://bench.example/items/\(i)", title: corpus.text(4), description: corpus.text(20),
                         keywords: corpus.text(5).split(separator: " ").map(String.init), body: corpus.text(300))
            }
            let queries = (0..<300).map { _ in corpus.query() }

            let raw = try! SQLiteConnection(path: folder + "/raw.sqlite")
            try! raw.execute("""
                PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA mmap_size = 1073741824;
                CREATE VIRTUAL TABLE fts USING fts5(title, keywords, description, body, tokenize='unicode61 remove_diacritics 2');
                """)
            let rawInsert = time {
                for batch in stride(from: 0, to: size, by: 1000) {
                    try! raw.transaction {
                        let statement = try raw.statement("INSERT INTO fts(title, keywords, description, body) VALUES(?, ?, ?, ?)")
                        for d in documents[batch..<min(size, batch + 1000)] {
                            try statement.run([.text(d.title), .text(d.keywords.joined(separator: ", ")), .text(d.description), .text(d.body)])
                        }
                    }
                }
            }
            let index = try! SearchIndex(path: folder + "/index.sqlite")
            let now = Date()
            let ourInsert = time {
                for batch in stride(from: 0, to: size, by: 1000) {
                    let items = documents[batch..<min(size, batch + 1000)].map { d in
                        SearchableItem(uniqueIdentifier: d.id, title: d.title, contentDescription: d.description, keywords: d.keywords,
                                       webURL: d.id, bodyText: d.body, source: .crawled, lastUpdated: now)
                    }
                    try! index.commit(SearchIndex.Batch(upserts: items), now: now)
                }
            }
            let rawQuery = try! raw.prepare("SELECT rowid, bm25(fts, \("10.0, 5.0, 3.0, 1.0")) AS r FROM fts WHERE fts MATCH ? ORDER BY r LIMIT 10")
            var rawLatencies: [Double] = []
            var ourLatencies: [Double] = []
            for query in queries {
                rawLatencies.append(time {
                    rawQuery.reset()
                    rawQuery.bind(1, query)
                    while try! rawQuery.step() {}
                } * 1000)
                ourLatencies.append(time { _ = try! index.search(SearchRequest(query, limit: 10, now: now)) } * 1000)
            }
            func percentile(_ values: [Double], _ p: Double) -> Double { values.sorted()[min(values.count - 1, Int(Double(values.count) * p))] }
            let report: JSONValue = [
                "benchmark": "index", "items": .init(size),
                "raw_fts5_items_per_s": .init(Double(size) / rawInsert), "searchlight_items_per_s": .init(Double(size) / ourInsert),
                "indexing_ratio": .init(rawInsert / ourInsert),
                "raw_query_p50_ms": .init(percentile(rawLatencies, 0.5)), "raw_query_p99_ms": .init(percentile(rawLatencies, 0.99)),
                "searchlight_query_p50_ms": .init(percentile(ourLatencies, 0.5)), "searchlight_query_p99_ms": .init(percentile(ourLatencies, 0.99)),
                "query_p99_ratio": .init(percentile(ourLatencies, 0.99) / percentile(rawLatencies, 0.99)),
            ]
            print(JSONWriter.string(report))
        }
    }

    static func time(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// A small deterministic random generator, so both sides see the same corpus every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(in range: ClosedRange<UInt64>) -> UInt64 {
        range.lowerBound + next() % (range.upperBound - range.lowerBound + 1)
    }
}
