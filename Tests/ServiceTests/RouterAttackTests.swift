import Fetch
import Foundation
import HTTPServer
import HTTPTypes
import JSON
@testable import Router
import Items
import SearchIndex
import Service
import StoreSeams
import Synchronization
import Testing

/// A router in front of fake nodes over HTTP on 127.0.0.1: one honest, one answering what a
/// broken or hostile node could. The router answers with the honest shard and names the
/// other missing; it never shows what the hostile one sent, and never dies of it.
@Suite struct RouterAttackTests {
    /// Two shards, each node at its fake server's address.
    struct Directory: SearchNodeDirectory {
        let addresses: [String]
        func searchNodes() throws -> [CrawlStatus.Node] {
            addresses.enumerated().map { CrawlStatus.Node(name: "n\($0.offset)", behind: 0, silentFor: 0, shard: Shard(parsing: "\($0.offset)/2")!, address: $0.element) }
        }
        func shardCount() throws -> Int? { 2 }
    }

    static var statistics: JSONValue {
        var statistics = CorpusStatistics()
        statistics.documents = 10
        statistics.tokens = 100
        return statistics.json
    }

    static func answer(_ results: [JSONValue], total: JSONValue? = nil) -> JSONValue {
        .object(JSONObject([
            ("query", "tart"), ("results", .array(results)), ("scores", .array(results.map { _ in 2.0 })),
            ("relevance", .array(results.map { _ in 2.0 })), ("owners", .array(results.map { _ in "" })),
            ("estimatedTotalHits", total ?? JSONValue(results.count)), ("totalHitsExact", true), ("matchedAnyWord", false),
        ]))
    }

    /// A fake node: statistics as any node gives them, and `search` for the search round.
    static func node(_ search: @escaping @Sendable () -> HTTPServerResponse) throws -> HTTPServer {
        try HTTPServer { request in
            request.path == "/v1/shard/statistics" ? .json(statistics) : search()
        }
    }

    /// The router's answer to `GET /v1/search?q=tart` with shard 0 honest and shard 1 `hostile`.
    /// `held` is what the router's shard answers still hold once it has answered: nothing.
    static func routed(
        configure: (inout SearchRouter.Configuration) -> Void = { _ in }, _ hostile: @escaping @Sendable () -> HTTPServerResponse
    ) throws -> (status: Int, json: JSONValue?, held: Int) {
        let honest = try node { .json(answer([["id": "good", "title": "Lemon tart", "url": "https://shop.example/tart"]])) }
        let bad = try node(hostile)
        defer { honest.stop(); bad.stop() }
        return try withRouter(over: [honest, bad], configure: configure) { router, search in
            let response = search("q=tart")
            return (response.status, try? JSONParser.parse(bytes: response.body), router.fanOut.held.held)
        }
    }

    /// A router over `nodes` (shard i at node i), served on 127.0.0.1; `body` is given it and
    /// a function that asks it `GET /v1/search?QUERY`.
    static func withRouter<T>(
        over nodes: [HTTPServer], configure: (inout SearchRouter.Configuration) -> Void = { _ in },
        _ body: (SearchRouter, (String) -> FetchResponse) throws -> T
    ) throws -> T {
        var configuration = SearchRouter.Configuration()
        configuration.timeout = 10
        configure(&configuration)
        let router = SearchRouter(configuration: configuration, directory: Directory(addresses: nodes.map { "http://127.0.0.1:\($0.port)" }),
                                  salt: Array("fake store".utf8))
        var server = HTTPServer.Configuration()
        server.port = 0
        let running = try router.serve(server)
        defer { running.stop(); router.stop() }
        var fetch = FetchConfiguration(userAgent: "router-tests")
        fetch.addressPolicy = .any
        let client = HTTPClient(configuration: fetch)
        defer { client.shutdown() }
        return try body(router) { query in client.fetch(FetchRequest(url: "http://127.0.0.1:\(running.port)/v1/search?" + query)) }
    }

    static func expectHonestOnly(_ reply: (status: Int, json: JSONValue?, held: Int), _ comment: Comment) {
        #expect(reply.status == 200, comment)
        #expect(reply.json?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["good"], comment)
        #expect(reply.json?["missingShards"] == [1] && reply.json?["partial"] == true, comment)
    }

    @Test func anAbsurdTotalMakesTheShardMissing() throws {
        Self.expectHonestOnly(try Self.routed { .json(Self.answer([["id": "x", "title": "X"]], total: JSONValue(Int.max))) }, "Int.max total")
    }

    @Test func aHostileResultIsNotShown() throws {
        let hostile: JSONValue = ["id": "other-tenant", "title": "Win", "url": "https://evil.example/",
                                  "action": ["type": "open-web", "url": "javascript:alert(document.cookie)"]]
        Self.expectHonestOnly(try Self.routed { .json(Self.answer([hostile])) }, "javascript: action")
    }

    @Test func anErrorBodyIsNotRelayed() throws {
        let html = HTTPServerResponse(status: 400, headers: [HTTPField("Content-Type", "text/html")], body: .bytes(Array("<script>alert(1)</script>".utf8)))
        Self.expectHonestOnly(try Self.routed { html }, "a 400 of HTML")
        let refused = try Self.routed {
            .json(["error": ["code": "invalid-query", "message": "the query is too long", "debug": "<internal>"]], status: 400)
        }
        #expect(refused.status == 400)
        #expect(refused.json?["error"]?["code"] == "invalid-query" && refused.json?["error"]?["debug"] == nil)
    }

    /// A shard's answer near the per-answer cap, of many small results: the router keeps the
    /// page's candidates of it and answers.
    @Test func aHugeAnswerIsCutToThePage() throws {
        let many = (0..<20_000).map { JSONValue.object(JSONObject([("id", .string("r\($0)")), ("title", .string("Result \($0)"))])) }
        let body = JSONWriter.bytes(Self.answer(many))
        #expect(body.count > 500_000 && body.count < 4 << 20)
        let reply = try Self.routed { HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "application/json")], body: .bytes(body)) }
        #expect(reply.status == 200)
        #expect(reply.json?["results"]?.arrayValue?.count == 10, "a page of the default 10")
        #expect(reply.json?["partial"] == false)
        #expect(reply.held == 0, "every answer's bytes given back once read")
    }

    /// An answer past its part of a search's byte budget is cut off as it arrives and the
    /// shard is missing; past what all searches may hold at once, too (then the honest answer
    /// may be cut as well, if it arrives while the other is held); the bytes taken are given back.
    @Test func anAnswerPastTheBudgetsIsMissing() throws {
        let many = (0..<5_000).map { JSONValue.object(JSONObject([("id", .string("r\($0)")), ("title", .string("Result \($0)"))])) }
        let body = JSONWriter.bytes(Self.answer(many))
        #expect(body.count > 100_000)
        let large = { @Sendable in HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "application/json")], body: .bytes(body)) }
        let perSearch = try Self.routed(configure: { $0.maximumSearchBytes = 64 << 10 }, large)
        Self.expectHonestOnly(perSearch, "past its part of the search's budget")
        #expect(perSearch.held == 0)
        let held = try Self.routed(configure: { $0.maximumHeldBytes = 64 << 10 }, large)
        #expect(held.held == 0)
        if held.status == 200 {
            Self.expectHonestOnly(held, "past what searches hold at once")
        } else {
            #expect(held.status == 503 && held.json?["error"]?["code"] == "no-shards")
        }
    }

    /// A node of a version before the feedback rounds refuses their field (an unknown body
    /// field is a 400): the router asks it again without, and answers.
    @Test func aNodeThatRefusesTheFeedbackFieldIsAskedAgainWithoutIt() throws {
        let asked = Mutex<[Bool]>([])
        let old = try HTTPServer { request in
            guard request.path == "/v1/shard/search" else { return .json(Self.statistics) }
            let body = (try? JSONParser.parse(bytes: request.body)) ?? .null
            asked.withLock { $0.append(body["feedback"] != nil) }
            if body["feedback"] != nil {
                return HTTPServerResponse(status: 400, headers: [HTTPField("Content-Type", "application/json")],
                                          body: .bytes(JSONWriter.bytes(["error": ["code": "invalid-field", "message": "body.feedback is not a known field"]])))
            }
            return .json(Self.answer([["id": "old", "title": "Lemon tart", "url": "https://shop.example/tart"]]))
        }
        let honest = try Self.node { .json(Self.answer([["id": "good", "title": "Lemon tart", "url": "https://shop.example/tart"]])) }
        defer { old.stop(); honest.stop() }
        let (status, json) = try Self.withRouter(over: [honest, old]) { _, search in
            let response = search("q=lemon+tart+with+meringue+and+a+short+crust")
            return (response.status, try? JSONParser.parse(bytes: response.body))
        }
        #expect(status == 200, "\(String(describing: json))")
        #expect(Set(json?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []) == ["good", "old"])
        #expect(asked.withLock { $0 } == [true, false])
    }
}

/// A routed search's filter goes to every shard with the search.
@Suite struct RouterFilterTests {
    @Test func theFilterReachesTheShards() throws {
        let asked = Mutex<[JSONValue]>([])
        let node = try HTTPServer { request in
            if request.path == "/v1/shard/search", let body = try? JSONParser.parse(bytes: request.body) { asked.withLock { $0.append(body) } }
            guard request.path == "/v1/shard/search" else { return .json(RouterAttackTests.statistics) }
            var answer = RouterAttackTests.answer([]).objectValue!
            answer.append("facets", ["contentType": ["public.image": 2, "public.recipe": 1]])
            answer.append("facetsExact", true)
            return .json(.object(answer))
        }
        defer { node.stop() }
        try RouterAttackTests.withRouter(over: [node, node]) { _, search in
            #expect(search("q=tart&domain=Shop.example&hasApp=ios").status == 200)
            let filters = asked.withLock { $0.map { $0["filter"] } }
            #expect(filters.count == 2 && filters.allSatisfy { $0 == ["domain": "shop.example", "hasApp": "ios"] }, "\(filters)")
            #expect(search("q=tart&hasApp=windows").status == 400)
            let faceted = try JSONParser.parse(bytes: search("q=tart&facets=contentType").body)
            #expect(faceted["facets"] == ["contentType": ["public.image": 4, "public.recipe": 2]], "every shard's counts summed")
            #expect(faceted["facetsExact"] == true)
            #expect(asked.withLock { $0.last?["facets"] } == ["contentType"])
        }
    }
}
