import Foundation
import Items
import SearchIndex
import Testing

/// Where an item ranks for a query and why (issue 56): the rank is the search's own, the
/// score's parts multiply to the result's score, each word's fields and forms are named, and
/// what keeps the item down is said.
@Suite struct FindabilityTests {
    let t: TemporaryIndex

    init() throws {
        t = try TemporaryIndex()
        try t.index.upsert([
            item("tart", "Lemon tart", description: "Sharp and silky", body: "bake the shortcrust with lemons"),
            item("cake", "Lemon drizzle cake", description: "Moist sponge"),
            item("curd", "Curd for a pie", description: "A spoonful", body: "lemon curd keeps a week; a tart filling"),
            item("pie", "Key lime pie", description: "Graham cracker crust"),
            item("stuffed", "Tart tart tart tart", description: "tart"),
            item("old", "Lemon meringue", description: "A lemon tart with meringue", expires: Date(timeIntervalSinceNow: 3600)),
        ])
    }

    func findability(_ id: String, _ query: String) throws -> Findability {
        try t.index.findability(of: ItemKey(owner: nil, identifier: id), for: SearchRequest(query))
    }

    @Test func theRankAndScoreAreTheSearchsOwn() throws {
        let search = try t.index.search(SearchRequest("lemon tart", limit: 10))
        for (position, hit) in search.hits.enumerated() {
            let report = try findability(hit.item.uniqueIdentifier, "lemon tart")
            #expect(report.rank == position + 1, "\(hit.item.uniqueIdentifier)")
            #expect(abs((report.score?.total ?? 0) - hit.score) < 1e-9, "\(hit.item.uniqueIdentifier): \(report.score?.total ?? 0) vs \(hit.score)")
            #expect(abs((report.score?.relevance ?? 0) - report.words.map(\.points).reduce(0, +)) < 1e-9, "the words' points add up to the relevance")
            #expect(report.total == search.total)
        }
        let tart = try findability("tart", "lemon tart")
        #expect(tart.rank == 1 && tart.above.isEmpty)
        let lemon = try #require(tart.words.first { $0.word == "lemon" })
        #expect(lemon.forms.first { $0.kind == .written }?.occurrences == [.title: 1])
        #expect(lemon.forms.contains { $0.kind == .stem && $0.occurrences[.body] == 1 }, "lemons, through the stem: \(lemon.forms)")
        #expect(tart.findings.isEmpty, "\(tart.findings)")
    }

    @Test func whatKeepsAnItemDownIsSaid() throws {
        let curd = try findability("curd", "lemon tart")
        #expect(curd.matches && (curd.rank ?? 0) > 1)
        #expect(curd.findings.contains(.onlyInBody(["lemon", "tart"])), "\(curd.findings)")
        #expect(curd.above.first?.identifier == "tart" || curd.above.contains { $0.identifier == "tart" })

        let cake = try findability("cake", "lemon tart")
        #expect(cake.findings.contains(.missingWords(["tart"])), "\(cake.findings)")
        #expect(cake.words.first { $0.word == "tart" }?.matched == false)

        let stuffed = try findability("stuffed", "tart")
        #expect(stuffed.score?.quality == 0.5 && stuffed.findings.contains(.stuffed))

        let pie = try findability("pie", "lemon tart")
        #expect(!pie.matches && pie.rank == nil && pie.findings == [.noWordMatches])
        #expect(pie.above.first?.identifier == "tart", "the first results are named")

        let later = SearchRequest("lemon tart", now: Date(timeIntervalSinceNow: 7200))
        let old = try t.index.findability(of: ItemKey(owner: nil, identifier: "old"), for: later)
        #expect(!old.indexed && old.rank == nil)
        #expect(old.findings.contains { if case .expired = $0 { true } else { false } }, "\(old.findings)")

        let none = try findability("nothing", "lemon tart")
        #expect(!none.indexed && none.findings == [.notIndexed])

        let corrected = try findability("tart", "lemn tart")
        #expect(corrected.corrections["lemn"]?.first == "lemon")
        #expect(corrected.words.first?.forms.contains { $0.kind == .correction && $0.text == "lemon" && $0.occurrences[.title] == 1 } == true,
                "\(corrected.words.first?.forms ?? [])")
        #expect(corrected.findings.contains(.onlyCorrected(["lemn"])), "\(corrected.findings)")
    }

    @Test func anotherOwnersItemIsNotFound() throws {
        try t.index.upsert([SearchableItem(uniqueIdentifier: "mine", title: "Lemon posset", source: .pushed, owner: "alice")])
        #expect(try t.index.findability(of: ItemKey(owner: "alice", identifier: "mine"), for: SearchRequest("lemon")).indexed)
        #expect(try t.index.findability(of: ItemKey(owner: "bob", identifier: "mine"), for: SearchRequest("lemon")).findings == [.notIndexed])
    }
}
