import Items
@testable import SearchIndex
import Testing

/// The stem cache gives what Snowball gives, through collisions and overwrites.
@Suite struct StemCacheTests {
    func stems(_ words: [String], _ stemmers: Stemmers, language: String?) -> [String?] {
        words.map { word in
            var result: String?
            let bytes = Array(word.utf8)
            bytes.withUnsafeBytes { buffer in
                stemmers.stem(buffer, stemmers.language(language)!) { result = String(decoding: $0, as: UTF8.self) }
            }
            return result
        }
    }

    @Test func cachedStemsAreSnowballsOwn() {
        let roots = ["connect", "run", "happy", "nation", "flexib", "stabil", "gener", "organ", "walk", "comput"]
        let endings = ["", "s", "ed", "ing", "ion", "ions", "ally", "ility", "ize", "izing", "ness", "er", "ers", "ity", "al"]
        var words: [String] = []
        for index in 0..<20_000 { words.append(roots[index % roots.count] + endings[(index / 7) % endings.count] + String(repeating: "x", count: index % 3)) }
        let cached = Stemmers()
        for language in ["en", "de", "fr"] {
            let fromCache = stems(words + words, cached, language: language)
            let fresh = stems(words + words, Stemmers(), language: language)
            #expect(fromCache == fresh)
            // Without any cache: one stemmer per word.
            let sample = Array(words.prefix(300))
            #expect(stems(sample, cached, language: language) == sample.map { stems([$0], Stemmers(), language: language)[0] })
        }
    }

    /// The cache grows once it has stored twice its slots, up to its maximum, and what it
    /// answers after growing is what was stored (or a miss), never another word's stem.
    @Test func growsAndStaysRight() {
        let cache = StemCache()
        var stored: [String: String] = [:]
        for index in 0..<(4 * StemCache.maximumSlots) {
            let word = "word\(index)"
            let stem = "stem\(index)"
            stored[word] = stem
            Array(word.utf8).withUnsafeBytes { word in Array(stem.utf8).withUnsafeBytes { cache.store(word, language: 0, stem: $0) } }
        }
        #expect(cache.slots == StemCache.maximumSlots)
        var hits = 0
        for (word, stem) in stored {
            Array(word.utf8).withUnsafeBytes { bytes in
                switch cache.look(bytes, language: 0) {
                case .stem(let found):
                    hits += 1
                    #expect(String(decoding: found, as: UTF8.self) == stem)
                case .unstemmed: Issue.record("\(word) has a stem")
                case .miss: break
                }
            }
        }
        #expect(hits > StemCache.maximumSlots / 4, "recent words are found")
    }
}
