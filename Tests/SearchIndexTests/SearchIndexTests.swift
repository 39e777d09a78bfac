import Foundation
import Items
import JSON
import SearchIndex
import Testing

@Suite struct StorageTests {
    @Test func upsertReplacesTheWholeItem() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([item("a", "Lemon tart", keywords: ["citrus"], body: "shortcrust pastry")])
        #expect(try t.ids("citrus") == ["a"])
        try t.index.upsert([item("a", "Lemon tart")])
        #expect(try t.ids("citrus").isEmpty, "keywords of the old version are gone")
        #expect(try t.ids("shortcrust").isEmpty)
        #expect(try t.index.count() == 1)
        #expect(try t.index.item(ItemKey(owner: nil, identifier: "a"))?.keywords == [])
    }

    /// Keywords come back as given, one holding a comma included, and are searched as before
    /// (a hyphenated word's phrase included, which reads the keywords' text).
    @Test func keywordsComeBackWhole() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([item("a", "Lemon tart", keywords: ["salt, pepper", "citrus"]), item("b", "Lime tart", keywords: ["lime", "zest"])])
        #expect(try t.index.item(ItemKey(owner: nil, identifier: "a"))?.keywords == ["salt, pepper", "citrus"])
        #expect(try t.index.item(ItemKey(owner: nil, identifier: "b"))?.keywords == ["lime", "zest"])
        #expect(try t.ids("pepper") == ["a"] && t.ids("zest") == ["b"] && t.ids("salt-pepper") == ["a"])
    }

    @Test func deletesByIdentifierByDomainHierarchyAndAll() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([
            item("1", "alpha one", domain: "com.example"), item("2", "alpha two", domain: "com.example.people"),
            item("3", "alpha three", domain: "com.example.people.staff"), item("4", "alpha four", domain: "com.examples"),
            item("5", "alpha five", domain: "com.examplez.people"), item("6", "alpha six"),
        ])
        #expect(try t.index.delete(identifiers: ["6", "missing"]) == 1)
        #expect(try t.index.delete(domainIdentifiers: ["com.example.people"]) == 2)
        #expect(try t.ids("alpha").sorted() == ["1", "4", "5"])
        #expect(try t.index.delete(domainIdentifiers: ["com.example"]) == 1, "not com.examples, not com.examplez")
        #expect(try t.index.deleteAll() == 2)
        #expect(try t.index.count() == 0)
    }

    @Test func expiredItemsNeverAppearAndArePurged() throws {
        let t = try TemporaryIndex()
        let now = Date()
        try t.index.upsert([item("old", "expired pie", expires: now.addingTimeInterval(60)), item("new", "fresh pie")], now: now)
        #expect(try t.ids("pie", now: now).sorted() == ["new", "old"])
        let later = now.addingTimeInterval(120)
        #expect(try t.ids("pie", now: later) == ["new"])
        #expect(try t.index.purgeExpired(now: later) == 1)
        #expect(try t.index.item(ItemKey(owner: nil, identifier: "old")) == nil)
    }

    @Test func aLongLivedReaderSeesOtherConnectionsCommits() throws {
        let t = try TemporaryIndex()
        let reader = try SearchIndex(path: t.directory.appendingPathComponent("index.sqlite").path, mode: .existing)
        let version = try reader.dataVersion()
        #expect(try reader.count() == 0)
        #expect(try reader.search(SearchRequest("lemon")).hits.isEmpty)
        try t.index.upsert([item("a", "Lemon tart")])
        // count()'s statement stopped at its one row; it must not keep the old snapshot.
        #expect(try reader.search(SearchRequest("lemon")).hits.map(\.item.uniqueIdentifier) == ["a"])
        #expect(try reader.dataVersion() != version, "the data version shows another connection's commit")

        // A reader whose first search comes after another connection's commit sees it too
        // (opening the index must not leave a statement holding the first snapshot).
        let late = try SearchIndex(path: t.directory.appendingPathComponent("index.sqlite").path, mode: .existing)
        try t.index.upsert([item("b", "Lemon curd")])
        #expect(try late.search(SearchRequest("lemon")).hits.count == 2)
    }

    @Test func batchesCommitAtomicallyWithClientState() throws {
        let t = try TemporaryIndex()
        var batch = try ItemBatch(validating: [item("a", "first")])
        batch.clientState = Array("cursor=1".utf8)
        batch.clientStateName = "people"
        try t.index.commit(batch)
        #expect(try t.index.clientState(batch: "people") == Array("cursor=1".utf8))
        #expect(try t.index.clientState(batch: "other") == nil)

        var stale = try ItemBatch(validating: [item("b", "second")])
        stale.clientState = Array("cursor=2".utf8)
        stale.clientStateName = "people"
        stale.expectedClientState = .some(Array("cursor=0".utf8))
        #expect(throws: SearchIndexError.self) { try t.index.commit(stale) }
        #expect(try t.index.item(ItemKey(owner: nil, identifier: "b")) == nil, "nothing of a refused batch is kept")
        stale.expectedClientState = .some(Array("cursor=1".utf8))
        try t.index.commit(stale)
        #expect(try t.index.clientState(batch: "people") == Array("cursor=2".utf8))

        var fresh = ItemBatch()
        fresh.clientStateName = "new"
        fresh.clientState = [1]
        fresh.expectedClientState = .some(nil)
        try t.index.commit(fresh)

        var tooBig = try ItemBatch(validating: [item("c", "third")])
        tooBig.clientState = [UInt8](repeating: 0, count: 251)
        #expect(throws: SearchIndexError.self) { try t.index.commit(tooBig) }
        #expect(try t.index.item(ItemKey(owner: nil, identifier: "c")) == nil)
    }

    @Test func aMissingOrDamagedFileIsAClearError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("none.sqlite").path
        #expect(#expect(throws: SearchIndexError.self) { try SearchIndex(path: missing, mode: .existing) }?.reason == "no-index")
        let junk = directory.appendingPathComponent("junk.sqlite").path
        _ = FileManager.default.createFile(atPath: junk, contents: Data(repeating: 0x41, count: 8192))
        #expect(#expect(throws: SearchIndexError.self) { try SearchIndex(path: junk, mode: .existing) }?.reason == "corrupt")
    }
}

@Suite struct QueryTests {
    let t: TemporaryIndex

    init() throws {
        t = try TemporaryIndex()
        try t.index.upsert([
            item("tart", "Lemon tart", description: "Sharp and silky", body: "bake the shortcrust"),
            item("cake", "Lemon drizzle cake", description: "Moist sponge"),
            item("pie", "Key lime pie", description: "Graham cracker crust"),
            item("cafe", "Café crème recipe", description: "A coffee"),
            item("live", "篮球直播：今晚八点", description: "星火直播间"),
            item("split", "篮球 比赛", description: "直 和 播 分开"),
        ])
    }

    @Test func moreOfTheWordsRankFirstAndTheLastIsAPrefixOnlyWhileTyping() throws {
        #expect(try t.ids("lemon tart") == ["tart", "cake"], "the item with both words first, then one with either")
        #expect(try t.ids("lem").isEmpty, "a finished query matches whole words (and three letters are not corrected)")
        func typing(_ text: String) throws -> [String] {
            var request = SearchRequest(text)
            request.typing = true
            return try t.index.search(request).hits.map(\.item.uniqueIdentifier)
        }
        #expect(try typing("lemo").sorted() == ["cake", "tart"])
        #expect(try typing("lemon dri").first == "cake", "the completion widens, and the whole word still counts")
        #expect(try t.ids("shortcrust") == ["tart"])
    }

    @Test func anyWordMatchesAndTheAnswerSaysWhenNoneHasThemAll() throws {
        let response = try t.index.search(SearchRequest("lemon crust banana"))
        #expect(response.matchedAnyWord)
        #expect(Set(response.hits.map(\.item.uniqueIdentifier)) == ["tart", "cake", "pie"])
        #expect(try t.index.search(SearchRequest("lemon tart")).matchedAnyWord == false)
    }

    @Test func diacriticsFold() throws {
        #expect(try t.ids("cafe creme") == ["cafe"])
        #expect(try t.ids("CAFÉ") == ["cafe"])
    }

    @Test func shortChineseQueriesMatchAndPhrasesAreExact() throws {
        #expect(try t.ids("直播") == ["live"], "the split page has 直 and 播 apart: no match")
        #expect(try t.ids("篮球").sorted() == ["live", "split"])
        #expect(try t.ids("篮") .sorted() == ["live", "split"])
        #expect(try t.ids("篮球直播") == ["live"])
        #expect(try t.ids("球直") == ["live"])
    }

    @Test func typosAreForgivenByLength() throws {
        let response = try t.index.search(SearchRequest("lemmon tart"))
        #expect(response.hits.first?.item.uniqueIdentifier == "tart")
        #expect(response.corrections["lemmon"] == ["lemon"])
        #expect(try t.ids("shortcrsut") == ["tart"], "a transposition is one edit; 10 letters allow two")
        #expect(try t.ids("drizle") == ["cake"])
        #expect(try t.ids("lemn").contains("tart"), "four letters allow one typo (issue 56)")
        #expect(try t.index.search(SearchRequest("lemn")).corrections["lemn"]?.first == "lemon")
        #expect(try t.ids("lmn").isEmpty, "three letters allow none")
        #expect(try t.ids("xemon").isEmpty, "candidates share the first letter")
    }

    @Test(arguments: [
        "\"", "\"\"", "lemon\"", "\"lemon tart\"", "lemon AND", "OR", "NOT lemon", "NEAR(lemon tart)", "lemon*", "*lemon",
        "title:lemon", "{title}: lemon", "lemon ^", "(lemon", "lemon)", "+lemon -tart", "lemon'; DROP TABLE items; --",
        "\\", "lemon\u{0}", "ㅤ", "🍋", "%", "_", "lemon:", "AND AND AND", "-", "a b c d e f g h",
    ])
    func userTextNeverBecomesFTS5Syntax(_ query: String) throws {
        do {
            _ = try t.index.search(SearchRequest(query))
        } catch {
            #expect(error.isClientError, "only a clear query error may come back: \(error)")
        }
        #expect(try t.index.count() == 6)
    }

    @Test func badQueriesAreRejectedClearly() throws {
        for query in ["", "   ", "()", String(repeating: "x", count: 4097), "bad\u{FFFD}byte"] {
            #expect(#expect(throws: SearchIndexError.self) { try t.index.search(SearchRequest(query)) }?.isClientError == true)
        }
    }

    @Test func snippetsMarkTheMatches() throws {
        let hit = try #require(try t.index.search(SearchRequest("silky", snippets: true)).hits.first)
        #expect(hit.snippet == "Sharp and \u{2}silky\u{3}")
    }

    /// A page's heading is most often its title (or the title less the site's name): the
    /// snippet shows the text after it, not the title again.
    @Test func snippetsDoNotRepeatTheTitle() throws {
        try t.index.upsert([item("shoe", "Trail Runner 3 — Peak Shop", body: "Trail Runner 3\nLight trail running shoes with a grippy sole.")])
        let hit = try #require(try t.index.search(SearchRequest("trail runner", snippets: true)).hits.first)
        #expect(hit.snippet == "Light \u{2}trail\u{3} running shoes with a grippy sole.")
    }
}
