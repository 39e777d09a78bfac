import Foundation
import Items
import JSON
import Postgres
import SearchIndex
import SearchlightTestSupport
import Testing

@testable import PostgresStore

/// A shared store made by an older searchlight migrates when a newer one connects.
@Suite struct SharedStoreMigrationTests {
    /// Version 3 knew items (and their log, engagement and activities) by identifier alone.
    @Test func aVersion3StoreMovesToOwnerScopedIdentities() throws {
        let url = try PostgresCluster.shared.get().newDatabase()
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE schema_migrations(version integer PRIMARY KEY, applied double precision NOT NULL)")
        for (index, sql) in PostgresSchema.migrations.prefix(3).enumerated() {
            try connection.executeScript(sql)
            try connection.execute("INSERT INTO schema_migrations VALUES($1, 0)", [.int(Int64(index + 1))])
        }
        let crawled = SearchableItem(uniqueIdentifier: "https://recipes.example/tart", title: "Lemon tart page", source: .crawled)
        let pushed = SearchableItem(uniqueIdentifier: "tart", title: "Lemon tart", source: .pushed, owner: "recipes")
        for item in [crawled, pushed] {
            try connection.execute("INSERT INTO items(id, owner, source, updated, body) VALUES($1, $2, $3, 0, $4)",
                                   [.text(item.uniqueIdentifier), item.owner.map(PostgresValue.text) ?? .null, .text(item.source.rawValue),
                                    .text(JSONWriter.string(item.storedJSON))])
            try connection.execute("INSERT INTO item_log(id, op, at) VALUES($1, 'u', 0)", [.text(item.uniqueIdentifier)])
        }
        try connection.execute("INSERT INTO engagement(id, impressions, clicks) VALUES('tart', 30, 9), ('gone', 1000, 0)")
        try connection.executeScript("""
            INSERT INTO activities(id, owner, activity_type, webpage_url, first_reported, last_reported) VALUES('a1', 'recipes', 'view', 'https://recipes.example/1', 0, 0);
            INSERT INTO activity_devices(activity, device_hash, network_hash, reported) VALUES('a1', '\\x01', '\\x02', 0);
            """)
        let shared = try SharedStore(url: url)
        let items = PostgresItemStore(shared)
        #expect(try items.item(ItemKey(owner: nil, identifier: crawled.uniqueIdentifier))?.title == "Lemon tart page")
        #expect(try items.item(ItemKey(owner: "recipes", identifier: "tart"))?.title == "Lemon tart")
        let engagement = try connection.execute("SELECT owner, id, impressions FROM engagement ORDER BY id").rows.map { [$0.string(0), $0.string(1), $0.string(2)] }
        #expect(engagement == [["recipes", "tart", "30"]], "engagement follows its item's owner; that of a gone item goes")
        #expect(try connection.execute("SELECT owner FROM item_log WHERE id = 'tart'").first?.string(0) == "recipes")
        #expect(try connection.execute("SELECT owner FROM activity_devices WHERE activity = 'a1'").first?.string(0) == "recipes")
        // The identifier is free for another owner now, and a node's copy holds both.
        var batch = try ItemBatch(validating: [SearchableItem(uniqueIdentifier: "tart", title: "Lemon tart again")])
        batch.owner = "bakery"
        _ = try items.commit(batch, now: Date())
        let folder = try TemporaryDirectory("migrated-copy")
        defer { folder.remove() }
        let follower = try LogFollower(store: shared, indexPath: folder.path + "/index.sqlite", name: "migrated")
        try follower.catchUp()
        #expect(try SearchIndex(path: folder.path + "/index.sqlite").search(SearchRequest("lemon")).hits.count == 3)
    }
}
