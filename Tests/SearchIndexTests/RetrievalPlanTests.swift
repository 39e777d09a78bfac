import Foundation
@testable import SearchIndex
import Testing

/// The plan step of a search (``RetrievalPlan``), decided from values alone: how many
/// candidates are collected and what reorders them.
@Suite struct RetrievalPlanTests {
    static let long = RelevanceFeedback.minimumTerms

    @Test func aShortRequestCollectsThePageWindowAndIsNotRefined() {
        let plan = RetrievalPlan(SearchRequest("lemon tart"), round: nil, distinctTerms: 2, hasPhrase: false)
        let window = ResultOrder.rescoreWindow
        #expect(plan.k == window && plan.searched == window && plan.depth == window && !plan.countsEveryMatch && plan.refinement == .none)
        #expect(!plan.keepsFirstAnswer)
    }

    @Test func aLongRequestOnOneIndexReadsFeedbackFromItsFirstAnswer() {
        let plan = RetrievalPlan(SearchRequest("a long request"), round: nil, distinctTerms: Self.long, hasPhrase: false)
        #expect(plan.refinement == .localFeedback && plan.searched == RelevanceFeedback.depth && plan.depth == RelevanceFeedback.depth)
        var typing = SearchRequest("a long request")
        typing.typing = true
        #expect(RetrievalPlan(typing, round: nil, distinctTerms: Self.long, hasPhrase: false).refinement == .none, "not while typing")
    }

    /// A shard never picks feedback words from its own documents: the router's rounds do.
    @Test func aShardFollowsItsRoutersRounds() {
        let statistics = CorpusStatistics()
        let request = SearchRequest("a long request")
        let plain = RetrievalPlan(request, round: ShardRound(statistics: statistics), distinctTerms: Self.long, hasPhrase: false)
        #expect(plain.refinement == .none && plain.searched == plain.k)
        let first = RetrievalPlan(request, round: ShardRound(statistics: statistics, feedback: .firstStage), distinctTerms: Self.long, hasPhrase: false)
        #expect(first.refinement == .reportFirstStage && first.searched == RelevanceFeedback.depth && first.keepsFirstAnswer)
        let terms = [RelevanceFeedback.Term(token: Array("tart".utf8), weight: 0.5)]
        let rescore = RetrievalPlan(request, round: ShardRound(statistics: statistics, feedback: .rescore(terms: terms, depth: 120)),
                                    distinctTerms: Self.long, hasPhrase: false)
        #expect(rescore.refinement == .rescore(terms: terms) && rescore.searched == 120 && rescore.keepsFirstAnswer)
        let short = RetrievalPlan(request, round: ShardRound(statistics: statistics, feedback: .firstStage), distinctTerms: 2, hasPhrase: false)
        #expect(short.refinement == .none, "feedback does not fit a short request")
    }

    @Test func facetsCountEveryMatchUnlessAPhraseAsksForCandidates() {
        var request = SearchRequest("lemon")
        request.facets = [.contentType]
        let every = RetrievalPlan(request, round: nil, distinctTerms: 1, hasPhrase: false)
        #expect(every.countsEveryMatch && every.depth == every.k, "the page's candidates only: the postings count the rest")
        let phrase = RetrievalPlan(request, round: nil, distinctTerms: 1, hasPhrase: true)
        #expect(!phrase.countsEveryMatch && phrase.depth == Facet.candidates)
        request.facets = []
        request.sort = .distance
        #expect(RetrievalPlan(request, round: nil, distinctTerms: 1, hasPhrase: false).depth == Facet.candidates)
    }
}
