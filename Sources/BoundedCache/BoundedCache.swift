import Synchronization

/// A ``BoundedStore`` shared between threads (one lock), its ages on the process's
/// monotonic clock. Values are copied out, so a large value should be a class or a
/// copy-on-write array.
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let store: Mutex<BoundedStore<Key, Value>>
    /// Whether entries age: only then is the clock read (a lookup on a hot path, as the
    /// postings', would pay for it on every call).
    private let ages: Bool

    public init(capacityBytes: Int = .max, capacityEntries: Int = .max, maximumAge: Double? = nil) {
        store = Mutex(BoundedStore(capacityBytes: capacityBytes, capacityEntries: capacityEntries, maximumAge: maximumAge))
        ages = maximumAge != nil
    }

    /// Seconds on the monotonic clock since the first cache was made; 0 for a cache whose
    /// entries do not age.
    private var now: Double {
        guard ages else { return 0 }
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
        let time = now
        return store.withLock { $0.use(key, at: time) }
    }

    /// The value of `key`, marked used, or the one `make` makes, kept as `bytes` of the
    /// budget — under the lock, so that two threads asking at once get the same value.
    public func value(_ key: Key, bytes: Int = 0, orMaking make: () -> Value) -> Value {
        let time = now
        return store.withLock { store in
            if let known = store.use(key, at: time) { return known }
            let made = make()
            store.insert(made, bytes: bytes, for: key, at: time)
            return made
        }
    }

    /// Keeps `value` as `bytes` of the budget (a value larger than the whole budget is not
    /// kept), evicting what does not fit.
    public func insert(_ value: Value, bytes: Int, for key: Key) {
        let time = now
        store.withLock { $0.insert(value, bytes: bytes, for: key, at: time) }
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
