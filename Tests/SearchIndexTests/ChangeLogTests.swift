import Foundation
import Items
@testable import SearchIndex
import Testing

/// The change log says what each commit changed, and an answer's dependencies say whether
/// it could read differently: a result cache keeps what a commit did not touch.
@Suite struct ChangeLogTests {
    /// Whether any change after `sequence` touches the answer to `query`.
    func touched(_ t: TemporaryIndex, _ query: String, typing: Bool = false, after sequence: Int64) throws -> Bool {
        var request = SearchRequest(query)
        request.typing = typing
        let dependencies = try t.index.answer(request).dependencies
        let read = try t.index.changes(after: sequence)
        #expect(read.complete)
        return read.changes.contains { $0.affects(dependencies) }
    }

    @Test func aCommitTouchesOnlyTheAnswersItCouldChange() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([item("tart", "Lemon tart"), item("cake", "Chocolate cake"), item("pie", "Apple pie")])
        let start = try t.index.changes(after: 0)
        #expect(start.complete && start.changes.count == 1 && start.latest == 1)

        try t.index.upsert([item("mousse", "Chocolate mousse")])
        #expect(try touched(t, "lemon", after: 1) == false, "a new item without the word")
        #expect(try touched(t, "chocolate", after: 1), "a new item with it")
        #expect(try touched(t, "chocolates", after: 1), "the stem class: chocolates also finds chocolate")
        #expect(try touched(t, "cho", typing: true, after: 1), "a new completion of the word being typed")
        #expect(try touched(t, "lem", typing: true, after: 1) == false)
        #expect(try touched(t, "lemmon", after: 1), "corrections read the whole vocabulary")

        // Replacing, deleting and re-ranking an item touch the answers it was a candidate of.
        try t.index.upsert([item("pie", "Apple pie", keywords: ["baked"])])
        #expect(try touched(t, "apple", after: 2))
        #expect(try touched(t, "lemon", after: 2) == false)
        let lemon = try t.index.answer(SearchRequest("lemon")).dependencies
        try t.index.delete(identifiers: ["tart"])
        #expect(try t.index.changes(after: 3).changes.first?.affects(lemon) == true, "a deleted result")
        let before = try t.index.changes(after: .max).latest
        let dependencies = try t.index.answer(SearchRequest("chocolate")).dependencies
        try t.index.recordEngagement(ItemKey(owner: nil, identifier: "cake"), impressions: 3, clicks: 1)
        let engagement = try t.index.changes(after: before)
        #expect(engagement.changes.count == 1 && engagement.changes[0].insertedRows == false)
        #expect(engagement.changes[0].affects(dependencies))
        #expect(try touched(t, "apple", after: before) == false)
    }

    @Test func aConfirmationIsAChangeOnlyWhenItBringsTheExpirationForward() throws {
        let t = try TemporaryIndex()
        let now = Date()
        try t.index.upsert([item("page", "Lemon page", expires: now.addingTimeInterval(3_600))], now: now)
        let dependencies = try t.index.answer(SearchRequest("lemon", now: now)).dependencies
        var later = ItemBatch()
        later.confirmations = ["page": now.addingTimeInterval(7_200)]
        try t.index.commit(later, now: now)
        #expect(try t.index.changes(after: 1).changes.isEmpty, "a revisit's 304 extends the item: no answer changes")
        var earlier = ItemBatch()
        earlier.confirmations = ["page": now.addingTimeInterval(60)]
        try t.index.commit(earlier, now: now)
        #expect(try t.index.changes(after: 1).changes.first?.affects(dependencies) == true)
        #expect(try t.index.item(ItemKey(owner: nil, identifier: "page"))?.expirationDate.map { Int($0.timeIntervalSince(now).rounded()) } == 60, "stored as a double of seconds")
    }

    @Test func mergesAndEmptyBatchesWriteNoChange() throws {
        let t = try TemporaryIndex()
        for round in 0..<20 { try t.index.upsert([item("i\(round)", "Round \(round)")]) }
        #expect(try t.index.changes(after: 0).changes.count == 20, "eight-segment merges happened on the way, unlogged")
        try t.index.commit(ItemBatch())
        #expect(try t.index.changes(after: 20).changes.isEmpty)
    }

    @Test func aReaderTooFarBehindIsToldItMissedChanges() throws {
        let t = try TemporaryIndex()
        for round in 0..<(Int(ChangeLog.keptCommits) + 10) { try t.index.upsert([item("i\(round % 3)", "Round \(round)")]) }
        let latest = try t.index.changes(after: .max).latest
        #expect(try t.index.changes(after: 1).complete == false, "trimmed")
        #expect(try t.index.changes(after: latest - 5).complete)
        #expect(try t.index.changes(after: latest - 300, limit: 256).complete == false, "more than the limit")
        #expect(try t.index.changes(after: latest + 7).complete == false, "numbers from another file")
    }

    @Test func aCommitOfManyRowsTouchesEveryAnswer() throws {
        let t = try TemporaryIndex()
        try t.index.upsert((0..<(ChangeLog.maximumRows + 1)).map { item("i\($0)", "Item \($0)") })
        try t.index.upsert([item("lemon", "Lemon")])
        try t.index.deleteAll()
        let change = try #require(try t.index.changes(after: 2).changes.first)
        #expect(change.rows == nil)
        #expect(change.affects(AnswerDependencies()))
    }

    @Test func theTermFilterHasNoFalseNegativesAndFewFalsePositives() throws {
        let table = TermTable()
        let terms = (0..<20_000).map { Array("term\($0)".utf8) }
        for term in terms { _ = term.withUnsafeBytes { table.id($0) } }
        var filter = try #require(TermFilter(entries: terms.count + terms.count / 2))
        for id in 0..<Int32(table.count) { table.withBytes(id) { filter.insert(term: $0) } }
        #expect(terms.allSatisfy { filter.contains(TermFilter.hash(term: $0)) })
        #expect(filter.contains(TermFilter.hash(prefix: Array("ter".utf8))))
        #expect(filter.contains(TermFilter.hash(prefix: Array("term12345".utf8))), "a long prefix is checked by its first bytes")
        let strangers = (0..<20_000).filter { filter.contains(TermFilter.hash(term: Array("other\($0)".utf8))) }.count
        #expect(strangers < 600, "false positives: \(strangers) of 20,000 (1–2 % expected)")
        #expect(TermFilter(bytes: filter.bytes) == filter)
        #expect(TermFilter(bytes: [1, 2, 3]) == nil)
        #expect(TermFilter(entries: TermFilter.maximumBytes * 8) == nil, "too many terms: the change touches every answer")
    }
}
