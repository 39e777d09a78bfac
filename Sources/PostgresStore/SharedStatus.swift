import Foundation
import Items
import JSON
import Postgres
import StoreSeams

extension SharedStore: SearchNodeDirectory {
    /// `searchlight status` for a shared store: its items and frontier, the search nodes
    /// and how far behind each is, the latest runs of every worker; and whether a run holds
    /// this machine's data folder.
    public func status(dataDirectory: String, now: Date = Date(), runs count: Int) throws -> CrawlStatus {
        try session.run { connection in
            var bySource: [String: Int] = [:]
            for row in try connection.execute("SELECT CASE WHEN ingested THEN 'ingested' ELSE source END, count(*) FROM items GROUP BY 1").rows {
                bySource[row.string(0) ?? "?"] = row.int(1) ?? 0
            }
            let expired = try connection.execute("SELECT count(*) FROM items WHERE expires IS NOT NULL AND expires <= $1",
                                                 [.double(now.timeIntervalSince1970)]).first?.int(0) ?? 0
            let domains = try connection.execute("SELECT count(DISTINCT domain_id) FROM items").first?.int(0) ?? 0
            var urls = CrawlStatus.URLCounts()
            for row in try connection.execute("SELECT state, count(*) FROM urls GROUP BY state").rows {
                let number = row.int(1) ?? 0
                urls.known += number
                switch row.string(0) {
                case "new": urls.new += number
                case "done": urls.done += number
                case "failing": urls.failing += number
                case "gone": urls.gone += number
                case "excluded": urls.excluded += number
                default: break
                }
            }
            urls.due = try connection.execute("SELECT count(*) FROM urls WHERE due <= $1", [.double(now.timeIntervalSince1970)]).first?.int(0) ?? 0
            urls.hosts = try connection.execute("SELECT count(DISTINCT origin) FROM urls").first?.int(0) ?? 0
            let nodes = try Self.searchNodes(connection)
            let runs = try connection.execute("SELECT report FROM runs ORDER BY started DESC LIMIT $1", [.int(Int64(count))]).rows
                .compactMap { $0.string(0).flatMap { try? JSONParser.parse($0) } }
            let running = CrawlLock.holder(path: DataFolder(dataDirectory).lockPath)
            var status = CrawlStatus(dataDirectory: dataDirectory, index: ItemCounts(itemsBySource: bySource, expired: expired, domains: domains),
                                     urls: urls, running: running, runs: runs, store: Self.redacted(url), nodes: nodes)
            status.freshness = try Self.freshness(connection)
            return status
        }
    }

    /// What `/metrics` shows of the store's crawls: their freshness counts and the URLs due now.
    public func crawlFigures(now: Date = Date()) throws -> (freshness: CrawlFreshness, due: Int) {
        try session.run { connection in
            let due = try connection.execute("SELECT count(*) FROM urls WHERE due <= $1", [.double(now.timeIntervalSince1970)]).first?.int(0) ?? 0
            return (try Self.freshness(connection), due)
        }
    }

    static func freshness(_ connection: PostgresConnection) throws -> CrawlFreshness {
        CrawlFreshness(rows: try connection.execute("SELECT metric, bucket, amount FROM freshness").rows.map {
            ($0.string(0) ?? "", $0.int(1) ?? -2, $0.int64(2) ?? 0)
        })
    }

    public func searchNodes() throws -> [CrawlStatus.Node] {
        try session.run { try Self.searchNodes($0) }
    }

    public func shardCount() throws -> Int? {
        try session.run { try $0.execute("SELECT shards FROM store_identity").first?.int(0) }
    }

    /// Sets the shard count routers split searches over (nil: follow the nodes).
    public func setShardCount(_ count: Int?) throws {
        try session.run { _ = try $0.execute("UPDATE store_identity SET shards = $1", [count.map { .int(Int64($0)) } ?? .null]) }
    }

    /// The search nodes that report to the store, by name: how far behind each is, its
    /// shard and address.
    static func searchNodes(_ connection: PostgresConnection) throws -> [CrawlStatus.Node] {
        let head = try connection.execute("SELECT coalesce(max(seq), 0) FROM item_log").first?.int(0) ?? 0
        return try connection.execute("SELECT name, applied, extract(epoch from now()) - updated, shard, address FROM nodes ORDER BY name").rows.map { row in
            CrawlStatus.Node(name: row.string(0) ?? "?", behind: max(0, head - (row.int(1) ?? 0)), silentFor: row.double(2) ?? 0,
                             shard: row.string(3).flatMap(Shard.init(parsing:)) ?? .whole, address: row.string(4))
        }
    }

    /// Saves a worker's run report with the others.
    /// The shared frontier's URLs whose verdict was `reason` (nil: any), at most `limit`, and
    /// how many URLs each reason holds.
    public func urls(reason: String?, limit: Int) throws -> (rows: [FrontierRow], counts: [String: Int]) {
        try session.run { connection in
            let rows = try connection.execute("""
                SELECT url, state, reason, status, fetched_at, due, detail FROM urls
                WHERE ($1::text IS NULL AND reason IS NOT NULL) OR reason = $1 ORDER BY fetched_at NULLS FIRST, id LIMIT $2
                """, [PostgresValue(reason), .int(Int64(limit))]).rows.map { row in
                FrontierRow(url: row.string(0) ?? "", state: row.string(1) ?? "", reason: row.string(2), status: row.int(3),
                            lastAttempt: row.double(4).map(Date.init(timeIntervalSince1970:)), due: Date(timeIntervalSince1970: row.double(5) ?? 0),
                            detail: row.string(6))
            }
            var counts: [String: Int] = [:]
            for row in try connection.execute("SELECT reason, count(*) FROM urls WHERE reason IS NOT NULL GROUP BY reason").rows {
                counts[row.string(0) ?? "?"] = row.int(1) ?? 0
            }
            return (rows, counts)
        }
    }

    /// Keeps a run's report (its JSON form) with the store, for `status --store`.
    public func save(report: JSONValue, id: String, started: Date, worker: String) throws {
        try session.run { connection in
            try connection.execute("""
                INSERT INTO runs(id, worker, started, report) VALUES($1, $2, $3, $4) ON CONFLICT (id) DO UPDATE SET report = excluded.report
                """, [.text(id), .text(worker), .double(started.timeIntervalSince1970), .text(JSONWriter.string(report))])
        }
    }

    /// The URL without its password, for showing.
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else { return url }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}
