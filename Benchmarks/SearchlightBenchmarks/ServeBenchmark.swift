import Dispatch
import Foundation
import Items
import JSON
import SQLite
import SearchIndex
import StoreSeams
import Synchronization

/// The two halves of `Benchmarks/serve.sh` that run in process: building the index the
/// service is measured on, and the same queries run straight against ``SearchIndex`` on
/// the same number of threads, so the HTTP overhead shows.
enum ServeBenchmark {
    /// Writes `DIR/index.sqlite` with `size` synthetic items (the index benchmark's corpus,
    /// `bodyWords` words of body each)
    /// and `DIR/queries.txt`, one query per line.
    ///
    /// With `export`, the same documents stream as they are made into `EXPORT/corpus.jsonl`
    /// (the index benchmark's format, for a peer engine) and its query sets into
    /// `EXPORT/queries.json`: nothing holds the corpus, so ten million items build in the
    /// memory of a thousand. Prints the build's wall and CPU seconds (all of it, and the
    /// engine's alone: the commits and their merges), peak resident memory,
    /// the bytes the process wrote (`/proc/self/io`) and the index's bytes at the end: their
    /// ratio is the write amplification of the commits and merges.
    ///
    /// `exportOnly`: the corpus and its queries only, no index — `EXPORT/corpus.jsonl` may be
    /// a named pipe a peer engine reads as it is written, so that ten million documents
    /// never take the disk's room twice.
    ///
    /// `shards` > 1: the same documents split as a sharded store splits them (``Shard``), one
    /// index per shard in `DIR/shard-K/index.sqlite`, each batch's parts committed side by
    /// side (one thread per shard, as separate nodes would); the figures are the sums.
    /// The filter attributes `filter-profile` searches with (`--attributes`), by the formulas
    /// `tantivy_corpus.attributes` gives Tantivy's documents: item i, whose rowid in a fresh
    /// index is i + 1, gets a content type of ten (10 % each), a host of a hundred under
    /// `shop.example` (1 % each), on every fifth item an iOS app with a deep link (20 %; 50
    /// apps), and a place over a square of 10° by 10°.
    static func giveAttributes(_ item: inout SearchableItem, rowid r: Int) {
        item.contentType = "public.type\(r % 10)"
        item.webURL = "https://site\(r % 100).shop.example/items/\(r - 1)"
        if r % 5 == 0 { item.apps = [AppTarget(platform: .ios, appStoreID: "\(r % 50)", deepLink: "bench://items/\(r)")] }
        item.location = GeoPoint(latitude: 40 + Double((r * 7919) % 10007) / 1000.7, longitude: Double((r * 104_729) % 10009) / 1000.9)
    }

    static func makeIndex(size: Int, directory: String, bodyWords: Int = 300, export: String? = nil, exportOnly: Bool = false,
                          shards: Int = 1, attributes: Bool = false) {
        precondition(shards == 1 || export == nil, "--shards builds indexes only")
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var exportFile: FileHandle?
        if let export {
            try! FileManager.default.createDirectory(atPath: export, withIntermediateDirectories: true)
            let path = export + "/corpus.jsonl"
            // A pipe already there is written to, not replaced; a file is made anew.
            if !isPipe(path) {
                try? FileManager.default.removeItem(atPath: path)
                precondition(FileManager.default.createFile(atPath: path, contents: nil), "cannot create \(path)")
            }
            exportFile = FileHandle(forWritingAtPath: path)
        }
        var startCPU = cpuSeconds()
        var startWritten = writtenBytes()
        var began = DispatchTime.now().uptimeNanoseconds
        // The engine's own CPU: the committing threads' in each commit (and the merges it
        // runs), without the corpus's generation and export.
        let indexCPU = Mutex(0.0)
        let paths = indexPaths(directory, shards: shards)
        for path in paths {
            try! FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        }
        let indexes = exportOnly ? [] : paths.map { try! SearchIndex(path: $0) }
        var corpus = IndexBenchmark.Corpus()
        let now = Date()
        // One update date for every item, whenever it is built: builds made at different
        // times, resumed, or split into shards then rank exactly alike (freshness is a
        // factor of each item's age, and near-ties would otherwise turn on minutes).
        let updated = Date(timeIntervalSince1970: 1_764_547_200)
        // A build stopped part way (a build of ten million takes hours on two cores) goes on
        // from the batches it committed (each commit stores where the next batch starts):
        // their documents are made again and dropped (not counted), and the figures of the
        // runs before (DIR/build.json, written after each commit) added.
        let progressPath = directory + "/build.json"
        var restored = (wall: 0.0, cpu: 0.0, index: 0.0, written: 0)
        let resumeFrom = indexes.map { export == nil ? committedItems($0) : 0 }
        let committed = resumeFrom.min() ?? 0
        if committed > 0, let saved = try? JSONParser.parse(String(contentsOfFile: progressPath, encoding: .utf8)),
           saved["items"]?.intValue == committed {
            restored = (saved["wall"]?.doubleValue ?? 0, saved["cpu"]?.doubleValue ?? 0, saved["index"]?.doubleValue ?? 0,
                        saved["written"]?.intValue ?? 0)
        }
        let earlier = restored
        // Batch n is committed on this queue while the next is made: the corpus's generation
        // takes a fifth of the time and need not wait for the engine.
        let committer = DispatchQueue(label: "serve-index.commit")
        let committing = DispatchGroup()
        for batch in stride(from: 0, to: size, by: 1000) {
            if batch < committed {
                for _ in batch..<min(size, batch + 1000) { _ = (corpus.text(4), corpus.text(20), corpus.text(5), corpus.text(bodyWords)) }
                continue
            }
            if batch == committed, committed > 0 {
                (startCPU, startWritten, began) = (cpuSeconds(), writtenBytes(), DispatchTime.now().uptimeNanoseconds)
            }
            let (runCPU, runWritten, runBegan) = (startCPU, startWritten, began)
            var lines = ""
            let items = (batch..<min(size, batch + 1000)).map { i in
                let id = "https://bench.example/items/\(i)"
                let (title, description, keywords, body) = (corpus.text(4), corpus.text(20), corpus.text(5), corpus.text(bodyWords))
                if exportFile != nil {
                    lines += JSONWriter.string(.array([.init(i), .string(title), .string(description),
                                                       .string(keywords.split(separator: " ").joined(separator: ", ")), .string(body)])) + "\n"
                }
                var item = SearchableItem(uniqueIdentifier: id, title: title, contentDescription: description,
                                          keywords: keywords.split(separator: " ").map(String.init), webURL: id, bodyText: body,
                                          expirationDate: now.addingTimeInterval(365 * 86_400), source: .crawled, lastUpdated: updated)
                if attributes { Self.giveAttributes(&item, rowid: i + 1) }
                return item.checked
            }
            exportFile?.write(Data(lines.utf8))
            var split = [[ValidItem]](repeating: [], count: shards)
            for item in items { split[shards == 1 ? 0 : Shard.number(of: item.key, count: shards)].append(item) }
            let parts = split
            let next = Array(String(batch + items.count).utf8)
            let end = batch + items.count
            committing.wait()
            guard !indexes.isEmpty else { continue }
            committer.async(group: committing) {
                DispatchQueue.concurrentPerform(iterations: indexes.count) { k in
                    guard batch >= resumeFrom[k] else { return }
                    var part = ItemBatch(upserts: parts[k])
                    part.clientState = next
                    part.clientStateName = progressBatch
                    let before = threadCPUSeconds()
                    try! indexes[k].commit(part, now: now)
                    let spent = threadCPUSeconds() - before
                    indexCPU.withLock { $0 += spent }
                }
                let progress: JSONValue = ["items": JSONValue(end),
                                           "wall": JSONValue(earlier.wall + Double(DispatchTime.now().uptimeNanoseconds - runBegan) / 1e9),
                                           "cpu": JSONValue(earlier.cpu + cpuSeconds() - runCPU),
                                           "index": JSONValue(earlier.index + indexCPU.withLock { $0 }),
                                           "written": JSONValue(earlier.written + writtenBytes() - runWritten)]
                try? JSONWriter.string(progress).write(toFile: progressPath, atomically: true, encoding: .utf8)
            }
        }
        committing.wait()
        let wall = earlier.wall + Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
        let cpu = earlier.cpu + cpuSeconds() - startCPU
        let engineCPU = earlier.index + indexCPU.withLock { $0 }
        // The export's own bytes are not the index's writes.
        let exported = export.map { (try? FileManager.default.attributesOfItem(atPath: $0 + "/corpus.jsonl")[.size] as? Int) ?? 0 } ?? 0
        let written = max(0, earlier.written + writtenBytes() - startWritten - exported)
        if let export, let exportFile {
            try! exportFile.close()
            var sets = corpus
            let queries: JSONValue = .object(JSONObject(IndexBenchmark.querySets(&sets).map { ($0.name, .array($0.queries.map(JSONValue.string))) }))
            try! JSONWriter.string(queries).write(toFile: export + "/queries.json", atomically: true, encoding: .utf8)
        }
        if let export, exportOnly {
            print(JSONWriter.string(["benchmark": "serve-index", "items": JSONValue(size), "exported": .string(export)]))
            return
        }
        let bytes = paths.reduce(0) { $0 + liveBytes($1) }
        let disk = paths.reduce(0) { $0 + IndexBenchmark.fileBytes($1) }
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
        print(JSONWriter.string(["benchmark": "serve-index", "items": JSONValue(size), "shards": JSONValue(shards), "queries": JSONValue(queries.count),
                                 "distinctQueries": JSONValue(distinct.count), "build_wall_s": JSONValue(wall), "build_cpu_s": JSONValue(cpu), "index_cpu_s": JSONValue(engineCPU),
                                 "peak_rss_mb": JSONValue(Double(IndexBenchmark.peakResidentBytes()) / 1_048_576),
                                 "index_bytes": JSONValue(bytes), "bytes_per_item": JSONValue(Double(bytes) / Double(max(1, size))),
                                 "disk_bytes_with_files_pending_removal": JSONValue(disk),
                                 "bytes_written": JSONValue(written), "write_amplification": JSONValue(Double(written) / Double(max(1, bytes)))]))
    }

    /// Where `serve-index` writes its index, or each shard's: `DIR/index.sqlite`, or
    /// `DIR/shard-K/index.sqlite` for K from 0 when split.
    static func indexPaths(_ directory: String, shards: Int) -> [String] {
        shards == 1 ? [directory + "/index.sqlite"] : (0..<shards).map { directory + "/shard-\($0)/index.sqlite" }
    }

    /// The batch name under which each commit stores where the next batch starts.
    static let progressBatch = "serve-index"

    /// How many of the corpus's items an index has been given: the position its last commit
    /// stored, else (builds from before positions were stored) its count.
    static func committedItems(_ index: SearchIndex) -> Int {
        if let state = try? index.clientState(batch: progressBatch), let position = Int(String(decoding: state, as: UTF8.self)) {
            return position
        }
        return (try? index.count()) ?? 0
    }

    /// The index's bytes once the files of merged-away segments are gone (a minute after
    /// their merge, at the next write): the file, its WAL and the files of its segments.
    static func liveBytes(_ path: String) -> Int {
        let connection = try! SQLiteConnection(path: path, mode: .readOnly)
        let statement = try! connection.statement("SELECT id FROM segments")
        var total = ["", "-wal"].reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: path + $1)[.size] as? Int) ?? 0) }
        while try! statement.step() {
            total += (try? FileManager.default.attributesOfItem(atPath: path + "-segments/\(statement.int(0)).seg")[.size] as? Int) ?? 0
        }
        return total
    }

    static func isPipe(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO
    }

    /// CPU seconds of this process, user and system.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU seconds of the calling thread.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Bytes this process has written to storage (`write_bytes` of `/proc/self/io`), 0 where unknown.
    static func writtenBytes() -> Int {
        guard let io = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8),
              let line = io.split(separator: "\n").first(where: { $0.hasPrefix("write_bytes:") }) else { return 0 }
        return Int(line.split(separator: " ").last ?? "") ?? 0
    }

    /// Runs the queries of `DIR/queries.txt` round-robin on `threads` threads, one index
    /// connection each, for `seconds`; prints requests/s and latency percentiles.
    static func searchInProcess(directory: String, threads: Int, seconds: Double, file: String = "queries.txt") {
        let queries = try! String(contentsOfFile: directory + "/" + file, encoding: .utf8).split(separator: "\n").map(String.init)
        let latencies = Mutex<[Double]>([])
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let group = DispatchGroup()
        for thread in 0..<threads {
            let index = existingIndex(directory)
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
