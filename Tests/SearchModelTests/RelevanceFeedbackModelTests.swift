import Testing

@testable import SearchModel

/// Relevance feedback's pure part (issues 40 and 60): which words the first answer's leading
/// documents share, at which weights, and which of its documents are read — what one index
/// and a router over shards compute alike.
@Suite struct RelevanceFeedbackModelTests {
    private func document(_ score: Double, _ words: [String: Double]) -> RelevanceFeedback.Document {
        RelevanceFeedback.Document(score: score, counts: Dictionary(uniqueKeysWithValues: words.map { (Array($0.key.utf8), $0.value) }),
                                   length: words.values.reduce(0, +))
    }

    private func words(_ terms: [RelevanceFeedback.Term]) -> [String] { terms.map { String(decoding: $0.token, as: UTF8.self) } }

    @Test func theModelKeepsWordsSharedByTheBestDocumentsWeightedByScore() {
        let documents = [
            document(3, ["perturbation": 4, "bounds": 1, "only": 5, "theorem": 2]),
            document(1, ["perturbation": 1, "bounds": 3, "theorem": 2]),
            document(0, ["ignored": 9, "bounds": 9]),
        ]
        let terms = RelevanceFeedback.expansion(documents, spellings: [:], excluding: [], frequency: { _ in 1 }, documentCount: 100)
        // perturbation: 3/4·4/12 + 1/4·1/6 = 0.2917; bounds: 3/4·1/12 + 1/4·3/6 = 0.1875;
        // theorem: 3/4·2/12 + 1/4·2/6 = 0.2083; "only" is in one document, "ignored" in one
        // that did not match.
        #expect(words(terms) == ["perturbation", "theorem", "bounds"])
        #expect(terms[0].weight == RelevanceFeedback.weight)
        #expect(abs(terms[2].weight - RelevanceFeedback.weight * 0.1875 / 0.29166666666666663) < 1e-12)
    }

    @Test func theRequestsOwnWordsCommonWordsDigitsAndShortWordsAreNotAdded() {
        let shared = ["eigenvalue": 5.0, "common": 4, "1978": 4, "of": 6, "spectra": 1]
        let documents = [document(2, shared), document(2, shared)]
        let terms = RelevanceFeedback.expansion(documents, spellings: [Array("spectra".utf8): Array("spectrum".utf8)],
                                                excluding: [Array("eigenvalue".utf8)],
                                                frequency: { String(decoding: $0, as: UTF8.self) == "common" ? 51 : 3 }, documentCount: 100)
        #expect(words(terms) == ["spectrum"], "a class is added as its most frequent spelling")
        #expect(RelevanceFeedback.expansion([], spellings: [:], excluding: [], frequency: { _ in 1 }, documentCount: 10).isEmpty)
    }

    /// Feedback reads the first answer's documents that score near its best: all ten where
    /// many match alike, none past the best where it stands alone.
    @Test func theDocumentsReadAreThoseScoringNearTheBest() {
        #expect(RelevanceFeedback.leading([10, 9, 8, 7.5, 7, 6.9, 9]) == 5, "up to the first below 0.7 of the best")
        #expect(RelevanceFeedback.leading([10, 6, 5]) == 1, "a best that stands alone is read alone")
        #expect(RelevanceFeedback.leading(Array(repeating: 3.0, count: 40)) == RelevanceFeedback.documents)
        #expect(RelevanceFeedback.leading([Double]()) == 0)
        let alone = RelevanceFeedback.FirstAnswer([(shard: 0, candidates: [.init(score: 10, key: 1), .init(score: 2, key: 2)]),
                                                   (shard: 1, candidates: [.init(score: 3, key: 3)])])
        #expect(alone.leading == 1 && alone.leading < RelevanceFeedback.minimumDocuments, "a router adds no word either")
    }

    @Test func equalShareGoesToByteOrderSoTheExpansionIsAFunctionOfItsInputs() {
        let documents = [document(1, ["zeta": 1, "alpha": 1, "mid": 1]), document(1, ["zeta": 1, "alpha": 1, "mid": 1])]
        let once = RelevanceFeedback.expansion(documents, spellings: [:], excluding: [], frequency: { _ in 1 }, documentCount: 10)
        #expect(words(once) == ["alpha", "mid", "zeta"])
        #expect(once.allSatisfy { $0.weight == RelevanceFeedback.weight })
    }
}
