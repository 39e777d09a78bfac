import Synchronization

/// A ``BoundedStore`` shared between threads (one lock), its ages on the process's
/// monotonic clock. Values are copied out, so a large value should be a class or a
/// copy-on-write array.
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let store: Mutex<BoundedStore<Key, Value>>

    public init(capacityBytes: Int = .max, capacityEntries: Int = .max, maximumAge: Double? = nil) {
        store = Mutex(BoundedStore(capacityBytes: capacityBytes, capacityEntries: capacityEntries, maximumAge: maximumAge))
    }

    /// Seconds on the monotonic clock since the first cache was made.
    private static var now: Double {
        let elapsed = ContinuousClock.now - processStart
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The byte budget; lowering it evicts at once.
    public var capacityBytes: Int {
        get { store.withLock { $0.capacityBytes } }
        set { store.withLock { $0.capacityBytes = max(0, newValue) } }
    }

    /// The value of `key`, marked used; nil when absent or past its age.
    public func value(_ key: Key) -> Value? {
        let now = Self.now
        return store.withLock { $0.use(key, at: now) }
    }

    /// The value of `key`, marked used, or the one `make` makes, kept as `bytes` of the
    /// budget — under the lock, so that two threads asking at once get the same value.
    public func value(_ key: Key, bytes: Int = 0, orMaking make: () -> Value) -> Value {
        let now = Self.now
        return store.withLock { store in
            if let known = store.use(key, at: now) { return known }
            let made = make()
            store.insert(made, bytes: bytes, for: key, at: now)
            return made
        }
    }

    /// Keeps `value` as `bytes` of the budget (a value larger than the whole budget is not
    /// kept), evicting what does not fit.
    public func insert(_ value: Value, bytes: Int, for key: Key) {
        let now = Self.now
        store.withLock { $0.insert(value, bytes: bytes, for: key, at: now) }
    }

    /// Drops every entry whose key `isDead` says is gone (a merged-away segment's, a closed file's).
    public func removeAll(where isDead: @Sendable (Key) -> Bool) {
        store.withLock { $0.removeAll(whereKey: isDead) }
    }

    /// Entries and bytes held.
    public var usage: (entries: Int, bytes: Int) { store.withLock { ($0.count, $0.bytes) } }
}

/// When the process's first cache read the clock: ages are measured from here.
private let processStart = ContinuousClock.now
