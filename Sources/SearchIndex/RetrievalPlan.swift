import SearchModel

/// How many candidates a ranked search collects and what it does with them, decided from
/// the request and the router's round before any posting is read: the plan step of
/// ``IndexSearch``'s plan → collect → refine → rank → page. A pure value, tested alone.
struct RetrievalPlan: Equatable {
    /// What reorders the first stage's candidates before they are ranked.
    enum Refinement: Equatable {
        case none
        /// A long request on one index: its leading first-stage documents' shared words are
        /// added and the candidates scored again (``RelevanceFeedback``).
        case localFeedback
        /// A router's first round: the best ``RelevanceFeedback/depth`` first-stage
        /// candidates are reported (and kept for the next round).
        case reportFirstStage
        /// A router's second round: the first stage (kept, or searched again) scored again
        /// with the router's words.
        case rescore(terms: [RelevanceFeedback.Term])
    }

    /// Candidates the page is cut from (``ResultOrder/candidates(offset:limit:)``).
    var k: Int
    /// Candidates of the first stage that refinement reads.
    var searched: Int
    /// Candidates collected: facets counted over candidates need ``Facet/candidates`` of them.
    var depth: Int
    /// Facets are counted over every match (``MatchCollector``), not over the candidates.
    var countsEveryMatch: Bool
    var refinement: Refinement

    /// - Parameters:
    ///   - distinctTerms: the plan's distinct terms (feedback needs ``RelevanceFeedback/minimumTerms``).
    ///   - hasPhrase: a clause holds a phrase, whose postings cannot say where words stand,
    ///     so facets are counted over candidates.
    init(_ request: SearchRequest, round: ShardRound?, distinctTerms: Int, hasPhrase: Bool) {
        k = ResultOrder.candidates(offset: request.offset, limit: request.limit)
        // A shard never chooses feedback words itself: they would come from its own
        // documents, not the whole index's; its router's rounds run feedback over every shard.
        let feedbackFits = !request.typing && request.sort == .relevance && distinctTerms >= RelevanceFeedback.minimumTerms
        let routed = round?.statistics != nil
        switch (feedbackFits, routed, round?.feedback) {
        case (true, false, _):
            refinement = .localFeedback
            searched = max(k, RelevanceFeedback.depth)
        case (true, true, .firstStage?):
            refinement = .reportFirstStage
            searched = max(k, RelevanceFeedback.depth)
        case (true, true, .rescore(let terms, let depth)?):
            refinement = .rescore(terms: terms)
            searched = depth
        default:
            refinement = .none
            searched = k
        }
        countsEveryMatch = !request.facets.isEmpty && !hasPhrase
        depth = (request.facets.isEmpty || countsEveryMatch) && request.sort == .relevance ? searched : max(searched, Facet.candidates)
    }

    /// The round's refinement reads a first answer kept between a router's rounds.
    var keepsFirstAnswer: Bool {
        switch refinement {
        case .reportFirstStage, .rescore: true
        case .none, .localFeedback: false
        }
    }
}
