import Foundation
import Items
import JSON
import SearchIndex
import SearchlightTestSupport
import Service
import Testing

/// A hostile tenant with one valid key, and anonymous clients, against the shared
/// service (issue 24), in both stores: what one tenant does never reaches another's items,
/// ids, batches, activities or rankings.
@Suite struct TenantIsolationTests {
    /// Two tenants' keys on a fresh service.
    private func tenants(_ backend: ServiceBackend, activityThreshold: Int = 3,
                         service: (inout SearchService.Configuration) -> Void = { _ in }) throws -> (RunningService, a: String, b: String)
    {
        let running = try RunningService(backend: backend, activityThreshold: activityThreshold, maximumItems: 1000, service: service)
        return (running, try running.key(owner: "alpha", domain: "a.example"), try running.key(owner: "beta", domain: "b.example"))
    }

    @Test(arguments: ServiceBackend.allCases) func anIdentifierBelongsToItsOwner(_ backend: ServiceBackend) throws {
        let (running, a, b) = try tenants(backend, activityThreshold: 1)
        defer { running.stop() }
        // B takes the names first.
        for id in ["tart", "employee_Marian_Paul", "activity:view:https://a.example/recipes/1"] {
            let pushed = running.call("POST", "/v1/items", json: items(item(id, "Squatted \(id)", webURL: "https://b.example/x")), key: b)
            #expect(pushed.status == 200, "\(pushed.text)")
        }
        // A's push of the same identifier is A's own item.
        #expect(running.call("POST", "/v1/items", json: items(item("tart", "Lemon tart", webURL: "https://a.example/tart")), key: a).status == 200)
        let urls = running.call("GET", "/v1/search?q=tart").json?["results"]?.arrayValue?.compactMap { $0["url"]?.stringValue } ?? []
        #expect(Set(urls) == ["https://a.example/tart", "https://b.example/x"], "both tenants' tart are there: \(urls)")

        // One squatted identifier in a 500-item batch no longer refuses the batch.
        var batch = (0..<499).map { item("recipe-\($0)", "Recipe \($0)", webURL: "https://a.example/r/\($0)") }
        batch.append(item("employee_Marian_Paul", "Marian Paul", webURL: "https://a.example/people/1"))
        let committed = running.call("POST", "/v1/batches/sync", json: .object(JSONObject([
            ("items", .array(batch)), ("expectedClientState", .null), ("clientState", "page-1"),
        ])), key: a)
        #expect(committed.status == 200, "\(committed.text.prefix(300))")
        #expect(running.call("GET", "/v1/batches/sync", key: a).json?["clientState"] == "page-1")
        #expect(running.call("GET", "/v1/batches/sync", key: b).json?["clientState"] == .null, "batch states are per owner too")

        // A's public activity becomes public although B holds an item of that id.
        let activity = running.call("POST", "/v1/activities", json: [
            "activityType": "view", "title": "Lemon recipes", "webpageURL": "https://a.example/recipes/1", "deviceId": "device-1",
        ], key: a)
        #expect(activity.json?["public"] == true, "\(activity.text)")
        #expect(running.ids("lemon recipes").contains("activity:view:https://a.example/recipes/1"))

        // Each deletes only its own.
        #expect(running.call("DELETE", "/v1/items?id=tart", key: b).json?["deleted"] == 1)
        #expect(running.call("DELETE", "/v1/items?id=tart", key: b).json?["deleted"] == 0)
        #expect(running.ids("lemon tart").first == "tart", "A's tart stays")
        #expect(running.call("DELETE", "/v1/items", key: b).json?["deleted"] == 2)
        #expect(running.ids("marian paul") == ["employee_Marian_Paul"])
    }

    /// `GET /v1/items/{id}/findability`: an owner learns where its own item ranks for a
    /// query and why; another tenant's item of the same id is a 404, as one that does not exist.
    @Test(arguments: ServiceBackend.allCases) func findabilityIsForTheOwnersItemsOnly(_ backend: ServiceBackend) throws {
        let (running, a, b) = try tenants(backend)
        defer { running.stop() }
        #expect(running.call("POST", "/v1/items", json: items(item("tart", "Lemon tart", webURL: "https://a.example/tart"),
                                                               item("curd", "Curd", webURL: "https://a.example/curd")), key: a).status == 200)
        #expect(running.call("POST", "/v1/items", json: items(item("posset", "Lemon tart posset", webURL: "https://b.example/posset")), key: b).status == 200)
        let report = running.call("GET", "/v1/items/tart/findability?q=lemon+tart", key: a)
        #expect(report.status == 200, "\(report.text)")
        #expect(report.json?["rank"] == 1 && report.json?["matches"] == true, "\(report.text)")
        let words = report.json?["words"]?.arrayValue ?? []
        #expect(words.first?["word"] == "lemon" && words.first?["forms"]?.arrayValue?.first?["occurrences"]?["title"] == 1, "\(report.text)")
        let curd = running.call("GET", "/v1/items/curd/findability?q=lemon+tart", key: a)
        #expect(curd.json?["findings"]?.arrayValue?.first?["code"] == "no-word-matches", "\(curd.text)")
        #expect(running.call("GET", "/v1/items/posset/findability?q=lemon", key: a).status == 404, "B's item is not A's to inspect")
        #expect(running.call("GET", "/v1/items/tart/findability?q=lemon").status == 401)
        let misspelt = running.call("GET", "/v1/items/tart/findability?query=lemon", key: a)
        #expect(misspelt.status == 400 && misspelt.text.contains("unknown parameter 'query'"), "\(misspelt.text)")
    }

    @Test(arguments: ServiceBackend.allCases) func storedNamesRefuseControlCharacters(_ backend: ServiceBackend) throws {
        let (running, a, _) = try tenants(backend)
        defer { running.stop() }
        let body: JSONValue = .object(JSONObject([("items", .array([])), ("expectedClientState", .null), ("clientState", "one")]))
        #expect(running.call("POST", "/v1/batches/a%00b", json: body, key: a).status == 400, "NUL in a batch name")
        #expect(running.call("POST", "/v1/batches/a%01b", json: body, key: a).status == 400)
        #expect(running.call("GET", "/v1/batches/a%00b", key: a).status == 400)
        #expect(running.call("DELETE", "/v1/items?id=a%00b", key: a).status == 400)
        // A C1 control (CSI, U+009B) is a control as an item's text would count it.
        #expect(running.call("POST", "/v1/batches/a%C2%9Bb", json: body, key: a).status == 400, "C1 in a batch name")
        #expect(running.call("DELETE", "/v1/items?id=a%C2%85b", key: a).status == 400)
        #expect(running.call("POST", "/v1/batches/ab", json: body, key: a).status == 200)
        #expect(running.call("POST", "/v1/items", json: items(item("x\u{0}y", "Nul", webURL: "https://a.example/n")), key: a).status == 400)
    }

    /// B's engagement on its item dies with it: neither B's new item nor A's of the same
    /// identifier start with it.
    @Test(arguments: ServiceBackend.allCases) func engagementNeverOutlivesItsItem(_ backend: ServiceBackend) throws {
        let (running, a, b) = try tenants(backend, service: { $0.cacheLifetime = 0 })
        defer { running.stop() }
        func push(_ key: String, _ id: String, _ host: String) {
            let title = id.hasPrefix("filler") ? "Kitchen table" : "Garden chair"
            #expect(running.call("POST", "/v1/items", json: items(item(id, title, webURL: "https://\(host)/\(id)")), key: key).status == 200)
        }
        for filler in 0..<5 { push(b, "filler-\(filler)", "b.example") }
        running.call("POST", "/v1/items", json: items(item("table", "Kitchen table", webURL: "https://b.example/table")), key: b)
        push(b, "chair", "b.example")
        for _ in 0..<5 {
            let events: JSONValue = .array((0..<1000).map { _ in ["id": "chair", "type": "impression"] })
            #expect(running.call("POST", "/v1/engagement", json: ["query": "garden chair", "events": events], key: b).json?["items"] == 1)
        }
        func score(_ url: String) -> Double? {
            running.call("GET", "/v1/search?q=garden+chair").json?["results"]?.arrayValue?.first { $0["url"]?.stringValue == url }?["score"]?.doubleValue
        }
        push(b, "twin", "b.example")
        let sunk = try #require(score("https://b.example/chair"))
        let fresh = try #require(score("https://b.example/twin"))
        #expect(sunk < fresh, "5,000 impressions without a click sink it")
        #expect(running.call("DELETE", "/v1/items?id=chair", key: b).json?["deleted"] == 1)
        push(a, "chair", "a.example")
        push(b, "chair", "b.example")
        #expect(score("https://a.example/chair") == score("https://b.example/twin"), "another owner's item of that id starts neutral")
        #expect(score("https://b.example/chair") == score("https://b.example/twin"), "so does the owner's own new one")
    }

    /// Without a key, engagement needs the answer's token, counts once per network a day,
    /// a click only after that network's impression, and moves nothing until enough
    /// networks agree; one network is rate-limited.
    @Test(arguments: ServiceBackend.allCases) func anonymousEngagementCannotBeForged(_ backend: ServiceBackend) throws {
        let (running, _, b) = try tenants(backend, service: {
            $0.cacheLifetime = 0
            $0.anonymousEngagementBurst = 30
            $0.anonymousEngagementPerSecond = 0.001
        })
        defer { running.stop() }
        running.call("POST", "/v1/items", json: items(item("red", "Walking boots", webURL: "https://b.example/red"),
                                                     item("blue", "Walking boots", webURL: "https://b.example/blue")), key: b)
        func answer() -> (token: String, scores: [String: Double]) {
            let json = running.call("GET", "/v1/search?q=walking+boots").json
            var scores: [String: Double] = [:]
            for result in json?["results"]?.arrayValue ?? [] { scores[result["id"]?.stringValue ?? ""] = result["score"]?.doubleValue }
            return (json?["engagementToken"]?.stringValue ?? "", scores)
        }
        let before = answer()
        #expect(before.scores["red"] == before.scores["blue"], "a tie to start with")
        func report(_ events: [JSONValue], token: String? = nil, from address: String = "127.0.0.1") -> RunningService.Reply {
            var body: [(String, JSONValue)] = [("query", "walking boots"), ("events", .array(events))]
            if let token { body.append(("token", .string(token))) }
            return running.call("POST", "/v1/engagement", json: .object(JSONObject(body)), from: address)
        }
        let click: JSONValue = ["id": "red", "type": "click"]
        let impression: JSONValue = ["id": "red", "type": "impression"]
        #expect(report([click]).status == 400, "no token")
        #expect(report([click], token: String(repeating: "ab", count: 40)).errorCode == "invalid-token")
        var forged = Array(before.token)
        forged[forged.count - 1] = forged.last == "0" ? "1" : "0"
        #expect(report([click], token: String(forged)).errorCode == "invalid-token", "a token changed in one digit is refused")
        #expect(report([click], token: before.token, from: "127.0.5.1").json?["clicks"] == 0, "a click without an impression counts nothing")
        // Twenty requests from one network: one impression and one click counted, and nothing moves.
        for _ in 0..<20 { _ = report([impression, click], token: before.token) }
        #expect(report([impression, click], token: before.token).json?["impressions"] == 0)
        let one = answer()
        #expect(one.scores["red"] == one.scores["blue"], "one network cannot break a tie")
        #expect(report([impression, click], token: before.token, from: "127.0.1.1").json?["clicks"] == 1)
        #expect(answer().scores["red"] == answer().scores["blue"], "nor can two")
        #expect(report([impression, click], token: before.token, from: "127.0.2.1").json?["clicks"] == 1)
        let three = answer()
        #expect((three.scores["red"] ?? 0) > (three.scores["blue"] ?? 0), "three networks agreeing move it")
        // The burst of one network runs out.
        var limited = 0
        for _ in 0..<40 where report([impression], token: before.token, from: "127.0.3.1").status == 429 { limited += 1 }
        #expect(limited > 0, "a network past its burst gets 429")
        #expect(report([impression], token: before.token, from: "127.0.4.1").status == 200, "other networks are not held back")
    }

    @Test func keyedEngagementIsRateLimitedPerKey() throws {
        let (running, a, _) = try tenants(.embedded, service: {
            $0.keyedEngagementBurst = 2000
            $0.keyedEngagementPerSecond = 1
        })
        defer { running.stop() }
        running.call("POST", "/v1/items", json: items(item("m", "Mine", webURL: "https://a.example/m")), key: a)
        let events: JSONValue = .array((0..<1000).map { _ in ["id": "m", "type": "impression"] })
        #expect(running.call("POST", "/v1/engagement", json: ["query": "mine", "events": events], key: a).status == 200)
        #expect(running.call("POST", "/v1/engagement", json: ["query": "mine", "events": events], key: a).status == 200)
        let third = running.call("POST", "/v1/engagement", json: ["query": "mine", "events": events], key: a)
        #expect(third.status == 429 && third.headers.contains { $0.hasName("Retry-After") }, "\(third.text)")
    }

    @Test func everyAnswerTellsBrowsersNotToSniff() throws {
        let running = try RunningService()
        defer { running.stop() }
        for (method, path) in [("GET", "/v1/search?q=x"), ("GET", "/v1/nothing"), ("POST", "/v1/items"), ("GET", "/"), ("GET", "/healthz")] {
            let reply = running.call(method, path, json: method == "POST" ? ["items": []] : nil)
            #expect(reply.headers.contains { $0.hasName("X-Content-Type-Options") && $0.value == "nosniff" }, "\(method) \(path) \(reply.status)")
        }
    }

    @Test func deepLinksAreAppSchemesOrWebURLs() throws {
        let running = try RunningService()
        defer { running.stop() }
        let key = try running.key(owner: "app", domain: "app.example")
        func push(_ link: String) -> Int {
            running.call("POST", "/v1/items", json: items(item("t", "T", webURL: "https://app.example/t", extra: [
                ("apps", [["platform": "ios", "appStoreId": "123", "deepLink": .string(link)]])])), key: key).status
        }
        for link in ["ms-msdt:/id PCWDiagnostic", "ms-msdt:x", "view-source:https://app.example/", "blob:https://app.example/1",
                     "filesystem:https://app.example/temporary/x", "javascript:alert(1)", "data:text/html,x", "file:///etc/passwd",
                     "c:/windows/system32", "search-ms:query=x", "intent://x#Intent;end", "itms-services://?action=download-manifest",
                     "chrome-extension://abc/x", "mailto:a@b.example", "shell:startup"] {
            #expect(push(link) == 400, "\(link)")
        }
        for link in ["recipebox://tart", "fb123456://profile", "com.example.app:/open", "https://app.example/t", "hr://x"] {
            #expect(push(link) == 200, "\(link)")
        }
    }
}
