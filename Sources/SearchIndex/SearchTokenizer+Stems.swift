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
            guard !colocated, !token.contains(where: { $0 >= 0xE1 }) else { return }
            stemmers.stem(token, language) { stem in
                marked.removeAll(keepingCapacity: true)
                marked.append(Self.stemMarker)
                marked.append(contentsOf: stem)
                marked.withUnsafeBytes { visit($0, true, start, end) }
            }
        }
    }

    /// The marked stem of one query word in `language`, or nil when it is its own stem (or
    /// not stemmed).
    func markedStem(of word: [UInt8], _ language: Stemmers.Language) -> [UInt8]? {
        var result: [UInt8]?
        word.withUnsafeBytes { bytes in
            guard !bytes.contains(where: { $0 >= 0xE1 }) else { return }
            stemmers.stem(bytes, language) { result = [Self.stemMarker] + Array($0) }
        }
        return result
    }

    /// The word's stem in `language`, marked or not: the marked term when the stem differs
    /// from the word, else the word itself.
    func stemOrSelf(of word: [UInt8], _ language: Stemmers.Language) -> [UInt8] {
        markedStem(of: word, language) ?? word
    }
}
