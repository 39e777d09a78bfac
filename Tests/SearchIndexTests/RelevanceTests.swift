import Foundation
import Items
import Testing

@testable import SearchIndex

/// Queries as people type and paste them (issue 25): ranked OR with the words as written
/// above their stems, hyphenated words as their parts, long queries accepted.
@Suite struct RelevanceTests {
    let t: TemporaryIndex

    init() throws {
        t = try TemporaryIndex()
        try t.index.upsert([
            item("flex", "Surface flexibility and laminar boundary layer stability", body: "Can a flexible wall stabilize the flow?"),
            item("wall", "Flexible walls", body: "Stability of flow over a flexible surface."),
            item("rigid", "Rigid plates", body: "Buckling of plates under edge loading."),
            item("pro", "Pro-inflammatory cytokines", body: "The pro-inflammatory response of macrophages."),
            item("anti", "Anti-inflammatory drugs", body: "Drugs that reduce inflammatory responses."),
            item("heat", "Heat transfer to a hemisphere", body: "Measured distribution of heat transfer."),
            item("theory", "Theoretical distribution", body: "A theoretical study of pressure distribution around cones."),
            item("cheval", "Les chevaux de course", body: "Un cheval rapide.", language: "fr"),
        ])
    }

    @Test func stemsFindOtherFormsAndTheWordAsWrittenRanksFirst() throws {
        let ids = try t.ids("flexibility stabilize")
        #expect(Set(ids).isSuperset(of: ["flex", "wall"]), "flexible and stability are found through their stems: \(ids)")
        #expect(ids.first == "flex", "the item with the words as written first: \(ids)")
        #expect(try t.ids("flexible").first == "wall", "and the other way round")
    }

    @Test func anItemIsStemmedInItsOwnLanguage() throws {
        #expect(try t.ids("cheval").first == "cheval")
        #expect(try t.ids("chevaux") == ["cheval"], "French: chevaux and cheval share a stem")
    }

    @Test func aHyphenatedWordFindsItsPartsAndRanksThePhraseFirst() throws {
        let ids = try t.ids("pro-inflammatory")
        #expect(ids.first == "pro", "\(ids)")
        #expect(ids.contains("anti"), "inflammatory alone is found too: \(ids)")
    }

    @Test func tenPartialMatchesBeatOneResult() throws {
        let ids = try t.ids("theoretical heat transfer distribution around hemisphere")
        #expect(ids.first == "heat" || ids.first == "theory")
        #expect(Set(ids) == ["heat", "theory"], "each holds some of the words: \(ids)")
    }

    @Test func aPastedParagraphIsAQuery() throws {
        let paragraph = String(repeating: "we would like to know whether anyone has measured the ", count: 20)
            + "heat transfer distribution on a hemisphere in hypersonic flow, and how it compares with the theoretical predictions."
        #expect(paragraph.count > 1024)
        let ids = try t.ids(paragraph)
        #expect(ids.first == "heat", "\(ids)")
        #expect(try t.ids(String(repeating: "x", count: 4096)).isEmpty)
    }

    /// More than 64 distinct tokens with a phrase among them used to match nothing.
    @Test func aLongQueryWithAPhraseStillMatches() throws {
        try t.index.upsert([item("troponin", "High-sensitivity cardiac troponin T", body: "Diagnostic value in acute myocardial injury.")])
        let query = "High-sensitivity cardiac troponin T (HSCT-T) dosage may not be diagnostic if the onset of symptoms occurs less than "
            + "3 hours before acute myocardial injury (AMI). " + (0..<70).map { "filler\($0)" }.joined(separator: " ")
        #expect(try t.ids(query).first == "troponin")
        let frequencies = try t.index.withConnectionAndTokenizer { _, tokenizer in
            PhraseMatcher.frequencies(of: (0..<80).map { [Array("w\($0)".utf8)] } + [[Array("cardiac".utf8), Array("troponin".utf8)]],
                                      in: ["cardiac troponin w79", "", "", ""], language: nil, tokenizer: tokenizer)
        }
        #expect(frequencies.last == 10 && frequencies[79] == 10, "phrases are counted past 64 distinct tokens: \(frequencies.suffix(2))")
    }

    @Test func typingCompletesTheLastWordWithoutOutweighingWholeWords() throws {
        var request = SearchRequest("flexible wal")
        request.typing = true
        #expect(try t.index.search(request).hits.first?.item.uniqueIdentifier == "wall")
        #expect(try t.ids("flexible wal").first == "wall", "finished, it matches whole words only")
    }
}
