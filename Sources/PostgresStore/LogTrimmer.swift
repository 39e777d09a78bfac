import Foundation
import Postgres

/// Keeps `item_log` from growing without end. An entry goes once every live search node
/// has applied it and it is older than `keep`; a node counts as live while it reported
/// within `nodeRetention`. `log_floor` records the highest sequence number removed: a node
/// whose copy is older than the floor (one that was away longer than `nodeRetention`)
/// rebuilds its copy from `items` instead of missing changes (``LogFollower``). New nodes
/// start from a snapshot, so they never need what was trimmed.
public enum LogTrimmer {
    /// Entries younger than this stay whatever the nodes have applied (an hour).
    public static let defaultKeep: TimeInterval = 3600
    /// A node silent for longer than this (a day) no longer holds the log back.
    public static let defaultNodeRetention: TimeInterval = 86_400

    /// Trims what may go; returns the floor and how many entries were removed.
    @discardableResult
    public static func trim(_ connection: PostgresConnection, keep: TimeInterval = defaultKeep,
                            nodeRetention: TimeInterval = defaultNodeRetention) throws -> (floor: Int64, removed: Int)
    {
        try connection.transaction {
            let current = try connection.execute("SELECT seq FROM log_floor FOR UPDATE").first?.int64(0) ?? 0
            let horizon = try connection.execute("""
                SELECT least(
                    coalesce((SELECT min(applied) FROM nodes WHERE updated > extract(epoch from clock_timestamp()) - $2), 9223372036854775807),
                    coalesce((SELECT max(seq) FROM item_log WHERE at < extract(epoch from clock_timestamp()) - $1), 0))
                """, [.double(keep), .double(nodeRetention)]).first?.int64(0) ?? 0
            guard horizon > current else { return (current, 0) }
            let removed = try connection.execute("DELETE FROM item_log WHERE seq <= $1", [.int(horizon)]).affected
            try connection.execute("UPDATE log_floor SET seq = $1", [.int(horizon)])
            return (horizon, removed)
        }
    }

    /// The highest sequence number trimmed (0 when none was).
    public static func floor(_ connection: PostgresConnection) throws -> Int64 {
        try connection.execute("SELECT seq FROM log_floor").first?.int64(0) ?? 0
    }
}
