import Crawl
import Dispatch
import Foundation
import Items
import JSON
import PostgresStore
import SearchIndex
import StoreSeams
import Synchronization
import WebURL

/// The shared PostgreSQL store's own rates, with no web in the way (issue 16):
///
/// - `claims`: a frontier of N URLs on H hosts; W workers, each with its own connection,
///   take hosts and claim their URLs in blocks until none is left. Prints URLs claimed per
///   second for the fleet (the target is ≥ 5,000), next to the rate the frontier was
///   filled at.
/// - `follow`: items written through the store (as pushes and crawls write them, in
///   batches of 500), then a search node's copy follows the change log; prints the store's
///   write rate and the rate the node applies the log at (the target is ≥ 2,000 writes/s).
///
/// Each wants an empty database (`Benchmarks/fleet.sh` makes one per run).
enum FleetBenchmark {
    static func time(_ body: () -> Void) -> Double { IndexBenchmark.time(body) }

    static func claims(store url: String, urls: Int, hosts: Int, workers: Int, block: Int) {
        let shared = try! SharedStore(url: url)
        let filler = PostgresCrawlStore(shared)
        let now = Date()
        let origins = (0..<hosts).map { "http://site\($0).fleet.test" }
        let fill = time {
            for start in stride(from: 0, to: urls, by: 10_000) {
                var batch = CrawlBatch()
                batch.newURLs = (start..<min(urls, start + 10_000)).map { i in
                    FrontierURL(url: WebURL("\(origins[i % hosts])/items/\(i / hosts).html")!, depth: 1, foundOn: "bench")
                }
                _ = try! filler.commit(batch, now: now)
            }
        }
        let claimed = Atomic<Int>(0)
        let acquired = Atomic<Int>(0)
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let stores = (0..<workers).map { _ in PostgresCrawlStore(try! SharedStore(url: url), claimBlock: block) }
        // Every worker says it is alive before any takes hosts, so each takes its fair share.
        for store in stores { _ = try! store.hostsOverShare(now: now) }
        nonisolated(unsafe) let unsafeStores = stores
        var started = Date()
        for index in 0..<workers {
            ready.enter()
            done.enter()
            Thread {
                let store = unsafeStores[index]
                ready.leave()
                go.wait()
                var mine: [String] = []
                for origin in origins.shuffled() {
                    if case .granted = try! store.acquireHost(origin, now: now) { mine.append(origin) }
                }
                acquired.add(mine.count, ordering: .relaxed)
                for origin in mine {
                    while true {
                        let entries = try! store.claim(origin: origin, now: now, limit: block)
                        if entries.isEmpty { break }
                        claimed.add(entries.count, ordering: .relaxed)
                    }
                }
                done.leave()
            }.start()
        }
        ready.wait()
        started = Date()
        for _ in 0..<workers { go.signal() }
        done.wait()
        let seconds = Date().timeIntervalSince(started)
        print(JSONWriter.string(.object(JSONObject([
            ("benchmark", "fleet-claims"), ("urls", .init(urls)), ("hosts", .init(hosts)), ("workers", .init(workers)), ("block", .init(block)),
            ("frontier_urls_added_per_s", .init(Double(urls) / fill)),
            ("hosts_taken", .init(acquired.load(ordering: .relaxed))),
            ("urls_claimed", .init(claimed.load(ordering: .relaxed))),
            ("seconds", .init(seconds)),
            ("claims_per_s", .init(Double(claimed.load(ordering: .relaxed)) / seconds)),
        ]))))
    }

    static func follow(store url: String, items: Int, directory: String) {
        let shared = try! SharedStore(url: url)
        let writer = PostgresItemStore(shared)
        let folder = (directory as NSString).appendingPathComponent("fleet-follow")
        try? FileManager.default.removeItem(atPath: folder)
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let node = try! LogFollower(store: shared, indexPath: folder + "/index.sqlite", name: "bench-node")
        // The node's snapshot of the empty store: from here on it follows the log.
        try! node.catchUp()
        var corpus = IndexBenchmark.Corpus()
        let now = Date()
        let documents = (0..<items).map { i in
            SearchableItem(uniqueIdentifier: "https://bench.example/items/\(i)", title: corpus.text(4), contentDescription: corpus.text(20),
                           keywords: corpus.text(5).split(separator: " ").map(String.init), webURL: "https://bench.example/items/\(i)",
                           bodyText: corpus.text(300), source: .crawled, lastUpdated: now).checked
        }
        let write = time {
            for start in stride(from: 0, to: items, by: 500) {
                _ = try! writer.commit(ItemBatch(upserts: Array(documents[start..<min(items, start + 500)])), now: now)
            }
        }
        let apply = time { try! node.catchUp() }
        let copy = try! SearchIndex(path: folder + "/index.sqlite")
        print(JSONWriter.string(.object(JSONObject([
            ("benchmark", "fleet-follow"), ("items", .init(items)),
            ("store_writes_per_s", .init(Double(items) / write)),
            ("node_applies_per_s", .init(Double(items) / apply)),
            ("node_items", .init(try! copy.statistics().items)),
        ]))))
    }
}
