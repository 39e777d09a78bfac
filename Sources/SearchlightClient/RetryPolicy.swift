import Foundation

/// When a call is tried again: on 429 and 503 only (the server did nothing with the
/// request), after the server's `Retry-After` when it gave one, else after a delay that
/// doubles from ``initialDelay`` with jitter, never past ``maximumDelay``, at most
/// ``attempts`` tries in all. A decision of values, tested alone.
public struct RetryPolicy: Sendable, Equatable {
    /// Tries in all, the first included; 1 never retries.
    public var attempts: Int
    public var initialDelay: TimeInterval
    public var maximumDelay: TimeInterval

    public init(attempts: Int = 4, initialDelay: TimeInterval = 0.5, maximumDelay: TimeInterval = 30) {
        self.attempts = max(1, attempts)
        self.initialDelay = max(0, initialDelay)
        self.maximumDelay = max(0, maximumDelay)
    }

    /// No retries.
    public static let none = RetryPolicy(attempts: 1)

    /// The seconds to wait before try `attempt + 1` after try `attempt` (1-based) answered
    /// `status` with `retryAfter` (the header's value); nil: do not try again. `jitter` in
    /// 0…1 spreads clients that failed together.
    public func delay(afterAttempt attempt: Int, status: Int, retryAfter: String?, jitter: Double) -> TimeInterval? {
        guard status == 429 || status == 503, attempt < attempts else { return nil }
        if let retryAfter, let seconds = Double(retryAfter.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0 {
            // RFC 9110 §10.2.3: delay-seconds; an HTTP-date is not honoured (clocks differ).
            return min(seconds, maximumDelay)
        }
        let doubled = initialDelay * pow(2, Double(attempt - 1))
        return min(maximumDelay, doubled * (0.5 + 0.5 * min(1, max(0, jitter))))
    }
}
