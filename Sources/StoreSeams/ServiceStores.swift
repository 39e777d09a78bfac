import Foundation
import Items

/// Where the service writes items, and reads what a write must check. The embedded
/// ``SearchIndex`` is one; PostgreSQL (multi-machine mode) is another, whose writes reach
/// each node's search copy through its change log.
public protocol ItemStore: Sendable {
    /// One atomic write, with the owner and client-state rules of ``ItemBatch``.
    @discardableResult
    func commit(_ batch: ItemBatch, now: Date) throws -> (upserted: Int, deleted: Int)
    @discardableResult
    func deleteAll(owner: String?) throws -> Int
    func clientState(batch name: String) throws -> [UInt8]?
    func item(_ key: ItemKey) throws -> SearchableItem?
    /// The keys of the items with this identifier, whoever owns them (at most `limit`).
    func keys(identifier: String, limit: Int) throws -> [ItemKey]
    /// Adds impressions and clicks reported with a key; nothing for an item that is gone.
    func recordEngagement(_ key: ItemKey, impressions: Int, clicks: Int) throws
    /// One client network's impression and click of an item on `day`, each counted at
    /// most once a day (as the embedded index's `recordAnonymousEngagement` counts them).
    func recordAnonymousEngagement(_ key: ItemKey, network: [UInt8], day: Int, impression: Bool, click: Bool) throws -> AnonymousEngagement
}

/// Where the service keeps API keys and activity reports: `service.sqlite`
/// (``ServiceStore``) or PostgreSQL.
public protocol KeyStore: Sendable {
    func createKey(owner: String, domain: String, now: Date) throws -> (key: APIKey, secret: String)
    func keys() throws -> [APIKey]
    /// False when there is no such key.
    func revokeKey(id: String, now: Date) throws -> Bool
    /// The key a bearer token's secret matches — a revoked one too, for the caller to refuse
    /// by name (only a holder of the secret learns that it was revoked) — or nil.
    func authenticate(_ token: String) throws -> APIKey?
    /// The secret salt device ids and networks are hashed with, made on first use.
    func deviceSalt() throws -> [UInt8]
    /// Records that a device reported an owner's activity from a network; a device keeps
    /// the network it first reported from. Activities are the owner's: another owner's
    /// activity of the same id is another activity.
    func recordActivity(id: String, owner: String, type: String, webpageURL: String, deviceHash: [UInt8], networkHash: [UInt8],
                        now: Date) throws -> ActivityReach
}

extension KeyStore {
    public func createKey(owner: String, domain: String) throws -> (key: APIKey, secret: String) {
        try createKey(owner: owner, domain: domain, now: Date())
    }

    public func revokeKey(id: String) throws -> Bool {
        try revokeKey(id: id, now: Date())
    }
}

/// How many distinct devices, and from how many distinct networks, reported an activity.
public struct ActivityReach: Sendable, Equatable {
    public var devices: Int
    public var networks: Int

    public init(devices: Int, networks: Int) {
        self.devices = devices
        self.networks = networks
    }
}

/// A search copy fed from elsewhere (a node in multi-machine mode): how far behind it
/// is, and a way to bring it up to date after a write so the writer reads its write.
public protocol SearchReplica: Sendable {
    /// Seconds since the copy last reached the end of the change log; nil before it ever did.
    var lag: TimeInterval? { get }
    /// Applies what the log holds now.
    func catchUp() throws
}

extension APIKey {
    /// A new key's id, secret and the token a client sends (`slk_<id>_<secret>`).
    public static func issue() -> (id: String, secret: String, token: String) {
        let id = SHA256.hex(SHA256.randomBytes(6))
        let secret = SHA256.hex(SHA256.randomBytes(32))
        return (id, secret, prefix + id + "_" + secret)
    }

    /// The id and secret of a token, or nil when it is not shaped like one.
    public static func parse(token: String) -> (id: String, secret: String)? {
        guard token.utf8.count <= 200, token.hasPrefix(prefix) else { return nil }
        let rest = token.dropFirst(prefix.count)
        guard let separator = rest.firstIndex(of: "_") else { return nil }
        return (String(rest[..<separator]), String(rest[rest.index(after: separator)...]))
    }

    /// What is stored instead of the secret.
    public static func secretHash(_ secret: String) -> [UInt8] { SHA256.hash(Array(secret.utf8)) }

    /// Whether a stored hash is that of `secret`, compared in constant time.
    public static func matches(secret: String, hash: [UInt8]) -> Bool { SHA256.equal(hash, secretHash(secret)) }

    /// A fresh salt for device ids.
    public static func newSalt() -> [UInt8] { SHA256.randomBytes(32) }
}
