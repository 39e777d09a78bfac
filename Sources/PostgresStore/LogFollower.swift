import Foundation
import Items
import JSON
import Postgres
import SearchIndex
import StoreSeams
import Synchronization

/// Keeps a node's local index a copy of the shared store's items: a new copy starts from
/// a snapshot of `items` taken with the log position it matches, then applies
/// `item_log` in order, a batch at a time, each batch committed with the position it
/// reached (the client state `shared-store-log`), so a restarted node resumes where it
/// stopped. Applying reads each logged item's current row, so applying twice, or a
/// batch with several changes of one item, ends in the same state. The client state names
/// the store as well as the position (`STORE:POSITION`): a copy made from another store
/// (the same folder pointed at a second store) is rebuilt, never resumed.
///
/// A node given a ``Shard`` keeps only that shard's items (`STORE#K/N:POSITION`; a copy of
/// another shard, or of the whole index, is rebuilt), and reads only that shard's log
/// entries and snapshot rows: both tables keep each row's ``Shard/hash(of:)``, and the
/// queries select on it (rows written before they did are checked here). PostgreSQL still
/// scans the log's new entries for every shard node; partitioning `item_log` by shard would
/// spare that (docs/scaling.md).
public final class LogFollower: SearchReplica, @unchecked Sendable {
    // @unchecked: `index`, `session` and `lastTrim` are used only under `applying`; the rest
    // is atomic or immutable.
    private let session: PostgresSession
    private let index: SearchIndex
    private let name: String
    private let storeIdentity: String
    private let shard: Shard
    private let batchSize: Int
    private let applying = Mutex(())
    private let address = Mutex<String?>(nil)
    private let caughtUp = Atomic<Int64>(0)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    static let stateName = "shared-store-log"
    static let engagementColumns = "e.impressions, e.clicks, e.anonymous_impressions, e.anonymous_clicks, e.anonymous_networks"

    /// The counts of ``engagementColumns``, read from `column` on.
    private static func engagement(_ row: PostgresRow, from column: Int) -> EngagementCounts {
        EngagementCounts(impressions: row.int(column) ?? 0, clicks: row.int(column + 1) ?? 0, anonymousImpressions: row.int(column + 2) ?? 0,
                         anonymousClicks: row.int(column + 3) ?? 0, anonymousNetworks: row.int(column + 4) ?? 0)
    }

    /// - Parameters:
    ///   - name: how the node shows in the store's `nodes` table (its lag is visible there).
    ///   - shard: the part of the index this copy holds; the whole index unless told.
    public init(store: SharedStore, indexPath: String, name: String, shard: Shard = .whole, batchSize: Int = 2000) throws {
        session = try store.newSession()
        index = try SearchIndex(path: indexPath)
        storeIdentity = store.identity + (shard.isWhole ? "" : "#\(shard)")
        self.shard = shard
        self.name = name
        self.batchSize = batchSize
    }

    /// The position the copy has applied, or nil before its snapshot (or when the copy was
    /// made from another store, or by a version that did not record the store).
    public func position() throws -> Int64? {
        guard let state = try index.clientState(batch: Self.stateName).map({ String(decoding: $0, as: UTF8.self) }),
            let colon = state.lastIndex(of: ":"), state[..<colon] == storeIdentity
        else { return nil }
        return Int64(state[state.index(after: colon)...])
    }

    private func state(_ position: Int64) -> [UInt8] { Array("\(storeIdentity):\(position)".utf8) }

    /// Where this node answers, recorded with its heartbeat for routers to find it.
    public func advertise(_ address: String) {
        self.address.withLock { $0 = address }
    }

    public var lag: TimeInterval? {
        let millis = caughtUp.load(ordering: .relaxed)
        guard millis > 0 else { return nil }
        return max(0, Date().timeIntervalSince1970 - Double(millis) / 1000)
    }

    public func catchUp() throws {
        try applying.withLock { _ in try applyAvailable() }
    }

    /// Polls the log every `interval` seconds on a thread of its own until ``stop()``.
    public func start(interval: TimeInterval = 0.2) {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                do {
                    try catchUp()
                } catch {
                    // The store is away; the lag grows until it is back, and searches say so.
                }
                Thread.sleep(forTimeInterval: interval)
            }
            finished.signal()
        }
        thread.name = "searchlight.log-follower"
        self.thread = thread
        thread.start()
    }

    public func stop() {
        guard thread != nil else { return }
        stopped.store(true, ordering: .relaxed)
        finished.wait()
        thread = nil
    }

    /// How often a node trims the log (any node may; they agree through `log_floor`).
    static let trimInterval: TimeInterval = 60
    private var lastTrim = Date.distantPast

    /// Applies everything the log holds now; the caller holds `applying`. A copy older than
    /// the log's floor (its node was away while the log was trimmed) is built again.
    private func applyAvailable() throws {
        let floor = try session.run { try LogTrimmer.floor($0) }
        guard var position = try position(), position >= floor else {
            try snapshot()
            return try applyAvailable()
        }
        while true {
            // A shard node reads its shard's entries only; once it has them all, it has
            // applied the log up to the head read before them (log writers are serialized
            // by ItemTable's lock, so no entry below that head can appear later).
            let (head, rows) = try session.run { connection in
                let head = try connection.execute("SELECT coalesce(max(seq), 0) FROM item_log").first?.int64(0) ?? 0
                let rows = try connection.execute("""
                    SELECT l.seq, l.owner, l.id, l.op, i.body, \(Self.engagementColumns) FROM item_log l
                    LEFT JOIN items i ON i.owner = l.owner AND i.id = l.id LEFT JOIN engagement e ON e.owner = l.owner AND e.id = l.id
                    WHERE l.seq > $1 AND \(shard.sqlCondition(hashColumn: "l.key_hash")) ORDER BY l.seq LIMIT $2
                    """, [.int(position), .int(Int64(batchSize))]).rows
                return (head, rows)
            }
            guard var last = rows.last?.int64(0) else {
                // Only other shards' changes: nothing to apply, but they are behind it now.
                if head > position {
                    var mark = ItemBatch()
                    mark.clientStateName = Self.stateName
                    mark.clientState = state(head)
                    try index.commit(mark, now: Date())
                    position = head
                }
                break
            }
            if rows.count < batchSize { last = max(last, head) }
            var upserts: [ItemKey: ValidItem] = [:]
            var deletes = Set<ItemKey>()
            var engagement: [ItemKey: EngagementCounts] = [:]
            for row in rows {
                guard let id = row.string(2) else { continue }
                let key = ItemKey(owner: ItemKey.owner(stored: row.string(1)), identifier: id)
                guard shard.holds(key) else { continue }
                if row.string(3) == "e" {
                    engagement[key] = Self.engagement(row, from: 5)
                } else if let body = row.string(4), let value = try? JSONParser.parse(body),
                    let item = SearchableItem.restored(value, owner: key.owner, now: Date())
                {
                    upserts[key] = item
                    deletes.remove(key)
                } else {
                    deletes.insert(key)
                    upserts[key] = nil
                }
            }
            var batch = ItemBatch(upserts: upserts.values.sorted { $0.item.key < $1.item.key })
            batch.deleteKeys = deletes.sorted()
            batch.clientStateName = Self.stateName
            batch.clientState = state(last)
            try index.commit(batch, now: Date())
            try index.setEngagement(engagement)
            position = last
            if rows.count < batchSize { break }
        }
        caughtUp.store(Int64(Date().timeIntervalSince1970 * 1000), ordering: .relaxed)
        try session.run { connection in
            try connection.execute("""
                INSERT INTO nodes(name, applied, updated, shard, address) VALUES($1, $2, extract(epoch from now()), $3, $4)
                ON CONFLICT (name) DO UPDATE SET applied = excluded.applied, updated = excluded.updated, shard = excluded.shard, address = excluded.address
                """, [.text(name), .int(position), .text(shard.description), PostgresValue(address.withLock { $0 })])
        }
        if Date().timeIntervalSince(lastTrim) >= Self.trimInterval {
            lastTrim = Date()
            try session.run { try LogTrimmer.trim($0) }
        }
    }

    /// A fresh copy: every item and engagement count as of one log position, read in one
    /// repeatable-read transaction so the position and the rows agree.
    private func snapshot() throws {
        _ = try index.deleteAll()
        try session.run { connection in
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { _ = try? connection.execute("ROLLBACK") }
            let position = try connection.execute("SELECT coalesce(max(seq), 0) FROM item_log").first?.int64(0) ?? 0
            try connection.execute("""
                DECLARE snapshot NO SCROLL CURSOR FOR SELECT owner, body FROM items WHERE \(shard.sqlCondition(hashColumn: "key_hash")) ORDER BY owner, id
                """)
            while true {
                let rows = try connection.execute("FETCH \(batchSize) FROM snapshot").rows
                let items = rows.compactMap { row -> ValidItem? in
                    guard let value = row.string(1).flatMap({ try? JSONParser.parse($0) }),
                        let item = SearchableItem.restored(value, owner: ItemKey.owner(stored: row.string(0)), now: Date())
                    else { return nil }
                    return shard.holds(item.item.key) ? item : nil
                }
                if !items.isEmpty { try index.commit(ItemBatch(upserts: items), now: Date()) }
                if rows.count < batchSize { break }
            }
            try connection.execute("DECLARE counts NO SCROLL CURSOR FOR SELECT owner, id, \(Self.engagementColumns) FROM engagement e")
            while true {
                let rows = try connection.execute("FETCH \(batchSize) FROM counts").rows
                var engagement: [ItemKey: EngagementCounts] = [:]
                for row in rows {
                    guard let id = row.string(1) else { continue }
                    let key = ItemKey(owner: ItemKey.owner(stored: row.string(0)), identifier: id)
                    if shard.holds(key) { engagement[key] = Self.engagement(row, from: 2) }
                }
                try index.setEngagement(engagement)
                if rows.count < batchSize { break }
            }
            var mark = ItemBatch()
            mark.clientStateName = Self.stateName
            mark.clientState = state(position)
            try index.commit(mark, now: Date())
        }
    }
}
