import FoundationEssentials

/// One atomic write to an item store (``SearchIndex``, PostgreSQL's items): upserts,
/// deletions and, optionally, the indexer's client state.
///
/// Items are identified by owner and identifier (``ItemKey``). A batch is written by
/// one ``owner`` — an API key's owner, or nil for the operator (the crawler, the
/// command line) — and its identifiers, domains and confirmations name that owner's
/// items only: a tenant's `tart` and the operator's `tart` are different items, and
/// nobody's write can replace or delete another's. Its upserts are ``ValidItem``s: what a
/// store writes has been through the item contract.
public struct ItemBatch: Sendable {
    public var upserts: [ValidItem] = []
    /// Identifiers of the writer's items to delete.
    public var deleteIdentifiers: [String] = []
    /// Items to delete by their whole key; for the operator's writes only (a search
    /// copy following a shared store, which deletes every owner's items).
    public var deleteKeys: [ItemKey] = []
    public var deleteDomains: [String] = []
    /// The writer's items confirmed unchanged (a 304): their expiration moves to the given date.
    public var confirmations: [String: Date] = [:]
    /// Store this state (at most ``maximumClientStateBytes``) with the batch under ``clientStateName``.
    public var clientState: [UInt8]?
    public var clientStateName = "default"
    /// Commit only if the stored state equals this (compare-and-swap); `.some(nil)`
    /// expects no state yet.
    public var expectedClientState: [UInt8]??
    /// Who writes: an API key's owner, whose upserts are all its own whatever they say;
    /// nil for the operator, whose upserts keep the owner they carry (a search copy
    /// writes every owner's items) and whose deletions name the operator's items.
    public var owner: String?

    public static let maximumClientStateBytes = 250

    public init(upserts: [ValidItem] = [], deleteIdentifiers: [String] = [], deleteDomains: [String] = []) {
        self.upserts = upserts
        self.deleteIdentifiers = deleteIdentifiers
        self.deleteDomains = deleteDomains
    }

    /// A batch of `items`, each held to the contract under `policy` (by default as a
    /// store hands items back: within every rule, or refused); the first that breaks a rule
    /// is thrown.
    public init(validating items: [SearchableItem], as policy: SearchableItem.Policy = .relayed, now: Date = Date()) throws(SearchableItem.Problem) {
        var valid: [ValidItem] = []
        valid.reserveCapacity(items.count)
        for item in items { valid.append(try item.validated(policy, now: now)) }
        self.init(upserts: valid)
    }

    /// The upserts as they are stored: a key owner's are its own.
    public var ownedUpserts: [SearchableItem] {
        guard let owner else { return upserts.map(\.item) }
        return upserts.map { $0.owned(by: owner).item }
    }

    /// Why a store refuses a batch before writing anything.
    public enum Refusal: Sendable, Equatable {
        /// The client state is over ``ItemBatch/maximumClientStateBytes``.
        case clientStateTooLarge(bytes: Int)
        /// A key owner's batch deletes by key an item of another owner.
        case othersItems

        public var message: String {
            switch self {
            case .clientStateTooLarge(let bytes): "client state is \(bytes) bytes; at most \(ItemBatch.maximumClientStateBytes) are kept"
            case .othersItems: "a key's owner may delete only its own items"
            }
        }
    }

    /// The rule the batch breaks, checked by every store before it writes; nil when none.
    public var refusal: Refusal? {
        if let state = clientState, state.count > Self.maximumClientStateBytes { return .clientStateTooLarge(bytes: state.count) }
        if let owner, deleteKeys.contains(where: { $0.owner != owner }) { return .othersItems }
        return nil
    }
}
