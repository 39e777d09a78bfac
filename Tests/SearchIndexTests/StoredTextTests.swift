import Foundation
import Items
import SQLite
import Testing

@testable import SearchIndex

/// Bodies are kept compressed (``StoredText``): snippets and phrase checks read them back
/// exactly, short ones stay text, and damaged bytes read as no text rather than a crash.
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
}
