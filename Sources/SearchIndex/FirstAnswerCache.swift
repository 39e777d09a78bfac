import Dispatch
import SearchModel
import Synchronization

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
    static let shared = FirstAnswerCache()
    static let capacity = 64
    static let lifetime = 30.0

    struct Key: Hashable {
        var file: String
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

    private struct Entry {
        var answer: [TopK.Entry]
        var stored: UInt64
    }

    private let entries = Mutex<[Key: Entry]>([:])

    func answer(_ key: Key) -> [TopK.Entry]? {
        let now = DispatchTime.now().uptimeNanoseconds
        return entries.withLock { entries in
            guard let entry = entries[key], Double(now &- entry.stored) / 1e9 < Self.lifetime else { return nil }
            return entry.answer
        }
    }

    func store(_ key: Key, _ answer: [TopK.Entry]) {
        let now = DispatchTime.now().uptimeNanoseconds
        entries.withLock { entries in
            if entries[key] == nil, entries.count >= Self.capacity {
                entries = entries.filter { Double(now &- $0.value.stored) / 1e9 < Self.lifetime }
                if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.stored < $1.value.stored })?.key {
                    entries[oldest] = nil
                }
            }
            entries[key] = Entry(answer: Array(answer.prefix(RelevanceFeedback.depth)), stored: now)
        }
    }
}
