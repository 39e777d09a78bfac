/// The headline that repeats the page's title: the item holds the title in its own field, and
/// what the main text is measured against — the article's body, as readers and the article
/// benchmarks take it — leaves it out, as Readability removes a header that duplicates the
/// title.
extension MainText {
    /// Content blocks read from the start for the headline: the first heading among them.
    static let titleSearchBlocks = 5
    /// The share of a heading's word bytes that may be missing from the title for the heading
    /// to repeat it (Readability's text similarity, 0.75).
    static let titleSimilarity = 0.75

    /// This main text with its first heading (`h1` to `h6`, among its first
    /// ``titleSearchBlocks`` content blocks) marked ``Verdict/title`` when it repeats one of
    /// `titles` — the `<title>` or `og:title` (a site's name after the title is ignored: the
    /// heading's words are looked for in the title, not the other way round).
    func droppingTitle(_ titles: [String]) -> MainText {
        let wordSets = titles.map { Set(Self.words(Array($0.utf8)[...])) }.filter { !$0.isEmpty }
        guard !wordSets.isEmpty else { return self }
        var copy = self
        var seen = 0
        for index in blocks.indices where verdicts[index] == .content {
            seen += 1
            guard seen <= Self.titleSearchBlocks else { break }
            guard nodes[Int(blocks[index].node)].tag.isHeading else { continue }
            let heading = Self.words(text[Int(blocks[index].range.lowerBound)..<Int(blocks[index].range.upperBound)])
            let total = heading.reduce(0) { $0 + $1.count }
            if total > 0, wordSets.contains(where: { title in
                Double(heading.filter { !title.contains($0) }.reduce(0) { $0 + $1.count }) <= (1 - Self.titleSimilarity) * Double(total)
            }) {
                copy.verdicts[index] = .title
            }
            break
        }
        return copy
    }

    /// Words of UTF-8 text, ASCII letters lower-cased: runs of letters, digits and non-ASCII bytes.
    static func words(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        let lowered = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return lowered[...].split { !(($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 >= 0x80) }
    }
}
