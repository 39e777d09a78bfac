/// A query as a tree of document iterators over one segment, each able to say what it
/// matches (``doc``), what the current document scores (``score()``), and — without
/// decoding anything — the most any document from a given one on up to a block boundary
/// could score (``bound(from:)``), which is what block-max pruning needs.
class MatchNode {
    /// The current document's ordinal, ``PostingCursor/end`` when exhausted. Stored here,
    /// kept current by each node, so that reading it costs no dynamic call.
    final var doc: Int32 = PostingCursor.end
    /// Documents the node may match, an estimate used to pick the cheapest lead.
    var cost: Int { 0 }
    func next() {}
    func advance(to target: Int32) {}
    /// The current document's score (for a phrase, an upper bound; see ``PhraseNode``).
    func score() -> Double { 0 }
    /// The most a document at or after `target` can score, valid up to and including the
    /// returned ordinal; nil when nothing is left.
    func bound(from target: Int32) -> (bound: Double, last: Int32)? { nil }
}

/// What scoring a document in a segment needs.
struct ScoringContext {
    let lengths: UnsafeBufferPointer<UInt16>
    let averageLength: Double
    /// How much a stored block bound may be exceeded (``BM25/boundFactor(builtWith:scoringWith:)``).
    let boundFactor: Double
}

/// One term, scored with its idf.
final class TermNode: MatchNode {
    private(set) var cursor: PostingCursor
    let postings: TermPostings
    let idf: Double
    private let context: ScoringContext

    init(_ postings: TermPostings, idf: Double, context: ScoringContext) {
        cursor = PostingCursor(postings)
        self.postings = postings
        self.idf = idf
        self.context = context
        super.init()
        doc = cursor.doc
    }

    deinit { cursor.release() }

    override var cost: Int { cursor.documents }

    override func next() {
        cursor.next()
        doc = cursor.doc
    }

    override func advance(to target: Int32) {
        cursor.advance(to: target)
        doc = cursor.doc
    }

    override func score() -> Double {
        idf * BM25.saturation(frequency: Double(cursor.frequency), length: Double(context.lengths[Int(cursor.doc)]),
                              averageLength: context.averageLength)
    }

    /// The current document's weighted frequency.
    var frequency: UInt32 { cursor.frequency }

    func shallow(_ target: Int32) -> (bound: Float, last: Int32)? { cursor.shallow(target) }

    override func bound(from target: Int32) -> (bound: Double, last: Int32)? {
        guard let block = cursor.shallow(target) else { return nil }
        return (idf * Double(block.bound) * context.boundFactor, block.last)
    }
}

/// Consecutive tokens (a CJK word of three or more characters, a hyphenated word): the
/// documents holding every token, scored as if the phrase occurred as often as its rarest
/// token — an upper bound; ``SegmentSearcher`` reads the text of the best candidates for
/// the exact count.
final class PhraseNode: MatchNode {
    let tokens: [TermNode]
    let idf: Double
    private let context: ScoringContext

    init(tokens: [TermNode], idf: Double, context: ScoringContext) {
        self.tokens = tokens
        self.idf = idf
        self.context = context
        super.init()
        align()
    }

    override var cost: Int { tokens.map(\.cost).min() ?? 0 }

    private func align() {
        var target = tokens.map(\.doc).max() ?? PostingCursor.end
        while target != PostingCursor.end {
            var agreed = true
            for token in tokens {
                token.advance(to: target)
                if token.doc != target {
                    target = token.doc
                    agreed = false
                    break
                }
            }
            if agreed { break }
        }
        doc = target
    }

    override func next() {
        guard doc != PostingCursor.end else { return }
        tokens[0].next()
        align()
    }

    override func advance(to target: Int32) {
        guard doc < target else { return }
        tokens[0].advance(to: target)
        align()
    }

    override func score() -> Double {
        let frequency = Double(tokens.map(\.frequency).min() ?? 0)
        return idf * BM25.saturation(frequency: frequency, length: Double(context.lengths[Int(doc)]), averageLength: context.averageLength)
    }

    override func bound(from target: Int32) -> (bound: Double, last: Int32)? {
        var saturation = Double.infinity
        var last = PostingCursor.end
        for token in tokens {
            guard let block = token.shallow(target) else { return nil }
            saturation = min(saturation, Double(block.bound))
            last = min(last, block.last)
        }
        return (idf * saturation * context.boundFactor, last)
    }

}

/// A clause with its bonus: the node's score plus a constant when it matches (BM25+'s δ,
/// see ``PostingsQuery``); its bounds grow by the same constant, so pruning stays exact.
final class BonusNode: MatchNode {
    let inner: MatchNode
    let bonus: Double

    init(_ inner: MatchNode, bonus: Double) {
        self.inner = inner
        self.bonus = bonus
        super.init()
        doc = inner.doc
    }

    override var cost: Int { inner.cost }

    override func next() {
        inner.next()
        doc = inner.doc
    }

    override func advance(to target: Int32) {
        inner.advance(to: target)
        doc = inner.doc
    }

    override func score() -> Double { inner.score() + bonus }

    override func bound(from target: Int32) -> (bound: Double, last: Int32)? {
        guard let block = inner.bound(from: target) else { return nil }
        return (block.bound + bonus, block.last)
    }
}

/// Any of several nodes (a word's spellings, a prefix's completions, or every word when
/// none of the documents has them all): the sum of those that match.
final class AnyNode: MatchNode {
    let children: [MatchNode]
    /// The children without reference counting in the loops below; `children` keeps them.
    private let nodes: [Unmanaged<MatchNode>]

    init(_ children: [MatchNode]) {
        self.children = children
        nodes = children.map { Unmanaged.passUnretained($0) }
        super.init()
        doc = children.map(\.doc).min() ?? PostingCursor.end
    }

    override var cost: Int { children.reduce(0) { $0 + $1.cost } }

    override func next() {
        let current = doc
        guard current != PostingCursor.end else { return }
        var lowest = PostingCursor.end
        for node in nodes {
            node._withUnsafeGuaranteedRef { child in
                if child.doc == current { child.next() }
                lowest = min(lowest, child.doc)
            }
        }
        doc = lowest
    }

    override func advance(to target: Int32) {
        guard doc < target else { return }
        var lowest = PostingCursor.end
        for node in nodes {
            node._withUnsafeGuaranteedRef { child in
                child.advance(to: target)
                lowest = min(lowest, child.doc)
            }
        }
        doc = lowest
    }

    override func score() -> Double {
        var total = 0.0
        let current = doc
        for node in nodes {
            node._withUnsafeGuaranteedRef { child in
                if child.doc == current { total += child.score() }
            }
        }
        return total
    }

    override func bound(from target: Int32) -> (bound: Double, last: Int32)? {
        var total = 0.0
        var last = PostingCursor.end
        var any = false
        for child in children {
            guard let block = child.bound(from: target) else { continue }
            any = true
            total += block.bound
            last = min(last, block.last)
        }
        return any ? (total, last) : nil
    }

}
