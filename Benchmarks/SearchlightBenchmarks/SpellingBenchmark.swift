import Dispatch
import Foundation
import Items
import JSON
import SearchIndex
import Synchronization

/// Spelling correction's cost with a large vocabulary (issue 24): an index of `words`
/// distinct words, then queries of 32 unknown words (each one edit from a word of the
/// vocabulary, or nowhere near one), one at a time and, on the side, plain two-word searches
/// while 8 threads keep sending such queries.
enum SpellingBenchmark {
    static func run(words count: Int, directory: String) {
        let path = (directory as NSString).appendingPathComponent("spelling-\(count).sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        var generator = SplitMix(seed: 24)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var seen = Set<String>()
        var vocabulary: [String] = []
        while vocabulary.count < count {
            let length = Int(generator.next(in: 5...12))
            let word = String((0..<length).map { _ in letters[Int(generator.next(in: 0...25))] })
            if seen.insert(word).inserted { vocabulary.append(word) }
        }
        let index = try! SearchIndex(path: path)
        let started = Date()
        var position = 0
        var item = 0
        while position < vocabulary.count {
            var batch: [SearchableItem] = []
            for _ in 0..<2000 where position < vocabulary.count {
                let text = vocabulary[position..<min(vocabulary.count, position + 50)].joined(separator: " ")
                position += 50
                batch.append(SearchableItem(uniqueIdentifier: "w\(item)", title: "Word list \(item % 97)", bodyText: text, source: .pushed))
                item += 1
            }
            try! index.upsert(batch)
        }
        let indexed = Date().timeIntervalSince(started)
        /// One edit away from a word of the vocabulary (which the correction should find), or random.
        var typos: [String: String] = [:]
        func unknownWord() -> String {
            if generator.next(in: 0...1) == 0 { return String((0..<10).map { _ in letters[Int(generator.next(in: 0...25))] }) }
            let source = vocabulary[Int(generator.next(in: 0...UInt64(vocabulary.count - 1)))]
            var word = Array(source)
            let at = Int(generator.next(in: 1...UInt64(word.count - 1)))
            word[at] = word[at] == "z" ? "y" : Character(Unicode.Scalar(word[at].asciiValue! + 1))
            let text = String(word)
            if seen.contains(text) { return unknownWord() }
            typos[text] = source
            return text
        }
        let queries = (0..<60).map { _ in (0..<32).map { _ in unknownWord() }.joined(separator: " ") }
        // How many typos of the words a query corrects (at most 16 a query) have their source among the spellings.
        var corrected = 0
        var typosSeen = 0
        for query in queries {
            let response = try! index.search(SearchRequest(query, limit: 10))
            for word in query.split(separator: " ").prefix(16).map(String.init) {
                guard let source = typos[word] else { continue }
                typosSeen += 1
                if response.corrections[word]?.contains(source) == true { corrected += 1 }
            }
        }
        // And one typo alone in a query, as people make them.
        var single = 0
        let singles = Array(typos.prefix(200))
        for (typo, source) in singles where (try! index.search(SearchRequest(typo, limit: 10))).corrections[typo]?.contains(source) == true {
            single += 1
        }
        func time(_ text: String) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try! index.search(SearchRequest(text, limit: 10))
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        func percentile(_ values: [Double], _ p: Double) -> Double { values.sorted()[min(values.count - 1, Int(Double(values.count) * p))] }
        _ = time(queries[0])
        let alone = queries.map(time)
        // Plain searches beside 8 threads of 32-unknown-word queries.
        let stop = Atomic(false)
        let group = DispatchGroup()
        for thread in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                let reader = try! SearchIndex(path: path, mode: .existing)
                var next = thread
                while !stop.load(ordering: .relaxed) {
                    _ = try! reader.search(SearchRequest(queries[next % queries.count], limit: 10))
                    next += 1
                }
                group.leave()
            }
        }
        Thread.sleep(forTimeInterval: 1)
        let plain = (0..<200).map { n in time("word list \(n % 97)") }
        stop.store(true, ordering: .relaxed)
        group.wait()
        let result: JSONValue = .object(JSONObject([
            ("benchmark", "spelling"), ("vocabulary", JSONValue(count)), ("indexing_seconds", JSONValue(indexed)),
            ("unknown_words_per_query", 32), ("queries", JSONValue(queries.count)),
            ("typo_recall_in_32_word_queries", JSONValue(Double(corrected) / Double(max(1, typosSeen)))),
            ("typo_recall_alone", JSONValue(Double(single) / Double(max(1, singles.count)))),
            ("alone_p50_ms", JSONValue(percentile(alone, 0.5))), ("alone_p99_ms", JSONValue(percentile(alone, 0.99))),
            ("plain_beside_8_p50_ms", JSONValue(percentile(plain, 0.5))), ("plain_beside_8_p99_ms", JSONValue(percentile(plain, 0.99))),
        ]))
        print(JSONWriter.string(result))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
