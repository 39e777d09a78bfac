import Dispatch
import Foundation
import Items
import Postgres
import PostgresStore
import SearchIndex
import SearchlightTestSupport
import Synchronization
import Testing

/// Item writes in the shared store from several connections at once.
@Suite struct ItemTableTests {
    /// Identity is (owner, identifier): two owners pushing one identifier at once both
    /// win, each with its own item, and each change is logged under its owner.
    @Test func twoOwnersPushingOneIdentifierAtOnceEachKeepTheirOwn() throws {
        let url = try PostgresCluster.shared.get().newDatabase()
        let stores = try ["alpha", "beta"].map { (owner: $0, items: PostgresItemStore(try SharedStore(url: url))) }
        for round in 0..<10 {
            let id = "race-\(round)"
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: stores.count) { index in
                let (owner, items) = stores[index]
                do {
                    var batch = try ItemBatch(validating: [SearchableItem(uniqueIdentifier: id, title: "\(owner) \(round)")])
                    batch.owner = owner
                    _ = try items.commit(batch, now: Date())
                } catch {
                    failures.withLock { $0.append("\(owner): \(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty)
            let connection = try PostgresConnection(url: url)
            let owners = try connection.execute("SELECT owner, body FROM items WHERE id = $1 ORDER BY owner", [.text(id)]).rows
            #expect(owners.map { $0.string(0) } == ["alpha", "beta"], "round \(round)")
            #expect(try stores[0].items.item(ItemKey(owner: "alpha", identifier: id))?.title == "alpha \(round)")
            #expect(try stores[1].items.item(ItemKey(owner: "beta", identifier: id))?.title == "beta \(round)")
            let logged = try connection.execute("SELECT owner FROM item_log WHERE id = $1 ORDER BY owner", [.text(id)]).rows.map { $0.string(0) }
            #expect(logged == ["alpha", "beta"])
        }
    }
}

/// The change log is trimmed once every live node has applied it; a node away for longer
/// rebuilds its copy instead of missing changes.
@Suite struct LogTrimTests {
    @Test func theLogIsTrimmedBehindLiveNodesAndAStaleCopyIsRebuilt() throws {
        let url = try PostgresCluster.shared.get().newDatabase()
        let shared = try SharedStore(url: url)
        let items = PostgresItemStore(shared)
        let folder = try TemporaryDirectory("log-trim")
        defer { folder.remove() }
        func push(_ range: Range<Int>) throws {
            _ = try items.commit(ItemBatch(validating: range.map { SearchableItem(uniqueIdentifier: "log-\($0)", title: "Trim item \($0)") }), now: Date())
        }
        let connection = try PostgresConnection(url: url)
        func logSize() throws -> Int { try connection.execute("SELECT count(*) FROM item_log").first?.int(0) ?? -1 }
        try push(0..<50)
        let stale = try LogFollower(store: shared, indexPath: folder.path + "/stale.sqlite", name: "stale")
        try stale.catchUp()
        try push(50..<100)
        let live = try LogFollower(store: shared, indexPath: folder.path + "/live.sqlite", name: "live")
        try live.catchUp()
        #expect(try logSize() == 100)

        // A live node that has applied less holds the log back, whatever its age.
        var trimmed = try LogTrimmer.trim(connection, keep: 0)
        #expect(trimmed.removed == 50, "only what the stale node has applied")
        // Once it has been silent for longer than the retention, it no longer does.
        try connection.execute("UPDATE nodes SET updated = updated - 2 * 86400 WHERE name = 'stale'")
        trimmed = try LogTrimmer.trim(connection, keep: 0)
        let livePosition = try live.position()
        #expect(trimmed.removed == 50 && trimmed.floor == livePosition)
        #expect(try logSize() == 0)
        // Entries younger than `keep` stay.
        try push(100..<110)
        #expect(try LogTrimmer.trim(connection, keep: 3600).removed == 0)

        // The live node follows on; the stale copy is older than the floor and is rebuilt.
        try live.catchUp()
        try stale.catchUp()
        let liveIndex = try SearchIndex(path: folder.path + "/live.sqlite", mode: .existing)
        let staleIndex = try SearchIndex(path: folder.path + "/stale.sqlite", mode: .existing)
        #expect(try liveIndex.count() == 110)
        #expect(try staleIndex.count() == 110)
        #expect(try staleIndex.search(SearchRequest("trim item 75")).hits.first?.item.uniqueIdentifier == "log-75")
        let stalePosition = try stale.position()
        #expect(stalePosition == (try live.position()))
    }
}
