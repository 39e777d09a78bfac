import JSON
import TextUtilities

/// A page's main content: the text it is about, without menus, sidebars, "related" blocks,
/// share bars, cookie notices and footers, which come first (and last) in most HTML.
///
/// The page is a tree of block-level nodes holding blocks of text (``MainTextCollector``).
/// The decision (``select(maximumBytes:)``) is a pure function of that tree, in the way of
/// Readability and jusText (read, not copied):
/// 1. Each paragraph-like block of 25 bytes or more scores 1 + its commas + one per 100
///    bytes (at most 3), added to its node's parent in full, to the grandparent in half and to
///    the next in a third, so the container that holds most of the prose scores most.
/// 2. A node's score is then multiplied by 1 − its link density (link text over text) and
///    given its hint: +25 for `article`, `main`, `itemprop=articleBody`, `role=main` and class
///    or id words such as `content`, `article`, `post`, `entry`, `story`; −25 for `nav`,
///    `header`, `footer`, `aside`, `form` and words such as `menu`, `sidebar`, `comment`,
///    `share`, `related`, `cookie`, `footer`, `breadcrumb`, `promo`, `widget`, `author` (an
///    author's box and bio), `caption`, `credit`, `copyright`, `toc`. Comments are not
///    boilerplate on a page whose prose is all in them (a forum thread whose posts are
///    marked as comments); a `teaser` is when it links or stands among other teasers (and
///    holds less than half their text), and is the article's lead when it stands alone.
/// 3. The best node is the content; its siblings join when they score at least a fifth of
///    it (and 10), or are prose paragraphs of their own (80 bytes, few links).
///    Elements marked `itemprop=articleBody` under one parent (one, or each paragraph), with
///    250 bytes or more of text together, are taken as the content outright.
///    Prose paragraphs elsewhere (150 bytes, under a tenth links, outside boilerplate) that
///    come before the content's last block join it: a landing page's sections, a lead set
///    apart; those after it are mostly the site's (bios, "about us").
/// 4. Inside the content, a block is dropped when it sits in a node whose hint is negative,
///    or when more than half of it is link text (a list of links) — unless the content is
///    itself more than half links (a link blog's post: its links are its text); headings stay.
/// 5. When that leaves less than 250 bytes, every block of the page that reads as prose (70
///    bytes, less than a third links, outside negative hints) is the main text instead.
/// Text repeated across a site's pages is left out later, by the crawler, which has seen them
/// (``templateHashes``).
public struct MainText: Sendable, Hashable {
    struct Block: Sendable, Hashable {
        var range: Range<Int32>
        var linkBytes: Int32
        var node: Int32
        var commas: Int32
        /// Bytes of the block's text inside `time` elements.
        var timeBytes: Int32 = 0
        var bytes: Int { Int(range.count) }
        var linkDensity: Double { range.isEmpty ? 0 : Double(linkBytes) / Double(range.count) }
    }

    struct Node: Sendable, Hashable {
        var parent: Int32
        var tag: BlockTag
        var hint: Hint
    }

    /// What an element's attributes say about what it holds.
    enum Hint: Int8, Sendable {
        /// `negative`: a class or id word (`sidebar`, `share`…), a penalty and, for a small
        /// part of the content, a reason to drop it; `landmark`: an ARIA role around the
        /// content (`navigation`, `contentinfo`…), as the tags `nav` or `footer` are.
        /// `teaser`: boilerplate when it links or stands in a list of teasers (other pages'),
        /// else the article's own lead.
        case none, positive, negative, landmark, comments, articleBody, hidden, teaser

        var weight: Double {
            switch self {
            case .positive, .articleBody: 25
            case .negative, .landmark, .comments: -25
            case .none, .hidden, .teaser: 0
            }
        }
    }

    /// Why a block is or is not part of the main text (`extract --explain`).
    public enum Verdict: String, Sendable {
        case content
        case outsideContent = "outside-content"
        case boilerplateHint = "boilerplate-hint"
        case links
        case short
        /// A picture's caption or credit.
        case caption
        case template
        /// The page's headline repeating its title: the item holds it as its title.
        case title
        /// A line that gives the date (mostly a `time` element's text): metadata, not text.
        case dateline
    }

    let text: [UInt8]
    let blocks: [Block]
    let nodes: [Node]
    /// Each block's verdict, decided once (the headline's by ``droppingTitle(_:)``).
    public internal(set) var verdicts: [Verdict]

    init(text: [UInt8], blocks: [Block], nodes: [Node]) {
        self.text = text
        self.blocks = blocks
        self.nodes = nodes
        verdicts = Self.decide(text: text, blocks: blocks, nodes: nodes)
    }

    static let empty = MainText(text: [], blocks: [], nodes: [Node(parent: -1, tag: .block, hint: .none)])

    /// The main text: the content blocks in order, one per line, without soft hyphens and
    /// zero-width characters, cut at `maximumBytes` on a character boundary.
    public func selected(maximumBytes: Int, excluding template: Set<UInt64> = []) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(min(maximumBytes + 1, text.count))
        text.withUnsafeBufferPointer { text in
            for index in blocks.indices where verdicts[index] == .content {
                let range = Int(blocks[index].range.lowerBound)..<Int(blocks[index].range.upperBound)
                let bytes = UnsafeBufferPointer(rebasing: text[range])
                if !template.isEmpty, template.contains(Self.hash(bytes)) { continue }
                if !out.isEmpty { out.append(0x0A) }
                out.append(contentsOf: bytes)
                if out.count >= maximumBytes { break }
            }
        }
        return TextClean.string(out, limit: maximumBytes)
    }

    /// All of the page's visible text, every block in order separated by a space, cut at
    /// `maximumBytes` on a character boundary: the page's fingerprint for near-duplicates.
    public func leadingText(maximumBytes: Int) -> String {
        guard var end = blocks.last.map({ Int($0.range.upperBound) }) else { return "" }
        if end > maximumBytes {
            end = maximumBytes
            while end > 0, text[end] & 0xC0 == 0x80 { end -= 1 }
            while end > 0, text[end - 1] == 0x20 { end -= 1 }
        }
        return text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[..<end]), as: UTF8.self) }
    }

    /// The blocks' texts with their verdicts, for `extract --explain`.
    public func explained() -> [(text: String, verdict: Verdict)] {
        zip(blocks, verdicts).map { block, verdict in
            (String(decoding: text[Int(block.range.lowerBound)..<Int(block.range.upperBound)], as: UTF8.self), verdict)
        }
    }

    /// ``explained()`` as JSON: `[{"text", "verdict"}]`, each text cut at 300 bytes.
    public var explanationJSON: JSONValue {
        .array(explained().map { entry in
            .object(JSONObject([("text", .string(TextClean.string(Array(entry.text.utf8), limit: 300))), ("verdict", .string(entry.verdict.rawValue))]))
        })
    }

    /// A fingerprint of each content block of 25 bytes or more (``WordHash`` of its text), for
    /// recognising text a site repeats on every page (in memory, for one crawl).
    public func contentHashes() -> [UInt64] {
        zip(blocks, verdicts).compactMap { block, verdict in
            guard verdict == .content, block.bytes >= 25 else { return nil }
            return text.withUnsafeBufferPointer { Self.hash(UnsafeBufferPointer(rebasing: $0[Int(block.range.lowerBound)..<Int(block.range.upperBound)])) }
        }
    }

    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 { WordHash.hash(UnsafeRawBufferPointer(bytes)) }

    /// Copies `bytes` leaving out U+00AD (soft hyphen), U+200B (zero-width space), U+2060
    /// (word joiner) and U+FEFF (BOM): invisible, and they split words. The zero-width
    /// joiner and non-joiner stay: Persian, the Indic scripts and emoji spell with them.
    /// For text that did not come through ``MainTextCollector`` (which leaves them out as it
    /// collects): schema.org `articleBody`.
    static func appendClean(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        // Most text has none of them: copied whole.
        let plain = bytes.withUnsafeBufferPointer { buffer in !buffer.contains { $0 == 0xC2 || $0 == 0xE2 || $0 == 0xEF } }
        guard !plain else {
            out.append(contentsOf: bytes)
            return
        }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0xC2, index + 1 < bytes.endIndex, bytes[index + 1] == 0xAD {
                index += 2
                continue
            }
            if byte == 0xE2, index + 2 < bytes.endIndex, bytes[index + 1] == 0x80, bytes[index + 2] == 0x8B {
                index += 3
                continue
            }
            if byte == 0xE2, index + 2 < bytes.endIndex, bytes[index + 1] == 0x81, bytes[index + 2] == 0xA0 {
                index += 3
                continue
            }
            if byte == 0xEF, index + 2 < bytes.endIndex, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF {
                index += 3
                continue
            }
            out.append(byte)
            index += 1
        }
    }
}
