import Foundation
import Items
import SQLite
import Testing

@testable import SearchIndex

/// Bodies are kept compressed (``StoredText``): snippets and phrase checks read them back
/// exactly, short ones stay text, and damaged bytes read as no text rather than a crash.
/// Once the index holds enough text it trains a dictionary on it (``BodyDictionary``) and
/// later bodies are compressed with it.
@Suite struct StoredTextTests {
    @Test func bodiesAreCompressedAndReadBackExactly() throws {
        let t = try TemporaryIndex()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let long = (0..<300).map { "Le café numéro \($0) sert un thé vert 绿茶 et des croissants." }.joined(separator: " ")
        // A crawled page's body, which may pass a pushed item's 16 KB.
        var page = item("long", "Cafés", body: long, updated: now)
        page.source = .crawled
        try t.index.upsert([page, item("short", "Thé", body: "Un thé 绿茶 court.", updated: now)], now: now)
        let raw = try SQLiteConnection(path: t.directory.appendingPathComponent("index.sqlite").path)
        let stored = try raw.prepare("SELECT i.uid, typeof(b.body), length(b.body) FROM items i JOIN item_bodies b ON b.rowid = i.rowid ORDER BY i.uid")
        var kinds: [String: (String, Int)] = [:]
        while try stored.step() { kinds[stored.string(0) ?? ""] = (stored.string(1) ?? "", stored.int(2)) }
        #expect(kinds["long"]?.0 == "blob" && (kinds["long"]?.1 ?? .max) * 4 < long.utf8.count, "compressed well below the text")
        #expect(kinds["short"]?.0 == "text")
        // A phrase (a CJK word of three characters is checked against the text) and snippets
        // read the compressed body.
        var request = SearchRequest("croissants 绿茶", limit: 5, now: now)
        request.snippets = true
        let hits = try t.index.search(request).hits
        #expect(hits.map(\.item.uniqueIdentifier).contains("long"))
        #expect(hits.first { $0.item.uniqueIdentifier == "long" }?.snippet?.contains("\u{2}croissants\u{3}") == true)
        #expect(try t.index.search(SearchRequest("numéro 299", limit: 5, now: now)).hits.first?.item.uniqueIdentifier == "long")
        // Damaged: a claimed length past the limit, and a broken stream.
        try raw.execute("UPDATE item_bodies SET body = x'01ffffffff00' WHERE rowid = (SELECT rowid FROM items WHERE uid = 'long')")
        var damaged = SearchRequest("croissants", limit: 5, now: now)
        damaged.snippets = true
        _ = try t.index.search(damaged)
        try raw.execute("UPDATE item_bodies SET body = x'01100000000102030405060708' WHERE rowid = (SELECT rowid FROM items WHERE uid = 'long')")
        _ = try t.index.search(damaged)
    }

    /// Text of a few thousand words in varying order, as pages of one language are: what a
    /// dictionary learns from.
    private static func prose(_ seed: Int, words: Int) -> String {
        let vocabulary = (0..<2_000).map { "w\(String($0 * 7_919 % 10_007, radix: 36))ord" }
        var state = UInt64(truncatingIfNeeded: seed) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (0..<words).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Frequent words often, as in a language: the square of a uniform draw.
            let draw = Double(state >> 11) / Double(1 << 53)
            return vocabulary[Int(draw * draw * Double(vocabulary.count))]
        }.joined(separator: " ")
    }

    @Test func bodiesAreCompressedWithADictionaryTrainedOnTheIndexsText() throws {
        let t = try TemporaryIndex()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let raw = try SQLiteConnection(path: t.directory.appendingPathComponent("index.sqlite").path)
        func dictionaries() throws -> Int {
            let count = try raw.prepare("SELECT count(*) FROM body_dictionaries")
            try count.step()
            return count.int(0)
        }
        // Under the first training's tokens: no dictionary, DEFLATE alone.
        let first = (0..<300).map { item("a\($0)", "Page \($0)", body: Self.prose($0, words: 300), updated: now) }
        try t.index.upsert(first, now: now)
        #expect(try dictionaries() == 0)
        // Past it (about 200,000 tokens, a megabyte of bodies): the write that crosses it trains one.
        let second = (300..<800).map { item("a\($0)", "Page \($0)", body: Self.prose($0, words: 300), updated: now) }
        try t.index.upsert(second, now: now)
        #expect(try dictionaries() == 1)
        // The next is due when the index has grown eightfold.
        let meta = try raw.prepare("SELECT (SELECT value FROM meta WHERE key = 'body_dictionary_due'), (SELECT value FROM meta WHERE key = 'tokens')")
        try meta.step()
        #expect(Int(meta.string(0) ?? "") == 8 * (Int(meta.string(1) ?? "") ?? 0))
        meta.reset()
        // Later bodies name it (format 2) and are smaller than the same kind of text alone.
        let third = (800..<900).map { item("a\($0)", "Page \($0)", body: Self.prose($0, words: 300), updated: now) }
        try t.index.upsert(third, now: now)
        let sizes = try raw.prepare("""
            SELECT substr(hex(b.body), 1, 2), avg(length(b.body)), count(*) FROM items i JOIN item_bodies b ON b.rowid = i.rowid GROUP BY 1 ORDER BY 1
            """)
        var average: [String: (Double, Int)] = [:]
        while try sizes.step() { average[sizes.string(0) ?? ""] = (sizes.double(1), sizes.int(2)) }
        #expect(average["01"]?.1 == 800 && average["02"]?.1 == 100)
        let deflated = average["01"]?.0 ?? 0
        let dictionaried = average["02"]?.0 ?? .infinity
        #expect(dictionaried < deflated * 0.9, "with the dictionary \(dictionaried) bytes a body, DEFLATE alone \(deflated)")
        // Phrase checks and snippets read them back exactly, in this process and a new reader.
        let words = Self.prose(850, words: 300).split(separator: " ")
        let phrase = "\"\(words[120]) \(words[121]) \(words[122])\""
        var request = SearchRequest(phrase, limit: 50, now: now)
        request.snippets = true
        let hits = try t.index.search(request).hits
        let found = try #require(hits.first { $0.item.uniqueIdentifier == "a850" })
        #expect(found.snippet?.contains("\u{2}\(words[121])\u{3}") == true)
        let reopened = try SearchIndex(path: t.directory.appendingPathComponent("index.sqlite").path, mode: .existing)
        #expect(try reopened.search(request).hits.contains { $0.item.uniqueIdentifier == "a850" })
        // Damaged: a dictionary that does not exist, and a broken frame, read as no text.
        try raw.execute("UPDATE item_bodies SET body = x'0210000000ff00000001020304' WHERE rowid = (SELECT rowid FROM items WHERE uid = 'a850')")
        #expect(try t.index.search(request).hits.first { $0.item.uniqueIdentifier == "a850" }?.snippet?.contains("\u{2}") != true)
        try raw.execute("UPDATE item_bodies SET body = x'02100000000100000028b52ffd0102' WHERE rowid = (SELECT rowid FROM items WHERE uid = 'a851')")
        var other = SearchRequest(words.prefix(3).joined(separator: " "), limit: 50, now: now)
        other.snippets = true
        _ = try t.index.search(other)
    }

    @Test func aDictionaryIsTrainedAgainEachTimeTheIndexGrowsEightfold() {
        #expect(BodyDictionary.nextDue(after: 300_000, trained: true) == 2_400_000)
        // Too little text to learn from: tried again at twice the tokens.
        #expect(BodyDictionary.nextDue(after: 300_000, trained: false) == 600_000)
        #expect(BodyDictionary.nextDue(after: 0, trained: false) == BodyDictionary.firstTokens)
        #expect(BodyDictionary.nextDue(after: .max / 3, trained: true) == .max)
    }
}
