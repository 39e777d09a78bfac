import Foundation
import Items
import Testing

@testable import SearchIndex

/// Long requests (issues 40 and 60): a word written n times weighs √n, a word's forms share one
/// idf, and from seven words on the request is searched again with what its first answer's
/// leading documents share.
@Suite struct RelevanceFeedbackTests {
    /// The relevant item holds only a common word of the request, and ranks below twelve
    /// that hold two; the two that match the request well share another word with it.
    @Test func aLongRequestFindsWhatItsBestAnswersShare() throws {
        let t = try TemporaryIndex()
        var items = [
            item("a1", "Sensitivity of the eigenvalue decomposition", body: "How eigenvalues move under perturbation of the entries."),
            item("a2", "Eigenvalue sensitivity of real matrices", body: "A perturbation analysis of the eigenvalue problem."),
            item("target", "Spectral variation theory", body: "Bounds on spectra of operators moving under perturbation."),
        ]
        for i in 0..<12 { items.append(item("filler\(i)", "Notes on compilers \(i)", body: "Parsing and code generation of the languages.")) }
        try t.index.upsert(items)
        let request = "articles about the sensitivity of the eigenvalue decomposition of real matrices"
        let ids = try t.ids(request)
        #expect(Array(ids.prefix(2)).sorted() == ["a1", "a2"], "\(ids)")
        #expect(ids.contains("target"), "found through perturbation: \(ids)")
        #expect(try !t.ids("eigenvalue sensitivity").contains("target"), "a short query is searched as written")
    }

    @Test func aRepeatedWordWeighsTheRootOfItsCountAndItsFormsShareOneIDF() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([item("a", "Flexible walls", body: "flexibility of a wall"), item("b", "Rigid plates", body: "flexible"),
                            item("c", "Heat", body: "heat transfer")])
        let (weights, idfs, forms) = try t.index.withConnectionAndTokenizer { connection, tokenizer in
            let segments = try SegmentSearcher(connection: connection, tokenizer: tokenizer, reader: t.index.reader)
            let query = try SearchQuery("flexible heat flexible flexible flexible") { tokenizer.tokens($0, query: true) }
            let plan = QueryPlan(query, typing: false, terms: segments.dictionary, tokenizer: tokenizer, languages: [])
            let clause = plan.query.clauses[0]
            return (clause.units.map(\.weight), segments.weightedIDFs(plan.query)[0], clause.units.map(\.isForm))
        }
        #expect(weights.first == 2, "flexible, four times: √4 × its weight of 1: \(weights)")
        #expect(forms.allSatisfy { $0 }, "the word as written and its stems are its forms")
        let perWeight = zip(idfs, weights).map { $0 / $1 }
        #expect(perWeight.allSatisfy { abs($0 - perWeight[0]) < 1e-12 }, "one idf for every form: \(perWeight)")
    }
}
