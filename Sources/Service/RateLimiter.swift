import FoundationEssentials
import ServiceAPI
import Synchronization

/// Token buckets by name (a client network, an API key): each holds up to `burst` tokens
/// and gains `rate` a second; a request spends some or is refused. At most `capacity`
/// names are tracked: when full, names whose bucket has refilled (which behave as new
/// ones) are forgotten, and if none has, a new name is refused — under a flood of new
/// names the limiter fails closed, and memory stays bounded.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let burst: Double
    let rate: Double
    let capacity: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(burst: Double, perSecond rate: Double, capacity: Int = 100_000) {
        self.burst = burst
        self.rate = rate
        self.capacity = capacity
    }

    /// Spends `cost` tokens of `name`'s bucket at `now` (seconds); false, and nothing
    /// spent, when it does not hold that many. The seconds until it would is `retryAfter`.
    func allow(_ name: String, cost: Double = 1, now: Double) -> (allowed: Bool, retryAfter: Double) {
        buckets.withLock { buckets in
            var bucket = buckets[name] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * rate)
            bucket.updated = now
            guard bucket.tokens >= cost else {
                if buckets[name] != nil { buckets[name] = bucket }
                return (false, rate > 0 ? (cost - bucket.tokens) / rate : .infinity)
            }
            bucket.tokens -= cost
            if buckets[name] == nil, buckets.count >= capacity {
                buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < burst }
                guard buckets.count < capacity else { return (false, 1) }
            }
            buckets[name] = bucket
            return (true, 0)
        }
    }
}
