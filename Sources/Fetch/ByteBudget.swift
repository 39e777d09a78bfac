import Synchronization

/// Bytes that several requests' bodies share: each chunk a transfer receives is taken from
/// its request's budgets before it is kept, and a transfer whose chunk does not fit fails
/// (``FetchError/Kind/tooLarge``). Bytes are given back only by whoever holds the body
/// (``give(_:)``): a budget that is never given back bounds what a set of requests reads in
/// all, one that is given back once each body is let go bounds what they hold at once.
public final class ByteBudget: Sendable {
    public let limit: Int
    private let taken = Atomic<Int>(0)

    public init(_ limit: Int) {
        self.limit = max(0, limit)
    }

    /// Takes `bytes` when they fit; false, and nothing taken, when they do not.
    public func take(_ bytes: Int) -> Bool {
        var current = taken.load(ordering: .relaxed)
        while true {
            guard bytes <= limit - current else { return false }
            let (exchanged, original) = taken.compareExchange(expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    public func give(_ bytes: Int) {
        taken.subtract(bytes, ordering: .relaxed)
    }

    /// Bytes taken and not given back.
    public var held: Int { taken.load(ordering: .relaxed) }
}
