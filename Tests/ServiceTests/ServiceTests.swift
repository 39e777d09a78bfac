import Fetch
import Foundation
import HTTPServer
import HTTPTypes
import Items
import JSON
import SearchIndex
import SearchlightTestSupport
import Service
import ServiceAPI
import StoreSeams
import Synchronization
import Testing

/// `searchlight serve`'s API over real HTTP on 127.0.0.1, through libcurl.
@Suite struct ServiceTests {
    @Test func searchAnswersExactlyAsTheCommandLineDoes() throws {
        let running = try RunningService()
        defer { running.stop() }
        let key = try running.key(owner: "recipes", domain: "recipes.example")
        let pushed = running.call("POST", "/v1/items", json: items(
            item("tart", "Lemon tart", webURL: "https://recipes.example/tart", extra: [
                ("contentDescription", "A sharp lemon tart."), ("rating", 4.5), ("ratingCount", 12),
                ("apps", [["platform": "ios", "appStoreId": "1234567890", "name": "RecipeBox", "deepLink": "recipebox://tart"]]),
            ]),
            item("pie", "Lemon meringue pie", webURL: "https://recipes.example/pie")), key: key)
        #expect(pushed.status == 200)
        #expect(pushed.json?["upserted"] == 2)

        let data = URL(fileURLWithPath: running.indexPath).deletingLastPathComponent().path
        for extra in [[], ["--installed", "1234567890"], ["--platform", "android"]] {
            let local = try CommandRunner.run(["search", "lemon", "--data", data, "--json"] + extra)
            let remote = try CommandRunner.run(["search", "lemon", "--server", running.baseURL, "--json"] + extra)
            #expect(local.status == 0 && remote.status == 0, "\(remote.stderr)")
            // The same answer but for the time each took.
            func untimed(_ text: String) throws -> JSONValue {
                var object = try JSONParser.parse(text).objectValue ?? JSONObject()
                object["processingTimeMs"] = nil
                return .object(object)
            }
            #expect(try untimed(remote.stdout) == untimed(local.stdout), "search --server prints what a local search prints")
            var path = "/v1/search?q=lemon"
            if extra.first == "--installed" { path += "&installed=1234567890" }
            if extra.first == "--platform" { path += "&platform=android" }
            var answer = try #require(running.call("GET", path).json?.objectValue)
            #expect(answer["engagementToken"]?.stringValue?.isEmpty == false, "an answer carries the token its engagement needs")
            answer["engagementToken"] = nil
            answer["processingTimeMs"] = nil
            #expect(JSONValue.object(answer) == (try untimed(local.stdout)), "the API answers in the search --json shape")
        }
        let local = try CommandRunner.run(["search", "lemon tart", "--data", data, "--installed", "1234567890"])
        let remote = try CommandRunner.run(["search", "lemon tart", "--server", running.baseURL, "--installed", "1234567890"])
        #expect(remote.stdout == local.stdout)
        #expect(remote.stdout.contains("tap: open-app recipebox://tart (RecipeBox)"))
        let bad = try CommandRunner.run(["search", "   ", "--server", running.baseURL])
        #expect(bad.status == 64, "the server's 400 is a usage error, as locally")
    }

    /// Paging as Meilisearch and Typesense page: `offset` and `limit`, a hit count marked
    /// exact or not, the time taken, and the snippet's matches as ranges, not control bytes.
    @Test func searchPagesCountsTimesAndGivesMatchRanges() throws {
        let log = try TemporaryDirectory("access")
        defer { log.remove() }
        let logPath = log.path + "/access.log"
        let running = try RunningService(service: { $0.accessLog = try? AccessLog(path: logPath) })
        defer { running.stop() }
        let key = try running.key(owner: "recipes", domain: "recipes.example")
        let many = (0..<25).map { item("soup\($0)", "Soup number \($0)", webURL: "https://recipes.example/soup/\($0)",
                                      extra: [("contentDescription", .string("A warming soup with leeks, number \($0)."))]) }
        #expect(running.call("POST", "/v1/items", json: ["items": .array(many)], key: key).status == 200)
        let first = try #require(running.call("GET", "/v1/search?q=soup&limit=10").json)
        let second = try #require(running.call("GET", "/v1/search?q=soup&limit=10&offset=10").json)
        let third = try #require(running.call("GET", "/v1/search?q=soup&limit=10&offset=20").json)
        let ids = [first, second, third].flatMap { $0["results"]?.arrayValue ?? [] }.compactMap { $0["id"]?.stringValue }
        #expect(ids.count == 25 && Set(ids).count == 25, "three pages hold every item once: \(ids)")
        #expect(second["offset"] == 10)
        #expect(first["estimatedTotalHits"] == 25 && first["totalHitsExact"] == true)
        #expect((first["processingTimeMs"]?.doubleValue ?? -1) >= 0)

        let snipped = try #require(running.call("GET", "/v1/search?q=leeks&snippets=1&limit=1").json?["results"]?.arrayValue?.first)
        let snippet = try #require(snipped["snippet"]?.stringValue)
        #expect(!snippet.unicodeScalars.contains { $0.value < 0x20 }, "no control characters in JSON: \(snippet.debugDescription)")
        let ranges = snipped["snippetHighlights"]?.arrayValue ?? []
        #expect(ranges.count == 1)
        let utf16 = Array(snippet.utf16)
        if let start = ranges.first?.arrayValue?.first?.intValue, let end = ranges.first?.arrayValue?.last?.intValue, start < end, end <= utf16.count {
            #expect(String(decoding: utf16[start..<end], as: UTF16.self) == "leeks")
        } else {
            Issue.record("no usable range: \(ranges)")
        }
        // The remote CLI puts the marks back from the ranges.
        let remote = try CommandRunner.run(["search", "leeks", "--server", running.baseURL])
        #expect(remote.stdout.contains("*leeks*"), "\(remote.stdout)")

        let lines = (try? String(contentsOfFile: logPath, encoding: .utf8))?.split(separator: "\n") ?? []
        #expect(lines.contains { $0.contains("\"GET /v1/search?q=soup&limit=10&offset=10 HTTP/1.1\" 200 ") }, "\(lines.prefix(3))")
        #expect(lines.contains { $0.contains("\"POST /v1/items HTTP/1.1\" 200 ") })
    }

    @Test func pushReplacesWholeAndDeletesByIdDomainAndOwner() throws {
        let running = try RunningService()
        defer { running.stop() }
        let key = try running.key(owner: "people-app", domain: "example.com")
        let other = try running.key(owner: "other-app", domain: "example.org")
        running.call("POST", "/v1/items", json: items(
            item("p1", "Becky Lane", domain: "com.example.people", extra: [("keywords", ["friend"])]),
            item("p2", "Sam Lane", domain: "com.example.people.staff"),
            item("p3", "Mei Lane", domain: "com.example.peoplex"),
            item("p4", "Ana Lane", webURL: "https://www.example.com/ana")), key: key)
        running.call("POST", "/v1/items", json: items(item("o1", "Olga Lane", webURL: "https://example.org/olga")), key: other)
        #expect(Set(running.ids("lane")) == ["p1", "p2", "p3", "p4", "o1"])

        // An upsert replaces the whole item: the keyword is gone with the new version.
        running.call("POST", "/v1/items", json: items(item("p1", "Becky Lane", domain: "com.example.people")), key: key)
        #expect(running.ids("friend").isEmpty)

        #expect(running.call("DELETE", "/v1/items?id=p4&id=o1", key: key).json?["deleted"] == 1, "o1 is not this owner's")
        #expect(running.call("DELETE", "/v1/domains/com.example.people", key: key).json?["deleted"] == 2, "p1 and p2, not p3")
        #expect(Set(running.ids("lane")) == ["p3", "o1"])
        #expect(running.call("DELETE", "/v1/items", key: key).json?["deleted"] == 1, "all of this owner's items: p3")
        #expect(running.ids("lane") == ["o1"])
    }

    @Test func writesNeedAKeyForTheRightDomain() throws {
        let running = try RunningService()
        defer { running.stop() }
        let a = try running.key(owner: "a-app", domain: "a.example")
        let b = try running.key(owner: "b-app", domain: "b.example")
        let body = items(item("a1", "Alpha thing", webURL: "https://shop.a.example/1"))
        #expect(running.call("POST", "/v1/items", json: body).status == 401)
        #expect(running.call("POST", "/v1/items", json: body, key: "slk_nothing_here").status == 401)
        #expect(running.call("POST", "/v1/items", json: body, key: a + "x").status == 401, "a wrong secret")
        #expect(running.call("POST", "/v1/items", json: body, key: b).errorCode == "forbidden", "b.example cannot write a.example")
        #expect(running.call("POST", "/v1/items", json: items(item("a2", "Alpha", webURL: "https://evila.example/")), key: a).status == 403,
                "evila.example is not under a.example")
        #expect(running.call("POST", "/v1/items", json: items(item("a3", "Alpha", domain: "example.b.x")), key: a).status == 403)
        #expect(running.call("POST", "/v1/items", json: items(item("a4", "Alpha", domain: "example.a.sub")), key: a).status == 200)
        #expect(running.call("POST", "/v1/items", json: body, key: a).status == 200)
        #expect(running.ids("alpha").count == 2, "reads need no key")

        // b may neither replace nor delete a's items, nor its domains: its own "a1" is another item.
        #expect(running.call("POST", "/v1/items", json: items(item("a1", "Hijacked", webURL: "https://b.example/1")), key: b).status == 200)
        #expect(running.call("DELETE", "/v1/items?id=a1", key: b).json?["deleted"] == 1, "b deletes its own a1")
        #expect(running.call("DELETE", "/v1/items?id=a1", key: b).json?["deleted"] == 0)
        #expect(running.call("DELETE", "/v1/domains/example.a", key: b).status == 403)
        #expect(running.call("DELETE", "/v1/items", key: b).json?["deleted"] == 0)
        #expect(running.ids("alpha").count == 2)

        // A revoked key stops working at once.
        let id = String(a.dropFirst(APIKey.prefix.count).prefix { $0 != "_" })
        #expect(try ServiceStore(path: running.service.configuration.storePath).revokeKey(id: id))
        #expect(running.call("DELETE", "/v1/items", key: a).status == 401)
    }

    @Test func anActivityIsPublicOnlyAfterEnoughDevicesOnEnoughNetworks() throws {
        let running = try RunningService(activityThreshold: 3)
        defer { running.stop() }
        let key = try running.key(owner: "recipes", domain: "recipes.example")
        func report(_ device: String, from network: String) -> RunningService.Reply {
            running.call("POST", "/v1/activities", json: [
                "activityType": "com.recipes.view", "title": "Saffron risotto", "webpageURL": "https://recipes.example/risotto",
                "keywords": ["rice"], "deviceId": .string(device),
            ], key: key, from: network)
        }
        // 127.1.0.1, 127.2.0.1 and 127.3.0.1 are loopback addresses in three different /24s.
        #expect(report("device-one", from: "127.1.0.1").json?["devices"] == 1)
        #expect(report("device-one", from: "127.1.0.1").json?["devices"] == 1, "the same device counts once")
        #expect(report("device-two", from: "127.2.0.1").json?["public"] == false)
        #expect(running.ids("saffron").isEmpty, "two devices are not enough")

        // One key inventing device ids from one network stays one network.
        for n in 0..<5 {
            let sybil = report("invented-\(n)", from: "127.2.0.\(n + 2)")
            #expect(sybil.json?["public"] == false, "\(sybil.text)")
        }
        #expect(report("invented-5", from: "127.2.0.9").json?["networks"] == 2)
        #expect(running.ids("saffron").isEmpty, "many devices on two networks are not enough")

        let third = report("device-three", from: "127.3.0.1")
        #expect(third.status == 202)
        #expect(third.json?["public"] == true)
        #expect(running.ids("saffron") == ["activity:com.recipes.view:https://recipes.example/risotto"])
        let hit = running.call("GET", "/v1/search?q=saffron").json?["results"]?.arrayValue?.first
        #expect(hit?["source"] == "activity")
        #expect(hit?["action"]?["type"] == "open-web")

        // Device ids are kept only as salted hashes.
        let store = running.service.configuration.storePath
        let files = [store, store + "-wal", running.indexPath, running.indexPath + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }
        #expect(!files.isEmpty)
        for file in files { #expect(file.range(of: Data("device-two".utf8)) == nil) }
        #expect(running.call("POST", "/v1/activities", json: [
            "activityType": "view", "title": "Elsewhere", "webpageURL": "https://other.example/x", "deviceId": "d",
        ], key: key).status == 403, "an activity on another domain")
    }

    @Test func batchesCompareAndSwapTheirClientState() throws {
        let running = try RunningService()
        defer { running.stop() }
        let key = try running.key(owner: "sync", domain: "sync.example")
        let other = try running.key(owner: "other", domain: "other.example")
        #expect(running.call("GET", "/v1/batches/main", key: key).json?["clientState"] == .null)
        func commit(expected: JSONValue, state: String, _ list: [JSONValue] = [], key: String) -> RunningService.Reply {
            running.call("POST", "/v1/batches/main", json: [
                "expectedClientState": expected, "clientState": .string(state), "items": .array(list),
            ], key: key)
        }
        #expect(commit(expected: .null, state: "v1", [item("s1", "Synced one", webURL: "https://sync.example/1")], key: key).status == 200)
        let stale = commit(expected: .null, state: "v1b", [item("s2", "Synced two", webURL: "https://sync.example/2")], key: key)
        #expect(stale.status == 409)
        #expect(stale.errorCode == "conflict")
        #expect(running.ids("synced") == ["s1"], "a stale batch writes nothing")
        #expect(commit(expected: "v1", state: "v2", [item("s2", "Synced two", webURL: "https://sync.example/2")], key: key).status == 200)
        #expect(running.call("GET", "/v1/batches/main", key: key).json?["clientState"] == "v2")
        #expect(Set(running.ids("synced")) == ["s1", "s2"])
        // Batch names belong to their owner.
        #expect(running.call("GET", "/v1/batches/main", key: other).json?["clientState"] == .null)
        #expect(commit(expected: .null, state: "o1", key: other).status == 200)
        #expect(running.call("GET", "/v1/batches/main", key: key).json?["clientState"] == "v2")
        #expect(running.call("GET", "/v1/batches/main").status == 401)
        #expect(running.call("POST", "/v1/batches/main", json: ["clientState": "x"], key: key).status == 400, "expectedClientState is required")
    }

    @Test func engagementLiftsTheItemsPeopleOpen() throws {
        let now = Mutex(Date())
        let running = try RunningService(clock: { now.withLock { $0 } })
        defer { running.stop() }
        let key = try running.key(owner: "shop", domain: "shop.example")
        running.call("POST", "/v1/items", json: items(
            item("red", "Walking boots", webURL: "https://shop.example/red"),
            item("blue", "Walking boots", webURL: "https://shop.example/blue")), key: key)
        let before = running.ids("walking boots")
        let loser = before.first ?? "red"
        let winner = loser == "red" ? "blue" : "red"
        var events: [JSONValue] = []
        for _ in 0..<30 {
            events.append(["id": .string(winner), "type": "impression"])
            events.append(["id": .string(winner), "type": "click"])
            events.append(["id": .string(loser), "type": "impression"])
        }
        events.append(["id": "nothing", "type": "click"])
        let reply = running.call("POST", "/v1/engagement", json: ["query": "walking boots", "events": .array(events)], key: key)
        #expect(reply.status == 200)
        #expect(reply.json?["items"] == 2)
        #expect(reply.json?["unknownItems"] == 1)
        // Engagement is not the searcher's own write: it shows within the cache's refresh interval.
        running.ids("walking boots")
        now.withLock { $0 = $0.addingTimeInterval(5) }
        #expect(running.ids("walking boots") == [winner, loser], "clicks over impressions lift an item")
        #expect(running.call("POST", "/v1/engagement", json: ["query": "x", "events": [["id": "red", "type": "like"]]], key: key).status == 400)
        // Without a key (the search page), only results the answer's token names count, once per network and day.
        #expect(running.call("POST", "/v1/engagement", json: ["query": "x", "events": [["id": .string(winner), "type": "click"]]]).status == 400,
                "no token")
        let token = try #require(running.call("GET", "/v1/search?q=walking+boots").json?["engagementToken"]?.stringValue)
        let anonymous = running.call("POST", "/v1/engagement", json: ["query": "walking boots", "token": .string(token), "events": [
            ["id": .string(winner), "type": "impression"], ["id": .string(winner), "type": "click"], ["id": .string(winner), "type": "click"],
            ["id": "nothing", "type": "click"]]])
        #expect(anonymous.status == 200)
        #expect(anonymous.json?["impressions"] == 1)
        #expect(anonymous.json?["clicks"] == 1)
        #expect(anonymous.json?["foreignItems"] == 1)
        #expect(running.call("POST", "/v1/engagement", json: ["token": .string(token), "events": [["id": .string(winner), "type": "click"]]])
            .json?["clicks"] == 0, "a network's click counts once a day")
    }

    @Test func badInputGetsA4xxWithAnErrorObjectAndNeverA500() throws {
        let running = try RunningService(maximumBodyBytes: 64 * 1024, maximumItems: 10)
        defer { running.stop() }
        let key = try running.key(owner: "app", domain: "app.example")
        let cases: [(String, RunningService.Reply, Int, String)] = [
            ("malformed JSON", running.call("POST", "/v1/items", body: Array("{\"items\": [".utf8), key: key), 400, "invalid-json"),
            ("not JSON at all", running.call("POST", "/v1/items", body: [0xFF, 0x00, 0x12], key: key), 400, "invalid-json"),
            ("a wrong type", running.call("POST", "/v1/items", json: ["items": "many"], key: key), 400, "invalid-field"),
            ("a wrong field type", running.call("POST", "/v1/items", json: items(["uniqueIdentifier": 5, "title": "x"]), key: key), 400,
             "invalid-item"),
            ("an unknown field", running.call("POST", "/v1/items", json: ["items": [], "colour": "red"], key: key), 400, "invalid-field"),
            ("an unknown item field", running.call("POST", "/v1/items", json: items(item("x", "X", domain: "example.app", extra: [("size", 1)])),
                                                   key: key), 400, "invalid-item"),
            ("an invalid URL", running.call("POST", "/v1/items", json: items(item("x", "X", webURL: "javascript:alert(1)")), key: key), 400,
             "invalid-item"),
            ("too many items", running.call("POST", "/v1/items", json: ["items": .array((0..<11).map {
                item("i\($0)", "Item", domain: "example.app") })], key: key), 413, "too-large"),
            ("an oversized body", running.call("POST", "/v1/items", body: Array(repeating: 0x20, count: 100 * 1024), key: key), 413, "too-large"),
            ("a form body", running.call("POST", "/v1/items", body: Array("items=1".utf8), key: key,
                                          contentType: "application/x-www-form-urlencoded"), 415, "unsupported-media-type"),
            ("no query", running.call("GET", "/v1/search"), 400, "invalid-query"),
            ("an unknown parameter", running.call("GET", "/v1/search?q=a&limt=5"), 400, "invalid-query"),
            ("a negative offset", running.call("GET", "/v1/search?q=a&offset=-1"), 400, "invalid-query"),
            ("an offset past the window", running.call("GET", "/v1/search?q=a&offset=995&limit=10"), 400, "invalid-query"),
            ("an empty query", running.call("GET", "/v1/search?q=%20%20"), 400, "invalid-query"),
            ("a pasted paragraph", running.call("GET", "/v1/search?q=" + String(repeating: "a%20", count: 400)), 200, ""),
            ("a huge query", running.call("GET", "/v1/search?q=" + String(repeating: "ab%20", count: 1400)), 400, "invalid-query"),
            ("control characters", running.call("GET", "/v1/search?q=a%00b"), 400, "invalid-query"),
            ("invalid UTF-8", running.call("GET", "/v1/search?q=%FF%FE"), 400, "invalid-query"),
            ("FTS5 syntax", running.call("GET", "/v1/search?q=%22unbalanced%20NEAR(%20*"), 200, ""),
            ("a bad limit", running.call("GET", "/v1/search?q=a&limit=5000"), 400, "invalid-query"),
            ("a bad platform", running.call("GET", "/v1/search?q=a&platform=palm"), 400, "invalid-query"),
            ("an unknown path", running.call("GET", "/v2/search"), 404, "not-found"),
            ("a wrong method", running.call("PUT", "/v1/items", key: key), 405, "method-not-allowed"),
        ]
        for (name, reply, status, code) in cases {
            #expect(reply.status == status, "\(name): \(reply.text)")
            if !code.isEmpty { #expect(reply.errorCode == code, "\(name): \(reply.text)") }
            #expect(reply.status < 500, "\(name) is the client's mistake")
        }
        #expect(running.call("PUT", "/v1/items", key: key).headers.first("Allow") == "POST, DELETE")
        #expect(running.call("GET", "/healthz").json == ["status": "ok"], "still healthy")
    }

    @Test func healthMetricsAndTheOpenAPIDocument() throws {
        let running = try RunningService()
        defer { running.stop() }
        let key = try running.key(owner: "app", domain: "app.example")
        running.call("POST", "/v1/items", json: items(item("m1", "Metric item", webURL: "https://app.example/m1")), key: key)
        running.ids("metric")
        running.call("GET", "/v1/search")
        let metrics = running.call("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers.first("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains("searchlight_http_requests_total{route=\"/v1/search\",status=\"200\"} 1"))
        #expect(metrics.text.contains("searchlight_http_requests_total{route=\"/v1/search\",status=\"400\"} 1"))
        #expect(metrics.text.contains("searchlight_http_request_duration_seconds_count{route=\"/v1/items\"} 1"))
        #expect(metrics.text.contains("searchlight_index_items 1"))

        // The served document is the one in the repository, and it lists every route.
        let document = try #require(running.call("GET", "/v1/openapi.json").json)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = try Data(contentsOf: root.appendingPathComponent("docs/openapi.json"))
        #expect(try JSONParser.parse(bytes: [UInt8](file)) == document,
                "docs/openapi.json is stale: regenerate it with `swift run searchlight serve --openapi > docs/openapi.json`")
        for (path, methods) in SearchService.routes {
            for method in methods { #expect(document["paths"]?[path]?[method.lowercased()] != nil, "\(method) \(path) is documented") }
        }
    }

    @Test func cachedSearchesHonourWritesRefreshAndExpiry() throws {
        let now = Mutex(Date())
        let running = try RunningService(clock: { now.withLock { $0 } })
        defer { running.stop() }
        func advance(_ seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
        let key = try running.key(owner: "recipes", domain: "recipes.example")
        let expiry = ISO8601DateFormatter().string(from: now.withLock { $0 }.addingTimeInterval(20))
        running.call("POST", "/v1/items", json: items(
            item("tart", "Lemon tart", webURL: "https://recipes.example/tart"),
            item("special", "Lemon special of the day", webURL: "https://recipes.example/special", extra: [("expirationDate", .string(expiry))])),
                     key: key)
        #expect(Set(running.ids("lemon")) == ["tart", "special"])
        #expect(Set(running.ids("lemon")) == ["tart", "special"])
        let metrics = running.call("GET", "/metrics").text
        #expect(metrics.contains("searchlight_search_cache_requests_total{result=\"hit\"} 1"))
        #expect(metrics.contains("searchlight_search_cache_requests_total{result=\"miss\"} 1"))

        // The service's own write shows at once.
        running.call("POST", "/v1/items", json: items(item("pie", "Lemon pie", webURL: "https://recipes.example/pie")), key: key)
        #expect(Set(running.ids("lemon")) == ["tart", "special", "pie"])

        // A crawl's commit through its own connection (as from another process) shows within
        // the refresh interval (5 s) of the first search that notices it.
        let crawl = try SearchIndex(path: running.indexPath, mode: .existing)
        try crawl.commit(ItemBatch(validating: [SearchableItem(
            uniqueIdentifier: "https://recipes.example/cake", title: "Lemon cake", webURL: "https://recipes.example/cake",
            source: .crawled)]))
        #expect(Set(running.ids("lemon")).isSubset(of: ["tart", "special", "pie", "https://recipes.example/cake"]))
        advance(5)
        #expect(Set(running.ids("lemon")) == ["tart", "special", "pie", "https://recipes.example/cake"])

        // Nothing was written, but the special expired: the cached answer is not reused.
        advance(16)
        #expect(Set(running.ids("lemon")) == ["tart", "pie", "https://recipes.example/cake"])
    }

    /// A commit leaves fresh the cached answers it could not change (the change log against
    /// each answer's candidates and terms), and touches the others.
    @Test func aCommitLeavesTheAnswersItDoesNotTouchFresh() throws {
        let running = try RunningService()
        defer { running.stop() }
        func counter(_ line: String) -> Int {
            running.call("GET", "/metrics").text.split(separator: "\n").first { $0.hasPrefix(line + " ") }
                .flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }
        let hit = "searchlight_search_cache_requests_total{result=\"hit\"}"
        let stale = "searchlight_search_cache_requests_total{result=\"stale\"}"
        let miss = "searchlight_search_cache_requests_total{result=\"miss\"}"
        let key = try running.key(owner: "recipes", domain: "recipes.example")
        running.call("POST", "/v1/items", json: items(
            item("tart", "Lemon tart", webURL: "https://recipes.example/tart"),
            item("cake", "Chocolate cake", webURL: "https://recipes.example/cake")), key: key)
        #expect(running.ids("lemon") == ["tart"])
        #expect(running.ids("chocolate") == ["cake"])

        // A crawl commits through its own connection, as from another process.
        let crawl = try SearchIndex(path: running.indexPath, mode: .existing)
        try crawl.commit(ItemBatch(validating: [SearchableItem(
            uniqueIdentifier: "https://recipes.example/brownie", title: "Chocolate brownie", webURL: "https://recipes.example/brownie",
            source: .crawled)]))
        let hits = counter(hit)
        #expect(running.ids("lemon") == ["tart"])
        #expect(counter(hit) == hits + 1, "the commit did not touch the lemon answer: still a fresh hit")
        #expect(counter("searchlight_search_cache_changes_total{effect=\"kept\"}") >= 1)
        let stales = counter(stale)
        running.ids("chocolate")
        #expect(counter(stale) == stales + 1, "the chocolate answer was touched: served stale while it is recomputed")

        // The service's own writes drop only what they touch.
        running.call("POST", "/v1/items", json: items(item("pie", "Apple pie", webURL: "https://recipes.example/pie")), key: key)
        let hitsAfterPie = counter(hit)
        #expect(running.ids("lemon") == ["tart"])
        #expect(counter(hit) == hitsAfterPie + 1)
        running.call("POST", "/v1/items", json: items(item("curd", "Lemon curd", webURL: "https://recipes.example/curd")), key: key)
        let misses = counter(miss)
        #expect(Set(running.ids("lemon")) == ["tart", "curd"], "the writer sees its push at once")
        #expect(counter(miss) == misses + 1)
    }

    /// A touched answer is refreshed once it has been stale for half the refresh interval,
    /// so that commits in quick succession cost one refresh, not one each.
    @Test func aTouchedAnswerWaitsHalfTheRefreshIntervalForItsRefresh() throws {
        let now = Mutex(Date())
        let running = try RunningService(clock: { now.withLock { $0 } })
        defer { running.stop() }
        func refreshes() -> Int {
            running.call("GET", "/metrics").text.split(separator: "\n").first { $0.hasPrefix("searchlight_search_cache_refreshes_total ") }
                .flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }
        let key = try running.key(owner: "recipes", domain: "recipes.example")
        running.call("POST", "/v1/items", json: items(item("cake", "Chocolate cake", webURL: "https://recipes.example/cake")), key: key)
        #expect(running.ids("chocolate") == ["cake"])
        let crawl = try SearchIndex(path: running.indexPath, mode: .existing)
        for page in 0..<3 {
            try crawl.commit(ItemBatch(validating: [SearchableItem(
                uniqueIdentifier: "https://recipes.example/\(page)", title: "Chocolate brownie \(page)", webURL: "https://recipes.example/\(page)",
                source: .crawled)]))
            #expect(running.ids("chocolate") == ["cake"], "served stale")
            now.withLock { $0 = $0.addingTimeInterval(0.1) }
        }
        #expect(refreshes() == 0, "touched 0.3 s ago at most: not refreshed yet")
        now.withLock { $0 = $0.addingTimeInterval(0.3) }
        running.ids("chocolate")
        #expect(refreshes() == 1, "stale for 0.6 s of the default 1 s: one refresh for the three commits")
    }

    /// A full cache evicts what was not asked for again: one-off queries do not push out a
    /// frequent one.
    @Test func oneOffQueriesDoNotEvictAFrequentAnswer() throws {
        let running = try RunningService(cacheBytes: 64 * 1024)
        defer { running.stop() }
        let key = try running.key(owner: "recipes", domain: "recipes.example")
        running.call("POST", "/v1/items", json: items(item("tart", "Lemon tart", webURL: "https://recipes.example/tart")), key: key)
        func hits() -> Int {
            running.call("GET", "/metrics").text.split(separator: "\n").first { $0.hasPrefix("searchlight_search_cache_requests_total{result=\"hit\"} ") }
                .flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }
        #expect(running.ids("lemon") == ["tart"])
        var missed = 0
        for round in 0..<400 {
            #expect(running.call("GET", "/v1/search?q=lemon+once\(round)").status == 200)
            if round % 10 == 9 {
                let before = hits()
                running.ids("lemon")
                if hits() != before + 1 { missed += 1 }
            }
        }
        #expect(missed == 0, "the frequent answer was evicted \(missed) times in 40")
    }

    @Test func readsDuringWritesSeeWholeBatches() throws {
        let running = try RunningService(maximumItems: 1000)
        defer { running.stop() }
        let key = try running.key(owner: "app", domain: "app.example")
        func version(_ tag: String) -> JSONValue {
            ["items": .array((0..<200).map { item("v\($0)", "Versioned \(tag) entry", webURL: "https://app.example/\($0)") })]
        }
        running.call("POST", "/v1/items", json: version("alpha"), key: key)
        let done = Atomic<Bool>(false)
        let torn = Atomic<Int>(0)
        let searches = Atomic<Int>(0)
        let readers = DispatchGroup()
        for _ in 0..<3 {
            DispatchQueue.global().async(group: readers) {
                while !done.load(ordering: .relaxed) {
                    let alpha = running.ids("versioned alpha", "&limit=100").count
                    let beta = running.ids("versioned beta", "&limit=100").count
                    // Each batch replaces all 200 items at once: a reader sees 100 (the limit) of one tag.
                    if alpha + beta != 100 && alpha + beta != 200 { torn.add(1, ordering: .relaxed) }
                    searches.add(1, ordering: .relaxed)
                }
            }
        }
        var round = 0
        while round < 10 || (searches.load(ordering: .relaxed) < 30 && round < 500) {
            #expect(running.call("POST", "/v1/items", json: version(round % 2 == 0 ? "beta" : "alpha"), key: key).status == 200)
            round += 1
        }
        done.store(true, ordering: .relaxed)
        readers.wait()
        #expect(searches.load(ordering: .relaxed) >= 30)
        #expect(torn.load(ordering: .relaxed) == 0, "no reader saw half a batch")
    }
}

/// `searchlight serve` and `searchlight keys` as processes.
@Suite(.serialized) struct ServeCommandTests {
    @Test func keysAreCreatedListedAndRevoked() throws {
        let folder = try TemporaryDirectory("keys")
        defer { folder.remove() }
        let created = try CommandRunner.run(["keys", "create", "--owner", "recipes", "--domain", "Recipes.Example", "--data", folder.path])
        #expect(created.status == 0)
        let secret = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.hasPrefix("slk_"))
        let store = try Data(contentsOf: folder.url.appendingPathComponent("service.sqlite"))
        #expect(store.range(of: Data(secret.utf8)) == nil, "only the hash is stored")
        let list = try JSONParser.parse(try CommandRunner.run(["keys", "list", "--data", folder.path, "--json"]).stdout)
        let key = try #require(list["keys"]?.arrayValue?.first)
        #expect(key["owner"] == "recipes")
        #expect(key["domain"] == "recipes.example")
        #expect(key["revoked"] == .null)
        #expect(!list.description.contains(secret))
        let id = try #require(key["id"]?.stringValue)
        #expect(try CommandRunner.run(["keys", "revoke", id, "--data", folder.path]).status == 0)
        #expect(try CommandRunner.run(["keys", "revoke", "nope", "--data", folder.path]).status == 1)
        let after = try JSONParser.parse(try CommandRunner.run(["keys", "list", "--data", folder.path, "--json"]).stdout)
        #expect(after["keys"]?.arrayValue?.first?["revoked"] != .null)
        #expect(try CommandRunner.run(["keys", "create", "--owner", "x", "--domain", "not a domain", "--data", folder.path]).status == 64)
    }

    @Test func memoryStaysBoundedUnderHugePushesAndEndlessCacheKeys() throws {
        let folder = try TemporaryDirectory("serve-memory")
        defer { folder.remove() }
        let key = try CommandRunner.run(["keys", "create", "--owner", "app", "--domain", "app.example", "--data", folder.path])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = ["serve", "--data", folder.path, "--listen", "127.0.0.1:0", "--cache-megabytes", "8"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("\n"), Date() < deadline { text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) }
        let base = try #require(text.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        var configuration = FetchConfiguration(userAgent: "tests")
        configuration.addressPolicy = .any
        let client = HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        func rss() -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        var push = FetchRequest(url: base + "/v1/items", headers: [HTTPField("Authorization", "Bearer \(key)"),
                                                                   HTTPField("Content-Type", "application/json")])
        push.method = "POST"
        push.body = JSONWriter.bytes(["items": [["uniqueIdentifier": "m", "title": "Memory", "webURL": "https://app.example/m"]]])
        #expect(client.fetch(push).status == 200)
        let start = rss()
        // Ten 4 MB titles (refused, not kept) and 300 searches that differ only in `installed`.
        push.body = JSONWriter.bytes(["items": [["uniqueIdentifier": "h", "title": .string(String(repeating: "A", count: 4 << 20)),
                                                 "webURL": "https://app.example/h"]]])
        for _ in 0..<10 { #expect(client.fetch(push).status == 400) }
        for n in 0..<300 {
            let installed = (0..<60).map { "installed=com.example.app\(n).\($0)" }.joined(separator: "&")
            #expect(client.fetch(FetchRequest(url: base + "/v1/search?q=memory&" + installed)).status == 200)
        }
        let end = rss()
        #expect(end - start < 120 * 1024, "RSS grew from \(start) kB to \(end) kB")
    }

    @Test func serveStopsGracefullyOnSIGTERM() throws {
        let folder = try TemporaryDirectory("serve")
        defer { folder.remove() }
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = ["serve", "--data", folder.path, "--listen", "127.0.0.1:0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let reader = output.fileHandleForReading
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("\n"), Date() < deadline { text += String(decoding: reader.availableData, as: UTF8.self) }
        let base = try #require(text.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(base.hasPrefix("http://127.0.0.1:"))
        var configuration = FetchConfiguration(userAgent: "tests")
        configuration.addressPolicy = .any
        let client = HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        #expect(client.fetch(FetchRequest(url: base + "/healthz")).status == 200)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("Stopping: letting requests in flight finish."))
        #expect(client.fetch(FetchRequest(url: base + "/healthz")).error != nil, "nothing listens any more")
    }
}

/// A key store that counts how often a bearer token is checked.
final class CountingKeyStore: KeyStore, Sendable {
    let store: ServiceStore
    let checks = Atomic<Int>(0)

    init(_ store: ServiceStore) { self.store = store }

    func createKey(owner: String, domain: String, now: Date) throws -> (key: APIKey, secret: String) {
        try store.createKey(owner: owner, domain: domain, now: now)
    }
    func keys() throws -> [APIKey] { try store.keys() }
    func revokeKey(id: String, now: Date) throws -> Bool { try store.revokeKey(id: id, now: now) }
    func authenticate(_ token: String) throws -> APIKey? {
        checks.add(1, ordering: .relaxed)
        return try store.authenticate(token)
    }
    func deviceSalt() throws -> [UInt8] { try store.deviceSalt() }
    func recordActivity(id: String, owner: String, type: String, webpageURL: String, deviceHash: [UInt8], networkHash: [UInt8],
                        now: Date) throws -> ActivityReach {
        try store.recordActivity(id: id, owner: owner, type: type, webpageURL: webpageURL, deviceHash: deviceHash,
                                 networkHash: networkHash, now: now)
    }
}

@Suite struct AdmissionTests {
    /// The key a write's head was admitted with reaches its handler: one check of the
    /// token (a hash and a look-up) per request, not one in admission and one again.
    @Test func aRequestsKeyIsCheckedOnce() throws {
        let folder = try TemporaryDirectory("admission")
        defer { folder.remove() }
        let configuration = SearchService.Configuration(indexPath: folder.path + "/index.sqlite")
        let keys = CountingKeyStore(try ServiceStore(path: configuration.storePath))
        let service = try SearchService(configuration: configuration, items: try SearchIndex(path: configuration.indexPath), keys: keys, replica: nil)
        let server = try service.serve(HTTPServer.Configuration())
        let api = APIClient(base: "http://127.0.0.1:\(server.port)")
        defer {
            api.shutdown()
            server.stop(gracePeriod: 1)
        }
        let secret = try keys.createKey(owner: "recipes", domain: "recipes.example").secret
        let pushed = api.call("POST", "/v1/items", json: items(item("tart", "Lemon tart", webURL: "https://recipes.example/tart")), key: secret)
        #expect(pushed.status == 200, "\(pushed.text)")
        #expect(keys.checks.load(ordering: .relaxed) == 1)
        #expect(api.call("GET", "/v1/batches/menu", key: secret).status == 200)
        #expect(keys.checks.load(ordering: .relaxed) == 2)
        #expect(api.call("POST", "/v1/items", json: items(item("pie", "Key lime pie")), key: "slk_wrong_key").status == 401)
    }
}
