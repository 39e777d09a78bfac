import Foundation
import Items
import JSON
import SearchIndex
import StoreSeams

/// A local data folder's status, read from its files (``Frontier`` read-only).
extension CrawlStatus {
    /// Reads the folder; missing files leave their part nil (or empty).
    public static func read(dataDirectory: String, now: Date = Date(), runs count: Int = 5) throws -> CrawlStatus {
        let folder = DataFolder(dataDirectory)
        let index = FileManager.default.fileExists(atPath: folder.indexPath)
            ? try SearchIndex(path: folder.indexPath, mode: .existing).statistics(now: now) : nil
        let frontier = FileManager.default.fileExists(atPath: folder.frontierPath) ? try Frontier(readingAt: folder.frontierPath) : nil
        let urls = try frontier?.counts(now: now)
        let running = CrawlLock.holder(path: folder.lockPath)
        let runsFolder = folder.runsDirectory
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: runsFolder)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted(by: >).prefix(count)
        let runs = names.compactMap { name -> JSONValue? in
            guard let data = FileManager.default.contents(atPath: (runsFolder as NSString).appendingPathComponent(name)) else { return nil }
            return try? JSONParser.parse(bytes: [UInt8](data))
        }
        var status = CrawlStatus(dataDirectory: dataDirectory, index: index, urls: urls, running: running, runs: runs)
        status.freshness = try frontier?.freshness()
        return status
    }

    /// What `/metrics` shows of a data folder's crawl: its freshness counts and the URLs due
    /// now; nil before any crawl.
    public static func crawlFigures(dataDirectory: String, now: Date = Date()) throws -> (freshness: CrawlFreshness, due: Int)? {
        let path = DataFolder(dataDirectory).frontierPath
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let frontier = try Frontier(readingAt: path)
        return (try frontier.freshness() ?? CrawlFreshness(), try frontier.schedule(now: now).due)
    }

    /// The URLs of a data folder's frontier whose verdict was `reason` (nil: any reason),
    /// at most `limit`, and how many URLs each reason holds.
    public static func urls(dataDirectory: String, reason: String?, limit: Int) throws -> (rows: [FrontierRow], counts: [String: Int]) {
        let path = DataFolder(dataDirectory).frontierPath
        guard FileManager.default.fileExists(atPath: path) else { return ([], [:]) }
        let frontier = try Frontier(readingAt: path)
        return (try frontier.rows(reason: reason, limit: limit), try frontier.reasonCounts())
    }
}
