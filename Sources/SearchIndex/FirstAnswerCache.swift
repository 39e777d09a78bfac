import BoundedCache
import SearchModel

/// A shard's first answers to long routed requests, kept between the rounds of one routed
/// search (``RoutedFeedback``): the search round finds the best ``RelevanceFeedback/depth``
/// first-stage candidates, and the feedback round (its best few read) and the rescoring
/// round (its share scored again) take them from here rather than searching again: a
/// long request's first stage is the dearest part of its answer.
///
/// An answer is found only for the same file at the same change (``ChangeLog``), the same
/// text, filter and instant, and the same statistics for every term the plan reads; else
/// the round searches. Bounded: ``capacity`` answers of at most 200 candidates, each
/// forgotten ``lifetime`` seconds after it was stored.
final class FirstAnswerCache: Sendable {
    static let capacity = 64
    static let lifetime = 30.0

    struct Key: Hashable, Sendable {
        var change: Int64
        var text: String
        var filter: SearchFilter
        var now: Double
        var documents: Int
        var tokens: Int
        var languages: [String]
        /// Every term the plan reads, with the document count it was given.
        var frequencies: [[UInt8]: Int]
    }

    private let entries = BoundedCache<Key, [TopK.Entry]>(capacityEntries: capacity, maximumAge: lifetime)

    func answer(_ key: Key) -> [TopK.Entry]? { entries.value(key) }

    func store(_ key: Key, _ answer: [TopK.Entry]) {
        entries.insert(Array(answer.prefix(RelevanceFeedback.depth)), bytes: 0, for: key)
    }
}
