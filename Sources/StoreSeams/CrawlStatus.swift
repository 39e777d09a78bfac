import Foundation
import Items
import JSON
import TextUtilities

/// The state of a data folder, for `searchlight status`: what the index holds, what the
/// frontier knows and has due, whether a run is crawling now, and the last run reports.
/// Reads only; safe while a run is writing (both databases are in WAL mode).
public struct CrawlStatus: Sendable {
    public struct URLCounts: Sendable, Equatable {
        public var known = 0
        /// Never fetched.
        public var new = 0
        /// Due at the time asked about (new ones included).
        public var due = 0
        public var done = 0
        public var failing = 0
        public var gone = 0
        public var excluded = 0
        public var hosts = 0

        public init() {}
    }

    public var dataDirectory: String
    public var index: ItemCounts?
    public var urls: URLCounts?
    public var running: CrawlLock.Holder?
    /// The latest run reports, newest first, as written to `runs/`.
    public var runs: [JSONValue]
    /// With a shared store: its URL (without the password) and its search nodes.
    public var store: String?
    public var nodes: [Node] = []
    /// How fresh the crawls kept the index, over every run of the store (nil for a store
    /// made before it was counted).
    public var freshness: CrawlFreshness?

    /// A search node following the shared store's change log.
    public struct Node: Sendable {
        public var name: String
        /// Log entries not applied yet when it last reported.
        public var behind: Int
        /// Seconds since it last reported.
        public var silentFor: Double
        /// The part of the index it holds.
        public var shard: Shard
        /// Where it answers (`http://host:port`), for routers; nil before it serves.
        public var address: String?

        public init(name: String, behind: Int, silentFor: Double, shard: Shard = .whole, address: String? = nil) {
            self.name = name
            self.behind = behind
            self.silentFor = silentFor
            self.shard = shard
            self.address = address
        }
    }

    public init(dataDirectory: String, index: ItemCounts?, urls: URLCounts?, running: CrawlLock.Holder?, runs: [JSONValue],
                store: String? = nil, nodes: [Node] = []) {
        self.dataDirectory = dataDirectory
        self.index = index
        self.urls = urls
        self.running = running
        self.runs = runs
        self.store = store
        self.nodes = nodes
    }

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [("data", .string(dataDirectory))]
        if let store {
            fields.append(("store", .string(store)))
            fields.append(("nodes", .array(nodes.map {
                ["name": .string($0.name), "shard": .string($0.shard.description), "address": $0.address.map(JSONValue.string) ?? .null,
                 "behind": JSONValue($0.behind), "silentFor": JSONValue($0.silentFor)]
            })))
        }
        if let index {
            fields.append(("index", [
                "items": JSONValue(index.items), "expired": JSONValue(index.expired), "domains": JSONValue(index.domains),
                "bySource": .object(JSONObject(index.itemsBySource.sorted { $0.key < $1.key }.map { ($0.key, JSONValue($0.value)) })),
            ]))
        } else {
            fields.append(("index", .null))
        }
        if let urls {
            fields.append(("urls", [
                "known": JSONValue(urls.known), "new": JSONValue(urls.new), "due": JSONValue(urls.due), "done": JSONValue(urls.done),
                "failing": JSONValue(urls.failing), "gone": JSONValue(urls.gone), "excluded": JSONValue(urls.excluded),
                "hosts": JSONValue(urls.hosts),
            ]))
        } else {
            fields.append(("urls", .null))
        }
        fields.append(("freshness", freshness?.json ?? .null))
        fields.append(("running", running.map { holder in
            ["runID": .string(holder.runID), "pid": JSONValue(Int(holder.pid)), "since": .string(ISO8601.string(fromSeconds: holder.since.timeIntervalSince1970))]
        } ?? .null))
        fields.append(("runs", .array(runs.map { run in
            let keys = ["id", "started", "finished", "seconds", "stoppedBy", "fetched", "indexed", "deleted", "notModified", "skipped"]
            return .object(JSONObject(keys.compactMap { key in run[key].map { (key, $0) } }))
        })))
        return .object(JSONObject(fields))
    }

    /// The status for people.
    public var summary: String {
        var lines = [store.map { "Shared store \($0) (this machine's data folder: \(dataDirectory))" } ?? "Data folder \(dataDirectory)"]
        for node in nodes {
            let part = node.shard.isWhole ? "" : " (shard \(node.shard))"
            let address = node.address.map { " at \($0)" } ?? ""
            lines.append("  search node \(node.name)\(part)\(address): \(node.behind) changes behind, last heard \(Int(node.silentFor)) s ago")
        }
        if let running {
            lines.append("  crawling now: run \(running.runID) (pid \(running.pid)) since \(ISO8601.string(fromSeconds: running.since.timeIntervalSince1970))")
        }
        if let index {
            let sources = index.itemsBySource.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            lines.append("  index: \(index.items) items" + (sources.isEmpty ? "" : " (\(sources))") + " in \(index.domains) domains"
                + (index.expired > 0 ? ", \(index.expired) expired" : ""))
        } else {
            lines.append("  index: none yet")
        }
        if let urls {
            lines.append("  frontier: \(Plural.count(urls.known, "URL")) on \(Plural.count(urls.hosts, "host")); \(urls.due) due now (\(urls.new) never fetched), "
                + "\(urls.done) fetched, \(urls.failing) failing, \(urls.gone) gone, \(urls.excluded) excluded")
        } else {
            lines.append("  frontier: none yet")
        }
        if let summary = freshness?.summary { lines.append("  searchable: \(summary)") }
        if runs.isEmpty {
            lines.append("  no runs yet")
        } else {
            lines.append("  last runs:")
            for run in runs { lines.append("    " + Self.line(for: run)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func line(for run: JSONValue) -> String {
        func number(_ key: String) -> Int { run[key]?.intValue ?? 0 }
        let reasons = (run["skipped"]?.objectValue?.members ?? []).map { ($0.key, $0.value.intValue ?? 0) }
            .sorted { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        let skipped = reasons.reduce(0) { $0 + $1.1 }
        let largest = reasons.prefix(4).map { "\($0.0) \($0.1)" }.joined(separator: ", ") + (reasons.count > 4 ? ", …" : "")
        let traps = (run["patterns"]?.arrayValue ?? []).filter { $0["verdict"]?.stringValue == "trap" }.count
        let seconds = String(format: "%.1f", run["seconds"]?.doubleValue ?? 0)
        let id = run["id"]?.stringValue ?? "?"
        let stopped = run["stoppedBy"]?.stringValue ?? "?"
        return "\(id): \(stopped) after \(seconds) s; fetched \(number("fetched")), indexed \(number("indexed")), "
            + "removed \(number("deleted")), unchanged \(number("notModified")), skipped \(skipped)"
            + (reasons.isEmpty ? "" : " (\(largest))") + (traps > 0 ? "; \(traps) URL \(traps == 1 ? "pattern" : "patterns") not followed further" : "")
    }
}
