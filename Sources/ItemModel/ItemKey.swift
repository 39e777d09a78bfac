import TextUtilities

/// An item's identity: its owner and its identifier. Two tenants may both push `tart`;
/// each sees, replaces and deletes its own. Items no key wrote — crawled pages, items
/// added or ingested from the command line — belong to the operator (`owner` nil), and a
/// crawled page's identifier is its canonical URL under the operator.
public struct ItemKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The API key owner; nil for the operator.
    public var owner: String?
    public var identifier: String

    public init(owner: String?, identifier: String) {
        self.owner = owner
        self.identifier = identifier
    }

    /// How the owner is stored: the operator as the empty string, which no key owner can
    /// be (owner names have 1–64 characters), so that (owner, identifier) can be unique.
    public var storedOwner: String { owner ?? "" }

    /// The owner as read back from a store.
    public static func owner(stored: String?) -> String? {
        guard let stored, !stored.isEmpty else { return nil }
        return stored
    }

    public static func < (lhs: ItemKey, rhs: ItemKey) -> Bool {
        (lhs.storedOwner, lhs.identifier) < (rhs.storedOwner, rhs.identifier)
    }

    public var description: String { owner.map { "\($0)/\(identifier)" } ?? identifier }

    /// The item's place among results of equal score: a 64-bit hash of its stored owner and
    /// identifier (FNV-1a, then SplitMix64's finalizer so that similar identifiers spread),
    /// the same on every node, in every segment and after every merge. Results order by
    /// score, then by this key ascending (then, within one index, by rowid — which only two
    /// keys colliding in 64 bits would reach): one total order that pages, repeated calls
    /// and a router over shards all agree on.
    public var orderKey: UInt64 {
        var hash = FNV1a()
        hash.add(storedOwner)
        hash.add(identifier)
        return SplitMix64.mix(hash.value)
    }
}

extension SearchableItem {
    public var key: ItemKey { ItemKey(owner: owner, identifier: uniqueIdentifier) }
}
