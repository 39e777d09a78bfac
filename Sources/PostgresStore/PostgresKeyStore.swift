import Foundation
import Postgres
import StoreSeams

/// API keys, the device salt and activity reports in PostgreSQL, shared by every node.
public final class PostgresKeyStore: KeyStore {
    private let session: PostgresSession

    public init(_ store: SharedStore) {
        session = store.session
    }

    public func createKey(owner: String, domain: String, now: Date) throws -> (key: APIKey, secret: String) {
        let (id, secret, token) = APIKey.issue()
        let key = APIKey(id: id, owner: owner, domain: domain.lowercased(), created: now, revoked: nil)
        try session.run { connection in
            try connection.execute("INSERT INTO api_keys(id, owner, domain, secret_hash, created) VALUES($1, $2, $3, $4, $5)",
                                   [.text(id), .text(owner), .text(key.domain), .bytes(APIKey.secretHash(secret)), .double(now.timeIntervalSince1970)])
        }
        return (key, token)
    }

    public func keys() throws -> [APIKey] {
        try session.run { connection in
            try connection.execute("SELECT id, owner, domain, created, revoked FROM api_keys ORDER BY created, id").rows.map(Self.key)
        }
    }

    public func revokeKey(id: String, now: Date) throws -> Bool {
        try session.run { connection in
            let revoked = try connection.execute("UPDATE api_keys SET revoked = $1 WHERE id = $2 AND revoked IS NULL",
                                                 [.double(now.timeIntervalSince1970), .text(id)]).affected
            if revoked > 0 { return true }
            return try !connection.execute("SELECT 1 FROM api_keys WHERE id = $1", [.text(id)]).rows.isEmpty
        }
    }

    public func authenticate(_ token: String) throws -> APIKey? {
        guard let (id, secret) = APIKey.parse(token: token) else { return nil }
        return try session.run { connection in
            guard let row = try connection.execute("SELECT id, owner, domain, created, revoked, secret_hash FROM api_keys WHERE id = $1",
                                                   [.text(id)]).first, let stored = row.bytes(5)
            else { return nil }
            let key = Self.key(row)
            guard APIKey.matches(secret: secret, hash: stored) else { return nil }
            return key
        }
    }

    public func deviceSalt() throws -> [UInt8] {
        try session.transaction { connection in
            try connection.execute("INSERT INTO service_secrets(name, value) VALUES('device-salt', $1) ON CONFLICT (name) DO NOTHING",
                                   [.bytes(APIKey.newSalt())])
            return try connection.execute("SELECT value FROM service_secrets WHERE name = 'device-salt'").first?.bytes(0) ?? []
        }
    }

    public func recordActivity(id: String, owner: String, type: String, webpageURL: String, deviceHash: [UInt8], networkHash: [UInt8],
                               now: Date) throws -> ActivityReach {
        try session.transaction { connection in
            let time = PostgresValue.double(now.timeIntervalSince1970)
            try connection.execute("""
                INSERT INTO activities(id, owner, activity_type, webpage_url, first_reported, last_reported) VALUES($1, $2, $3, $4, $5, $5)
                ON CONFLICT (owner, id) DO UPDATE SET last_reported = $5
                """, [.text(id), .text(owner), .text(type), .text(webpageURL), time])
            try connection.execute("""
                INSERT INTO activity_devices(owner, activity, device_hash, network_hash, reported) VALUES($1, $2, $3, $4, $5)
                ON CONFLICT (owner, activity, device_hash) DO UPDATE SET reported = excluded.reported
                """, [.text(owner), .text(id), .bytes(deviceHash), .bytes(networkHash), time])
            let row = try connection.execute(
                "SELECT count(*), count(DISTINCT network_hash) FROM activity_devices WHERE owner = $1 AND activity = $2",
                [.text(owner), .text(id)]).first
            let reach = ActivityReach(devices: row?.int(0) ?? 0, networks: row?.int(1) ?? 0)
            try connection.execute("UPDATE activities SET devices = $1, networks = $2 WHERE owner = $3 AND id = $4",
                                   [.int(Int64(reach.devices)), .int(Int64(reach.networks)), .text(owner), .text(id)])
            return reach
        }
    }

    private static func key(_ row: PostgresRow) -> APIKey {
        APIKey(id: row.string(0) ?? "", owner: row.string(1) ?? "", domain: row.string(2) ?? "",
               created: Date(timeIntervalSince1970: row.double(3) ?? 0), revoked: row.double(4).map(Date.init(timeIntervalSince1970:)))
    }
}
