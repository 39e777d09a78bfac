import SearchModel

extension RelevanceFeedback {
    /// Distinct query terms from which a request's answer is scored again.
    static let minimumTerms = 2 * QueryPlan.bonusTerms + 1
}
