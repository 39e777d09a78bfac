/// What a router adds to a search it sends a shard: the whole index's statistics to rank with,
/// the answer's order, and its part in relevance feedback. Never part of the public request.
public struct ShardRound: Sendable, Equatable {
    /// The whole index's statistics: the shard ranks with them instead of its own
    /// (``CorpusStatistics``). A router always sends them; nil ranks with the shard's own (and
    /// runs feedback on its own, as one index does), for measuring what they change.
    public var statistics: CorpusStatistics?
    /// The answer holds every first-stage candidate a page from `offset`, `limit` long needs
    /// (``ResultOrder/candidates(offset:limit:)``), in first-stage order, each with its final
    /// score and relevance, for the router to order with every shard's.
    public var firstStageOrder = false
    /// The router's rounds of relevance feedback over shards; nil when the router runs none.
    /// Only with ``statistics``: a shard's own first answer is not the whole index's.
    public var feedback: RoutedFeedback?

    public init(statistics: CorpusStatistics?, firstStageOrder: Bool = false, feedback: RoutedFeedback? = nil) {
        self.statistics = statistics
        self.firstStageOrder = firstStageOrder
        self.feedback = feedback
    }
}

/// What a shard does for a router's relevance feedback (``RelevanceFeedback``): a long
/// request's first answer is the whole index's, so the router runs feedback across the
/// shards' answers — their best first-stage candidates, the readings of the best few, the
/// added words' statistics — and asks each shard to score its part of the first answer again.
public enum RoutedFeedback: Sendable, Equatable {
    /// Answer as usual, and report the best ``RelevanceFeedback/depth`` first-stage
    /// candidates when feedback applies to the request (``FirstStageCandidate``).
    case firstStage
    /// The best `depth` first-stage candidates scored again with the added words: this
    /// shard's share of the whole index's first answer.
    case rescore(terms: [RelevanceFeedback.Term], depth: Int)

    /// What a rescoring round may carry.
    public static func validate(terms: [RelevanceFeedback.Term], depth: Int) throws(SearchIndexError) {
        guard (1...RelevanceFeedback.depth).contains(depth) else { throw .invalidQuery("feedback depth must be from 1 to \(RelevanceFeedback.depth)") }
        guard terms.count <= RelevanceFeedback.terms,
            terms.allSatisfy({ !$0.token.isEmpty && $0.token.count <= CorpusStatistics.Limits.termBytes && $0.weight > 0 && $0.weight <= 1 })
        else { throw .invalidQuery("feedback terms: at most \(RelevanceFeedback.terms), each 1 to \(CorpusStatistics.Limits.termBytes) bytes, weight in (0, 1]") }
    }
}


/// A first-stage candidate as a shard reports it for a router's feedback: its BM25 score and
/// order key (``ItemKey/orderKey``).
public struct FirstStageCandidate: Sendable, Equatable {
    public var score: Double
    public var key: UInt64

    public init(score: Double, key: UInt64) {
        self.score = score
        self.key = key
    }
}
