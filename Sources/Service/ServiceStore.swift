import Foundation
import SQLite
import SearchIndex

/// The service's own tables, next to the index in `index.sqlite`: API keys (only the hash
/// of each secret), the secret salt for device ids, and public-activity reports (only
/// salted hashes of device ids). One connection behind a lock; writes are short.
public final class ServiceStore: Sendable {
    private let guarded: SerializedConnection<Void>

    /// Opens the store in the index file at `path`, creating the index and the tables as
    /// needed.
    public init(indexPath path: String) throws {
        _ = try SearchIndex(path: path)
        let connection = try SQLiteConnection(path: path)
        try connection.execute("""
            PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
            CREATE TABLE IF NOT EXISTS api_keys(
                id TEXT PRIMARY KEY, owner TEXT NOT NULL, domain TEXT NOT NULL, secret_hash BLOB NOT NULL,
                created REAL NOT NULL, revoked REAL);
            CREATE TABLE IF NOT EXISTS service_secrets(name TEXT PRIMARY KEY, value BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS activities(
                id TEXT PRIMARY KEY, owner TEXT NOT NULL, activity_type TEXT NOT NULL, webpage_url TEXT NOT NULL,
                first_reported REAL NOT NULL, last_reported REAL NOT NULL, devices INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE IF NOT EXISTS activity_devices(
                activity TEXT NOT NULL, device_hash BLOB NOT NULL, reported REAL NOT NULL,
                PRIMARY KEY(activity, device_hash)) WITHOUT ROWID;
            """)
        guarded = SerializedConnection(connection)
    }

    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try guarded.withConnection { connection, _ in try body(connection) }
    }

    // MARK: keys

    /// Creates a key for `owner` and `domain`; returns it whole, the only time it is seen.
    public func createKey(owner: String, domain: String, now: Date = Date()) throws -> (key: APIKey, secret: String) {
        let id = SHA256.hex(SHA256.randomBytes(6))
        let secret = SHA256.hex(SHA256.randomBytes(32))
        let key = APIKey(id: id, owner: owner, domain: domain.lowercased(), created: now, revoked: nil)
        try withConnection { connection in
            try connection.statement("INSERT INTO api_keys(id, owner, domain, secret_hash, created) VALUES(?, ?, ?, ?, ?)")
                .run([.text(id), .text(owner), .text(key.domain), .blob(SHA256.hash(Array(secret.utf8))), .real(now.timeIntervalSince1970)])
        }
        return (key, APIKey.prefix + id + "_" + secret)
    }

    public func keys() throws -> [APIKey] {
        try withConnection { connection in
            let statement = try connection.statement("SELECT id, owner, domain, created, revoked FROM api_keys ORDER BY created, id")
            var keys: [APIKey] = []
            while try statement.step() { keys.append(Self.key(statement)) }
            return keys
        }
    }

    /// Revokes a key by id; false when there is no such key.
    public func revokeKey(id: String, now: Date = Date()) throws -> Bool {
        try withConnection { connection in
            try connection.statement("UPDATE api_keys SET revoked = ? WHERE id = ? AND revoked IS NULL")
                .run([.real(now.timeIntervalSince1970), .text(id)])
            if connection.changes > 0 { return true }
            let exists = try connection.statement("SELECT 1 FROM api_keys WHERE id = ?")
            exists.bind(1, id)
            return try exists.step()
        }
    }

    /// The live key a bearer token stands for, or nil.
    public func authenticate(_ token: String) throws -> APIKey? {
        guard token.hasPrefix(APIKey.prefix) else { return nil }
        let rest = token.dropFirst(APIKey.prefix.count)
        guard let separator = rest.firstIndex(of: "_") else { return nil }
        let id = String(rest[..<separator])
        let secret = Array(rest[rest.index(after: separator)...].utf8)
        return try withConnection { connection in
            let statement = try connection.statement("SELECT id, owner, domain, created, revoked, secret_hash FROM api_keys WHERE id = ?")
            statement.bind(1, id)
            guard try statement.step(), let stored = statement.blob(5) else { return nil }
            let key = Self.key(statement)
            guard key.revoked == nil, SHA256.equal(stored, SHA256.hash(secret)) else { return nil }
            return key
        }
    }

    private static func key(_ statement: SQLiteStatement) -> APIKey {
        APIKey(id: statement.string(0) ?? "", owner: statement.string(1) ?? "", domain: statement.string(2) ?? "",
               created: Date(timeIntervalSince1970: statement.double(3)),
               revoked: statement.optionalDouble(4).map(Date.init(timeIntervalSince1970:)))
    }

    // MARK: activities

    /// The secret salt device ids are hashed with, made on first use.
    func deviceSalt() throws -> [UInt8] {
        try withConnection { connection in
            try connection.transaction {
                let read = try connection.statement("SELECT value FROM service_secrets WHERE name = 'device-salt'")
                if try read.step(), let salt = read.blob(0) { return salt }
                let salt = SHA256.randomBytes(32)
                try connection.statement("INSERT INTO service_secrets(name, value) VALUES('device-salt', ?)").run([.blob(salt)])
                return salt
            }
        }
    }

    /// Records that a device reported an activity; returns how many distinct devices have.
    func recordActivity(id: String, owner: String, type: String, webpageURL: String, deviceHash: [UInt8], now: Date) throws -> Int {
        try withConnection { connection in
            try connection.transaction {
                try connection.statement("""
                    INSERT INTO activities(id, owner, activity_type, webpage_url, first_reported, last_reported) VALUES(?1, ?2, ?3, ?4, ?5, ?5)
                    ON CONFLICT(id) DO UPDATE SET last_reported = ?5
                    """).run([.text(id), .text(owner), .text(type), .text(webpageURL), .real(now.timeIntervalSince1970)])
                try connection.statement("""
                    INSERT INTO activity_devices(activity, device_hash, reported) VALUES(?, ?, ?)
                    ON CONFLICT(activity, device_hash) DO UPDATE SET reported = excluded.reported
                    """).run([.text(id), .blob(deviceHash), .real(now.timeIntervalSince1970)])
                let count = try connection.statement("SELECT count(*) FROM activity_devices WHERE activity = ?")
                count.bind(1, id)
                try count.step()
                let devices = count.int(0)
                try connection.statement("UPDATE activities SET devices = ? WHERE id = ?").run([.integer(Int64(devices)), .text(id)])
                return devices
            }
        }
    }
}

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
}
