import Synchronization

/// A cache of values by key within a byte budget: the least recently used entries go first
/// when an insertion passes ``capacityBytes``. Safe to share between threads (one lock);
/// values are copied out, so a large value should be a class or a copy-on-write array.
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var bytes: Int
        var used: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
        var bytes = 0
    }

    public let capacityBytes: Int
    private let state = Mutex(State())

    public init(capacityBytes: Int) {
        self.capacityBytes = max(0, capacityBytes)
    }

    /// The value of `key`, now the most recently used; nil when absent.
    public func value(_ key: Key) -> Value? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.used = state.clock
            state.entries[key] = entry
            return entry.value
        }
    }

    /// Keeps `value` as `bytes` of the budget (a value larger than the whole budget is not
    /// kept), dropping the least recently used entries past it.
    public func insert(_ value: Value, bytes: Int, for key: Key) {
        guard bytes <= capacityBytes else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries[key] { state.bytes -= old.bytes }
            state.entries[key] = Entry(value: value, bytes: bytes, used: state.clock)
            state.bytes += bytes
            while state.bytes > capacityBytes, let oldest = state.entries.min(by: { $0.value.used < $1.value.used }) {
                state.bytes -= oldest.value.bytes
                state.entries[oldest.key] = nil
            }
        }
    }

    /// Drops every entry whose key `isDead` says is gone (a merged-away segment's, a closed file's).
    public func removeAll(where isDead: (Key) -> Bool) {
        state.withLock { state in
            for key in state.entries.keys where isDead(key) {
                state.bytes -= state.entries[key]?.bytes ?? 0
                state.entries[key] = nil
            }
        }
    }

    /// Entries and bytes held.
    public var usage: (entries: Int, bytes: Int) { state.withLock { ($0.entries.count, $0.bytes) } }
}
