import DemoWeb
import Foundation
import Glibc
import HTTPServer
import JSON
import SearchlightTestSupport
import SQLite
import Testing

/// Several `searchlight` processes on one PostgreSQL store, as on several machines:
/// crawl workers sharing a frontier, search nodes following the change log.
@Suite(.serialized) struct FleetTests {
    static let delay = 0.25

    /// A word of its own for every number (its digits as letters), so that each page brings
    /// text the others lack and none is a near-duplicate.
    static func word(_ number: Int) -> String {
        "x" + String(String(number).map { Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(String($0))!)) })
    }

    /// `hosts` sites of `pages` pages each; every page links to every other of its site.
    static func fleetWeb(hosts: Int, pages: Int) throws -> (FixtureWeb, [String]) {
        let web = try FixtureWeb()
        let names = (0..<hosts).map { "site\($0).fleet.test" }
        for name in names {
            let links = (0..<pages).map { "<a href=\"/p\($0)\">page \($0)</a>" }.joined(separator: " ")
            web.page(name, "/", html: "<title>\(name) home</title><body>\(links)</body>")
            for page in 0..<pages {
                web.page(name, "/p\(page)", html: """
                    <title>\(name) page \(page)</title><meta name="description" content="fleetword \(name) number \(page)">
                    <body><p>fleetword text of page \(page) about \(word(page * 3)), \(word(page * 3 + 1)) and \(word(page * 3 + 2))</p>\(links)</body>
                    """)
            }
            web.file(name, "/robots.txt", contentType: "text/plain", bytes: Array("User-agent: *\nAllow: /\n".utf8))
        }
        return (web, names)
    }

    static func crawlArguments(_ web: FixtureWeb, _ names: [String], store: String) -> [String] {
        ["crawl"] + names.map { web.origin($0) + "/" } + names.flatMap { ["--resolve", web.resolveEntry($0)] }
            + ["--store", store, "--allow-private", "--delay", "\(delay)", "--per-host", "1", "--lease", "2s", "--no-warc", "--max-time", "90s"]
    }

    @Test func threeWorkersShareTheFrontierAndOneKilledLosesOnlyItsLeases() throws {
        let store = try PostgresCluster.shared.get().newDatabase()
        let (web, names) = try Self.fleetWeb(hosts: 6, pages: 10)
        defer { web.stop() }
        let arguments = Self.crawlArguments(web, names, store: store)
        let first = try Member(arguments, name: "worker1")
        let others = try [Member(arguments, name: "worker2"), Member(arguments, name: "worker3")]
        defer { ([first] + others).forEach { $0.stop() } }
        // Killed once the workers hold leases and have fetched something, however long that takes.
        // (The workers make the schema: until then the query fails.)
        #expect(waitUntil { ((try? scalar(store, "SELECT count(*) FROM urls WHERE fetched")) ?? 0) >= 6 })
        first.killHard()
        let killedAt = Date()
        for worker in others { #expect(worker.wait() == 0, "\(worker.output)") }

        // Every page of every site is in the index once.
        let pages = names.count * 11
        let items = try scalar(store, "SELECT count(*) FROM items")
        let fetched = try scalar(store, "SELECT count(*) FROM urls WHERE fetched")
        let leasedURLs = try scalar(store, "SELECT count(*) FROM urls WHERE lease_owner IS NOT NULL")
        let leasedHosts = try scalar(store, "SELECT count(*) FROM hosts WHERE lease_owner IS NOT NULL")
        let outputs = others.map(\.output).joined(separator: "\n---\n")
        // A fetch that failed for a transient reason (the loaded fixture server refused a
        // connection) is kept for a later run, counted on its URL, not lost.
        let deferred = try scalar(store, "SELECT count(*) FROM urls WHERE failures > 0")
        #expect(deferred <= 2, "\(outputs)")
        #expect(items + deferred == pages, "\(outputs)")
        #expect(fetched == pages)
        #expect(leasedURLs == 0)
        #expect(leasedHosts == 0)

        let requests = web.timedRequests
        for name in names {
            let mine = requests.filter { $0.target.hasPrefix(name + "/") }
            // robots.txt once for the whole fleet.
            #expect(mine.filter { $0.target.hasSuffix("/robots.txt") }.count == 1, "\(name)")
            // Only a page the killed worker had in flight may be fetched twice.
            let byTarget = Dictionary(grouping: mine, by: \.target)
            for (target, times) in byTarget where times.count > 1 {
                #expect(times.count == 2 && times.map(\.time).min()! < killedAt, "\(target) fetched \(times.count) times")
            }
            // Politeness across workers: requests to one host --delay apart. The times are taken
            // where the fixture server handles each request, which on a loaded machine runs some
            // time after it arrived, by a different amount for each: one late handling moves one
            // gap and shortens the next. So the whole run of a host's requests must span
            // (n - 1) × --delay, less the lateness of its two ends, and no two requests may come
            // together (two workers asking at once would be a few milliseconds apart).
            let times = mine.map(\.time).sorted()
            if let first = times.first, let last = times.last {
                #expect(last.timeIntervalSince(first) >= Double(times.count - 1) * Self.delay - 0.2,
                        "\(name): \(times.count) requests in \(last.timeIntervalSince(first)) s")
            }
            for (earlier, later) in zip(times, times.dropFirst()) {
                #expect(later.timeIntervalSince(earlier) >= Self.delay / 5, "\(name): \(later.timeIntervalSince(earlier)) s apart")
            }
        }
    }

    @Test func ingestWritesAppRecordsThroughTheSharedStore() throws {
        let store = try PostgresCluster.shared.get().newDatabase()
        let folder = try TemporaryDirectory("ingest-store")
        defer { folder.remove() }
        let database = folder.url.appendingPathComponent("HR.sqlite").path
        try DemoApps.makeHRStore(at: database)
        let ingest = ["ingest", database, "--mapping", DemoApps.hrMapping.path, "--model", DemoApps.hrModel.path, "--store", store,
                      "--data", folder.path + "/data", "--json"]
        let first = try CommandRunner.run(ingest)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try JSONParser.parse(first.stdout)["created"] == 10)
        let node = try SearchNode(store: store, name: "hr")
        defer { node.stop() }
        #expect(node.search("Marian Paul", until: { $0.first == "employee_Marian_Paul" }).first == "employee_Marian_Paul")
        let local = try CommandRunner.run(["search", "marian", "--data", node.member.folder.path, "--json"])
        #expect(try JSONParser.parse(local.stdout)["results"]?.arrayValue?.first?["source"] == ["name": "hr", "entity": "Manager", "key": "1"],
                "the record travels through the change log: \(local.stderr)")
        #expect(node.call("GET", "/v1/search?q=marian").json?["results"]?.arrayValue?.first?["source"] == "pushed",
                "the public answer names no record")
        try SQLiteConnection(path: database).execute("UPDATE ZCOMPANY SET ZNAME = 'Wasappli SAS', Z_OPT = Z_OPT + 1 WHERE Z_PK = 1")
        let second = try JSONParser.parse(try CommandRunner.run(ingest).stdout)
        #expect(second["updated"] == 4 && second["created"] == 0)
        #expect(node.search("wasappli sas", until: { $0.count == 4 }).count == 4)
        let resolved = try CommandRunner.run(["resolve", "employee_Marian_Paul", "--store", store, "--data", folder.path + "/data", "--json"])
        #expect(try JSONParser.parse(resolved.stdout)["relationships"]?["company"]?["keys"] == ["1"], "\(resolved.stderr)")
        let status = try JSONParser.parse(try CommandRunner.run(["status", "--store", store, "--json"]).stdout)
        #expect(status["index"]?["bySource"]?["ingested"] == 10, "counted as ingested, not pushed: \(status["index"] ?? .null)")
    }

    /// One data folder pointed at two stores in turn: each search answers from the store
    /// it names, never from a copy of the other (both logs start at the same position).
    @Test func aLocalCopyKnowsWhichStoreItFollows() throws {
        let cluster = try PostgresCluster.shared.get()
        let (one, two) = (try cluster.newDatabase(), try cluster.newDatabase())
        let folder = try TemporaryDirectory("two-stores")
        defer { folder.remove() }
        for (store, title) in [(one, "Apple pie"), (two, "Apple crumble")] {
            let file = folder.url.appendingPathComponent("\(title).json")
            try #"{"items": [{"uniqueIdentifier": "dessert", "title": "\#(title)"}]}"#.write(to: file, atomically: true, encoding: .utf8)
            let added = try CommandRunner.run(["index", "add", file.path, "--store", store, "--data", folder.path + "/data"])
            #expect(added.status == 0, "\(added.stderr)")
        }
        func title(_ store: String) throws -> String? {
            let result = try CommandRunner.run(["search", "apple", "--store", store, "--data", folder.path + "/data", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONParser.parse(result.stdout)["results"]?.arrayValue?.first?["title"]?.stringValue
        }
        #expect(try title(one) == "Apple pie")
        #expect(try title(two) == "Apple crumble", "the copy of the first store is rebuilt for the second")
        #expect(try title(one) == "Apple pie")
    }

    @Test func searchNodesFollowTheLogAndAnyNodeTakesWrites() throws {
        let store = try PostgresCluster.shared.get().newDatabase()
        let created = try CommandRunner.run(["keys", "create", "--store", store, "--owner", "friends", "--domain", "friends.example"])
        #expect(created.status == 0, "\(created.stderr)")
        let key = String(created.stdout.split(separator: "\n").first ?? "")
        let one = try SearchNode(store: store, name: "one")
        let two = try SearchNode(store: store, name: "two")
        defer { one.stop(); two.stop() }

        func party(_ number: Int) -> JSONValue {
            .object(JSONObject([("uniqueIdentifier", .string("party-\(number)")), ("title", .string("Zebra party \(number)")),
                                ("webURL", .string("https://friends.example/party/\(number)"))]))
        }
        let pushed = one.call("POST", "/v1/items", json: ["items": .array((0..<40).map(party))], key: key)
        #expect(pushed.status == 200, "\(String(describing: pushed.json))")
        // Written through one node, found on the other within its --max-lag.
        #expect(two.search("zebra", until: { $0.count == 40 }).count == 40)
        let removed = two.call("DELETE", "/v1/items", json: ["ids": ["party-3", "party-4"]], key: key)
        #expect(removed.status == 200, "\(String(describing: removed.json))")
        #expect(one.search("zebra", until: { $0.count == 38 }).count == 38)
        // Ownership holds across nodes: another key cannot take the items over.
        let other = try CommandRunner.run(["keys", "create", "--store", store, "--owner", "rival", "--domain", "rival.example"])
        let rivalKey = String(other.stdout.split(separator: "\n").first ?? "")
        _ = two.call("DELETE", "/v1/items", json: ["ids": ["party-5"]], key: rivalKey)
        _ = two.call("POST", "/v1/items", json: ["items": [.object(JSONObject([("uniqueIdentifier", "party-6"), ("title", "Stolen"),
                                                                               ("webURL", "https://rival.example/6")]))]], key: rivalKey)
        #expect(one.search("zebra party 5").ids.first == "party-5")
        #expect(one.search("zebra party 6").ids.first == "party-6")

        // A node started late builds its copy before it serves, then follows.
        let late = try SearchNode(store: store, name: "late")
        defer { late.stop() }
        #expect(Set(late.search("zebra").ids) == Set(one.search("zebra").ids))
        _ = one.call("POST", "/v1/items", json: ["items": [party(100)]], key: key)
        #expect(late.search("zebra", until: { $0.count == 39 }).count == 39)

        // A node whose copy is thrown away rebuilds the same copy.
        let folder = late.member.folder.path
        late.member.process.terminate()
        late.member.process.waitUntilExit()
        try FileManager.default.removeItem(atPath: folder + "/index.sqlite")
        let rebuilt = try SearchNode(store: store, name: "rebuilt")
        defer { rebuilt.stop() }
        for query in ["zebra", "party 7", "zebra 100"] {
            #expect(rebuilt.search(query).ids == two.search(query).ids, "\(query)")
        }
        // Every node reports how far behind it is.
        let status = try CommandRunner.run(["status", "--store", store])
        #expect(status.stdout.contains("one") && status.stdout.contains("two") && status.stdout.contains("rebuilt"), "\(status.stdout)")
    }

    @Test func aDatabaseRestartMidCrawlLosesNothingAndNodesSayWhenTheyAreBehind() throws {
        let cluster = try PostgresCluster.own()
        let store = try cluster.newDatabase()
        let (web, names) = try Self.fleetWeb(hosts: 2, pages: 12)
        defer { web.stop() }
        let node = try SearchNode(store: store, name: "node", extra: ["--max-lag", "1s"])
        defer { node.stop() }
        let worker = try Member(Self.crawlArguments(web, names, store: store), name: "worker")
        defer { worker.stop() }
        // The database goes once the crawl is under way.
        #expect(waitUntil { ((try? scalar(store, "SELECT count(*) FROM items")) ?? 0) > 0 })
        try cluster.stop()
        // The node's copy cannot be confirmed current: once past its lag it refuses rather
        // than answer stale.
        #expect(waitUntil { node.call("GET", "/v1/search?q=fleetword").status == 503 })
        let behind = node.call("GET", "/v1/search?q=fleetword")
        #expect(behind.status == 503)
        #expect(behind.json?["error"]?["code"]?.stringValue == "behind")
        try cluster.resume()
        #expect(worker.wait() == 0, "\(worker.output)")
        #expect(try scalar(store, "SELECT count(*) FROM items") == names.count * 13)
        #expect(node.search("fleetword", until: { $0.count == names.count * 12 }).count == names.count * 12)
    }
}
