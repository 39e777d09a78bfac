import ItemModel
/// How candidates become results, decided once for one index and for a router over shards.
///
/// The first stage ranks by relevance (BM25) and keeps the best ``candidates(offset:limit:)``
/// in one total order: relevance, then ``ItemKey/orderKey`` ascending. The first
/// ``rescoreWindow`` of them are then ordered by their final score (``Ranking``: relevance
/// times the item's signals), ties again by order key; the rest follow in first-stage order.
/// The window does not depend on the page asked for (Elasticsearch's rescore
/// `window_size`), so pages of 10 put together are one page of 40, and a router that takes
/// the first-stage best of every shard's candidates and rescores them the same way answers
/// exactly as one index of the same items.
public enum ResultOrder {
    /// Candidates reordered by their final score.
    public static let rescoreWindow = 50

    /// One candidate: its first-stage relevance, its final score and its order key.
    public struct Candidate: Sendable, Equatable {
        public var relevance: Double
        public var score: Double
        public var key: UInt64

        public init(relevance: Double, score: Double, key: UInt64) {
            self.relevance = relevance
            self.score = score
            self.key = key
        }

        /// First-stage order: relevance, then key.
        public func precedesByRelevance(_ other: Candidate) -> Bool {
            relevance != other.relevance ? relevance > other.relevance : key < other.key
        }

        /// Final order inside the window: score, then key.
        public func precedesByScore(_ other: Candidate) -> Bool {
            score != other.score ? score > other.score : key < other.key
        }
    }

    /// How many first-stage candidates a page from `offset`, `limit` long, needs.
    public static func candidates(offset: Int, limit: Int) -> Int { max(rescoreWindow, offset + limit) }

    /// The final order of `candidates`, given in first-stage order: the indexes of the
    /// candidates, the window's rescored, the rest as they came. Stable, so candidates equal in
    /// score and key (a 64-bit collision) keep the first stage's order.
    public static func rescored(_ candidates: [Candidate]) -> [Int] {
        let window = min(rescoreWindow, candidates.count)
        var order = Array(0..<window)
        // Insertion sort: stable, and the window is small.
        for i in 1..<max(1, window) {
            let moving = order[i]
            var j = i
            while j > 0, candidates[moving].precedesByScore(candidates[order[j - 1]]) {
                order[j] = order[j - 1]
                j -= 1
            }
            order[j] = moving
        }
        return order + Array(window..<candidates.count)
    }
}
