import Foundation
import SQLite
import StoreSeams
import WebURL

/// What `status`, `--urls` and `--refetch` ask of the frontier: counts, the URLs behind a
/// reason, the schedule, and forced revisits.
extension Frontier {
    /// The URLs whose verdict was `reason` (or, for `all`, every URL with a verdict), up
    /// to `limit`, oldest attempt first.
    func rows(reason: String?, limit: Int) throws -> [FrontierRow] {
        guard hasReasons else { return [] }
        let statement = try connection.statement("""
            SELECT url, state, reason, status, fetched_at, due, \(hasDetails ? "detail" : "NULL") FROM urls
            WHERE (?1 IS NULL AND reason IS NOT NULL) OR reason = ?1 ORDER BY fetched_at, id LIMIT ?2
            """)
        statement.bind([SQLiteValue(reason), .integer(Int64(limit))])
        var rows: [FrontierRow] = []
        while try statement.step() {
            rows.append(FrontierRow(url: statement.string(0) ?? "", state: statement.string(1) ?? "", reason: statement.string(2),
                                    status: statement.optionalInt(3), lastAttempt: statement.optionalDouble(4).map(Date.init(timeIntervalSince1970:)),
                                    due: Date(timeIntervalSince1970: statement.double(5)), detail: statement.string(6)))
        }
        return rows
    }

    /// The frontier's row for `url` (in the crawl's normal form); nil when it is not known.
    func row(url: String) throws -> FrontierRow? {
        let statement = try connection.statement(
            "SELECT url, state, reason, status, fetched_at, due, \(hasDetails ? "detail" : "NULL") FROM urls WHERE url = ?1")
        statement.bind([.text(url)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return FrontierRow(url: statement.string(0) ?? "", state: statement.string(1) ?? "", reason: statement.string(2),
                           status: statement.optionalInt(3), lastAttempt: statement.optionalDouble(4).map(Date.init(timeIntervalSince1970:)),
                           due: Date(timeIntervalSince1970: statement.double(5)), detail: statement.string(6))
    }

    /// How many URLs are due at `now`, and when the next one after it is.
    func schedule(now: Date) throws -> (due: Int, next: Date?) {
        let statement = try connection.statement("SELECT count(*) FILTER (WHERE due <= ?1), min(due) FILTER (WHERE due > ?1) FROM urls")
        statement.bind([.real(now.timeIntervalSince1970)])
        // Reset once read: a statement left on its row keeps its read transaction, and with
        // it a snapshot blind to other processes' commits (a notice `serve` made due) and a
        // write that fails with SQLITE_BUSY_SNAPSHOT.
        defer { statement.reset() }
        try statement.step()
        return (statement.int(0), statement.optionalDouble(1).map(Date.init(timeIntervalSince1970:)))
    }

    /// How many URLs have each verdict reason.
    func reasonCounts() throws -> [String: Int] {
        guard hasReasons else { return [:] }
        let statement = try connection.statement("SELECT reason, count(*) FROM urls WHERE reason IS NOT NULL GROUP BY reason")
        var counts: [String: Int] = [:]
        while try statement.step() { counts[statement.string(0) ?? "?"] = statement.int(1) }
        return counts
    }

    /// Makes the selected URLs due now; returns how many. A URL not yet known is added (a
    /// refetch of a new URL is a fetch). Conditional headers stay: an unchanged page costs a 304.
    @discardableResult
    func makeDue(_ selection: RefetchSelection, now: Date) throws -> Int {
        let time = SQLiteValue.real(now.timeIntervalSince1970)
        switch selection {
        case .all:
            try connection.statement("UPDATE urls SET due = ?1 WHERE due > ?1").run([time])
            return connection.changes
        case .reason(let reason):
            try connection.statement("UPDATE urls SET due = ?1 WHERE reason = ?2 AND due > ?1").run([time, .text(reason)])
            return connection.changes
        case .urls(let urls):
            let update = try connection.statement("UPDATE urls SET due = ?1 WHERE url = ?2")
            var changed = 0
            for url in urls {
                try update.run([time, .text(url.string)])
                changed += connection.changes
            }
            return changed
        case .notified(let urls):
            // A URL being fetched takes the new notice's time: what is fetched may predate the
            // change, so its record keeps it due (``record(_:now:)``).
            let update = try connection.statement(
                "UPDATE urls SET due = min(due, ?1), noticed = CASE WHEN claimed = 1 THEN ?1 ELSE coalesce(noticed, ?1) END WHERE url = ?2")
            var changed = 0
            for url in urls {
                try update.run([time, .text(url.string)])
                changed += connection.changes
            }
            return changed
        }
    }

    /// Adds a run's freshness counts to the store's (``CrawlFreshness/rows``).
    func addFreshness(_ freshness: CrawlFreshness) throws {
        let add = try connection.statement("""
            INSERT INTO freshness(metric, bucket, amount) VALUES(?, ?, ?)
            ON CONFLICT(metric, bucket) DO UPDATE SET amount = amount + excluded.amount
            """)
        for row in freshness.rows where row.amount != 0 { try add.run([.text(row.metric), .integer(Int64(row.bucket)), .integer(row.amount)]) }
    }

    /// The freshness counts of every run so far; nil for a frontier made before they were kept.
    func freshness() throws -> CrawlFreshness? {
        let table = try connection.statement("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'freshness'")
        try table.step()
        defer { table.reset() }
        guard table.int(0) > 0 else { return nil }
        let statement = try connection.statement("SELECT metric, bucket, amount FROM freshness")
        var rows: [(metric: String, bucket: Int, amount: Int64)] = []
        while try statement.step() { rows.append((statement.string(0) ?? "", statement.int(1), statement.int64(2))) }
        return CrawlFreshness(rows: rows)
    }

    /// URLs by state, those due at `now`, and hosts.
    func counts(now: Date) throws -> CrawlStatus.URLCounts {
        var counts = CrawlStatus.URLCounts()
        let states = try connection.statement("SELECT state, count(*) FROM urls GROUP BY state")
        while try states.step() {
            let number = states.int(1)
            counts.known += number
            switch states.string(0) {
            case "new": counts.new += number
            case "done": counts.done += number
            case "failing": counts.failing += number
            case "gone": counts.gone += number
            case "excluded": counts.excluded += number
            default: break
            }
        }
        let due = try connection.statement("SELECT count(*) FROM urls WHERE due <= ?")
        due.bind(1, now.timeIntervalSince1970)
        try due.step()
        counts.due = due.int(0)
        due.reset()
        let hosts = try connection.statement("SELECT count(DISTINCT origin) FROM urls")
        try hosts.step()
        counts.hosts = hosts.int(0)
        hosts.reset()
        return counts
    }
}
