/// Values by key within a budget of bytes and of entries, and optionally of age: the one
/// bounded-cache policy of the project, as a value (not thread-safe: its owner locks it;
/// ``BoundedCache`` is the shared, locked form).
///
/// Eviction is second chance (CLOCK), an approximation of least-recently-used at O(1)
/// amortized: entries queue in the order they were stored; an entry used since it was
/// queued is spared once and queued again, the first one not used goes. Memory: the
/// entries, and a queue of at most twice their count plus 1,024 (key, stamp) pairs.
public struct BoundedStore<Key: Hashable, Value> {
    private struct Slot {
        var value: Value
        var bytes: Int
        var storedAt: Double
        var stamp: Int
        var used = false
    }

    /// Bytes the entries may take together (as their owners count them).
    public var capacityBytes: Int {
        didSet { evict(toFit: 0, entries: 0) }
    }

    /// Entries kept at most.
    public let capacityEntries: Int
    /// Seconds an entry is served after it was stored; nil: no limit. Times are the caller's
    /// (`at:`), in any clock it uses consistently.
    public let maximumAge: Double?

    private var slots: [Key: Slot] = [:]
    private var queue: [(key: Key, stamp: Int)] = []
    private var queueStart = 0
    private var nextStamp = 0
    public private(set) var bytes = 0

    public init(capacityBytes: Int = .max, capacityEntries: Int = .max, maximumAge: Double? = nil) {
        self.capacityBytes = max(0, capacityBytes)
        self.capacityEntries = max(0, capacityEntries)
        self.maximumAge = maximumAge
    }

    public var count: Int { slots.count }
    public var isEmpty: Bool { slots.isEmpty }
    public var keys: some Collection<Key> { slots.keys }

    /// The value of `key` without marking it used; nil when absent or past its age at `time`.
    public func peek(_ key: Key, at time: Double = 0) -> Value? {
        guard let slot = slots[key], isFresh(slot, at: time) else { return nil }
        return slot.value
    }

    /// The value of `key`, marked used (spared once by eviction); nil when absent, or past
    /// its age at `time` (then dropped).
    public mutating func use(_ key: Key, at time: Double = 0) -> Value? {
        guard let slot = slots[key] else { return nil }
        guard isFresh(slot, at: time) else {
            remove(key)
            return nil
        }
        if !slot.used { slots[key]?.used = true }
        return slot.value
    }

    /// Keeps `value` as `bytes` of the budget, stored at `time`, replacing what `key` held;
    /// evicts until it fits. A value larger than the whole budget is not kept (and `key`'s
    /// old value is dropped).
    public mutating func insert(_ value: Value, bytes: Int, for key: Key, at time: Double = 0) {
        remove(key)
        guard bytes <= capacityBytes, capacityEntries > 0 else { return }
        evict(toFit: bytes, entries: 1)
        slots[key] = Slot(value: value, bytes: bytes, storedAt: time, stamp: nextStamp)
        queue.append((key, nextStamp))
        nextStamp += 1
        self.bytes += bytes
        compactQueue()
    }

    /// Changes the value of `key` in place (its size, age and place kept); false when absent.
    @discardableResult
    public mutating func update(_ key: Key, _ change: (inout Value) -> Void) -> Bool {
        guard slots[key] != nil else { return false }
        change(&slots[key]!.value)
        return true
    }

    /// Changes every value in place.
    public mutating func updateAll(_ change: (Key, inout Value) -> Void) {
        for index in slots.indices { change(slots.keys[index], &slots.values[index].value) }
    }

    public mutating func remove(_ key: Key) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        bytes -= slot.bytes
    }

    /// Drops every entry `isDead` says is gone.
    public mutating func removeAll(where isDead: (Key, Value) -> Bool) {
        var dead: [Key] = []
        for index in slots.indices where isDead(slots.keys[index], slots.values[index].value) { dead.append(slots.keys[index]) }
        for key in dead { remove(key) }
    }

    /// Drops every entry whose key `isDead` says is gone, without reading the values.
    public mutating func removeAll(whereKey isDead: (Key) -> Bool) {
        var dead: [Key] = []
        for key in slots.keys where isDead(key) { dead.append(key) }
        for key in dead { remove(key) }
    }

    public mutating func removeAll() {
        slots.removeAll(keepingCapacity: true)
        queue = []
        queueStart = 0
        bytes = 0
    }

    /// Every entry, in no order.
    public func forEach(_ body: (Key, Value) throws -> Void) rethrows {
        for (key, slot) in slots { try body(key, slot.value) }
    }

    private func isFresh(_ slot: Slot, at time: Double) -> Bool {
        guard let maximumAge else { return true }
        return time - slot.storedAt < maximumAge
    }

    /// Evicts until `incoming` more bytes and `entries` more entries fit.
    private mutating func evict(toFit incoming: Int, entries: Int) {
        while bytes + incoming > capacityBytes || slots.count + entries > capacityEntries, evictOne() {}
    }

    private mutating func evictOne() -> Bool {
        while queueStart < queue.count {
            let (key, stamp) = queue[queueStart]
            queueStart += 1
            guard let slot = slots[key], slot.stamp == stamp else { continue }
            if slot.used {
                slots[key]!.used = false
                slots[key]!.stamp = nextStamp
                queue.append((key, nextStamp))
                nextStamp += 1
                continue
            }
            remove(key)
            return true
        }
        return false
    }

    /// Drops the queue's pairs of entries gone or queued again, once they outnumber the
    /// entries twice over.
    private mutating func compactQueue() {
        guard queue.count - queueStart > 2 * slots.count + 1024 else { return }
        queue = queue[queueStart...].filter { slots[$0.key]?.stamp == $0.stamp }
        queueStart = 0
    }
}
