import JSON
@testable import Router
import SearchIndex
import StoreSeams
import Testing

/// The router's decisions without I/O: which nodes it asks, what it does when an attempt
/// fails or is slow, and how shards' answers become one.
@Suite struct RouterDecisionTests {
    static func node(_ name: String, _ shard: String, silent: Double = 0, address: String? = "http://127.0.0.1:1") -> CrawlStatus.Node {
        CrawlStatus.Node(name: name, behind: 0, silentFor: silent, shard: Shard(parsing: shard)!, address: address)
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
        #expect(ShardMap(nodes: [Self.node("a", "0/2", address: "http://h:1/")], maximumSilence: 5).replicas[0][0].address == "http://h:1")
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
            ("results", .array(results.map { ["id": .string($0.id), "score": JSONValue($0.score)] })),
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
}
