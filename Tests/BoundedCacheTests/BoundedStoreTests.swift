import BoundedCache
import Testing

/// The one bounded-cache policy: budgets of bytes, entries and age, second-chance eviction.
@Suite struct BoundedStoreTests {
    @Test func theByteBudgetEvictsTheOldestNotUsedSinceItWasStored() {
        var store = BoundedStore<String, Int>(capacityBytes: 30)
        store.insert(1, bytes: 10, for: "a")
        store.insert(2, bytes: 10, for: "b")
        store.insert(3, bytes: 10, for: "c")
        #expect(store.use("a") == 1, "a is used: spared once")
        store.insert(4, bytes: 10, for: "d")
        #expect(store.peek("b") == nil, "b, the oldest not used, went")
        #expect(store.peek("a") == 1 && store.peek("c") == 3 && store.peek("d") == 4)
        #expect(store.bytes == 30 && store.count == 3)
        store.insert(5, bytes: 25, for: "e")
        #expect(store.bytes <= 30 && store.peek("e") == 5)
    }

    @Test func aValueLargerThanTheBudgetIsNotKeptAndDropsTheOldOne() {
        var store = BoundedStore<String, Int>(capacityBytes: 10)
        store.insert(1, bytes: 5, for: "a")
        store.insert(2, bytes: 11, for: "a")
        #expect(store.peek("a") == nil && store.bytes == 0)
    }

    @Test func theEntryBudgetAndTheAgeHold() {
        var store = BoundedStore<Int, Int>(capacityEntries: 2, maximumAge: 10)
        store.insert(1, bytes: 0, for: 1, at: 0)
        store.insert(2, bytes: 0, for: 2, at: 5)
        store.insert(3, bytes: 0, for: 3, at: 6)
        #expect(store.count == 2 && store.peek(1, at: 6) == nil)
        #expect(store.use(2, at: 14.9) == 2)
        #expect(store.use(2, at: 15) == nil, "stored at 5, served until 15")
        #expect(store.count == 1, "an entry found too old is dropped")
    }

    @Test func loweringTheBudgetEvictsAtOnceAndUpdatesKeepThePlace() {
        var store = BoundedStore<Int, [Int]>(capacityBytes: 100)
        for key in 0..<10 { store.insert([key], bytes: 10, for: key) }
        #expect(store.update(3) { $0.append(30) })
        #expect(!store.update(42) { $0.append(0) })
        store.updateAll { key, value in value.append(key) }
        #expect(store.peek(3) == [3, 30, 3])
        store.capacityBytes = 50
        #expect(store.bytes == 50 && store.count == 5 && store.peek(0) == nil && store.peek(9) == [9, 9])
        store.removeAll { key, _ in key % 2 == 1 }
        #expect(Set(store.keys) == [6, 8])
    }

    /// Many insertions with one entry always used: the queue of stamps stays bounded and the
    /// used entry stays.
    @Test func aHotEntryStaysThroughManyInsertions() {
        var store = BoundedStore<Int, Int>(capacityEntries: 8)
        store.insert(-1, bytes: 1, for: -1)
        for key in 0..<100_000 {
            _ = store.use(-1)
            store.insert(key, bytes: 1, for: key)
        }
        #expect(store.peek(-1) == -1 && store.count == 8 && store.bytes == 8)
    }

    @Test func theSharedCacheCountsWhatItHolds() {
        let cache = BoundedCache<String, [UInt8]>(capacityBytes: 8)
        cache.insert([1, 2, 3, 4], bytes: 4, for: "a")
        cache.insert([5, 6, 7, 8], bytes: 4, for: "b")
        #expect(cache.value("a") == [1, 2, 3, 4])
        cache.insert([9], bytes: 1, for: "c")
        #expect(cache.value("b") == nil && cache.usage.entries == 2 && cache.usage.bytes == 5)
        cache.removeAll { $0 == "a" }
        #expect(cache.usage.entries == 1)
    }
}
