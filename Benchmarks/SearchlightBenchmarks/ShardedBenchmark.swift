import Dispatch
import Fetch
import Foundation
import HTTPServer
import Items
import JSON
import Router
import SearchIndex
import Service
import StoreSeams

/// Issue 31's benchmark: the index benchmark's corpus in one index and in `shards` indexes
/// (items placed by ``Shard``), each served over HTTP on 127.0.0.1 by a ``SearchService``
/// (result cache off), a ``SearchRouter`` over the shards; the same query sets through the
/// router and through the single node: top-10 overlap and same first result against the
/// single index, and each side's latency as a client sees it, one query at a time.
enum ShardedBenchmark {
    /// The fixed node table a router reads in this benchmark.
    struct Directory: SearchNodeDirectory {
        let nodes: [CrawlStatus.Node]
        func searchNodes() throws -> [CrawlStatus.Node] { nodes }
        func shardCount() throws -> Int? { nil }
    }

    static func run(items size: Int, shards: Int, directory: String) {
        let folder = (directory as NSString).appendingPathComponent("sharded-bench-\(size)")
        try? FileManager.default.removeItem(atPath: folder)
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var corpus = IndexBenchmark.Corpus()
        let now = Date()
        let whole = try! SearchIndex(path: folder + "/whole.sqlite")
        let parts = (0..<shards).map { try! SearchIndex(path: folder + "/shard-\($0).sqlite") }
        var wholeSeconds = 0.0
        var shardSeconds = 0.0
        for batch in stride(from: 0, to: size, by: 1000) {
            let items = (batch..<min(size, batch + 1000)).map { i in
                let id = "https://bench.example/items/\(i)"
                return SearchableItem(uniqueIdentifier: id, title: corpus.text(4), contentDescription: corpus.text(20),
                                      keywords: corpus.text(5).split(separator: " ").map(String.init), webURL: id, bodyText: corpus.text(300),
                                      source: .crawled, lastUpdated: now).checked
            }
            wholeSeconds += IndexBenchmark.time { try! whole.commit(ItemBatch(upserts: items), now: now) }
            var byShard = [[ValidItem]](repeating: [], count: shards)
            for item in items { byShard[Shard.number(of: item.key, count: shards)].append(item) }
            shardSeconds += IndexBenchmark.time {
                for (number, mine) in byShard.enumerated() where !mine.isEmpty { try! parts[number].commit(ItemBatch(upserts: mine), now: now) }
            }
        }
        let sets = IndexBenchmark.querySets(&corpus).filter { $0.name != "cjk" }
        measure(single: folder + "/whole.sqlite", shards: (0..<shards).map { folder + "/shard-\($0).sqlite" }, sets: sets,
                keyStore: folder + "/service.sqlite", report: [
                    ("benchmark", "sharded"), ("items", .init(size)), ("shards", .init(shards)),
                    ("single_index_items_per_s", .init(Double(size) / wholeSeconds)), ("shards_items_per_s", .init(Double(size) / shardSeconds)),
                ])
    }

    /// The same comparison over indexes already built: `serve-index WHOLE --items N` and
    /// `serve-index SPLIT --items N --shards K` (the same documents), with the query sets
    /// of `serve-index --export`'s `queries.json` (every set but `long`, whose requests take
    /// a path of their own).
    static func run(whole: String, split: String, shards: Int, queries: String) {
        let file = try! JSONParser.parse(String(contentsOfFile: queries, encoding: .utf8))
        let sets = (file.objectValue?.members ?? []).filter { $0.key != "long" }.map { member in
            (name: member.key, queries: (member.value.arrayValue ?? []).compactMap(\.stringValue))
        }
        let folder = NSTemporaryDirectory() + "/sharded-bench-keys-\(getpid())"
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let items = (try? SearchIndex(path: whole + "/index.sqlite", mode: .existing).count()) ?? 0
        measure(single: whole + "/index.sqlite", shards: ServeBenchmark.indexPaths(split, shards: shards), sets: sets,
                keyStore: folder + "/service.sqlite", report: [("benchmark", "sharded"), ("items", .init(items)), ("shards", .init(shards))])
    }

    /// Serves `single` and each of `shards` over HTTP on 127.0.0.1, a router over the
    /// shards, and asks both sides every query of `sets` twice (the second pass measured);
    /// prints `report` with the overlap and latency figures of each set.
    static func measure(single singlePath: String, shards shardPaths: [String], sets: [(name: String, queries: [String])],
                        keyStore: String, report: [(String, JSONValue)]) {
        let shards = shardPaths.count
        // One key store for every node: the router's credential and tokens come from its salt.
        let keys = try! ServiceStore(path: keyStore)
        func serve(_ path: String) -> HTTPServer {
            var configuration = SearchService.Configuration(indexPath: path)
            configuration.cacheLifetime = 0
            configuration.readers = 4
            let service = try! SearchService(configuration: configuration, items: try! SearchIndex(path: path), keys: keys, replica: nil)
            var server = HTTPServer.Configuration()
            server.port = 0
            server.threading = .pool(8)
            let running = try! service.serve(server)
            service.answer(as: "http://127.0.0.1:\(running.port)")
            return running
        }
        let single = serve(singlePath)
        let nodes = shardPaths.map(serve)
        let table = nodes.enumerated().map { number, server in
            CrawlStatus.Node(name: "shard-\(number)", behind: 0, silentFor: 0, shard: Shard(index: number, count: shards)!,
                             address: "http://127.0.0.1:\(server.port)")
        }
        let router = SearchRouter(configuration: SearchRouter.Configuration(), directory: Directory(nodes: table), salt: try! keys.deviceSalt())
        var routerServer = HTTPServer.Configuration()
        routerServer.port = 0
        routerServer.threading = .pool(8)
        let routing = try! router.serve(routerServer)
        defer {
            routing.stop()
            router.stop()
            single.stop()
            nodes.forEach { $0.stop() }
        }
        var fetch = FetchConfiguration(userAgent: "searchlight-bench")
        fetch.addressPolicy = .any
        let client = HTTPClient(configuration: fetch)
        defer { client.shutdown() }
        func ask(_ port: Int, _ query: String) -> (ids: [String], milliseconds: Double, partial: Bool) {
            let url = "http://127.0.0.1:\(port)/v1/search?limit=10&q=" + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query)
            var response: FetchResponse?
            let milliseconds = IndexBenchmark.time { response = client.fetch(FetchRequest(url: url)) } * 1000
            let json = try? JSONParser.parse(bytes: response?.body ?? [])
            return ((json?["results"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }, milliseconds, json?["partial"]?.boolValue ?? false)
        }
        var report = report
        for (name, queries) in sets {
            // A first pass warms both sides' pages; the second is measured.
            for query in queries {
                _ = ask(Int(single.port), query)
                _ = ask(Int(routing.port), query)
            }
            var singleLatencies: [Double] = []
            var routerLatencies: [Double] = []
            var overlap = 0.0
            var sameFirst = 0
            var compared = 0
            var partial = 0
            for query in queries {
                let one = ask(Int(single.port), query)
                let routed = ask(Int(routing.port), query)
                singleLatencies.append(one.milliseconds)
                routerLatencies.append(routed.milliseconds)
                if routed.partial { partial += 1 }
                guard !one.ids.isEmpty else { continue }
                compared += 1
                overlap += Double(Set(one.ids).intersection(routed.ids).count) / Double(one.ids.count)
                if one.ids.first == routed.ids.first { sameFirst += 1 }
            }
            func percentile(_ values: [Double], _ p: Double) -> JSONValue {
                values.isEmpty ? .null : .init(values.sorted()[min(values.count - 1, Int(Double(values.count) * p))])
            }
            report += [
                ("\(name)_queries", .init(queries.count)), ("\(name)_compared", .init(compared)), ("\(name)_partial_answers", .init(partial)),
                ("\(name)_top10_overlap", compared > 0 ? .init(overlap / Double(compared)) : .null),
                ("\(name)_same_first", compared > 0 ? .init(Double(sameFirst) / Double(compared)) : .null),
                ("\(name)_single_p50_ms", percentile(singleLatencies, 0.5)), ("\(name)_single_p99_ms", percentile(singleLatencies, 0.99)),
                ("\(name)_router_p50_ms", percentile(routerLatencies, 0.5)), ("\(name)_router_p99_ms", percentile(routerLatencies, 0.99)),
            ]
        }
        print(JSONWriter.string(.object(JSONObject(report))))
    }
}
