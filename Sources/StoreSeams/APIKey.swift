import Foundation

/// An API key as stored: everything but the secret.
public struct APIKey: Sendable, Equatable {
    /// Keys look like `slk_<id>_<secret>`.
    public static let prefix = "slk_"

    public var id: String
    /// Who pushes with the key; items it writes are owned by this name.
    public var owner: String
    /// The DNS domain the key may write for.
    public var domain: String
    public var created: Date
    public var revoked: Date?

    public init(id: String, owner: String, domain: String, created: Date, revoked: Date?) {
        self.id = id
        self.owner = owner
        self.domain = domain
        self.created = created
        self.revoked = revoked
    }
}
