import Foundation
import SQLite
import ServiceAPI
import StoreSeams

/// The service's own file, `service.sqlite` next to the index: API keys (only the hash of
/// each secret), the secret salt for device ids, and public-activity reports (only salted
/// hashes of device ids and of the networks they reported from). This type owns the
/// file's schema; nothing else opens it. One connection behind a lock; writes are short.
public final class ServiceStore: KeyStore {
    public let path: String
    private let guarded: SerializedConnection<Void>

    /// Version 2 keys activities by owner and id (version 1 by id alone).
    static let schemaVersion = 2

    static let schema = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS api_keys(
            id TEXT PRIMARY KEY, owner TEXT NOT NULL, domain TEXT NOT NULL, secret_hash BLOB NOT NULL,
            created REAL NOT NULL, revoked REAL);
        CREATE TABLE IF NOT EXISTS service_secrets(name TEXT PRIMARY KEY, value BLOB NOT NULL);
        """ + activityTables

    static let activityTables = """
        CREATE TABLE IF NOT EXISTS activities(
            owner TEXT NOT NULL, id TEXT NOT NULL, activity_type TEXT NOT NULL, webpage_url TEXT NOT NULL,
            first_reported REAL NOT NULL, last_reported REAL NOT NULL, devices INTEGER NOT NULL DEFAULT 0,
            networks INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(owner, id)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS activity_devices(
            owner TEXT NOT NULL, activity TEXT NOT NULL, device_hash BLOB NOT NULL, network_hash BLOB NOT NULL, reported REAL NOT NULL,
            PRIMARY KEY(owner, activity, device_hash)) WITHOUT ROWID;
        """

    /// Opens (creating as needed) the store at `path`. When it is new and `legacyIndexPath`
    /// names an index that still holds keys (data folders made before the service had a file
    /// of its own), those keys are copied over.
    public init(path: String, legacyIndexPath: String? = nil) throws {
        self.path = path
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
        try connection.transaction {
            let existing = try connection.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'meta'")
            try existing.step()
            if existing.int(0) == 0 {
                try connection.execute(Self.schema)
                try connection.statement("INSERT INTO meta(key, value) VALUES('schema_version', ?)").run([.text(String(Self.schemaVersion))])
                if let legacyIndexPath, FileManager.default.fileExists(atPath: legacyIndexPath) {
                    try Self.copyLegacyKeys(from: legacyIndexPath, connection)
                }
            } else {
                try Self.migrate(connection)
            }
        }
        guarded = SerializedConnection(connection)
    }

    /// Version 1 knew an activity by its id alone: its reports move under the owner that
    /// first reported it.
    private static func migrate(_ connection: SQLiteConnection) throws {
        let version = try connection.prepare("SELECT value FROM meta WHERE key = 'schema_version'")
        let found = try version.step() ? Int(version.string(0) ?? "") ?? 0 : 0
        version.reset()
        guard found < schemaVersion else { return }
        try connection.execute("""
            ALTER TABLE activities RENAME TO activities_v1;
            ALTER TABLE activity_devices RENAME TO activity_devices_v1;
            """ + activityTables + """
            INSERT INTO activities(owner, id, activity_type, webpage_url, first_reported, last_reported, devices, networks)
                SELECT owner, id, activity_type, webpage_url, first_reported, last_reported, devices, networks FROM activities_v1;
            INSERT INTO activity_devices(owner, activity, device_hash, network_hash, reported)
                SELECT a.owner, d.activity, d.device_hash, d.network_hash, d.reported FROM activity_devices_v1 d JOIN activities_v1 a ON a.id = d.activity;
            DROP TABLE activity_devices_v1;
            DROP TABLE activities_v1;
            """)
        try connection.statement("UPDATE meta SET value = ? WHERE key = 'schema_version'").run([.text(String(schemaVersion))])
    }

    private static func copyLegacyKeys(from indexPath: String, _ connection: SQLiteConnection) throws {
        let legacy = try SQLiteConnection(path: indexPath, mode: .readOnly)
        let tables = try legacy.prepare("SELECT name FROM sqlite_master WHERE name IN ('api_keys', 'service_secrets')")
        var found = Set<String>()
        while try tables.step() { if let name = tables.string(0) { found.insert(name) } }
        if found.contains("api_keys") {
            let keys = try legacy.prepare("SELECT id, owner, domain, secret_hash, created, revoked FROM api_keys")
            let insert = try connection.statement("INSERT OR IGNORE INTO api_keys(id, owner, domain, secret_hash, created, revoked) VALUES(?, ?, ?, ?, ?, ?)")
            while try keys.step() {
                try insert.run([SQLiteValue(keys.string(0)), SQLiteValue(keys.string(1)), SQLiteValue(keys.string(2)),
                                keys.blob(3).map(SQLiteValue.blob) ?? .null, .real(keys.double(4)), SQLiteValue(keys.optionalDouble(5))])
            }
        }
        if found.contains("service_secrets") {
            let secrets = try legacy.prepare("SELECT name, value FROM service_secrets")
            let insert = try connection.statement("INSERT OR IGNORE INTO service_secrets(name, value) VALUES(?, ?)")
            while try secrets.step() { try insert.run([SQLiteValue(secrets.string(0)), secrets.blob(1).map(SQLiteValue.blob) ?? .null]) }
        }
    }

    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try guarded.withConnection { connection, _ in try body(connection) }
    }

    // MARK: keys

    /// Creates a key for `owner` and `domain`; returns it whole, the only time it is seen.
    public func createKey(owner: String, domain: String, now: Date) throws -> (key: APIKey, secret: String) {
        let (id, secret, token) = APIKey.issue()
        let key = APIKey(id: id, owner: owner, domain: domain.lowercased(), created: now, revoked: nil)
        try withConnection { connection in
            try connection.statement("INSERT INTO api_keys(id, owner, domain, secret_hash, created) VALUES(?, ?, ?, ?, ?)")
                .run([.text(id), .text(owner), .text(key.domain), .blob(APIKey.secretHash(secret)), .real(now.timeIntervalSince1970)])
        }
        return (key, token)
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
    public func revokeKey(id: String, now: Date) throws -> Bool {
        try withConnection { connection in
            try connection.statement("UPDATE api_keys SET revoked = ? WHERE id = ? AND revoked IS NULL")
                .run([.real(now.timeIntervalSince1970), .text(id)])
            if connection.changes > 0 { return true }
            let exists = try connection.statement("SELECT 1 FROM api_keys WHERE id = ?")
            exists.bind(1, id)
            return try exists.step()
        }
    }

    /// The key a bearer token's secret matches, revoked or not (``KeyStore/authenticate(_:)``), or nil.
    public func authenticate(_ token: String) throws -> APIKey? {
        guard let (id, secret) = APIKey.parse(token: token) else { return nil }
        return try withConnection { connection in
            let statement = try connection.statement("SELECT id, owner, domain, created, revoked, secret_hash FROM api_keys WHERE id = ?")
            statement.bind(1, id)
            guard try statement.step(), let stored = statement.blob(5) else { return nil }
            let key = Self.key(statement)
            guard APIKey.matches(secret: secret, hash: stored) else { return nil }
            return key
        }
    }

    private static func key(_ statement: SQLiteStatement) -> APIKey {
        APIKey(id: statement.string(0) ?? "", owner: statement.string(1) ?? "", domain: statement.string(2) ?? "",
               created: Date(timeIntervalSince1970: statement.double(3)),
               revoked: statement.optionalDouble(4).map(Date.init(timeIntervalSince1970:)))
    }

    // MARK: activities

    public func deviceSalt() throws -> [UInt8] {
        try withConnection { connection in
            try connection.transaction {
                let read = try connection.statement("SELECT value FROM service_secrets WHERE name = 'device-salt'")
                if try read.step(), let salt = read.blob(0) { return salt }
                let salt = APIKey.newSalt()
                try connection.statement("INSERT INTO service_secrets(name, value) VALUES('device-salt', ?)").run([.blob(salt)])
                return salt
            }
        }
    }

    public func recordActivity(id: String, owner: String, type: String, webpageURL: String, deviceHash: [UInt8], networkHash: [UInt8],
                        now: Date) throws -> ActivityReach {
        try withConnection { connection in
            try connection.transaction {
                try connection.statement("""
                    INSERT INTO activities(owner, id, activity_type, webpage_url, first_reported, last_reported) VALUES(?1, ?2, ?3, ?4, ?5, ?5)
                    ON CONFLICT(owner, id) DO UPDATE SET last_reported = ?5
                    """).run([.text(owner), .text(id), .text(type), .text(webpageURL), .real(now.timeIntervalSince1970)])
                try connection.statement("""
                    INSERT INTO activity_devices(owner, activity, device_hash, network_hash, reported) VALUES(?, ?, ?, ?, ?)
                    ON CONFLICT(owner, activity, device_hash) DO UPDATE SET reported = excluded.reported
                    """).run([.text(owner), .text(id), .blob(deviceHash), .blob(networkHash), .real(now.timeIntervalSince1970)])
                let count = try connection.statement(
                    "SELECT count(*), count(DISTINCT network_hash) FROM activity_devices WHERE owner = ? AND activity = ?")
                count.bind([.text(owner), .text(id)])
                try count.step()
                let reach = ActivityReach(devices: count.int(0), networks: count.int(1))
                try connection.statement("UPDATE activities SET devices = ?, networks = ? WHERE owner = ? AND id = ?")
                    .run([.integer(Int64(reach.devices)), .integer(Int64(reach.networks)), .text(owner), .text(id)])
                return reach
            }
        }
    }
}
