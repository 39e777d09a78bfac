import Foundation
import HTTPTypes
import JSON
import SearchIndex
import SearchlightTestSupport
import Service
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
        let router = [HTTPField(RouterCredential.header, RouterCredential(salt: salt).value)]
        let ask: JSONValue = ["q": "lemon", "limit": 5]

        // Without the store's credential (or with another's), nothing is read.
        #expect(running.call("POST", "/v1/shard/statistics", json: ask).status == 403)
        let forged = [HTTPField(RouterCredential.header, RouterCredential(salt: Array("other store".utf8)).value)]
        #expect(running.call("POST", "/v1/shard/statistics", json: ask, headers: forged).status == 403)

        let reply = running.call("POST", "/v1/shard/statistics", json: ask, headers: router)
        #expect(reply.status == 200)
        let statistics = try CorpusStatistics(json: try #require(reply.json))
        #expect(statistics.documents == 3)
        #expect(statistics.frequencies[Array("lemon".utf8)] == 2)

        // The same search, first with this index's own statistics, then as if the index were
        // a shard of one a hundred times larger in which every form of lemon is common: the scores follow.
        var search = ask.objectValue!
        search.append("statistics", statistics.json)
        let own = running.call("POST", "/v1/shard/search", json: .object(search), headers: router)
        #expect(own.status == 200)
        #expect(own.json?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue }.sorted() == ["pie", "tart"])
        #expect(own.json?["owners"] == ["recipes", "recipes"])
        var larger = statistics
        larger.documents = 300
        larger.tokens = statistics.tokens * 100
        larger.frequencies = larger.frequencies.mapValues { _ in 250 }
        search["statistics"] = larger.json
        let scaled = running.call("POST", "/v1/shard/search", json: .object(search), headers: router)
        let ownScores = own.json?["scores"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        let scaledScores = scaled.json?["scores"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        #expect(ownScores.count == 2 && scaledScores.count == 2)
        #expect(zip(ownScores, scaledScores).allSatisfy { $1 < $0 }, "a commoner word weighs less: \(ownScores) \(scaledScores)")

        // Statistics that are not statistics are refused, not trusted.
        search["statistics"] = ["documents": -3]
        #expect(running.call("POST", "/v1/shard/search", json: .object(search), headers: router).status == 400)
        search["statistics"] = nil
        #expect(running.call("POST", "/v1/shard/search", json: .object(search), headers: router).status == 400)
    }
}
