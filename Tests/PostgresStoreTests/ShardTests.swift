import Foundation
import Items
import JSON
import Postgres
import PostgresStore
import SearchIndex
import SearchlightTestSupport
import StoreSeams
import Testing

/// Search nodes that hold one shard of the shared store's index (`serve --shard K/N`): the
/// shards are disjoint, together they are the whole, and each item sits where ``Shard``
/// says — the ground a router merging one replica of every shard stands on.
@Suite struct ShardTests {
    @Test func theShardTextIsCheckedAndTheAssignmentIsStable() {
        #expect(Shard(parsing: "2/4") == Shard(index: 2, count: 4))
        for bad in ["4/4", "-1/4", "0/0", "1", "a/b", "0/1025", "1/2/3", ""] { #expect(Shard(parsing: bad) == nil, "\(bad)") }
        // Pinned: shards are chosen when a store's nodes start, so the hash may never change.
        // The values are FNV-1a of "friends\0a" and "\0party-1" (the operator's owner is empty), computed outside.
        #expect(Shard.number(of: ItemKey(owner: "friends", identifier: "a"), count: 1_000_000) == 206_397)
        #expect(Shard.number(of: ItemKey(owner: nil, identifier: "party-1"), count: 1024) == 991)
        #expect(Shard.whole.holds(ItemKey(owner: "anyone", identifier: "anything")))
    }

    /// The SQL a node selects its rows with gives the shard ``Shard/number(of:count:)`` gives,
    /// for hashes with the top bit set (negative as a bigint) and not, and shard counts that
    /// do and do not divide 2^64.
    @Test func theSQLConditionAgreesWithTheHash() throws {
        let url = try PostgresCluster.shared.get().newDatabase()
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE k(n integer, key_hash bigint)")
        let keys = (0..<400).map { ItemKey(owner: $0 % 3 == 0 ? nil : "owner\($0 % 5)", identifier: "id-\($0)") }
        #expect(keys.contains { Int64(bitPattern: Shard.hash(of: $0)) < 0 } && keys.contains { Int64(bitPattern: Shard.hash(of: $0)) >= 0 })
        try connection.execute("INSERT INTO k SELECT unnest($1::integer[]), unnest($2::bigint[])",
                               [.array(keys.indices.map { Optional($0) }), .array(keys.map { Optional(Int64(bitPattern: Shard.hash(of: $0))) })])
        for count in [2, 3, 4, 7, 10, 1024] {
            for index in 0..<min(count, 4) {
                let shard = try #require(Shard(index: index, count: count))
                let selected = Set(try connection.execute("SELECT n FROM k WHERE \(shard.sqlCondition(hashColumn: "key_hash"))").rows.compactMap { $0.int(0) })
                #expect(selected == Set(keys.indices.filter { shard.holds(keys[$0]) }), "\(shard)")
            }
        }
        #expect(Shard.whole.sqlCondition(hashColumn: "key_hash") == "true")
    }

    @Test func shardNodesHoldDisjointPartsThatMakeTheWhole() throws {
        let url = try PostgresCluster.shared.get().newDatabase()
        let shared = try SharedStore(url: url)
        let items = PostgresItemStore(shared)
        let folder = try TemporaryDirectory("shards")
        defer { folder.remove() }
        let all = (0..<60).map { "party-\($0)" }
        _ = try items.commit(ItemBatch(validating: all.map { SearchableItem(uniqueIdentifier: $0, title: "Zebra \($0)") }), now: Date())

        func identifiers(_ path: String) throws -> Set<String> {
            Set(try SearchIndex(path: path, mode: .existing).search(SearchRequest("zebra", limit: 100)).hits.map(\.item.uniqueIdentifier))
        }
        var held: [Set<String>] = []
        for number in 0..<3 {
            let shard = try #require(Shard(index: number, count: 3))
            let path = folder.path + "/shard-\(number).sqlite"
            try LogFollower(store: shared, indexPath: path, name: "node-\(number)", shard: shard).catchUp()
            let ids = try identifiers(path)
            #expect(ids.allSatisfy { Shard.number(of: ItemKey(owner: nil, identifier: $0), count: 3) == number })
            held.append(ids)
        }
        #expect(held.allSatisfy { !$0.isEmpty }, "60 items over 3 shards: none empty")
        #expect(held.map(\.count).reduce(0, +) == 60, "disjoint")
        #expect(held.reduce(into: Set<String>()) { $0.formUnion($1) } == Set(all), "together the whole")

        // Changes through the log reach only the shard that holds the item.
        let moved = try #require(held[1].first)
        let late = (0..<12).map { "late-\($0)" }
        var lateBatch = try ItemBatch(validating: late.map { SearchableItem(uniqueIdentifier: $0, title: "Zebra \($0)") })
        lateBatch.deleteIdentifiers = [moved]
        _ = try items.commit(lateBatch, now: Date())
        for number in 0..<3 {
            let path = folder.path + "/shard-\(number).sqlite"
            try LogFollower(store: shared, indexPath: path, name: "node-\(number)", shard: Shard(index: number, count: 3)!).catchUp()
            let arrived = late.filter { Shard.number(of: ItemKey(owner: nil, identifier: $0), count: 3) == number }
            #expect(try identifiers(path) == held[number].subtracting([moved]).union(arrived))
            held[number] = held[number].subtracting([moved]).union(arrived)
        }
        let everything = Set(all + late).subtracting([moved])

        // A copy pointed at another shard, or at the whole index, is rebuilt for it.
        let path = folder.path + "/shard-0.sqlite"
        try LogFollower(store: shared, indexPath: path, name: "node-0", shard: Shard(index: 2, count: 3)!).catchUp()
        #expect(try identifiers(path) == held[2])
        try LogFollower(store: shared, indexPath: path, name: "node-0").catchUp()
        #expect(try identifiers(path) == everything)

        // Rows written before stores kept the hash (NULL) still reach their shard only.
        let connection = try PostgresConnection(url: url)
        try connection.execute("UPDATE items SET key_hash = NULL")
        try connection.execute("UPDATE item_log SET key_hash = NULL")
        for number in 0..<3 {
            let fresh = folder.path + "/legacy-\(number).sqlite"
            try LogFollower(store: shared, indexPath: fresh, name: "legacy-\(number)", shard: Shard(index: number, count: 3)!).catchUp()
            #expect(try identifiers(fresh) == held[number])
        }

        // A shard node that finds only other shards' changes is still up to date with the log.
        let zero = try LogFollower(store: shared, indexPath: folder.path + "/legacy-0.sqlite", name: "legacy-0", shard: Shard(index: 0, count: 3)!)
        let before = try #require(try zero.position())
        let onlyElsewhere = (0..<30).map { "elsewhere-\($0)" }.filter { Shard.number(of: ItemKey(owner: nil, identifier: $0), count: 3) != 0 }
        _ = try items.commit(ItemBatch(validating: onlyElsewhere.map { SearchableItem(uniqueIdentifier: $0, title: "Zebra \($0)") }), now: Date())
        try zero.catchUp()
        let head = try connection.execute("SELECT max(seq) FROM item_log").first?.int(0) ?? 0
        let after = try zero.position()
        #expect(head > before && after == Int64(head), "applied up to the head, not left at \(before)")
        #expect(try connection.execute("SELECT applied FROM nodes WHERE name = 'legacy-0'").first?.int(0) == head)
        #expect(try identifiers(folder.path + "/legacy-0.sqlite") == held[0])

        // The nodes say which shard they hold.
        let status = try CommandRunner.run(["status", "--store", url, "--data", folder.path + "/data", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let nodes = try JSONParser.parse(status.stdout)["nodes"]?.arrayValue ?? []
        let shards = Dictionary(uniqueKeysWithValues: nodes.compactMap { node in
            node["name"]?.stringValue.flatMap { name in node["shard"]?.stringValue.map { (name, $0) } }
        })
        #expect(shards["node-1"] == "1/3" && shards["node-2"] == "2/3" && shards["node-0"] == "0/1")
    }
}
