import Foundation
import Glibc
import Items
import JSON
import PostgresStore
import SearchIndex
import SearchlightTestSupport
import StoreSeams
import Synchronization
import Testing

/// `serve --router` over 4 shards × 2 replicas, real processes and PostgreSQL: the same
/// answers as one index of the same items, no failed query while a replica is killed, an
/// answer that says which shard is missing when a shard has no replica left, and the full
/// answer again once a new node has rebuilt that shard.
@Suite(.serialized) struct RouterTests {
    static let words = ["harbour", "lantern", "meadow", "orchid", "pepper", "quartz", "river", "saffron", "thistle", "velvet",
                        "willow", "zephyr", "garden", "market", "recipe", "travel"]
    static let queries = ["harbour", "lantern meadow", "orchid", "pepper quartz river", "saffron", "thistle velvet",
                          "willow zephyr garden", "market", "recipe travel", "harbour lantern meadow orchid pepper",
                          // Long enough for relevance feedback, which the router runs over the shards when
                          // several documents lead the first answer (the first two); the third's best
                          // (item 0, which holds every word) stands alone, so it is answered without.
                          "harbour lantern meadow orchid pepper quartz river", "harbour lantern meadow orchid pepper quartz filler",
                          "saffron thistle velvet willow zephyr garden market recipe"]

    /// Item n holds word k when n is a multiple of k + 1: common and rare words, uneven by shard.
    static func items() -> [SearchableItem] {
        (0..<160).map { n in
            let held = words.indices.filter { n % ($0 + 1) == 0 }.map { words[$0] }
            var item = SearchableItem(uniqueIdentifier: "item-\(n)", title: held.prefix(2).joined(separator: " ") + " \(n)",
                                      bodyText: held.joined(separator: " ") + String(repeating: " filler", count: n % 11),
                                      lastUpdated: Date(timeIntervalSince1970: 1_790_000_000))
            // Two of every three items have a place, a few sharing one (equally near).
            if n % 3 != 0 { item.location = GeoPoint(latitude: 48.8 + Double(n % 40) * 0.002, longitude: 2.3 + Double(n % 7) * 0.003) }
            return item
        }
    }

    struct Answer: CustomStringConvertible {
        var status: Int
        var ids: [String]
        var scores: [Double]
        var partial: Bool
        var missing: [Int]

        var description: String { "\(status) partial \(partial) missing \(missing) \(zip(ids, scores).map { "\($0) \($1)" })" }
    }

    static func ask(_ router: SearchNode, _ query: String) -> Answer {
        let reply = router.call("GET", "/v1/search?limit=10&q=" + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query))
        let results = reply.json?["results"]?.arrayValue ?? []
        return Answer(status: reply.status, ids: results.compactMap { $0["id"]?.stringValue }, scores: results.compactMap { $0["score"]?.doubleValue },
                      partial: reply.json?["partial"]?.boolValue ?? true,
                      missing: reply.json?["missingShards"]?.arrayValue?.compactMap(\.intValue) ?? [])
    }

    /// True when `answer` ranks as `expected` does: the same items in the same order, ties
    /// included (one total order, ``ResultOrder``), with the same scores to the 4 digits
    /// answers give, allowing the drift of a few seconds' freshness.
    static func same(_ answer: Answer, _ expected: [SearchHit]) -> Bool {
        let page = min(10, expected.count)
        guard answer.ids.count == page, answer.scores.count == page else { return false }
        for index in 0..<page {
            // An answer's score is the score rounded to 4 significant digits, so it lies within
            // half a unit of the 4th digit of the expected one — a little more, as the router
            // asks later than `expected` was computed and freshness decays meanwhile (a score
            // sitting on a rounding boundary rounds the other way a few seconds on).
            let unit = pow(10, (log10(max(abs(expected[index].score), 1e-300))).rounded(.down) - 3)
            guard abs(answer.scores[index] - expected[index].score) <= 0.5 * unit + 1e-6 * expected[index].score else { return false }
            if answer.ids[index] != expected[index].item.uniqueIdentifier { return false }
        }
        return true
    }

    /// Polls the router's health until `accept` holds (or 60 s pass).
    static func waitForHealth(_ router: SearchNode, _ accept: (JSONValue) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let health = router.call("GET", "/healthz").json, accept(health) { return true }
            usleep(100_000)
        }
        return false
    }

    /// Nodes that serve https (`--tls-cert`, `--tls-key`) advertise https, and a router that
    /// trusts their CA (`--cacert`) reaches them; one that does not trust it has no shard.
    @Test func aRouterReachesNodesOverHTTPSWithTheirCA() throws {
        let store = try PostgresCluster.shared.get().newDatabase()
        let shared = try SharedStore(url: store)
        _ = try PostgresItemStore(shared).commit(ItemBatch(validating: Self.items()), now: Date())
        let folder = try TemporaryDirectory("router-tls")
        defer { folder.remove() }
        let (certificate, key) = (folder.path + "/server.pem", folder.path + "/server-key.pem")
        try TestCertificates.serverTLS.certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
        try TestCertificates.serverTLS.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
        let nodes = try (0..<2).map { shard in
            try SearchNode(store: store, name: "tls\(shard)", extra: ["--shard", "\(shard)/2", "--tls-cert", certificate, "--tls-key", key])
        }
        defer { nodes.forEach { $0.stop() } }
        #expect(nodes.allSatisfy { $0.member.output.contains("on https://127.0.0.1:") }, "\(nodes.map(\.member.output))")
        let router = try SearchNode(store: store, name: "router", extra: ["--router", "--cacert", TestCertificates.caFile])
        defer { router.stop() }
        #expect(Self.waitForHealth(router) { $0["status"]?.stringValue == "ok" && $0["replicas"] == [1, 1] }, "\(router.member.output)")
        let answer = Self.ask(router, "harbour")
        #expect(answer.status == 200 && !answer.partial && answer.ids.count == 10, "\(answer)")

        // Without the CA the nodes' certificates are not trusted: every shard is missing.
        let untrusting = try SearchNode(store: store, name: "untrusting", extra: ["--router"])
        defer { untrusting.stop() }
        #expect(Self.waitForHealth(untrusting) { $0["replicas"] == [1, 1] }, "\(untrusting.member.output)")
        #expect(Self.ask(untrusting, "harbour").status == 503)
    }

    @Test func aRouterOverFourShardsOfTwoReplicasAnswersAsOneIndexThroughFaults() throws {
        let store = try PostgresCluster.shared.get().newDatabase()
        let shared = try SharedStore(url: store)
        _ = try PostgresItemStore(shared).commit(ItemBatch(validating: Self.items()), now: Date())
        // The reference: one SQLite index of the same items, copied from the same store.
        let folder = try TemporaryDirectory("router-reference")
        defer { folder.remove() }
        try LogFollower(store: shared, indexPath: folder.path + "/whole.sqlite", name: "reference").catchUp()
        let whole = try SearchIndex(path: folder.path + "/whole.sqlite", mode: .existing)
        let now = Date()
        let expected = try Dictionary(uniqueKeysWithValues: Self.queries.map { query in
            (query, try whole.search(SearchRequest(query, limit: 20, now: now)).hits)
        })
        #expect(expected.values.allSatisfy { !$0.isEmpty })

        var nodes: [[SearchNode]] = try (0..<4).map { shard in
            try (0..<2).map { replica in try SearchNode(store: store, name: "s\(shard)r\(replica)", extra: ["--shard", "\(shard)/4"]) }
        }
        defer { nodes.joined().forEach { $0.stop() } }
        let router = try SearchNode(store: store, name: "router", extra: ["--router"])
        defer { router.stop() }
        #expect(Self.waitForHealth(router) { $0["status"]?.stringValue == "ok" && $0["replicas"] == [2, 2, 2, 2] }, "\(router.member.output)")

        for query in Self.queries {
            let answer = Self.ask(router, query)
            #expect(answer.status == 200 && !answer.partial, "\(query)")
            #expect(Self.same(answer, expected[query]!), "\(query): \(answer) against \(expected[query]!.map { ($0.item.uniqueIdentifier, $0.score) })")
        }
        // The long requests with leading documents were answered with feedback run over the shards, none lost.
        let metrics = router.text("/metrics")
        #expect(metrics.contains("searchlight_router_feedback_searches_total 2\n") && metrics.contains("searchlight_router_feedback_lost_total 0\n"), "\(metrics)")
        // Near a place, nearest first: each shard's page merged by distance, as one index orders it.
        for query in ["harbour", "lantern meadow", "filler"] {
            var near = SearchRequest(query, limit: 10, now: now)
            near.filter.near = GeoCircle(center: GeoPoint(latitude: 48.83, longitude: 2.31), radius: 3)
            near.sort = .distance
            let one = try whole.search(near).hits
            let routed = router.call("GET", "/v1/search?limit=10&sort=distance&near=48.83,2.31&radius=3&q=" + query.replacingOccurrences(of: " ", with: "+"))
            let results = routed.json?["results"]?.arrayValue ?? []
            #expect(!one.isEmpty && results.compactMap { $0["id"]?.stringValue } == one.map(\.item.uniqueIdentifier), "\(query): \(String(describing: routed.json))")
            #expect(results.compactMap { $0["distance"]?.doubleValue } == one.compactMap(\.distance), "\(query)")
        }

        // A replica killed while queries run: its sibling answers, no query fails.
        let failures = Mutex<[String]>([])
        let answered = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let load = Thread {
            var turn = 0
            while !stop.load(ordering: .relaxed) {
                let query = Self.queries[turn % Self.queries.count]
                turn += 1
                let answer = Self.ask(router, query)
                answered.add(1, ordering: .relaxed)
                if answer.status != 200 || answer.partial || !Self.same(answer, expected[query]!) {
                    failures.withLock { $0.append("\(query): \(answer)") }
                }
            }
        }
        load.start()
        func waitForAnswers(_ count: Int) {
            let target = answered.load(ordering: .relaxed) + count
            let deadline = Date().addingTimeInterval(60)
            while answered.load(ordering: .relaxed) < target, Date() < deadline { usleep(10_000) }
        }
        waitForAnswers(20)
        nodes[1][0].member.killHard()
        waitForAnswers(100)
        // Until the router drops it from its map (it stops reporting), every query also tried it first half the time.
        #expect(Self.waitForHealth(router) { $0["replicas"] == [2, 1, 2, 2] })
        waitForAnswers(20)
        stop.store(true, ordering: .relaxed)
        while !load.isFinished { usleep(10_000) }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        #expect(answered.load(ordering: .relaxed) >= 140)

        // The shard's last replica gone: answers say which shard is missing and hold the rest
        // (ranked with the statistics of the shards that answered, so their order may differ).
        nodes[1][1].member.killHard()
        for query in Self.queries {
            let answer = Self.ask(router, query)
            let rest = Set(try whole.search(SearchRequest(query, limit: 100, now: now)).hits.map(\.item.uniqueIdentifier)
                .filter { Shard.number(of: ItemKey(owner: nil, identifier: $0), count: 4) != 1 })
            #expect(answer.status == 200 && answer.partial && answer.missing == [1], "\(query): \(answer)")
            #expect(answer.ids.count == min(10, rest.count) && Set(answer.ids).isSubset(of: rest), "\(query)")
        }

        // A new node builds shard 1 from the store; once it reports, answers are whole again.
        let rebuilt = try SearchNode(store: store, name: "s1r2", extra: ["--shard", "1/4"])
        nodes[1].append(rebuilt)
        #expect(Self.waitForHealth(router) { $0["nodes"]?.arrayValue?[1] == ["s1r2"] })
        for query in Self.queries {
            let answer = Self.ask(router, query)
            #expect(answer.status == 200 && !answer.partial && Self.same(answer, expected[query]!), "\(query): \(answer) \(router.member.output.suffix(300))")
        }

        // The store's shard count, once set, is what routers split over: set to 5 (a re-shard
        // whose nodes are not up yet), no node holds a shard of 5 and searches are refused
        // rather than answered from the wrong split; unset, the nodes' 4 again.
        let listed = try CommandRunner.run(["shards", "--store", store])
        let shardOne = listed.stdout.split(separator: "\n").first { $0.contains("shard 1/4:") } ?? ""
        #expect(listed.status == 0 && shardOne.contains("s1r2"), "\(listed.stdout)\(listed.stderr)")
        #expect(try CommandRunner.run(["shards", "--store", store, "--set", "5"]).status == 0)
        #expect(Self.waitForHealth(router) { $0["shards"] == 5 && $0["missingShards"] == [0, 1, 2, 3, 4] })
        #expect(Self.ask(router, "harbour").status == 503)
        #expect(try CommandRunner.run(["shards", "--store", store, "--set", "2000"]).status == 64)
        #expect(try CommandRunner.run(["shards", "--store", store, "--unset"]).status == 0)
        #expect(Self.waitForHealth(router) { $0["shards"] == 4 && $0["status"]?.stringValue == "ok" })
    }
}

/// Facets through a router: each shard counts every one of its matches (deleted items left
/// out), the router adds them up, and the counts are exact and the brute-force counts.
@Suite struct RouterFacetTests {
    @Test func aRouterCountsEveryMatchOverItsShards() throws {
        let store = try PostgresCluster.shared.get().newDatabase()
        let shared = try SharedStore(url: store)
        let types = ["public.recipe", "public.image", "public.movie"]
        let all = (0..<1_800).map { n in
            var item = SearchableItem(uniqueIdentifier: "facet-\(n)", title: "harbour walk \(n)", webURL: "https://site\(n % 4).example/\(n)",
                                      lastUpdated: Date(timeIntervalSince1970: 1_790_000_000))
            item.contentType = types[n % 3]
            return item
        }
        let items = PostgresItemStore(shared)
        _ = try items.commit(ItemBatch(validating: all), now: Date())
        // Every seventh item deleted after the shards' first copy: their segments keep them.
        let gone = Set(stride(from: 0, to: all.count, by: 7).map { "facet-\($0)" })
        let nodes = try (0..<2).map { shard in try SearchNode(store: store, name: "f\(shard)", extra: ["--shard", "\(shard)/2"]) }
        defer { nodes.forEach { $0.stop() } }
        let router = try SearchNode(store: store, name: "facet-router", extra: ["--router"])
        defer { router.stop() }
        #expect(RouterTests.waitForHealth(router) { $0["status"]?.stringValue == "ok" && $0["replicas"] == [1, 1] }, "\(router.member.output)")
        _ = try items.commit(ItemBatch(deleteIdentifiers: Array(gone)), now: Date())
        let live = all.filter { !gone.contains($0.uniqueIdentifier) }
        var byType: [String: Int] = [:], byDomain: [String: Int] = [:]
        for item in live {
            byType[item.contentType ?? "", default: 0] += 1
            byDomain[URL(string: item.webURL ?? "")?.host ?? "", default: 0] += 1
        }
        // The nodes follow the deletions within a moment: asked until the total says so.
        var answer: JSONValue?
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            answer = router.call("GET", "/v1/search?q=harbour&limit=3&facets=contentType,domain").json
            if answer?["estimatedTotalHits"]?.intValue == live.count { break }
            usleep(100_000)
        }
        #expect(answer?["estimatedTotalHits"]?.intValue == live.count && answer?["totalHitsExact"] == true, "\(String(describing: answer))")
        #expect(answer?["facetsExact"] == true)
        func counts(_ facet: String) -> [String: Int] {
            Dictionary(uniqueKeysWithValues: (answer?["facets"]?[facet]?.objectValue?.members ?? []).compactMap { member in
                member.value.intValue.map { (member.key, $0) }
            })
        }
        #expect(counts("contentType") == byType, "\(String(describing: answer?["facets"]))")
        #expect(counts("domain") == byDomain)
    }
}
