import Foundation
import WebRules

/// How soon a fetched URL is due again. Each URL keeps its own interval: the first one
/// comes from the sitemap's `changefreq` (a day without one); after each fetch it halves
/// when the content changed and grows by half when it did not (a 304, or the same
/// digest), always within `minimum`…`maximum` (an hour to 30 days by default). A sitemap
/// `lastmod` newer than the last fetch makes the URL due at once (see `Frontier`).
public struct RevisitSchedule: Sendable, Equatable {
    public var minimum: TimeInterval = 3600
    public var maximum: TimeInterval = 30 * 86_400
    /// For a URL fetched for the first time without a sitemap `changefreq`.
    public var initial: TimeInterval = 86_400
    public var shrinkFactor = 0.5
    public var growthFactor = 1.5
    /// A 404 or 410 is looked at again after this long, in case the page comes back.
    public var goneInterval: TimeInterval = 7 * 86_400

    public init() {}

    /// The interval after a fetch: `previous` is nil for a URL fetched for the first time.
    public func interval(after previous: TimeInterval?, changed: Bool, changeFrequency: Sitemap.ChangeFrequency?) -> TimeInterval {
        let next: TimeInterval
        if let previous {
            next = previous * (changed ? shrinkFactor : growthFactor)
        } else {
            next = changeFrequency?.interval ?? initial
        }
        return min(max(next, minimum), maximum)
    }

    /// Retries of a transient failure: an hour, doubling per failure, at most a day.
    public func retryDelay(afterFailures failures: Int) -> TimeInterval {
        min(3600 * pow(2, Double(max(0, failures - 1))), 86_400)
    }
}
