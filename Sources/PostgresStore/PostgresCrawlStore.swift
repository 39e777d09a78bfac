import Foundation
import Items
import Postgres
import StoreSeams
import WebURL

/// The frontier and the items of a crawl in PostgreSQL, shared by several workers.
///
/// - Hosts are leased: a worker crawls a host only while it holds the host's lease (taken
///   by ``acquireHost(_:now:)``, renewed on every commit, returned at the end of the run),
///   so one worker at a time talks to a host, robots.txt and the association files are
///   read once for the fleet, and the host's next allowed time, saved with each commit,
///   carries the spacing over to whoever takes it next.
/// - URLs are leased too, claimed in blocks with `FOR UPDATE SKIP LOCKED`; a worker killed
///   with SIGKILL loses only its leases, which time out after `leaseSeconds`.
/// - A batch — items, their log entries and the frontier's outcomes — commits in one
///   transaction.
public final class PostgresCrawlStore: CrawlStore {
    private let session: PostgresSession
    /// This worker's name in leases: host, process and a random part.
    public let worker: String
    public let leaseSeconds: Double
    private let claimBlock: Int

    public init(_ store: SharedStore, leaseSeconds: Double = 60, claimBlock: Int = 64) {
        session = store.session
        self.leaseSeconds = leaseSeconds
        self.claimBlock = claimBlock
        let host = ProcessInfo.processInfo.hostName
        worker = "\(host):\(ProcessInfo.processInfo.processIdentifier):\(UInt32.random(in: 0...UInt32.max))"
    }

    private var leaseEnd: String { "\(SharedStore.clock) + \(leaseSeconds)" }

    public func remember(seeds: [WebURL], now: Date) throws -> [WebURL] {
        try session.transaction { connection in
            if !seeds.isEmpty {
                try connection.execute("INSERT INTO seeds(url, added) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING",
                                       [.array(seeds.map { Optional($0.string) }), .double(now.timeIntervalSince1970)])
            }
            return try connection.execute("SELECT url FROM seeds ORDER BY added, url").rows.compactMap { $0.string(0).flatMap(WebURL.init) }
        }
    }

    /// Claims of a killed worker run out by themselves; there is nothing of ours to release.
    public func releaseClaims() throws {}

    public func purgeExpired(now: Date) throws -> Int {
        try session.transaction { try ItemTable.apply(ItemBatch(), now: now, on: $0).deleted }
    }

    public func makeDue(_ selection: RefetchSelection, now: Date) throws -> Int {
        try session.run { connection in
            let time = PostgresValue.double(now.timeIntervalSince1970)
            switch selection {
            case .all:
                return try connection.execute("UPDATE urls SET due = $1 WHERE due > $1", [time]).affected
            case .reason(let reason):
                return try connection.execute("UPDATE urls SET due = $1 WHERE reason = $2 AND due > $1", [time, .text(reason)]).affected
            case .urls(let urls):
                return try connection.execute("UPDATE urls SET due = $1 WHERE url = ANY($2::text[])",
                                              [time, .array(urls.map { Optional($0.string) })]).affected
            case .notified(let urls):
                // A URL being fetched takes the new notice's time: what is fetched may predate
                // the change, so its record keeps it due.
                let changed = try connection.execute("""
                    UPDATE urls SET due = least(due, $1), noticed = CASE WHEN lease_owner IS NOT NULL THEN $1 ELSE coalesce(noticed, $1) END
                    WHERE url = ANY($2::text[])
                    """, [time, .array(urls.map { Optional($0.string) })]).affected
                // Continuous workers listening are woken when this commits (``PostgresWakeUp``).
                try connection.execute("SELECT pg_notify($1, '')", [.text(PostgresWakeUp.channel)])
                return changed
            }
        }
    }

    public func schedule(now: Date) throws -> (due: Int, next: Date?) {
        try session.run { connection in
            let row = try connection.execute("SELECT count(*) FILTER (WHERE due <= $1), min(due) FILTER (WHERE due > $1) FROM urls",
                                             [.double(now.timeIntervalSince1970)]).first
            return (row?.int(0) ?? 0, row?.double(1).map(Date.init(timeIntervalSince1970:)))
        }
    }

    public func originsWithWork(now: Date) throws -> [String] {
        try session.run { connection in
            try connection.execute("""
                SELECT DISTINCT u.origin FROM urls u LEFT JOIN hosts h ON h.origin = u.origin
                WHERE (NOT u.fetched OR u.due <= $1) AND (u.lease_until IS NULL OR u.lease_until < \(SharedStore.clock))
                    AND (h.lease_owner IS NULL OR h.lease_owner = $2 OR h.lease_until < \(SharedStore.clock))
                """, [.double(now.timeIntervalSince1970), .text(worker)]).rows.compactMap { $0.string(0) }
        }
    }

    public var isShared: Bool { true }

    public func originsHeldElsewhere(now: Date) throws -> Int {
        try session.run { connection in
            try connection.execute("""
                SELECT count(DISTINCT u.origin) FROM urls u LEFT JOIN hosts h ON h.origin = u.origin
                WHERE (NOT u.fetched OR u.due <= $1)
                    AND ((h.lease_owner <> $2 AND h.lease_until >= \(SharedStore.clock))
                        OR (u.lease_owner <> $2 AND u.lease_until >= \(SharedStore.clock)))
                """, [.double(now.timeIntervalSince1970), .text(worker)]).first?.int(0) ?? 0
        }
    }

    public func originsWithSitemapsReadBefore(_ cutoff: Date) throws -> [String] {
        try session.run { connection in
            try connection.execute("""
                SELECT origin FROM hosts WHERE robots_fetched IS NOT NULL AND (sitemaps_fetched IS NULL OR sitemaps_fetched <= $1)
                    AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < \(SharedStore.clock))
                """, [.double(cutoff.timeIntervalSince1970), .text(worker)]).rows.compactMap { $0.string(0) }
        }
    }

    private static let hostColumns = "origin, " + HostRecord.rowColumns + ", next_allowed"

    public func host(_ origin: String) throws -> HostRecord? {
        try session.run { connection in
            try connection.execute("SELECT \(Self.hostColumns) FROM hosts WHERE origin = $1", [.text(origin)]).first.map(Self.record)
        }
    }

    /// This worker's hosts and its fair share of the hosts with work: their number over the
    /// workers heard from within a lease, rounded up.
    private func share(now: Date, on connection: PostgresConnection) throws -> (mine: Int, share: Int) {
        let row = try connection.execute("""
            SELECT (SELECT count(*) FROM hosts WHERE lease_owner = $1 AND lease_until >= \(SharedStore.clock)),
                (SELECT count(DISTINCT origin) FROM urls WHERE NOT fetched OR due <= $2),
                (SELECT count(*) FROM workers WHERE seen >= \(SharedStore.clock) - $3::double precision)
            """, [.text(worker), .double(now.timeIntervalSince1970), .double(leaseSeconds)]).first
        let (mine, hosts, workers) = (row?.int(0) ?? 0, row?.int(1) ?? 0, max(1, row?.int(2) ?? 1))
        return (mine, max(1, (hosts + workers - 1) / workers))
    }

    public func hostsOverShare(now: Date) throws -> Int {
        try session.transaction { connection in
            try connection.execute("""
                INSERT INTO workers(name, seen) VALUES($1, \(SharedStore.clock)) ON CONFLICT (name) DO UPDATE SET seen = excluded.seen
                """, [.text(worker)])
            try connection.execute("DELETE FROM workers WHERE seen < \(SharedStore.clock) - 10 * $1::double precision", [.double(leaseSeconds)])
            let (mine, share) = try share(now: now, on: connection)
            return max(0, mine - share)
        }
    }

    public func releaseHost(_ origin: String) throws {
        try session.transaction { connection in
            try connection.execute("UPDATE urls SET lease_owner = NULL, lease_until = NULL WHERE origin = $1 AND lease_owner = $2",
                                   [.text(origin), .text(worker)])
            try connection.execute("UPDATE hosts SET lease_owner = NULL, lease_until = NULL WHERE origin = $1 AND lease_owner = $2",
                                   [.text(origin), .text(worker)])
        }
    }

    public func acquireHost(_ origin: String, now: Date) throws -> HostClaim {
        try session.transaction { connection in
            // A worker takes no more than its share, so the workers that start later find hosts.
            let (mine, share) = try share(now: now, on: connection)
            if mine >= share { return .heldElsewhere }
            try connection.execute("INSERT INTO hosts(origin) VALUES($1) ON CONFLICT DO NOTHING", [.text(origin)])
            let row = try connection.execute("""
                UPDATE hosts SET lease_owner = $2, lease_until = \(leaseEnd)
                WHERE origin = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < \(SharedStore.clock))
                RETURNING \(Self.hostColumns)
                """, [.text(origin), .text(worker)]).first
            guard let row else { return .heldElsewhere }
            let record = Self.record(row)
            // A row made just now has nothing in it yet.
            return .granted(record.robotsFetched == nil && record.nextAllowed == nil && record.backoffUntil == nil ? nil : record)
        }
    }

    public func claim(origin: String, now: Date, limit: Int) throws -> [FrontierEntry] {
        let block = max(limit, claimBlock)
        return try session.transaction { connection in
            // Only the host's leaseholder claims its URLs; the claim renews the lease.
            let held = try connection.execute("UPDATE hosts SET lease_until = \(leaseEnd) WHERE origin = $1 AND lease_owner = $2",
                                              [.text(origin), .text(worker)]).affected
            guard held > 0 else { return [] }
            let free = "(lease_until IS NULL OR lease_until < \(SharedStore.clock))"
            var entries = try connection.execute("""
                UPDATE urls SET lease_owner = $4, lease_until = \(leaseEnd) WHERE id IN (
                    SELECT id FROM urls WHERE origin = $1 AND noticed IS NOT NULL AND due <= $2 AND \(free)
                    ORDER BY \(ClaimOrder.noticedSQL) LIMIT $3 FOR UPDATE SKIP LOCKED)
                RETURNING \(Self.urlColumns)
                """, [.text(origin), .double(now.timeIntervalSince1970), .int(Int64(block)), .text(worker)]).rows.compactMap(Self.entry)
            entries.sort { ClaimOrder.noticedBefore($0.entry, $1.entry) }
            if entries.count < block {
                let revisits = try connection.execute("""
                    UPDATE urls SET lease_owner = $4, lease_until = \(leaseEnd) WHERE id IN (
                        SELECT id FROM urls WHERE origin = $1 AND fetched AND due <= $2 AND noticed IS NULL AND \(free)
                        ORDER BY \(ClaimOrder.revisitsSQL) LIMIT $3 FOR UPDATE SKIP LOCKED)
                    RETURNING \(Self.urlColumns)
                    """, [.text(origin), .double(now.timeIntervalSince1970), .int(Int64(block - entries.count)), .text(worker)])
                    .rows.compactMap(Self.entry)
                entries += revisits.sorted { ClaimOrder.revisitBefore(($0.due, $0.id), ($1.due, $1.id)) }
            }
            if entries.count < block {
                let fresh = try connection.execute("""
                    UPDATE urls SET lease_owner = $4, lease_until = \(leaseEnd) WHERE id IN (
                        SELECT id FROM urls WHERE origin = $1 AND NOT fetched AND due <= $2 AND noticed IS NULL AND \(free)
                        ORDER BY \(ClaimOrder.newURLsSQL) LIMIT $3 FOR UPDATE SKIP LOCKED)
                    RETURNING \(Self.urlColumns)
                    """, [.text(origin), .double(now.timeIntervalSince1970), .int(Int64(block - entries.count)), .text(worker)])
                    .rows.compactMap(Self.entry)
                entries += fresh.sorted { ClaimOrder.newBefore($0.entry, $1.entry) }
            }
            return entries.map(\.entry)
        }
    }

    public func release(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try session.run { connection in
            try connection.execute("UPDATE urls SET lease_owner = NULL, lease_until = NULL WHERE id = ANY($1::bigint[]) AND lease_owner = $2",
                                   [.array(ids.map(Optional.some)), .text(worker)])
        }
    }

    public func firstURL(withContent hash: String) throws -> String? {
        try session.run { try $0.execute("SELECT url FROM contents WHERE hash = $1", [.text(hash)]).first?.string(0) }
    }

    public func fingerprints(origin: String, limit: Int) throws -> [(url: String, simhash: UInt64)] {
        try session.run { connection in
            try connection.execute("""
                SELECT f.url, f.simhash FROM fingerprints f JOIN urls u ON u.url = f.url
                WHERE f.origin = $1 AND u.item_id IS NOT NULL LIMIT $2
                """, [.text(origin), .int(Int64(limit))]).rows.compactMap { row in
                guard let url = row.string(0), let simhash = row.int64(1) else { return nil }
                return (url, UInt64(bitPattern: simhash))
            }
        }
    }

    public func endRun() throws {
        try session.transaction { connection in
            try connection.execute("DELETE FROM workers WHERE name = $1", [.text(worker)])
            try connection.execute("UPDATE urls SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1", [.text(worker)])
            try connection.execute("UPDATE hosts SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1", [.text(worker)])
        }
    }

    /// Items, log and frontier in one transaction; the worker's leases are renewed in it.
    public func commit(_ batch: CrawlBatch, now: Date) throws -> (discovered: Int, deleted: Int) {
        try session.transaction { connection in
            var write = ItemBatch(upserts: batch.upserts, deleteIdentifiers: Array(batch.deletes))
            write.confirmations = batch.confirmations
            let deleted = try ItemTable.apply(write, now: now, on: connection).deleted
            let discovered = try add(batch.newURLs, now: now, on: connection)
            for note in batch.sitemapNotes {
                try connection.execute("""
                    UPDATE urls SET from_sitemap = true, changefreq = coalesce($2, changefreq), sitemap_lastmod = coalesce($3, sitemap_lastmod),
                        due = CASE WHEN $3 IS NOT NULL AND fetched_at IS NOT NULL AND $3 > fetched_at AND due > $4 THEN $4 ELSE due END
                    WHERE url = $1
                    """, [.text(note.url.string), PostgresValue(note.changeFrequency), PostgresValue(note.lastModified?.timeIntervalSince1970),
                          .double(now.timeIntervalSince1970)])
            }
            try record(batch.outcomes, now: now, on: connection)
            let freshness = batch.freshness.rows.filter { $0.amount != 0 }
            if !freshness.isEmpty {
                try connection.execute("""
                    INSERT INTO freshness(metric, bucket, amount) SELECT * FROM unnest($1::text[], $2::integer[], $3::bigint[])
                    ON CONFLICT (metric, bucket) DO UPDATE SET amount = freshness.amount + excluded.amount
                    """, [.array(freshness.map { Optional($0.metric) }), .array(freshness.map { Optional($0.bucket) }),
                          .array(freshness.map { Optional($0.amount) })])
            }
            for (id, due) in batch.postponed {
                try connection.execute("UPDATE urls SET due = $2 WHERE id = $1", [.int(id), .double(due.timeIntervalSince1970)])
            }
            if !batch.contents.isEmpty {
                try connection.execute("INSERT INTO contents(hash, url) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING",
                                       [.array(batch.contents.map { Optional($0.hash) }), .array(batch.contents.map { Optional($0.url) })])
            }
            if !batch.fingerprints.isEmpty {
                try connection.execute("""
                    INSERT INTO fingerprints(url, origin, simhash) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
                    ON CONFLICT (url) DO UPDATE SET simhash = excluded.simhash
                    """, [.array(batch.fingerprints.map { Optional($0.url) }), .array(batch.fingerprints.map { Optional($0.origin) }),
                          .array(batch.fingerprints.map { Optional(Int64(bitPattern: $0.simhash)) })])
            }
            for host in batch.hosts.values { try save(host, on: connection) }
            for (origin, next) in batch.nextAllowed {
                try connection.execute("UPDATE hosts SET next_allowed = $2 WHERE origin = $1 AND lease_owner = $3",
                                       [.text(origin), .double(next.timeIntervalSince1970), .text(worker)])
            }
            try connection.execute("UPDATE hosts SET lease_until = \(leaseEnd) WHERE lease_owner = $1", [.text(worker)])
            try connection.execute("UPDATE urls SET lease_until = \(leaseEnd) WHERE lease_owner = $1", [.text(worker)])
            return (discovered, deleted)
        }
    }

    // MARK: rows

    private func add(_ urls: [FrontierURL], now: Date, on connection: PostgresConnection) throws -> Int {
        guard !urls.isEmpty else { return 0 }
        return try connection.execute("""
            INSERT INTO urls(url, origin, depth, found_on, from_sitemap, priority, redirects, due, changefreq, sitemap_lastmod)
            SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[], $5::boolean[], $6::double precision[], $7::integer[],
                $8::double precision[], $9::text[], $10::double precision[])
            ON CONFLICT (url) DO NOTHING
            """, [
            .array(urls.map { Optional($0.url.string) }), .array(urls.map { Optional($0.url.origin) }), .array(urls.map { Optional($0.depth) }),
            .array(urls.map(\.foundOn)), .array(urls.map { Optional($0.fromSitemap) }), .array(urls.map { Optional($0.priority) }),
            .array(urls.map { Optional($0.redirects) }), .array(urls.map { _ in Optional(now.timeIntervalSince1970) }),
            .array(urls.map(\.changeFrequency)), .array(urls.map { $0.sitemapLastModified?.timeIntervalSince1970 }),
        ]).affected
    }

    private func record(_ outcomes: [FrontierOutcome], now: Date, on connection: PostgresConnection) throws {
        guard !outcomes.isEmpty else { return }
        // A page whose content changed drops its old digest (a row a version otherwise, and a
        // duplicate verdict against a page that no longer has the content).
        try connection.execute("""
            DELETE FROM contents c USING urls u, unnest($1::bigint[], $2::text[]) AS v(id, hash)
            WHERE u.id = v.id AND c.hash = u.content_hash AND c.url = u.url AND u.content_hash IS DISTINCT FROM v.hash
            """, [.array(outcomes.map { Optional($0.id) }), .array(outcomes.map(\.contentHash))])
        try connection.execute("""
            UPDATE urls u SET state = v.state, due = CASE WHEN u.noticed > v.handled THEN u.noticed ELSE v.due END,
                noticed = CASE WHEN u.noticed > v.handled THEN u.noticed END, status = v.status, etag = v.etag, last_modified = v.last_modified,
                content_hash = v.content_hash, item_id = v.item_id, failures = v.failures, first_failure = v.first_failure,
                "interval" = v.interval, redirected_to = v.redirected_to, fetched = true, fetched_at = $14,
                changes = u.changes + v.changed, lease_owner = NULL, lease_until = NULL, reason = v.reason,
                detail = v.detail
            FROM unnest($1::bigint[], $2::text[], $3::double precision[], $4::integer[], $5::text[], $6::text[], $7::text[], $8::text[],
                $9::integer[], $10::double precision[], $11::double precision[], $12::text[], $13::integer[], $15::text[], $16::text[],
                $17::double precision[])
                AS v(id, state, due, status, etag, last_modified, content_hash, item_id, failures, first_failure, interval, redirected_to, changed,
                     reason, detail, handled)
            WHERE u.id = v.id
            """, [
            .array(outcomes.map { Optional($0.id) }), .array(outcomes.map { Optional($0.state.rawValue) }),
            .array(outcomes.map { Optional($0.due.timeIntervalSince1970) }), .array(outcomes.map(\.status)), .array(outcomes.map(\.etag)),
            .array(outcomes.map(\.lastModified)), .array(outcomes.map(\.contentHash)), .array(outcomes.map(\.itemID)),
            .array(outcomes.map { Optional($0.failures) }), .array(outcomes.map { $0.firstFailure?.timeIntervalSince1970 }),
            .array(outcomes.map(\.interval)), .array(outcomes.map(\.redirectedTo)), .array(outcomes.map { Optional($0.changed ? 1 : 0) }),
            .double(now.timeIntervalSince1970), .array(outcomes.map(\.reason)), .array(outcomes.map(\.detail)),
            .array(outcomes.map { Optional(($0.handled ?? now).timeIntervalSince1970) }),
        ])
    }

    private func save(_ host: HostRecord, on connection: PostgresConnection) throws {
        try connection.execute("""
            INSERT INTO hosts(origin, robots_status, robots_body, robots_fetched, association_fetched, aasa, assetlinks, backoff_until, sitemaps_fetched)
            VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9)
            ON CONFLICT (origin) DO UPDATE SET robots_status = $2, robots_body = $3, robots_fetched = $4, association_fetched = $5,
                aasa = $6, assetlinks = $7, backoff_until = $8, sitemaps_fetched = $9
            """, [
            .text(host.origin), PostgresValue(host.robotsStatus), PostgresValue(host.robotsBody), PostgresValue(host.robotsFetched?.timeIntervalSince1970),
            PostgresValue(host.associationFetched?.timeIntervalSince1970), PostgresValue(host.aasaBody), PostgresValue(host.assetLinksBody),
            PostgresValue(host.backoffUntil?.timeIntervalSince1970), PostgresValue(host.sitemapsFetched?.timeIntervalSince1970),
        ])
    }

    private static let urlColumns = FrontierEntry.rowColumns + ", due"

    private static func entry(_ row: PostgresRow) -> (entry: FrontierEntry, id: Int64, due: Double)? {
        guard let entry = FrontierEntry(row: PostgresStoreRow(row: row)) else { return nil }
        return (entry, entry.id, row.double(18) ?? 0)
    }

    private static func record(_ row: PostgresRow) -> HostRecord {
        var record = HostRecord(origin: row.string(0) ?? "", row: PostgresStoreRow(row: row), from: 1)
        record.nextAllowed = row.double(9).map(Date.init(timeIntervalSince1970:))
        return record
    }
}
