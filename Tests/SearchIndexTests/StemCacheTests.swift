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
}
