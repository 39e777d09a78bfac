import JSON
@testable import Router
import Items
import SearchIndex
import StoreSeams
import Testing

/// The router's decisions without I/O: which nodes it asks, what it does when an attempt
/// fails or is slow, and how shards' answers become one.
@Suite struct RouterDecisionTests {
    static func node(_ name: String, _ shard: String, silent: Double = 0, address: String? = "http://127.0.0.1:1") -> CrawlStatus.Node {
        CrawlStatus.Node(name: name, behind: 0, silentFor: silent, shard: Shard(parsing: shard)!, address: address)
    }

    /// The router's credential never crosses a network in clear unless told to (issue 57):
    /// plain http is asked only on this machine's loopback.
    @Test func plainHTTPNodesElsewhereAreNotAskedUnlessAllowed() {
        let nodes = [Self.node("tls", "0/1", address: "https://node1.internal:8081"), Self.node("clear", "0/1", address: "http://node2.internal:8081"),
                     Self.node("local", "0/1", address: "http://127.0.0.1:8081"), Self.node("local6", "0/1", address: "http://[::1]:8081"),
                     Self.node("name", "0/1", address: "http://localhost:8081/"), Self.node("lan", "0/1", address: "http://10.0.0.5:8081"),
                     Self.node("tricky", "0/1", address: "http://127.0.0.1.evil.example:8081")]
        #expect(ShardMap(nodes: nodes, maximumSilence: 5).replicas[0].map(\.name).sorted() == ["local", "local6", "name", "tls"])
        #expect(ShardMap(nodes: nodes, maximumSilence: 5, plainHTTP: true).replicas[0].count == 7)
    }

    @Test func theMapHoldsLiveNodesWithAddressesOfTheCountMostNodesHold() {
        let map = ShardMap(nodes: [
            Self.node("b", "0/2"), Self.node("a", "0/2"), Self.node("c", "1/2", silent: 9), Self.node("d", "1/2", address: nil),
            Self.node("e", "1/2", address: "file:///etc/passwd"), Self.node("old", "0/1"),
        ], maximumSilence: 5)
        #expect(map.count == 2)
        #expect(map.replicas[0].map(\.name) == ["a", "b"])
        #expect(map.missing == [1], "silent, address-less and non-HTTP nodes are not asked")
        // Mid re-shard: the count most live nodes hold wins, the larger on a tie.
        #expect(ShardMap(nodes: [Self.node("a", "0/1"), Self.node("b", "0/1"), Self.node("c", "0/3")], maximumSilence: 5).count == 1)
        #expect(ShardMap(nodes: [Self.node("a", "0/1"), Self.node("c", "0/3")], maximumSilence: 5).count == 3)
        #expect(ShardMap(nodes: [], maximumSilence: 5) == .empty)
        // The store's count, when set, wins: a shard of it with no node is missing.
        let stored = ShardMap(nodes: [Self.node("a", "0/1"), Self.node("b", "0/1"), Self.node("c", "1/3")], maximumSilence: 5, count: 3)
        #expect(stored.count == 3 && stored.missing == [0, 2] && stored.replicas[1].map(\.name) == ["c"])
        #expect(ShardMap(nodes: [Self.node("a", "0/2", address: "https://h:1/")], maximumSilence: 5).replicas[0][0].address == "https://h:1")
    }

    enum Event { case begin, failed, answered, hedge }

    /// The actions a fresh call over `replicas` returns for `events`, in order.
    static func actions(replicas: Int, _ events: [Event]) -> [ShardCall.Action] {
        var call = ShardCall(replicas: replicas)
        return events.map { event in
            switch event {
            case .begin: call.begin()
            case .failed: call.attemptFailed()
            case .answered: call.attemptAnswered()
            case .hedge: call.hedgeDue()
            }
        }
    }

    @Test func aFailedAttemptGoesToTheNextReplicaAndASlowOneIsHedged() {
        // Fail-over at once; one hedge; a late answer changes nothing.
        #expect(Self.actions(replicas: 3, [.begin, .failed, .hedge, .hedge, .failed, .answered, .answered])
            == [.send(0), .send(1), .send(2), .wait, .wait, .answered, .wait])
        // Every replica failed: the shard is missing.
        #expect(Self.actions(replicas: 2, [.begin, .hedge, .failed, .failed, .hedge]) == [.send(0), .send(1), .wait, .failed, .wait])
        #expect(Self.actions(replicas: 0, [.begin]) == [.failed])
        #expect(Self.actions(replicas: 1, [.begin, .hedge, .answered]) == [.send(0), .wait, .answered], "nothing to hedge with")
    }

    static func answer(_ results: [(id: String, score: Double)], total: Int, matchedAnyWord: Bool = false) -> JSONValue {
        .object(JSONObject([
            ("results", .array(results.map { ["id": .string($0.id), "title": .string("Item \($0.id)"), "score": JSONValue($0.score)] })),
            ("scores", .array(results.map { JSONValue($0.score) })), ("owners", .array(results.map { _ in "" })),
            ("estimatedTotalHits", JSONValue(total)), ("totalHitsExact", true), ("matchedAnyWord", .bool(matchedAnyWord)),
            ("corrections", ["lemmon": ["lemon", "lemma"]]),
        ]))
    }

    @Test func shardsAnswersMergeByScoreThenOrderKey() {
        var merge = ResultMerge()
        let added = [merge.add(Self.answer([("a", 3), ("c", 1)], total: 2), shard: 0),
                     merge.add(Self.answer([("b", 3), ("d", 2.5)], total: 7, matchedAnyWord: true), shard: 1),
                     merge.add(["results": [["id": "x"]]], shard: 2)]
        #expect(added == [true, true, false], "the last is not a shard answer")
        let page = merge.page(offset: 0, limit: 3)
        // a and b tie: their order keys decide, as in one index.
        let tied = ["a", "b"].sorted { ItemKey(owner: nil, identifier: $0).orderKey < ItemKey(owner: nil, identifier: $1).orderKey }
        #expect(page.results.map(\.key.identifier) == tied + ["d"])
        #expect(page.matchedAnyWord == false, "the best result's shard decides")
        #expect(merge.page(offset: 2, limit: 5).results.map(\.key.identifier) == ["d", "c"])
        #expect(merge.total == 9 && merge.totalIsExact)
        #expect(merge.corrections == ["lemmon": ["lemon", "lemma"]], "best first, as each shard said, not re-sorted")
    }

    /// A node's answer is another process's word: totals out of range, results the item
    /// rules refuse and scores that are not numbers make the shard missing, with nothing of
    /// its answer kept, and never trap.
    @Test func aHostileShardAnswerIsRefusedWholeAndNothingOverflows() {
        var merge = ResultMerge()
        func add(_ answer: JSONValue, _ shard: Int, keep: Int = .max) -> Bool { merge.add(answer, shard: shard, keep: keep) }
        #expect(add(Self.answer([("a", 3)], total: 5), 0))
        #expect(!add(Self.answer([("b", 9)], total: Int.max), 1), "a total past 2^53")
        #expect(!add(Self.answer([("b", 9)], total: -1), 1))
        var hostile = Self.answer([("b", 1e9), ("c", 1)], total: 2)
        if case .object(var object) = hostile, case .array(var results)? = object["results"], case .object(var first) = results[0] {
            first.append("url", "https://shop.example/b")
            first.append("action", ["type": "open-web", "url": "javascript:alert(1)"])
            results[0] = .object(first)
            object["results"] = .array(results)
            hostile = .object(object)
        }
        #expect(!add(hostile, 2), "a javascript: action")
        var control = Self.answer([("d", 1)], total: 1)
        if case .object(var object) = control {
            object["results"] = [["id": "d", "title": "Clear \u{1B}[2J screen"]]
            control = .object(object)
        }
        #expect(!add(control, 3), "a control character in a title")
        #expect(merge.results.map(\.key.identifier) == ["a"], "nothing of a refused answer is kept")
        #expect(merge.total == 5)
        for _ in 0..<1100 { _ = add(Self.answer([], total: ResultMerge.largestTotal), 4) }
        #expect(merge.total == Int.max, "the sum saturates")

        var part = CorpusStatistics()
        part.documents = 1 << 53
        part.frequencies = [Array("tart".utf8): 1 << 53]
        let sum = CorpusStatistics.merged(Array(repeating: part, count: 1100))
        #expect(sum.documents == Int.max && sum.frequencies[Array("tart".utf8)] == Int.max)
    }

    /// The router holds a shard's results to the item contract and no stricter rule of its
    /// own: an app whose name one index holds (past the 64 bytes the router once allowed) is
    /// shown, an App Store id that is not numeric refuses the answer.
    @Test func shardResultsMeetTheContractNotARuleOfTheirOwn() {
        func answer(_ app: JSONValue) -> JSONValue {
            .object(JSONObject([
                ("results", [["id": "a", "title": "Item a", "score": 1, "apps": [app]]]), ("scores", [1]), ("owners", [""]),
                ("estimatedTotalHits", 1), ("totalHitsExact", true), ("matchedAnyWord", false), ("corrections", .object(JSONObject())),
            ]))
        }
        let name = String(repeating: "Long app name ", count: 7)
        var merge = ResultMerge()
        let named = merge.add(answer(["platform": "ios", "appStoreId": "1234567890", "name": .string(name)]), shard: 0)
        #expect(named, "a name the contract takes")
        let lettered = merge.add(answer(["platform": "ios", "appStoreId": "12ab", "name": "Shop"]), shard: 1)
        #expect(!lettered, "a store id that is not numeric")
        #expect(merge.results.map(\.key.identifier) == ["a"])
    }

    @Test func aShardKeepsOnlyTheCandidatesOneIndexWould() {
        var merge = ResultMerge()
        let added = merge.add(Self.answer([("a", 5), ("b", 4), ("c", 3), ("d", 2)], total: 4), shard: 0, keep: 2)
        #expect(added)
        #expect(merge.results.map(\.key.identifier) == ["a", "b"])
        #expect(merge.total == 4, "the total is the shard's")
    }

    /// A shard's 4xx is made again from its code and message; anything else is a missing shard.
    @Test func aShardsRefusalIsRebuiltFromItsCode() throws {
        let refused = FanOut.Answer(status: 400, body: Array(#"{"error":{"code":"invalid-query","message":"the query is empty","extra":"<script>"}}"#.utf8))
        let rebuilt = try #require(SearchRouter.refusal(refused))
        #expect(rebuilt.status == 400)
        if case .bytes(let body) = rebuilt.body {
            let json = try JSONParser.parse(bytes: body)
            #expect(json["error"]?["code"] == "invalid-query" && json["error"]?["message"] == "the query is empty")
            #expect(json["error"]?["extra"] == nil)
        } else {
            Issue.record("no body")
        }
        #expect(SearchRouter.refusal(FanOut.Answer(status: 400, body: Array("<html>bad</html>".utf8))) == nil)
        #expect(SearchRouter.refusal(FanOut.Answer(status: 400, body: Array(#"{"error":{"code":"Evil Code!","message":"x"}}"#.utf8))) == nil)
        #expect(SearchRouter.refusal(FanOut.Answer(status: 500, body: Array(#"{"error":{"code":"internal","message":"x"}}"#.utf8))) == nil)
        #expect(SearchRouter.refusal(FanOut.Answer(status: 401, body: Array(#"{"error":{"code":"unauthorized","message":"x"}}"#.utf8))) == nil)
    }
}
