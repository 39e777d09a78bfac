import CStemmer
import Items

/// Snowball stemmers (libstemmer) by language, made on first use and kept: one set per
/// tokenizer session, which is used under its connection's lock — libstemmer's objects
/// may not be shared between threads. Owns its `sb_stemmer` handles.
///
/// A language is an item's `language` (a BCP 47 tag such as `en-GB`; its primary subtag
/// picks the stemmer, as libstemmer knows ISO 639 codes) — items without one are stemmed
/// as English. Languages Snowball has no stemmer for (Chinese, Japanese, Korean…) are not
/// stemmed.
final class Stemmers {
    /// A language's stemmer, found once.
    struct Language: Hashable {
        fileprivate let index: Int
    }

    private var handles: [OpaquePointer] = []
    private var byCode: [String: Language?] = [:]
    /// The stems of recent words: text repeats its words (Zipf), and a Snowball call costs
    /// far more than a look-up (measured: stemming was a seventh of a crawl's CPU).
    private let cache = StemCache()
    /// Stems longer than this are not made (nor are words shorter than 3 bytes stemmed).
    static let maximumWordBytes = 64
    static let defaultCode = "en"

    init() {}

    deinit {
        for handle in handles { sb_stemmer_delete(handle) }
    }

    /// The stemmer for a language tag (nil: the default language), or nil when Snowball has
    /// none for it.
    func language(_ tag: String?) -> Language? {
        let code = Self.primarySubtag(tag) ?? Self.defaultCode
        if let known = byCode[code] { return known }
        var found: Language?
        if let handle = sb_stemmer_new(code, nil) {
            handles.append(handle)
            found = Language(index: handles.count - 1)
        }
        byCode[code] = found
        return found
    }

    /// `en-GB` → `en`; nil for an empty or malformed tag.
    static func primarySubtag(_ tag: String?) -> String? {
        guard let tag else { return nil }
        let primary = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() } ?? ""
        guard (2...3).contains(primary.utf8.count), primary.utf8.allSatisfy({ (0x61...0x7A).contains($0) }) else { return nil }
        return primary
    }

    /// Calls `body` with the stem of `word` (lower case, as the tokenizer makes it) in
    /// `language`, or does nothing when the word is not stemmed or is its own stem.
    func stem(_ word: UnsafeRawBufferPointer, _ language: Language, _ body: (UnsafeRawBufferPointer) -> Void) {
        guard word.count >= 3, word.count <= Self.maximumWordBytes, let base = word.baseAddress else { return }
        switch cache.look(word, language: language.index) {
        case .stem(let stem):
            body(stem)
            return
        case .unstemmed:
            return
        case .miss:
            break
        }
        let handle = handles[language.index]
        guard let output = sb_stemmer_stem(handle, base.assumingMemoryBound(to: sb_symbol.self), Int32(word.count)) else { return }
        let length = Int(sb_stemmer_length(handle))
        let stem = UnsafeRawBufferPointer(start: output, count: length)
        guard length > 0, length != word.count || compareBytes(stem, word) != 0 else {
            cache.store(word, language: language.index, stem: nil)
            return
        }
        cache.store(word, language: language.index, stem: stem)
        body(stem)
    }
}
