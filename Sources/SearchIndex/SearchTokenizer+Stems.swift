import Items
/// Stems beside the words: a document's word that its language stems to something else
/// (`flexibility` → `flexibl`) is indexed as itself and, at the same position, as its stem
/// with a marker byte in front (`\u{1}flexibl`), as Lucene's `KeywordRepeatFilter` keeps the
/// original beside the stem. The marker keeps stems apart from words (no word starts with a
/// control character), so a query can ask for the exact form, the stem, or both, and rank
/// the exact form higher; words that are their own stem are not indexed twice. CJK runs are
/// not stemmed. The document's length counts positions, so stems do not lengthen it.
extension SearchTokenizer.Session {
    static let stemMarker: UInt8 = 0x01

    /// Every token of `text` as ``tokenize(_:mode:_:)`` gives it in document mode, each word
    /// followed by its marked stem (colocated) when `language` stems it to something else.
    func analyze(_ text: String, language: Stemmers.Language?, _ visit: (UnsafeRawBufferPointer, Bool, Int, Int) -> Void) {
        guard let language else {
            tokenize(text, mode: .document, visit)
            return
        }
        var marked: [UInt8] = []
        tokenize(text, mode: .document) { token, colocated, start, end in
            visit(token, colocated, start, end)
            guard !colocated else { return }
            withMarkedStem(of: token, language, buffer: &marked) { visit($0, true, start, end) }
        }
    }

    /// Calls `body` with a word's marked stem in `language` (built in `buffer`) when the
    /// language stems it to something else; CJK words are not stemmed. The one rule for
    /// documents (``analyze(_:language:_:)``, ``SegmentBuilder``) and queries.
    func withMarkedStem(of word: UnsafeRawBufferPointer, _ language: Stemmers.Language, buffer: inout [UInt8],
                        _ body: (UnsafeRawBufferPointer) -> Void) {
        guard !word.contains(where: { $0 >= 0xE1 }) else { return }
        stemmers.stem(word, language) { stem in
            buffer.removeAll(keepingCapacity: true)
            buffer.append(Self.stemMarker)
            buffer.append(contentsOf: stem)
            buffer.withUnsafeBytes(body)
        }
    }

    /// The marked stem of one query word in `language`, or nil when it is its own stem (or
    /// not stemmed).
    func markedStem(of word: [UInt8], _ language: Stemmers.Language) -> [UInt8]? {
        var result: [UInt8]?
        var buffer: [UInt8] = []
        word.withUnsafeBytes { withMarkedStem(of: $0, language, buffer: &buffer) { result = Array($0) } }
        return result
    }

    /// The word's stem in `language`, marked or not: the marked term when the stem differs
    /// from the word, else the word itself.
    func stemOrSelf(of word: [UInt8], _ language: Stemmers.Language) -> [UInt8] {
        markedStem(of: word, language) ?? word
    }
}
