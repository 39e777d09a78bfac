import Foundation
import SQLite
import Testing

@testable import SearchIndex

/// A new file indexes an item's identifier once, `(uid, owner)`, and every lookup by key, by
/// identifier alone and by owner still goes through an index, never a scan of `items`; its
/// places are indexed in rowid order.
@Suite struct IndexLayoutTests {
    @Test func everyItemLookupUsesAnIndex() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([item("a", "First"), item("b", "Second")])
        let plans = try t.index.withConnection { connection in
            try [
                "SELECT rowid FROM items WHERE owner = ? AND uid = ?",
                "SELECT owner FROM items WHERE uid = ? ORDER BY owner LIMIT ?",
                "DELETE FROM items WHERE owner = ?1",
            ].map { sql in
                let plan = try connection.statement("EXPLAIN QUERY PLAN " + sql)
                var details: [String] = []
                while try plan.step() { details.append(plan.string(3) ?? "") }
                return details.joined(separator: "; ")
            }
        }
        for plan in plans {
            #expect(plan.contains("USING") && plan.contains("INDEX"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
        }
        let indexes = try t.index.withConnection { connection in
            let statement = try connection.statement("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items' AND sql LIKE '%uid%'")
            try statement.step()
            return statement.int(0)
        }
        #expect(indexes == 0, "no index beside the UNIQUE constraint's names the identifier")
        #expect(try t.index.keys(identifier: "a").map(\.identifier) == ["a"])
    }

    /// The places' index is in rowid order: a new item's entry goes at its end, and the grid
    /// of places reads the rows written since it was made as one range of it.
    @Test func theGridReadsNewPlacesAsOneRangeOfTheirIndex() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([item("a", "First")])
        let plan = try t.index.withConnection { connection in
            let plan = try connection.statement("""
                EXPLAIN QUERY PLAN SELECT rowid, latitude, longitude FROM items INDEXED BY items_placed
                WHERE latitude IS NOT NULL AND rowid > ? AND rowid <= ?
                """)
            var details: [String] = []
            while try plan.step() { details.append(plan.string(3) ?? "") }
            return details.joined(separator: "; ")
        }
        #expect(plan.contains("SEARCH") && plan.contains("COVERING INDEX items_placed (rowid>? AND rowid<?)"), "\(plan)")
    }
}
