import SearchModel

/// What the engine answers a search with: the response a person sees, what it was computed
/// from (a result cache drops it when a change touches that), and on a router's shard asked
/// for its part of feedback, its best first-stage candidates.
public struct SearchAnswer: Sendable {
    public var response: SearchResponse
    public var dependencies: AnswerDependencies
    /// The best ``RelevanceFeedback/depth`` first-stage candidates, best first, when a
    /// router's round asked for them (``RoutedFeedback/firstStage``) and feedback applies.
    public var firstStage: [FirstStageCandidate]?

    public init(response: SearchResponse, dependencies: AnswerDependencies, firstStage: [FirstStageCandidate]? = nil) {
        self.response = response
        self.dependencies = dependencies
        self.firstStage = firstStage
    }
}
