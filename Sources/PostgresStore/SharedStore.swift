import Foundation
import Postgres

/// The PostgreSQL store of record for several machines (`--store postgres://…`): one
/// session, migrated on open, from which the crawl store, the item and key stores and a
/// search node's follower are made.
public final class SharedStore: Sendable {
    public let url: String
    let session: PostgresSession
    /// Made once with the store's schema and never changed: which store this is.
    public let identity: String

    /// Connects (retrying a lost connection for `retryWindow` seconds in later work) and
    /// applies the schema's migrations.
    public init(url: String, retryWindow: Double = 60) throws {
        self.url = url
        session = try PostgresSession(url: url, retryWindow: retryWindow)
        try PostgresSchema.migrate(session)
        identity = try session.run { try $0.execute("SELECT store FROM store_identity").first?.string(0) } ?? ""
    }

    /// A second session on the same database, for a thread that must not wait behind
    /// this one (a node's follower polls while the API writes).
    func newSession() throws -> PostgresSession {
        try PostgresSession(url: url, retryWindow: session.retryWindow)
    }

    /// The database's own clock, which leases are measured by.
    static let clock = "extract(epoch from clock_timestamp())"

    /// `SEARCHLIGHT_STORE` when it is set.
    public static var environmentURL: String? {
        ProcessInfo.processInfo.environment["SEARCHLIGHT_STORE"].flatMap { $0.isEmpty ? nil : $0 }
    }
}
