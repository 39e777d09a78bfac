import SearchIndex
import TextUtilities

/// One part of the index split `count` ways: an item belongs to the shard its owner-scoped
/// identity hashes to — 64-bit FNV-1a of the stored owner, a zero byte and the identifier,
/// modulo the count — so every node and version agrees where an item lives without asking.
/// Decided here and nowhere else.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// The most shards a store can be split into.
    public static let maximumCount = 1024
    /// The whole index: what a node holds unless told a shard.
    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    /// From 0 to `count - 1`.
    public let index: Int
    public let count: Int

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public init?(index: Int, count: Int) {
        guard (1...Self.maximumCount).contains(count), (0..<count).contains(index) else { return nil }
        self.init(uncheckedIndex: index, count: count)
    }

    /// `K/N`, as `serve --shard` takes it: shard K (from 0) of N.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    public var isWhole: Bool { count == 1 }

    /// The shard of `count` that holds `key`.
    public static func number(of key: ItemKey, count: Int) -> Int {
        var hash = FNV1a.offset
        for byte in key.storedOwner.utf8 { hash = FNV1a.add(byte, to: hash) }
        hash = FNV1a.add(0, to: hash)
        for byte in key.identifier.utf8 { hash = FNV1a.add(byte, to: hash) }
        return Int(hash % UInt64(count))
    }

    public func holds(_ key: ItemKey) -> Bool {
        count == 1 || Self.number(of: key, count: count) == index
    }
}
