import CSQLite
import Dispatch
import Foundation
import Items
import JSON
import SQLite
import SearchIndex
import TextUtilities

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

    /// The query sets: 1–2 words from the 5,000 most frequent (the issue-3 set), the 20 most
    /// frequent words alone and in pairs (the worst case for exhaustive scoring), CJK
    /// words alone and in pairs, and requests of 8–15 words drawn as the bodies are (a pasted
    /// sentence: frequent words and rare ones, searched twice when relevance feedback applies).
    static func querySets(_ corpus: inout Corpus) -> [(name: String, queries: [String])] {
        let standard = (0..<300).map { _ in corpus.query() }
        let top = Array(corpus.vocabulary.prefix(20))
        var frequent = top
        var seen = Set(top)
        while frequent.count < 120 {
            let a = top[Int(corpus.generator.next(in: 0...19))]
            let b = top[Int(corpus.generator.next(in: 0...19))]
            if a != b, seen.insert(a + " " + b).inserted { frequent.append(a + " " + b) }
        }
        var cjk = IndexBenchmark.cjk
        for i in 0..<40 { cjk.append(IndexBenchmark.cjk[i % 20] + " " + IndexBenchmark.cjk[(i * 7 + 3) % 20]) }
        let long = (0..<100).map { _ in corpus.text(Int(corpus.generator.next(in: 8...15))) }
        return [("standard", standard), ("frequent", frequent), ("cjk", cjk), ("long", long)]
    }

    /// `bodyWords`: 300 by default (issue 3's corpus); 800 is the mean main text of
    /// trafilatura's evaluation pages (5.3 KB), the body a crawled page brings since issue 26.
    /// `peerQueries` false: raw FTS5 and the exhaustive path are not queried (at 1M items with
    /// long bodies their frequent-word queries take most of an hour); indexing both still is.
    static func run(sizes: [Int], directory: String, export: String?, exportOnly: Bool = false, bodyWords: Int = 300, peerQueries: Bool = true) {
        for size in sizes {
            let folder = (directory as NSString).appendingPathComponent("index-bench-\(size)")
            try? FileManager.default.removeItem(atPath: folder)
            try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            var corpus = Corpus()
            let documents = (0..<size).map { i in
                Document(id: "https://bench.example/items/\(i)", title: corpus.text(4), description: corpus.text(20),
                         keywords: corpus.text(5).split(separator: " ").map(String.init), body: corpus.text(bodyWords))
            }
            let sets = querySets(&corpus)
            if let export { exportCorpus(documents, sets, to: export) }
            if exportOnly { continue }

            let raw = try! SQLiteConnection(path: folder + "/raw.sqlite")
            try! raw.execute("""
                PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA mmap_size = 1073741824;
                CREATE VIRTUAL TABLE fts USING fts5(title, keywords, description, body, tokenize='unicode61 remove_diacritics 2');
                """)
            let rawInsert = time {
                for batch in stride(from: 0, to: size, by: 1000) {
                    try! raw.transaction {
                        let statement = try raw.statement("INSERT INTO fts(rowid, title, keywords, description, body) VALUES(?, ?, ?, ?, ?)")
                        for (offset, d) in documents[batch..<min(size, batch + 1000)].enumerated() {
                            try statement.run([.integer(Int64(batch + offset)), .text(d.title), .text(d.keywords.joined(separator: ", ")),
                                               .text(d.description), .text(d.body)])
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
                                       webURL: d.id, bodyText: d.body, source: .crawled, lastUpdated: now).checked
                    }
                    try! index.commit(ItemBatch(upserts: items), now: now)
                }
            }
            var report: [(String, JSONValue)] = [
                ("benchmark", "index"), ("items", .init(size)),
                ("raw_fts5_items_per_s", .init(Double(size) / rawInsert)), ("searchlight_items_per_s", .init(Double(size) / ourInsert)),
                ("indexing_ratio", .init(rawInsert / ourInsert)),
                ("index_bytes", .init(fileBytes(folder + "/index.sqlite"))), ("raw_fts5_bytes", .init(fileBytes(folder + "/raw.sqlite"))),
            ]
            let rawQuery = try! raw.prepare("SELECT rowid, bm25(fts, \("10.0, 5.0, 3.0, 1.0")) AS r FROM fts WHERE fts MATCH ? ORDER BY r LIMIT 10")
            for (name, queries) in sets {
                /// Raw FTS5's ten best (its unicode61 tokenizer keeps a CJK run whole, so its
                /// lengths and scores differ from ours where CJK words occur; the ranking
                /// test checks ours equals FTS5's bm25 with the same tokenizer).
                func rawSearch(_ query: String) {
                    rawQuery.reset()
                    rawQuery.bind(1, query.split(separator: " ").map { "\"\($0)\"" }.joined(separator: " "))
                    while try! rawQuery.step() {}
                }
                // A first pass, measured apart: the postings are read from the file then.
                var coldLatencies: [Double] = []
                for query in queries {
                    coldLatencies.append(time { _ = try! index.search(SearchRequest(query, limit: 10, now: now)) } * 1000)
                    guard peerQueries else { continue }
                    _ = try! index.search(SearchRequest(query, limit: 10, now: now), retrieval: .exhaustive)
                    rawSearch(query)
                }
                var rawLatencies: [Double] = []
                var prunedLatencies: [Double] = []
                var exhaustiveLatencies: [Double] = []
                var overlap = 0.0
                var sameFirst = 0
                var compared = 0
                for query in queries {
                    var pruned: [String] = []
                    var exhaustive: [String] = []
                    prunedLatencies.append(time {
                        pruned = try! index.search(SearchRequest(query, limit: 10, now: now)).hits.map(\.item.uniqueIdentifier)
                    } * 1000)
                    guard peerQueries else { continue }
                    rawLatencies.append(time { rawSearch(query) } * 1000)
                    exhaustiveLatencies.append(time {
                        exhaustive = try! index.search(SearchRequest(query, limit: 10, now: now), retrieval: .exhaustive).hits.map(\.item.uniqueIdentifier)
                    } * 1000)
                    guard !exhaustive.isEmpty else { continue }
                    compared += 1
                    overlap += Double(Set(pruned).intersection(exhaustive).count) / Double(exhaustive.count)
                    if pruned.first == exhaustive.first { sameFirst += 1 }
                }
                /// Null for a path not queried.
                func percentile(_ values: [Double], _ p: Double) -> JSONValue {
                    values.isEmpty ? .null : .init(values.sorted()[min(values.count - 1, Int(Double(values.count) * p))])
                }
                report += [
                    ("\(name)_queries", .init(queries.count)),
                    ("\(name)_raw_fts5_p50_ms", percentile(rawLatencies, 0.5)), ("\(name)_raw_fts5_p99_ms", percentile(rawLatencies, 0.99)),
                    ("\(name)_exhaustive_p50_ms", percentile(exhaustiveLatencies, 0.5)),
                    ("\(name)_exhaustive_p99_ms", percentile(exhaustiveLatencies, 0.99)),
                    ("\(name)_pruned_p50_ms", percentile(prunedLatencies, 0.5)), ("\(name)_pruned_p99_ms", percentile(prunedLatencies, 0.99)),
                    ("\(name)_pruned_cold_p50_ms", percentile(coldLatencies, 0.5)),
                    ("\(name)_pruned_cold_p99_ms", percentile(coldLatencies, 0.99)),
                    // Null when no query was compared (`--no-peer-queries`): not measured is not agreement.
                    ("\(name)_top10_overlap", compared > 0 ? .init(overlap / Double(compared)) : .null),
                    ("\(name)_same_first", compared > 0 ? .init(Double(sameFirst) / Double(compared)) : .null),
                ]
            }
            print(JSONWriter.string(.object(JSONObject(report))))
        }
    }

    static func insertOnly(size: Int, directory: String) {
        let folder = (directory as NSString).appendingPathComponent("insert-profile-\(size)")
        try? FileManager.default.removeItem(atPath: folder)
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var corpus = Corpus()
        let now = Date()
        let items = (0..<size).map { i in
            SearchableItem(uniqueIdentifier: "https://bench.example/items/\(i)", title: corpus.text(4), contentDescription: corpus.text(20),
                           keywords: corpus.text(5).split(separator: " ").map(String.init), webURL: "https://bench.example/items/\(i)",
                           bodyText: corpus.text(300), source: .crawled, lastUpdated: now).checked
        }
        let index = try! SearchIndex(path: folder + "/index.sqlite")
        let seconds = time {
            for batch in stride(from: 0, to: size, by: 1000) {
                try! index.commit(ItemBatch(upserts: Array(items[batch..<min(size, batch + 1000)])), now: now)
            }
        }
        print(JSONWriter.string(["items": .init(size), "items_per_s": .init(Double(size) / seconds)]))
    }

    /// - Parameter queryFile: the `queries.json` an `--export` wrote (the very queries a peer
    ///   engine ran), instead of the sets made afresh.
    static func queryOnly(directory: String, set name: String, rounds: Int, exhaustive: Bool, queryFile: String? = nil) {
        var corpus = Corpus()
        var sets = querySets(&corpus)
        if let queryFile {
            let json = try! JSONParser.parse(String(contentsOfFile: queryFile, encoding: .utf8))
            sets = (json.objectValue?.members ?? []).map { ($0.key, $0.value.arrayValue?.compactMap(\.stringValue) ?? []) }
        }
        guard let queries = sets.first(where: { $0.name == name })?.queries else {
            FileHandle.standardError.write(Data("unknown query set \(name); one of: \(sets.map(\.name).joined(separator: ", "))\n".utf8))
            exit(64)
        }
        // The cold side: opening the file, its first search, and the first pass (each term's
        // segment lists touched for the first time) apart from the warm rounds.
        var index: SearchIndex!
        let opening = time { index = existingIndex(directory) }
        var latencies: [Double] = []
        var firstPass: [Double] = []
        var slowest: [(Double, String)] = []
        for round in 0..<rounds {
            for query in queries {
                let seconds = time { _ = try! index.search(SearchRequest(query, limit: 10), retrieval: exhaustive ? .exhaustive : .pruned) }
                if round == 0 { firstPass.append(seconds * 1000) }
                if round > 0 || rounds == 1 {
                    latencies.append(seconds * 1000)
                    slowest.append((seconds * 1000, query))
                }
            }
        }
        if ProcessInfo.processInfo.environment["CHECK"] != nil {
            // The pruned answers against scoring every match, query by query.
            var differ = 0
            for query in queries {
                let pruned = try! index.search(SearchRequest(query, limit: 10)).hits
                let all = try! index.search(SearchRequest(query, limit: 10), retrieval: .exhaustive).hits
                if pruned.map(\.item.uniqueIdentifier) != all.map(\.item.uniqueIdentifier) || pruned.map(\.relevance) != all.map(\.relevance) {
                    differ += 1
                    print("differs: \(query)")
                }
            }
            print(JSONWriter.string(["set": .string(name), "prunedDiffersFromExhaustive": .init(differ)]))
        }
        if ProcessInfo.processInfo.environment["SLOWEST"] != nil {
            for (ms, query) in slowest.sorted(by: { $0.0 > $1.0 }).prefix(8) { print(String(format: "%8.2f ms  %@", ms, query)) }
        }
        let first = firstPass[0]
        latencies.sort()
        firstPass.sort()
        print(JSONWriter.string(["set": .string(name), "queries": .init(queries.count), "p50_ms": .init(latencies[latencies.count / 2]),
                                 "p99_ms": .init(latencies[Int(Double(latencies.count) * 0.99)]),
                                 "open_ms": .init(opening * 1000), "first_query_ms": .init(first),
                                 "first_pass_p50_ms": .init(firstPass[firstPass.count / 2]),
                                 "first_pass_p99_ms": .init(firstPass[Int(Double(firstPass.count) * 0.99)]),
                                 "peak_rss_mb": .init(Double(peakResidentBytes()) / 1_048_576)]))
    }

    /// The process's peak resident memory (`VmHWM` of `/proc/self/status`), 0 where unknown.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// An index's bytes with its WAL and segment files; any other file's with its WAL.
    static func fileBytes(_ path: String) -> Int {
        if FileManager.default.fileExists(atPath: path + "-segments") { return SearchIndex.bytesOnDisk(path: path) }
        return ["", "-wal"].reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: path + $1)[.size] as? Int) ?? 0) }
    }

    /// Writes the corpus (one JSON array per line: id, title, description, keywords, body)
    /// and the query sets, for a peer engine to index the very same documents.
    static func exportCorpus(_ documents: [Document], _ sets: [(name: String, queries: [String])], to directory: String) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Written in pieces: one String of a million documents passes 2 GB, past what one
        // write(2) takes, and Foundation's one-shot write then left a corrupt file.
        let path = directory + "/corpus.jsonl"
        precondition(FileManager.default.createFile(atPath: path, contents: nil), "cannot create \(path)")
        let file = FileHandle(forWritingAtPath: path)!
        for start in stride(from: 0, to: documents.count, by: 10_000) {
            var lines = ""
            for i in start..<min(documents.count, start + 10_000) {
                let d = documents[i]
                lines += JSONWriter.string(.array([.init(i), .string(d.title), .string(d.description), .string(d.keywords.joined(separator: ", ")),
                                                   .string(d.body)])) + "\n"
            }
            file.write(Data(lines.utf8))
        }
        try! file.close()
        let queries: JSONValue = .object(JSONObject(sets.map { ($0.name, .array($0.queries.map(JSONValue.string))) }))
        try! JSONWriter.string(queries).write(toFile: directory + "/queries.json", atomically: true, encoding: .utf8)
    }

    static func time(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// The corpus's generator: the same sequence every run, so both sides see the same corpus.
typealias SplitMix = SplitMix64

extension SplitMix64 {
    mutating func next(in range: ClosedRange<UInt64>) -> UInt64 {
        range.lowerBound + next() % (range.upperBound - range.lowerBound + 1)
    }
}

extension SearchableItem {
    /// The generated item through the item contract, as every store requires; the
    /// generator makes only items within it.
    var checked: ValidItem { try! validated(.relayed, now: Date()) }
}
