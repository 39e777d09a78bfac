import Foundation
import HTTPTypes
import Items
import JSON
import SearchIndex
import SearchlightTestSupport
import Service
import ServiceAPI
import Testing

/// What a node answers a router (`/v1/shard/statistics`, `/v1/shard/search`): only to a
/// router of its store, with what the query reads from its index and results ranked with the
/// statistics it is given.
@Suite struct ShardRouteTests {
    @Test func shardRoutesAnswerARouterOfTheStoreAndRankWithTheStatisticsGiven() throws {
        let running = try RunningService()
        defer { running.stop() }
        let key = try running.key(owner: "recipes", domain: "recipes.example")
        #expect(running.call("POST", "/v1/items", json: items(
            item("tart", "Lemon tart", webURL: "https://recipes.example/tart"), item("pie", "Lemon meringue pie", webURL: "https://recipes.example/pie"),
            item("cake", "Chocolate cake", webURL: "https://recipes.example/cake")), key: key).status == 200)
        let salt = try ServiceStore(path: running.service.configuration.storePath).deviceSalt()
        let credential = RouterCredential(salt: salt)
        /// What a router sends: the request signed now.
        func routed(_ path: String, _ json: JSONValue) -> APIClient.Reply {
            running.call("POST", path, json: json,
                         headers: [HTTPField(RouterCredential.header, credential.value(method: "POST", path: path, body: JSONWriter.bytes(json), node: running.baseURL))])
        }
        let ask: JSONValue = ["q": "lemon", "limit": 5]

        // Without the store's credential (or with another's), nothing is read.
        #expect(running.call("POST", "/v1/shard/statistics", json: ask).status == 403)
        let forged = RouterCredential(salt: Array("other store".utf8)).value(method: "POST", path: "/v1/shard/statistics", body: JSONWriter.bytes(ask), node: running.baseURL)
        #expect(running.call("POST", "/v1/shard/statistics", json: ask, headers: [HTTPField(RouterCredential.header, forged)]).status == 403)

        // A header seen on the wire is good once, for its own body and path, and not for long.
        let header = credential.value(method: "POST", path: "/v1/shard/statistics", body: JSONWriter.bytes(ask), node: running.baseURL)
        #expect(running.call("POST", "/v1/shard/statistics", json: ask, headers: [HTTPField(RouterCredential.header, header)]).status == 200)
        #expect(running.call("POST", "/v1/shard/statistics", json: ask, headers: [HTTPField(RouterCredential.header, header)]).status == 403,
                "replayed")
        let other = credential.value(method: "POST", path: "/v1/shard/statistics", body: JSONWriter.bytes(["q": "cake", "limit": 5]), node: running.baseURL)
        #expect(running.call("POST", "/v1/shard/statistics", json: ask, headers: [HTTPField(RouterCredential.header, other)]).status == 403,
                "another body")
        let elsewhere = credential.value(method: "POST", path: "/v1/shard/search", body: JSONWriter.bytes(ask), node: running.baseURL)
        #expect(running.call("POST", "/v1/shard/statistics", json: ask, headers: [HTTPField(RouterCredential.header, elsewhere)]).status == 403,
                "another path")
        let stale = credential.value(method: "POST", path: "/v1/shard/statistics", body: JSONWriter.bytes(ask), node: running.baseURL,
                                     now: Date().addingTimeInterval(-RouterCredential.window - 5))
        #expect(running.call("POST", "/v1/shard/statistics", json: ask, headers: [HTTPField(RouterCredential.header, stale)]).status == 403,
                "expired")
        // Signed for another node of the store (captured by a fake replica, or on a plain-http
        // path): refused here, though fresh and never seen (issue 57).
        let forAnother = credential.value(method: "POST", path: "/v1/shard/statistics", body: JSONWriter.bytes(ask), node: "http://10.0.0.7:8081")
        #expect(running.call("POST", "/v1/shard/statistics", json: ask, headers: [HTTPField(RouterCredential.header, forAnother)]).status == 403,
                "another node's")
        let spelledOtherwise = credential.value(method: "POST", path: "/v1/shard/statistics", body: JSONWriter.bytes(ask),
                                                node: running.baseURL.uppercased() + "/")
        #expect(running.call("POST", "/v1/shard/statistics", json: ask, headers: [HTTPField(RouterCredential.header, spelledOtherwise)]).status == 200,
                "the same node however its address is spelt")
        #expect(RouterCredential.audience(of: "https://Node1.example/") == "https://node1.example:443")

        let reply = routed("/v1/shard/statistics", ask)
        #expect(reply.status == 200)
        let statistics = try CorpusStatistics(json: try #require(reply.json))
        #expect(statistics.documents == 3)
        #expect(statistics.frequencies[Array("lemon".utf8)] == 2)

        // The same search, first with this index's own statistics, then as if the index were
        // a shard of one a hundred times larger in which every form of lemon is common: the scores follow.
        var search = ask.objectValue!
        search.append("statistics", statistics.json)
        let own = routed("/v1/shard/search", .object(search))
        #expect(own.status == 200)
        #expect(own.json?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue }.sorted() == ["pie", "tart"])
        #expect(own.json?["owners"] == ["recipes", "recipes"])
        var larger = statistics
        larger.documents = 300
        larger.tokens = statistics.tokens * 100
        larger.frequencies = larger.frequencies.mapValues { _ in 250 }
        search["statistics"] = larger.json
        let scaled = routed("/v1/shard/search", .object(search))
        let ownScores = own.json?["scores"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        let scaledScores = scaled.json?["scores"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        #expect(ownScores.count == 2 && scaledScores.count == 2)
        #expect(zip(ownScores, scaledScores).allSatisfy { $1 < $0 }, "a commoner word weighs less: \(ownScores) \(scaledScores)")

        // A router's filter scopes the shard's answer; a malformed one is refused.
        search["statistics"] = statistics.json
        search["filter"] = SearchFilter(domain: "recipes.example", contentType: "public.pie").json
        #expect(routed("/v1/shard/search", .object(search)).json?["results"]?.arrayValue?.isEmpty == true)
        search["filter"] = ["hasApp": "windows"]
        #expect(routed("/v1/shard/search", .object(search)).status == 400)
        search["filter"] = nil

        // Statistics that are not statistics are refused, not trusted.
        search["statistics"] = ["documents": -3]
        #expect(routed("/v1/shard/search", .object(search)).status == 400)
        search["statistics"] = nil
        #expect(routed("/v1/shard/search", .object(search)).status == 400)

        // A long request's feedback rounds: the first answer reported, the best documents
        // read, added words' statistics counted, the first answer scored again; each field
        // checked as it comes.
        let long = "lemon tart pie cake chocolate meringue recipe"
        var first = JSONObject([("q", .string(long)), ("limit", 5), ("statistics", statistics.json), ("feedback", "first")])
        let firstAnswer = routed("/v1/shard/search", .object(first))
        let firstStage = try #require(firstAnswer.json?["firstStage"].flatMap(ShardFeedback.firstStage), "\(String(describing: firstAnswer.json))")
        #expect(firstStage.count == 3)
        first["feedback"] = nil
        first["count"] = 2
        let read = try #require(routed("/v1/shard/feedback", .object(first)).json.flatMap(ShardFeedback.readings))
        #expect(read.readings.map(\.key) == firstStage.prefix(2).map(\.key))
        #expect(read.excluded.contains(Array("lemon".utf8)) && read.readings.allSatisfy { !$0.words.isEmpty })
        #expect(running.call("POST", "/v1/shard/feedback", json: .object(first)).status == 403)
        for count: JSONValue in [0, 11, "2"] {
            first["count"] = count
            #expect(routed("/v1/shard/feedback", .object(first)).status == 400, "count \(count)")
        }
        first["count"] = 2
        #expect(routed("/v1/shard/search", .object(first)).status == 400, "each round takes its own fields only")
        var words = JSONObject([("q", .string(long)), ("limit", 5), ("words", ShardFeedback.json(words: [Array("chocolate".utf8), Array("meringue".utf8)]))])
        let counted = try CorpusStatistics(json: try #require(routed("/v1/shard/statistics", .object(words)).json))
        #expect(counted.frequencies[Array("chocolate".utf8)] == 1 && counted.frequencies[Array("meringue".utf8)] == 1)
        words["words"] = ["zz"]
        #expect(routed("/v1/shard/statistics", .object(words)).status == 400)
        var rescore = JSONObject([("q", .string(long)), ("limit", 5), ("statistics", counted.json),
                                  ("feedback", ShardFeedback.json(.rescore(terms: [.init(token: Array("chocolate".utf8), weight: 0.5)], depth: 3)))])
        #expect(routed("/v1/shard/search", .object(rescore)).json?["results"]?.arrayValue?.count == 3)
        for bad: JSONValue in ["second", ["depth": 0, "terms": []], ["depth": 201, "terms": []], ["depth": 3, "terms": [["63", 5]]],
                               ["depth": 3, "terms": [["not hex", 0.5]]]] {
            rescore["feedback"] = bad
            #expect(routed("/v1/shard/search", .object(rescore)).status == 400, "\(bad)")
        }
    }
}
