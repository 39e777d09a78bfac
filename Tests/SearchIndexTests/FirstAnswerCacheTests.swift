@testable import SearchIndex
import Testing

/// A shard's kept first answers: found only under the very key they were stored with, and
/// never more than the cache's capacity of them.
@Suite struct FirstAnswerCacheTests {
    static func key(_ text: String, change: Int64 = 1, frequency: Int = 3) -> FirstAnswerCache.Key {
        FirstAnswerCache.Key(change: change, text: text, filter: SearchFilter(), now: 1_790_000_000, documents: 10, tokens: 100,
                             languages: ["en"], frequencies: [Array("apple".utf8): frequency])
    }

    @Test func anAnswerIsFoundOnlyUnderItsOwnKeyAndTheCacheIsBounded() {
        let cache = FirstAnswerCache()
        let answer = (0..<300).map { TopK.Entry(score: Double(300 - $0), key: UInt64($0), rowid: Int64($0)) }
        cache.store(Self.key("a long request"), answer)
        #expect(cache.answer(Self.key("a long request"))?.count == RelevanceFeedback.depth, "kept to the first answer's depth")
        #expect(cache.answer(Self.key("a long request"))?.first?.rowid == 0)
        #expect(cache.answer(Self.key("a long request", change: 2)) == nil, "the index changed")
        #expect(cache.answer(Self.key("a long request", frequency: 4)) == nil, "other statistics")
        #expect(cache.answer(Self.key("another request")) == nil)
        for number in 0..<(FirstAnswerCache.capacity * 2) { cache.store(Self.key("request \(number)"), Array(answer.prefix(1))) }
        let kept = (0..<(FirstAnswerCache.capacity * 2)).filter { cache.answer(Self.key("request \($0)")) != nil }.count
        #expect(kept == FirstAnswerCache.capacity)
        #expect(cache.answer(Self.key("request \(FirstAnswerCache.capacity * 2 - 1)")) != nil, "the newest stays")
    }
}
