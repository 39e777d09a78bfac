/// What one anonymous report on one item counted.
public struct AnonymousEngagement: Sendable, Hashable {
    public var impression: Bool
    public var click: Bool

    public init(impression: Bool, click: Bool) {
        self.impression = impression
        self.click = click
    }
}
