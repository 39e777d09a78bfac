import Items
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

    /// The hash an item's shard comes from: FNV-1a of its stored owner, a zero byte and its
    /// identifier. Stores keep it with each row (``sqlCondition(hashColumn:)``).
    public static func hash(of key: ItemKey) -> UInt64 {
        var hash = FNV1a.offset
        for byte in key.storedOwner.utf8 { hash = FNV1a.add(byte, to: hash) }
        hash = FNV1a.add(0, to: hash)
        for byte in key.identifier.utf8 { hash = FNV1a.add(byte, to: hash) }
        return hash
    }

    /// The shard of `count` that holds `key`.
    public static func number(of key: ItemKey, count: Int) -> Int {
        Int(hash(of: key) % UInt64(count))
    }

    /// A SQL condition true for rows of this shard, given a column holding ``hash(of:)`` as
    /// a signed 64-bit integer (its bit pattern); rows whose column is NULL (written before
    /// stores kept it) pass, for the reader to check with ``holds(_:)``. SQL's `%` keeps the
    /// dividend's sign and knows no unsigned integers, so the unsigned remainder is rebuilt:
    /// (h mod N, made non-negative) plus 2^64 mod N for a negative h, mod N.
    public func sqlCondition(hashColumn column: String) -> String {
        guard count > 1 else { return "true" }
        let wrap = (UInt64.max % UInt64(count) + 1) % UInt64(count)
        return "(\(column) IS NULL OR ((\(column) % \(count) + \(count)) % \(count) + CASE WHEN \(column) < 0 THEN \(wrap) ELSE 0 END) % \(count) = \(index))"
    }

    public func holds(_ key: ItemKey) -> Bool {
        count == 1 || Self.number(of: key, count: count) == index
    }
}
