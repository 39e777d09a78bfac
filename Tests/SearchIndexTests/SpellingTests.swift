import Foundation
import Items
import Testing

@testable import SearchIndex

/// The spelling candidates' walk over the sorted dictionaries against brute force: with a
/// budget large enough it finds exactly the terms within the allowed edits, over several
/// segments, and with any budget only such terms.
@Suite struct SpellingTests {
    @Test func theDictionaryWalkFindsWhatBruteForceFinds() throws {
        let t = try TemporaryIndex()
        var state: UInt64 = 42
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        // A small alphabet, so that many words are within two edits of each other; some
        // non-ASCII letters, so scalars and bytes differ.
        let letters: [Character] = ["a", "b", "c", "d", "é", "ß"]
        var vocabulary = Set<String>()
        while vocabulary.count < 3000 { vocabulary.insert(String((0..<(3 + next(8))).map { _ in letters[next(letters.count)] })) }
        let words = vocabulary.sorted()
        // The dictionary holds what the tokenizer made of them (diacritics folded).
        let terms = Set(try words.flatMap { try t.index.tokens($0, query: false) })
        // Three commits: three segments, so the walk merges.
        for (part, chunk) in stride(from: 0, to: words.count, by: 1000).enumerated() {
            let slice = words[chunk..<min(words.count, chunk + 1000)]
            try t.index.upsert(slice.enumerated().map { item("p\(part)-\($0.offset)", "t", body: $0.element) })
        }
        try t.index.withConnectionAndTokenizer { connection, tokenizer in
            try connection.transaction("DEFERRED") {
                let searcher = try SegmentSearcher(connection: connection, tokenizer: tokenizer, reader: IndexReader.reader(for: "spelling-test"))
                #expect(searcher.segments.count >= 2)
                for _ in 0..<60 {
                    let typed = String((0..<(4 + next(7))).map { _ in letters[next(letters.count)] })
                    guard let folded = tokenizer.tokens(typed, query: true).first else { continue }
                    let target = Array(folded.unicodeScalars)
                    for edits in [1, 2] {
                        let expected = Set(terms.filter { word in
                            let scalars = Array(word.unicodeScalars)
                            return scalars.first == target.first && TypoTolerance.distance(target, scalars, limit: edits) <= edits
                        })
                        let found = searcher.dictionary.fuzzyTerms(near: target, edits: edits, budget: 1_000_000).map { String(decoding: $0.term, as: UTF8.self) }
                        #expect(Set(found) == expected, "\(String(String.UnicodeScalarView(target))) ±\(edits)")
                        let bounded = searcher.dictionary.fuzzyTerms(near: target, edits: edits, budget: 20).map { String(decoding: $0.term, as: UTF8.self) }
                        #expect(Set(bounded).isSubset(of: expected), "a small budget finds fewer, never wrong ones")
                    }
                }
            }
        }
    }
}
